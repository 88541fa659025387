//===- Passes.h - conversions out of the kuiper dialect ---------*- C++ -*-===//
#ifndef KUIPER_CONVERSION_PASSES_H
#define KUIPER_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kuiper {

#define GEN_PASS_DECL
#include "kuiper/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kuiper/Conversion/Passes.h.inc"

} // namespace kuiper

#endif // KUIPER_CONVERSION_PASSES_H
