//===- Sema.h - Semantic analysis of the .kp language -----------*- C++ -*-===//
#ifndef KUIPER_FRONTEND_SEMA_H
#define KUIPER_FRONTEND_SEMA_H

#include "compiler/frontend/AST.h"
#include "compiler/frontend/Frontend.h"

namespace kuiper {

/// Resolves names, computes types, folds constants and checks the rules of
/// the language over a whole (merged) module. Returns true when no error was
/// reported.
bool checkModule(ast::Module &m, DiagnosticEngine &diags);

} // namespace kuiper

#endif
