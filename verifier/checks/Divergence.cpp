//===- Divergence.cpp - Barrier divergence and warp convergence -------------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::checkUniformity() {
  auto A = renamedThread("@A"), B = renamedThread("@B");
  z3::expr sameBlock = A[3] == B[3] && A[4] == B[4] && A[5] == B[5];
  auto lin = [&](const std::vector<z3::expr> &t) { return linearOf(t); };
  std::vector<Observable> obs = pairObservables(A, B);
  // Both threads are taken at the same loop iterations: a barrier or a
  // collective in a loop is reached in lockstep, iteration by iteration.
  z3::expr savedPc = pc;
  pc = z.bool_val(true);
  for (auto &[bpc, loc] : barriers) {
    Obligation o;
    o.id = CheckId::BarrierDivergence;
    o.loc = loc;
    o.message = "every thread of the block reaches this barrier, or none does";
    o.failMessage = "barrier reached by thread A but not by thread B of the same block";
    o.assumptions = {threadRange(A), threadRange(B), sameBlock, renamed(bpc, {}, "@A", false)};
    o.goal = renamed(bpc, {}, "@B", false);
    o.observables = obs;
    obligations.push_back(o);
  }
  int64_t size = block[0] * block[1] * block[2];
  for (auto &[cpc, loc, mask] : collectives) {
    Obligation o;
    o.id = CheckId::WarpConvergence;
    o.loc = loc;
    z3::expr sameWarp = sameBlock && lin(A) / z.int_val(32) == lin(B) / z.int_val(32);
    o.assumptions = {threadRange(A), threadRange(B), sameWarp, renamed(cpc, {}, "@A", false)};
    o.observables = obs;
    if (mask) {
      // The lanes that arrive are exactly the lanes the mask names.
      o.message = "the mask names exactly the lanes that take part in this collective";
      o.failMessage = "the mask of this warp collective differs from the set of active lanes "
                      "(lane B is active but not named, or named but not active)";
      z3::expr maskA = renamed(*mask, {}, "@A", false);
      z3::expr laneB = lin(B) - (lin(B) / z.int_val(32)) * z.int_val(32);
      o.goal = renamed(cpc, {}, "@B", false) == maskBit(maskA, laneB);
      obligations.push_back(o);
      continue;
    }
    o.message = "all 32 lanes of the warp take part in this collective";
    o.failMessage = "warp collective without a mask reached by lane A but not by lane B of the same warp";
    o.goal = renamed(cpc, {}, "@B", false);
    obligations.push_back(o);
    if (size % 32 != 0) {
      // A block whose size is no multiple of 32 has a partial last warp: a
      // mask-less collective there names lanes that do not exist.
      Obligation partial = o;
      partial.assumptions = {threadRange(A), renamed(cpc, {}, "@A", false)};
      partial.message = "no thread of the partial last warp reaches this mask-less collective";
      partial.failMessage =
          "warp collective without a mask reached in the block's partial last warp (a block of " +
          std::to_string(size) + " threads: lanes " + std::to_string(size % 32) +
          "..31 of its last warp do not exist); give it the mask of the lanes that exist";
      partial.goal = lin(A) / z.int_val(32) < z.int_val(size / 32);
      obligations.push_back(partial);
    }
  }
  pc = savedPc;
}
