//===- Inputs.cpp - Small launches and seeded inputs for a kernel ---------===//
//
// chooseScalars and fillInputs (include/kuiper/Executor.h): the launch that
// `kuiper-run`, counterexample replay, the GPU check and the tests pick when
// the user gives no values.
//
// The integer parameters come from a short list of round sizes first. Z3
// then solves the `requires` clauses, the size limits and, for each
// `kuiper.for`, "some thread runs this loop at least twice" (a capped
// grid-stride loop needs more elements than threads): it finds values when
// no listed one fits, and replaces the listed choice when that leaves a
// loop that could run twice running at most once.
//
//===----------------------------------------------------------------------===//
#include "kuiper/Executor.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "runtime/ModuleImpl.h"

#include <z3++.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <random>

namespace kuiper {

namespace {

bool isFloatType(const std::string &t) {
  return t == "f16" || t == "bf16" || t == "f32" || t == "f64";
}

const double kF32Edges[] = {0.0,     -0.0,     INFINITY, -INFINITY,      NAN,
                            1.4e-45, -1.4e-45, 1.0e-40,  1.17549435e-38, 3.0e38,
                            -3.0e38, 1e-30,    1.0,      -1.0,           65504.0};
const double kF64Edges[] = {0.0,     -0.0,     INFINITY, -INFINITY, NAN, 4.9e-324, -4.9e-324,
                            1e-310,  2.2250738585072014e-308, 1.7e308,   -1.7e308,  1e-300,
                            1.0,     -1.0};
const int64_t kI32Edges[] = {0, -1, 1, 2147483647, -2147483647 - 1};
const int64_t kI64Edges[] = {0, -1, 1, std::numeric_limits<int64_t>::max(),
                             std::numeric_limits<int64_t>::min()};

/// Edge inputs come in runs of 1 to 32 elements: half of the runs mix
/// random values and edge cases element by element (each element an edge
/// case with probability 1/2), the other half repeat one edge case, so that
/// neighbours that are all -0, all NaN or all equal (a sum of -0s that must
/// stay -0, the ties of an argmax) turn up as often as a lone NaN does.
class EdgeRuns {
public:
  EdgeRuns(std::mt19937_64 &rng, size_t edges) : rng(rng), edges(edges) {}
  /// The edge case (an index into the type's table) the next element takes,
  /// or nothing for a random value.
  std::optional<size_t> next() {
    if (left == 0) {
      left = 1 + rng() % 32;
      repeated = rng() % 2 ? std::optional<size_t>(rng() % edges) : std::nullopt;
    }
    --left;
    if (repeated)
      return repeated;
    if (rng() % 2)
      return std::nullopt;
    return rng() % edges;
  }

private:
  std::mt19937_64 &rng;
  size_t edges;
  int64_t left = 0;
  std::optional<size_t> repeated;
};

//===----------------------------------------------------------------------===//
// Solving the launch with Z3
//===----------------------------------------------------------------------===//

/// Encodes a kernel's launch in Z3 bit-vectors: its integer parameters, its
/// `requires` clauses, its size limits and, per `kuiper.for`, whether some
/// thread runs the loop at least twice. Only integer arithmetic over the
/// parameters, thread and block ids is encoded; a clause or loop bound that
/// uses anything else makes the clause (or the loop's goal) unavailable.
class LaunchEncoder {
public:
  LaunchEncoder(z3::context &z, KernelOp kernel) : z(z), kernel(kernel) {}

  /// The parameter variables, by name (integer parameters only).
  std::map<std::string, z3::expr> params;
  /// Requires clauses and size limits; false when one cannot be encoded.
  bool encodeLaunch(const KernelInfo &info, const Args &fixed,
                    int64_t maxElements, z3::expr_vector &out) {
    mlir::Block &entry = kernel.getBody().front();
    for (auto [i, p] : llvm::enumerate(info.params)) {
      if (i >= entry.getNumArguments())
        return false;
      mlir::BlockArgument arg = entry.getArgument(i);
      auto it = mlir::dyn_cast<mlir::IntegerType>(arg.getType());
      if (p.kind != ParamInfo::Scalar || !it)
        continue;
      unsigned w = it.getWidth();
      z3::expr v = z.bv_const(p.name.c_str(), w);
      if (const ScalarValue *sv = fixed.scalar(p.name)) {
        int64_t c = 0;
        if (auto *iv = std::get_if<int64_t>(sv))
          c = *iv;
        else if (auto *bv = std::get_if<bool>(sv))
          c = *bv;
        else
          return false;
        v = z.bv_val(c, w);
      } else if (w > 1) {
        params.emplace(p.name, v);
      }
      args.emplace(arg.getAsOpaquePointer(), v);
    }
    z3::expr total = z.bv_val(0, 64);
    z3::expr cap = z.bv_val(maxElements, 64);
    for (mlir::Operation &op : entry) {
      if (auto req = mlir::dyn_cast<RequiresOp>(op)) {
        std::optional<z3::expr> c = yielded(req.getCond(), 0);
        if (!c)
          return false;
        out.push_back(*c == z.bv_val(1, 1));
      } else if (auto shape = mlir::dyn_cast<ShapeOp>(op)) {
        z3::expr n = z.bv_val(1, 64);
        for (mlir::Value d : shape.getDims()) {
          std::optional<z3::expr> e = value(d, 0);
          if (!e)
            return false;
          z3::expr d64 = wide(*e);
          out.push_back(d64 >= 0 && d64 <= cap);
          n = n * d64;
        }
        out.push_back(n <= cap);
        total = total + n;
      } else if (auto launch = mlir::dyn_cast<LaunchOp>(op)) {
        z3::expr blocks = z.bv_val(1, 64);
        for (mlir::Value g : launch.getGrid()) {
          std::optional<z3::expr> e = value(g, 0);
          if (!e)
            return false;
          z3::expr g64 = wide(*e);
          out.push_back(g64 >= 1 && g64 <= cap);
          blocks = blocks * g64;
          grid.push_back(*e);
        }
        int64_t threads = info.block[0] * info.block[1] * info.block[2];
        out.push_back(blocks * z.bv_val(threads, 64) <= cap);
      }
    }
    out.push_back(total <= cap);
    return grid.size() == 3;
  }

  /// One goal per loop whose bounds can be encoded: some thread (and some
  /// iteration of the loops around it) runs it at least twice.
  std::vector<z3::expr> loopGoals(const KernelInfo &info) {
    std::vector<z3::expr> goals;
    kernel.walk([&](ForOp loop) {
      unsigned thread = ++threads;
      z3::expr_vector range(z);
      for (int d = 0; d < 3; ++d) {
        z3::expr t = threadVar("tid", d, thread), b = threadVar("bid", d, thread);
        range.push_back(z3::ule(t, z.bv_val(info.block[d] - 1, 32)));
        range.push_back(z3::ult(b, grid[d]));
      }
      std::optional<z3::expr> lo = value(loop.getLo(), thread);
      std::optional<z3::expr> hi = value(loop.getHi(), thread);
      std::optional<z3::expr> step = value(loop.getStep(), thread);
      if (!lo || !hi || !step)
        return;
      for (const z3::expr &c : loopRanges)
        range.push_back(c);
      loopRanges.clear();
      z3::expr second = wide(*lo) + wide(*step);
      goals.push_back(z3::mk_and(range) && wide(*step) > 0 &&
                      second < wide(*hi));
    });
    return goals;
  }

private:
  z3::context &z;
  KernelOp kernel;
  std::vector<z3::expr> grid;
  std::unordered_map<const void *, z3::expr> args;
  std::map<std::pair<const void *, unsigned>, z3::expr> memo;
  /// Range facts of the enclosing loops' induction variables met while
  /// encoding the current loop's bounds.
  std::vector<z3::expr> loopRanges;
  unsigned threads = 0;

  z3::expr threadVar(const char *what, int d, unsigned thread) {
    return z.bv_const((std::string(what) + std::to_string(d) + "_" +
                       std::to_string(thread))
                          .c_str(),
                      32);
  }

  z3::expr wide(const z3::expr &e) {
    unsigned w = e.get_sort().bv_size();
    return w >= 64 ? e : z3::sext(e, 64 - w);
  }

  std::optional<z3::expr> yielded(mlir::Region &r, unsigned thread) {
    if (r.empty())
      return std::nullopt;
    auto y = mlir::dyn_cast<YieldOp>(r.front().getTerminator());
    if (!y || y.getValues().size() != 1)
      return std::nullopt;
    return value(y.getValues()[0], thread);
  }

  /// The value of `v` for the symbolic thread `thread` (0: no thread).
  std::optional<z3::expr> value(mlir::Value v, unsigned thread) {
    auto key = std::make_pair(v.getAsOpaquePointer(), thread);
    auto found = memo.find(key);
    if (found != memo.end())
      return found->second;
    std::optional<z3::expr> e = compute(v, thread);
    if (e)
      memo.emplace(key, *e);
    return e;
  }

  std::optional<z3::expr> compute(mlir::Value v, unsigned thread) {
    if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) {
      auto it = args.find(arg.getAsOpaquePointer());
      if (it != args.end())
        return it->second;
      auto loop = mlir::dyn_cast<ForOp>(arg.getOwner()->getParentOp());
      if (!loop || !thread || arg.getArgNumber() != 0)
        return std::nullopt;
      std::optional<z3::expr> lo = value(loop.getLo(), thread);
      std::optional<z3::expr> hi = value(loop.getHi(), thread);
      if (!lo || !hi)
        return std::nullopt;
      z3::expr iv = z.bv_const(("iv" + std::to_string(memo.size()) + "_" +
                                std::to_string(thread))
                                   .c_str(),
                               lo->get_sort().bv_size());
      loopRanges.push_back(wide(*lo) <= wide(iv) && wide(iv) < wide(*hi));
      return iv;
    }
    mlir::Operation *op = v.getDefiningOp();
    if (!op || op->getNumResults() != 1)
      return std::nullopt;
    if (auto c = mlir::dyn_cast<mlir::arith::ConstantOp>(op)) {
      auto a = mlir::dyn_cast<mlir::IntegerAttr>(c.getValue());
      if (!a)
        return std::nullopt;
      unsigned w = a.getType().getIntOrFloatBitWidth();
      return z.bv_val(w == 1 ? (a.getValue().isZero() ? 0 : 1)
                             : a.getValue().getSExtValue(),
                      w);
    }
    if (mlir::isa<ThreadIdOp, BlockIdOp, GridDimOp>(op)) {
      int64_t d = op->getAttrOfType<mlir::IntegerAttr>("dim").getInt();
      if (mlir::isa<GridDimOp>(op))
        return grid.size() == 3 ? std::optional<z3::expr>(grid[d]) : std::nullopt;
      if (!thread)
        return std::nullopt;
      return threadVar(mlir::isa<ThreadIdOp>(op) ? "tid" : "bid", d, thread);
    }
    std::vector<z3::expr> in;
    for (mlir::Value o : op->getOperands()) {
      std::optional<z3::expr> e = value(o, thread);
      if (!e)
        return std::nullopt;
      in.push_back(*e);
    }
    auto boolBit = [&](const z3::expr &b) {
      return z3::ite(b, z.bv_val(1, 1), z.bv_val(0, 1));
    };
    unsigned rw = 0;
    if (auto it = mlir::dyn_cast<mlir::IntegerType>(op->getResult(0).getType()))
      rw = it.getWidth();
    else
      return std::nullopt;
    llvm::StringRef name = op->getName().getStringRef();
    if (in.size() == 2) {
      const z3::expr &a = in[0], &b = in[1];
      if (name == "arith.addi") return a + b;
      if (name == "arith.subi") return a - b;
      if (name == "arith.muli") return a * b;
      if (name == "arith.divsi") return a / b;
      if (name == "arith.divui") return z3::udiv(a, b);
      if (name == "arith.remsi") return z3::srem(a, b);
      if (name == "arith.remui") return z3::urem(a, b);
      if (name == "arith.shli") return z3::shl(a, b);
      if (name == "arith.shrsi") return z3::ashr(a, b);
      if (name == "arith.shrui") return z3::lshr(a, b);
      if (name == "arith.andi") return a & b;
      if (name == "arith.ori") return a | b;
      if (name == "arith.xori") return a ^ b;
      if (name == "arith.minsi") return z3::ite(a <= b, a, b);
      if (name == "arith.maxsi") return z3::ite(a >= b, a, b);
      if (name == "arith.minui") return z3::ite(z3::ule(a, b), a, b);
      if (name == "arith.maxui") return z3::ite(z3::uge(a, b), a, b);
      if (auto cmp = mlir::dyn_cast<mlir::arith::CmpIOp>(op)) {
        using P = mlir::arith::CmpIPredicate;
        switch (cmp.getPredicate()) {
        case P::eq: return boolBit(a == b);
        case P::ne: return boolBit(a != b);
        case P::slt: return boolBit(a < b);
        case P::sle: return boolBit(a <= b);
        case P::sgt: return boolBit(a > b);
        case P::sge: return boolBit(a >= b);
        case P::ult: return boolBit(z3::ult(a, b));
        case P::ule: return boolBit(z3::ule(a, b));
        case P::ugt: return boolBit(z3::ugt(a, b));
        case P::uge: return boolBit(z3::uge(a, b));
        }
      }
    }
    if (in.size() == 3 && name == "arith.select")
      return z3::ite(in[0] == z.bv_val(1, 1), in[1], in[2]);
    if (in.size() == 1) {
      unsigned w = in[0].get_sort().bv_size();
      if (name == "arith.extsi" && rw > w) return z3::sext(in[0], rw - w);
      if (name == "arith.extui" && rw > w) return z3::zext(in[0], rw - w);
      if (name == "arith.trunci" && rw < w) return in[0].extract(rw - 1, 0);
    }
    return std::nullopt;
  }
};

/// Values of the unset integer parameters that satisfy the launch and as
/// many loop goals as can hold together, each as small as possible; when
/// `mustBeat` is given, only if it misses one of those goals.
std::optional<std::map<std::string, int64_t>>
solveLaunch(const Module &m, const KernelInfo &info, const Args &args,
            int64_t maxElements,
            const std::map<std::string, int64_t> *mustBeat) {
  mlir::ModuleOp module = m.impl().module.get();
  KernelOp kernel;
  module.walk([&](KernelOp k) {
    if (k.getSymName() == info.name)
      kernel = k;
  });
  if (!kernel)
    return std::nullopt;
  try {
    z3::context z;
    LaunchEncoder enc(z, kernel);
    z3::expr_vector launch(z);
    if (!enc.encodeLaunch(info, args, maxElements, launch) || enc.params.empty())
      return std::nullopt;
    z3::solver s(z);
    // A resource limit (about a second of work), not the clock: the sizes
    // chosen must not depend on how loaded the machine is.
    z3::params p(z);
    p.set("rlimit", 20'000'000u);
    s.set(p);
    s.add(launch);
    if (s.check() != z3::sat)
      return std::nullopt;
    // Greedily keep the loop goals that can hold together.
    std::vector<z3::expr> kept;
    for (const z3::expr &g : enc.loopGoals(info)) {
      s.push();
      s.add(g);
      if (s.check() == z3::sat)
        kept.push_back(g);
      s.pop();
      if (!kept.empty() && z3::eq(kept.back(), g))
        s.add(g);
    }
    if (mustBeat) {
      if (kept.empty())
        return std::nullopt;
      s.push();
      for (auto &[name, v] : *mustBeat) {
        auto it = enc.params.find(name);
        if (it != enc.params.end())
          s.add(it->second == z.bv_val(v, it->second.get_sort().bv_size()));
      }
      bool beaten = s.check() != z3::sat;
      s.pop();
      if (!beaten)
        return std::nullopt;
    }
    // The smallest bound on |param| that works, positive values first.
    auto bounded = [&](int64_t bound, bool positive) {
      z3::expr_vector c(z);
      for (auto &[name, v] : enc.params) {
        unsigned w = v.get_sort().bv_size();
        z3::expr v64 = w >= 64 ? v : z3::sext(v, 64 - w);
        c.push_back(v64 <= z.bv_val(bound, 64) &&
                    v64 >= z.bv_val(positive ? 1 : -bound, 64));
      }
      return z3::mk_and(c);
    };
    for (bool positive : {true, false}) {
      for (int64_t bound = 1; bound <= maxElements * 4; bound *= 2) {
        s.push();
        s.add(bounded(bound, positive));
        if (s.check() == z3::sat) {
          z3::model model = s.get_model();
          std::map<std::string, int64_t> out;
          for (auto &[name, v] : enc.params) {
            z3::expr val = model.eval(v, true);
            unsigned w = v.get_sort().bv_size();
            uint64_t bits = 0;
            val.is_numeral_u64(bits);
            int64_t sv = w < 64 && (bits >> (w - 1)) & 1
                             ? int64_t(bits) - (int64_t(1) << w)
                             : int64_t(bits);
            out[name] = sv;
          }
          return out;
        }
        s.pop();
      }
    }
  } catch (const z3::exception &) {
  }
  return std::nullopt;
}

} // namespace

namespace {

/// fillInputs: edge cases among the values, index-like values, ramps (index
/// -like too). Edge and index together: floats with edge cases, integers
/// indices (edge inputs where a `requires` bounds the integer data).
void fillValues(const Module &module, const std::string &kernel, Args &args, uint64_t seed,
                bool edge, bool indices, bool ramp, bool belowDims = false) {
  const KernelInfo *k = module.kernel(kernel);
  if (!k)
    return;
  indices |= ramp;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0), unit(0.0, 1.0);
  // Indices: below the smallest positive integer scalar (a size) and, with
  // belowDims, the smallest dimension of a buffer too (a histogram's bins,
  // `requires forall i in 0..n: v[i] >= 0 && v[i] < 16`).
  int64_t indexBound = 0;
  auto bound = [&](int64_t v) {
    if (v > 0)
      indexBound = indexBound ? std::min(indexBound, v) : v;
  };
  for (auto &[name, v] : args.allScalars())
    if (auto *i = std::get_if<int64_t>(&v))
      bound(*i);
  if (belowDims)
    for (const ParamInfo &p : k->params)
      if (const HostBuffer *b = p.kind == ParamInfo::Buffer ? args.buffer(p.name) : nullptr)
        for (int64_t d : b->dims)
          bound(d);
  for (const ParamInfo &p : k->params) {
    if (p.kind != ParamInfo::Buffer || p.access == "out")
      continue;
    HostBuffer *b = args.buffer(p.name);
    if (!b)
      continue;
    int64_t n = b->numElements();
    bool isFloat = isFloatType(b->elemType), f64 = b->elemType == "f64";
    bool wide = b->elemType == "i64" || b->elemType == "u64";
    // Ramps: position along the last dimension, rising in even rows and
    // falling in odd ones.
    int64_t len = b->dims.empty() ? 1 : std::max<int64_t>(b->dims.back(), 1);
    int64_t rows = std::max<int64_t>(n / len, 1);
    auto rampStep = [&](int64_t i) {
      int64_t row = i / len, col = i % len;
      return row % 2 ? len - 1 - col : col;
    };
    EdgeRuns runs(rng, isFloat ? (f64 ? std::size(kF64Edges) : std::size(kF32Edges))
                               : std::size(kI32Edges));
    for (int64_t i = 0; i < n; ++i) {
      std::optional<size_t> e = edge && b->elemType != "bool" && (isFloat || !indices)
                                    ? runs.next()
                                    : std::nullopt;
      if (isFloat && ramp) {
        // In [0, 1): the step along the row, then the row as a fraction of
        // a step (distinct values while rows * length < 2^24 in f32).
        b->set(i, double(rampStep(i) * rows + i / len) / double(rows * len));
      } else if (isFloat) {
        b->set(i, e ? (f64 ? kF64Edges : kF32Edges)[*e] : indices ? unit(rng) : u(rng));
      } else if (b->elemType == "bool") {
        b->set(i, rng() % 2);
      } else if (ramp) {
        b->set(i, indexBound ? double(rampStep(i) % indexBound) : 0.0);
      } else if (indices) {
        b->set(i, indexBound ? (double)(int64_t)(rng() % uint64_t(indexBound)) : 0.0);
      } else if (e) {
        int64_t v = wide ? kI64Edges[*e] : kI32Edges[*e];
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

} // namespace

void fillInputs(const Module &module, const std::string &kernel, Args &args, uint64_t seed,
                InputValues values) {
  fillValues(module, kernel, args, seed, values == InputValues::Edge,
             values == InputValues::Index, values == InputValues::Ramp);
}

InputFill fillInputsMeetingRequires(const Module &module, const std::string &kernel, Args &args,
                                    uint64_t seed, InputValues values) {
  InputFill out;
  const KernelInfo *k = module.kernel(kernel);
  Executor probe;
  // Zeroes the `inout` buffers: an accumulator a kernel adds to (`requires
  // y[0] == 0.0`), which no random value meets.
  auto zeroInout = [&] {
    for (const ParamInfo &p : k->params)
      if (p.kind == ParamInfo::Buffer && p.access == "inout")
        if (HostBuffer *b = args.buffer(p.name))
          std::fill(b->bytes.begin(), b->bytes.end(), 0);
  };
  struct Try {
    bool indices, zero, belowDims;
    const char *how;
  };
  bool edge = values == InputValues::Edge, ramp = values == InputValues::Ramp;
  // Index and Ramp values are index-like already: their fallback is zeroed
  // accumulators, then indices below every dimension.
  bool indexLike = values == InputValues::Index || ramp;
  const Try tries[] = {
      {indexLike, false, false, ""},
      {indexLike, true, false, "inout buffers zeroed"},
      {true, false, false, "--inputs index"},
      {true, true, false, "--inputs index, inout buffers zeroed"},
      {true, false, true, "index values below the smallest buffer dimension"},
      {true, true, true, "index values below the smallest buffer dimension, inout buffers zeroed"}};
  for (size_t i = 0; i < std::size(tries); ++i) {
    const Try &t = tries[i];
    if (indexLike && i >= 2 && i < 4)
      continue; // the same values as the first two
    fillValues(module, kernel, args, seed, edge, t.indices, ramp, t.belowDims);
    if (t.zero && k)
      zeroInout();
    Result<LaunchInfo> info = probe.describe(module, kernel, args);
    if (!info)
      return out;
    if (!*t.how)
      out.broken = info->failedRequires;
    out.requiresHold = info->requiresHold;
    out.fallback = t.how;
    out.fellBack = *t.how != 0;
    if (out.requiresHold)
      return out;
  }
  return out;
}

Result<std::vector<std::string>> chooseScalars(const Module &m,
                                               const std::string &kernel,
                                               Args &args, int64_t maxElements,
                                               bool solve, const std::string &favour) {
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
  const Args base = args;
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
    // Threads count against the cap too, but one block always fits: a
    // kernel of 1024-thread blocks ran at no size under a cap of 512 (then
    // all parameters 0, an empty launch).
    int64_t blocks = info->numBlocks(), threads = info->blockSize();
    int64_t threadCap = std::max(maxElements, threads);
    if (blocks < 0 || (threads > 0 && blocks > threadCap / threads))
      return false;
    return blocks * threads <= threadCap;
  };
  // Uniform assignments first, then combinations (up to 3 parameters).
  std::vector<size_t> idx(ints.size(), 0);
  auto assign = [&](Args &trial) {
    for (size_t j = 0; j < ints.size(); ++j)
      trial.set(ints[j]->name, cands[idx[j]]);
  };
  bool found = false;
  if (!favour.empty()) {
    // The favoured parameter large (candidates in order), the others alike
    // and small (candidates from the smallest positive one up).
    size_t f = ints.size();
    for (size_t j = 0; j < ints.size(); ++j)
      if (ints[j]->name == favour)
        f = j;
    if (f == ints.size())
      return Error{"no integer parameter '" + favour + "' to favour", 2};
    // The favoured one from 2048 down: past a block of 1024 threads'
    // stride, a row reduction whose last warp's columns are lost misses 3%
    // of the row at 2048 columns, and less than the runs' tolerance (1%) at
    // 1000.
    std::vector<int64_t> large = {2048};
    large.insert(large.end(), cands, cands + nc - 1);
    std::vector<int64_t> values(ints.size());
    for (size_t cf = 0; cf < large.size() && !found; ++cf) {
      for (size_t co = nc - 1; co-- > 0 && !found;) { // 1, 2, 4, ... (never 0)
        for (size_t j = 0; j < ints.size(); ++j)
          values[j] = j == f ? large[cf] : cands[co];
        Args trial = args;
        for (size_t j = 0; j < ints.size(); ++j)
          trial.set(ints[j]->name, values[j]);
        if (fits(trial)) {
          args = std::move(trial);
          found = true;
        }
      }
    }
    if (!found)
      return Error{"no skewed values of the integer parameters satisfy the requires clause", 2};
    for (size_t j = 0; j < ints.size(); ++j)
      chosen.push_back(ints[j]->name + "=" + std::to_string(values[j]));
    return chosen;
  }
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
  std::map<std::string, int64_t> listed;
  if (found)
    for (size_t j = 0; j < ints.size(); ++j)
      listed[ints[j]->name] = cands[idx[j]];
  std::optional<std::map<std::string, int64_t>> solved;
  if (solve)
    solved = solveLaunch(m, *k, base, maxElements, found ? &listed : nullptr);
  if (solved) {
    Args trial = base;
    for (auto &[name, v] : *solved)
      trial.set(name, v);
    if (fits(trial)) {
      args = std::move(trial);
      listed = *solved;
      found = true;
    }
  }
  if (!found)
    return Error{"no small values of the integer parameters satisfy the requires "
                 "clause; set them with --set NAME=VALUE",
                 2};
  for (const ParamInfo *p : ints)
    chosen.push_back(p->name + "=" + std::to_string(listed[p->name]));
  return chosen;
}

} // namespace kuiper
