//===- CompilerInternal.h - Pieces of Compiler.cpp the tools share -*- C++ -*-===//
//
// Internal: used by runtime/Compiler.cpp and by tools (kuiperc's `--emit ast`)
// so that import resolution is the same everywhere.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_COMPILERINTERNAL_H
#define KUIPER_RUNTIME_COMPILERINTERNAL_H

#include "compiler/frontend/Frontend.h"

#include <string>
#include <vector>

namespace kuiper {

/// Resolves `import a.b;` to `<dir>/a/b.kp` for the first dir of
/// `importPaths` holding it, then to the stdlib embedded in the binary.
ImportResolver makeImportResolver(std::vector<std::string> importPaths);

/// Reads a whole file. Returns false (with a reason in `error`) if it cannot.
bool readSourceFile(const std::string &path, std::string &text, std::string &error);

} // namespace kuiper

#endif
