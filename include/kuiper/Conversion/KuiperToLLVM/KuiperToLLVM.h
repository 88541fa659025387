//===- KuiperToLLVM.h - kuiper kernels to the LLVM dialect ------*- C++ -*-===//
//
// The pieces of the `convert-kuiper-to-llvm` pass, for pipelines that build
// their own conversion: the type converter, the kernel facts the patterns
// read, the patterns and the conversion target.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_CONVERSION_KUIPERTOLLVM_KUIPERTOLLVM_H
#define KUIPER_CONVERSION_KUIPERTOLLVM_KUIPERTOLLVM_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <array>

namespace kuiper {

class TargetInfo;

/// Kernel buffers become global pointers, shared arrays shared pointers, in
/// the target's address spaces; every other type is kept. Also turns the byte
/// a bool kernel parameter travels in back into an i1.
class KuiperToLLVMTypeConverter : public mlir::TypeConverter {
public:
  KuiperToLLVMTypeConverter(mlir::MLIRContext *ctx,
                            const TargetInfo &targetInfo);
};

/// What the patterns need to know about a kernel that its ops do not carry:
/// its block size, and the dims of each buffer parameter as i64 values.
class KernelInfo {
public:
  /// Records every kernel of `module` and materializes, just before each
  /// `kuiper.shape`, the buffer's dims sign-extended to i64 (once per buffer,
  /// shared by all its accesses). Fails on a buffer without `kuiper.shape`.
  static mlir::FailureOr<KernelInfo> build(mlir::ModuleOp module);

  /// The block size of the kernel `op` is in (lowered or not).
  llvm::ArrayRef<int64_t> getBlockSize(mlir::Operation *op) const;

  /// The i64 dims of the buffer parameter `buffer`, or null if unknown.
  const llvm::SmallVector<mlir::Value> *getBufferDims(mlir::Value buffer) const;

private:
  llvm::StringMap<std::array<int64_t, 3>> blockSizes;
  llvm::DenseMap<mlir::Value, llvm::SmallVector<mlir::Value>> bufferDims;
};

/// Adds the patterns converting kuiper ops, and the math ops `targetInfo` has
/// a library function for, to the LLVM dialect and the target's dialect.
void populateKuiperToLLVMPatterns(const KuiperToLLVMTypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const TargetInfo &targetInfo,
                                  const KernelInfo &kernelInfo);

/// Makes the kuiper dialect, and the math ops of the target's math library,
/// illegal; everything else (LLVM, the target's dialect, arith, scf...) is
/// legal.
void configureKuiperToLLVMConversionTarget(mlir::ConversionTarget &target,
                                           const TargetInfo &targetInfo);

} // namespace kuiper

#endif // KUIPER_CONVERSION_KUIPERTOLLVM_KUIPERTOLLVM_H
