//===- SeedStoryTest.cpp - Why Kuiper: the tolerance check vs the proof ---===//
//
// The story of docs/why-kuiper.md as a test. A KernelBench-style harness
// checks a kernel by running it on random inputs and comparing its output
// with a reference within atol = rtol = 1e-2 (torch.allclose). Here the
// reference is computed first, into the same output buffer the kernel then
// writes (as a harness that reuses its output tensor, or runs the reference
// before the candidate, does). A kernel that does nothing leaves the
// reference in place and PASSES. kuiper::Compiler rejects the same kernel:
// coverage and the postcondition fail, and the counterexamples are confirmed
// by replay on the CPU executor.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

using namespace kuiper;

namespace {

const char *kEluEmpty = R"(
fn elu(x: f32, alpha: f32) -> f32 {
  return x > 0.0 ? x : alpha * (exp(x) - 1.0);
}

kernel elu_fwd(in x: f32[n], out y: f32[n], n: i32, alpha: f32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == elu(x[i], alpha)
{
}
)";

const char *kHardtanhEmpty = R"(
kernel hardtanh(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == fmin(fmax(x[i], -1.0), 1.0)
{
}
)";

const char *kElu = R"(
fn elu(x: f32, alpha: f32) -> f32 {
  return x > 0.0 ? x : alpha * (exp(x) - 1.0);
}

kernel elu_fwd(in x: f32[n], out y: f32[n], n: i32, alpha: f32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == elu(x[i], alpha)
{
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if i < n {
    y[i] = elu(x[i], alpha);
  }
}
)";

const float kAlpha = 1.0f;

float eluRef(float x) { return x > 0.0f ? x : kAlpha * (std::exp(x) - 1.0f); }
float hardtanhRef(float x) { return std::fmin(std::fmax(x, -1.0f), 1.0f); }

Module compile(const char *source, const std::string &name) {
  CompileOptions opts;
  opts.emitPTX = false; // the CPU executor runs the kuiper IR
  Result<Module> m = Compiler(opts).compileString(source, name);
  if (!m) {
    ADD_FAILURE() << m.error().message;
    Result<Module> empty = parseModuleIR("module {}");
    return std::move(*empty);
  }
  return std::move(*m);
}

struct ToleranceOutcome {
  bool ran = false;
  bool passed = false;
  int64_t mismatches = 0;
};

/// The KernelBench-style check: random inputs; the reference output is
/// computed first, into the output buffer; then the kernel runs (on the CPU
/// executor, dynamic checks off: a plain run); then allclose(y, reference,
/// atol = rtol = 1e-2).
ToleranceOutcome toleranceCheck(const Module &m, const std::string &kernel,
                                const std::function<float(float)> &reference,
                                int64_t n = 4096, uint64_t seed = 2024) {
  ToleranceOutcome out;
  Args args;
  args.setInt("n", n);
  const KernelInfo *k = m.kernel(kernel);
  if (!k) {
    ADD_FAILURE() << "no kernel " << kernel;
    return out;
  }
  for (const ParamInfo &p : k->params)
    if (p.name == "alpha")
      args.setFloat("alpha", kAlpha);
  ExecOptions eo;
  eo.checks = false;
  Executor exec(eo);
  Result<LaunchInfo> info = exec.allocateBuffers(m, kernel, args);
  if (!info) {
    ADD_FAILURE() << info.error().message;
    return out;
  }
  fillInputs(m, kernel, args, seed);
  HostBuffer &x = *args.buffer("x");
  HostBuffer &y = *args.buffer("y");
  std::vector<float> expected(n);
  for (int64_t i = 0; i < n; ++i) {
    expected[i] = reference(x.at<float>(i));
    y.set(i, expected[i]); // the reference, first, into the same buffer
  }
  Result<ExecResult> r = exec.run(m, kernel, args);
  if (!r) {
    ADD_FAILURE() << r.error().message;
    return out;
  }
  out.ran = true;
  const double atol = 1e-2, rtol = 1e-2;
  for (int64_t i = 0; i < n; ++i) {
    double got = y.get(i), want = expected[i];
    if (!(std::fabs(got - want) <= atol + rtol * std::fabs(want)))
      ++out.mismatches;
  }
  out.passed = out.mismatches == 0;
  return out;
}

const CheckResult *failedCheck(const Report &r, const std::string &id) {
  for (const KernelReport &k : r.kernels)
    for (const CheckResult &c : k.checks)
      if (checkName(c.id) == id && c.status == CheckStatus::Failed)
        return &c;
  return nullptr;
}

std::string describe(const Report &r) { return r.toText(); }

TEST(SeedStory, EmptyEluPassesTheToleranceCheck) {
  Module m = compile(kEluEmpty, "elu_empty.kp");
  ToleranceOutcome t = toleranceCheck(m, "elu_fwd", eluRef);
  EXPECT_TRUE(t.ran);
  EXPECT_TRUE(t.passed) << t.mismatches << " mismatches";
}

TEST(SeedStory, EmptyHardtanhPassesTheToleranceCheck) {
  Module m = compile(kHardtanhEmpty, "hardtanh_empty.kp");
  ToleranceOutcome t = toleranceCheck(m, "hardtanh", hardtanhRef);
  EXPECT_TRUE(t.ran);
  EXPECT_TRUE(t.passed) << t.mismatches << " mismatches";
}

TEST(SeedStory, CompilerRejectsEmptyEluWithConfirmedCounterexamples) {
  Module m = compile(kEluEmpty, "elu_empty.kp");
  const Report &r = m.report();
  EXPECT_FALSE(r.verified());
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].verdict, Verdict::Failed);
  EXPECT_TRUE(m.ptx().empty());
  for (const char *id : {"coverage", "postcondition"}) {
    const CheckResult *c = failedCheck(r, id);
    ASSERT_NE(c, nullptr) << id << " did not fail:\n" << describe(r);
    EXPECT_FALSE(c->counterexample.empty()) << id;
    ASSERT_TRUE(c->confirmed.has_value()) << id;
    EXPECT_TRUE(*c->confirmed) << id << ": " << c->observed;
  }
  EXPECT_NE(failedCheck(r, "coverage")->observed.find("never written"), std::string::npos)
      << failedCheck(r, "coverage")->observed;
  EXPECT_NE(r.toText().find("note: confirmed by replay: "), std::string::npos);
}

TEST(SeedStory, CompilerRejectsEmptyHardtanhWithConfirmedCounterexamples) {
  Module m = compile(kHardtanhEmpty, "hardtanh_empty.kp");
  const Report &r = m.report();
  EXPECT_FALSE(r.verified());
  for (const char *id : {"coverage", "postcondition"}) {
    const CheckResult *c = failedCheck(r, id);
    ASSERT_NE(c, nullptr) << id << " did not fail:\n" << describe(r);
    ASSERT_TRUE(c->confirmed.has_value()) << id;
    EXPECT_TRUE(*c->confirmed) << id << ": " << c->observed;
  }
}

TEST(SeedStory, DynamicChecksCatchTheEmptyKernelToo) {
  // The executor poisons `out` buffers and checks coverage and the ensures:
  // the same run with checks on fails.
  Module m = compile(kEluEmpty, "elu_empty.kp");
  Args args;
  args.setInt("n", 1000).setFloat("alpha", kAlpha);
  Executor exec;
  ASSERT_TRUE(exec.allocateBuffers(m, "elu_fwd", args));
  fillInputs(m, "elu_fwd", args, 1);
  Result<ExecResult> r = exec.run(m, "elu_fwd", args);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_NE(r->find(CheckId::Coverage), nullptr);
  EXPECT_EQ(r->find(CheckId::Coverage)->message,
            "y[0] never written (1000 of 1000 elements of y never written)");
  EXPECT_NE(r->find(CheckId::Postcondition), nullptr);
}

TEST(SeedStory, CorrectEluPassesBoth) {
  Module m = compile(kElu, "elu.kp");
  EXPECT_TRUE(m.report().verified()) << describe(m.report());
  ToleranceOutcome t = toleranceCheck(m, "elu_fwd", eluRef);
  EXPECT_TRUE(t.passed) << t.mismatches << " mismatches";
}

TEST(SeedStory, ToleranceCheckDoesCatchAWrongKernelWhenItWrites) {
  // The harness is not useless: a kernel that writes a wrong value fails it.
  // It is the kernel that writes nothing that slips through.
  const char *wrong = R"(
kernel hardtanh(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
{
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if i < n {
    y[i] = fmin(fmax(x[i], -0.5), 0.5);
  }
}
)";
  CompileOptions opts;
  opts.verify = false;
  opts.emitPTX = false;
  Result<Module> m = Compiler(opts).compileString(wrong, "hardtanh_wrong.kp");
  ASSERT_TRUE(m) << m.error().message;
  ToleranceOutcome t = toleranceCheck(*m, "hardtanh", hardtanhRef);
  EXPECT_TRUE(t.ran);
  EXPECT_FALSE(t.passed);
}

} // namespace
