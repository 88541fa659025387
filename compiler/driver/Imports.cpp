//===- Imports.cpp - Source files and `import` resolution ----------------===//
//
// How `import a.b;` finds its file: the -I directories in order, then the
// standard library embedded in the binary. Every tool resolves imports here.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Driver.h"
#include "stdlib/Stdlib.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace kuiper;

bool kuiper::readSourceFile(const std::string &path, std::string &text,
                            std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = buffer.getError().message();
    return false;
  }
  text = (*buffer)->getBuffer().str();
  return true;
}

ImportResolver kuiper::makeImportResolver(std::vector<std::string> importPaths) {
  return [importPaths = std::move(importPaths)](const std::string &dotted,
                                                std::string &path, std::string &text) {
    std::string rel = dotted;
    for (char &c : rel)
      if (c == '.')
        c = '/';
    rel += ".kp";
    for (const auto &dir : importPaths) {
      std::string candidate = dir.empty() ? rel : dir + "/" + rel;
      std::string ignored;
      if (readSourceFile(candidate, text, ignored)) {
        path = candidate;
        return true;
      }
    }
    return lookupStdlib(dotted, path, text);
  };
}

