//===- MemoryModel.cpp - Memory states, writers and merges ------------------===//
#include "verifier/analysis/SymExec.h"
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

namespace {
/// Rewrites a term with each of its maximal subterms built from integers and
/// booleans alone put in Z3's normal form (`(t + 1) + 1` becomes `t + 2`). A
/// value another thread wrote is substituted at the reader's index; without
/// this, the same element read along two paths was two different terms, and
/// terms that read neighbours (a ping-pong stencil, a tree reusing its array)
/// doubled with every round. Float and real subterms keep their shape: the
/// rounding analysis of approx clauses counts their operations.
class IndexNormalizer {
public:
  z3::expr operator()(const z3::expr &e) {
    auto [r, pure] = visit(e);
    return pure ? simplified(r) : r;
  }

private:
  /// `e` with its maximal pure subterms normalised, unless `e` is pure itself
  /// (then `e`, for the caller to normalise whole), and whether it is.
  std::pair<z3::expr, bool> visit(const z3::expr &e) {
    unsigned id = Z3_get_ast_id(e.ctx(), e);
    if (auto it = visited.find(id); it != visited.end())
      return it->second;
    std::pair<z3::expr, bool> r{e, false};
    if (e.is_app()) {
      z3::sort s = e.get_sort();
      bool pure = s.is_int() || s.is_bool();
      std::vector<std::pair<z3::expr, bool>> args;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        args.push_back(visit(e.arg(i)));
        pure = pure && args.back().second;
      }
      r.second = pure;
      if (!pure && !args.empty()) {
        z3::expr_vector rebuilt(e.ctx());
        bool changed = false;
        for (unsigned i = 0; i < args.size(); ++i) {
          z3::expr a = args[i].second ? simplified(args[i].first) : args[i].first;
          changed = changed || !z3::eq(a, e.arg(i));
          rebuilt.push_back(a);
        }
        if (changed)
          r.first = e.decl()(rebuilt);
      }
    }
    visited.emplace(id, r);
    keep.push_back(e);
    return r;
  }

  z3::expr simplified(const z3::expr &e) {
    if (e.num_args() == 0)
      return e;
    unsigned id = Z3_get_ast_id(e.ctx(), e);
    if (auto it = simple.find(id); it != simple.end())
      return it->second;
    z3::expr r = e.simplify();
    simple.emplace(id, r);
    keep.push_back(e);
    return r;
  }

  std::unordered_map<unsigned, std::pair<z3::expr, bool>> visited;
  std::unordered_map<unsigned, z3::expr> simple;
  std::vector<z3::expr> keep; ///< AST ids are reused once an AST is freed
};
} // namespace

z3::expr kuiper::verifier::normalizeIndices(const z3::expr &e) { return IndexNormalizer()(e); }

z3::expr SymExec::read(const MemRef &m, const std::vector<z3::expr> &idx) {
  std::string k = std::to_string(m->id);
  for (auto &i : idx) {
    k += "," + exprKey(i);
    keepAlive.push_back(i); // AST ids are reused once an AST is freed
  }
  auto it = readMemo.find(k);
  if (it != readMemo.end())
    return it->second;
  if (m->kind == MemNode::Merge && (!unsupportedReason.empty() || pastDeadline(nullptr))) {
    // Stopped: any value of the element's sort (the kernel is unknown).
    const MemNode *base = m.get();
    while (base->kind != MemNode::Base)
      base = base->prev.get();
    return fresh("stopped", base->fn->range());
  }
  std::optional<z3::expr> r;
  switch (m->kind) {
  case MemNode::Base: {
    z3::expr_vector args(z);
    if (m->perBlock)
      for (int i = 3; i < 6; ++i)
        args.push_back(threadVars[i]);
    for (auto &p : m->prefix)
      args.push_back(p);
    for (auto &i : idx)
      args.push_back(i);
    r = (*m->fn)(args);
    // Over the reals, an input element is finite (trusted): below the
    // infinities of realSpecial.
    if (r->is_real() && !m->perBlock)
      termFacts.push_back({*r, finiteReal(*r)});
    break;
  }
  case MemNode::Store: {
    z3::expr same = *m->cond;
    for (size_t d = 0; d < idx.size(); ++d)
      same = same && idx[d] == m->idx[d];
    r = z3::ite(same, *m->value, read(m->prev, idx));
    break;
  }
  case MemNode::Merge: {
    // Each event's writer of the element, found by its witness: the thread,
    // and for loops the index does not pin down, the last iteration that
    // writes it (witness()).
    struct Writer {
      z3::expr cov, value;
      std::map<unsigned, z3::expr> iters; ///< free loop -> the writer's iteration
    };
    std::vector<Writer> writers;
    for (size_t i = 0; i < m->events.size(); ++i) {
      const Event &e = *m->events[i];
      std::vector<z3::expr> from, to;
      std::vector<bool> last;
      if (!witness(e, m->freeThreadVars, idx, from, to, true, nullptr, m->fixedIters, &last)) {
        unsupportedAt(e.loc, "cannot tell which thread writes '" + mems.at(e.mem).name +
                                 "' here (index not affine in the thread ids)");
        break;
      }
      z3::expr_vector f(z), t(z);
      for (auto &x : from)
        f.push_back(x);
      for (auto &x : to)
        t.push_back(x);
      auto atWriter = [&](const z3::expr &x) {
        z3::expr y = z3::expr(x).substitute(f, t);
        return m->normalizeReads ? IndexNormalizer()(y) : y;
      };
      z3::expr v = atWriter(*e.value);
      z3::expr cov = covered(e, from, to, idx);
      // The reads this writer's value made through other lanes (a shuffle of
      // a value read from memory) were never resolved here, so nothing else
      // (covered()'s instances of the writers' facts) states what held for
      // their writers at this writer: the copies of their facts do. (Only
      // those: copies of every writer's facts at each level of a softmax's
      // trees ran it past its budget.)
      copyTermFacts(*e.value, atWriter, cov, /*laneWritersOnly=*/true, &e);
      if (m->warpOnly) // the writer is a lane of the reader's warp
        cov = cov && linear().substitute(f, t) / z.int_val(32) == linear() / z.int_val(32);
      // What held for the writer when it wrote (its invariants, asserts) holds
      // for the inferred writer: a valid fact wherever that writer exists.
      auto [trivial, first] = factsTrivial.try_emplace(&e, false);
      if (first)
        trivial->second = z3::eq(e.facts.simplify(), z.bool_val(true));
      if (!trivial->second) {
        writerFacts.insert(termFacts.size());
        termFacts.push_back({cov, z3::implies(cov, z3::expr(e.facts).substitute(f, t))});
      }
      Writer w{cov, v, {}};
      for (unsigned k : e.iters)
        for (size_t j = 0; j < from.size(); ++j)
          if (z3::eq(from[j], iterVars[k]))
            w.iters.emplace(k, to[j]);
      writers.push_back(std::move(w));
    }
    // The last write wins. Events in program order are also in time order,
    // except for two in one loop the merge does not fix: there an earlier
    // event of a later iteration comes after (`s[3t + i] = a; s[3t + i + 1] =
    // b;` writes s[3t + 1] last with `a`). So an event's writer is overruled
    // by another event's that is later in time: a later iteration of the
    // loops they share, outermost first, or the same iterations and later in
    // the body.
    z3::expr acc = read(m->prev, idx);
    for (size_t i = 0; i < writers.size(); ++i) {
      z3::expr wins = writers[i].cov;
      for (size_t j = 0; j < writers.size(); ++j) {
        std::vector<z3::expr> mine, theirs;
        for (auto &[k, it] : writers[i].iters)
          if (auto o = writers[j].iters.find(k); j != i && o != writers[j].iters.end()) {
            mine.push_back(it);
            theirs.push_back(o->second);
          }
        if (mine.empty())
          continue; // program order is time order
        wins = wins && !(writers[j].cov && iterationsBefore(mine, theirs, j < i));
      }
      acc = z3::ite(wins, writers[i].value, acc);
    }
    r = m->cond ? z3::ite(*m->cond, acc, read(m->prev, idx)) : acc;
    break;
  }
  case MemNode::Select:
    r = z3::ite(*m->cond, read(m->alt, idx), read(m->prev, idx));
    break;
  }
  readMemo.emplace(k, *r);
  return *r;
}

namespace {
/// An affine form sum(coeff_v * v) + off over a set of variables.
struct Affine {
  std::vector<std::pair<unsigned, z3::expr>> coeffs;
  std::optional<z3::expr> off;
};
} // namespace

static bool mentions(const z3::expr &e, const std::vector<z3::expr> &vars) {
  if (e.is_const()) {
    for (auto &v : vars)
      if (z3::eq(e, v))
        return true;
    return false;
  }
  if (!e.is_app())
    return false;
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (mentions(e.arg(i), vars))
      return true;
  return false;
}

/// The number of nodes of `e` unfolded as a tree, counted up to `cap`
/// (linear in its DAG).
static uint64_t treeSize(const z3::expr &e, uint64_t cap,
                         std::unordered_map<unsigned, uint64_t> &memo) {
  unsigned id = Z3_get_ast_id(e.ctx(), e);
  if (auto it = memo.find(id); it != memo.end())
    return it->second;
  uint64_t n = 1;
  if (e.is_app())
    for (unsigned i = 0; i < e.num_args() && n < cap; ++i)
      n += treeSize(e.arg(i), cap, memo);
  n = std::min(n, cap);
  memo.emplace(id, n);
  return n;
}

static bool linearizeTree(const z3::expr &e, const std::vector<z3::expr> &vars, Affine &out,
                          z3::context &z, bool *exact);

/// The affine form of `e`, each shared subterm's computed once: for an index
/// whose terms share subterms (`i1 = (i0 + i0) - i0`, twenty times), which
/// unfolded as a tree are exponentially many (3^20 visits, past --budget).
static bool linearizeDag(const z3::expr &e, const std::vector<z3::expr> &vars, Affine &out,
                         z3::context &z, bool *exact) {
  struct Form {
    std::vector<std::optional<z3::expr>> coeffs; // per variable
    std::optional<z3::expr> off;
  };
  std::unordered_map<unsigned, bool> mentioned;
  std::function<bool(const z3::expr &)> mentionsVar = [&](const z3::expr &t) -> bool {
    unsigned id = Z3_get_ast_id(z, t);
    if (auto it = mentioned.find(id); it != mentioned.end())
      return it->second;
    bool m = false;
    if (t.is_const()) {
      for (auto &v : vars)
        m |= z3::eq(t, v);
    } else if (t.is_app()) {
      for (unsigned i = 0; i < t.num_args() && !m; ++i)
        m = mentionsVar(t.arg(i));
    }
    mentioned.emplace(id, m);
    return m;
  };
  auto add = [](std::optional<z3::expr> a, const std::optional<z3::expr> &b) {
    return !a ? b : !b ? a : std::optional<z3::expr>(*a + *b);
  };
  auto scaled = [&](Form f, const z3::expr &c) {
    for (auto &x : f.coeffs)
      if (x)
        x = *x * c;
    if (f.off)
      f.off = *f.off * c;
    return f;
  };
  auto plus = [&](Form a, const Form &b) {
    for (size_t i = 0; i < a.coeffs.size(); ++i)
      a.coeffs[i] = add(a.coeffs[i], b.coeffs[i]);
    a.off = add(a.off, b.off);
    return a;
  };
  std::unordered_map<unsigned, std::optional<Form>> memo;
  std::vector<z3::expr> keep; // AST ids are reused once an AST is freed
  std::function<std::optional<Form>(const z3::expr &)> form =
      [&](const z3::expr &t) -> std::optional<Form> {
    unsigned id = Z3_get_ast_id(z, t);
    if (auto it = memo.find(id); it != memo.end())
      return it->second;
    keep.push_back(t);
    std::optional<Form> r;
    Form zero{std::vector<std::optional<z3::expr>>(vars.size()), std::nullopt};
    if (!mentionsVar(t)) {
      r = zero;
      r->off = t;
    } else if (t.is_const()) {
      for (unsigned i = 0; i < vars.size(); ++i)
        if (z3::eq(t, vars[i])) {
          r = zero;
          r->coeffs[i] = z.int_val(1);
        }
    } else {
      Z3_decl_kind k = t.decl().decl_kind();
      if (k == Z3_OP_ADD || k == Z3_OP_SUB) {
        r = zero;
        for (unsigned i = 0; i < t.num_args() && r; ++i) {
          std::optional<Form> a = form(t.arg(i));
          r = a ? std::optional<Form>(plus(*r, k == Z3_OP_SUB && i > 0 ? scaled(*a, z.int_val(-1))
                                                                        : *a))
                : std::nullopt;
        }
      } else if (k == Z3_OP_UMINUS) {
        if (std::optional<Form> a = form(t.arg(0)))
          r = scaled(*a, z.int_val(-1));
      } else if (k == Z3_OP_ITE) {
        if (exact)
          *exact = false;
        r = form(t.arg(2));
      } else if (k == Z3_OP_MUL) {
        int varArg = -1;
        bool ok = true;
        z3::expr c = z.int_val(1);
        for (unsigned i = 0; i < t.num_args(); ++i) {
          if (mentionsVar(t.arg(i))) {
            ok &= varArg < 0;
            varArg = i;
          } else {
            c = c * t.arg(i);
          }
        }
        if (ok)
          if (std::optional<Form> a = form(t.arg(varArg)))
            r = scaled(*a, c);
      }
    }
    memo.emplace(id, r);
    return r;
  };
  std::optional<Form> f = form(e);
  if (!f)
    return false;
  for (unsigned i = 0; i < vars.size(); ++i)
    if (f->coeffs[i])
      out.coeffs.push_back({i, *f->coeffs[i]});
  out.off = f->off;
  return true;
}

static bool linearize(const z3::expr &e, const std::vector<z3::expr> &vars, Affine &out,
                      z3::context &z, bool *exact = nullptr) {
  // Terms of the usual size are unfolded as trees (the forms the rest of the
  // verifier was tuned with); a term whose unfolding is large, by its DAG.
  constexpr uint64_t kTreeCap = 4096;
  std::unordered_map<unsigned, uint64_t> sizes;
  if (treeSize(e, kTreeCap, sizes) >= kTreeCap)
    return linearizeDag(e, vars, out, z, exact);
  return linearizeTree(e, vars, out, z, exact);
}

static bool linearizeTree(const z3::expr &e, const std::vector<z3::expr> &vars, Affine &out,
                          z3::context &z, bool *exact) {
  auto addCoeff = [&](unsigned v, z3::expr c) {
    for (auto &p : out.coeffs)
      if (p.first == v) {
        p.second = p.second + c;
        return;
      }
    out.coeffs.push_back({v, c});
  };
  std::function<bool(const z3::expr &, z3::expr)> go = [&](const z3::expr &t, z3::expr scale) -> bool {
    if (!mentions(t, vars)) {
      out.off = out.off ? *out.off + scale * t : scale * t;
      return true;
    }
    if (t.is_const()) {
      for (unsigned i = 0; i < vars.size(); ++i)
        if (z3::eq(t, vars[i])) {
          addCoeff(i, scale);
          return true;
        }
      return false;
    }
    Z3_decl_kind k = t.decl().decl_kind();
    if (k == Z3_OP_ADD) {
      for (unsigned i = 0; i < t.num_args(); ++i)
        if (!go(t.arg(i), scale))
          return false;
      return true;
    }
    if (k == Z3_OP_SUB) {
      if (!go(t.arg(0), scale))
        return false;
      for (unsigned i = 1; i < t.num_args(); ++i)
        if (!go(t.arg(i), -scale))
          return false;
      return true;
    }
    if (k == Z3_OP_UMINUS)
      return go(t.arg(0), -scale);
    // Signed/unsigned reinterpretations `ite(v < 0, v + 2^w, v)`: guess v.
    // (A witness is only a candidate: the solver checks every use of it.)
    if (k == Z3_OP_ITE) {
      if (exact)
        *exact = false;
      return go(t.arg(2), scale);
    }
    if (k == Z3_OP_MUL) {
      int varArg = -1;
      z3::expr c = z.int_val(1);
      for (unsigned i = 0; i < t.num_args(); ++i) {
        if (mentions(t.arg(i), vars)) {
          if (varArg >= 0)
            return false;
          varArg = i;
        } else {
          c = c * t.arg(i);
        }
      }
      return go(t.arg(varArg), scale * c);
    }
    return false;
  };
  return go(e, z.int_val(1));
}

/// Whether `e` mentions a value a loop's summary left arbitrary (a local it
/// changes, `loop!N`, or memory it writes, `...!havocN`): where no invariant
/// says what it is, a path through it holds in models no run has.
bool SymExec::mentionsLoopHavoc(const z3::expr &e, bool memoryOnly) {
  std::set<unsigned> seen;
  std::vector<z3::expr> stack{e};
  while (!stack.empty()) {
    z3::expr t = stack.back();
    stack.pop_back();
    if (!t.is_app() || !seen.insert(Z3_get_ast_id(t.ctx(), t)).second)
      continue;
    std::string name = t.decl().name().str();
    if (name.find("!havoc") != std::string::npos ||
        (!memoryOnly && (name.rfind("loop!", 0) == 0 || name.rfind("after_loop!", 0) == 0)))
      return true;
    for (unsigned i = 0; i < t.num_args(); ++i)
      stack.push_back(t.arg(i));
  }
  return false;
}

/// Whether a path condition depends on the iteration variable `v` other than
/// through the ranges of loops (its conjuncts among `ranges`).
static bool pathDecides(const z3::expr &pc, const z3::expr &v, const std::vector<z3::expr> &ranges) {
  for (const z3::expr &r : ranges)
    if (z3::eq(pc, r))
      return false;
  if (pc.is_app() && pc.decl().decl_kind() == Z3_OP_AND) {
    for (unsigned i = 0; i < pc.num_args(); ++i)
      if (pathDecides(pc.arg(i), v, ranges))
        return true;
    return false;
  }
  return mentions(pc, {v});
}

std::vector<z3::expr> SymExec::lastWritingIterations(const Event &e,
                                                    const std::vector<z3::expr> &vars,
                                                    const std::vector<std::optional<z3::expr>> &w,
                                                    const std::vector<size_t> &decided,
                                                    const std::vector<unsigned> &loopOf,
                                                    size_t nThread) {
  // A write whose path depends on the iterations of loops (`if x[t, i] > 0 {
  // a[t] = i; }`): the iterations whose value stays are the last, in the
  // loops' order (outermost first), of those whose path and ranges hold,
  // P(L). L is a tuple of fresh functions of the rest of the witness,
  // described by one valid fact: for every tuple J, P(J) implies P(L) and J
  // <= L lexicographically (true of the largest such tuple, and vacuous where
  // there is none). So the merge's `covered` at L, which is P(L) at the
  // element's writer, holds exactly when some iteration writes the element,
  // and then L is the last.
  z3::sort_vector sorts(z);
  z3::expr_vector args(z);
  for (size_t j = 0; j < vars.size(); ++j)
    if (std::find(decided.begin(), decided.end(), j) == decided.end()) {
      sorts.push_back(z.int_sort());
      args.push_back(w[j] ? *w[j] : z.int_val(0));
    }
  std::vector<z3::expr> last, bound;
  for (size_t d = 0; d < decided.size(); ++d) {
    std::string id = std::to_string(freshIds++);
    last.push_back(z.function(("last_write!" + id).c_str(), sorts, z.int_sort())(args));
    bound.push_back(z.int_const(("j!last_write" + id).c_str()));
  }
  // The path and ranges of the writer at the iterations `at`.
  auto writesAt = [&](const std::vector<z3::expr> &at) {
    z3::expr_vector f(z), t(z);
    z3::expr p = e.pc;
    for (size_t d = 0; d < decided.size(); ++d)
      p = p && iterRange[loopOf[decided[d] - nThread]];
    for (size_t j = 0; j < vars.size(); ++j) {
      f.push_back(vars[j]);
      auto d = std::find(decided.begin(), decided.end(), j);
      t.push_back(d != decided.end() ? at[d - decided.begin()] : w[j] ? *w[j] : z.int_val(0));
    }
    return p.substitute(f, t);
  };
  z3::expr_vector boundVars(z);
  for (const z3::expr &b : bound)
    boundVars.push_back(b);
  z3::expr fact = z3::forall(boundVars, z3::implies(writesAt(bound),
                                                    writesAt(last) &&
                                                        iterationsBefore(bound, last, false)));
  termFacts.push_back({last[0], fact});
  // The same at the event's own iterations, for the writer lemma (mergeNode):
  // the thread's own write is no later than L, which writes too.
  std::vector<z3::expr> own;
  for (size_t i : decided)
    own.push_back(vars[i]);
  witnessFacts.push_back(
      z3::implies(writesAt(own), writesAt(last) && iterationsBefore(own, last, false)));
  return last;
}

bool SymExec::witness(const Event &e, const std::vector<unsigned> &freeThreadVars,
                      const std::vector<z3::expr> &target, std::vector<z3::expr> &from,
                      std::vector<z3::expr> &to, bool iterFirst,
                      std::optional<z3::expr> *selfGoal,
                      const std::set<unsigned> &fixedIters, std::vector<bool> *lastIteration) {
  // With `selfGoal` (target = the event's own index): conditions on the
  // writer's own variables under which the witness names the writer itself,
  // by the uniqueness of mixed-radix digits (see `digit conditions` below).
  bool exact = true;
  z3::expr digitConds = z.bool_val(true);
  size_t nThread = freeThreadVars.size();
  std::vector<z3::expr> vars;
  std::vector<unsigned> loopOf; // per variable after the thread's: its loop
  for (unsigned i : freeThreadVars)
    vars.push_back(threadVars[i]);
  for (unsigned k : e.iters)
    if (!fixedIters.count(k)) {
      vars.push_back(iterVars[k]);
      loopOf.push_back(k);
    }
  std::vector<std::optional<z3::expr>> w(vars.size());
  // A 2-D index (E / N, E % N) over a flattened E (truncating division by an
  // N the thread ids do not determine) is inverted as the 1-D index E at the
  // flat target t0 * N + t1. For the writer's own index that target is E
  // itself when N != 0 (C's (a / b) * b + a % b == a).
  std::vector<z3::expr> idxs, tgts;
  struct Flattened {
    size_t d0, d1;
    z3::expr dividend, divisor;
  };
  std::vector<Flattened> flattened;
  std::vector<bool> usedDim(e.idx.size(), false);
  auto divisionOf = [&](const z3::expr &t, bool quotient) -> const Division * {
    for (auto &dv : divisions)
      if (dv.quotient == quotient && z3::eq(dv.result, t))
        return &dv;
    return nullptr;
  };
  for (size_t d0 = 0; d0 < e.idx.size(); ++d0) {
    if (usedDim[d0])
      continue;
    // (Either dimension may come first: y[e / n, e % n] and, column-major,
    // y[e % n, e / n].)
    const Division *first = divisionOf(e.idx[d0], true);
    if (!first)
      first = divisionOf(e.idx[d0], false);
    if (first && !mentions(first->divisor, vars)) {
      for (size_t d1 = 0; d1 < e.idx.size(); ++d1) {
        const Division *r =
            d1 == d0 || usedDim[d1] ? nullptr : divisionOf(e.idx[d1], !first->quotient);
        if (!r || !z3::eq(r->dividend, first->dividend) || !z3::eq(r->divisor, first->divisor))
          continue;
        usedDim[d0] = usedDim[d1] = true;
        size_t dq = first->quotient ? d0 : d1, dr = first->quotient ? d1 : d0;
        flattened.push_back({dq, dr, first->dividend, first->divisor});
        idxs.push_back(first->dividend);
        tgts.push_back(target[dq] * first->divisor + target[dr]);
        if (selfGoal)
          digitConds = digitConds && first->divisor != 0;
        break;
      }
      if (usedDim[d0])
        continue;
    }
    usedDim[d0] = true;
    // A partner's index `a ^ j` (one bit j): a ^ j == T exactly when a == T ^ j.
    const XorBit *x = nullptr;
    for (auto &xb : xorBits)
      if (z3::eq(xb.result, e.idx[d0]))
        x = &xb;
    idxs.push_back(x ? x->operand : e.idx[d0]);
    tgts.push_back(x ? xorBit(target[d0], x->bit) : target[d0]);
  }
  for (size_t d = 0; d < idxs.size(); ++d) {
    Affine a;
    if (!linearize(idxs[d], vars, a, z, &exact))
      return false;
    z3::expr rem = tgts[d];
    std::vector<std::pair<unsigned, z3::expr>> todo;
    for (auto &[v, c] : a.coeffs) {
      z3::expr cs = c.simplify();
      if (w[v]) {
        rem = rem - cs * *w[v];
        continue;
      }
      int64_t n;
      if (isConst(cs, n) && n == 0)
        continue;
      todo.push_back({v, cs});
    }
    // A thread id with a negative numeral coefficient beside positive ones
    // (`128 * bx + 127 - tx`, a block reversed in place): read as the digit
    // u = B - 1 - tx of coefficient -c, B its (numeral) bound, with the
    // offset moved by c * (B - 1). `digitVar` is each variable's digit term
    // (u for a flipped one); the witness of tx is B - 1 - u.
    std::map<unsigned, int64_t> flipped; // variable -> B - 1
    z3::expr flipOff = z.int_val(0);
    {
      bool anyPositive = false;
      for (auto &[v, c] : todo) {
        int64_t n;
        anyPositive |= !isConst(c, n) || n > 0;
      }
      for (auto &[v, c] : todo) {
        int64_t n, bound;
        if (!anyPositive || !isConst(c, n) || n >= 0 || n == INT64_MIN || v >= nThread ||
            !threadVarBound(freeThreadVars[v]).is_numeral_i64(bound) || bound < 1)
          continue;
        flipped[v] = bound - 1;
        flipOff = flipOff + c * z.int_val(bound - 1);
        c = z.int_val(-n);
      }
    }
    auto digitVar = [&](unsigned v) -> z3::expr {
      auto f = flipped.find(v);
      return f == flipped.end() ? vars[v] : z.int_val(f->second) - vars[v];
    };
    // Mixed radix, largest coefficient first: symbolic coefficients (loop
    // strides, row lengths) before numerals, and among products with the same
    // symbolic part the larger numeral factor first (16*cols before cols).
    // A term's identity as text: its AST id (terms are hash-consed, so equal
    // terms have equal ids; printing them would cost far more).
    auto termKey = [&](const z3::expr &t) { return std::to_string(Z3_get_ast_id(z, t)); };
    // (Products nest: 256 * (gx * gy) has the symbolic part gx * gy.)
    std::function<std::string(const z3::expr &, int64_t &)> split =
        [&](const z3::expr &c, int64_t &factor) -> std::string {
      factor = 1;
      if (isConst(c, factor))
        return "";
      if (c.is_app() && c.decl().decl_kind() == Z3_OP_MUL) {
        std::string rest;
        for (unsigned i = 0; i < c.num_args(); ++i) {
          int64_t f;
          rest += split(c.arg(i), f);
          factor *= f;
        }
        return rest;
      }
      return termKey(c) + "*";
    };
    // Each coefficient split once (printing a term is not cheap).
    struct SortKey {
      std::pair<unsigned, z3::expr> digit;
      int64_t factor;
      std::string rest;
      size_t symbolicFactors;
    };
    std::vector<SortKey> keyed;
    for (auto &d : todo) {
      int64_t factor;
      std::string rest = split(d.second, factor);
      size_t count = std::count(rest.begin(), rest.end(), '*');
      keyed.push_back({d, factor, std::move(rest), count});
    }
    std::stable_sort(keyed.begin(), keyed.end(), [&](const SortKey &x, const SortKey &y) {
      const std::string &sa = x.rest, &sb = y.rest;
      if (sa.empty() != sb.empty())
        return !sa.empty();
      // More symbolic factors first: a nested flattening `bx + gx * (by + gy
      // * bz)` has the digits gx * gy, gx, 1, in that order.
      if (x.symbolicFactors != y.symbolicFactors)
        return x.symbolicFactors > y.symbolicFactors;
      if (sa != sb)
        return false;
      if (std::llabs(x.factor) != std::llabs(y.factor))
        return std::llabs(x.factor) > std::llabs(y.factor);
      // Equal coefficients: loop iterations (unbounded) before thread ids
      // (bounded), or the other way round for the second candidate.
      bool ia = x.digit.first >= nThread, ib = y.digit.first >= nThread;
      return ia != ib && (iterFirst ? ia : ib);
    });
    for (size_t i = 0; i < todo.size(); ++i)
      todo[i] = keyed[i].digit;
    // Each coefficient as a numeral times a product of symbolic factors.
    struct Digit {
      int64_t num = 1;
      std::vector<std::string> rest;
      std::vector<z3::expr> syms;
    };
    std::vector<Digit> digits(todo.size());
    for (size_t i = 0; i < todo.size(); ++i) {
      Digit &dg = digits[i];
      std::function<void(const z3::expr &)> go = [&](const z3::expr &t) {
        int64_t f;
        if (isConst(t, f))
          dg.num *= f;
        else if (t.is_app() && t.decl().decl_kind() == Z3_OP_MUL)
          for (unsigned a = 0; a < t.num_args(); ++a)
            go(t.arg(a));
        else {
          dg.rest.push_back(termKey(t));
          dg.syms.push_back(t);
        }
      };
      go(todo[i].second);
      std::sort(dg.rest.begin(), dg.rest.end());
    }
    // Every coefficient negative (a flip, `y[n - 1 - i]`): the digits of
    // off - target, with the coefficients negated.
    bool negated = !digits.empty();
    for (const Digit &dg : digits)
      negated &= dg.num < 0 && dg.num != INT64_MIN;
    if (negated) {
      for (size_t i = 0; i < todo.size(); ++i) {
        todo[i].second = (-todo[i].second).simplify();
        digits[i].num = -digits[i].num;
      }
      rem = -rem;
    }
    // A numeral offset c with 0 <= c < g, g the gcd of the digits' numerals
    // (lane c of g consecutive elements, y[4 * t + c], or a grid-stride
    // i + c with a step 1024 * G): the digits are read from target - target
    // mod g instead of target - c. Every lane then has the same witness terms,
    // and a disjunction over the lanes (coverage) is a case split on one
    // residue instead of g unrelated divisions. For a writer's own index the
    // two are equal (every coefficient is a multiple of g, so its residue is
    // c), so the digit conditions below still imply the writer lemma.
    z3::expr off = a.off ? (*a.off + flipOff).simplify() : flipOff.simplify();
    if (negated)
      off = (-off).simplify();
    int64_t c0 = -1, g = 0;
    if (isConst(off, c0) && c0 >= 0)
      for (const Digit &dg : digits)
        g = dg.num == INT64_MIN ? 1 : std::gcd(g, std::llabs(dg.num));
    if (g > 1 && c0 < g)
      rem = rem - z3::mod(rem, z.int_val(g));
    else
      rem = rem - off;
    // Segments: single digits, or runs of digits k_i * S with one symbolic
    // part S and positive numerals k_i (16*cols, cols). A run is inverted by
    // one division by S, then by numerals: (rem / S) / 16, (rem / S) % 16.
    std::vector<std::pair<size_t, size_t>> segments;
    for (size_t i = 0; i < todo.size();) {
      size_t k = i + 1;
      if (!digits[i].rest.empty() && digits[i].num > 0)
        while (k < todo.size() && digits[k].rest == digits[i].rest && digits[k].num > 0)
          ++k;
      if (k - i < 2)
        k = i + 1;
      segments.push_back({i, k});
      i = k;
    }
    auto lowFrom = [&](size_t from) {
      z3::expr low = z.int_val(0);
      for (size_t j = from; j < todo.size(); ++j)
        low = low + todo[j].second * digitVar(todo[j].first);
      return low;
    };
    // Digit conditions. With target - off = sum_i c_i * v_i (digits in the
    // order above) the witness takes v_0 = rem / c_0, rem := rem mod c_0, and
    // so on, the last digit exactly (rem, -rem or rem / c). Euclidean division
    // is unique: if c_i > 0 and 0 <= low_i < c_i, where low_i = sum_{j>i}
    // c_j * v_j, then (c_i * v_i + low_i) / c_i = v_i and the remainder is
    // low_i; and (c * v) / c = v for c != 0. So these conditions imply that
    // the witness of a thread's own index is that thread. Where c_i = q *
    // c_{i+1} for a numeral q (16*cols and cols, 256 and 1), the linear
    // sufficient condition c_{i+1} > 0 && 0 <= v_{i+1} < q replaces
    // low_i < c_i (low_i = c_{i+1} v_{i+1} + low_{i+1} < c_{i+1} (v_{i+1} + 1)
    // <= c_i, with 0 <= low_{i+1} < c_{i+1} the condition of digit i+1).
    // A run k_i * S: S > 0 and 0 <= low < S for the digits after the run
    // make rem / S the run's numeral mixed-radix number, whose digits are
    // unique under the same conditions with numerals.
    // The radix q of digit d0 over the next digit d1 where d0's coefficient
    // is q times d1's, q a numeral or a product of d0's extra symbolic
    // factors (`bx + gx * (by + gy * bz)`: gy over gx); the sufficient
    // condition above then holds for a symbolic q too.
    auto radixOf = [&](const Digit &d0, const Digit &d1) -> std::optional<z3::expr> {
      if (d1.num <= 0 || d0.num <= 0 || d0.num % d1.num != 0)
        return std::nullopt;
      z3::expr q = z.int_val(d0.num / d1.num);
      std::vector<bool> matched(d0.syms.size(), false);
      for (const z3::expr &s : d1.syms) {
        size_t j = 0;
        while (j < d0.syms.size() && (matched[j] || !z3::eq(d0.syms[j], s)))
          ++j;
        if (j == d0.syms.size())
          return std::nullopt;
        matched[j] = true;
      }
      for (size_t j = 0; j < d0.syms.size(); ++j)
        if (!matched[j])
          q = q * d0.syms[j];
      return q.simplify();
    };
    auto radixConds = [&](size_t i, size_t k, auto coeff) {
      // Conditions for digits i..k-1 with coefficients coeff(j), in order.
      for (size_t j = i; j + 1 < k; ++j) {
        z3::expr c = coeff(j), cn = coeff(j + 1);
        const Digit &d0 = digits[j], &d1 = digits[j + 1];
        z3::expr vn = digitVar(todo[j + 1].first);
        if (std::optional<z3::expr> q = radixOf(d0, d1)) {
          digitConds = digitConds && c == *q * cn && cn > 0 && vn >= 0 && vn < *q;
        } else {
          z3::expr low = z.int_val(0);
          for (size_t l = j + 1; l < k; ++l)
            low = low + coeff(l) * digitVar(todo[l].first);
          digitConds = digitConds && c > 0 && low >= 0 && low < c;
        }
      }
    };
    for (auto [i, k] : segments) {
      if (k == i + 1) {
        auto &[v, c] = todo[i];
        int64_t n;
        bool known = isConst(c, n);
        if (known && n < 0 && i + 1 != todo.size())
          return false; // a negative coefficient only as the last digit
        if (!known) {
          // Division by a symbolic stride: state Euclid's identity outright
          // (valid for any positive c), which spares the solver nonlinear search.
          witnessFacts.push_back(c <= 0 || (rem == c * (rem / c) + z3::mod(rem, c) &&
                                            z3::mod(rem, c) >= 0 && z3::mod(rem, c) < c));
          // And that two multiples of c differ by at least c (true of all integers).
          z3::expr d = rem / c - digitVar(v);
          witnessFacts.push_back(d == 0 || d * c >= c || d * c <= -c);
          // A thread variable's digit below its bound B where rem < c * B
          // (the top digit of a flattened grid: `blockIdx.z < gridDim.z`).
          if (v < nThread) {
            z3::expr b = threadVarBound(freeThreadVars[v]);
            witnessFacts.push_back(
                z3::implies(c > 0 && rem >= 0 && rem < c * b, rem / c >= 0 && rem / c < b));
          }
        }
        if (selfGoal) {
          if (i + 1 == todo.size()) {
            digitConds = digitConds && c != 0;
          } else {
            const Digit &d0 = digits[i], &d1 = digits[i + 1];
            z3::expr cn = todo[i + 1].second, vn = digitVar(todo[i + 1].first);
            if (std::optional<z3::expr> q = radixOf(d0, d1)) {
              digitConds = digitConds && c == *q * cn && cn > 0 && vn >= 0 && vn < *q;
            } else {
              z3::expr low = lowFrom(i + 1);
              digitConds = digitConds && c > 0 && low >= 0 && low < c;
            }
          }
        }
        if (i + 1 == todo.size()) {
          w[v] = known && n == 1 ? rem : known && n == -1 ? -rem : rem / c;
        } else {
          w[v] = rem / c;
          rem = z3::mod(rem, c);
          // The next digit is below the radix (0 <= rem < c = q * cn): a
          // valid fact that spares the solver the nonlinear step.
          if (std::optional<z3::expr> q = radixOf(digits[i], digits[i + 1])) {
            z3::expr cn = todo[i + 1].second;
            if (!q->is_numeral())
              witnessFacts.push_back(z3::implies(cn > 0 && *q > 0 && c == *q * cn,
                                                 rem / cn >= 0 && rem / cn < *q));
          }
        }
        continue;
      }
      // The run's base is S times the gcd m of its numerals: `y * (16 * gx)
      // + x` with y = 8 * by + ty has the run 128 * gx, 16 * gx and the
      // digits after it below 16 * gx, not below gx; the run's digits are
      // then the numerals k_j / m over base m * S.
      int64_t m = 0;
      for (size_t j = i; j < k; ++j)
        m = std::gcd(m, digits[j].num);
      z3::expr S = digits[i].syms[0];
      for (size_t f = 1; f < digits[i].syms.size(); ++f)
        S = S * digits[i].syms[f];
      if (m > 1)
        S = z.int_val(m) * S;
      bool tail = k == todo.size();
      z3::expr q = rem / S;
      if (!tail) {
        witnessFacts.push_back(S <= 0 || (rem == S * q + z3::mod(rem, S) &&
                                          z3::mod(rem, S) >= 0 && z3::mod(rem, S) < S));
        rem = z3::mod(rem, S);
      }
      if (selfGoal) {
        digitConds = digitConds && S > 0;
        if (!tail) {
          z3::expr low = lowFrom(k);
          digitConds = digitConds && low >= 0 && low < S;
          // The digit before the run was checked against todo[i]'s whole
          // coefficient (radixConds of that digit); nothing more here.
        }
        radixConds(i, k, [&](size_t j) { return z.int_val(digits[j].num / m); });
      }
      for (size_t j = i; j < k; ++j) {
        z3::expr kj = z.int_val(digits[j].num / m);
        if (j + 1 == k) {
          w[todo[j].first] = digits[j].num == m ? q : q / kj;
        } else {
          w[todo[j].first] = q / kj;
          q = z3::mod(q, kj);
        }
      }
    }
    for (auto &[v, top] : flipped)
      if (w[v])
        w[v] = z.int_val(top) - *w[v];
  }
  // Variables the index does not mention: take them from an equality in the
  // path condition (`if threadIdx.x == 0`), else 0.
  std::function<void(const z3::expr &)> scan = [&](const z3::expr &c) {
    if (!c.is_app())
      return;
    if (c.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = 0; i < c.num_args(); ++i)
        scan(c.arg(i));
      return;
    }
    // `a && b` short-circuited: ite(a, b, false).
    if (c.decl().decl_kind() == Z3_OP_ITE && c.arg(2).is_false()) {
      scan(c.arg(0));
      scan(c.arg(1));
      return;
    }
    if (c.decl().decl_kind() == Z3_OP_EQ) {
      for (unsigned i = 0; i < vars.size(); ++i) {
        if (w[i])
          continue;
        if (z3::eq(c.arg(0), vars[i]) && !mentions(c.arg(1), vars))
          w[i] = c.arg(1);
        else if (z3::eq(c.arg(1), vars[i]) && !mentions(c.arg(0), vars))
          w[i] = c.arg(0);
      }
    }
  };
  // Variables the index does not determine must equal what was taken for them.
  std::vector<bool> digit(vars.size());
  for (size_t i = 0; i < vars.size(); ++i)
    digit[i] = w[i].has_value();
  scan(e.pc);
  // Then a linear equality of the path in which a thread variable not yet
  // taken has coefficient 1 (`warpid == 1`: warpcol + 8 * threadIdx.y + 8 *
  // threadIdx.z == 1 in a block of 256 threads), solved for it with the
  // others at what was taken for them, else 0 (a candidate, as every witness:
  // the solver checks its uses).
  std::vector<z3::expr> open; // the thread variables not taken yet
  std::function<void(const z3::expr &)> scanLinear = [&](const z3::expr &c) {
    if (!c.is_app())
      return;
    Z3_decl_kind k = c.decl().decl_kind();
    if (k == Z3_OP_AND || (k == Z3_OP_ITE && c.arg(2).is_false())) {
      for (unsigned i = 0; i < (k == Z3_OP_AND ? c.num_args() : 2u); ++i)
        scanLinear(c.arg(i));
      return;
    }
    if (k != Z3_OP_EQ || !c.arg(0).is_int() || !mentions(c, open))
      return;
    Affine a;
    bool linear = true;
    if (!linearize(c.arg(0) - c.arg(1), vars, a, z, &linear) || !linear)
      return;
    std::optional<unsigned> solveFor;
    int64_t sign = 1;
    z3::expr rest = a.off ? *a.off : z.int_val(0);
    for (auto &[v, coeff] : a.coeffs) {
      int64_t n = 0;
      bool numeral = isConst(coeff.simplify(), n);
      if (!w[v] && v < nThread && !solveFor && numeral && (n == 1 || n == -1)) {
        solveFor = v;
        sign = n;
        continue;
      }
      rest = rest + coeff * (w[v] ? *w[v] : z.int_val(0));
    }
    if (solveFor)
      w[*solveFor] = (sign == 1 ? -rest : rest).simplify();
  };
  for (size_t i = 0; i < nThread; ++i)
    if (!w[i])
      open.push_back(vars[i]);
  if (!open.empty())
    scanLinear(e.pc);
  // With `lastIteration`: an iteration of a `for` loop that neither the index
  // nor the path (beyond the loops' ranges) decides (`for i in 0..m { a[t] =
  // i; }` writes a[t] in every iteration) is the loop's last, the one whose
  // value stays. The caller's
  // lemma is then "the same thread, at an iteration no later than the
  // witness's, which writes the element too" (mergeNode).
  if (lastIteration) {
    lastIteration->assign(vars.size(), false);
    std::vector<z3::expr> ranges;
    for (unsigned k : e.iters)
      ranges.push_back(iterRange[k]);
    // Loops whose iteration the path decides get one joint witness (below).
    // Through a value a loop's summary left arbitrary, which iteration
    // writes is unknown too: no witness (the lemma fails, and the checks
    // that read the element are unknown, not failed).
    std::vector<size_t> decided;
    bool havocPath = mentionsLoopHavoc(e.pc);
    for (size_t i = nThread; i < vars.size(); ++i) {
      unsigned k = loopOf[i - nThread];
      if (w[i] || k >= iterLast.size() || !iterLast[k])
        continue;
      if (pathDecides(e.pc, vars[i], ranges)) {
        if (!havocPath)
          decided.push_back(i);
        continue;
      }
      z3::expr_vector f(z), t(z);
      for (size_t j = 0; j < vars.size(); ++j) {
        f.push_back(vars[j]);
        t.push_back(w[j] ? *w[j] : z.int_val(0));
      }
      w[i] = z3::expr(*iterLast[k]).substitute(f, t);
      (*lastIteration)[i] = true;
    }
    if (!decided.empty()) {
      std::vector<z3::expr> last = lastWritingIterations(e, vars, w, decided, loopOf, nThread);
      for (size_t d = 0; d < decided.size(); ++d) {
        w[decided[d]] = last[d];
        (*lastIteration)[decided[d]] = true;
      }
    }
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    from.push_back(vars[i]);
    to.push_back(w[i] ? *w[i] : z.int_val(0));
    if (selfGoal && !digit[i] && !(lastIteration && (*lastIteration)[i]))
      digitConds = digitConds && vars[i] == to.back();
  }
  if (selfGoal && exact)
    *selfGoal = digitConds;
  // Uniqueness of the quotient and remainder at the inferred writer: valid
  // facts that spare the solver the nonlinear division.
  z3::expr_vector f(z), t(z);
  for (size_t i = 0; i < from.size(); ++i) {
    f.push_back(from[i]);
    t.push_back(to[i]);
  }
  for (auto &fl : flattened) {
    z3::expr x = fl.dividend.substitute(f, t), n = fl.divisor;
    z3::expr j0 = target[fl.d0], j1 = target[fl.d1];
    witnessFacts.push_back(z3::implies(n > 0 && j0 >= 0 && j1 >= 0 && j1 < n && x == j0 * n + j1,
                                       z3::expr(e.idx[fl.d0]).substitute(f, t) == j0 &&
                                           z3::expr(e.idx[fl.d1]).substitute(f, t) == j1));
  }
  return true;
}

z3::expr SymExec::covered(const Event &e, const std::vector<z3::expr> &from,
                          const std::vector<z3::expr> &to, const std::vector<z3::expr> &target) {
  // Substitute the witness into the event's side only: the target may
  // mention the reading thread's own ids.
  z3::expr c = e.pc;
  for (size_t i = 0; i < from.size(); ++i) {
    for (int t = 0; t < 7; ++t) {
      if (!z3::eq(from[i], threadVars[t]))
        continue;
      c = c && from[i] >= 0 && from[i] < threadVarBound(t);
    }
  }
  for (unsigned k : e.iters)
    c = c && iterRange[k];
  // (A lockstep iteration variable is not in `from`: the substitution keeps
  // it, so the writer is at the reader's iteration.)
  z3::expr_vector f(z), tt(z);
  for (auto &x : from)
    f.push_back(x);
  for (auto &x : to)
    tt.push_back(x);
  c = c.substitute(f, tt);
  for (const z3::expr &fact : threadFacts)
    witnessFacts.push_back(z3::expr(fact).substitute(f, tt));
  for (size_t d = 0; d < target.size(); ++d)
    c = c && z3::expr(e.idx[d]).substitute(f, tt) == target[d];
  return c;
}

z3::expr SymExec::iterationsBefore(const std::vector<z3::expr> &a, const std::vector<z3::expr> &b,
                                   bool strict) {
  z3::expr r = z.bool_val(!strict);
  for (size_t i = a.size(); i-- > 0;)
    r = a[i] < b[i] || (a[i] == b[i] && r);
  return r;
}

MemRef SymExec::mergeNode(const void *mem, MemRef prev, const std::vector<const Event *> &evs,
                          const std::vector<unsigned> &freeThreadVars,
                          const std::set<unsigned> &fixedIters) {
  auto node = std::make_shared<MemNode>();
  node->kind = MemNode::Merge;
  node->id = nodeIds++;
  node->prev = prev;
  node->events = evs;
  node->freeThreadVars = freeThreadVars;
  node->fixedIters = fixedIters;
  // Lemma: every write of an event is found by its witness.
  for (const Event *e : evs) {
    std::vector<z3::expr> from, to;
    std::optional<z3::expr> selfGoal;
    std::vector<bool> last;
    if (!witness(*e, freeThreadVars, e->idx, from, to, true, &selfGoal, fixedIters, &last)) {
      unsupportedAt(e->loc, "cannot tell which thread writes '" + mems.at(mem).name + "' here");
      return node;
    }
    Obligation o;
    // Filed under what it is about: an `out` buffer's elements are each
    // written by one thread (coverage); elsewhere, a second writer is a race.
    const MemInfo &info = mems.at(mem);
    o.id = !info.shared && info.access == BufferAccess::Out ? CheckId::Coverage : CheckId::Race;
    o.loc = e->loc;
    o.message = "each element of '" + mems.at(mem).name + "' written here has one writer the verifier can name";
    o.failMessage = "could not determine which thread writes this element of '" + mems.at(mem).name + "'";
    o.assumptions.push_back(e->pc);
    o.assumptions.push_back(e->facts);
    for (unsigned k : e->iters)
      o.assumptions.push_back(iterRange[k]);
    size_t witnessFactCount = witnessFacts.size();
    o.assumptions.insert(o.assumptions.end(), witnessFacts.begin(), witnessFacts.end());
    witnessFacts.clear();
    // The inferred writer of the element written here is this very (thread,
    // iteration): the writer is unique and the merge takes its value.
    z3::expr same = z.bool_val(true);
    std::vector<z3::expr> mine, theirs; // iterations, outermost first
    bool anyLast = false;
    for (size_t i = 0; i < from.size(); ++i) {
      if (i >= freeThreadVars.size()) {
        mine.push_back(from[i]);
        theirs.push_back(to[i]);
      }
      if (last[i])
        anyLast = true;
      else
        same = same && from[i] == to[i];
    }
    if (anyLast) {
      // A loop that writes the element in several iterations: the witness is
      // the same thread at the last of them, so it is no earlier than this
      // iteration and writes the element as well.
      o.goal = (selfGoal ? *selfGoal : same) && iterationsBefore(mine, theirs, false) &&
               covered(*e, from, to, e->idx);
    } else if (selfGoal) {
      // The digit conditions imply `same` (uniqueness of Euclidean division,
      // see witness()), and with the witness equal to the writer, `covered`
      // is the writer's own path condition, ranges and index: assumed here.
      // They are small, mostly linear facts about the writer's own ids, so
      // they replace the goal (a stronger one) and the division facts.
      o.goal = *selfGoal;
      o.assumptions.erase(o.assumptions.end() - witnessFactCount, o.assumptions.end());
    } else {
      o.goal = covered(*e, from, to, e->idx) && same;
    }
    o.lemma = true;
    o.writerLemma = true;
    obligations.push_back(std::move(o));
  }
  return node;
}

/// A memory state about which nothing is known: a fresh function of the
/// thread, the iterations in scope and the index.
MemRef SymExec::havocMemory(const void *mem) {
  const MemInfo &mi = mems.at(mem);
  auto node = std::make_shared<MemNode>();
  node->kind = MemNode::Base;
  node->id = nodeIds++;
  z3::sort_vector sorts(z);
  for (size_t i = 0; i < threadVars.size() + iterScope.size(); ++i)
    sorts.push_back(z.int_sort());
  for (size_t i = 0; i < mi.dims.size(); ++i)
    sorts.push_back(z.int_sort());
  node->fn = contentsFn(z.function((mi.name + "!havoc" + std::to_string(freshIds++)).c_str(), sorts,
                                   sortOf(mi.elemType)),
                        mi);
  for (auto &t : threadVars)
    node->prefix.push_back(t);
  for (unsigned k : iterScope)
    node->prefix.push_back(iterVars[k]);
  return node;
}

void SymExec::finalState() {
  std::map<const void *, std::vector<const Event *>> writes;
  std::set<const void *> atomic;
  for (auto &e : events) {
    if (e->kind == Event::Write)
      writes[e->mem].push_back(e.get());
    if (e->kind == Event::Atomic)
      atomic.insert(e->mem);
  }
  for (auto &[mem, mi] : mems) {
    if (mi.shared || mi.access == BufferAccess::In)
      continue;
    if (atomic.count(mem)) {
      // Atomic updates: the final contents are not modelled (the state after
      // the last atomic is arbitrary).
      continue;
    }
    auto it = writes.find(mem);
    state[mem] = it == writes.end() ? entryState.at(mem)
                                    : mergeNode(mem, entryState.at(mem), it->second, {0, 1, 2, 3, 4, 5, 6});
  }
}

/// Executes one op of shared arrays, loads, stores and atomics; false if `op` is not one.
bool SymExec::execMemoryOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto s = dyn_cast<SharedAllocOp>(op)) {
    MemInfo mi;
    mi.name = s.getName().str();
    mi.shared = true;
    mi.elemType = s.getType().getElementType();
    for (int64_t d : s.getType().getShape())
      mi.dims.push_back(z.int_val(d));
    mems.emplace(key(s), mi);
    auto node = std::make_shared<MemNode>();
    node->kind = MemNode::Base;
    node->id = nodeIds++;
    z3::sort_vector sorts(z);
    for (int i = 0; i < 3; ++i)
      sorts.push_back(z.int_sort());
    for (size_t i = 0; i < s.getType().getShape().size(); ++i)
      sorts.push_back(z.int_sort());
    node->fn = contentsFn(z.function((mi.name + "!init").c_str(), sorts, sortOf(mi.elemType)), mi);
    node->perBlock = true;
    state[key(s)] = node;
    intervalStart[key(s)] = node;
    entryState[key(s)] = node;
    return true;
  }
  if (auto a = dyn_cast<AlignedOp>(op)) {
    set(a.getResult(), alignedBase(key(a.getRef()), a.getBytes()));
    return true;
  }
  if (auto l = dyn_cast<LoadOp>(op)) {
    execAccess(&op, l.getRef(), l.getIndices(), Event::Read, std::nullopt, l.getResult());
    return true;
  }
  if (auto s = dyn_cast<StoreOp>(op)) {
    execAccess(&op, s.getRef(), s.getIndices(), Event::Write, get(s.getValue()), Value());
    return true;
  }
  if (auto a = dyn_cast<AtomicOp>(op)) {
    execAccess(&op, a.getRef(), a.getIndices(), Event::Atomic, get(a.getValues()[0]), a.getResult());
    return true;
  }
  return false;
}
