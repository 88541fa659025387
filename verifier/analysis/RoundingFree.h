//===- RoundingFree.h - Values computed without rounding --------*- C++ -*-===//
#ifndef KUIPER_VERIFIER_ROUNDINGFREE_H
#define KUIPER_VERIFIER_ROUNDINGFREE_H

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace kuiper::verifier {

/// Which values of a kernel are computed without rounding (see
/// RoundingFree.cpp): their IEEE value and their value over the reals are the
/// same number on finite inputs.
class RoundingFree {
public:
  explicit RoundingFree(KernelOp kernel);
  /// Whether `v` (of the kernel, its clauses or its invariants) is.
  bool value(mlir::Value v);
  /// Whether every condition that decides whether `op` runs (the `if`s and
  /// loops around it) is.
  bool control(mlir::Operation *op);
  /// Whether what a clause's region yields is.
  bool clause(mlir::Region &r) { return region(r); }

private:
  bool compute(mlir::Value v);
  bool region(mlir::Region &r);

  KernelOp kernel;
  /// The locals and shared arrays whose every store is rounding-free.
  llvm::DenseSet<mlir::Value> memories;
  llvm::DenseMap<mlir::Value, bool> memo;
};

} // namespace kuiper::verifier

#endif
