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

/// Bounds on a kernel after code generation has inlined its fn calls,
/// unrolled its `for` lists and guarded the code after each `return`.
struct ExpansionLimits {
  /// Most operations (expanded AST nodes) of one kernel.
  uint64_t maxOps = uint64_t(1) << 21;
  /// Deepest nesting of one kernel (AST levels plus return guards), which
  /// bounds the recursion of code generation and the depth of its regions.
  uint64_t maxDepth = 1000;
};

/// Reports every kernel of a checked module that would exceed `limits`
/// once expanded. Returns true when none does.
bool checkExpansion(const ast::Module &m, DiagnosticEngine &diags,
                    const ExpansionLimits &limits = {});

} // namespace kuiper

#endif
