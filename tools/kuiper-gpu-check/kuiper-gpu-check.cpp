//===- kuiper-gpu-check.cpp - Kernels on the GPU vs the CPU executor -------===//
//
//   kuiper-gpu-check [--compare-n N] [--bench-n N] [--reps R] [--peak-gbs G]
//                    [--bench K1,K2,...] [--dry-run] FILE.kp...
//
// For every kernel of every FILE: compile and verify it for the GPU's arch,
// run it through kuiper::Device on the GPU and through kuiper::Executor on
// the CPU on the same seeded inputs (at about --compare-n elements), and
// compare the outputs:
//   - exact kernels (no approx clause): bit for bit (NaN equals NaN). When a
//     kernel trusts math functions (exp, tanh, ...), the GPU calls libdevice
//     and the executor libm, which may differ in the last bits: such kernels
//     pass within |gpu - cpu| <= 8 eps (1 + |cpu|), reported as "math ulp";
//   - approx kernels: the GPU output must satisfy the kernel's ensures within
//     the verifier's derived bound (the report's tolerances), evaluated by the
//     executor on the GPU's buffers (ExecOptions::ensuresOnly).
// Then the kernels named by --bench (default: elu_fwd, hardtanh, gelu_fwd,
// sigmoid_fwd) run on the GPU alone at --bench-n elements (default 2^28);
// the best kernel time of --reps launches gives the effective bandwidth
// (bytes read + written) / time, against --peak-gbs (H200: 4800 GB/s).
// One table is printed.
//
// Without a GPU or driver: prints "no GPU: <Device::open error>" and
// "GPU check not run", exit 0. Exit 1 if any comparison failed, 2 on bad
// usage. --dry-run stands the CPU executor (reverse schedule) in for the GPU
// and skips the bandwidth runs: it tests this tool where no GPU is.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Compiler.h"
#include "kuiper/Device.h"
#include "kuiper/Executor.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace kuiper;

namespace {

struct Options {
  std::vector<std::string> files;
  int64_t compareN = int64_t(1) << 16;
  int64_t benchN = int64_t(1) << 28;
  int reps = 5;
  double peakGBs = 4800;
  std::set<std::string> bench = {"elu_fwd", "hardtanh", "gelu_fwd", "sigmoid_fwd"};
  bool dryRun = false;
};

struct Row {
  std::string kernel, file, verdict, compare = "-", status = "-";
  int64_t n = 0;
  int64_t mismatches = 0;
  double maxDiff = 0;
  double benchMs = -1, gbs = -1;
  int64_t benchN = 0;
  std::string note;
};

int usage(const std::string &msg) {
  std::cerr << "kuiper-gpu-check: error: " << msg << "\n"
            << "usage: kuiper-gpu-check [--compare-n N] [--bench-n N] [--reps R]\n"
               "                        [--peak-gbs G] [--bench K1,K2,...] [--dry-run]\n"
               "                        FILE.kp...\n";
  return 2;
}

bool isFloat(const std::string &t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

/// The newest arch kuiperc supports that the device runs (PTX is forward
/// compatible).
std::string compileArch(const std::string &deviceArch) {
  static const int supported[] = {75, 80, 86, 89, 90};
  int have = std::atoi(deviceArch.c_str() + 3);
  std::string best = "sm_75";
  for (int s : supported)
    if (s <= have)
      best = "sm_" + std::to_string(s);
  return best;
}

/// Binds the integer parameters to the largest of a few uniform sizes whose
/// launch (elements of all buffers, threads) stays within `budget` elements,
/// floats to 1.5, bools to true; then falls back to kuiper-run's choice.
bool chooseCompareScalars(const Module &m, const KernelInfo &k, Args &args,
                          int64_t target) {
  static const int64_t sizes[] = {65536, 16384, 4096, 1024, 1000, 256, 100, 64, 32, 16, 8, 4, 2, 1};
  Executor ex;
  for (int64_t s : sizes) {
    if (s > target)
      continue;
    Args trial = args;
    for (const ParamInfo &p : k.params) {
      if (p.kind != ParamInfo::Scalar || trial.scalar(p.name))
        continue;
      if (isFloat(p.type))
        trial.setFloat(p.name, 1.5);
      else if (p.type == "bool" || p.type == "i1")
        trial.setBool(p.name, true);
      else
        trial.setInt(p.name, s);
    }
    Result<LaunchInfo> info = ex.describe(m, k.name, trial);
    if (!info || !info->requiresHold)
      continue;
    int64_t total = 0;
    bool ok = true;
    for (auto &[name, dims] : info->bufferDims) {
      int64_t n = 1;
      for (int64_t d : dims) {
        if (d < 0 || (d > 0 && n > (2 * target) / d)) {
          ok = false;
          break;
        }
        n *= d;
      }
      total += n;
    }
    if (!ok || total > 2 * target || info->numBlocks() * info->blockSize() > 2 * target)
      continue;
    args = std::move(trial);
    return true;
  }
  return (bool)chooseScalars(m, k.name, args);
}

/// Compares the out/inout buffers of a GPU run (`gpu`) with a CPU run.
void compareOutputs(const KernelInfo &k, const Args &gpu, const Args &cpu, bool mathUlp,
                    Row &row) {
  for (const ParamInfo &p : k.params) {
    if (p.kind != ParamInfo::Buffer || p.access == "in")
      continue;
    const HostBuffer *g = gpu.buffer(p.name), *c = cpu.buffer(p.name);
    if (!g || !c || g->bytes.size() != c->bytes.size()) {
      ++row.mismatches;
      continue;
    }
    size_t es = g->elemSize();
    for (int64_t i = 0; i < g->numElements(); ++i) {
      if (std::memcmp(g->bytes.data() + i * es, c->bytes.data() + i * es, es) == 0)
        continue;
      double a = g->get(i), b = c->get(i);
      if (std::isnan(a) && std::isnan(b))
        continue; // NaN payloads may differ
      double diff = std::fabs(a - b);
      if (std::isnan(diff))
        diff = INFINITY;
      row.maxDiff = std::max(row.maxDiff, diff);
      double eps = g->elemType == "f64" ? DBL_EPSILON
                   : g->elemType == "f16" ? 9.77e-4
                   : g->elemType == "bf16" ? 7.81e-3
                                           : FLT_EPSILON;
      if (mathUlp && isFloat(g->elemType) && diff <= 8 * eps * (1 + std::fabs(b)))
        continue;
      ++row.mismatches;
    }
  }
}

std::string fmt(double v, const char *f) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

void printTable(const std::vector<Row> &rows, const Options &o, const std::string &dev) {
  std::printf("GPU check on %s: GPU vs CPU executor, and bandwidth at n = %lld (best of %d)\n",
              dev.c_str(), (long long)o.benchN, o.reps);
  std::printf("%-14s %-16s %-9s %7s %-13s %9s %10s %-6s %10s %9s %7s\n", "kernel", "file",
              "verdict", "n", "compare", "mismatch", "max|diff|", "status", "bench ms",
              "GB/s", "%peak");
  for (const Row &r : rows) {
    std::printf("%-14s %-16s %-9s %7lld %-13s %9lld %10s %-6s %10s %9s %7s\n",
                r.kernel.c_str(), r.file.c_str(), r.verdict.c_str(), (long long)r.n,
                r.compare.c_str(), (long long)r.mismatches, fmt(r.maxDiff, "%.3g").c_str(),
                r.status.c_str(), r.benchMs < 0 ? "-" : fmt(r.benchMs, "%.3f").c_str(),
                r.gbs < 0 ? "-" : fmt(r.gbs, "%.0f").c_str(),
                r.gbs < 0 ? "-" : fmt(100 * r.gbs / o.peakGBs, "%.1f").c_str());
    if (!r.note.empty())
      std::printf("    %s: %s\n", r.kernel.c_str(), r.note.c_str());
  }
}

} // namespace

/// Reads the command line into `o`; an exit status when the tool should stop
/// here (help, or a usage error), -1 to go on.
static int parseArguments(int argc, char **argv, Options &o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&](std::string &v) {
      if (i + 1 >= argc)
        return false;
      v = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--compare-n" || a == "--bench-n" || a == "--reps" || a == "--peak-gbs") {
      if (!next(v))
        return usage(a + " needs a value");
      char *end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end || d <= 0)
        return usage("bad value '" + v + "' for " + a);
      if (a == "--compare-n")
        o.compareN = (int64_t)d;
      else if (a == "--bench-n")
        o.benchN = (int64_t)d;
      else if (a == "--reps")
        o.reps = (int)d;
      else
        o.peakGBs = d;
    } else if (a == "--bench") {
      if (!next(v))
        return usage("--bench needs a list of kernels");
      o.bench.clear();
      std::stringstream ss(v);
      for (std::string k; std::getline(ss, k, ',');)
        if (!k.empty())
          o.bench.insert(k);
    } else if (a == "--dry-run") {
      o.dryRun = true;
    } else if (a == "--help" || a == "-h") {
      usage("");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      return usage("unknown option " + a);
    } else {
      o.files.push_back(a);
    }
  }
  if (o.files.empty())
    return usage("no input files");
  return -1;
}

/// The GPU side: kuiper::Device, or the executor in a dry run.
struct GpuRunner {
  bool dryRun = true;
  Result<Device> device = Error{"dry run", 2};

  /// Runs `kernel` once; the device time in ms (0 in a dry run).
  Result<double> run(const Module &m, const std::string &kernel, Args &a) {
    if (dryRun) {
      ExecOptions eo;
      eo.checks = false;
      eo.schedule = ExecOptions::Reverse;
      Result<ExecResult> r = Executor(eo).run(m, kernel, a);
      if (!r)
        return r.error();
      return 0.0;
    }
    Result<DeviceRun> r = device->launch(m, kernel, a);
    if (!r)
      return r.error();
    return r->elapsedMs;
  }
};

/// What the report of kernel `k` says about tolerances and trusted math.
struct Expectation {
  const KernelReport *report = nullptr;
  bool approx = false;     ///< an `ensures approx`: compare against the spec
  double tolerance = 0;    ///< the largest derived relative bound
  bool trustsMath = false; ///< libdevice functions: compare within ulps
};

Expectation expectationOf(const Module &m, const KernelInfo &k) {
  Expectation e;
  for (const KernelReport &x : m.report().kernels)
    if (x.name == k.name)
      e.report = &x;
  if (!e.report)
    return e;
  e.approx = !e.report->tolerances.empty();
  for (const Tolerance &t : e.report->tolerances)
    // No constant bound derived (loop-carried sums): a loose tolerance,
    // which the table marks.
    e.tolerance = std::max(e.tolerance, t.relative < 0 ? 1e-3 : t.relative);
  for (const std::string &t : e.report->trusted)
    e.trustsMath |= t.find("uninterpreted") != std::string::npos ||
                    t.find("libdevice") != std::string::npos;
  return e;
}

/// Runs `k` on the GPU and on the CPU executor at a small size and compares
/// the outputs (bitwise, within math ulps, or against the spec within the
/// derived bound). Fills `r`; false with `r.note` set if it could not run.
bool compareWithExecutor(const Options &o, GpuRunner &gpuRunner, const Module &m,
                         const KernelInfo &k, Row &r) {
  Expectation e = expectationOf(m, k);
  Args args;
  if (!chooseCompareScalars(m, k, args, o.compareN)) {
    r.note = "no launch size satisfies requires";
    return false;
  }
  Executor probe;
  Result<LaunchInfo> info = probe.allocateBuffers(m, k.name, args);
  if (!info) {
    r.note = info.error().message;
    return false;
  }
  fillInputs(m, k.name, args, /*seed=*/1);
  for (const auto &[name, dims] : info->bufferDims) {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    r.n = std::max(r.n, n);
  }
  Args cpu = args, gpu = args;
  ExecOptions eo;
  eo.checks = false;
  Result<ExecResult> cr = Executor(eo).run(m, k.name, cpu);
  Result<double> gr = gpuRunner.run(m, k.name, gpu);
  if (!cr || !gr) {
    r.note = !cr ? "CPU: " + cr.error().message : "GPU: " + gr.error().message;
    return false;
  }
  if (e.approx) {
    // The GPU's output against the spec, within the derived bound.
    ExecOptions spec;
    spec.ensuresOnly = true;
    spec.approxRelTol = std::max(e.tolerance, 1e-7);
    Result<ExecResult> sr = Executor(spec).run(m, k.name, gpu);
    compareOutputs(k, gpu, cpu, /*mathUlp=*/false, r); // for max|diff|
    r.compare = "bound " + fmt(spec.approxRelTol, "%.2g");
    r.mismatches = sr ? (int64_t)sr->violations.size() : 1;
    if (!sr)
      r.note = sr.error().message;
    else if (!sr->violations.empty())
      r.note = sr->violations[0].message;
  } else {
    compareOutputs(k, gpu, cpu, e.trustsMath, r);
    r.compare = e.trustsMath ? "math ulp" : "bitwise";
  }
  return true;
}

/// Times `k` on the GPU alone at `o.benchN` elements, best of `o.reps`;
/// fills the bandwidth columns of `r` (or a note saying why not).
void benchmark(const Options &o, GpuRunner &gpuRunner, const Module &m,
               const KernelInfo &k, Row &r) {
  Args big;
  big.setInt("n", o.benchN);
  for (const ParamInfo &p : k.params)
    if (p.kind == ParamInfo::Scalar && isFloat(p.type))
      big.setFloat(p.name, 1.5);
  // Buffers built directly: allocateBuffers stops at 2 GiB.
  Executor probe;
  Result<LaunchInfo> bi = probe.describe(m, k.name, big);
  if (!bi || !bi->requiresHold) {
    r.note = "bench: " + (bi ? "requires does not hold at n = " + std::to_string(o.benchN)
                             : bi.error().message);
    return;
  }
  for (const auto &[name, dims] : bi->bufferDims)
    big.setBuffer(name, HostBuffer(bi->bufferTypes[name].first, dims));
  fillInputs(m, k.name, big, /*seed=*/2);
  double bytes = 0;
  for (const ParamInfo &p : k.params)
    if (p.kind == ParamInfo::Buffer)
      bytes += (double)big.buffer(p.name)->bytes.size() * (p.access == "inout" ? 2 : 1);
  double best = -1;
  for (int rep = 0; rep < o.reps; ++rep) {
    Result<double> br = gpuRunner.run(m, k.name, big);
    if (!br) {
      r.note = "bench: " + br.error().message;
      break;
    }
    if (best < 0 || *br < best)
      best = *br;
  }
  if (best > 0) {
    r.benchMs = best;
    r.benchN = o.benchN;
    r.gbs = bytes / (best * 1e-3) / 1e9;
  }
}

/// Compiles `file` and checks each of its kernels; one row per kernel.
/// Returns false if any failed.
bool checkFile(const Options &o, GpuRunner &gpuRunner, const std::string &arch,
               const std::string &file, std::vector<Row> &rows) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  CompileOptions co;
  co.arch = arch;
  Result<Module> m = Compiler(co).compileFile(file);
  if (!m) {
    Row r;
    r.kernel = "?";
    r.file = base;
    r.verdict = "error";
    r.status = "FAIL";
    r.note = m.error().message;
    while (!r.note.empty() && r.note.back() == '\n')
      r.note.pop_back();
    rows.push_back(r);
    return false;
  }
  bool allOk = true;
  for (const KernelInfo &k : m->kernels()) {
    Row r;
    r.kernel = k.name;
    r.file = base;
    const KernelReport *kr = expectationOf(*m, k).report;
    r.verdict = kr ? verdictName(kr->verdict) : "?";
    bool ok;
    if (!m->report().verified() || m->ptx().empty()) {
      r.note = "not verified: no PTX";
      ok = false;
    } else {
      ok = compareWithExecutor(o, gpuRunner, *m, k, r) && r.mismatches == 0;
      if (ok && o.bench.count(k.name) && !o.dryRun)
        benchmark(o, gpuRunner, *m, k, r);
    }
    r.status = ok ? "ok" : "FAIL";
    allOk &= ok;
    rows.push_back(r);
  }
  return allOk;
}

int main(int argc, char **argv) {
  Options o;
  if (int status = parseArguments(argc, argv, o); status >= 0)
    return status;

  // Eager module loading: kernel times then hold no lazy-loading cost.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  GpuRunner gpuRunner;
  gpuRunner.dryRun = o.dryRun;
  std::string devName = "the CPU executor (dry run: reverse schedule stands in for the GPU)";
  std::string arch = "sm_80";
  if (!o.dryRun) {
    gpuRunner.device = Device::open();
    if (!gpuRunner.device) {
      std::cout << "no GPU: " << gpuRunner.device.error().message << "\n"
                << "GPU check not run\n";
      return 0;
    }
    devName = gpuRunner.device->name();
    arch = compileArch(gpuRunner.device->arch());
    std::cerr << "device: " << devName << "; compiling for " << arch << "\n";
  }

  std::vector<Row> rows;
  bool allOk = true;
  for (const std::string &file : o.files)
    allOk &= checkFile(o, gpuRunner, arch, file, rows);
  printTable(rows, o, devName);
  std::printf("GPU check %s\n", allOk ? "passed" : "FAILED");
  return allOk ? 0 : 1;
}
