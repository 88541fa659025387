//===- Instances.cpp - Ground instances and congruences added to a query --===//
//
// Two kinds of valid facts the verifier adds to a query before it is printed,
// each a theorem (an instance of an assertion, a case of congruence), so that
// adding it never changes what the query means, only how soon Z3 sees it:
//
// - ground instances of the universally quantified assertions (a barrier
//   contract `forall v: partial[v] == S(v)`) at the ground terms of the
//   query that match them (the 1024 leaves `partial[c]` of a block's tree
//   sum). Z3's E-matching finds them too, but round by round, interleaved
//   with its search: a 256-thread tree sum's postcondition took 1.5-3.6 s,
//   with the instances 0.4 s;
// - congruence of real division by a term (`a == b ==> a / d == b / d`) and
//   of math functions over the reals (`a == b ==> sqrt(a) == sqrt(b)`) where
//   an argument is a large sum: Z3 treats `a / d` as a nonlinear term
//   (`d * q == a`), and without its nonlinear real procedure (off: see
//   Portfolio.cpp) it did not find that two quotients of equal sums are
//   equal (a mean over 1024 threads: past 100 s; with the fact, under a
//   second); it propagates the equality of a tree's total and a sum to its
//   congruence closure late (the sqrt of a 1024-thread norm: 47 -> 6.6 s).
//
//===----------------------------------------------------------------------===//
#include "verifier/solver/Solver.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

using namespace kuiper::solver;

namespace {

bool isUninterpretedApp(const z3::expr &e) {
  return e.is_app() && e.num_args() > 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED;
}

/// A trigger of a quantified assertion: an application of an uninterpreted
/// function, a side of an equation in its body, whose arguments are bound
/// variables or terms without variables, and that names every bound
/// variable. `vars[k]` is argument k's de Bruijn index, or -1 for a term.
struct Trigger {
  z3::func_decl fn;
  z3::expr app;
  std::vector<int> vars;
};

/// `app` (a side of an equation in quantifier `q`'s body) as a trigger, if
/// it is one.
std::optional<Trigger> asTrigger(const z3::expr &q, const z3::expr &app) {
  if (!isUninterpretedApp(app))
    return std::nullopt;
  unsigned bound = Z3_get_quantifier_num_bound(q.ctx(), q);
  Trigger t{app.decl(), app, {}};
  std::set<int> named;
  for (unsigned k = 0; k < app.num_args(); ++k) {
    z3::expr a = app.arg(k);
    if (a.is_var()) {
      int idx = int(Z3_get_index_value(q.ctx(), a));
      if (idx >= int(bound))
        return std::nullopt;
      t.vars.push_back(idx);
      named.insert(idx);
      continue;
    }
    // A term argument must be ground (matched as it is).
    std::set<unsigned> sub;
    std::vector<z3::expr> inner{a};
    while (!inner.empty()) {
      z3::expr x = inner.back();
      inner.pop_back();
      if (x.is_var() || x.is_quantifier() || x.is_lambda())
        return std::nullopt;
      if (x.is_app() && sub.insert(x.id()).second)
        for (unsigned j = 0; j < x.num_args(); ++j)
          inner.push_back(x.arg(j));
    }
    t.vars.push_back(-1);
  }
  if (named.size() != bound)
    return std::nullopt;
  return t;
}

/// A quantified assertion `forall xs: hyp ==> c1 && c2 && ...` as its
/// hypothesis and conjuncts: an instance is made of the conjunct whose
/// trigger matched only (`hyp ==> ci`, implied too), so that a tile
/// contract's instance at `as[ty, q]` does not bring in `bs[ty, q]`.
struct Quantified {
  z3::expr q, hyp;
  std::vector<std::pair<z3::expr, std::vector<Trigger>>> parts;
};

std::optional<Quantified> quantifiedOf(const z3::expr &q) {
  z3::expr body = q.body();
  z3::expr hyp = q.ctx().bool_val(true), concl = body;
  if (body.is_app() && body.decl().decl_kind() == Z3_OP_IMPLIES && body.num_args() == 2) {
    hyp = body.arg(0);
    concl = body.arg(1);
  }
  Quantified out{q, hyp, {}};
  std::vector<z3::expr> stack{concl};
  while (!stack.empty()) {
    z3::expr c = stack.back();
    stack.pop_back();
    if (c.is_app() && c.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = c.num_args(); i-- > 0;)
        stack.push_back(c.arg(i));
      continue;
    }
    // `e || false` (an approx clause's slack where there is none): `e`.
    if (c.is_app() && c.decl().decl_kind() == Z3_OP_OR) {
      std::vector<z3::expr> live;
      // (Read off, not simplified: new terms in the caller's context change
      // what the solver does there later.)
      auto isFalse = [](const z3::expr &d) {
        if (d.is_false())
          return true;
        if (!d.is_app() || d.decl().decl_kind() != Z3_OP_AND)
          return false;
        for (unsigned j = 0; j < d.num_args(); ++j)
          if (d.arg(j).is_false())
            return true;
        return false;
      };
      for (unsigned i = 0; i < c.num_args(); ++i)
        if (!isFalse(c.arg(i)))
          live.push_back(c.arg(i));
      if (live.size() == 1)
        c = live[0];
    }
    // Equations only (`part[v] == S(v)`): an instance is a definition of a
    // ground term the solver can substitute. A bound (`x[i] >= 0` of a
    // `requires forall`) at hundreds of a warp scan's reads made its lane
    // cases slower (3.5 -> 12 s); E-matching finds those it needs.
    if (!c.is_app() || c.decl().decl_kind() != Z3_OP_EQ || c.num_args() != 2)
      continue;
    std::vector<Trigger> ts;
    for (unsigned side = 0; side < 2; ++side)
      if (std::optional<Trigger> t = asTrigger(q, c.arg(side)))
        ts.push_back(std::move(*t));
    if (!ts.empty())
      out.parts.push_back({c, std::move(ts)});
  }
  if (out.parts.empty())
    return std::nullopt;
  return out;
}

} // namespace

std::vector<z3::expr> kuiper::solver::groundInstances(z3::context &context,
                                                      const std::vector<z3::expr> &asserts,
                                                      size_t minInstances,
                                                      size_t maxInstances) {
  std::vector<Quantified> quantified;
  for (const z3::expr &a : asserts)
    if (a.is_quantifier() && a.is_forall())
      if (auto q = quantifiedOf(a))
        quantified.push_back(std::move(*q));
  std::vector<z3::expr> out;
  if (quantified.empty())
    return out;
  std::set<unsigned> triggerFns;
  for (const Quantified &q : quantified)
    for (auto &[part, ts] : q.parts)
      for (const Trigger &t : ts)
        triggerFns.insert(Z3_get_func_decl_id(context, t.fn));
  std::set<unsigned> seenApps, made;
  std::vector<z3::expr> roots(asserts.begin(), asserts.end());
  // Rounds: an instance can name the state another assertion is about (a
  // later barrier's contract reads an earlier one's array).
  for (int round = 0; round < 3 && !roots.empty(); ++round) {
    std::map<unsigned, std::vector<z3::expr>> apps; // function -> ground apps
    forEachGroundApp(roots, seenApps, [&](const z3::expr &e) {
      if (isUninterpretedApp(e) && triggerFns.count(Z3_get_func_decl_id(context, e.decl())))
        apps[Z3_get_func_decl_id(context, e.decl())].push_back(e);
    });
    roots.clear();
    for (const Quantified &q : quantified) {
      unsigned bound = Z3_get_quantifier_num_bound(context, q.q);
      std::vector<z3::expr> mine;
      for (auto &[part, ts] : q.parts) {
        for (const Trigger &t : ts) {
          auto it = apps.find(Z3_get_func_decl_id(context, t.fn));
          if (it == apps.end())
            continue;
          for (const z3::expr &g : it->second) {
            if (g.num_args() != t.vars.size())
              continue;
            std::vector<std::optional<z3::expr>> to(bound);
            bool ok = true;
            for (unsigned k = 0; k < t.vars.size() && ok; ++k) {
              if (t.vars[k] < 0)
                ok = z3::eq(t.app.arg(k), g.arg(k));
              else if (to[t.vars[k]])
                ok = z3::eq(*to[t.vars[k]], g.arg(k));
              else
                to[t.vars[k]] = g.arg(k);
            }
            if (!ok)
              continue;
            z3::expr_vector dst(context);
            for (auto &x : to)
              dst.push_back(*x);
            z3::expr inst = z3::implies(q.hyp, part).substitute(dst);
            if (made.insert(inst.id()).second)
              mine.push_back(inst);
          }
        }
      }
      // A few instances E-matching finds at once; eager ones changed Z3's
      // search there, for the worse (see KernelVerifier.cpp's kMinInstances).
      if (mine.size() < minInstances)
        continue;
      for (const z3::expr &inst : mine) {
        out.push_back(inst);
        roots.push_back(inst);
        if (out.size() >= maxInstances)
          return out;
      }
    }
  }
  return out;
}

/// Whether `e` is a sum of at least `n` terms (through `+`, `-` and both
/// branches of `ite`): a tree's total, which Z3's arithmetic propagates to its
/// congruence closure late. Stops at `n`.
constexpr unsigned kLargeSum = 16;

static bool largeSum(const z3::expr &e, unsigned n) {
  unsigned leaves = 0;
  std::vector<z3::expr> stack{e};
  while (!stack.empty() && leaves < n) {
    z3::expr t = stack.back();
    stack.pop_back();
    Z3_decl_kind k = t.is_app() ? t.decl().decl_kind() : Z3_OP_UNINTERPRETED;
    if (k == Z3_OP_ADD || k == Z3_OP_SUB) {
      for (unsigned i = 0; i < t.num_args(); ++i)
        stack.push_back(t.arg(i));
    } else if (k == Z3_OP_ITE) {
      stack.push_back(t.arg(1));
      stack.push_back(t.arg(2));
    } else {
      ++leaves;
    }
  }
  return leaves >= n;
}

std::vector<z3::expr> kuiper::solver::congruences(z3::context &context,
                                                  const std::vector<z3::expr> &asserts,
                                                  size_t maxGroup) {
  // Groups of terms that are equal where their varying arguments are: the
  // quotients by one denominator, and the applications of one uninterpreted
  // function of real arguments (sqrt, exp, ... over the reals).
  std::map<std::pair<unsigned, unsigned>, std::vector<z3::expr>> groups;
  std::vector<std::pair<unsigned, unsigned>> order; // first-seen order: deterministic
  std::set<unsigned> seen;
  forEachGroundApp(asserts, seen, [&](const z3::expr &e) {
    std::pair<unsigned, unsigned> key;
    if (e.decl().decl_kind() == Z3_OP_DIV && e.num_args() == 2 && !e.arg(1).is_numeral()) {
      key = {0, e.arg(1).id()};
    } else if (isUninterpretedApp(e) && e.num_args() <= 2 && e.get_sort().is_real()) {
      for (unsigned i = 0; i < e.num_args(); ++i)
        if (!e.arg(i).get_sort().is_real())
          return;
      key = {1, Z3_get_func_decl_id(context, e.decl())};
    } else {
      return;
    }
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh)
      order.push_back(key);
    it->second.push_back(e);
  });
  std::vector<z3::expr> out;
  for (const auto &key : order) {
    const std::vector<z3::expr> &g = groups[key];
    // Pairs of a large group cost more than they give: none.
    if (g.size() < 2 || g.size() > maxGroup)
      continue;
    for (size_t i = 0; i < g.size(); ++i)
      for (size_t j = i + 1; j < g.size(); ++j) {
        const z3::expr &p = g[i], &q = g[j];
        z3::expr same = context.bool_val(true);
        // A quotient's denominator is the group's: only the numerators vary.
        unsigned varying = key.first == 0 ? 1 : p.num_args();
        bool large = false;
        for (unsigned k = 0; k < varying; ++k) {
          same = same && p.arg(k) == q.arg(k);
          large |= largeSum(p.arg(k), kLargeSum) || largeSum(q.arg(k), kLargeSum);
        }
        // Where no argument is a large sum, equal arguments are usually
        // equal terms already, which congruence closure sees at once; the
        // lemma's equation made a cosine similarity's rows 0.5 -> 4 s.
        if (large)
          out.push_back(z3::implies(same, p == q));
      }
  }
  return out;
}
