//===- ReplayTest.cpp - Counterexample replay on hand-made checks ---------===//
//
// The checks are written by hand (not by the verifier), so these tests pin
// the replay's behaviour whatever counterexample the solver happens to pick.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Replay.h"

#include <gtest/gtest.h>

#include <string>

using namespace kuiper;

namespace {

Module compileNoVerify(const char *source, const std::string &name) {
  CompileOptions opts;
  opts.verify = false;
  opts.emitPTX = false;
  Result<Module> m = Compiler(opts).compileString(source, name);
  if (!m) {
    ADD_FAILURE() << m.error().message;
    Result<Module> empty = parseModuleIR("module {}");
    return std::move(*empty);
  }
  return std::move(*m);
}

CheckResult checkAt(const std::string &id, CheckStatus status, int line, int col) {
  CheckResult c;
  c.id = *checkFromName(id);
  c.status = status;
  c.file = "k.kp";
  c.line = line;
  c.col = col;
  return c;
}

CheckResult failed(const std::string &id, int line, int col,
                   std::vector<std::pair<std::string, std::string>> cex) {
  CheckResult c = checkAt(id, CheckStatus::Failed, line, col);
  c.counterexample = std::move(cex);
  return c;
}

const char *kLeaky = R"(
kernel leaky_relu(in x: f32[n], out y: f32[n], n: i32, slope: f32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == (x[i] >= 0.0 ? x[i] : slope * x[i])
{
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if i < n {
    y[i] = x[i] > 0.0 ? slope * x[i] : x[i];
  }
}
)";

const char *kEmpty = R"(
kernel copy(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == x[i]
{
}
)";

const char *kCopy = R"(
kernel copy(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == x[i]
{
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if i < n {
    y[i] = x[i];
  }
}
)";

const char *kShift = R"(
kernel shift(in x: f32[256 * nblocks], out y: f32[256 * nblocks], nblocks: i32)
  launch block(256) grid(nblocks)
  requires nblocks >= 0 && nblocks <= 1 << 20
{
  shared s: f32[256];
  let t = threadIdx.x;
  let g = 256 * blockIdx.x + t;
  s[t] = x[g];
  y[g] = s[(t + 1) % 256];
}
)";

TEST(Replay, InputValuesArePlacedAtTheirIndex) {
  // y = x where x <= 0: only a negative x[0] with slope != 1 shows the bug.
  Module m = compileNoVerify(kLeaky, "k.kp");
  CheckResult c = failed("postcondition", 5, 3,
                         {{"n", "1"}, {"slope", "0.5"}, {"i", "0"}, {"x[0]", "-2.0"},
                          {"y[0]", "0.0"}});
  replayCheck(m, "leaky_relu", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_NE(c.observed.find("ensures failed at i = 0: y[0] = -2, expected -1"),
            std::string::npos)
      << c.observed;
  EXPECT_NE(c.observed.find("n = 1, slope = 0.5"), std::string::npos) << c.observed;
}

TEST(Replay, ExactZeroInputDoesNotShowTheBug) {
  // x[0] = 0.0: the kernel and the ensures agree; nothing to see.
  Module m = compileNoVerify(kLeaky, "k.kp");
  CheckResult c = failed("postcondition", 5, 3, {{"n", "1"}, {"slope", "0.5"}, {"x[0]", "0.0"}});
  replayCheck(m, "leaky_relu", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_FALSE(*c.confirmed);
  EXPECT_EQ(c.observed.rfind("possible: not reproduced", 0), 0u) << c.observed;
}

TEST(Replay, TinyValuePrintedAsZeroIsRetried) {
  // The solver prints with 9 decimals: "-0.000000000" is a tiny negative
  // number (here the bug needs x[0] < 0).
  Module m = compileNoVerify(kLeaky, "k.kp");
  CheckResult c = failed("postcondition", 5, 3,
                         {{"n", "1"}, {"slope", "0.25"}, {"x[0]", "-0.000000000"}});
  replayCheck(m, "leaky_relu", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_NE(c.observed.find("inputs printed as 0 taken as"), std::string::npos) << c.observed;
}

TEST(Replay, SolverNumberFormats) {
  // Z3 prints negative integers as (- 5); NaN and infinities by name.
  Module m = compileNoVerify(kLeaky, "k.kp");
  CheckResult c = failed("postcondition", 5, 3,
                         {{"n", "(- 5)"}, {"slope", "NaN"}, {"x[0]", "-inf"}});
  replayCheck(m, "leaky_relu", c);
  ASSERT_TRUE(c.confirmed.has_value());
  // n = -5 violates requires: reported, not replayed.
  EXPECT_FALSE(*c.confirmed);
  EXPECT_NE(c.observed.find("not replayed: the launch of the counterexample does not "
                            "satisfy requires"),
            std::string::npos)
      << c.observed;

  CheckResult d = failed("postcondition", 5, 3,
                         {{"n", "#x00000003"}, {"slope", "NaN"}, {"x[2]", "-inf"}});
  replayCheck(m, "leaky_relu", d);
  ASSERT_TRUE(d.confirmed.has_value());
  EXPECT_TRUE(*d.confirmed) << d.observed;
  EXPECT_NE(d.observed.find("n = 3, slope = nan"), std::string::npos) << d.observed;
}

TEST(Replay, UnwrittenElementsAreReportedAsPoison) {
  Module m = compileNoVerify(kEmpty, "k.kp");
  CheckResult cov = failed("coverage", 2, 8, {{"n", "257"}, {"index 0 of y", "256"}});
  replayCheck(m, "copy", cov);
  ASSERT_TRUE(cov.confirmed.has_value());
  EXPECT_TRUE(*cov.confirmed);
  EXPECT_EQ(cov.observed.rfind("y[0] never written (257 of 257 elements", 0), 0u)
      << cov.observed;

  CheckResult post = failed("postcondition", 5, 3, {{"n", "2"}, {"x[1]", "1.5"}});
  replayCheck(m, "copy", post);
  ASSERT_TRUE(post.confirmed.has_value());
  EXPECT_TRUE(*post.confirmed);
  EXPECT_NE(post.observed.find("y[0] = NaN-poison (never written), expected"),
            std::string::npos)
      << post.observed;
}

TEST(Replay, MissingScalarsAreChosenSmall) {
  Module m = compileNoVerify(kEmpty, "k.kp");
  CheckResult c = failed("coverage", 2, 8, {});
  replayCheck(m, "copy", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_NE(c.observed.find("n = 1000"), std::string::npos) << c.observed;
}

// A model too large to run is replayed with its largest size made small, and
// says so; where the small launch shows nothing, it is not replayed (the bug
// may need the model's sizes).
TEST(Replay, TooLargeIsShrunkOrNotReplayed) {
  Module m = compileNoVerify(kEmpty, "k.kp");
  CheckResult c = failed("coverage", 2, 8, {{"n", "1073741824"}});
  replayCheck(m, "copy", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_NE(c.observed.find("(the model's launch is too large to run: n = 1 for the model's "
                            "1073741824)"),
            std::string::npos)
      << c.observed;

  ReplayOptions small;
  small.maxThreads = 1024;
  CheckResult d = failed("coverage", 2, 8, {{"n", "4096"}});
  replayCheck(m, "copy", d, small);
  ASSERT_TRUE(d.confirmed.has_value());
  EXPECT_TRUE(*d.confirmed) << d.observed;
  EXPECT_NE(d.observed.find("n = 1 for the model's 4096"), std::string::npos) << d.observed;

  // A store at index n - 1 of a buffer of n elements wraps past 2^31 only
  // at the model's size: made small, nothing fails.
  Module big = compileNoVerify(R"(
kernel last(out y: i32[n], n: i32)
  launch block(1) grid(1)
  requires n >= 1
{
  let k = n + 1;
  y[n - 1] = k;
}
)",
                               "k.kp");
  CheckResult e = failed("overflow", 6, 13, {{"n", "2147483647"}});
  replayCheck(big, "last", e);
  ASSERT_TRUE(e.confirmed.has_value());
  EXPECT_FALSE(*e.confirmed);
  EXPECT_EQ(e.observed.rfind("not replayed: needs a launch of 2147483647 elements", 0), 0u)
      << e.observed;
  EXPECT_NE(e.observed.find("with n = 1 for the model's 2147483647 the run does not show it"),
            std::string::npos)
      << e.observed;
}

TEST(Replay, ExtremeFillPastTheStepLimitIsHalved) {
  // An i32 row sum of terms up to 10^6 overflows from 2148 terms on; the
  // model's 100000 columns run past the step limit, with random inputs and
  // with the extreme fill alike: the columns are halved until a run
  // finishes, and that run shows the overflow.
  Module m = compileNoVerify(R"(
kernel rowsum(in x: i32[rows, cols], out y: i32[rows], rows: i32, cols: i32)
  launch block(32) grid(cdiv(rows, 32))
  requires rows >= 0 && rows <= 64 && cols >= 0 && cols <= 1 << 20
  requires forall r in 0..rows: forall j in 0..cols: x[r, j] >= -1000000 && x[r, j] <= 1000000
{
  let r = blockIdx.x * 32 + threadIdx.x;
  if r < rows {
    var acc: i32 = 0;
    for j in 0..cols {
      acc += x[r, j];
    }
    y[r] = acc;
  }
}
)",
                             "k.kp");
  ReplayOptions opts;
  opts.maxSteps = 200'000;
  CheckResult c = failed("overflow", 11, 7, {{"rows", "1"}, {"cols", "100000"}});
  replayCheck(m, "rowsum", c, opts);
  ASSERT_TRUE(c.confirmed.has_value()) << c.observed;
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_NE(c.observed.find("every integer input 1000000, the largest the requires clause admits, "
                            "run with cols = 12500 for the model's 100000, whose run passes the "
                            "step limit"),
            std::string::npos)
      << c.observed;
  // Without the halving the model's sizes cannot be run at all.
  opts.maxSteps = 20;
  CheckResult d = failed("overflow", 11, 7, {{"rows", "1"}, {"cols", "100000"}});
  replayCheck(m, "rowsum", d, opts);
  ASSERT_TRUE(d.confirmed.has_value()) << d.observed;
  EXPECT_FALSE(*d.confirmed) << d.observed;
}

TEST(Replay, RaceOnSharedMemory) {
  Module m = compileNoVerify(kShift, "k.kp");
  CheckResult c = failed("race", 10, 10,
                         {{"nblocks", "1"},
                          {"thread A threadIdx.x", "1"},
                          {"thread B threadIdx.x", "0"},
                          {"s index 0", "1"}});
  replayCheck(m, "shift", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_NE(c.observed.find("without a barrier in between"), std::string::npos) << c.observed;
}

TEST(Replay, CorrectKernelIsNotConfirmed) {
  // A (made-up) failure of a correct kernel: every schedule runs clean.
  Module m = compileNoVerify(kCopy, "k.kp");
  CheckResult c = failed("race", 9, 5, {{"n", "512"}});
  replayCheck(m, "copy", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_FALSE(*c.confirmed);
  EXPECT_EQ(c.observed,
            "possible: not reproduced (n = 512; in-order, reverse and 3 random schedules)");
}

TEST(Replay, OnlyFailedChecksAreTouched) {
  Module m = compileNoVerify(kEmpty, "k.kp");
  Report r;
  KernelReport k;
  k.name = "copy";
  CheckResult proved;
  proved.id = CheckId::Bounds;
  proved.status = CheckStatus::Proved;
  CheckResult unknown;
  unknown.id = CheckId::Postcondition;
  unknown.status = CheckStatus::Unknown;
  k.checks = {proved, unknown, failed("coverage", 2, 8, {{"n", "3"}})};
  r.kernels.push_back(k);
  replayCounterexamples(m, r);
  EXPECT_FALSE(r.kernels[0].checks[0].confirmed.has_value());
  EXPECT_FALSE(r.kernels[0].checks[1].confirmed.has_value());
  ASSERT_TRUE(r.kernels[0].checks[2].confirmed.has_value());
  EXPECT_TRUE(*r.kernels[0].checks[2].confirmed);
}

TEST(Replay, DeterminismByComparingSchedules) {
  // A float atomic sum: the executor has no determinism check, but the
  // replay sees the result change with the schedule.
  Module m = compileNoVerify(R"(
kernel total(in x: f32[n], inout s: f32[1], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
{
  let i = blockIdx.x * 256 + threadIdx.x;
  if i < n {
    atomic_add(s[0], x[i]);
  }
}
)",
                             "k.kp");
  CheckResult c = failed("determinism", 9, 5, {{"n", "256"}});
  replayCheck(m, "total", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed) << c.observed;
  EXPECT_EQ(c.observed.rfind("the result depends on the schedule: s[0] = ", 0), 0u)
      << c.observed;
  EXPECT_NE(c.observed.find("in-order schedule vs reverse schedule"), std::string::npos)
      << c.observed;
}

TEST(Replay, UnrelatedFindingsAreMentioned) {
  // A coverage failure the run does not show; the run shows a bounds error.
  Module m = compileNoVerify(R"(
kernel relu(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
{
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if i <= n {
    y[i] = fmax(x[i], 0.0);
  }
}
)",
                             "k.kp");
  CheckResult c = failed("coverage", 2, 8, {{"n", "32"}});
  replayCheck(m, "relu", c);
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_FALSE(*c.confirmed);
  EXPECT_NE(c.observed.find("; the run showed instead: access x[32] out of bounds"),
            std::string::npos)
      << c.observed;
}

TEST(Executor, EnsuresOnlyChecksOutputsComputedElsewhere) {
  // The GPU check's use: outputs from somewhere else, checked against the spec.
  Module m = compileNoVerify(kCopy, "k.kp");
  Args args;
  args.setInt("n", 300);
  ASSERT_TRUE(Executor().allocateBuffers(m, "copy", args));
  fillInputs(m, "copy", args, 5);
  HostBuffer &x = *args.buffer("x"), &y = *args.buffer("y");
  for (int64_t i = 0; i < 300; ++i)
    y.set(i, x.get(i));
  ExecOptions eo;
  eo.ensuresOnly = true;
  Result<ExecResult> ok = Executor(eo).run(m, "copy", args);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_TRUE(ok->ok());
  EXPECT_EQ(ok->threadsRun, 0u); // the kernel did not run
  EXPECT_EQ(y.get(7), x.get(7)); // nor poisoned anything

  y.set(123, x.get(123) + 1);
  Result<ExecResult> bad = Executor(eo).run(m, "copy", args);
  ASSERT_TRUE(bad);
  ASSERT_NE(bad->find(CheckId::Postcondition), nullptr);
  EXPECT_NE(bad->find(CheckId::Postcondition)->message.find("at i = 123"), std::string::npos)
      << bad->find(CheckId::Postcondition)->message;
}

/// A one-kernel report with one undecided check at `line`:`col`.
Report undecided(const std::string &kernel, const std::string &id, int line, int col) {
  CheckResult c = checkAt(id, CheckStatus::Unknown, line, col);
  c.message = "could not decide: the postcondition holds (the solver's resource limit ran out)";
  c.failMessage = "the postcondition may not hold";
  KernelReport k;
  k.name = kernel;
  k.verdict = Verdict::Unknown;
  k.checks.push_back(c);
  Report r;
  r.file = "k.kp";
  r.kernels.push_back(k);
  return r;
}

} // namespace

TEST(Falsify, UndecidedCheckFailsWhenARunShowsIt) {
  Module m = compileNoVerify(kLeaky, "k.kp");
  Report r = undecided("leaky_relu", "postcondition", 5, 3);
  falsifyUndecided(m, r);
  const CheckResult &c = r.kernels[0].checks[0];
  EXPECT_EQ(r.kernels[0].verdict, Verdict::Failed);
  EXPECT_EQ(c.status, CheckStatus::Failed);
  EXPECT_EQ(c.message, "the postcondition may not hold");
  ASSERT_TRUE(c.confirmed.has_value());
  EXPECT_TRUE(*c.confirmed);
  EXPECT_NE(c.observed.find("ensures failed"), std::string::npos) << c.observed;
  ASSERT_FALSE(c.counterexample.empty());
  EXPECT_EQ(c.counterexample[0].first, "n");
}

TEST(Falsify, SpentBudgetLeavesTheCheckUndecided) {
  // The proof used the whole budget: no run starts, the check stays unknown.
  Module m = compileNoVerify(kLeaky, "k.kp");
  Report r = undecided("leaky_relu", "postcondition", 5, 3);
  r.kernels[0].timeMs = 2000;
  ReplayOptions opts;
  opts.budgetSeconds = 2;
  replayAndFalsify(m, r, opts);
  EXPECT_EQ(r.kernels[0].verdict, Verdict::Unknown);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Unknown);
  // With budget left, the same run shows the failure.
  r = undecided("leaky_relu", "postcondition", 5, 3);
  r.kernels[0].timeMs = 100;
  replayAndFalsify(m, r, opts);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Failed);
}

TEST(Falsify, CorrectKernelStaysUndecided) {
  // A run that passes proves nothing: the check stays unknown, never proved.
  Module m = compileNoVerify(kCopy, "k.kp");
  Report r = undecided("copy", "postcondition", 5, 3);
  falsifyUndecided(m, r);
  EXPECT_EQ(r.kernels[0].verdict, Verdict::Unknown);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Unknown);
  EXPECT_FALSE(r.kernels[0].checks[0].confirmed.has_value());
}

TEST(Falsify, RunThatBreaksAnAssumptionShowsNothing) {
  // Random inputs make x[i] > 0 false for about half the threads; the assert
  // that depends on it then fails in the run, but the proof is about inputs
  // where the assumption holds: no counterexample, the check stays undecided.
  const char *kAssumed = R"(
kernel assumed(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 20
{
  let i = blockIdx.x * 256 + threadIdx.x;
  if i < n {
    assume x[i] > 0.0;
    assert x[i] > 0.0;
    y[i] = x[i];
  }
}
)";
  Module m = compileNoVerify(kAssumed, "k.kp");
  Report r = undecided("assumed", "assert", 9, 5);
  falsifyUndecided(m, r);
  EXPECT_EQ(r.kernels[0].verdict, Verdict::Unknown);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Unknown);
}

TEST(Falsify, ViolationOfAnotherLineIsNotAttributed) {
  // The leaky kernel fails its postcondition (line 5), not a check on line 9.
  Module m = compileNoVerify(kLeaky, "k.kp");
  Report r = undecided("leaky_relu", "postcondition", 9, 5);
  falsifyUndecided(m, r);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Unknown);
}

TEST(Falsify, RoundingIsNotAFailureOfAnApproxClause) {
  // A sequential f32 sum of n elements is off from the exact sum by rounding
  // only: not a violation of the approx clause, however large n is here.
  const char *kSum = R"(
kernel total(in x: f32[n], out s: f32[1], n: i32)
  launch block(1) grid(1)
  requires n >= 0 && n <= 1 << 20
  ensures approx s[0] == sum(k in 0..n: x[k])
{
  var acc: f32 = 0.0;
  for j in 0..n
    invariant approx acc == sum(k in 0..j: x[k])
  {
    acc += x[j];
  }
  s[0] = acc;
}
)";
  Module m = compileNoVerify(kSum, "k.kp");
  Report r = undecided("total", "postcondition", 5, 3);
  falsifyUndecided(m, r);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Unknown)
      << r.kernels[0].checks[0].observed;
}

TEST(Falsify, UnwrittenElementsRefuteTheWrittenClaimOnly) {
  // Nothing is written: the run shows the clause failing on never-written
  // elements. That refutes "every element it names is written", not a check
  // about the values written.
  Module m = compileNoVerify(kEmpty, "k.kp");
  Report r = undecided("copy", "postcondition", 5, 3);
  r.kernels[0].checks[0].message = "could not decide: the value written at line 7 satisfies the "
                                   "postcondition (the solver's resource limit ran out)";
  CheckResult written = r.kernels[0].checks[0];
  written.message = "could not decide: every element of 'y' the postcondition names is written";
  written.failMessage = "no thread writes the element of out buffer 'y' the postcondition names";
  r.kernels[0].checks.push_back(written);
  falsifyUndecided(m, r);
  EXPECT_EQ(r.kernels[0].checks[0].status, CheckStatus::Unknown);
  EXPECT_EQ(r.kernels[0].checks[1].status, CheckStatus::Failed);
  EXPECT_NE(r.kernels[0].checks[1].observed.find("never written"), std::string::npos)
      << r.kernels[0].checks[1].observed;
}

TEST(Falsify, UnderflowIsNotAFailureOfAnApproxClause) {
  // The product of up to 1000 factors in [-2, 2) underflows f32 (to 0 or a
  // denormal): the approx proof is over the reals, without underflow, so a run
  // that shows it does not refute the clause.
  const char *kProd = R"(
kernel prod(in x: f32[n], out s: f32[1], n: i32)
  launch block(1) grid(1)
  requires n >= 1 && n <= 1 << 20
  ensures approx s[0] == prod(k in 0..n: x[k])
{
  var acc: f32 = 1.0;
  for j in 0..n
    invariant approx acc == prod(k in 0..j: x[k])
  {
    acc *= x[j];
  }
  s[0] = acc;
}
)";
  Module m = compileNoVerify(kProd, "k.kp");
  std::vector<CheckResult> found = runForFailures(m, "prod", false, {1 << 12});
  EXPECT_TRUE(found.empty()) << found[0].observed;
}

namespace {
// Sums rows through a tree that starts at stride 64: partial[128..256) is
// dropped, which shows only with more than 128 columns.
const char *kRowSumMissingLevel = R"(
kernel row_sum(in x: f32[rows, cols], out y: f32[rows], rows: i32, cols: i32)
  launch block(256) grid(rows)
  requires rows >= 0 && cols >= 0 && rows <= 1 << 20 && cols <= 1 << 20
  ensures approx forall r in 0..rows: y[r] == sum(j in 0..cols: x[r, j])
{
  shared partial: f32[256];
  let t = threadIdx.x;
  var acc: f32 = 0.0;
  for j in t..cols step 256 {
    acc += x[blockIdx.x, j];
  }
  partial[t] = acc;
  barrier;
  for stride in [64, 32, 16, 8, 4, 2, 1] {
    if t < stride {
      partial[t] += partial[t + stride];
    }
    barrier;
  }
  if t == 0 {
    y[blockIdx.x] = partial[0];
  }
}
)";
} // namespace

TEST(Falsify, SkewedShapeFindsAFailureOfWideRows) {
  Module m = compileNoVerify(kRowSumMissingLevel, "k.kp");
  std::vector<CheckResult> found = runForFailures(m, "row_sum", false, {1 << 12});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, CheckId::Postcondition);
  // Shown at a shape with more than 128 columns (the run with inputs in
  // [0, 1) shows it at the first such shape, whose random signed values cancel).
  const std::string &seen = found[0].observed;
  size_t at = seen.find("cols = ");
  ASSERT_NE(at, std::string::npos) << seen;
  EXPECT_GT(std::stoll(seen.substr(at + 7)), 128) << seen;
}

TEST(ChooseScalars, FavouredParameterGetsTheLargestFit) {
  Module m = compileNoVerify(kRowSumMissingLevel, "k.kp");
  Args balanced, wide, tall;
  ASSERT_TRUE(chooseScalars(m, "row_sum", balanced, 1 << 12, false));
  Result<std::vector<std::string>> w = chooseScalars(m, "row_sum", wide, 1 << 12, false, "cols");
  ASSERT_TRUE(w);
  EXPECT_EQ((*w)[0], "rows=1");
  EXPECT_EQ((*w)[1], "cols=2048"); // from 2048 down (within the cap of 4096 elements)
  Args narrow;
  Result<std::vector<std::string>> n = chooseScalars(m, "row_sum", narrow, 1 << 11, false, "cols");
  ASSERT_TRUE(n);
  EXPECT_EQ((*n)[1], "cols=1000"); // 2048 columns and the output do not fit in 2048
  Result<std::vector<std::string>> t = chooseScalars(m, "row_sum", tall, 1 << 12, false, "rows");
  ASSERT_TRUE(t);
  EXPECT_EQ((*t)[0], "rows=16"); // 16 blocks of 256 threads: the thread cap
  EXPECT_EQ((*t)[1], "cols=1");
  Args none;
  EXPECT_FALSE(chooseScalars(m, "row_sum", none, 1 << 12, false, "nope"));
}

namespace {
// Wrong for NaN alone: `x >= 0 ? x : 0` is 0 where the clause's `x < 0 ? 0 : x` is NaN.
const char *kClampNaN = R"(
kernel clamp(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 20
  ensures forall i in 0..n: y[i] == (x[i] < 0.0 ? 0.0 : x[i])
{
  let i = blockIdx.x * 256 + threadIdx.x;
  if i < n {
    y[i] = x[i] >= 0.0 ? x[i] : 0.0;
  }
}
)";
} // namespace

TEST(Falsify, EdgeInputsShowANaNBugOfAnExactClause) {
  Module m = compileNoVerify(kClampNaN, "k.kp");
  ASSERT_NE(m.kernel("clamp"), nullptr);
  EXPECT_FALSE(m.kernel("clamp")->approx);
  std::vector<CheckResult> found = runForFailures(m, "clamp", false, {1 << 12});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, CheckId::Postcondition);
  EXPECT_NE(found[0].explanation.find("edge cases"), std::string::npos) << found[0].explanation;
  EXPECT_NE(found[0].observed.find("expected nan"), std::string::npos) << found[0].observed;
}

TEST(Falsify, NoEdgeInputsForAnApproxClause) {
  // Proven over the reals for finite inputs: a NaN is no evidence against it.
  std::string approx = kClampNaN;
  approx.replace(approx.find("ensures forall"), 14, "ensures approx forall");
  Module m = compileNoVerify(approx.c_str(), "k.kp");
  ASSERT_NE(m.kernel("clamp"), nullptr);
  EXPECT_TRUE(m.kernel("clamp")->approx);
  std::vector<CheckResult> found = runForFailures(m, "clamp", false, {1 << 12});
  EXPECT_TRUE(found.empty()) << found[0].observed;
}

TEST(Refutes, ARaceRefutesTheCheckOfItsPairInEitherOrder) {
  // The verifier's race check is at the later access of a pair, naming the
  // earlier; a run catches the race at whichever access came second in time.
  CheckResult check;
  check.id = CheckId::Race;
  check.file = "k.kp";
  check.line = 16;
  check.col = 3;
  check.otherLine = 15;
  check.otherCol = 11;
  CheckResult run = check;
  EXPECT_TRUE(refutes(run, check));
  std::swap(run.line, run.otherLine);
  std::swap(run.col, run.otherCol);
  EXPECT_TRUE(refutes(run, check));
  // Another pair at one of its places is another check.
  run.otherLine = 20;
  EXPECT_FALSE(refutes(run, check));
  run.otherLine = 16;
  run.otherCol = 4;
  EXPECT_FALSE(refutes(run, check));
  // Nor does it refute the check at that place that names no pair (each
  // element written there has one writer the verifier can name).
  run = check;
  CheckResult writer = check;
  writer.otherLine = writer.otherCol = 0;
  EXPECT_FALSE(refutes(run, writer));
}

TEST(Refutes, AnInvariantFailureRefutesTheObligationItShows) {
  // A loop invariant has two obligations at one line; a run that shows it
  // failing after an iteration does not refute "on entry" (it was reported,
  // confirmed, as failing on entry).
  CheckResult run;
  run.id = CheckId::Invariant;
  run.file = "k.kp";
  run.line = 9;
  run.col = 5;
  run.observed = "loop invariant does not hold after an iteration in thread 0 of block 0: lhs = 1, "
                 "expected 2";
  CheckResult entry = run, after = run;
  entry.observed = after.observed = "";
  entry.message = "the loop invariant holds on entry";
  after.message = "the loop invariant holds after an iteration";
  EXPECT_FALSE(refutes(run, entry));
  EXPECT_TRUE(refutes(run, after));
  run.observed = "approx loop invariant does not hold on entry in thread 0 of block 0";
  EXPECT_TRUE(refutes(run, entry));
  EXPECT_FALSE(refutes(run, after));
}

TEST(Settle, ATentativeFailureNoRunConfirmsIsUndecided) {
  KernelReport kr;
  CheckResult proved, tentative;
  proved.status = CheckStatus::Proved;
  tentative.id = CheckId::Postcondition;
  tentative.status = CheckStatus::Failed;
  tentative.tentative = true;
  tentative.message = "the postcondition may not hold";
  tentative.confirmed = false;
  kr.checks = {proved, tentative};
  kr.verdict = Verdict::Failed;
  settleTentative(kr);
  EXPECT_EQ(kr.checks[1].status, CheckStatus::Unknown);
  EXPECT_EQ(kr.checks[1].message.rfind("undecided: the postcondition may not hold", 0), 0u);
  EXPECT_EQ(kr.verdict, Verdict::Unknown);
  // Confirmed by a run, it stays failed.
  kr.checks[1] = tentative;
  kr.checks[1].confirmed = true;
  kr.verdict = Verdict::Failed;
  settleTentative(kr);
  EXPECT_EQ(kr.checks[1].status, CheckStatus::Failed);
  EXPECT_EQ(kr.verdict, Verdict::Failed);
}

TEST(Falsify, RunsThatFinishedAreReusedThroughTheMemo) {
  // The same calls with a memo: the second, under a step limit no run can
  // finish within, finds what the first found, from the runs the first kept
  // (without the memo it would find nothing).
  Module m = compileNoVerify(kRowSumMissingLevel, "k.kp");
  ReplayOptions opts;
  opts.memo = makeRunMemo();
  std::vector<CheckResult> first = runForFailures(m, "row_sum", false, {1 << 12}, opts);
  ASSERT_EQ(first.size(), 1u);
  opts.maxSteps = 1;
  std::vector<CheckResult> again = runForFailures(m, "row_sum", false, {1 << 12}, opts);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].observed, first[0].observed);
  opts.memo = nullptr;
  EXPECT_TRUE(runForFailures(m, "row_sum", false, {1 << 12}, opts).empty());
}

namespace {
// acc == j breaks after the iteration j = 5 only (checked with j = 6): the
// sixth iteration's check, and it is restored by the seventh.
const char *kInvariantBrokenAtSix = R"(
kernel count(out y: i32[1], n: i32)
  launch block(1) grid(1)
  requires n >= 0 && n <= 100
{
  var acc: i32 = 0;
  for j in 0..n
    invariant acc == j
  {
    acc += 1;
    if j == 5 {
      acc += 100;
    }
    if j == 6 {
      acc -= 100;
    }
  }
  y[0] = acc;
}
)";

size_t invariantViolations(const Module &m, int64_t n, bool sampled) {
  Args args;
  args.setInt("n", n);
  Executor executor;
  EXPECT_TRUE(executor.allocateBuffers(m, "count", args));
  ExecOptions eo;
  eo.sampleForInvariants = sampled;
  Result<ExecResult> r = Executor(eo).run(m, "count", args);
  EXPECT_TRUE(bool(r)) << (r ? "" : r.error().message);
  size_t found = 0;
  if (r)
    for (const Violation &v : r->violations)
      found += v.kind == CheckId::Invariant;
  return found;
}
} // namespace

TEST(Executor, SampledInvariantChecksSkipSomeIterationsButNeverTheLast) {
  Module m = compileNoVerify(kInvariantBrokenAtSix, "k.kp");
  EXPECT_EQ(invariantViolations(m, 10, /*sampled=*/false), 1u); // every iteration
  EXPECT_EQ(invariantViolations(m, 10, /*sampled=*/true), 0u);  // 6: no power of two
  EXPECT_EQ(invariantViolations(m, 6, /*sampled=*/true), 1u);   // the last iteration
}

namespace {
// An i32 row sum of up to 64 terms, each at most 2^26 in magnitude: 32 terms
// at the bound overflow; random inputs never come near it.
const char *kRowSumWideTerms = R"(
kernel row_sum(in x: i32[rows, cols], out y: i32[rows], rows: i32, cols: i32)
  launch block(64) grid(cdiv(rows, 64))
  requires rows >= 0 && rows <= 1024 && cols >= 0 && cols <= 64
  requires forall a in 0..rows: forall b in 0..cols: x[a, b] >= -(1 << 26) && x[a, b] <= 1 << 26
{
  let i = blockIdx.x * 64 + threadIdx.x;
  if i < rows {
    var acc: i32 = 0;
    for j in 0..cols {
      acc += x[i, j];
    }
    y[i] = acc;
  }
}
)";
} // namespace

TEST(Falsify, ExtremeIntegersShowAnOverflowRandomInputsDoNot) {
  Module m = compileNoVerify(kRowSumWideTerms, "k.kp");
  ReplayOptions opts;
  for (const CheckResult &c : runForFailures(m, "row_sum", false, {1 << 12}, opts))
    EXPECT_NE(c.id, CheckId::Overflow) << c.observed;
  opts.extremeIntegers = true;
  std::vector<CheckResult> found = runForFailures(m, "row_sum", false, {1 << 12}, opts);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, CheckId::Overflow);
  EXPECT_NE(found[0].explanation.find("every integer input 67108864, the largest the requires "
                                      "clause admits"),
            std::string::npos)
      << found[0].explanation;
}
