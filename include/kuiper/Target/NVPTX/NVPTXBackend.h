//===- NVPTXBackend.h - LLVM IR to PTX in-process ---------------*- C++ -*-===//
#ifndef KUIPER_TARGET_NVPTX_NVPTXBACKEND_H
#define KUIPER_TARGET_NVPTX_NVPTXBACKEND_H

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace kuiper {

/// The PTX ISA version used for `arch` (e.g. "8.0"), or empty if unsupported.
std::string getPTXVersion(const std::string &arch);

/// The NVPTX target machine for `arch` with the PTX ISA of `getPTXVersion`.
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

#endif // KUIPER_TARGET_NVPTX_NVPTXBACKEND_H
