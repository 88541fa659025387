//===- VectorizeTest.cpp - the vectorizing rewrite through the C++ API ----===//
//
// A verifying Compiler returns the rewritten kernel (several elements per
// thread, verified again); run on the CPU executor it must compute exactly
// what the kernel as written computes, tail elements included, and its
// launch has the rewritten grid.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Executor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace kuiper;

namespace {

Module compileExample(const std::string &file, bool vectorize) {
  CompileOptions opts;
  opts.emitPTX = false;
  opts.vectorize = vectorize;
  opts.useCache = false;
  Result<Module> m =
      Compiler(opts).compileFile(std::string(KUIPER_SOURCE_DIR) + "/examples/" + file);
  EXPECT_TRUE(m) << (m ? "" : m.error().message);
  EXPECT_TRUE(m && m->report().verified());
  return std::move(*m);
}

/// Runs `kernel` of `m` on the CPU executor with `args` (y among them) and
/// returns its y (n elements); the run must succeed without a violation.
std::vector<float> runForY(const Module &m, const std::string &kernel, Args &args, int n) {
  Result<ExecResult> r = Executor().run(m, kernel, args);
  EXPECT_TRUE(r) << (r ? "" : r.error().message);
  EXPECT_TRUE(r && r->violations.empty());
  std::vector<float> y(n);
  for (int i = 0; i < n; ++i)
    y[i] = float(args.buffer("y")->get(i));
  return y;
}

/// y of `kernel` for x = a deterministic mix of signs, NaN and infinities.
std::vector<float> run(const Module &m, const std::string &kernel, int n,
                       int64_t *grid = nullptr) {
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = (i % 7 == 3) ? -INFINITY : (i % 11 == 5) ? NAN : float(i % 13) - 6.25f;
  Args args;
  args.setInt("n", n);
  if (kernel == "elu_fwd")
    args.setFloat("alpha", 1.0);
  args.setBuffer("x", HostBuffer::f32(x));
  args.setBuffer("y", HostBuffer::f32(std::vector<float>(n, 42.0f)));
  if (grid) {
    Result<LaunchInfo> info = Executor().describe(m, kernel, args);
    EXPECT_TRUE(info);
    *grid = info ? info->grid[0] : -1;
  }
  return runForY(m, kernel, args, n);
}

/// Bitwise equality (NaNs included).
void expectSame(const std::vector<float> &a, const std::vector<float> &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(0, std::memcmp(&a[i], &b[i], sizeof(float))) << "element " << i;
}

TEST(Vectorize, GuardedKernelComputesTheSameWithAQuarterOfTheGrid) {
  Module scalar = compileExample("elu.kp", false);
  Module vector = compileExample("elu.kp", true);
  EXPECT_TRUE(scalar.report().kernels[0].lowered.empty());
  EXPECT_NE(vector.report().kernels[0].lowered.find("4 elements per thread"),
            std::string::npos)
      << vector.report().kernels[0].lowered;
  for (int n : {0, 1, 5, 1023, 1024, 1025, 3001}) {
    int64_t gridScalar = 0, gridVector = 0;
    std::vector<float> a = run(scalar, "elu_fwd", n, &gridScalar);
    std::vector<float> b = run(vector, "elu_fwd", n, &gridVector);
    expectSame(a, b);
    EXPECT_EQ(gridScalar, (n + 255) / 256);
    EXPECT_EQ(gridVector, (gridScalar + 3) / 4) << "n = " << n;
  }
}

TEST(Vectorize, GridStrideKernelComputesTheSame) {
  Module scalar = compileExample("hardtanh.kp", false);
  Module vector = compileExample("hardtanh.kp", true);
  EXPECT_NE(vector.report().kernels[0].lowered.find("a proven refinement"), std::string::npos);
  for (int n : {3, 1000, 4099})
    expectSame(run(scalar, "hardtanh", n), run(vector, "hardtanh", n));
}

/// A body with function-local variables, branches and a gather: the
/// rewrite is a proven refinement (its side conditions alone are checked), each
/// logical thread has its own locals, and the result is the source's, bit for bit.
TEST(Vectorize, RefinementWithLocalsAndGatherComputesTheSame) {
  const char *source = R"(
kernel clampgather(in x: f32[n], in idx: i32[n], out y: f32[n], n: i32)
  launch block(128) grid(cdiv(n, 128))
  requires n >= 0 && n <= 1 << 28
  requires forall k in 0..n: 0 <= idx[k] && idx[k] < n
{
  let i = blockIdx.x * blockDim.x + threadIdx.x;
  if i < n {
    var v: f32 = x[i];
    var w: f32 = v;
    if v < 0.0 {
      w = x[idx[i]];
    } else if w > 2.0 {
      w = 2.0;
    }
    y[i] = v > 1.0 ? w * 0.5 : x[idx[i]] + w;
  }
}
)";
  auto compile = [&](bool vectorize) {
    CompileOptions opts;
    opts.emitPTX = false;
    opts.vectorize = vectorize;
    opts.useCache = false;
    Result<Module> m = Compiler(opts).compileString(source, "clampgather.kp");
    EXPECT_TRUE(m) << (m ? "" : m.error().message);
    EXPECT_TRUE(m && m->report().verified());
    return std::move(*m);
  };
  Module scalar = compile(false), vector = compile(true);
  EXPECT_NE(vector.report().kernels[0].lowered.find("a proven refinement"), std::string::npos)
      << vector.report().kernels[0].lowered;
  for (int n : {1, 3, 129, 511, 512, 513, 2049}) {
    auto runOnce = [&](const Module &m) {
      std::vector<float> x(n);
      std::vector<int32_t> idx(n);
      for (int i = 0; i < n; ++i) {
        x[i] = float((i * 37) % 17) * 0.25f - 1.5f;
        idx[i] = (i * 7 + 3) % n;
      }
      Args args;
      args.setInt("n", n);
      args.setBuffer("x", HostBuffer::f32(x));
      args.setBuffer("idx", HostBuffer::i32(idx));
      args.setBuffer("y", HostBuffer::f32(std::vector<float>(n, 42.0f)));
      return runForY(m, "clampgather", args, n);
    };
    expectSame(runOnce(scalar), runOnce(vector));
  }
}

} // namespace
