//===- Verifier.h - Proof obligations from the kuiper dialect ---*- C++ -*-===//
#ifndef KUIPER_VERIFIER_VERIFIER_H
#define KUIPER_VERIFIER_VERIFIER_H

#include "kuiper/Report.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace kuiper {

struct VerifyOptions {
  unsigned timeoutMs = 10000; ///< per obligation
  unsigned jobs = 0;          ///< solver threads; 0 = one per core
  bool useCache = true;       ///< on-disk cache keyed by the SMT text's hash
  std::string cacheDir;       ///< default: $XDG_CACHE_HOME/kuiper or ~/.cache/kuiper
  bool keepSMT = false;       ///< fill CheckResult::smt
  bool releaseMemory = true;  ///< false: leave the solver context to process exit
};

/// Verifies every kernel of `module` (kuiper IR as produced by codegen).
/// Never throws; solver failures become "unknown" checks.
Report verifyModule(mlir::ModuleOp module, const VerifyOptions &opts);

} // namespace kuiper

#endif
