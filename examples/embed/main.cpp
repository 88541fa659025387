// embed-elu: the Kuiper C++ API in one page.
//
// 1. kuiper::Compiler compiles and verifies ELU from a string; the report is
//    printed (and a failed verification stops the program).
// 2. kuiper::Executor runs the verified kernel on the CPU, with the real
//    launch geometry and the dynamic checks on.
// 3. The output is compared with a plain C++ ELU; any mismatch exits 1.
//
// Links against Kuiper::Runtime only: no MLIR, LLVM, Z3 or CUDA headers.
#include "kuiper/Compiler.h"
#include "kuiper/Executor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>

static const char *kEluSource = R"(
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

int main() {
  // 1. Compile and verify (no PTX: this program runs on the CPU only).
  kuiper::CompileOptions opts;
  opts.emitPTX = false;
  kuiper::Result<kuiper::Module> module =
      kuiper::Compiler(opts).compileString(kEluSource, "elu.kp");
  if (!module) {
    std::cerr << module.error().message;
    return 2;
  }
  std::cout << module->report().toText();
  if (!module->report().verified()) {
    std::cerr << "embed-elu: ELU did not verify\n";
    return 1;
  }

  // 2. Run it on the CPU executor.
  const int64_t n = 3000;
  const float alpha = 0.5f;
  kuiper::Args args;
  args.setInt("n", n).setFloat("alpha", alpha);
  kuiper::Executor exec; // dynamic checks on: races, coverage, the ensures
  kuiper::Result<kuiper::LaunchInfo> launch = exec.allocateBuffers(*module, "elu_fwd", args);
  if (!launch) {
    std::cerr << launch.error().message << "\n";
    return 2;
  }
  kuiper::fillInputs(*module, "elu_fwd", args, /*seed=*/42);
  kuiper::Result<kuiper::ExecResult> run = exec.run(*module, "elu_fwd", args);
  if (!run) {
    std::cerr << run.error().message << "\n";
    return 3;
  }
  for (const kuiper::Violation &v : run->violations)
    std::cerr << v.location << ": " << v.message << " [" << v.kind << "]\n";
  std::cout << "ran elu_fwd on the CPU executor: grid " << launch->grid[0] << " x block "
            << launch->block[0] << ", " << run->violations.size()
            << " dynamic check failures\n";

  // 3. Compare with plain C++ (float arithmetic, as the kernel computes).
  const kuiper::HostBuffer &x = *args.buffer("x");
  const kuiper::HostBuffer &y = *args.buffer("y");
  int64_t mismatches = 0;
  double maxErr = 0;
  for (int64_t i = 0; i < n; ++i) {
    float xi = x.at<float>(i);
    float ref = xi > 0.0f ? xi : alpha * (std::exp(xi) - 1.0f);
    float got = y.at<float>(i);
    double err = std::fabs((double)got - (double)ref);
    maxErr = std::max(maxErr, err);
    if (!(err <= 1e-6 * std::fabs(ref))) {
      if (mismatches++ < 5)
        std::cerr << "mismatch at " << i << ": x = " << xi << ", kernel " << got
                  << ", reference " << ref << "\n";
    }
  }
  std::printf("compared %lld elements with the C++ reference: %lld mismatches, max error %g\n",
              (long long)n, (long long)mismatches, maxErr);
  if (mismatches || !run->ok()) {
    std::cout << "FAIL\n";
    return 1;
  }
  std::cout << "PASS\n";
  return 0;
}
