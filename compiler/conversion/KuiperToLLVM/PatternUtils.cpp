//===- PatternUtils.cpp - shared by the kuiper to LLVM patterns -----------===//
#include "PatternUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace kuiper {

constexpr int32_t kFullWarpMask = -1;

std::unique_ptr<TargetInfo> targetInfoFor(ModuleOp module, StringRef name) {
  std::unique_ptr<TargetInfo> targetInfo = createTargetInfo(name);
  if (!targetInfo)
    module.emitError("unknown GPU target '") << name << "'";
  return targetInfo;
}

ConversionConfig conversionWithoutFolding() {
  ConversionConfig config;
  config.foldingMode = DialectConversionFoldingMode::Never;
  return config;
}

Value createI32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

Value createI64Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}

Value createI64Index(OpBuilder &b, Location loc, Value value) {
  Type i64 = b.getI64Type();
  if (value.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, value);
  unsigned width = value.getType().getIntOrFloatBitWidth();
  if (width < 64)
    return arith::ExtSIOp::create(b, loc, i64, value);
  if (width > 64)
    return arith::TruncIOp::create(b, loc, i64, value);
  return value;
}

Value createI32LaneMask(OpBuilder &b, Location loc, Value mask) {
  if (!mask)
    return createI32Constant(b, loc, kFullWarpMask);
  Type i32 = b.getI32Type();
  if (mask.getType().isIndex())
    return arith::IndexCastUIOp::create(b, loc, i32, mask);
  unsigned width = mask.getType().getIntOrFloatBitWidth();
  if (width < 32)
    return arith::ExtUIOp::create(b, loc, i32, mask);
  if (width > 32)
    return arith::TruncIOp::create(b, loc, i32, mask);
  return mask;
}

LLVM::LLVMFuncOp getOrDeclareFunction(OpBuilder &b, ModuleOp module,
                                      StringRef name,
                                      LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

} // namespace kuiper
