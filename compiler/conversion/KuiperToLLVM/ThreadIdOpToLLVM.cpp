//===- ThreadIdOpToLLVM.cpp - thread, block, grid, lane and warp ids ------===//
#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace kuiper {
namespace {

/// `x + y * bx + z * bx * by`, the index lane and warp ids are defined on.
Value createLinearThreadId(OpBuilder &b, Location loc,
                           const TargetInfo &targetInfo,
                           ArrayRef<int64_t> block) {
  auto flags =
      arith::IntegerOverflowFlags::nsw | arith::IntegerOverflowFlags::nuw;
  Value linear = targetInfo.threadId(b, loc, 0, block[0]);
  int64_t stride = block[0];
  for (unsigned dim = 1; dim < 3; ++dim) {
    if (block[dim] > 1) {
      Value scaled = arith::MulIOp::create(
          b, loc, targetInfo.threadId(b, loc, dim, block[dim]),
          createI32Constant(b, loc, stride), flags);
      linear = arith::AddIOp::create(b, loc, linear, scaled, flags);
    }
    stride *= block[dim];
  }
  return linear;
}

/// `kuiper.thread_id` -> the target's thread id, bounded by the block size.
struct ThreadIdOpLowering : KuiperOpToLLVMPattern<ThreadIdOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ThreadIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t dim = op.getDim();
    int64_t blockSize = kernelInfo.getBlockSize(op)[dim];
    rewriter.replaceOp(
        op, targetInfo.threadId(rewriter, op.getLoc(), dim, blockSize));
    return success();
  }
};

/// `kuiper.block_id` -> the target's block id.
struct BlockIdOpLowering : KuiperOpToLLVMPattern<BlockIdOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BlockIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       targetInfo.blockId(rewriter, op.getLoc(), op.getDim()));
    return success();
  }
};

/// `kuiper.grid_dim` -> the target's grid size.
struct GridDimOpLowering : KuiperOpToLLVMPattern<GridDimOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(GridDimOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       targetInfo.gridDim(rewriter, op.getLoc(), op.getDim()));
    return success();
  }
};

/// `kuiper.lane_id` -> the linear thread id modulo the warp size.
struct LaneIdOpLowering : KuiperOpToLLVMPattern<LaneIdOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LaneIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value linear = createLinearThreadId(rewriter, loc, targetInfo,
                                        kernelInfo.getBlockSize(op));
    Value laneMask =
        createI32Constant(rewriter, loc, targetInfo.getWarpSize() - 1);
    rewriter.replaceOpWithNewOp<arith::AndIOp>(op, linear, laneMask);
    return success();
  }
};

/// `kuiper.warp_id` -> the linear thread id divided by the warp size.
struct WarpIdOpLowering : KuiperOpToLLVMPattern<WarpIdOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(WarpIdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value linear = createLinearThreadId(rewriter, loc, targetInfo,
                                        kernelInfo.getBlockSize(op));
    Value shift = createI32Constant(rewriter, loc,
                                    llvm::Log2_32(targetInfo.getWarpSize()));
    rewriter.replaceOpWithNewOp<arith::ShRUIOp>(op, linear, shift);
    return success();
  }
};

} // namespace

void populateThreadIdOpToLLVMPatterns(
    const KuiperToLLVMTypeConverter &converter, RewritePatternSet &patterns,
    const TargetInfo &targetInfo, const KernelInfo &kernelInfo) {
  patterns.add<ThreadIdOpLowering, BlockIdOpLowering, GridDimOpLowering,
               LaneIdOpLowering, WarpIdOpLowering>(
      converter, patterns.getContext(), targetInfo, kernelInfo);
}

} // namespace kuiper
