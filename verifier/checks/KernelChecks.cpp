//===- KernelChecks.cpp - Coverage, determinism and postconditions ----------===//
#include "verifier/analysis/SymExec.h"
#include <functional>
#include <set>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::finalChecks() {
  if (mode == FloatMode::Exact) {
    checkUniformity();
    raceChecks();
    // Float atomics make the result depend on the order the threads run in
    // (integer atomics whose order shows: raceChecks()).
    for (auto &e : events) {
      if (e->kind != Event::Atomic || !isa<FloatType>(mems.at(e->mem).elemType))
        continue;
      Obligation o;
      o.id = CheckId::Determinism;
      o.loc = e->loc;
      o.message = "the floating-point atomic on '" + mems.at(e->mem).name + "' is never executed";
      o.failMessage = "floating-point atomic on '" + mems.at(e->mem).name +
                      "': the result depends on the order the threads run in";
      o.assumptions = {e->pc};
      for (unsigned k : e->iters)
        o.assumptions.push_back(iterRange[k]);
      o.goal = z.bool_val(false);
      o.finding = !kernel.getDeterministic();
      obligations.push_back(o);
    }
  }
  finalState();
  z3::expr savedPc = pc;
  pc = z.bool_val(true);
  // Coverage: every element of every out region is written.
  if (mode == FloatMode::Exact) {
    for (auto &[mem, mi] : mems) {
      if (mi.shared || mi.access != BufferAccess::Out)
        continue;
      std::vector<z3::expr> j;
      z3::expr region = z.bool_val(true);
      std::vector<Observable> obs;
      CoverageCheck check{0, {}};
      for (size_t d = 0; d < mi.dims.size(); ++d) {
        j.push_back(fresh(mi.name + "_index", z.int_sort()));
        z3::expr lo = mi.hasWrites ? mi.writes[d].first : z.int_val(0);
        z3::expr hi = mi.hasWrites ? mi.writes[d].second : mi.dims[d];
        check.region.push_back({lo, hi});
        region = region && j[d] >= lo && j[d] < hi;
        obs.push_back({"index " + std::to_string(d) + " of " + mi.name, j[d]});
      }
      z3::expr cov = z.bool_val(false);
      for (auto &e : events) {
        if (e->mem != mem || e->kind == Event::Read)
          continue;
        for (bool iterFirst : {true, false}) {
          std::vector<z3::expr> from, to;
          if (!witness(*e, {0, 1, 2, 3, 4, 5, 6}, j, from, to, iterFirst)) {
            unsupportedAt(e->loc, "cannot tell which thread writes '" + mi.name + "' here");
            return;
          }
          cov = cov || covered(*e, from, to, j);
        }
      }
      Obligation o;
      o.id = CheckId::Coverage;
      o.memoryName = mi.name;
      o.loc = srcLoc(kernel.getLoc());
      o.assumptions = witnessFacts;
      witnessFacts.clear();
      o.message = "every element of out buffer '" + mi.name + "' is written";
      o.failMessage = "no thread writes this element of out buffer '" + mi.name + "'";
      o.assumptions.push_back(region);
      o.goal = cov;
      o.observables = obs;
      o.scope = Obligation::Scope::Kernel;
      check.index = obligations.size();
      obligations.push_back(o);
      coverageChecks.emplace(mem, std::move(check));
    }
  }
  // Postconditions.
  std::optional<bool> exactOutputs; // every buffer write rounding-free
  for (Operation &op : kernel.getBody().front()) {
    auto ens = dyn_cast<EnsuresOp>(op);
    if (!ens || ens.getApprox() != (mode == FloatMode::Real))
      continue;
    if (!writerPostcondition(ens)) {
      std::vector<z3::expr> extra;
      std::vector<Observable> obs;
      z3::expr g = evalGoal(ens.getCond(), extra, obs);
      addObligation(CheckId::Postcondition, ens.getLoc(), "the postcondition holds",
                    "the postcondition may not hold", g, extra, obs);
      obligations.back().scope = Obligation::Scope::Kernel;
    }
    if (ens.getApprox()) {
      // Rounding depth of the values the code wrote: the depth of the
      // deepest chain of float operations in the final state read here.
      std::function<int(const z3::expr &, std::map<unsigned, int> &)> depth =
          [&](const z3::expr &t, std::map<unsigned, int> &memo) -> int {
        if (!t.is_app())
          return 0;
        unsigned id = Z3_get_ast_id(z, t);
        auto it = memo.find(id);
        if (it != memo.end())
          return it->second;
        int d = 0;
        Z3_decl_kind k = t.decl().decl_kind();
        // `ite(p > q, p, q)` and the like (max, min, relu, clamp) select one
        // of the values they compare: continuous, so a flipped comparison
        // moves the result by no more than the rounding of p and q.
        if (k == Z3_OP_ITE) {
          z3::expr c = t.arg(0);
          while (c.is_app() && c.decl().decl_kind() == Z3_OP_NOT)
            c = c.arg(0);
          Z3_decl_kind ck = c.is_app() ? c.decl().decl_kind() : Z3_OP_UNINTERPRETED;
          bool compares = (ck == Z3_OP_LT || ck == Z3_OP_LE || ck == Z3_OP_GT || ck == Z3_OP_GE) &&
                          c.num_args() == 2;
          auto either = [&](const z3::expr &v) {
            return compares && (z3::eq(v, c.arg(0)) || z3::eq(v, c.arg(1)));
          };
          if (either(t.arg(1)) && either(t.arg(2)) && !z3::eq(t.arg(1), t.arg(2))) {
            for (const z3::expr &v : {c.arg(0), c.arg(1)})
              d = std::max(d, depth(v, memo));
            memo[Z3_get_ast_id(z, t)] = d;
            return d;
          }
        }
        for (unsigned i = 0; i < t.num_args(); ++i)
          d = std::max(d, depth(t.arg(i), memo));
        if (t.is_real() && (k == Z3_OP_ADD || k == Z3_OP_SUB || k == Z3_OP_MUL || k == Z3_OP_DIV))
          d += 1;
        // An integer converted to a float rounds where it has more digits
        // than the format.
        if (k == Z3_OP_TO_REAL)
          d += 1;
        // The γ(d)·Σ|terms| form bounds sums of products: a quotient by a
        // computed value (whose rounding the quotient magnifies) and a math
        // function (libdevice's own error, and its slope) are outside it.
        if (t.is_real() && k == Z3_OP_DIV && noBound.empty() && !t.arg(1).is_numeral())
          noBound = "the code divides by a computed value";
        bool realArgs = false;
        for (unsigned i = 0; i < t.num_args(); ++i)
          realArgs |= t.arg(i).is_real();
        if (t.is_real() && k == Z3_OP_UNINTERPRETED && realArgs && noBound.empty()) {
          std::string fn = t.decl().name().str();
          noBound = "the code applies '" + fn.substr(0, fn.find('_')) +
                    "', whose error is libdevice's, not a rounding";
        }
        // A comparison of rounded values (`s > 0.0` with `s = (a + big) -
        // big`) can come out the other way in floats: the value it selects
        // then differs from the exact one by more than any rounding bound.
        if ((k == Z3_OP_LT || k == Z3_OP_LE || k == Z3_OP_GT || k == Z3_OP_GE ||
             k == Z3_OP_EQ || k == Z3_OP_DISTINCT) &&
            t.num_args() > 0 && t.arg(0).is_real() && d > 0)
          roundedComparison = true;
        // A value carried by a cut loop, or known only through a barrier
        // contract, hides how many roundings produced it.
        std::string name = t.decl().name().str();
        // So does a spec's fold that an invariant gave a local over the
        // reals (bindEqualLocals): a sum of `acc += ...` whose roundings the
        // term does not show.
        if (t.is_real() && k == Z3_OP_UNINTERPRETED &&
            (name.find("loop!") != std::string::npos || name.find("!after_barrier") != std::string::npos ||
             name.find("!havoc") != std::string::npos || isFoldTerm(t)))
          opaqueDepth = true;
        memo[id] = d;
        return d;
      };
      opaqueDepth = false;
      roundedComparison = false;
      noBound.clear();
      int d = 0;
      std::map<unsigned, int> memo;
      for (auto &e : events)
        if (e->kind == Event::Write && e->value && !mems.at(e->mem).shared) {
          d = std::max(d, depth(*e->value, memo));
          depth(e->pc, memo); // a branch on a rounded value decides the write
        }
      // The coarsest float format the code computes in (its unit roundoff
      // is the one that bounds every rounding), and one more rounding per
      // narrowing conversion (an f32 value stored `as f16`), which the
      // real-valued terms do not show.
      std::string format = "f32";
      auto coarser = [](StringRef a, StringRef b) {
        auto rank = [](StringRef f) { return f == "bf16" ? 3 : f == "f16" ? 2 : f == "f32" ? 1 : 0; };
        return rank(b) > rank(a);
      };
      bool anyFloat = false;
      kernel.getBody().walk([&](Operation *o) {
        if (o->getParentOfType<EnsuresOp>() || isa<EnsuresOp>(o))
          return;
        if (isa<arith::TruncFOp>(o))
          ++d;
        for (Type r : o->getResultTypes()) {
          std::string f = r.isBF16() ? "bf16" : r.isF16() ? "f16" : r.isF32() ? "f32" : r.isF64() ? "f64" : "";
          if (f.empty() || isa<arith::ConstantOp>(o))
            continue;
          if (!anyFloat || coarser(format, f))
            format = f;
          anyFloat = true;
        }
      });
      // Every value the kernel writes to a buffer rounding-free (a row's
      // maximum through a loop and a tree): the IEEE result is the real one,
      // whatever the loops and contracts hide. (The same for every clause.)
      if (!exactOutputs) {
        exactOutputs = true;
        kernel.getBody().walk([&](Operation *o) {
          if (o->getParentOfType<EnsuresOp>())
            return;
          if (auto st = dyn_cast<StoreOp>(o))
            *exactOutputs = *exactOutputs &&
                            (!isa<BufferType>(st.getRef().getType()) ||
                             (roundingFree().value(st.getValue()) && roundingFree().control(o)));
          else if (auto a = dyn_cast<AtomicOp>(o))
            *exactOutputs = *exactOutputs && !isa<BufferType>(a.getRef().getType());
        });
      }
      if (*exactOutputs) {
        d = 0;
        opaqueDepth = roundedComparison = false;
        noBound.clear();
      }
      SrcLoc s = srcLoc(ens.getLoc());
      tolerances.push_back({s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col),
                            opaqueDepth ? -d - 1 : d, roundedComparison, noBound, format,
                            opaqueDepth ? loopRounding(kernel) : LoopRounding{}});
    }
  }
  pc = savedPc;
}

/// `ensures forall i...: P(y[t(i)])` where `y[t(i)]` is the clause's only read
/// of a written buffer: proven per write event from the writer's side (the
/// thread T that writes y[t] last computes a value v with P(v)), plus "every
/// y[t(i)] is written". No writer inversion is needed for the values, which
/// keeps the queries small; the final-state merge remains the general path.
bool SymExec::writerPostcondition(EnsuresOp ens) {
  Block *b = &ens.getCond().front();
  Value v = cast<YieldOp>(b->getTerminator()).getValues()[0];
  bool chained = false;
  while (auto fa = v.getDefiningOp<ForallOp>()) {
    if (fa->getBlock() != b)
      return false;
    chained = true;
    b = &fa.getBody().front();
    v = cast<YieldOp>(b->getTerminator()).getValues()[0];
  }
  if (!chained)
    return false;
  LoadOp target;
  bool ok = true;
  ens.getCond().walk([&](Operation *op) {
    auto l = dyn_cast<LoadOp>(op);
    if (!l)
      return;
    for (Operation *p = op->getParentOp(); p && p != ens; p = p->getParentOp())
      if (isa<OldOp>(p))
        return;
    auto bt = dyn_cast<BufferType>(l.getRef().getType());
    if (!bt || bt.getAccess() == BufferAccess::In)
      return;
    if (target || l->getBlock() != b)
      ok = false;
    target = l;
  });
  if (!ok || !target)
    return false;
  const void *mem = key(target.getRef());
  std::vector<const Event *> writes;
  for (auto &e : events) {
    if (e->mem != mem || e->kind == Event::Read)
      continue;
    if (e->kind == Event::Atomic || (!e->iters.empty() && mems.at(mem).access != BufferAccess::Out))
      return false;
    writes.push_back(e.get());
  }
  const MemInfo &mi = mems.at(mem);
  // An `inout` element no thread writes keeps its value, which the clause
  // may allow (`y[i] == (i < m ? x[i] : old(y[i]))`): "every element the
  // clause names is written" below would be a false failure. The final-state
  // merge proves such clauses (the unwritten elements read their old values).
  if (mi.access != BufferAccess::Out)
    return false;
  auto indices = [&]() {
    std::vector<z3::expr> t;
    for (Value i : target.getIndices())
      t.push_back(get(i));
    return t;
  };
  for (size_t w = 0; w < writes.size(); ++w) {
    const Event &e = *writes[w];
    overrideLoad.erase(target);
    overrideLoad.emplace(target, *e.value);
    std::vector<z3::expr> extra;
    std::vector<Observable> obs;
    z3::expr g = evalGoal(ens.getCond(), extra, obs);
    std::vector<z3::expr> t = indices();
    extra.push_back(e.pc);
    extra.push_back(e.facts);
    for (unsigned k : e.iters)
      extra.push_back(iterRange[k]);
    for (size_t d = 0; d < t.size(); ++d) {
      extra.push_back(e.idx[d] == t[d]);
      solveIndex(e.idx[d], t[d], extra); // the bound variables, where it can
    }
    // Where a later write (of any thread: one after a barrier, the same
    // thread's) stores to the element, this one is not the final value.
    for (size_t l = w + 1; l < writes.size(); ++l) {
      z3::expr same = writes[l]->pc;
      for (size_t d = 0; d < t.size(); ++d)
        same = same && writes[l]->idx[d] == t[d];
      extra.push_back(!same);
      for (bool iterFirst : {true, false}) {
        std::vector<z3::expr> from, to;
        if (witness(*writes[l], {0, 1, 2, 3, 4, 5, 6}, t, from, to, iterFirst))
          extra.push_back(!covered(*writes[l], from, to, t));
        extra.insert(extra.end(), witnessFacts.begin(), witnessFacts.end());
        witnessFacts.clear();
      }
    }
    std::vector<Observable> all = pairObservables(threadVars, threadVars);
    std::vector<Observable> o2;
    for (size_t i = 0; i < all.size(); i += 2)
      o2.push_back({all[i].name.substr(9), all[i].term});
    obs.insert(obs.end(), o2.begin(), o2.end());
    obs.push_back({mi.name + " written", *e.value, mi.unsignedBits()});
    addObligation(CheckId::Postcondition, ens.getLoc(),
                  "the value written at line " + std::to_string(e.loc.line) + " satisfies the postcondition",
                  "the value written at line " + std::to_string(e.loc.line) + " may violate the postcondition",
                  g, extra, obs);
  }
  // Every element the clause names is written.
  overrideLoad.erase(target);
  overrideLoad.emplace(target, fresh("unused", sortOf(mi.elemType)));
  std::vector<z3::expr> extra;
  std::vector<Observable> obs;
  evalGoal(ens.getCond(), extra, obs);
  std::vector<z3::expr> t = indices();
  overrideLoad.erase(target);
  // Where the clause holds whatever the element holds, it need not be
  // written: `i < n ==> y[i] == x[i]` names y[i] only for i < n. The
  // disjuncts of the clause's body that do not read the element (the
  // negated guard of an implication) say where.
  std::map<Operation *, bool> reads;
  std::function<bool(Value)> readsTarget = [&](Value x) {
    Operation *d = x.getDefiningOp();
    if (!d)
      return false;
    if (auto it = reads.find(d); it != reads.end())
      return it->second;
    bool r = d == target.getOperation();
    for (Value o : d->getOperands())
      r = r || readsTarget(o);
    d->walk([&](LoadOp l) { r |= l == target; });
    return reads[d] = r;
  };
  z3::expr regardless = z.bool_val(false);
  std::function<void(Value)> disjuncts = [&](Value x) {
    if (auto o = x.getDefiningOp<arith::OrIOp>(); o && o->getBlock() == b) {
      disjuncts(o.getLhs());
      disjuncts(o.getRhs());
    } else if (!readsTarget(x)) {
      regardless = regardless || get(x);
    }
  };
  disjuncts(v);
  z3::expr cov = regardless.simplify();
  for (const Event *e : writes) {
    for (bool iterFirst : {true, false}) {
      std::vector<z3::expr> from, to;
      if (!witness(*e, {0, 1, 2, 3, 4, 5, 6}, t, from, to, iterFirst))
        return false;
      cov = cov || covered(*e, from, to, t);
    }
  }
  for (size_t d = 0; d < t.size(); ++d)
    obs.push_back({mi.name + " index " + std::to_string(d), t[d]});
  extra.insert(extra.end(), witnessFacts.begin(), witnessFacts.end());
  witnessFacts.clear();
  addObligation(CheckId::Postcondition, ens.getLoc(),
                "every element of '" + mi.name + "' the postcondition names is written",
                "no thread writes the element of out buffer '" + mi.name + "' the postcondition names", cov,
                extra, obs);
  obligations.back().scope = Obligation::Scope::Kernel;
  // Where the clause's own ranges keep each index within the elements the
  // buffer's coverage check is about, that check's goal is this one's (the
  // same writes, the same witnesses) under fewer assumptions.
  auto covering = coverageChecks.find(mem);
  if (covering != coverageChecks.end() && covering->second.region.size() == t.size()) {
    // (The atoms are kept alive: an AST's id is reused once it is freed, and
    // a freed `i < n / 2 + 1` matched a later `i < n / 2`, so a clause over
    // one element past the buffer was "implied" by the coverage check.)
    std::set<unsigned> atoms;
    std::vector<z3::expr> alive;
    std::vector<z3::expr> pending(extra.begin(), extra.end());
    while (!pending.empty()) {
      z3::expr f = pending.back().simplify();
      pending.pop_back();
      if (f.is_and()) {
        for (unsigned k = 0; k < f.num_args(); ++k)
          pending.push_back(f.arg(k));
        continue;
      }
      atoms.insert(Z3_get_ast_id(z, f));
      alive.push_back(f);
    }
    bool within = true;
    for (size_t d = 0; d < t.size() && within; ++d) {
      auto [lo, hi] = covering->second.region[d];
      for (z3::expr bound : {(t[d] >= lo).simplify(), (t[d] < hi).simplify()})
        within &= bound.is_true() || atoms.count(Z3_get_ast_id(z, bound)) > 0;
    }
    if (within)
      obligations.back().impliedBy = covering->second.index;
  }
  return true;
}
