//===- Passes.h - kuiper dialect transformations ----------------*- C++ -*-===//
#ifndef KUIPER_TRANSFORMS_PASSES_H
#define KUIPER_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kuiper {

#define GEN_PASS_DECL
#include "kuiper/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kuiper/Transforms/Passes.h.inc"

} // namespace kuiper

#endif // KUIPER_TRANSFORMS_PASSES_H
