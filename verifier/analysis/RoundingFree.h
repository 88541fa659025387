//===- RoundingFree.h - Values computed without rounding --------*- C++ -*-===//
#ifndef KUIPER_VERIFIER_ROUNDINGFREE_H
#define KUIPER_VERIFIER_ROUNDINGFREE_H

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

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

/// How many roundings one iteration of a kernel's cut loops (those the
/// verifier does not unroll: a trip count that is not a constant up to 256,
/// and `while` loops) adds to the values they carry in locals, the most over
/// those loops (see LoopRounding in RoundingFree.cpp).
struct LoopRounding {
  /// Roundings per iteration on the way from a carried local's value at the
  /// start of an iteration to its value at the end (`acc += a * b`: 1; an
  /// unrolled tile of 16 such updates: 16); unset where no constant bounds
  /// it (a cut loop inside a cut loop).
  std::optional<int> perIteration = 0;
  /// Roundings of a value computed within an iteration before it joins a
  /// carried one (the product of `acc += a * b`: 1).
  int entry = 0;
  /// Whether the kernel has a cut loop at all.
  bool anyCutLoop = false;
};
LoopRounding loopRounding(KernelOp kernel);

} // namespace kuiper::verifier

#endif
