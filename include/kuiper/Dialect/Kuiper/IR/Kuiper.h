//===- Kuiper.h - The kuiper dialect ----------------------------*- C++ -*-===//
#ifndef KUIPER_DIALECT_KUIPER_IR_KUIPER_H
#define KUIPER_DIALECT_KUIPER_IR_KUIPER_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "kuiper/Dialect/Kuiper/IR/KuiperDialect.h.inc"
#include "kuiper/Dialect/Kuiper/IR/KuiperEnums.h.inc"

namespace kuiper {
/// Marks a specification op: it states a fact for the verifier and is erased
/// before code generation.
template <typename ConcreteType>
class SpecOnly : public mlir::OpTrait::TraitBase<ConcreteType, SpecOnly> {};
} // namespace kuiper

#include "kuiper/Dialect/Kuiper/IR/KuiperInterfaces.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kuiper/Dialect/Kuiper/IR/KuiperTypes.h.inc"

#define GET_OP_CLASSES
#include "kuiper/Dialect/Kuiper/IR/KuiperOps.h.inc"

namespace kuiper {
/// Element type of a buffer or shared array type.
mlir::Type getElementType(mlir::Type memoryType);
/// Rank of a buffer or shared array type.
unsigned getRank(mlir::Type memoryType);
/// The `kuiper.shape` op declaring the dims of a buffer parameter, if any.
ShapeOp findShape(KernelOp kernel, mlir::Value buffer);
/// Whether `op` is a specification op (erased before code generation).
inline bool isSpecOnly(mlir::Operation *op) { return op->hasTrait<SpecOnly>(); }

/// On a kernel rewritten by --kuiper-vectorize: the rewrite refines the kernel
/// as written wherever the obligations of its own ops hold (docs/lowering.md,
/// "a proven refinement"), so a verified source needs only those checked again.
inline constexpr llvm::StringLiteral kRefinesAttr = "kuiper.refines";
/// On the ops such a rewrite created (and its launch, whose grid it changed).
inline constexpr llvm::StringLiteral kRewriteAttr = "kuiper.rewrite";
} // namespace kuiper

#endif
