//===- Extrema.cpp - Trees of maxima and minima put in one order ----------===//
#include "verifier/solver/Solver.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
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

/// `e` with `f` applied to each of its arguments (`e` itself where none
/// changes).
template <typename F> z3::expr withArgs(const z3::expr &e, F &&f) {
  if (!e.is_app() || e.num_args() == 0)
    return e;
  z3::expr_vector args(e.ctx());
  bool changed = false;
  for (unsigned i = 0; i < e.num_args(); ++i) {
    args.push_back(f(e.arg(i)));
    changed = changed || !z3::eq(args.back(), e.arg(i));
  }
  return changed ? e.decl()(args) : e;
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
    z3::expr r = f(withArgs(e, [&](const z3::expr &a) { return (*this)(a); }));
    memo.emplace(id, r);
    keep.push_back(e);
    return r;
  }

private:
  std::function<z3::expr(const z3::expr &)> f;
  std::unordered_map<unsigned, z3::expr> memo;
  std::vector<z3::expr> keep; ///< AST ids are reused once an AST is freed
};

/// A fold `reduce_max_n(f, lo, count, step)` or `reduce_min_n` of floats
/// (SymExec::reduceTerm): the maximum (minimum) of f[lo], f[lo + step], ...
/// (count terms), -inf (+inf) when there are none.
bool isFold(const z3::expr &t) {
  if (!t.is_app() || t.num_args() != 4 || !t.get_sort().is_fpa() ||
      t.decl().decl_kind() != Z3_OP_UNINTERPRETED)
    return false;
  std::string name = t.decl().name().str();
  return name == "reduce_max_n" || name == "reduce_min_n";
}

/// `in` with the terms `from` replaced by `to` (`rewritten` set where there
/// are any).
z3::expr_vector substituted(const z3::expr_vector &in, z3::expr_vector &from,
                            z3::expr_vector &to, bool &rewritten) {
  if (from.empty())
    return in;
  rewritten = true;
  z3::expr_vector out(in.ctx());
  for (z3::expr e : in)
    out.push_back(e.substitute(from, to));
  return out;
}

/// `e` with the bound variables of its lambdas renamed `k!0`, `k!1`, ...: the
/// bodies of two folds over the same terms (`lambda k!7. x[r, k!7]` from the
/// code, `lambda k!11. x[r, k!11]` from the clause) become one term.
z3::expr sameLambdaNames(const z3::expr &e, std::unordered_map<unsigned, z3::expr> &memo,
                         std::vector<z3::expr> &keep) {
  z3::context &c = e.ctx();
  unsigned id = Z3_get_ast_id(c, e);
  if (auto it = memo.find(id); it != memo.end())
    return it->second;
  z3::expr r = e;
  if (e.is_lambda()) {
    z3::expr body = sameLambdaNames(e.body(), memo, keep);
    unsigned n = Z3_get_quantifier_num_bound(c, e);
    std::vector<Z3_sort> sorts;
    std::vector<Z3_symbol> names;
    for (unsigned i = 0; i < n; ++i) {
      sorts.push_back(Z3_get_quantifier_bound_sort(c, e, i));
      names.push_back(Z3_mk_string_symbol(c, ("k!" + std::to_string(i)).c_str()));
    }
    r = z3::expr(c, Z3_mk_lambda(c, n, sorts.data(), names.data(), body));
  } else {
    r = withArgs(e, [&](const z3::expr &a) { return sameLambdaNames(a, memo, keep); });
  }
  memo.emplace(id, r);
  keep.push_back(e);
  return r;
}

/// Whether `sub` is a subterm of `t` (outside quantifier bodies).
bool occursIn(const z3::expr &sub, const z3::expr &t) {
  std::set<unsigned> seen;
  std::vector<z3::expr> todo{t};
  while (!todo.empty()) {
    z3::expr e = todo.back();
    todo.pop_back();
    if (z3::eq(e, sub))
      return true;
    if (!e.is_app() || !seen.insert(Z3_get_ast_id(e.ctx(), e)).second)
      continue;
    for (unsigned i = 0; i < e.num_args(); ++i)
      todo.push_back(e.arg(i));
  }
  return false;
}

void conjunctsOf(const z3::expr &e, std::vector<z3::expr> &out) {
  if (e.is_app() && e.decl().decl_kind() == Z3_OP_AND) {
    for (unsigned i = 0; i < e.num_args(); ++i)
      conjunctsOf(e.arg(i), out);
    return;
  }
  out.push_back(e);
}

/// `a = b` of floats beside `fp.eq(a, b)` among the disjuncts of `d`: the two
/// together are "a and b are the same value" (a clause's `==`, NaN equal to
/// NaN), which holds of a and b exactly when it holds of any values equal to
/// them up to the sign of a zero.
bool valuePair(const z3::expr &d, const z3::expr &eq) {
  if (!kindIs(eq, Z3_OP_EQ, 2) || !eq.arg(0).get_sort().is_fpa())
    return false;
  for (unsigned i = 0; i < d.num_args(); ++i) {
    z3::expr o = d.arg(i);
    if (kindIs(o, Z3_OP_FPA_EQ, 2) &&
        ((z3::eq(o.arg(0), eq.arg(0)) && z3::eq(o.arg(1), eq.arg(1))) ||
         (z3::eq(o.arg(0), eq.arg(1)) && z3::eq(o.arg(1), eq.arg(0)))))
      return true;
  }
  return false;
}

/// If `e` says that a and b are the same value up to the sign of a zero
/// (`a = b || fp.eq(a, b)`, optionally `|| isNaN a && isNaN b`), the pair.
std::optional<std::pair<z3::expr, z3::expr>> sameValue(const z3::expr &e) {
  if (!e.is_app() || e.decl().decl_kind() != Z3_OP_OR)
    return std::nullopt;
  std::optional<std::pair<z3::expr, z3::expr>> pair;
  for (unsigned i = 0; i < e.num_args() && !pair; ++i)
    if (valuePair(e, e.arg(i)))
      pair.emplace(e.arg(i).arg(0), e.arg(i).arg(1));
  if (!pair)
    return std::nullopt;
  auto isNanOf = [&](const z3::expr &t, const z3::expr &v) {
    return kindIs(t, Z3_OP_FPA_IS_NAN, 1) && z3::eq(t.arg(0), v);
  };
  for (unsigned i = 0; i < e.num_args(); ++i) {
    z3::expr d = e.arg(i);
    bool ok = (kindIs(d, Z3_OP_EQ, 2) || kindIs(d, Z3_OP_FPA_EQ, 2)) &&
              ((z3::eq(d.arg(0), pair->first) && z3::eq(d.arg(1), pair->second)) ||
               (z3::eq(d.arg(0), pair->second) && z3::eq(d.arg(1), pair->first)));
    // Both NaN: the same value (one NaN in the theory).
    ok = ok || (kindIs(d, Z3_OP_AND, 2) &&
                ((isNanOf(d.arg(0), pair->first) && isNanOf(d.arg(1), pair->second)) ||
                 (isNanOf(d.arg(0), pair->second) && isNanOf(d.arg(1), pair->first))));
    if (!ok)
      return std::nullopt; // a weaker fact
  }
  return pair;
}

/// The float terms of `candidates` (by AST id) that the assertions
/// `conjuncts` (their top-level conjunctions split) use somewhere a
/// value of the same class (equal up to the sign of a zero) could tell apart
/// from them: outside the comparisons and classifications that ignore a
/// zero's sign, the value pairs of sameValue, and +, -, *, negation,
/// absolute value, `ite` branches and trees of maxima or minima in such a
/// place, all of which give values of one class for operands of one class.
template <typename TreeKind>
std::set<unsigned> sensitiveUses(z3::context &context, const std::vector<z3::expr> &conjuncts,
                                 const std::set<unsigned> &candidates, TreeKind isTree) {
  std::set<unsigned> bad;
  std::set<std::pair<unsigned, bool>> seen;
  std::vector<z3::expr> keep;
  std::function<void(const z3::expr &, bool)> visit = [&](const z3::expr &t, bool free) {
    unsigned id = Z3_get_ast_id(context, t);
    if (!seen.insert({id, free}).second)
      return;
    keep.push_back(t);
    if (candidates.count(id) && !free)
      bad.insert(id);
    if (t.is_quantifier() || t.is_lambda()) {
      visit(t.body(), false);
      return;
    }
    if (!t.is_app())
      return;
    Z3_decl_kind k = t.decl().decl_kind();
    bool argsFree = false;
    switch (k) {
    case Z3_OP_OR:
      for (unsigned i = 0; i < t.num_args(); ++i) {
        z3::expr d = t.arg(i);
        if (valuePair(t, d)) {
          visit(d.arg(0), true);
          visit(d.arg(1), true);
        } else {
          visit(d, false);
        }
      }
      return;
    case Z3_OP_FPA_EQ: case Z3_OP_FPA_LT: case Z3_OP_FPA_LE: case Z3_OP_FPA_GT:
    case Z3_OP_FPA_GE: case Z3_OP_FPA_IS_NAN: case Z3_OP_FPA_IS_INF: case Z3_OP_FPA_IS_ZERO:
    case Z3_OP_FPA_IS_NORMAL: case Z3_OP_FPA_IS_SUBNORMAL:
      argsFree = true;
      break;
    case Z3_OP_FPA_ADD: case Z3_OP_FPA_SUB: case Z3_OP_FPA_MUL: case Z3_OP_FPA_NEG:
    case Z3_OP_FPA_ABS:
      argsFree = free;
      break;
    case Z3_OP_ITE:
      visit(t.arg(0), false);
      visit(t.arg(1), free);
      visit(t.arg(2), free);
      return;
    default:
      argsFree = free && isTree(t).has_value();
    }
    for (unsigned i = 0; i < t.num_args(); ++i)
      visit(t.arg(i), argsFree);
  };
  // `a != b` and `!fp.eq(a, b)` both asserted: "a and b are different
  // values" (a clause's negated `==`, split by the simplifier).
  std::set<std::pair<unsigned, unsigned>> notFpEq;
  for (const z3::expr &c : conjuncts)
    if (kindIs(c, Z3_OP_NOT, 1) && kindIs(c.arg(0), Z3_OP_FPA_EQ, 2)) {
      unsigned a = Z3_get_ast_id(context, c.arg(0).arg(0)), b = Z3_get_ast_id(context, c.arg(0).arg(1));
      notFpEq.insert({a, b});
      notFpEq.insert({b, a});
    }
  for (const z3::expr &c : conjuncts) {
    if (kindIs(c, Z3_OP_NOT, 1) && kindIs(c.arg(0), Z3_OP_EQ, 2) &&
        c.arg(0).arg(0).get_sort().is_fpa() &&
        notFpEq.count({Z3_get_ast_id(context, c.arg(0).arg(0)),
                       Z3_get_ast_id(context, c.arg(0).arg(1))})) {
      visit(c.arg(0).arg(0), true);
      visit(c.arg(0).arg(1), true);
    } else {
      visit(c, false);
    }
  }
  return bad;
}

/// Step 2a of canonicalExtrema: for each assertion `m == v` (sameValue) whose
/// `m` is an unknown (a loop's value after it, an uninterpreted application
/// other than a fold) that `in` uses only where its class counts
/// (sensitiveUses), `v` in its place. Not equisatisfiable, but a model of
/// `in` is one of the result (each replaced use evaluates to a value of the
/// same class, and its context's value is of the same class or the same
/// truth value), so an unsat result is a proof for `in`. A warp's lanes hold
/// their strided maxima `m == max(k in lane..j step 32: ...)`, equal as values
/// only (`-0 == +0`), and the butterfly over them is then a tree of folds.
template <typename TreeKind>
z3::expr_vector substituteValueEqualities(z3::context &context, const z3::expr_vector &in,
                                          TreeKind isTree, bool &rewritten) {
  std::vector<z3::expr> conjuncts;
  for (const z3::expr &e : in)
    conjunctsOf(e, conjuncts);
  auto unknown = [](const z3::expr &t) {
    return t.is_app() && t.decl().decl_kind() == Z3_OP_UNINTERPRETED && !isFold(t);
  };
  z3::expr_vector from(context), to(context);
  std::set<unsigned> candidates;
  for (const z3::expr &c : conjuncts) {
    auto pair = sameValue(c);
    if (!pair)
      continue;
    auto [a, b] = *pair;
    if (!unknown(a))
      std::swap(a, b);
    unsigned id = Z3_get_ast_id(context, a);
    if (!unknown(a) || candidates.count(id) || occursIn(a, b))
      continue;
    candidates.insert(id);
    from.push_back(a);
    to.push_back(b);
  }
  if (candidates.empty())
    return in;
  std::set<unsigned> bad = sensitiveUses(context, conjuncts, candidates, isTree);
  z3::expr_vector f(context), t(context);
  for (unsigned i = 0; i < from.size(); ++i)
    if (!bad.count(Z3_get_ast_id(context, from[i])))
      for (unsigned j = 0; j < to.size(); ++j)
        if (i != j && occursIn(from[i], to[j]))
          bad.insert(Z3_get_ast_id(context, from[i])); // not in a replacement
  for (unsigned i = 0; i < from.size(); ++i)
    if (!bad.count(Z3_get_ast_id(context, from[i]))) {
      f.push_back(from[i]);
      t.push_back(to[i]);
    }
  return substituted(in, f, t, rewritten);
}

/// Step 2b of canonicalExtrema: each fold (isFold) of floats whose body and
/// kind a tree of maxima or minima also gathers folds of, at a step `K`
/// times its own (K <= 1024, a block), as the tree of its K interleaved folds at that
/// step: f[lo + i*s], f[lo + (i + K)*s], ... for i in 0..K, the i-th having
/// `count <= i ? 0 : (count - i + K - 1) / K` terms. The same value (the
/// kind is associative, commutative and idempotent; an empty fold is its
/// identity), so the result is equisatisfiable with `in` for the folds'
/// meaning. A warp's butterfly over its lanes' `max(k in lane..cols step
/// 32: ...)` and the clause's `max(j in 0..cols: ...)` then fold one set.
template <typename TreeKind, typename Symbols>
z3::expr_vector interleaveFolds(z3::context &context, const z3::expr_vector &in, TreeKind isTree,
                                const Symbols &symbols, bool &rewritten) {
  // The largest step of the folds in trees, by fold symbol and body.
  std::map<std::pair<unsigned, unsigned>, int64_t> treeStep;
  std::set<unsigned> seen;
  std::vector<z3::expr> keep;
  std::vector<z3::expr> folds;
  std::function<void(const z3::expr &)> scan = [&](const z3::expr &t) {
    if (!t.is_app() || !seen.insert(Z3_get_ast_id(context, t)).second)
      return;
    keep.push_back(t);
    if (isFold(t))
      folds.push_back(t);
    if (std::optional<bool> isMin = isTree(t))
      for (unsigned i = 0; i < 2; ++i) {
        z3::expr l = t.arg(i);
        int64_t step;
        if (isFold(l) && (l.decl().name().str() == "reduce_min_n") == *isMin &&
            l.arg(3).is_numeral_i64(step) && step > 0) {
          auto key = std::make_pair(Z3_get_func_decl_id(context, l.decl()),
                                    Z3_get_ast_id(context, l.arg(0)));
          int64_t &best = treeStep[key];
          best = std::max(best, step);
        }
      }
    for (unsigned i = 0; i < t.num_args(); ++i)
      scan(t.arg(i));
  };
  for (const z3::expr &e : in)
    scan(e);
  z3::expr_vector from(context), to(context);
  for (const z3::expr &fold : folds) {
    int64_t s;
    auto it = treeStep.find(std::make_pair(Z3_get_func_decl_id(context, fold.decl()),
                                           Z3_get_ast_id(context, fold.arg(0))));
    if (it == treeStep.end() || !fold.arg(3).is_numeral_i64(s) || s <= 0 || it->second <= s ||
        it->second % s != 0 || it->second / s > 1024)
      continue;
    bool isMin = fold.decl().name().str() == "reduce_min_n";
    auto symbol = symbols.find(std::make_pair(isMin, Z3_get_sort_id(context, fold.get_sort())));
    if (symbol == symbols.end())
      continue;
    int64_t K = it->second / s;
    z3::expr body = fold.arg(0), lo = fold.arg(1), count = fold.arg(2);
    // A count `max(X, 0)` (`ite(X <= 0, 0, X)`, the count of a range `lo..hi`
    // step 1, or that ite made a tree of integer maxima in step 1) has the
    // same parts as X itself, written as a lane's are (i >= 0 below).
    auto isZero = [](const z3::expr &e) {
      int64_t v;
      return e.is_numeral_i64(v) && v == 0;
    };
    if (kindIs(count, Z3_OP_ITE, 3)) {
      z3::expr c = count.arg(0), zero = count.arg(1), x = count.arg(2);
      if (kindIs(c, Z3_OP_LE, 2) && z3::eq(c.arg(0), x) && isZero(c.arg(1)) && isZero(zero))
        count = x;
    } else if (std::optional<bool> min = isTree(count); min && !*min) {
      if (isZero(count.arg(0)))
        count = count.arg(1);
      else if (isZero(count.arg(1)))
        count = count.arg(0);
    }
    std::optional<z3::expr> tree;
    for (int64_t i = 0; i < K; ++i) {
      z3::expr ci = z3::ite(count <= context.int_val(i), context.int_val(0),
                            (count - context.int_val(i) + context.int_val(K - 1)) /
                                context.int_val(K));
      z3::expr_vector args(context);
      args.push_back(body);
      args.push_back((lo + context.int_val(i * s)).simplify());
      args.push_back(ci.simplify());
      args.push_back(context.int_val(it->second));
      z3::expr part = fold.decl()(args);
      tree = tree ? symbol->second(*tree, part) : part;
    }
    from.push_back(fold);
    to.push_back(*tree);
  }
  return substituted(in, from, to, rewritten);
}
/// The uninterpreted constants of `e` (outside quantifier bodies).
void constantsOf(const z3::expr &e, std::set<unsigned> &seen, std::vector<z3::expr> &out) {
  if (!e.is_app() || !seen.insert(Z3_get_ast_id(e.ctx(), e)).second)
    return;
  if (e.is_const() && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) {
    out.push_back(e);
    return;
  }
  for (unsigned i = 0; i < e.num_args(); ++i)
    constantsOf(e.arg(i), seen, out);
}

/// The integer constants of a query that its assertions bound within a
/// warp's lanes, [0, 32) (a thread's lane, or the clause's variable it was
/// equated with), with the values they allow: the bounds of its top-level
/// conjuncts that compare the constant with a numeral decide (others only
/// narrow it further, so the values found include every value it can take).
class LaneRanges {
public:
  LaneRanges(const z3::expr_vector &asserts) {
    std::vector<z3::expr> conjuncts;
    for (const z3::expr &a : asserts)
      conjunctsOf(a, conjuncts);
    for (const z3::expr &k : conjuncts)
      bound(k);
  }

  /// The values `c` may take, all in [0, 32); empty where its bounds do not
  /// keep it so.
  std::vector<int64_t> values(const z3::expr &c) const {
    std::vector<int64_t> out;
    auto it = ranges.find(Z3_get_ast_id(c.ctx(), c));
    if (it == ranges.end() || it->second.first < 0 || it->second.second > 31)
      return out;
    for (int64_t v = it->second.first; v <= it->second.second; ++v)
      out.push_back(v);
    return out;
  }

private:
  /// Narrows the range of the constant `k` compares with a numeral, if it
  /// does: `c >= n`, `c < n`, `n <= c`, `not (n <= c)`, `c = n`, ...
  void bound(z3::expr k) {
    bool negated = false;
    if (k.is_app() && k.decl().decl_kind() == Z3_OP_NOT) {
      negated = true;
      k = k.arg(0);
    }
    if (!k.is_app() || k.num_args() != 2)
      return;
    Z3_decl_kind op = k.decl().decl_kind();
    z3::expr x = k.arg(0), y = k.arg(1);
    int64_t n = 0;
    bool swapped = false;
    if (y.is_numeral_i64(n) && x.is_const() && x.is_int()) {
    } else if (x.is_numeral_i64(n) && y.is_const() && y.is_int()) {
      std::swap(x, y);
      swapped = true;
    } else {
      return;
    }
    if (x.decl().decl_kind() != Z3_OP_UNINTERPRETED)
      return;
    // As `c OP n`.
    if (swapped)
      op = op == Z3_OP_LE ? Z3_OP_GE : op == Z3_OP_GE ? Z3_OP_LE
         : op == Z3_OP_LT ? Z3_OP_GT : op == Z3_OP_GT ? Z3_OP_LT : op;
    if (negated)
      op = op == Z3_OP_LE ? Z3_OP_GT : op == Z3_OP_GE ? Z3_OP_LT
         : op == Z3_OP_LT ? Z3_OP_GE : op == Z3_OP_GT ? Z3_OP_LE : Z3_OP_TRUE;
    auto &[lo, hi] = ranges.try_emplace(Z3_get_ast_id(x.ctx(), x),
                                        std::numeric_limits<int64_t>::min(),
                                        std::numeric_limits<int64_t>::max())
                         .first->second;
    switch (op) {
    case Z3_OP_LE: hi = std::min(hi, n); break;
    case Z3_OP_LT: hi = std::min(hi, n - 1); break;
    case Z3_OP_GE: lo = std::max(lo, n); break;
    case Z3_OP_GT: lo = std::max(lo, n + 1); break;
    case Z3_OP_EQ: lo = std::max(lo, n); hi = std::min(hi, n); break;
    default: break;
    }
  }

  std::map<unsigned, std::pair<int64_t, int64_t>> ranges;
};

/// Step 3's lane symmetry: the leaves of a tree of maxima or minima, for
/// the first value the query allows an integer constant bound within a warp
/// (LaneRanges) that they mention, where every value it allows gives the same
/// set of leaves. The tree's value is then the same for every value of the
/// constant (it is a function of its set of leaves), and those leaves stand
/// for it: a `shfl_xor` butterfly gives lane l the folds that start at
/// l ^ 16, l ^ 8, ..., lane 0 those that start at 0..31, and the interleaved
/// folds of a clause's maximum start at 0..31 too.
std::optional<std::vector<z3::expr>> laneSymmetric(z3::context &context,
                                                   const std::vector<z3::expr> &ls,
                                                   const LaneRanges &ranges) {
  std::set<unsigned> seen;
  std::vector<z3::expr> consts;
  for (const z3::expr &l : ls)
    constantsOf(l, seen, consts);
  for (const z3::expr &c : consts) {
    if (!c.is_int())
      continue;
    std::vector<int64_t> values = ranges.values(c);
    if (values.empty())
      continue;
    std::optional<std::vector<unsigned>> first;
    std::vector<z3::expr> firstLeaves;
    bool same = true;
    for (int64_t v : values) {
      z3::expr_vector from(context), to(context);
      from.push_back(c);
      to.push_back(context.int_val(v));
      std::vector<z3::expr> at;
      std::vector<unsigned> ids;
      for (const z3::expr &l : ls) {
        at.push_back(z3::expr(l).substitute(from, to).simplify());
        ids.push_back(Z3_get_ast_id(context, at.back()));
      }
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      if (!first) {
        first = ids;
        firstLeaves = at;
      } else if (*first != ids) {
        same = false;
        break;
      }
    }
    if (same)
      return firstLeaves;
  }
  return std::nullopt;
}

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
                                                                unsigned minTrees,
                                                                bool onlyRewritten,
                                                                bool *foldsSplit) {
  // 1. Each extremum becomes an application of an uninterpreted function, one
  //    per kind and sort, so that the simplifier below cannot reshape it.
  std::map<std::pair<bool, unsigned>, z3::func_decl> symbols;
  std::unordered_map<unsigned, bool> kindOf; // symbol id -> isMin
  unsigned count = 0;
  bool folds = false;
  Rewriter opaque([&](const z3::expr &t) -> z3::expr {
    folds = folds || isFold(t);
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
  // (Fewer trees are worth it beside a fold: a loop's step `m = fmaximum(m,
  // x[j])` against its invariant's fold.)
  if (count < minTrees && !(folds && count > 0))
    return std::nullopt;
  // (Both rewrites are about folds: without one, the early attempt is not
  // worth the simplification below, 0.6 s in a tiled matmul.)
  if (onlyRewritten && !folds)
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
  z3::expr_vector prepared(context);
  for (unsigned i = 0; i < subgoals[0].size(); ++i)
    prepared.push_back(subgoals[0][i]);
  auto isTree = [&](const z3::expr &t) -> std::optional<bool> {
    if (!t.is_app() || t.num_args() != 2)
      return std::nullopt;
    auto it = kindOf.find(Z3_get_func_decl_id(context, t.decl()));
    if (it == kindOf.end())
      return std::nullopt;
    return it->second;
  };
  // 2a. A loop's value known through its invariant `m == max(k in ...)`, equal
  //     as a value (up to the sign of a zero), put in its place where only its
  //     value counts; 2b. a fold whose terms a tree gathers at a larger step
  //     split into its interleaved folds at that step.
  {
    std::unordered_map<unsigned, z3::expr> memo;
    std::vector<z3::expr> keep;
    z3::expr_vector named(context);
    for (const z3::expr &e : prepared)
      named.push_back(sameLambdaNames(e, memo, keep));
    prepared = named;
  }
  bool rewritten = false, split = false;
  prepared = substituteValueEqualities(context, prepared, isTree, rewritten);
  prepared = interleaveFolds(context, prepared, isTree, symbols, split);
  rewritten = rewritten || split;
  if (foldsSplit)
    *foldsSplit = split;
  if (onlyRewritten && !rewritten)
    return std::nullopt;
  // 3. Each tree of one kind flattened to its set of leaves, in the order of
  //    their AST ids, folded again and given back its meaning: equal sets give
  //    equal terms. (Valid: the kind is associative, commutative and
  //    idempotent, see Extremum.)
  std::function<void(const z3::expr &, unsigned, std::vector<z3::expr> &)> leaves =
      [&](const z3::expr &t, unsigned decl, std::vector<z3::expr> &out) {
        if (isTree(t) && Z3_get_func_decl_id(context, t.decl()) == decl) {
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
  std::optional<LaneRanges> ranges; // made where a tree first needs them
  canonical = [&](const z3::expr &t) -> z3::expr {
    unsigned id = Z3_get_ast_id(context, t);
    if (auto it = done.find(id); it != done.end())
      return it->second;
    z3::expr r = t;
    if (std::optional<bool> isMin = isTree(t)) {
      std::vector<z3::expr> ls;
      leaves(t, Z3_get_func_decl_id(context, t.decl()), ls);
      for (z3::expr &l : ls)
        l = canonical(l);
      if (!ranges)
        ranges.emplace(prepared);
      if (auto same = laneSymmetric(context, ls, *ranges)) {
        ls = *same;
        for (z3::expr &l : ls)
          l = canonical(l);
      }
      // By structural hash (the same in every context), then by id; a fold
      // first by its body, start and step, so that the folds of one body
      // from one start whose counts are written differently (a lane's
      // `ite(cols <= 16, 0, (cols + 15) / 32)` and a split clause's) take
      // the same place in both trees.
      auto key = [&](const z3::expr &x) {
        unsigned h = Z3_get_ast_hash(context, x);
        if (!isFold(x))
          return std::make_pair(h, h);
        unsigned k = Z3_get_ast_hash(context, x.arg(0));
        for (unsigned a : {1u, 3u})
          k = k * 31u + Z3_get_ast_hash(context, x.arg(a));
        return std::make_pair(k, h);
      };
      std::sort(ls.begin(), ls.end(), [&](const z3::expr &x, const z3::expr &y) {
        auto kx = key(x), ky = key(y);
        return kx != ky ? kx < ky : Z3_get_ast_id(context, x) < Z3_get_ast_id(context, y);
      });
      ls.erase(std::unique(ls.begin(), ls.end(),
                           [](const z3::expr &x, const z3::expr &y) { return z3::eq(x, y); }),
               ls.end());
      // -inf in a maximum (+inf in a minimum) is its identity, bit for bit
      // (a NaN and -0 included): a lane past the warps' count reads
      // `laneid < 8 ? ws[laneid] : -inf`.
      auto identity = [&](const z3::expr &l) {
        return kindIs(l, *isMin ? Z3_OP_FPA_PLUS_INF : Z3_OP_FPA_MINUS_INF, 0);
      };
      if (ls.size() > 1 && !std::all_of(ls.begin(), ls.end(), identity))
        ls.erase(std::remove_if(ls.begin(), ls.end(), identity), ls.end());
      r = ls[0];
      for (size_t i = 1; i < ls.size(); ++i)
        r = ieeeExtremum(context, *isMin, r, ls[i]);
    } else {
      r = withArgs(t, canonical);
    }
    done.emplace(id, r);
    keep.push_back(t);
    return r;
  };
  z3::expr_vector out(context);
  for (const z3::expr &e : prepared)
    out.push_back(canonical(e));
  return out;
}
