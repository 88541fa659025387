//===- Report.h - Verification report ---------------------------*- C++ -*-===//
//
// The verification report shared by the verifier, the tools and embedders.
// Plain C++: no MLIR, LLVM or Z3 types.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_REPORT_H
#define KUIPER_REPORT_H

#include "kuiper/Checks.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kuiper {

/// One proof obligation's outcome.
struct CheckResult {
  CheckId id = CheckId::Internal;            ///< the check (Checks.def)
  CheckStatus status = CheckStatus::Unknown; ///< its outcome
  std::string file;     ///< source file
  int line = 0, col = 0;
  std::string message;  ///< one-line meaning ("y[i] is written by some thread")
  /// Counterexample: name -> value (parameters, thread/block ids, inputs),
  /// in the order the verifier found them.
  std::vector<std::pair<std::string, std::string>> counterexample;
  std::string explanation; ///< what the kernel did ("no thread writes y[0]")
  /// For an undecided check: its message should it fail ("the postcondition
  /// may not hold"), used when a run on the CPU executor shows the failure.
  std::string failMessage;
  /// The goal for a launch that runs no thread (the grid has a zero
  /// dimension); for a run: its launch ran none. A run refutes only a check
  /// of its own kind of launch.
  bool emptyLaunch = false;
  /// A race between two places of the source: the other access (the check
  /// is at the later one in program order; a run's race at the access it
  /// caught, this one the earlier access it conflicts with). 0: none.
  int otherLine = 0, otherCol = 0;
  std::optional<bool> confirmed; ///< set by counterexample replay
  /// A failure whose model rests on sums or reductions the solver knows only
  /// by their definitions (a model whose folds it could not all unroll): it
  /// stays failed only if a run reproduces it (settleTentative).
  bool tentative = false;
  /// Why a tentative failure's model may be no run's, as settleTentative
  /// says it ("" : it rests on folds known by their definitions).
  std::string tentativeWhy;
  std::string observed;          ///< what the replay observed
  double timeMs = 0;
  /// False for an unknown check that was not solved at all: the kernel's
  /// budget ran out first, or --fail-fast left it after another failure.
  bool attempted = true;
  std::string smt; ///< the SMT-LIB text of the obligation (for --emit smt)
  std::string location() const {
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

/// A derived rounding bound for an approx clause.
struct Tolerance {
  std::string clause;     ///< location of the clause
  std::string bound;      ///< human-readable bound, e.g. "|y - S| <= 4.77e-7 * sum|x|"
  double relative = 0;    ///< gamma(d)
  int depth = 0;          ///< rounding depth d
};

/// The verdict on one kernel.
enum class Verdict {
  Verified,    ///< every obligation proved
  Failed,      ///< some obligation has a counterexample
  Unknown,     ///< none failed, some undecided: never a pass
  NotVerified, ///< verification was not run (--no-verify)
};

/// "verified", "failed", "unknown" or "not-verified".
const char *verdictName(Verdict verdict);

/// Verification result of one kernel.
struct KernelReport {
  std::string name;
  Verdict verdict = Verdict::Unknown;
  double timeMs = 0;
  std::vector<std::string> trusted;
  std::vector<CheckResult> checks;
  std::vector<Tolerance> tolerances;
  unsigned obligations = 0;
  /// How the lowered code differs from the kernel as written: empty when it
  /// is the kernel as written; else the rewrite (e.g. "4 elements per thread,
  /// 16-byte aligned accesses"), and then `checks` are those of the kernel as
  /// written followed by the rewrite's side conditions (a proven refinement),
  /// or those of the rewritten kernel, verified again in full. Also says why a
  /// rewrite was not used.
  std::string lowered;
};

/// A kernel's verdict from its checks: failed if one failed, else unknown if
/// one is unknown or there are none, else verified.
Verdict verdictOf(const std::vector<CheckResult> &checks);

/// Verification result of one file.
struct Report {
  std::string file;
  std::vector<KernelReport> kernels;
  bool verified() const {
    if (kernels.empty())
      return false;
    for (const auto &k : kernels)
      if (k.verdict != Verdict::Verified)
        return false;
    return true;
  }
  /// JSON as documented in docs/verification.md.
  std::string toJSON() const;
  /// SARIF 2.1.0, one result per failed or unknown check.
  std::string toSARIF() const;
  /// One SARIF log (one run) with the results of several files' reports;
  /// `fileErrors` (file, diagnostics) are the files that produced no report
  /// (malformed input), as the run's failed tool-execution notifications.
  static std::string
  toSARIF(const std::vector<Report> &reports,
          const std::vector<std::pair<std::string, std::string>> &fileErrors = {});
  /// Clang-style text: `file:line:col: error: message [check-id]` with
  /// `note:` lines for the counterexample and explanation of every failed or
  /// unknown check, then one summary line per kernel (checks, obligations,
  /// time, trusted items, derived tolerances).
  std::string toText() const;
  /// One line per obligation, in the order they were generated:
  /// `kernel K: <status> [<check-id>] <file:line:col>: <message>` (for tests
  /// that pin down which obligations a kernel gives rise to).
  std::string toObligationList() const;
};

/// Whether `run`, a failure a run on the CPU executor showed (a check kind at
/// a location, what it observed), refutes `check`: the same check at the same
/// location (files compared by base name) and, for a postcondition, the same
/// claim: a clause failing on an element no thread wrote refutes "every
/// element it names is written", one failing on a written value the check of
/// that value. A run's race between two places refutes the race check of
/// that pair, in either order.
bool refutes(const CheckResult &run, const CheckResult &check);

/// The Kuiper version, e.g. "0.1.0".
const char *version();

/// `s` as a JSON string literal, quotes included (RFC 8259 escaping).
std::string jsonQuote(const std::string &s);

} // namespace kuiper

#endif
