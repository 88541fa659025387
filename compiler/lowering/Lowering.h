//===- Lowering.h - kuiper dialect to PTX -----------------------*- C++ -*-===//
#ifndef KUIPER_LOWERING_LOWERING_H
#define KUIPER_LOWERING_LOWERING_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class DialectRegistry;
class OpPassManager;
} // namespace mlir

namespace kuiper {

struct LoweringOptions {
  std::string arch = "sm_80"; ///< sm_75 ... sm_90
  std::string
      libdevice; ///< path of libdevice.10.bc (default: the CUDA toolkit's)
  std::string headerComment; ///< text put at the top of the PTX as // comments
};

/// Registers the dialects and translation interfaces lowering needs.
void registerLoweringDialects(mlir::DialectRegistry &registry);

/// Adds the passes taking kuiper IR to the LLVM dialect (erase specs,
/// simplify, convert kuiper, then the upstream conversions) to `pm`.
void buildKuiperToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers `buildKuiperToLLVMPipeline` as `--kuiper-to-llvm`.
void registerKuiperToLLVMPipeline();

/// Lowers a clone of `module` (kuiper IR; spec ops are erased here) to LLVM IR
/// text.
llvm::Expected<std::string> lowerToLLVMIR(mlir::ModuleOp module,
                                          const LoweringOptions &opts);

/// Lowers a clone of `module` to PTX text for `opts.arch`.
llvm::Expected<std::string> lowerToPTX(mlir::ModuleOp module,
                                       const LoweringOptions &opts);

/// The PTX ISA version used for `arch` (e.g. "8.0"), or empty if unsupported.
std::string ptxVersionFor(const std::string &arch);

} // namespace kuiper

#endif
