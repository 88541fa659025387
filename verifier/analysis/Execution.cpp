//===- Execution.cpp - One op of the symbolic thread ------------------------===//
#include "verifier/analysis/SymExec.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

// Every op the verifier gives a meaning to, by family: the dispatch below and
// hasSemantics() read the same lists, so an op is either executed or reported
// as not modelled (an unknown verdict), never skipped.

static bool isIntegerOp(Operation *op) {
  return isa<arith::ConstantOp,
             arith::AddIOp,
             arith::SubIOp,
             arith::MulIOp,
             arith::DivSIOp,
             arith::RemSIOp,
             arith::ShLIOp,
             arith::ShRSIOp,
             arith::AndIOp,
             arith::OrIOp,
             arith::XOrIOp,
             arith::MinSIOp,
             arith::MaxSIOp,
             arith::DivUIOp,
             arith::RemUIOp,
             arith::ShRUIOp,
             arith::MinUIOp,
             arith::MaxUIOp,
             arith::CmpIOp,
             arith::SelectOp,
             arith::ExtSIOp,
             arith::ExtUIOp,
             arith::TruncIOp>(op);
}

static bool isFloatOp(Operation *op) {
  return isa<arith::FPToUIOp,
             arith::FPToSIOp,
             arith::SIToFPOp,
             arith::UIToFPOp,
             arith::ExtFOp,
             arith::TruncFOp,
             arith::AddFOp,
             arith::SubFOp,
             arith::MulFOp,
             arith::DivFOp,
             arith::NegFOp,
             arith::MinNumFOp,
             arith::MaxNumFOp,
             arith::MinimumFOp,
             arith::MaximumFOp,
             arith::CmpFOp,
             arith::RemFOp,
             math::ExpOp,
             math::LogOp,
             math::TanhOp,
             math::ErfOp,
             math::RsqrtOp,
             math::SqrtOp,
             math::AbsFOp,
             math::FloorOp,
             math::CeilOp>(op);
}

static bool isStructuredOp(Operation *op) {
  return isa<memref::AllocaOp,
             memref::LoadOp,
             memref::StoreOp,
             scf::IfOp,
             ForOp,
             WhileOp>(op);
}

static bool isHeaderOp(Operation *op) {
  return isa<ShapeOp,
             LaunchOp,
             RequiresOp,
             EnsuresOp,
             AccessOp>(op);
}

static bool isSpecOp(Operation *op) {
  return isa<AssertOp,
             AssumeOp,
             ForallOp,
             ExistsOp,
             SumOp,
             ReduceOp,
             OldOp,
             InvariantOp>(op);
}

static bool isThreadOp(Operation *op) {
  return isa<ThreadIdOp,
             BlockIdOp,
             GridDimOp,
             LaneIdOp,
             WarpIdOp>(op);
}

static bool isMemoryOp(Operation *op) {
  return isa<SharedAllocOp,
             AlignedOp,
             LoadOp,
             StoreOp,
             AtomicOp>(op);
}

static bool isCollectiveOp(Operation *op) {
  return isa<BarrierOp,
             ShuffleOp,
             SyncWarpOp,
             VoteOp>(op);
}

bool kuiper::verifier::hasSemantics(Operation *op) {
  return isIntegerOp(op) || isFloatOp(op) || isStructuredOp(op) || isHeaderOp(op) || isSpecOp(op) || isThreadOp(op) || isMemoryOp(op) || isCollectiveOp(op);
}

void SymExec::execOp(Operation &op) {
  if (!unsupportedReason.empty() || pastDeadline(&op))
    return;
  Operation *outer = currentOp;
  currentOp = &op;
  llvm::scope_exit restore([&] { currentOp = outer; });
  bool handled = false;
  if (isIntegerOp(&op))
    handled = execIntegerOp(op);
  if (isFloatOp(&op))
    handled = execFloatOp(op);
  if (isStructuredOp(&op))
    handled = execStructuredOp(op);
  if (isHeaderOp(&op))
    handled = execHeaderOp(op);
  if (isSpecOp(&op))
    handled = execSpecOp(op);
  if (isThreadOp(&op))
    handled = execThreadOp(op);
  if (isMemoryOp(&op))
    handled = execMemoryOp(op);
  if (isCollectiveOp(&op))
    handled = execCollectiveOp(op);
  if (!handled)
    unsupported(&op, "operation not modelled by the verifier");
}
