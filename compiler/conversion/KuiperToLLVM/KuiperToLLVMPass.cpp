//===- KuiperToLLVMPass.cpp - the convert-kuiper-to-llvm pass -------------===//
//
// Collects the kernel facts, then converts every kuiper op (and the math ops of
// the target's library) with the patterns of this folder in one partial
// conversion. arith, scf, cf and the other math ops stay for the upstream
// conversions.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Conversion/KuiperToLLVM/KuiperToLLVM.h"
#include "kuiper/Conversion/Passes.h"

#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/UB/IR/UBOps.h"

namespace kuiper {
#define GEN_PASS_DEF_CONVERTKUIPERTOLLVM
#include "kuiper/Conversion/Passes.h.inc"
} // namespace kuiper

using namespace mlir;

namespace kuiper {

void populateKuiperToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                  RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo,
                                  const KernelInfo &kernelInfo) {
  populateKernelOpToLLVMPatterns(converter, patterns, targetInfo, kernelInfo);
  populateMemoryOpToLLVMPatterns(converter, patterns, targetInfo, kernelInfo);
  populateThreadIdOpToLLVMPatterns(converter, patterns, targetInfo, kernelInfo);
  populateBarrierOpToLLVMPatterns(converter, patterns, targetInfo, kernelInfo);
  populateWarpOpToLLVMPatterns(converter, patterns, targetInfo, kernelInfo);
  populateMathToLibCallPatterns(converter, patterns, targetInfo);
}

void configureKuiperToLLVMConversionTarget(ConversionTarget &target,
                                           const TargetInfo &targetInfo) {
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  target.addIllegalDialect<KuiperDialect>();
  target
      .addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect, scf::SCFDialect,
                       cf::ControlFlowDialect, ub::UBDialect>();
  target.addDynamicallyLegalDialect<math::MathDialect>(
      [&targetInfo](Operation *op) { return !isLibraryMathOp(op, targetInfo); });
}

namespace {

struct ConvertKuiperToLLVMPass
    : public impl::ConvertKuiperToLLVMBase<ConvertKuiperToLLVMPass> {
  using ConvertKuiperToLLVMBase::ConvertKuiperToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<TargetInfo> targetInfo = targetInfoFor(module, target);
    if (!targetInfo)
      return signalPassFailure();
    FailureOr<KernelInfo> kernelInfo = KernelInfo::build(module);
    if (failed(kernelInfo))
      return signalPassFailure();
    // A truncf to bf16 names round-to-nearest-even (the default) only so that
    // the canonicalizer keeps `truncf(sitofp x)` two roundings (MLIRGen); with
    // the mode named, arith-to-llvm would emit a constrained fptrunc, which
    // NVPTX cannot select below sm_90. (After the canonicalizer ran.)
    module.walk([](arith::TruncFOp op) {
      if (op.getRoundingmode() == arith::RoundingMode::to_nearest_even)
        op.removeRoundingmodeAttr();
    });

    MLIRContext *ctx = &getContext();
    KuiperToLLVMTypeConverter converter(ctx, *targetInfo);
    RewritePatternSet patterns(ctx);
    populateKuiperToLLVMPatterns(converter, patterns, *targetInfo, *kernelInfo);
    ConversionTarget conversionTarget(*ctx);
    configureKuiperToLLVMConversionTarget(conversionTarget, *targetInfo);
    if (failed(applyPartialConversion(module, conversionTarget, std::move(patterns),
                                      conversionWithoutFolding())))
      signalPassFailure();
  }
};

} // namespace
} // namespace kuiper
