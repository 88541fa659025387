//===- Checks.h - Check ids and outcomes ------------------------*- C++ -*-===//
//
// The check catalogue (Checks.def) as a C++ enumeration, and the status of a
// proof obligation. Plain C++: no MLIR, LLVM or Z3 types.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_CHECKS_H
#define KUIPER_CHECKS_H

#include <optional>
#include <string>
#include <vector>

namespace kuiper {

/// One check of the catalogue (include/kuiper/Checks.def).
enum class CheckId {
#define KUIPER_CHECK(Name, Id, ScheduleDependent, Summary) Name,
#include "kuiper/Checks.def"
};

/// The outcome of one obligation.
enum class CheckStatus {
  Proved,  ///< the solver proved it
  Failed,  ///< a counterexample exists
  Unknown, ///< undecided (unsupported construct, solver limit, budget)
  Warning, ///< a finding that is not an error (e.g. float-atomic nondeterminism)
};

/// The id as written in reports and `// EXPECT:` lines ("barrier-divergence").
const char *checkName(CheckId id);
/// The check named `name`, if any.
std::optional<CheckId> checkFromName(const std::string &name);
/// What the check guarantees, one line.
const char *checkSummary(CheckId id);
/// Whether the check's outcome depends on how threads interleave.
bool isScheduleDependent(CheckId id);
/// Executor violations that confirm a counterexample to `id`, besides `id`.
std::vector<CheckId> relatedChecks(CheckId id);
/// Every check of the catalogue, in catalogue order.
const std::vector<CheckId> &allChecks();

/// "proved", "failed", "unknown" or "warning".
const char *statusName(CheckStatus status);
/// The status named `name`, if any.
std::optional<CheckStatus> statusFromName(const std::string &name);

} // namespace kuiper

#endif
