//===- Kuiper.h - The kuiper dialect ----------------------------*- C++ -*-===//
#ifndef KUIPER_DIALECT_KUIPER_H
#define KUIPER_DIALECT_KUIPER_H

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

#include "kuiper/Dialect/KuiperDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "kuiper/Dialect/KuiperTypes.h.inc"

#define GET_OP_CLASSES
#include "kuiper/Dialect/KuiperOps.h.inc"

namespace kuiper {
/// Element type of a buffer or shared array type.
mlir::Type getElementType(mlir::Type memoryType);
/// Rank of a buffer or shared array type.
unsigned getRank(mlir::Type memoryType);
/// The `kuiper.shape` op declaring the dims of a buffer parameter, if any.
ShapeOp findShape(KernelOp kernel, mlir::Value buffer);
} // namespace kuiper

#endif
