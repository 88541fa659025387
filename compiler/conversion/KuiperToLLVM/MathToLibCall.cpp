//===- MathToLibCall.cpp - math ops as calls to the target's library ------===//
//
// The target names the function (TargetInfo::getMathFunctionName, one table);
// math ops it has none for are left to the upstream math to LLVM conversion.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "kuiper/Conversion/KuiperToLLVM/KuiperToLLVM.h"
#include "kuiper/Conversion/Passes.h"
#include "kuiper/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace kuiper {
#define GEN_PASS_DEF_CONVERTMATHTOLIBCALL
#include "kuiper/Conversion/Passes.h.inc"
} // namespace kuiper

using namespace mlir;

namespace kuiper {
namespace {

/// A scalar float math op -> a call of the target's math function in f32 or
/// f64; f16/bf16 go through f32.
struct MathOpToLibCall : ConversionPattern {
  MathOpToLibCall(const KuiperToLLVMTypeConverter &converter, MLIRContext *ctx,
                  const TargetInfo &targetInfo)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1, ctx),
        targetInfo(targetInfo) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (!isLibraryMathOp(op, targetInfo))
      return failure();
    StringRef opName = op->getName().getStringRef();
    if (op->getNumResults() != 1)
      return op->emitError("unexpected math op form");
    auto type = dyn_cast<FloatType>(op->getResult(0).getType());
    if (!type)
      return op->emitError("only scalar float math is supported");

    Location loc = op->getLoc();
    bool isDouble = type.isF64();
    Type callType =
        isDouble ? Type(rewriter.getF64Type()) : rewriter.getF32Type();
    SmallVector<Value> args;
    for (Value operand : operands)
      args.push_back(
          operand.getType() == callType
              ? operand
              : arith::ExtFOp::create(rewriter, loc, callType, operand)
                    .getResult());
    SmallVector<Type> argTypes(args.size(), callType);
    LLVM::LLVMFuncOp fn =
        getOrDeclareFunction(rewriter, op->getParentOfType<ModuleOp>(),
                             targetInfo.getMathFunctionName(opName, isDouble),
                             LLVM::LLVMFunctionType::get(callType, argTypes));
    Value result = LLVM::CallOp::create(rewriter, loc, fn, args).getResult();
    if (result.getType() != type)
      result = arith::TruncFOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

private:
  const TargetInfo &targetInfo;
};

/// The math ops of the target's library as calls, before the canonicalizer
/// can fold them with the host's (Passes.td).
struct ConvertMathToLibCallPass
    : public impl::ConvertMathToLibCallBase<ConvertMathToLibCallPass> {
  using ConvertMathToLibCallBase::ConvertMathToLibCallBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::unique_ptr<TargetInfo> targetInfo = targetInfoFor(module, target);
    if (!targetInfo)
      return signalPassFailure();
    MLIRContext *ctx = &getContext();
    KuiperToLLVMTypeConverter converter(ctx, *targetInfo);
    RewritePatternSet patterns(ctx);
    populateMathToLibCallPatterns(converter, patterns, *targetInfo);
    ConversionTarget conversionTarget(*ctx);
    conversionTarget.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    conversionTarget.addLegalDialect<LLVM::LLVMDialect, arith::ArithDialect>();
    conversionTarget.addDynamicallyLegalDialect<math::MathDialect>(
        [&](Operation *op) { return !isLibraryMathOp(op, *targetInfo); });
    if (failed(applyPartialConversion(module, conversionTarget, std::move(patterns),
                                      conversionWithoutFolding())))
      signalPassFailure();
  }
};

} // namespace

bool isLibraryMathOp(Operation *op, const TargetInfo &targetInfo) {
  return isa<math::MathDialect>(op->getDialect()) &&
         !targetInfo.getMathFunctionName(op->getName().getStringRef(), /*isDouble=*/false)
              .empty();
}

void populateMathToLibCallPatterns(const KuiperToLLVMTypeConverter &converter,
                                   RewritePatternSet &patterns,
                                   const TargetInfo &targetInfo) {
  patterns.add<MathOpToLibCall>(converter, patterns.getContext(), targetInfo);
}

} // namespace kuiper
