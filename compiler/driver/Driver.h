//===- Driver.h - The compile driver's stage interface ----------*- C++ -*-===//
//
// What the tools share with the compile pipeline (compiler/driver/
// Compiler.cpp, behind the public kuiper::Compiler) beyond the public API:
// import resolution, so that `kuiperc --emit ast` resolves imports as the
// pipeline does, and the LLVM IR of a compiled module for `--emit llvm`.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_DRIVER_DRIVER_H
#define KUIPER_DRIVER_DRIVER_H

#include "compiler/frontend/Frontend.h"
#include "compiler/lowering/Lowering.h"
#include "kuiper/Compiler.h"

#include <string>
#include <vector>

namespace kuiper {

/// Resolves `import a.b;` to `<dir>/a/b.kp` for the first dir of
/// `importPaths` holding it, then to the stdlib embedded in the binary.
ImportResolver makeImportResolver(std::vector<std::string> importPaths);

/// Reads a whole file. Returns false (with a reason in `error`) if it cannot.
bool readSourceFile(const std::string &path, std::string &text, std::string &error);

/// The LLVM IR (text) that the PTX of `module` is generated from.
llvm::Expected<std::string> emitLLVMIR(const Module &module,
                                       const LoweringOptions &opts);

} // namespace kuiper

#endif
