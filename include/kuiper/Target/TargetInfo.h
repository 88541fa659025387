//===- TargetInfo.h - what kuiper lowering asks of a GPU target -*- C++ -*-===//
//
// The target-specific half of the kuiper to LLVM conversion: special registers,
// synchronization, warp collectives, address spaces, the kernel attribute and
// the math library. The conversion patterns build everything else themselves,
// so a second target (ROCDL/AMDGPU) only needs another implementation of this
// interface.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_TARGET_TARGETINFO_H
#define KUIPER_TARGET_TARGETINFO_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <memory>

namespace mlir::LLVM {
class LLVMFuncOp;
} // namespace mlir::LLVM

namespace kuiper {

/// Where a kernel's memory lives.
enum class MemorySpace { Global, Shared };

/// How a warp shuffle picks its source lane.
enum class ShuffleKind { Down, Up, Xor, Idx };

/// The warp vote to take.
enum class VoteKind { Ballot, Any, All };

/// The GPU target behind the kuiper to LLVM conversion. Every builder inserts
/// at the builder's insertion point and returns the value it computes.
class TargetInfo {
public:
  virtual ~TargetInfo() = default;

  /// The target's name, as the `target` option of the conversion spells it.
  virtual llvm::StringRef getName() const = 0;

  /// The number of lanes in a warp.
  virtual unsigned getWarpSize() const = 0;

  /// threadIdx along `dim` (0, 1, 2) as i32, known to lie in [0, blockSize).
  virtual mlir::Value threadId(mlir::OpBuilder &b, mlir::Location loc,
                               unsigned dim, int64_t blockSize) const = 0;

  /// blockIdx along `dim` as i32.
  virtual mlir::Value blockId(mlir::OpBuilder &b, mlir::Location loc,
                              unsigned dim) const = 0;

  /// gridDim along `dim` as i32.
  virtual mlir::Value gridDim(mlir::OpBuilder &b, mlir::Location loc,
                              unsigned dim) const = 0;

  /// A block-wide barrier (`__syncthreads()`).
  virtual void barrier(mlir::OpBuilder &b, mlir::Location loc) const = 0;

  /// A warp shuffle of the 32-bit `value` (i32 or f32) among the lanes of
  /// the i32 `mask`.
  virtual mlir::Value shuffle(mlir::OpBuilder &b, mlir::Location loc,
                              ShuffleKind kind, mlir::Value mask,
                              mlir::Value value, mlir::Value delta) const = 0;

  /// A warp vote on the i1 `pred` among the lanes of the i32 `mask`.
  virtual mlir::Value vote(mlir::OpBuilder &b, mlir::Location loc,
                           VoteKind kind, mlir::Type resultType,
                           mlir::Value mask, mlir::Value pred) const = 0;

  /// Synchronizes the lanes of the i32 `mask`.
  virtual void syncWarp(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value mask) const = 0;

  /// The LLVM address space of `space`.
  virtual unsigned getAddressSpace(MemorySpace space) const = 0;

  /// The LLVM `syncscope` of an atomic on memory in `space`.
  virtual llvm::StringRef getAtomicSyncScope(MemorySpace space) const = 0;

  /// Marks `func` as a kernel launched with `blockSize` threads per block.
  virtual void markAsKernel(mlir::LLVM::LLVMFuncOp func,
                            llvm::ArrayRef<int64_t> blockSize) const = 0;

  /// The math library function computing the math dialect op `opName` on
  /// f64 (`isDouble`) or f32 values, or "" if the op is left to the upstream
  /// math to LLVM conversion.
  virtual llvm::StringRef getMathFunctionName(llvm::StringRef opName,
                                              bool isDouble) const = 0;
};

/// The target named `name` ("nvptx"), or null if there is none.
std::unique_ptr<TargetInfo> createTargetInfo(llvm::StringRef name);

} // namespace kuiper

#endif // KUIPER_TARGET_TARGETINFO_H
