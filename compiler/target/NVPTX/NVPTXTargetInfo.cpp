//===- NVPTXTargetInfo.cpp - kuiper lowering for NVIDIA GPUs --------------===//
//
// Special registers, barriers and warp collectives as NVVM dialect ops.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Target/NVPTX/NVPTXTargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace kuiper {
namespace {

constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;
/// CUDA's `c` operand of shfl.sync: lanes past it read their own value.
constexpr int64_t kShuffleClampUp = 0;
constexpr int64_t kShuffleClampOthers = 0x1f;

NVVM::ShflKind getShflKind(ShuffleKind kind) {
  switch (kind) {
  case ShuffleKind::Down:
    return NVVM::ShflKind::down;
  case ShuffleKind::Up:
    return NVVM::ShflKind::up;
  case ShuffleKind::Xor:
    return NVVM::ShflKind::bfly;
  case ShuffleKind::Idx:
    return NVVM::ShflKind::idx;
  }
  llvm_unreachable("unknown shuffle kind");
}

NVVM::VoteSyncKind getVoteSyncKind(VoteKind kind) {
  switch (kind) {
  case VoteKind::Ballot:
    return NVVM::VoteSyncKind::ballot;
  case VoteKind::Any:
    return NVVM::VoteSyncKind::any;
  case VoteKind::All:
    return NVVM::VoteSyncKind::all;
  }
  llvm_unreachable("unknown vote kind");
}

} // namespace

Value NVPTXTargetInfo::threadId(OpBuilder &b, Location loc, unsigned dim,
                                int64_t blockSize) const {
  Type i32 = b.getI32Type();
  auto range = LLVM::ConstantRangeAttr::get(b.getContext(), llvm::APInt(32, 0),
                                            llvm::APInt(32, blockSize));
  switch (dim) {
  case 0:
    return NVVM::ThreadIdXOp::create(b, loc, i32, range);
  case 1:
    return NVVM::ThreadIdYOp::create(b, loc, i32, range);
  default:
    return NVVM::ThreadIdZOp::create(b, loc, i32, range);
  }
}

Value NVPTXTargetInfo::blockId(OpBuilder &b, Location loc, unsigned dim) const {
  Type i32 = b.getI32Type();
  switch (dim) {
  case 0:
    return NVVM::BlockIdXOp::create(b, loc, i32);
  case 1:
    return NVVM::BlockIdYOp::create(b, loc, i32);
  default:
    return NVVM::BlockIdZOp::create(b, loc, i32);
  }
}

Value NVPTXTargetInfo::gridDim(OpBuilder &b, Location loc, unsigned dim) const {
  Type i32 = b.getI32Type();
  switch (dim) {
  case 0:
    return NVVM::GridDimXOp::create(b, loc, i32);
  case 1:
    return NVVM::GridDimYOp::create(b, loc, i32);
  default:
    return NVVM::GridDimZOp::create(b, loc, i32);
  }
}

void NVPTXTargetInfo::barrier(OpBuilder &b, Location loc) const {
  NVVM::Barrier0Op::create(b, loc);
}

Value NVPTXTargetInfo::shuffle(OpBuilder &b, Location loc, ShuffleKind kind,
                               Value mask, Value value, Value delta) const {
  int64_t clamp =
      kind == ShuffleKind::Up ? kShuffleClampUp : kShuffleClampOthers;
  Value clampValue = arith::ConstantIntOp::create(b, loc, clamp, 32);
  return NVVM::ShflOp::create(b, loc, value.getType(), mask, value, delta,
                              clampValue, getShflKind(kind), UnitAttr());
}

Value NVPTXTargetInfo::vote(OpBuilder &b, Location loc, VoteKind kind,
                            Type resultType, Value mask, Value pred) const {
  return NVVM::VoteSyncOp::create(b, loc, resultType, mask, pred,
                                  getVoteSyncKind(kind));
}

void NVPTXTargetInfo::syncWarp(OpBuilder &b, Location loc, Value mask) const {
  NVVM::SyncWarpOp::create(b, loc, mask);
}

unsigned NVPTXTargetInfo::getAddressSpace(MemorySpace space) const {
  return space == MemorySpace::Shared ? kSharedAddressSpace
                                      : kGlobalAddressSpace;
}

StringRef NVPTXTargetInfo::getAtomicSyncScope(MemorySpace space) const {
  return space == MemorySpace::Shared ? "block" : "device";
}

/// `nvvm.kernel` and `nvvm.reqntid`: the block size is exact, so NVPTX
/// emits `.reqntid` and LLVM knows the range of every thread id.
void NVPTXTargetInfo::markAsKernel(LLVM::LLVMFuncOp func,
                                   ArrayRef<int64_t> blockSize) const {
  Builder b(func.getContext());
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(), b.getUnitAttr());
  SmallVector<int32_t> reqntid(blockSize.begin(), blockSize.end());
  func->setAttr(NVVM::NVVMDialect::getReqntidAttrName(),
                b.getDenseI32ArrayAttr(reqntid));
}

StringRef NVPTXTargetInfo::getMathFunctionName(StringRef opName,
                                               bool isDouble) const {
  return getLibdeviceFunctionName(opName, isDouble);
}

std::unique_ptr<TargetInfo> createTargetInfo(StringRef name) {
  if (name == "nvptx")
    return std::make_unique<NVPTXTargetInfo>();
  return nullptr;
}

} // namespace kuiper
