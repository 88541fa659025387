//===- ControlFlow.cpp - Conditionals and loops -----------------------------===//
#include "verifier/analysis/SymExec.h"

#include <functional>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::execIf(scf::IfOp op) {
  z3::expr c = get(op.getCondition());
  // A condition that is a constant (`if s > 1` in a copy of an unrolled
  // `for s in [...]`): every thread takes the same branch, and the other one
  // is not there (its barriers included).
  z3::expr constant = c.simplify();
  if (constant.is_true() || constant.is_false()) {
    Region &taken = constant.is_true() ? op.getThenRegion() : op.getElseRegion();
    if (taken.empty())
      return;
    execBlock(taken.front());
    auto y = cast<scf::YieldOp>(taken.front().getTerminator());
    for (auto [result, v] : llvm::zip(op.getResults(), y.getResults()))
      set(result, get(v));
    return;
  }
  z3::expr savedPc = pc, savedFacts = facts;
  auto savedLocals = locals;
  unsigned i0 = interval;
  z3::expr d0 = dynInterval, w0 = warpPhase;
  auto runBranch = [&](Region &r, z3::expr cond, std::vector<z3::expr> &ys) {
    pc = savedPc && cond;
    facts = savedFacts; // facts learnt in a branch hold only there
    if (r.empty())
      return;
    execBlock(r.front());
    auto y = cast<scf::YieldOp>(r.front().getTerminator());
    for (Value v : y.getResults())
      ys.push_back(get(v));
  };
  std::vector<z3::expr> thenYs, elseYs;
  auto stateBefore = state, startBefore = intervalStart;
  size_t thenBegin = events.size();
  runBranch(op.getThenRegion(), c, thenYs);
  size_t thenEnd = events.size();
  z3::expr thenFacts = factsSince(facts, savedFacts);
  auto thenLocals = locals;
  unsigned iThen = interval;
  z3::expr dThen = dynInterval, wThen = warpPhase;
  // Where the then branch passed barriers (so the block takes the branches
  // uniformly, which the divergence check proves), a barrier replaced the
  // memory state (by a merge, or by a contract's fresh arrays): the else
  // branch starts from the state before the `if`, and the two are selected
  // by the condition after it. (Without barriers each write is guarded by
  // its branch's condition, and the else branch adds to the then branch's.)
  auto thenState = state, thenStart = intervalStart;
  bool selectStates = iThen != i0;
  if (selectStates) {
    state = stateBefore;
    intervalStart = startBefore;
  }
  locals = savedLocals;
  interval = i0;
  dynInterval = d0;
  warpPhase = w0;
  runBranch(op.getElseRegion(), !c, elseYs);
  z3::expr elseFacts = factsSince(facts, savedFacts);
  unsigned iElse = interval;
  auto select = [&](std::map<const void *, MemRef> &now,
                    const std::map<const void *, MemRef> &then) {
    for (auto &[mem, ref] : now) {
      auto it = then.find(mem);
      if (it == then.end() || it->second == ref)
        continue;
      auto node = std::make_shared<MemNode>();
      node->kind = MemNode::Select;
      node->id = nodeIds++;
      node->cond = c;
      node->alt = it->second;
      node->prev = ref;
      ref = node;
    }
  };
  if (selectStates && iThen == iElse) {
    select(state, thenState);
    select(intervalStart, thenStart);
  } else if (iThen != iElse) {
    // The branches pass different numbers of barriers (a block-uniform early
    // `return` before a barrier, a barrier in a uniform `if` without `else`):
    // the divergence check proves that a block's threads all reach each
    // barrier or none does, so a block takes one branch, and its threads have
    // passed as many barriers as that branch has (dynInterval below). Each
    // branch's last interval is merged at its end, as at a barrier; the code
    // after the `if` reads the merge of the branch its thread took. Merging
    // early is sound as at a barrier loop's entry: what another thread of the
    // block wrote in the interval the code after the `if` continues is read
    // there only by a race, which the race check (on the dynamic intervals)
    // reports; the thread's own writes are in the merge.
    mergeInterval(lockstepIters, false, {thenBegin, thenEnd});
    auto elseMerged = state;
    state = thenState;
    intervalStart = thenStart;
    interval = iThen;
    mergeInterval(lockstepIters, false, {thenEnd, events.size()});
    auto thenMerged = std::move(state);
    state = std::move(elseMerged);
    select(state, thenMerged);
    interval = std::max(iThen, iElse) + 1;
    intervalStart = state;
  }
  // Each thread has passed the barriers of the branch it took.
  if (!z3::eq(dThen, dynInterval))
    dynInterval = z3::ite(c, dThen, dynInterval).simplify();
  // Lanes of one warp that pass a syncwarp in a branch all take it (the
  // convergence check): the phase is the branch's.
  if (!z3::eq(wThen, warpPhase))
    warpPhase = z3::ite(c, wThen, warpPhase);
  pc = savedPc;
  // What a branch learnt (a loop's results through its invariant, an
  // `assume`) holds after the merge where the branch was taken: a loop run
  // only by lanes < 16 is still known by its invariant after the `if`.
  // (Nothing added where a branch learnt nothing: even a trivial `c => true`
  // changes the solver's search, a tiled matmul's invariant 0.6 s -> 14 s.)
  facts = savedFacts;
  if (!thenFacts.is_true())
    facts = facts && z3::implies(c, thenFacts);
  if (!elseFacts.is_true())
    facts = facts && z3::implies(!c, elseFacts);
  for (auto &[k, v] : thenLocals) {
    auto it = locals.find(k);
    if (it == locals.end())
      continue;
    if (!z3::eq(it->second, v)) {
      z3::expr m = z3::ite(c, v, it->second);
      locals.erase(k);
      locals.emplace(k, m);
    }
  }
  for (unsigned i = 0; i < op.getNumResults() && i < thenYs.size() && i < elseYs.size(); ++i)
    set(op.getResult(i), z3::ite(c, thenYs[i], elseYs[i]));
}

/// After a loop's iteration: the locals the loop does not assign get back
/// their values from before it (an invariant over the reals may have bound
/// one to an equal term of the iteration, see bindEqualLocals, which says
/// nothing outside the iteration's range).
void SymExec::restoreUnmodifiedLocals(const std::unordered_map<const void *, z3::expr> &before,
                                      const std::set<const void *> &modified) {
  for (auto &[k, v] : before) {
    if (modified.count(k) || !locals.count(k))
      continue;
    locals.erase(k);
    locals.emplace(k, v);
  }
}

/// Forgets what a loop changes: locals it assigns and, since what earlier
/// iterations wrote is not tracked, the thread's view of every memory it
/// writes (both become functions of the thread and the iterations in scope).
void SymExec::havocLoop(const std::set<const void *> &modified,
                        const std::set<const void *> &written, const std::string &why) {
  for (const void *lv : modified) {
    z3::sort srt = locals.at(lv).get_sort();
    locals.erase(lv);
    z3::expr v = havoc(why, srt);
    locals.emplace(lv, v);
    // An integer local holds a value of its type whatever the loop did to it
    // (`acc += 1` under `invariant acc == i && i <= 4` overflowed through an
    // acc of -2^40).
    if (auto type = dyn_cast<MemRefType>(valueOf(lv).getType()))
      if (z3::expr r = typeRange(v, type.getElementType()); !r.is_true())
        facts = facts && r;
  }
  // (A shared array declared in the loop's body is not there yet: each pass
  // declares it afresh, with contents about which nothing is known.)
  for (const void *mem : written)
    if (mems.count(mem))
      state[mem] = havocMemory(mem);
}

/// The number of barriers one pass through `block` reaches, when it is the same
/// on every path and every inner loop that has barriers has a constant trip
/// count; nothing otherwise.
static std::optional<int64_t> barriersPerPass(Block &block) {
  int64_t n = 0;
  for (Operation &op : block) {
    if (isa<BarrierOp>(op)) {
      ++n;
    } else if (auto i = dyn_cast<scf::IfOp>(op)) {
      std::optional<int64_t> t = i.getThenRegion().empty() ? 0 : barriersPerPass(i.getThenRegion().front());
      std::optional<int64_t> e = i.getElseRegion().empty() ? 0 : barriersPerPass(i.getElseRegion().front());
      if (!t || !e || *t != *e)
        return std::nullopt;
      n += *t;
    } else if (auto f = dyn_cast<ForOp>(op)) {
      std::optional<int64_t> b = barriersPerPass(f.getBody().front());
      if (!b)
        return std::nullopt;
      if (*b == 0)
        continue;
      int64_t lo, hi, st;
      if (!constantInt(f.getLo(), lo) || !constantInt(f.getHi(), hi) ||
          !constantInt(f.getStep(), st) || st <= 0)
        return std::nullopt;
      n += *b * (hi <= lo ? 0 : (hi - lo + st - 1) / st);
    } else {
      bool inner = false;
      op.walk([&](BarrierOp) { inner = true; });
      if (inner)
        return std::nullopt;
    }
  }
  return n;
}

void SymExec::storedMemories(Region &r, std::set<const void *> &out) {
  r.walk([&](Operation *op) {
    if (auto s = dyn_cast<StoreOp>(op))
      out.insert(key(s.getRef()));
    else if (auto a = dyn_cast<AtomicOp>(op))
      out.insert(key(a.getRef()));
  });
}

/// The memories of `written` that the body of `op` (a loop without barriers)
/// touches only at its own iteration's element: every load and store at the
/// index that is the induction variable itself, no atomic, and no invariant
/// reading them. An iteration then reads what the loop found there (earlier
/// iterations wrote other elements: the step is positive, a checked
/// precondition), so they need no havoc at the loop's head: an in-place
/// `a[i] = a[i] * 2.0` in a grid-stride loop keeps `old(a[i])`.
std::set<const void *> SymExec::ownElementOnly(ForOp op,
                                               const std::set<const void *> &written) {
  Value iv = op.getBody().front().getArgument(0);
  std::set<const void *> bad;
  op.getBody().walk([&](Operation *o) {
    Value ref;
    ValueRange indices;
    if (auto l = dyn_cast<LoadOp>(o)) {
      ref = l.getRef();
      indices = l.getIndices();
    } else if (auto s = dyn_cast<StoreOp>(o)) {
      ref = s.getRef();
      indices = s.getIndices();
    } else if (auto a = dyn_cast<AtomicOp>(o)) {
      bad.insert(key(a.getRef()));
      return;
    } else {
      return;
    }
    if (indices.size() != 1 || indices.front() != iv)
      bad.insert(key(ref));
  });
  op.getInvariants().walk([&](LoadOp l) { bad.insert(key(l.getRef())); });
  std::set<const void *> keep;
  for (const void *mem : written)
    if (!bad.count(mem))
      keep.insert(mem);
  return keep;
}

void SymExec::storedLocals(Region &r, std::set<const void *> &out) {
  r.walk([&](memref::StoreOp s) { out.insert(key(s.getMemRef())); });
}

void SymExec::execFor(ForOp op) {
  z3::expr lo = get(op.getLo()), hi = get(op.getHi()), st = get(op.getStep());
  Location loc = op.getLoc();
  addObligation(CheckId::Precondition, loc, "the loop step is positive", "the loop step may be <= 0", st > 0);
  int64_t l, h, s;
  z3::expr los = lo.simplify(), his = hi.simplify(), sts = st.simplify();
  auto checkInvariants = [&](z3::expr iv, const std::string &when) {
    loopInvariants(op.getInvariants(), iv, true, when);
  };
  auto assumeInvariants = [&](z3::expr iv) { loopInvariants(op.getInvariants(), iv, false, ""); };
  if (isConst(los, l) && isConst(his, h) && isConst(sts, s) && s > 0 &&
      ((__int128)h - l) / s <= 256 &&
      unrolledPasses * std::max<int64_t>(1, int64_t(((__int128)h - l + s - 1) / s)) <=
          kMaxUnrolledPasses) {
    // (In 128 bits: the counter's last increment may leave int64.)
    int64_t outerPasses = unrolledPasses;
    unrolledPasses *= std::max<int64_t>(1, int64_t(((__int128)h - l + s - 1) / s));
    __int128 i = l;
    for (; i < h; i += s) {
      checkInvariants(z.int_val(int64_t(i)), "at the start of an iteration");
      set(op.getBody().front().getArgument(0), z.int_val(int64_t(i)));
      execBlock(op.getBody().front());
      if (!unsupportedReason.empty()) {
        unrolledPasses = outerPasses;
        return;
      }
    }
    unrolledPasses = outerPasses;
    // The increment after the last iteration must not wrap, as with a
    // symbolic trip count below (`for i in 2^31 - 2..2^31 - 1 step 2`).
    z3::expr exit = h > l ? (z.int_val(int64_t(i - s)) + z.int_val(s)).simplify() : z.int_val(l);
    if (h > l)
      checkOverflow(*op.getOperation(), exit, cast<IntegerType>(op.getLo().getType()).getWidth(),
                    true);
    checkInvariants(exit, "when the loop exits");
    return;
  }
  bool hasBarrier = false;
  op.getBody().walk([&](BarrierOp) { hasBarrier = true; });
  std::optional<int64_t> perIter;
  if (hasBarrier) {
    perIter = barriersPerPass(op.getBody().front());
    if (!perIter || *perIter <= 0) {
      // Not modelled; but the first iteration, where the loop runs one, is
      // executed for its barriers' divergence checks, which then stand on
      // their own (prefixChecks): a barrier under `if row < m` in a tiled
      // matmul's loop is reported as the divergence it is.
      if (mode == FloatMode::Exact) {
        z3::expr savedPc = pc;
        pc = pc && lo < hi;
        set(op.getBody().front().getArgument(0), lo);
        execBlock(op.getBody().front());
        pc = savedPc;
        size_t before = obligations.size();
        unsupportedReason.clear();
        checkUniformity();
        for (size_t i = before; i < obligations.size(); ++i)
          if (obligations[i].id == CheckId::BarrierDivergence)
            prefixChecks.push_back(i);
      }
      unsupported(op, "a barrier inside a loop whose trip count is not a compile-time constant is "
                      "modelled only when every iteration passes the same number of barriers");
      return;
    }
  }
  checkInvariants(lo, "on entry");
  std::set<const void *> modified;
  storedLocals(op.getBody(), modified);
  std::set<const void *> written;
  storedMemories(op.getBody(), written);
  z3::expr savedPc = pc, savedFacts = facts;
  unsigned m = iterVars.size();
  iterVars.push_back(z.int_const(("iter!" + std::to_string(freshIds++)).c_str()));
  z3::expr k = lo + iterVars[m] * st;
  iterRange.push_back(iterVars[m] >= 0 && k < hi);
  iterStep.resize(m + 1, z.int_val(0));
  iterStep[m] = st;
  iterLast.resize(m + 1);
  iterLast[m] = (hi - lo - 1) / st;
  z3::expr dyn0 = dynInterval;
  unsigned bodyInterval = 0;
  if (perIter) {
    // A loop with barriers: the writes of the interval before it are merged
    // as at a barrier (whatever another thread wrote there is either read
    // after the first barrier of the loop, or a race that is reported); the
    // iterations of the block then run in lockstep, iteration m's j-th
    // interval being the dynamic interval dyn0 + m * K + j.
    mergeInterval(lockstepIters);
  }
  iterScope.push_back(m);
  std::set<const void *> havocked = written;
  if (!perIter)
    for (const void *mem : ownElementOnly(op, written))
      havocked.erase(mem);
  std::vector<ClearedFlag> flags = clearedFlags(op.getBody(), modified);
  auto localsBefore = locals;
  auto stateBefore = state;
  size_t eventsBefore = events.size();
  havocLoop(modified, havocked, "loop");
  for (ClearedFlag &f : flags)
    f.atStart = locals.at(f.local);
  if (perIter) {
    interval++;
    intervalStart = state;
    bodyInterval = interval;
    lockstepIters.insert(m);
    dynInterval = dyn0 + iterVars[m] * z.int_val(*perIter);
  }
  pc = pc && iterRange[m];
  z3::expr bodyPc = pc;
  assumeInvariants(k);
  set(op.getBody().front().getArgument(0), k);
  execBlock(op.getBody().front());
  noteClearing(flags, bodyPc, savedFacts);
  if (perIter && unsupportedReason.empty() && interval - bodyInterval != (unsigned)*perIter) {
    unsupported(op, "the loop's iterations pass different numbers of barriers");
    return;
  }
  checkInvariants(k + st, "after an iteration");
  // The counter's increment after the last iteration must not wrap either.
  checkOverflow(*op.getOperation(), k + st, cast<IntegerType>(op.getLo().getType()).getWidth(), true);
  iterScope.pop_back();
  pc = savedPc;
  facts = savedFacts;
  restoreUnmodifiedLocals(localsBefore, modified);
  havocLoop(modified, written, "after_loop");
  assumeCleared(flags, savedPc, savedFacts, localsBefore, stateBefore, eventsBefore);
  z3::expr span = hi - lo;
  if (perIter) {
    // After the loop: the interval the last iteration ends in. What the loop
    // wrote is forgotten (havocked above), so nothing of it is merged later.
    lockstepIters.erase(m);
    z3::expr trips = z3::ite(hi <= lo, z.int_val(0), (span + st - 1) / st);
    dynInterval = dyn0 + trips * z.int_val(*perIter);
    interval++;
    intervalStart = state;
  }
  z3::expr exitIv = z3::ite(hi <= lo, lo, lo + ((span + st - 1) / st) * st);
  assumeInvariants(exitIv);
  exitFactsForWriters(savedPc, savedFacts);
}

/// What a thread knows after a loop with a symbolic trip count (its
/// invariants at the exit, the exit condition, the ranges of the values it
/// havocked) holds for every thread that reaches the loop: instantiated for
/// the writers coverage names, so that a write after the loop guarded by the
/// loop's final values (`if v == 12`) has its writer.
void SymExec::exitFactsForWriters(const z3::expr &savedPc, const z3::expr &savedFacts) {
  z3::expr exitFacts = factsSince(facts, savedFacts);
  if (!exitFacts.is_true())
    threadFacts.push_back(z3::implies(savedPc, exitFacts));
}

/// The boolean locals of `modified` that every store in `body` (and in the
/// loops and conditionals nested there) sets to the constant false.
std::vector<SymExec::ClearedFlag> SymExec::clearedFlags(Region &body,
                                                        const std::set<const void *> &modified) {
  std::map<const void *, bool> onlyFalse;
  body.walk([&](memref::StoreOp s) {
    const void *k = key(s.getMemRef());
    bool isFalse = false;
    if (auto c = s.getValue().getDefiningOp<arith::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue())) // BoolAttr is one
        isFalse = i.getType().isInteger(1) && i.getValue().isZero();
    auto [it, fresh] = onlyFalse.emplace(k, isFalse);
    if (!fresh)
      it->second = it->second && isFalse;
  });
  std::vector<ClearedFlag> flags;
  for (auto [k, clears] : onlyFalse)
    if (clears && modified.count(k) && locals.count(k) && locals.at(k).is_bool())
      flags.push_back({k, locals.at(k), std::nullopt, std::nullopt});
  return flags;
}

/// After the body's one symbolic iteration: where that iteration clears each
/// flag (its path condition, the facts it assumed, the flag set at its start
/// and clear at its end).
void SymExec::noteClearing(std::vector<ClearedFlag> &flags, const z3::expr &bodyPc,
                           const z3::expr &savedFacts) {
  if (flags.empty())
    return;
  z3::expr bodyFacts = factsSince(facts, savedFacts);
  for (ClearedFlag &f : flags)
    f.witness = bodyPc && bodyFacts && *f.atStart && !locals.at(f.local);
}

namespace {
/// The maximal subterms of `e` that are applications of uninterpreted
/// symbols the state before a loop does not have (`terms` for constants,
/// `decls` for functions); false if one is inside a quantifier (it cannot be
/// renamed there).
bool innerTerms(const z3::expr &e, const std::set<unsigned> &terms,
                const std::set<unsigned> &decls, bool quantified, std::set<unsigned> &seen,
                std::vector<z3::expr> &out) {
  if (!seen.insert(e.id()).second)
    return true;
  if (e.is_quantifier() || e.is_lambda())
    return innerTerms(e.body(), terms, decls, true, seen, out);
  if (!e.is_app())
    return true;
  if (e.decl().decl_kind() == Z3_OP_UNINTERPRETED &&
      !(e.num_args() == 0 ? terms.count(e.id())
                          : decls.count(Z3_get_func_decl_id(e.ctx(), e.decl())))) {
    if (quantified)
      return false;
    out.push_back(e);
    return true;
  }
  for (unsigned i = 0; i < e.num_args(); ++i)
    if (!innerTerms(e.arg(i), terms, decls, quantified, seen, out))
      return false;
  return true;
}
} // namespace

/// After the loop: each flag is false only if it was false before or some
/// iteration cleared it. That iteration is the body's symbolic one with
/// every term of its own (the iteration, the locals and memory the loop
/// havocs, anything created in the body) renamed apart, each to a fresh
/// per-thread value: the fact says such an iteration exists, which holds wherever
/// the flag was cleared (renaming only weakens it), so it only removes states
/// no run reaches: a `return` under `j > n` in `for j in 0..n` never runs,
/// and the code after the loop has its writer.
void SymExec::assumeCleared(const std::vector<ClearedFlag> &flags, const z3::expr &savedPc,
                            const z3::expr &savedFacts,
                            const std::unordered_map<const void *, z3::expr> &localsBefore,
                            const std::map<const void *, MemRef> &stateBefore,
                            size_t eventsBefore) {
  if (flags.empty())
    return;
  // What the loop does not change: the terms of the state before it.
  std::set<unsigned> outerTerms, outerDecls;
  auto outer = [&](const z3::expr &e) { collectTerms(e, outerTerms, outerDecls); };
  outer(savedPc);
  outer(savedFacts);
  for (const z3::expr &v : threadVars)
    outer(v);
  for (auto &p : params)
    outer(p.term);
  for (auto &[k, v] : localsBefore)
    outer(v);
  for (size_t i = 0; i < eventsBefore && i < events.size(); ++i)
    if (events[i]->value)
      outer(*events[i]->value);
  std::set<const MemNode *> visited;
  std::function<void(const MemRef &)> walk = [&](const MemRef &n) {
    if (!n || !visited.insert(n.get()).second)
      return;
    if (n->fn)
      outerDecls.insert(Z3_get_func_decl_id(z, *n->fn));
    walk(n->prev);
    walk(n->alt);
  };
  for (auto &[mem, ref] : stateBefore)
    walk(ref);
  for (const ClearedFlag &f : flags) {
    // Never set to true: after the loop it is its value before, unless an
    // iteration cleared it.
    z3::expr cleared = havoc("cleared_in_loop", z.bool_sort());
    locals.erase(f.local);
    locals.emplace(f.local, f.before && !cleared);
    std::set<unsigned> seen;
    std::vector<z3::expr> inner;
    if (!f.witness || !innerTerms(*f.witness, outerTerms, outerDecls, false, seen, inner))
      continue;
    // The clearing iteration's own terms, per thread (functions of its ids
    // and enclosing iterations, as havocked values are).
    z3::expr_vector from(z), to(z);
    for (const z3::expr &t : inner) {
      from.push_back(t);
      to.push_back(havoc("clearing_iteration", t.get_sort()));
    }
    // Valid for every thread (one that cleared nothing has `cleared` false);
    // part of the loop's exit facts, which coverage also assumes for the
    // writers it names (exitFactsForWriters).
    facts = facts && z3::implies(cleared, z3::expr(*f.witness).substitute(from, to));
  }
}

/// The conjuncts added to `base` to make `now` (facts are only ever extended
/// by `facts && x`); all of `now` where it was not built that way.
z3::expr SymExec::factsSince(const z3::expr &now, const z3::expr &base) const {
  std::optional<z3::expr> delta;
  z3::expr at = now;
  while (!z3::eq(at, base)) {
    if (!at.is_app() || at.decl().decl_kind() != Z3_OP_AND || at.num_args() != 2)
      return now;
    delta = delta ? *delta && at.arg(1) : at.arg(1);
    at = at.arg(0);
  }
  return delta ? *delta : z.bool_val(true);
}

void SymExec::execWhile(WhileOp op) {
  bool hasBarrier = false;
  op.getBody().walk([&](BarrierOp) { hasBarrier = true; });
  if (hasBarrier) {
    unsupported(op, "a barrier inside a while loop is not modelled yet");
    return;
  }
  auto invariants = [&](bool check, const std::string &when) {
    loopInvariants(op.getInvariants(), std::nullopt, check, when);
  };
  invariants(true, "on entry");
  std::set<const void *> modified;
  storedLocals(op.getBody(), modified);
  storedLocals(op.getCond(), modified);
  std::set<const void *> written;
  storedMemories(op.getBody(), written);
  storedMemories(op.getCond(), written);
  z3::expr savedPc = pc, savedFacts = facts;
  unsigned m = iterVars.size();
  iterVars.push_back(z.int_const(("iter!" + std::to_string(freshIds++)).c_str()));
  iterRange.push_back(iterVars[m] >= 0);
  iterScope.push_back(m);
  std::vector<ClearedFlag> flags = clearedFlags(op.getBody(), modified);
  auto localsBefore = locals;
  auto stateBefore = state;
  size_t eventsBefore = events.size();
  havocLoop(modified, written, "loop");
  for (ClearedFlag &f : flags)
    f.atStart = locals.at(f.local);
  pc = pc && iterRange[m];
  invariants(false, "");
  execBlock(op.getCond().front());
  z3::expr c = get(cast<YieldOp>(op.getCond().front().getTerminator()).getValues()[0]);
  pc = pc && c;
  z3::expr bodyPc = pc;
  execBlock(op.getBody().front());
  noteClearing(flags, bodyPc, savedFacts);
  invariants(true, "after an iteration");
  iterScope.pop_back();
  pc = savedPc;
  facts = savedFacts;
  restoreUnmodifiedLocals(localsBefore, modified);
  havocLoop(modified, written, "after_loop");
  assumeCleared(flags, savedPc, savedFacts, localsBefore, stateBefore, eventsBefore);
  invariants(false, "");
  execBlock(op.getCond().front());
  // The loop has ended: its condition is false. A fact, not part of the path
  // condition: termination is not checked (docs/verification.md), so every
  // thread is taken to get past the loop, and a write after it has a writer
  // whatever values the loop left (coverage asked the writer's loop to end).
  z3::expr stays = get(cast<YieldOp>(op.getCond().front().getTerminator()).getValues()[0]);
  // Where no state the invariants allow ends the loop (`while true`, or an
  // invariant that keeps the condition true), that fact is false and what
  // follows is vacuously verified: said as a warning, as for an `assume`.
  addObligation(CheckId::Invariant, op.getLoc(), "the loop can end",
                "no thread can leave this loop (its condition holds in every state its "
                "invariants allow, or no thread reaches it): everything after it is "
                "vacuously verified (termination is not checked)",
                stays);
  obligations.back().vacuityProbe = true;
  facts = facts && !stays;
  exitFactsForWriters(savedPc, savedFacts);
}

/// Executes one op of locals (memref), conditionals and loops; false if `op` is not one.
bool SymExec::execStructuredOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto a = dyn_cast<memref::AllocaOp>(op)) {
    locals.erase(key(a));
    locals.emplace(key(a), havoc("uninit", sortOf(a.getType().getElementType())));
    return true;
  }
  if (auto l = dyn_cast<memref::LoadOp>(op)) {
    set(l, locals.at(key(l.getMemRef())));
    return true;
  }
  if (auto s = dyn_cast<memref::StoreOp>(op)) {
    locals.erase(key(s.getMemRef()));
    locals.emplace(key(s.getMemRef()), get(s.getValue()));
    return true;
  }
  if (auto i = dyn_cast<scf::IfOp>(op)) {
    execIf(i);
    return true;
  }
  if (auto f = dyn_cast<ForOp>(op)) {
    execFor(f);
    return true;
  }
  if (auto w = dyn_cast<WhileOp>(op)) {
    execWhile(w);
    return true;
  }
  return false;
}
