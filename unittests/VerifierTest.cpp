//===- VerifierTest.cpp - The verifier through the public Compiler API ----===//
//
// Small kernels compiled from strings with verification on: which checks are
// proved, which fail (with a counterexample), which are unknown, what the
// report lists as trusted and which tolerance it derives.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

using namespace kuiper;

namespace {

Module compile(const std::string &src) {
  CompileOptions o;
  o.emitPTX = false;
  o.useCache = false;
  o.replay = false;
  Result<Module> m = Compiler(o).compileString(src, "test.kp");
  EXPECT_TRUE(bool(m)) << (m ? "" : m.error().message);
  return std::move(*m);
}

const CheckResult *find(const KernelReport &k, const std::string &id, const std::string &status) {
  for (const auto &c : k.checks)
    if (checkName(c.id) == id && statusName(c.status) == status)
      return &c;
  return nullptr;
}

std::string value(const CheckResult &c, const std::string &name) {
  for (const auto &[n, v] : c.counterexample)
    if (n == name)
      return v;
  return "<absent>";
}

const char *kCopy = R"(
kernel copy(in x: f32[n], out y: f32[n], n: i32)
  launch block(256) grid(cdiv(n, 256))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == x[i]
{
  let i = blockIdx.x * 256 + threadIdx.x;
  if i < n {
    y[i] = x[i];
  }
}
)";

TEST(Verifier, CopyIsVerified) {
  Module m = compile(kCopy);
  ASSERT_EQ(m.report().kernels.size(), 1u);
  const KernelReport &k = m.report().kernels[0];
  EXPECT_EQ(k.verdict, Verdict::Verified);
  EXPECT_GT(k.obligations, 5u);
  EXPECT_TRUE(k.trusted.empty());
  for (const char *id : {"bounds", "overflow", "race", "coverage", "postcondition"})
    EXPECT_NE(find(k, id, "proved"), nullptr) << id;
}

TEST(Verifier, EmptyBodyFailsCoverageWithCounterexample) {
  std::string src = kCopy;
  src = src.substr(0, src.find('{')) + "{\n}\n";
  Module m = compile(src);
  const KernelReport &k = m.report().kernels[0];
  EXPECT_EQ(k.verdict, Verdict::Failed);
  const CheckResult *c = find(k, "coverage", "failed");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(value(*c, "n"), "<absent>");
  EXPECT_NE(c->explanation.find("no thread writes y["), std::string::npos);
  EXPECT_NE(find(k, "postcondition", "failed"), nullptr);
}

TEST(Verifier, OffByOneGuardFailsBounds) {
  std::string src = kCopy;
  src.replace(src.find("if i < n"), 8, "if i <= n");
  Module m = compile(src);
  const CheckResult *c = find(m.report().kernels[0], "bounds", "failed");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(value(*c, "x index 0"), value(*c, "n"));
}

TEST(Verifier, IndexOverflowForLargeN) {
  // With 192 threads per block the last index passes 2^31 - 1 (with 256 it
  // would not: (2^23 - 1) * 256 + 255 fits).
  std::string src = kCopy;
  src.replace(src.find("requires n >= 0 && n <= 1 << 30"), 32, "requires n >= 0");
  for (size_t p; (p = src.find("256")) != std::string::npos;)
    src.replace(p, 3, "192");
  Module m = compile(src);
  EXPECT_NE(find(m.report().kernels[0], "overflow", "failed"), nullptr);
}

TEST(Verifier, WrongValueFailsPostconditionOnly) {
  std::string src = kCopy;
  src.replace(src.find("y[i] = x[i];"), 12, "y[i] = x[i] + 1.0;");
  Module m = compile(src);
  const KernelReport &k = m.report().kernels[0];
  EXPECT_NE(find(k, "postcondition", "failed"), nullptr);
  EXPECT_EQ(find(k, "coverage", "failed"), nullptr);
}

TEST(Verifier, MathFunctionsAndAssumeAreTrusted) {
  Module m = compile(R"(
kernel e(in x: f32[n], out y: f32[n], n: i32)
  launch block(128) grid(cdiv(n, 128))
  requires n >= 0 && n <= 1 << 30
  ensures forall i in 0..n: y[i] == exp(x[i])
{
  let i = blockIdx.x * 128 + threadIdx.x;
  assume i >= 0;
  if i < n {
    y[i] = exp(x[i]);
  }
}
)");
  const KernelReport &k = m.report().kernels[0];
  EXPECT_EQ(k.verdict, Verdict::Verified);
  auto has = [&](const std::string &s) {
    return std::any_of(k.trusted.begin(), k.trusted.end(),
                       [&](const std::string &t) { return t.find(s) != std::string::npos; });
  };
  EXPECT_TRUE(has("exp"));
  EXPECT_TRUE(has("assume at test.kp:8"));
}

TEST(Verifier, ApproxSumReportsTolerance) {
  Module m = compile(R"(
kernel pair(in x: f32[2 * n], out y: f32[n], n: i32)
  launch block(64) grid(cdiv(n, 64))
  requires n >= 0 && n <= 1 << 20
  ensures approx forall i in 0..n: y[i] == sum(j in 0..2: x[2 * i + j])
{
  let i = blockIdx.x * 64 + threadIdx.x;
  if i < n {
    y[i] = x[2 * i + 1] + x[2 * i];
  }
}
)");
  const KernelReport &k = m.report().kernels[0];
  EXPECT_EQ(k.verdict, Verdict::Verified);
  ASSERT_EQ(k.tolerances.size(), 1u);
  EXPECT_EQ(k.tolerances[0].depth, 1);
  EXPECT_NEAR(k.tolerances[0].relative, std::ldexp(1.0, -24), 1e-12);
}

TEST(Verifier, UnmodelledConstructIsUnknownNeverVerified) {
  Module m = compile(R"(
kernel total(in x: f32[n], out y: f32[1], n: i32)
  launch block(1) grid(1)
  requires n >= 0 && n <= 1 << 20
  ensures y[0] == sum(j in 0..n: x[j])
{
  var acc: f32 = 0.0;
  for j in 0..n
    invariant acc == sum(k in 0..j: x[k])
  {
    acc += x[j];
  }
  y[0] = acc;
}
)");
  const KernelReport &k = m.report().kernels[0];
  EXPECT_EQ(k.verdict, Verdict::Unknown);
  ASSERT_FALSE(k.checks.empty());
  bool named = false;
  for (const CheckResult &c : k.checks)
    named |= c.id == CheckId::Unsupported &&
             c.message.find("sum with bounds that are not compile-time constants") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Verifier, RaceBetweenBlocksNamesBothThreads) {
  Module m = compile(R"(
kernel first(in x: f32[n], out y: f32[1], n: i32)
  launch block(64) grid(cdiv(n, 64))
  requires n >= 1 && n <= 1 << 20
{
  if threadIdx.x == 0 {
    y[0] = x[blockIdx.x * 64];
  }
}
)");
  const CheckResult *c = find(m.report().kernels[0], "race", "failed");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(value(*c, "thread A blockIdx.x"), value(*c, "thread B blockIdx.x"));
}

} // namespace
