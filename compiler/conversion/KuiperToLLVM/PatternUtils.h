//===- PatternUtils.h - shared by the kuiper to LLVM patterns ---*- C++ -*-===//
#ifndef KUIPER_CONVERSION_KUIPERTOLLVM_PATTERNUTILS_H
#define KUIPER_CONVERSION_KUIPERTOLLVM_PATTERNUTILS_H

#include "kuiper/Conversion/KuiperToLLVM/KuiperToLLVM.h"
#include "kuiper/Target/TargetInfo.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kuiper {

/// A conversion pattern for a kuiper op, with the target and kernel facts.
template <typename OpTy>
class KuiperOpToLLVMPattern : public mlir::OpConversionPattern<OpTy> {
public:
  KuiperOpToLLVMPattern(const KuiperToLLVMTypeConverter &converter,
                        mlir::MLIRContext *ctx, const TargetInfo &targetInfo,
                        const KernelInfo &kernelInfo)
      : mlir::OpConversionPattern<OpTy>(converter, ctx), targetInfo(targetInfo),
        kernelInfo(kernelInfo) {}

protected:
  const TargetInfo &targetInfo;
  const KernelInfo &kernelInfo;
};

/// An i32 constant.
mlir::Value createI32Constant(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t value);

/// An i64 constant.
mlir::Value createI64Constant(mlir::OpBuilder &b, mlir::Location loc,
                              int64_t value);

/// Sign-extends (or truncates) an integer or index to i64.
mlir::Value createI64Index(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value value);

/// Zero-extends (or truncates) a lane mask to i32; a null mask is the full
/// warp, -1.
mlir::Value createI32LaneMask(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value mask);

/// Returns (declaring it at the end of `module` on first use) the external
/// function `name`.
mlir::LLVM::LLVMFuncOp getOrDeclareFunction(mlir::OpBuilder &b,
                                            mlir::ModuleOp module,
                                            llvm::StringRef name,
                                            mlir::LLVM::LLVMFunctionType type);

/// The GPU target named `name`, or null after an error on `module` (for the
/// passes' `target` option).
std::unique_ptr<TargetInfo> targetInfoFor(mlir::ModuleOp module, llvm::StringRef name);

/// The conversions of this folder never fold an op before converting it: the
/// driver's default folds `math.erf` of a constant with the host's libm,
/// while the proof and the PTX call libdevice (Passes.td).
mlir::ConversionConfig conversionWithoutFolding();

/// Kernel signature, return, `kuiper.shape` and `kuiper.launch`.
void populateKernelOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo,
                                    const KernelInfo &kernelInfo);

/// Loads, stores, atomics and shared arrays.
void populateMemoryOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns,
                                    const TargetInfo &targetInfo,
                                    const KernelInfo &kernelInfo);

/// Thread, block, grid, lane and warp ids.
void populateThreadIdOpToLLVMPatterns(
    const KuiperToLLVMTypeConverter &converter,
    mlir::RewritePatternSet &patterns, const TargetInfo &targetInfo,
    const KernelInfo &kernelInfo);

/// Block barriers.
void populateBarrierOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns,
                                     const TargetInfo &targetInfo,
                                     const KernelInfo &kernelInfo);

/// Warp shuffles, votes and syncwarp.
void populateWarpOpToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo,
                                  const KernelInfo &kernelInfo);

/// Math ops as calls to the target's math library.
/// Whether `op` is a math op the target's library has a function for (one
/// that populateMathToLibCallPatterns converts).
bool isLibraryMathOp(mlir::Operation *op, const TargetInfo &targetInfo);

void populateMathToLibCallPatterns(const KuiperToLLVMTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const TargetInfo &targetInfo);

} // namespace kuiper

#endif // KUIPER_CONVERSION_KUIPERTOLLVM_PATTERNUTILS_H
