//===- KernelOpToLLVM.cpp - kuiper.kernel to a GPU kernel llvm.func -------===//
//
// The kernel ABI of docs/abi.md: source-order parameters, buffers as
// `noalias noundef` global pointers (`readonly` for "in" buffers), scalars by
// value, bools as one byte; the target's kernel attributes from the block size.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

using namespace mlir;

namespace kuiper {
namespace {

/// `kuiper.kernel` -> a kernel `llvm.func` holding the kernel's body.
struct KernelOpLowering : KuiperOpToLLVMPattern<KernelOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(KernelOp kernel, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &entry = kernel.getBody().front();
    TypeConverter::SignatureConversion signature(entry.getNumArguments());
    for (BlockArgument arg : entry.getArguments())
      signature.addInputs(arg.getArgNumber(), getParameterType(arg.getType()));
    auto fnType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(getContext()), signature.getConvertedTypes());
    auto func = LLVM::LLVMFuncOp::create(rewriter, kernel.getLoc(),
                                         kernel.getSymName(), fnType);
    targetInfo.markAsKernel(func, kernel.getBlock());
    setBufferAttributes(func, entry, rewriter);
    rewriter.inlineRegionBefore(kernel.getBody(), func.getBody(), func.end());
    if (failed(rewriter.convertRegionTypes(&func.getBody(), *getTypeConverter(),
                                           &signature)))
      return failure();
    rewriter.eraseOp(kernel);
    return success();
  }

private:
  /// Buffers become pointers; a bool travels as one byte.
  Type getParameterType(Type type) const {
    if (type.isInteger(1))
      return IntegerType::get(type.getContext(), 8);
    return getTypeConverter()->convertType(type);
  }

  static void setBufferAttributes(LLVM::LLVMFuncOp func, Block &entry,
                                  OpBuilder &b) {
    for (BlockArgument arg : entry.getArguments()) {
      auto buffer = dyn_cast<BufferType>(arg.getType());
      if (!buffer)
        continue;
      unsigned index = arg.getArgNumber();
      func.setArgAttr(index, LLVM::LLVMDialect::getNoAliasAttrName(),
                      b.getUnitAttr());
      func.setArgAttr(index, LLVM::LLVMDialect::getNoUndefAttrName(),
                      b.getUnitAttr());
      if (buffer.getAccess() == BufferAccess::In)
        func.setArgAttr(index, LLVM::LLVMDialect::getReadonlyAttrName(),
                        b.getUnitAttr());
    }
  }
};

/// `kuiper.return` -> `llvm.return`.
struct ReturnOpLowering : KuiperOpToLLVMPattern<ReturnOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ReturnOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
    return success();
  }
};

/// `kuiper.shape` is erased: KernelInfo holds the dims the accesses use.
struct ShapeOpLowering : KuiperOpToLLVMPattern<ShapeOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// `kuiper.launch` is erased: the grid is the launcher's business.
struct LaunchOpLowering : KuiperOpToLLVMPattern<LaunchOp> {
  using KuiperOpToLLVMPattern::KuiperOpToLLVMPattern;

  LogicalResult
  matchAndRewrite(LaunchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateKernelOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                    RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo,
                                    const KernelInfo &kernelInfo) {
  patterns.add<KernelOpLowering, ReturnOpLowering, ShapeOpLowering,
               LaunchOpLowering>(converter, patterns.getContext(), targetInfo,
                                 kernelInfo);
}

} // namespace kuiper
