//===- Verifier.h - Proof obligations from the kuiper dialect ---*- C++ -*-===//
#ifndef KUIPER_VERIFIER_VERIFIER_H
#define KUIPER_VERIFIER_VERIFIER_H

#include "kuiper/Report.h"
#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace z3 {
class context;
} // namespace z3

namespace kuiper {

/// Z3 contexts a kernel's proof is done with, kept for the side conditions of
/// its refinements (VerifyOptions::refinementSideConditions): creating one
/// costs milliseconds (7 to 10 on the 2-core machine), more than those few
/// small queries. A proof of a kernel as written always gets a fresh context,
/// so its verdicts are those it would have alone. Deletes what it holds, or
/// leaves it to process exit (releaseMemory false).
class SolverContextPool {
public:
  explicit SolverContextPool(bool releaseMemory) : releaseMemory(releaseMemory) {}
  ~SolverContextPool();
  SolverContextPool(const SolverContextPool &) = delete;
  SolverContextPool &operator=(const SolverContextPool &) = delete;
  /// A kept context, or null.
  z3::context *take();
  /// Keeps `c` (done with) for a later take(), in place of any kept before.
  void give(z3::context *c);

private:
  bool releaseMemory;
  std::mutex mutex;
  z3::context *kept = nullptr;
};

/// Z3 resource units per second of solving on the reference 2-core machine:
/// `--timeout S` becomes a resource limit of S times this, so that verdicts do
/// not depend on the machine's load.
constexpr uint64_t kResourceUnitsPerSecond = 15'000'000;

struct VerifyOptions {
  /// Resource limit of one obligation's full solver stage (10 s worth).
  uint64_t rlimit = 10 * kResourceUnitsPerSecond;
  /// Wall-clock budget of one kernel in seconds (0: none). When it runs out,
  /// the remaining obligations are "unknown (budget)": never "verified".
  double budgetSeconds = 60;
  unsigned jobs = 0;          ///< solver threads; 0 = one per core
  bool useCache = true;       ///< on-disk cache keyed by the SMT text's hash
  std::string cacheDir;       ///< default: $XDG_CACHE_HOME/kuiper or ~/.cache/kuiper
  bool keepSMT = false;       ///< fill CheckResult::smt
  bool releaseMemory = true;  ///< false: leave the solver context to process exit
  /// Once a check has failed, obligations the cheap solver stages leave
  /// undecided are not tried further ("unknown: not attempted"): a wrong
  /// kernel is rejected without the long proofs of its other checks. Which
  /// ones are skipped depends on resource-limited answers only.
  bool failFast = false;
  /// Called with one line of progress for kernels that take over a second.
  std::function<void(const std::string &)> progress;
  /// Runs a kernel on the CPU executor before its proof (for kernels with
  /// loop invariants, barriers or approx clauses, whose proofs can take seconds) and
  /// returns the failed checks the runs showed (status failed, confirmed, with
  /// the run as counterexample). The first obligation each of them refutes
  /// (kuiper::refutes; not a lemma), and the others of its report line (the
  /// same check, place and claim), are reported failed with that run, unsolved.
  std::function<std::vector<CheckResult>(const std::string &kernel)> runFirst;
  /// Kernels marked `kuiper.refines` (by --kuiper-vectorize, of a rewrite that
  /// refines a verified kernel whenever its side conditions hold) are checked
  /// for those side conditions only: the obligations of the ops the rewrite
  /// created (marked `kuiper.rewrite`, the launch included) and the alignment
  /// of its vector accesses. Set by the driver for a rewrite of a kernel it has
  /// verified; never for a kernel as written.
  bool refinementSideConditions = false;
  /// Where set, the contexts of finished proofs are kept here, and side
  /// conditions are proven in one of them (see SolverContextPool).
  std::shared_ptr<SolverContextPool> contextPool;
};

namespace verifier {
/// Whether the verifier gives `op` a meaning (executes it symbolically rather
/// than reporting it as not modelled, which makes the verdict unknown).
bool hasSemantics(mlir::Operation *op);
} // namespace verifier

/// Verifies every kernel of `module` (kuiper IR as produced by codegen).
/// Never throws; solver failures become "unknown" checks.
Report verifyModule(mlir::ModuleOp module, const VerifyOptions &opts);

} // namespace kuiper

#endif
