//===- Inputs.cpp - Small launches and seeded inputs for a kernel ---------===//
//
// chooseScalars and fillInputs (include/kuiper/Executor.h): the launch that
// `kuiper-run`, counterexample replay, the GPU check and the tests pick when
// the user gives no values.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Executor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace kuiper {

namespace {

bool isFloatType(const std::string &t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

double edgeFloat(std::mt19937_64 &rng, const std::string &t) {
  static const double f32Edges[] = {
      0.0, -0.0, INFINITY, -INFINITY, NAN, 1.4e-45, -1.4e-45, 1.0e-40,
      1.17549435e-38, 3.0e38, -3.0e38, 1e-30, 1.0, -1.0, 65504.0};
  static const double f64Edges[] = {
      0.0, -0.0, INFINITY, -INFINITY, NAN, 4.9e-324, -4.9e-324, 1e-310,
      2.2250738585072014e-308, 1.7e308, -1.7e308, 1e-300, 1.0, -1.0};
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  if (rng() % 2)
    return u(rng);
  if (t == "f64")
    return f64Edges[rng() % (sizeof f64Edges / sizeof(double))];
  return f32Edges[rng() % (sizeof f32Edges / sizeof(double))];
}

} // namespace

void fillInputs(const Module &module, const std::string &kernel, Args &args,
                uint64_t seed, bool edge) {
  const KernelInfo *k = module.kernel(kernel);
  if (!k)
    return;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (const ParamInfo &p : k->params) {
    if (p.kind != ParamInfo::Buffer || p.access == "out")
      continue;
    HostBuffer *b = args.buffer(p.name);
    if (!b)
      continue;
    int64_t n = b->numElements();
    for (int64_t i = 0; i < n; ++i) {
      if (isFloatType(b->elemType)) {
        b->set(i, edge ? edgeFloat(rng, b->elemType) : u(rng));
      } else if (b->elemType == "bool") {
        b->set(i, rng() % 2);
      } else if (edge && rng() % 2) {
        static const int64_t e32[] = {0, -1, 1, 2147483647, -2147483647 - 1};
        static const int64_t e64[] = {0, -1, 1, std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min()};
        bool wide = b->elemType == "i64" || b->elemType == "u64";
        int64_t v = wide ? e64[rng() % 5] : e32[rng() % 5];
        if (wide)
          std::memcpy(b->bytes.data() + i * 8, &v, 8);
        else
          b->set(i, (double)v);
      } else {
        b->set(i, (double)((int64_t)(rng() % 201) - 100));
      }
    }
  }
}

Result<std::vector<std::string>> chooseScalars(const Module &m,
                                               const std::string &kernel,
                                               Args &args, int64_t maxElements) {
  const KernelInfo *k = m.kernel(kernel);
  if (!k)
    return Error{"no kernel '" + kernel + "' in the module", 2};
  std::vector<std::string> chosen;
  std::vector<const ParamInfo *> ints;
  for (const ParamInfo &p : k->params) {
    if (p.kind != ParamInfo::Scalar || args.scalar(p.name))
      continue;
    if (isFloatType(p.type)) {
      args.set(p.name, 1.5);
      chosen.push_back(p.name + "=1.5");
    } else if (p.type == "bool" || p.type == "i1") {
      args.set(p.name, true);
      chosen.push_back(p.name + "=true");
    } else {
      ints.push_back(&p);
    }
  }
  if (ints.empty())
    return chosen;
  static const int64_t cands[] = {1000, 257, 256, 100, 64, 33, 32, 16, 8, 4, 2, 1, 0};
  const size_t nc = sizeof cands / sizeof cands[0];
  Executor ex;
  auto fits = [&](Args &trial) {
    Result<LaunchInfo> info = ex.describe(m, kernel, trial);
    if (!info || !info->requiresHold)
      return false;
    int64_t total = 0;
    for (auto &[name, dims] : info->bufferDims) {
      int64_t n = 1;
      for (int64_t d : dims) {
        if (d < 0 || (d > 0 && n > maxElements / d))
          return false;
        n *= d;
      }
      total += n;
      if (total > maxElements)
        return false;
    }
    int64_t blocks = info->numBlocks(), threads = info->blockSize();
    if (blocks < 0 || (threads > 0 && blocks > maxElements / threads))
      return false;
    return blocks * threads <= maxElements;
  };
  // Uniform assignments first, then combinations (up to 3 parameters).
  std::vector<size_t> idx(ints.size(), 0);
  auto assign = [&](Args &trial) {
    for (size_t j = 0; j < ints.size(); ++j)
      trial.set(ints[j]->name, cands[idx[j]]);
  };
  bool found = false;
  for (size_t c = 0; c < nc && !found; ++c) {
    std::fill(idx.begin(), idx.end(), c);
    Args trial = args;
    assign(trial);
    if (fits(trial)) {
      args = std::move(trial);
      found = true;
    }
  }
  if (!found && ints.size() <= 3) {
    size_t total = 1;
    for (size_t j = 0; j < ints.size(); ++j)
      total *= nc;
    for (size_t t = 0; t < total && !found; ++t) {
      size_t r = t;
      for (size_t j = 0; j < ints.size(); ++j) {
        idx[j] = r % nc;
        r /= nc;
      }
      Args trial = args;
      assign(trial);
      if (fits(trial)) {
        args = std::move(trial);
        found = true;
      }
    }
  }
  if (!found)
    return Error{"no small values of the integer parameters satisfy the requires "
                 "clause; set them with --set NAME=VALUE",
                 2};
  for (size_t j = 0; j < ints.size(); ++j)
    chosen.push_back(ints[j]->name + "=" + std::to_string(cands[idx[j]]));
  return chosen;
}

} // namespace kuiper
