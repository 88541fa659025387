//===- WarpOpToLLVM.cpp - warp shuffles, votes and syncwarp ---------------===//
#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kuiper {
namespace {

ShuffleKind getShuffleKind(ShuffleMode mode) {
  switch (mode) {
  case ShuffleMode::Down:
    return ShuffleKind::Down;
  case ShuffleMode::Up:
    return ShuffleKind::Up;
  case ShuffleMode::Xor:
    return ShuffleKind::Xor;
  case ShuffleMode::Idx:
    return ShuffleKind::Idx;
  }
  llvm_unreachable("unknown shuffle mode");
}

VoteKind getVoteKind(VoteMode mode) {
  switch (mode) {
  case VoteMode::Ballot:
    return VoteKind::Ballot;
  case VoteMode::Any:
    return VoteKind::Any;
  case VoteMode::All:
    return VoteKind::All;
  }
  llvm_unreachable("unknown vote mode");
}

/// `kuiper.shfl` -> target shuffles of 32-bit pieces: narrow values are
/// widened, 64-bit ones move as two halves.
struct ShuffleOpLowering : KuiperOpToLLVMPattern<ShuffleOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ShuffleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    ShuffleKind kind = getShuffleKind(op.getMode());
    Value mask = createI32LaneMask(rewriter, loc, adaptor.getMask());
    auto shuffle32 = [&](Value piece) {
      return targetInfo.shuffle(rewriter, loc, kind, mask, piece,
                                adaptor.getDelta());
    };
    Type type = op.getType();
    if (type.isInteger(32) || type.isF32()) {
      rewriter.replaceOp(op, shuffle32(adaptor.getValue()));
      return success();
    }
    unsigned width = type.getIntOrFloatBitWidth();
    Type intType = rewriter.getIntegerType(width);
    Value bits = adaptor.getValue();
    if (isa<FloatType>(type))
      bits = arith::BitcastOp::create(rewriter, loc, intType, bits);
    Value result = width < 32 ? shuffleNarrow(rewriter, loc, bits, shuffle32)
                              : shuffleWide(rewriter, loc, bits, shuffle32);
    if (isa<FloatType>(type))
      result = arith::BitcastOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  using Shuffle32 = llvm::function_ref<Value(Value)>;

  static Value shuffleNarrow(OpBuilder &b, Location loc, Value bits,
                             Shuffle32 shuffle32) {
    Value wide = arith::ExtUIOp::create(b, loc, b.getI32Type(), bits);
    return arith::TruncIOp::create(b, loc, bits.getType(), shuffle32(wide));
  }

  static Value shuffleWide(OpBuilder &b, Location loc, Value bits,
                           Shuffle32 shuffle32) {
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value c32 = createI64Constant(b, loc, 32);
    Value lo = arith::TruncIOp::create(b, loc, i32, bits);
    Value hi = arith::TruncIOp::create(
        b, loc, i32, arith::ShRUIOp::create(b, loc, bits, c32));
    Value newLo = arith::ExtUIOp::create(b, loc, i64, shuffle32(lo));
    Value newHi = arith::ExtUIOp::create(b, loc, i64, shuffle32(hi));
    return arith::OrIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, newHi, c32), newLo);
  }
};

/// `kuiper.vote` -> the target's warp vote.
struct VoteOpLowering : KuiperOpToLLVMPattern<VoteOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(VoteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value mask = createI32LaneMask(rewriter, loc, adaptor.getMask());
    rewriter.replaceOp(op,
                       targetInfo.vote(rewriter, loc, getVoteKind(op.getMode()),
                                       op.getType(), mask, adaptor.getPred()));
    return success();
  }
};

/// `kuiper.syncwarp` -> the target's warp synchronization.
struct SyncWarpOpLowering : KuiperOpToLLVMPattern<SyncWarpOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(SyncWarpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    targetInfo.syncWarp(rewriter, loc,
                        createI32LaneMask(rewriter, loc, adaptor.getMask()));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateWarpOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo,
                                  const KernelInfo &kernelInfo) {
  patterns.add<ShuffleOpLowering, VoteOpLowering, SyncWarpOpLowering>(
      converter, patterns.getContext(), targetInfo, kernelInfo);
}

} // namespace kuiper
