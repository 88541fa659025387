//===- FloatAbstraction.cpp - Floating point as uninterpreted functions ---===//
#include "verifier/solver/Solver.h"

#include <functional>
#include <map>

/// Replaces floating-point operations and predicates by uninterpreted
/// functions of the same sorts (rounding modes dropped). Returns nothing when
/// the formula has quantifiers or no float operations.
std::optional<z3::expr_vector> kuiper::solver::abstractFloats(z3::context &c,
                                                             const z3::expr_vector &in) {
  std::map<unsigned, z3::expr> memo;
  bool any = false, quant = false;
  std::function<z3::expr(const z3::expr &)> go = [&](const z3::expr &e) -> z3::expr {
    if (e.is_quantifier()) {
      quant = true;
      return e;
    }
    if (!e.is_app() || e.num_args() == 0)
      return e;
    unsigned id = Z3_get_ast_id(c, e);
    auto it = memo.find(id);
    if (it != memo.end())
      return it->second;
    z3::expr_vector args(c);
    for (unsigned i = 0; i < e.num_args(); ++i)
      args.push_back(go(e.arg(i)));
    Z3_decl_kind k = e.decl().decl_kind();
    std::optional<z3::expr> r;
    if (k >= Z3_OP_FPA_RM_NEAREST_TIES_TO_EVEN && k <= Z3_OP_FPA_BV2RM &&
        k != Z3_OP_FPA_NUM && k != Z3_OP_FPA_PLUS_INF && k != Z3_OP_FPA_MINUS_INF &&
        k != Z3_OP_FPA_NAN && k != Z3_OP_FPA_PLUS_ZERO && k != Z3_OP_FPA_MINUS_ZERO &&
        !(k >= Z3_OP_FPA_RM_NEAREST_TIES_TO_EVEN && k <= Z3_OP_FPA_RM_TOWARD_ZERO)) {
      z3::expr_vector kept(c);
      z3::sort_vector sorts(c);
      for (unsigned i = 0; i < args.size(); ++i) {
        if (args[i].get_sort().sort_kind() == Z3_ROUNDING_MODE_SORT)
          continue;
        kept.push_back(args[i]);
        sorts.push_back(args[i].get_sort());
      }
      std::string name = "fp_abs_" + std::to_string((int)k);
      for (unsigned i = 0; i < sorts.size(); ++i)
        name += "_" + sorts[i].to_string();
      name += "_" + e.get_sort().to_string();
      for (char &ch : name)
        if (ch == ' ' || ch == '(' || ch == ')')
          ch = '_';
      r = c.function(name.c_str(), sorts, e.get_sort())(kept);
      any = true;
    } else {
      r = e.decl()(args);
    }
    memo.emplace(id, *r);
    return *r;
  };
  z3::expr_vector out(c);
  for (auto a : in)
    out.push_back(go(a));
  if (quant || !any)
    return std::nullopt;
  return out;
}

