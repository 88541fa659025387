//===- TypeConverter.cpp - kuiper types to LLVM pointers ------------------===//
#include "kuiper/Conversion/KuiperToLLVM/KuiperToLLVM.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;

namespace kuiper {

/// A bool kernel parameter is a byte; nonzero is true.
static Value materializeBoolFromByte(OpBuilder &b, Type resultType,
                                     ValueRange inputs, Location loc) {
  if (inputs.size() != 1 || !resultType.isInteger(1) ||
      !inputs.front().getType().isInteger(8))
    return Value();
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 8);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, inputs.front(),
                               zero);
}

KuiperToLLVMTypeConverter::KuiperToLLVMTypeConverter(
    MLIRContext *ctx, const TargetInfo &targetInfo) {
  addConversion([](Type type) { return type; });
  addConversion([ctx, &targetInfo](BufferType) -> Type {
    return LLVM::LLVMPointerType::get(
        ctx, targetInfo.getAddressSpace(MemorySpace::Global));
  });
  addConversion([ctx, &targetInfo](SharedType) -> Type {
    return LLVM::LLVMPointerType::get(
        ctx, targetInfo.getAddressSpace(MemorySpace::Shared));
  });
  addSourceMaterialization(materializeBoolFromByte);
}

} // namespace kuiper
