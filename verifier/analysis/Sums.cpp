//===- Sums.cpp - Sums over ranges in spec clauses --------------------------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

z3::expr SymExec::sumOp(SumOp op) {
  z3::expr lo = get(op.getLo()).simplify(), hi = get(op.getHi()).simplify(),
           st = get(op.getStep()).simplify();
  int64_t l, h, s;
  if (!isConst(lo, l) || !isConst(hi, h) || !isConst(st, s) || s <= 0 || (h - l) / s > 4096) {
    if (mode == FloatMode::Real && isConst(st, s) && s > 0)
      return symbolicSum(op, lo, hi, s);
    unsupported(op, mode == FloatMode::Real
                        ? "sum with a step that is not a positive constant is not modelled yet"
                        : "sum with bounds that are not compile-time constants in an exact clause "
                          "is not modelled (use `approx`)");
    return fresh("unmodelled_sum", sortOf(op.getType()));
  }
  std::optional<z3::expr> acc;
  for (int64_t i = l; i < h; i += s) {
    z3::expr t = evalRegion(op.getBody(), {z.int_val(i)});
    if (!acc)
      acc = t;
    else if (mode == FloatMode::Real)
      acc = *acc + t;
    else
      acc = z3::expr(z, Z3_mk_fpa_add(z, Z3_mk_fpa_rne(z), *acc, t));
  }
  if (!acc)
    return floatConst(FloatAttr::get(op.getType(), 0.0));
  return *acc;
}

/// Number of terms of `sum(i in lo..hi step s: ...)`.
z3::expr SymExec::sumCount(z3::expr lo, z3::expr hi, int64_t s) {
  return z3::ite(hi > lo, (hi - lo + z.int_val(s - 1)) / z.int_val(s), z.int_val(0));
}

/// SumN(f, lo, c, s) = f[lo] + f[lo + s] + ... (c terms), over the reals.
z3::expr SymExec::sumTerm(z3::expr f, z3::expr lo, z3::expr count, int64_t s) {
  z3::sort_vector sorts(z);
  sorts.push_back(f.get_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  sorts.push_back(z.int_sort());
  z3::func_decl sumN = z.function("sum_n", sorts, z.real_sort());
  z3::expr_vector args(z);
  args.push_back(f);
  args.push_back(lo);
  args.push_back(count);
  args.push_back(z.int_val(s));
  z3::expr t = sumN(args);
  // The definition, one step deep (valid for every value of the arguments):
  // no terms is 0; c > 0 terms are c - 1 terms plus the last one.
  z3::expr_vector prev(z);
  prev.push_back(f);
  prev.push_back(lo);
  prev.push_back(count - 1);
  prev.push_back(z.int_val(s));
  termFacts.push_back({t, z3::implies(count <= 0, t == z.real_val(0))});
  termFacts.push_back({t, z3::implies(count > 0, t == sumN(prev) +
                                                    z3::select(f, lo + (count - 1) * z.int_val(s)))});
  return t;
}

/// A sum with symbolic bounds in an approx clause: an uninterpreted `sum_n`
/// over the body as an array (lambda), with its one-step definition and, for a
/// step-1 sum, the strided-partition identity for every constant step the
/// kernel's other sums use.
z3::expr SymExec::symbolicSum(SumOp op, z3::expr lo, z3::expr hi, int64_t s) {
  z3::expr k = fresh("k", z.int_sort());
  z3::expr body = evalRegion(op.getBody(), {k});
  if (!body.is_real()) {
    unsupported(op, "symbolic sum of a non-float term");
    return fresh("unmodelled_sum", z.real_sort());
  }
  z3::expr_vector bound(z);
  bound.push_back(k);
  z3::expr f = z3::lambda(bound, body);
  z3::expr total = sumTerm(f, lo, sumCount(lo, hi, s), s);
  if (s == 1) {
    std::set<int64_t> strides;
    kernel.walk([&](SumOp other) {
      if (auto c = other.getStep().getDefiningOp<arith::ConstantOp>())
        if (auto ia = dyn_cast<IntegerAttr>(c.getValue()); ia && ia.getInt() > 1 && ia.getInt() <= 1024)
          strides.insert(ia.getInt());
    });
    for (int64_t S : strides) {
      z3::expr parts = z.real_val(0);
      for (int64_t u = 0; u < S; ++u) {
        z3::expr start = (lo + z.int_val(u)).simplify();
        parts = parts + sumTerm(f, start, sumCount(start, hi, S), S);
      }
      termFacts.push_back({total, total == parts});
    }
  }
  return total;
}
