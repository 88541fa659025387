//===- BarrierOpToLLVM.cpp - block barriers -------------------------------===//
#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

using namespace mlir;

namespace kuiper {
namespace {

/// `kuiper.barrier` -> the target's block barrier; its contract goes with it.
struct BarrierOpLowering : KuiperOpToLLVMPattern<BarrierOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    targetInfo.barrier(rewriter, op.getLoc());
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateBarrierOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                     RewritePatternSet &patterns,
                                     const TargetInfo &targetInfo,
                                     const KernelInfo &kernelInfo) {
  patterns.add<BarrierOpLowering>(converter, patterns.getContext(), targetInfo,
                                  kernelInfo);
}

} // namespace kuiper
