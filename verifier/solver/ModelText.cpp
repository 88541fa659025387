//===- ModelText.cpp - Values of a Z3 model as people read them -----------===//
#include "verifier/solver/ModelText.h"

#include <cstdio>

/// Collects applications of uninterpreted functions of arity >= 1 whose
/// name is a memory (the input values involved in a counterexample).
void kuiper::solver::collectReads(const z3::expr &e, std::set<unsigned> &seen, std::vector<z3::expr> &out,
                  const std::set<std::string> &memNames) {
  if (!e.is_app())
    return;
  unsigned id = Z3_get_ast_id(e.ctx(), e);
  if (!seen.insert(id).second)
    return;
  if (e.num_args() > 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
      memNames.count(e.decl().name().str()))
    out.push_back(e);
  for (unsigned i = 0; i < e.num_args(); ++i)
    collectReads(e.arg(i), seen, out, memNames);
}

std::string kuiper::solver::valueText(const z3::expr &v, unsigned unsignedBits) {
  int64_t integer;
  if (v.is_int() && v.is_numeral_i64(integer)) {
    if (integer < 0 && unsignedBits > 0 && unsignedBits <= 64) {
      uint64_t bits = uint64_t(integer);
      if (unsignedBits < 64)
        bits &= (uint64_t(1) << unsignedBits) - 1;
      return std::to_string(bits);
    }
    return std::to_string(integer);
  }
  if (v.is_fpa()) {
    // Render as a decimal via the real value where finite.
    z3::context &c = v.ctx();
    z3::expr isNan(c, Z3_mk_fpa_is_nan(c, v)), isInf(c, Z3_mk_fpa_is_infinite(c, v)),
        isNeg(c, Z3_mk_fpa_is_negative(c, v)), isZero(c, Z3_mk_fpa_is_zero(c, v));
    if (isNan.simplify().is_true())
      return "NaN";
    if (isInf.simplify().is_true())
      return isNeg.simplify().is_true() ? "-inf" : "inf";
    if (isZero.simplify().is_true())
      return isNeg.simplify().is_true() ? "-0.0" : "0.0";
    z3::expr r = z3::expr(c, Z3_mk_fpa_to_real(c, v)).simplify();
    // %.9g round-trips an f32 (and shows tiny values, which a fixed number of
    // decimals would print as 0); f64 values get 17 digits.
    char buf[64];
    unsigned ebits = v.get_sort().fpa_ebits();
    std::snprintf(buf, sizeof buf, ebits > 8 ? "%.17g" : "%.9g", Z3_get_numeral_double(c, r));
    return buf;
  }
  if (v.is_real()) {
    std::string s = v.get_decimal_string(9);
    if (!s.empty() && s.back() == '?')
      s.pop_back();
    return s;
  }
  return v.to_string();
}

std::string kuiper::solver::readName(const z3::expr &app, const z3::model &m) {
  std::string s = app.decl().name().str() + "[";
  for (unsigned i = 0; i < app.num_args(); ++i)
    s += (i ? ", " : "") + valueText(m.eval(app.arg(i), true));
  return s + "]";
}

