//===- NVPTXTargetInfo.h - kuiper lowering for NVIDIA GPUs ------*- C++ -*-===//
#ifndef KUIPER_TARGET_NVPTX_NVPTXTARGETINFO_H
#define KUIPER_TARGET_NVPTX_NVPTXTARGETINFO_H

#include "kuiper/Target/TargetInfo.h"

namespace kuiper {

/// NVIDIA GPUs through the NVVM dialect and libdevice.
class NVPTXTargetInfo : public TargetInfo {
public:
  llvm::StringRef getName() const override { return "nvptx"; }
  unsigned getWarpSize() const override { return 32; }
  mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc, unsigned dim,
                       int64_t blockSize) const override;
  mlir::Value blockId(mlir::OpBuilder &b, mlir::Location loc,
                      unsigned dim) const override;
  mlir::Value gridDim(mlir::OpBuilder &b, mlir::Location loc,
                      unsigned dim) const override;
  void barrier(mlir::OpBuilder &b, mlir::Location loc) const override;
  mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc, ShuffleKind kind,
                      mlir::Value mask, mlir::Value value,
                      mlir::Value delta) const override;
  mlir::Value vote(mlir::OpBuilder &b, mlir::Location loc, VoteKind kind,
                   mlir::Type resultType, mlir::Value mask,
                   mlir::Value pred) const override;
  void syncWarp(mlir::OpBuilder &b, mlir::Location loc,
                mlir::Value mask) const override;
  unsigned getAddressSpace(MemorySpace space) const override;
  llvm::StringRef getAtomicSyncScope(MemorySpace space) const override;
  void markAsKernel(mlir::LLVM::LLVMFuncOp func,
                    llvm::ArrayRef<int64_t> blockSize) const override;
  llvm::StringRef getMathFunctionName(llvm::StringRef opName,
                                      bool isDouble) const override;
};

/// The libdevice function computing the math dialect op `opName` on f64
/// (`isDouble`) or f32 values, or "" if libdevice has none Kuiper uses.
llvm::StringRef getLibdeviceFunctionName(llvm::StringRef opName, bool isDouble);

} // namespace kuiper

#endif // KUIPER_TARGET_NVPTX_NVPTXTARGETINFO_H
