//===- Replay.h - Counterexample replay on the CPU executor -----*- C++ -*-===//
//
// Public API. Turns the counterexample of a failed check into a concrete
// launch (scalar parameters, buffer sizes, inputs, schedules), runs it on the
// CPU executor with dynamic checks, and marks the check `confirmed` (the
// replay showed the bug) or not (`observed` says "possible: not reproduced"
// or why it was not replayed). No MLIR, LLVM or Z3 types.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_REPLAY_H
#define KUIPER_REPLAY_H

#include "kuiper/Executor.h"

#include <cstdint>
#include <memory>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace kuiper {

/// Runs of runForFailures kept for later calls that share it (see
/// ReplayOptions::memo). Defined in Replay.cpp.
struct RunMemo;

/// Limits and seeds of a replay.
struct ReplayOptions {
  /// Seed of the random inputs and of the random schedules.
  uint64_t seed = 1;
  /// Largest buffers replayed (elements of all buffers together): a
  /// counterexample that needs more is reported as not replayed.
  int64_t maxElements = int64_t(64) << 20;
  /// Largest launch replayed (threads of the grid): the executor interprets
  /// every thread, so this bounds the replay's time (~0.2 M threads/s:
  /// a few seconds at most).
  int64_t maxThreads = int64_t(1) << 20;
  /// Random schedules tried (after in-order and reverse) for race,
  /// divergence and convergence checks.
  unsigned randomSchedules = 3;
  /// Interpreted operations per run (over all threads): a run that needs
  /// more stops unfinished and shows nothing.
  uint64_t maxSteps = 2'000'000;
  /// Let `chooseScalars` solve for sizes under which every loop runs twice
  /// (Z3: tens to hundreds of milliseconds) rather than take its list alone.
  bool solveSizes = true;
  /// The kernel's verification budget in seconds (0: none): falsifyUndecided
  /// starts no run of a kernel once its verification time and those runs
  /// have used it up (its open checks then stay unknown).
  double budgetSeconds = 0;
  /// runForFailures also runs each shape with every integer input at the
  /// largest value the requires clause admits, then the smallest (an i32 sum
  /// of 4096 terms each at most 10^6 overflows there only). Set by
  /// falsifyUndecided for a kernel with an undecided overflow check.
  bool extremeIntegers = false;
  /// Set by falsifyUndecided from the budget: no run starts after it.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Runs that finished, shared by the calls of runForFailures given the same
  /// memo (a kernel's runs before its proof and its falsifying runs after
  /// it): a run of the same kernel with the same scalars, inputs and schedule
  /// is the same run, so it is not run again. The module must not change
  /// between those calls. Null: every run is run (makeRunMemo makes one).
  std::shared_ptr<RunMemo> memo;
};

/// A new, empty RunMemo for ReplayOptions::memo.
std::shared_ptr<RunMemo> makeRunMemo();

/// Replays the counterexample of one failed check of `kernel`; sets
/// `check.confirmed` and `check.observed`. Checks that did not fail, or that
/// a run already confirmed (runForFailures), are left alone.
void replayCheck(const Module &module, const std::string &kernel,
                 CheckResult &check, const ReplayOptions &opts = {});

/// Replays every failed check of every kernel of `report` (the report of
/// `module`, e.g. `module.report()`).
void replayCounterexamples(const Module &module, Report &report,
                           const ReplayOptions &opts = {});

/// Runs `kernel` on the CPU executor at small sizes that satisfy its
/// requires clause (`chooseScalars` under each buffer-element cap of `caps`),
/// with seeded random inputs and every dynamic check, in order and, with
/// `reverse`, in reverse order too. Returns one failed, confirmed check per
/// violated check (kind and location): the run's scalars as counterexample,
/// what the executor saw as `observed`. approx clauses count as violated only
/// past a relative error of 1e-2 of the magnitudes involved (never rounding
/// at these sizes in f32 or f64), and not at all in kernels with f16 or bf16
/// parameters. A run that passes proves nothing.
std::vector<CheckResult> runForFailures(const Module &module, const std::string &kernel,
                                        bool reverse, const std::vector<int64_t> &caps,
                                        const ReplayOptions &opts = {});

/// Runs each kernel of `report` that has undecided checks on the CPU
/// executor, at small sizes that satisfy its requires clause and with seeded
/// random inputs. A run that violates an undecided check (the same check at
/// its location) makes it a failure with that run as its counterexample, marked
/// confirmed. Runs that pass prove nothing: no check becomes proved. approx
/// clauses count as violated only past a relative error of 1e-2 (never
/// rounding at these sizes, for f32 and f64; kernels with f16 or bf16
/// parameters keep their undecided approx clauses).
void falsifyUndecided(const Module &module, Report &report,
                      const ReplayOptions &opts = {});

/// replayCounterexamples and falsifyUndecided kernel by kernel, within what
/// each kernel's verification left of `opts.budgetSeconds`.
void replayAndFalsify(const Module &module, Report &report, const ReplayOptions &opts = {});

/// A tentative failure (CheckResult::tentative) that no run confirmed becomes
/// unknown ("undecided: ..."), and the kernel's verdict follows (done by
/// replayAndFalsify after its replays; without replay, call it directly).
void settleTentative(KernelReport &kr);

} // namespace kuiper

#endif
