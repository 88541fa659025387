//===- Extrema.cpp - Trees of maxima and minima put in one order ----------===//
#include "verifier/solver/Solver.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

using namespace kuiper::solver;

namespace {
/// A float maximum or minimum as ieeeExtremum builds it:
/// `ite(isNaN a || isNaN b, NaN, ite(a > b, a, ite(a < b, b, ite(isZero a &&
/// isZero b, ite(isPositive a, a, b), a))))` for the maximum (for the minimum
/// the comparisons swap and `isNegative` picks the zero). Both are the join of
/// a total order (-0 below +0) with NaN absorbing: associative, commutative
/// and idempotent, so a tree of them is a function of the set of its leaves.
struct Extremum {
  bool isMin;
  z3::expr a, b;
};

bool kindIs(const z3::expr &e, Z3_decl_kind k, unsigned args) {
  return e.is_app() && e.decl().decl_kind() == k && e.num_args() == args;
}

/// An integer or real minimum or maximum: `ite(c, x, y)` where `c` compares
/// `x` and `y` (`x <= y`, `y > x`, ... pick the smaller: a minimum). A total
/// order: associative, commutative and idempotent too.
std::optional<Extremum> asOrderedExtremum(const z3::expr &t) {
  z3::expr c = t.arg(0), x = t.arg(1), y = t.arg(2);
  if (!c.is_app() || c.num_args() != 2)
    return std::nullopt;
  Z3_decl_kind k = c.decl().decl_kind();
  bool less = k == Z3_OP_LT || k == Z3_OP_LE, greater = k == Z3_OP_GT || k == Z3_OP_GE;
  if (!less && !greater)
    return std::nullopt;
  if (z3::eq(c.arg(0), x) && z3::eq(c.arg(1), y))
    return Extremum{less, x, y}; // x < y ? x : y
  if (z3::eq(c.arg(0), y) && z3::eq(c.arg(1), x))
    return Extremum{greater, x, y}; // y > x ? x : y
  return std::nullopt;
}

std::optional<Extremum> asExtremum(const z3::expr &t) {
  if (!kindIs(t, Z3_OP_ITE, 3))
    return std::nullopt;
  if (t.get_sort().is_int() || t.get_sort().is_real())
    return asOrderedExtremum(t);
  if (!t.get_sort().is_fpa())
    return std::nullopt;
  z3::expr nanCond = t.arg(0), nan = t.arg(1), t1 = t.arg(2);
  if (!kindIs(nan, Z3_OP_FPA_NAN, 0) || !kindIs(nanCond, Z3_OP_OR, 2) ||
      !kindIs(nanCond.arg(0), Z3_OP_FPA_IS_NAN, 1) || !kindIs(nanCond.arg(1), Z3_OP_FPA_IS_NAN, 1))
    return std::nullopt;
  z3::expr a = nanCond.arg(0).arg(0), b = nanCond.arg(1).arg(0);
  if (!kindIs(t1, Z3_OP_ITE, 3) || !z3::eq(t1.arg(1), a))
    return std::nullopt;
  z3::expr c1 = t1.arg(0), t2 = t1.arg(2);
  bool isMin;
  if (kindIs(c1, Z3_OP_FPA_GT, 2))
    isMin = false;
  else if (kindIs(c1, Z3_OP_FPA_LT, 2))
    isMin = true;
  else
    return std::nullopt;
  Z3_decl_kind other = isMin ? Z3_OP_FPA_GT : Z3_OP_FPA_LT;
  if (!z3::eq(c1.arg(0), a) || !z3::eq(c1.arg(1), b) || !kindIs(t2, Z3_OP_ITE, 3) ||
      !kindIs(t2.arg(0), other, 2) || !z3::eq(t2.arg(0).arg(0), a) ||
      !z3::eq(t2.arg(0).arg(1), b) || !z3::eq(t2.arg(1), b))
    return std::nullopt;
  z3::expr t3 = t2.arg(2);
  if (!kindIs(t3, Z3_OP_ITE, 3) || !z3::eq(t3.arg(2), a) || !kindIs(t3.arg(0), Z3_OP_AND, 2))
    return std::nullopt;
  z3::expr zeros = t3.arg(0), tie = t3.arg(1);
  if (!kindIs(zeros.arg(0), Z3_OP_FPA_IS_ZERO, 1) || !z3::eq(zeros.arg(0).arg(0), a) ||
      !kindIs(zeros.arg(1), Z3_OP_FPA_IS_ZERO, 1) || !z3::eq(zeros.arg(1).arg(0), b))
    return std::nullopt;
  if (!kindIs(tie, Z3_OP_ITE, 3) ||
      !kindIs(tie.arg(0), isMin ? Z3_OP_FPA_IS_NEGATIVE : Z3_OP_FPA_IS_POSITIVE, 1) ||
      !z3::eq(tie.arg(0).arg(0), a) || !z3::eq(tie.arg(1), a) || !z3::eq(tie.arg(2), b))
    return std::nullopt;
  return Extremum{isMin, a, b};
}

/// Rewrites the terms of `in` bottom-up with `f` (applied to each term after
/// its arguments), memoized by AST id; quantifier bodies are left as they are.
class Rewriter {
public:
  explicit Rewriter(std::function<z3::expr(const z3::expr &)> f) : f(std::move(f)) {}
  z3::expr operator()(const z3::expr &e) {
    unsigned id = Z3_get_ast_id(e.ctx(), e);
    if (auto it = memo.find(id); it != memo.end())
      return it->second;
    z3::expr r = e;
    if (e.is_app() && e.num_args() > 0) {
      z3::expr_vector args(e.ctx());
      bool changed = false;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        args.push_back((*this)(e.arg(i)));
        changed = changed || !z3::eq(args.back(), e.arg(i));
      }
      if (changed)
        r = e.decl()(args);
    }
    r = f(r);
    memo.emplace(id, r);
    keep.push_back(e);
    return r;
  }

private:
  std::function<z3::expr(const z3::expr &)> f;
  std::unordered_map<unsigned, z3::expr> memo;
  std::vector<z3::expr> keep; ///< AST ids are reused once an AST is freed
};
} // namespace

z3::expr kuiper::solver::ieeeExtremum(z3::context &c, bool isMin, const z3::expr &a,
                                      const z3::expr &b) {
  if (!a.get_sort().is_fpa())
    return isMin ? z3::ite(a <= b, a, b) : z3::ite(a >= b, a, b);
  z3::expr an(c, Z3_mk_fpa_is_nan(c, a)), bn(c, Z3_mk_fpa_is_nan(c, b));
  z3::expr gt(c, Z3_mk_fpa_gt(c, a, b)), lt(c, Z3_mk_fpa_lt(c, a, b));
  z3::expr zeros = z3::expr(c, Z3_mk_fpa_is_zero(c, a)) && z3::expr(c, Z3_mk_fpa_is_zero(c, b));
  // ±0 tie: maximum takes +0, minimum -0.
  z3::expr aWins = isMin ? z3::expr(c, Z3_mk_fpa_is_negative(c, a))
                         : z3::expr(c, Z3_mk_fpa_is_positive(c, a));
  z3::expr nan(c, Z3_mk_fpa_nan(c, a.get_sort()));
  z3::expr pick = isMin ? z3::ite(lt, a, z3::ite(gt, b, z3::ite(zeros, z3::ite(aWins, a, b), a)))
                        : z3::ite(gt, a, z3::ite(lt, b, z3::ite(zeros, z3::ite(aWins, a, b), a)));
  return z3::ite(an || bn, nan, pick);
}

std::optional<z3::expr_vector> kuiper::solver::canonicalExtrema(z3::context &context,
                                                                const z3::expr_vector &in,
                                                                unsigned minTrees) {
  // 1. Each extremum becomes an application of an uninterpreted function, one
  //    per kind and sort, so that the simplifier below cannot reshape it.
  std::map<std::pair<bool, unsigned>, z3::func_decl> symbols;
  std::unordered_map<unsigned, bool> kindOf; // symbol id -> isMin
  unsigned count = 0;
  Rewriter opaque([&](const z3::expr &t) -> z3::expr {
    std::optional<Extremum> x = asExtremum(t);
    if (!x)
      return t;
    ++count;
    z3::sort s = t.get_sort();
    auto key = std::make_pair(x->isMin, Z3_get_sort_id(context, s));
    auto it = symbols.find(key);
    if (it == symbols.end()) {
      std::string name = std::string(x->isMin ? "minimum" : "maximum") + "!tree" +
                         std::to_string(symbols.size());
      it = symbols.emplace(key, context.function(name.c_str(), s, s, s)).first;
      kindOf.emplace(Z3_get_func_decl_id(context, it->second), x->isMin);
    }
    return it->second(x->a, x->b);
  });
  z3::goal goal(context);
  for (const z3::expr &a : in)
    goal.add(opaque(a));
  if (count < minTrees)
    return std::nullopt;
  // 2. Equations solved and substituted, known literals propagated, terms
  //    simplified: the leaves of the two sides of `y == max(...)` become the
  //    same terms (`x[32 * w + (lane ^ 16)]` under `lane == 0` is `x[32 * w + 16]`).
  z3::tactic prep = z3::tactic(context, "simplify") & z3::tactic(context, "propagate-values") &
                    z3::tactic(context, "solve-eqs") & z3::tactic(context, "simplify") &
                    z3::tactic(context, "propagate-values") & z3::tactic(context, "simplify");
  z3::apply_result subgoals = prep(goal);
  if (subgoals.size() != 1)
    return std::nullopt;
  // 3. Each tree of one kind flattened to its set of leaves, in the order of
  //    their AST ids, folded again and given back its meaning: equal sets give
  //    equal terms. (Valid: the kind is associative, commutative and
  //    idempotent, see Extremum.)
  auto symbolKind = [&](const z3::expr &t) -> std::optional<bool> {
    if (!t.is_app() || t.num_args() != 2)
      return std::nullopt;
    auto it = kindOf.find(Z3_get_func_decl_id(context, t.decl()));
    if (it == kindOf.end())
      return std::nullopt;
    return it->second;
  };
  std::function<void(const z3::expr &, unsigned, std::vector<z3::expr> &)> leaves =
      [&](const z3::expr &t, unsigned decl, std::vector<z3::expr> &out) {
        if (symbolKind(t) && Z3_get_func_decl_id(context, t.decl()) == decl) {
          leaves(t.arg(0), decl, out);
          leaves(t.arg(1), decl, out);
        } else {
          out.push_back(t);
        }
      };
  // Leaves first (a tree inside a leaf's index), then the trees over them.
  std::function<z3::expr(const z3::expr &)> canonical;
  std::unordered_map<unsigned, z3::expr> done;
  std::vector<z3::expr> keep;
  canonical = [&](const z3::expr &t) -> z3::expr {
    unsigned id = Z3_get_ast_id(context, t);
    if (auto it = done.find(id); it != done.end())
      return it->second;
    z3::expr r = t;
    if (std::optional<bool> isMin = symbolKind(t)) {
      std::vector<z3::expr> ls;
      leaves(t, Z3_get_func_decl_id(context, t.decl()), ls);
      for (z3::expr &l : ls)
        l = canonical(l);
      // By structural hash (the same in every context), then by id.
      std::sort(ls.begin(), ls.end(), [&](const z3::expr &x, const z3::expr &y) {
        unsigned hx = Z3_get_ast_hash(context, x), hy = Z3_get_ast_hash(context, y);
        return hx != hy ? hx < hy : Z3_get_ast_id(context, x) < Z3_get_ast_id(context, y);
      });
      ls.erase(std::unique(ls.begin(), ls.end(),
                           [](const z3::expr &x, const z3::expr &y) { return z3::eq(x, y); }),
               ls.end());
      r = ls[0];
      for (size_t i = 1; i < ls.size(); ++i)
        r = ieeeExtremum(context, *isMin, r, ls[i]);
    } else if (t.is_app() && t.num_args() > 0) {
      z3::expr_vector args(context);
      bool changed = false;
      for (unsigned i = 0; i < t.num_args(); ++i) {
        args.push_back(canonical(t.arg(i)));
        changed = changed || !z3::eq(args.back(), t.arg(i));
      }
      if (changed)
        r = t.decl()(args);
    }
    done.emplace(id, r);
    keep.push_back(t);
    return r;
  };
  z3::expr_vector out(context);
  z3::goal g = subgoals[0];
  for (unsigned i = 0; i < g.size(); ++i)
    out.push_back(canonical(g[i]));
  return out;
}
