//===- MLIRGen.h - AST to kuiper dialect ------------------------*- C++ -*-===//
#ifndef KUIPER_CODEGEN_MLIRGEN_H
#define KUIPER_CODEGEN_MLIRGEN_H

#include "compiler/frontend/AST.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir {
class MLIRContext;
class DialectRegistry;
} // namespace mlir

namespace kuiper {
/// Registers every dialect the kuiper IR may contain.
void registerKuiperDialects(mlir::DialectRegistry &registry);
/// Loads those dialects into `ctx` (the lowering's are loaded when it runs).
void loadKuiperDialects(mlir::MLIRContext &ctx);
/// Emits one `kuiper.kernel` per kernel of `m` (fns are inlined). Returns null
/// (after emitting MLIR diagnostics) if the result does not verify.
mlir::OwningOpRef<mlir::ModuleOp> mlirGen(mlir::MLIRContext &ctx, const ast::Module &m);
} // namespace kuiper

#endif
