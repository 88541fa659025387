//===- EraseSpecs.cpp - drop specifications, make loops plain scf ---------===//
//
// The verifier has already read the contracts; code generation only needs the
// executable part of a kernel. This pass erases every specification op with
// its region and rewrites the kuiper loops as scf loops.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Transforms/Passes.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "kuiper-erase-specs"

namespace kuiper {
#define GEN_PASS_DEF_KUIPERERASESPECS
#include "kuiper/Transforms/Passes.h.inc"
} // namespace kuiper

using namespace mlir;

namespace kuiper {
namespace {

/// Empties `region`, dropping the references its ops hold first.
void clearRegion(Region &region) {
  region.dropAllReferences();
  region.getBlocks().clear();
}

/// `kuiper.for %lo to %hi step %s` -> `scf.for` (signed compare, as
/// kuiper.for).
void convertFor(IRRewriter &rewriter, ForOp op) {
  rewriter.setInsertionPoint(op);
  auto loop = scf::ForOp::create(rewriter, op.getLoc(), op.getLo(), op.getHi(),
                                 op.getStep());
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  Block &source = op.getBody().front();
  Operation *oldYield = source.getTerminator();
  rewriter.eraseOp(oldYield);
  rewriter.inlineBlockBefore(&source, yield, {loop.getInductionVar()});
  rewriter.eraseOp(op);
}

/// `kuiper.while cond {..} do {..}` -> `scf.while` without loop-carried values.
void convertWhile(IRRewriter &rewriter, WhileOp op) {
  rewriter.setInsertionPoint(op);
  auto loop =
      scf::WhileOp::create(rewriter, op.getLoc(), TypeRange{}, ValueRange{});
  rewriter.inlineRegionBefore(op.getCond(), loop.getBefore(),
                              loop.getBefore().end());
  rewriter.inlineRegionBefore(op.getBody(), loop.getAfter(),
                              loop.getAfter().end());

  auto condYield = cast<YieldOp>(loop.getBefore().front().getTerminator());
  rewriter.setInsertionPoint(condYield);
  scf::ConditionOp::create(rewriter, condYield.getLoc(),
                           condYield.getValues().front(), ValueRange{});
  rewriter.eraseOp(condYield);

  auto bodyYield = cast<YieldOp>(loop.getAfter().front().getTerminator());
  rewriter.setInsertionPoint(bodyYield);
  scf::YieldOp::create(rewriter, bodyYield.getLoc());
  rewriter.eraseOp(bodyYield);
  rewriter.eraseOp(op);
}

/// Empties contracts and invariants, and returns the kuiper loops. Their
/// regions hold spec ops whose values only their own terminators use.
SmallVector<Operation *> clearContractsAndInvariants(ModuleOp module) {
  SmallVector<Operation *> loops;
  module.walk([&](Operation *op) {
    if (auto barrier = dyn_cast<BarrierOp>(op))
      clearRegion(barrier.getContract());
    else if (auto loop = dyn_cast<ForOp>(op))
      clearRegion(loop.getInvariants()), loops.push_back(op);
    else if (auto loop = dyn_cast<WhileOp>(op))
      clearRegion(loop.getInvariants()), loops.push_back(op);
  });
  return loops;
}

/// Erases the spec ops outside contracts; fails if executable code uses one.
LogicalResult eraseSpecOps(ModuleOp module) {
  SmallVector<Operation *> specs;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isSpecOnly(op)) {
      specs.push_back(op);
      return WalkResult::skip();
    }
    return WalkResult::advance();
  });
  for (Operation *op : llvm::reverse(specs)) {
    if (op->getNumResults() != 0 && !op->use_empty())
      return op->emitError("specification value used by executable code");
    op->dropAllReferences();
    op->erase();
  }
  LLVM_DEBUG(llvm::dbgs() << "erased " << specs.size() << " spec ops\n");
  return success();
}

struct KuiperEraseSpecsPass
    : public impl::KuiperEraseSpecsBase<KuiperEraseSpecsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<Operation *> loops = clearContractsAndInvariants(module);
    if (failed(eraseSpecOps(module)))
      return signalPassFailure();
    IRRewriter rewriter(module.getContext());
    for (Operation *op : loops) {
      if (auto loop = dyn_cast<ForOp>(op))
        convertFor(rewriter, loop);
      else
        convertWhile(rewriter, cast<WhileOp>(op));
    }
  }
};

} // namespace

} // namespace kuiper
