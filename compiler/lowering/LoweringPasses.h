//===- LoweringPasses.h - internal steps of the kuiper lowering -*- C++ -*-===//
//
// The steps `Lowering.cpp` chains together. Each works on a module the lowering
// owns (a clone of the caller's), never on the caller's IR.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_LOWERING_LOWERINGPASSES_H
#define KUIPER_LOWERING_LOWERINGPASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace kuiper {

/// Erases the specification ops (`requires`, `ensures`, `assert`, `assume`,
/// `access`, loop invariants, barrier contracts) with their regions, and turns
/// `kuiper.for`/`kuiper.while` into `scf.for`/`scf.while`. `kuiper.shape` and
/// `kuiper.launch` stay: the kernel verifier needs them until the kernel itself
/// is lowered.
mlir::LogicalResult eraseSpecsAndConvertLoops(mlir::ModuleOp module);

/// Turns every `kuiper.kernel` into an NVVM kernel `llvm.func` and every
/// remaining kuiper and math op into LLVM/NVVM dialect ops and libdevice calls.
/// arith, scf and memref ops are left for the upstream conversions.
mlir::LogicalResult convertKuiperToLLVM(mlir::ModuleOp module);

/// The NVPTX target machine for `arch` with the PTX ISA of `ptxVersionFor`.
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createNVPTXTargetMachine(const std::string &arch);

/// Links the libdevice functions `module` calls, internalizes everything but
/// the kernels, sets the NVPTX triple, data layout and `nvvm-reflect-ftz`, and
/// runs the O3 pipeline.
llvm::Error optimizeForNVPTX(llvm::Module &module, llvm::TargetMachine &tm,
                             const std::string &libdevicePath);

/// Emits `module` as PTX assembly.
llvm::Expected<std::string> emitPTX(llvm::Module &module,
                                    llvm::TargetMachine &tm);

} // namespace kuiper

#endif
