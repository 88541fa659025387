//===- Barriers.cpp - Barrier intervals and barrier contracts ---------------===//
#include "verifier/analysis/SymExec.h"

#include <set>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::mergeInterval(const std::set<unsigned> &fixedIters, bool atSyncWarp,
                            std::pair<size_t, size_t> skip) {
  std::map<const void *, std::vector<const Event *>> writes;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event &e = *events[i];
    if (i >= skip.first && i < skip.second)
      continue;
    if (e.interval == interval && e.kind != Event::Read && (!atSyncWarp || mems.at(e.mem).shared))
      writes[e.mem].push_back(&e);
  }
  for (auto &[mem, evs] : writes) {
    if (!mems.at(mem).shared && mems.at(mem).access == BufferAccess::In)
      continue;
    // A shared array declared in the other branch of a block-uniform `if`
    // (not in this path's interval start): its writes are that branch's.
    if (!intervalStart.count(mem))
      continue;
    // Atomic updates (a histogram's `atomic_add(bins[v[i]], 1)`) have no one
    // writer to name: what the memory holds after the barrier is not
    // modelled, any value (as after the last atomic of a kernel).
    bool atomic = false;
    for (const Event *e : evs)
      atomic |= e->kind == Event::Atomic;
    if (atSyncWarp && !atomic) {
      MemRef node = mergeNode(mem, state.at(mem), evs, {0, 1, 2, 6}, fixedIters);
      node->cond = pc;
      node->warpOnly = true;
      node->normalizeReads = true;
      state[mem] = node;
      continue;
    }
    if (atomic) {
      state[mem] = havocMemory(mem);
      continue;
    }
    MemRef node = mergeNode(mem, intervalStart.at(mem), evs, {0, 1, 2, 6}, fixedIters);
    node->normalizeReads = true;
    state[mem] = node;
  }
}

/// `syncwarp()` for the whole warp (no mask, or one naming all 32 lanes)
/// orders the shared-memory accesses of the warp's lanes, as __syncwarp does:
/// what the lanes wrote before it is read after it. The convergence check
/// proves that every lane of the warp reaches it or none does, so the lanes of
/// a warp pass the same syncwarps: their count (warpPhase) orders two accesses
/// of one warp in the race check. The shared memory read after it is the
/// merge of the writes of the barrier interval so far (later ones first), as
/// at a barrier; a write of another warp in that interval is a race the check
/// reports. Conservative elsewhere (a race may be reported that the syncwarp
/// prevents): global memory, a syncwarp inside a loop (whose iterations would
/// need counting in lockstep) and one with a mask naming part of the warp
/// order nothing here.
void SymExec::execSyncWarp(SyncWarpOp op) {
  collective(op, op.getMask());
  bool wholeWarp = !op.getMask();
  if (op.getMask()) {
    int64_t bits;
    wholeWarp = get(op.getMask()).simplify().is_numeral_i64(bits) &&
                (uint64_t(bits) & 0xffffffffull) == 0xffffffffull;
  }
  if (!wholeWarp || !iterScope.empty() || !unsupportedReason.empty())
    return;
  mergeInterval(lockstepIters, /*atSyncWarp=*/true);
  warpPhase = (warpPhase + 1).simplify();
}

void SymExec::execBarrier(BarrierOp op) {
  for (unsigned k : iterScope)
    if (!lockstepIters.count(k)) {
      unsupported(op, "a barrier inside a loop whose trip count is not a compile-time constant is "
                      "modelled only in a `for` loop that passes the same number of barriers in "
                      "every iteration");
      return;
    }
  barriers.push_back({pc, srcLoc(op.getLoc())});
  // The writers of this interval are at the same iterations of the
  // enclosing barrier loops as this thread: the block runs them in lockstep.
  mergeInterval(lockstepIters);
  if (!op.getContract().empty()) {
    // An approx contract belongs to the proof over the reals. An exact one
    // belongs to the IEEE proof, and to the one over the reals when asked:
    // the real-valued execution must then satisfy it too before an approx
    // clause relies on it (a copy into shared memory does; a contract that
    // holds only because of rounding does not).
    // An exact contract over rounding-free values (a tree of maxima: its
    // IEEE values are the same numbers over the reals) is assumed there
    // without a proof of its own: the IEEE proof is one.
    bool transferred = mode == FloatMode::Real && !op.getApprox() &&
                       roundingFree().clause(op.getContract()) && roundingFree().control(op);
    bool applies = op.getApprox() ? mode == FloatMode::Real
                                  : mode == FloatMode::Exact || exactContractsOverReals ||
                                        transferred;
    if (!applies && mode == FloatMode::Real)
      exactClausesNotAssumed.push_back(srcLoc(op.getLoc()));
    if (applies && !transferred) {
      std::vector<z3::expr> extra;
      std::vector<Observable> obs;
      // (Its reads of global memory another block writes race with those
      // writes: a barrier orders one block. A contract about the other
      // block's half of a buffer verified.)
      bool savedContract = contractReadsRace;
      contractReadsRace = true;
      z3::expr g = evalGoal(op.getContract(), extra, obs);
      contractReadsRace = savedContract;
      bool overReals = mode == FloatMode::Real && !op.getApprox();
      addObligation(CheckId::BarrierContract, op.getLoc(),
                    overReals ? "the barrier contract holds over the reals when the block arrives"
                              : "the barrier contract holds when the block arrives",
                    "the barrier contract may not hold when the block arrives",
                    g, extra, obs);
      obligations.back().overReals = overReals;
    }
    // The shared arrays written since the last barrier become arbitrary
    // except for what the contract states (its summary replaces the merge of
    // those writes); the others keep their state, which is exact, so that a
    // later phase's contract does not forget an earlier phase's array
    // (softmax: the maximum's tree, then the sum's, whose contract reads the
    // maximum).
    std::set<const void *> written;
    for (auto &e : events)
      if (e->interval == interval && e->kind != Event::Read)
        written.insert(e->mem);
    std::vector<unsigned> fresh;
    for (auto &[mem, mi] : mems) {
      if (!mi.shared || !written.count(mem))
        continue;
      auto node = std::make_shared<MemNode>();
      node->kind = MemNode::Base;
      node->id = nodeIds++;
      node->perBlock = true;
      z3::sort_vector sorts(z);
      for (int i = 0; i < 3; ++i)
        sorts.push_back(z.int_sort());
      for (size_t i = 0; i < mi.dims.size(); ++i)
        sorts.push_back(z.int_sort());
      node->fn = contentsFn(z.function((mi.name + "!after_barrier" + std::to_string(freshIds++)).c_str(),
                                        sorts, sortOf(mi.elemType)),
                             mi);
      fresh.push_back(Z3_get_func_decl_id(z, *node->fn));
      state[mem] = node;
    }
    if (applies) {
      // The contract holds in every block: one flat quantifier over the block
      // ids and the contract's own bound variables, so that Z3 can instantiate
      // it from the shared-array reads (pattern: the array's function).
      std::vector<z3::expr> ranges;
      std::vector<Observable> binders;
      z3::expr body = evalGoal(op.getContract(), ranges, binders);
      z3::expr_vector f(z), t(z), bound(z);
      z3::expr blockRange = z.bool_val(true);
      for (int i = 3; i < 6; ++i) {
        z3::expr c = z.int_const((threadVars[i].decl().name().str() + "!contract" + std::to_string(freshIds++)).c_str());
        f.push_back(threadVars[i]);
        t.push_back(c);
        bound.push_back(c);
        blockRange = blockRange && c >= 0 && c < grid[i - 3];
      }
      for (auto &b : binders)
        bound.push_back(b.term);
      // Only where the block reached the barrier: its path condition (the
      // loop iterations that exist, uniform branches) guards the contract, so
      // that a loop that runs no iteration assumes nothing.
      z3::expr hyp = blockRange && pc.substitute(f, t);
      for (auto &r : ranges)
        hyp = hyp && r.substitute(f, t);
      // The fresh states the contract reads: an obligation assumes it where
      // it mentions one of them. One that reads none (all it reads was
      // written before) is assumed everywhere after the barrier.
      z3::expr fact = z3::forall(bound, z3::implies(hyp, body.substitute(f, t)));
      std::set<unsigned> terms, applied;
      collectTerms(fact, terms, applied);
      std::vector<unsigned> describes;
      for (unsigned d : fresh)
        if (applied.count(d))
          describes.push_back(d);
      assumeFact(FactKind::Contract, fact, describes);
    }
  }
  interval++;
  dynInterval = (dynInterval + 1).simplify();
  intervalStart = state;
}
