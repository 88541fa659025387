//===- Executor.h - Kuiper CPU executor -------------------------*- C++ -*-===//
//
// Public API. Runs a kernel of a compiled Module on host buffers, in the
// kernel's real launch geometry, with barriers, warp collectives and dynamic
// checks (bounds, races, barrier divergence, warp convergence, coverage,
// overflow, asserts, postconditions). No MLIR, LLVM or Z3 types.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_EXECUTOR_H
#define KUIPER_EXECUTOR_H

#include "kuiper/Checks.h"
#include "kuiper/Compiler.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kuiper {

/// Size in bytes of an element type ("bool", "i1", "i32", "u32", "i64",
/// "u64", "f16", "bf16", "f32", "f64"); 0 if unknown.
size_t elementSize(const std::string &elemType);

/// A host-side buffer: row-major elements of one type.
struct HostBuffer {
  std::string elemType; ///< "f32", "i32", ... (bool and i1 take one byte)
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;

  HostBuffer() = default;
  /// A zero-filled buffer of the given type and dims.
  HostBuffer(std::string elemType, std::vector<int64_t> dims);
  /// A rank-1 f32 buffer holding `values`.
  static HostBuffer f32(const std::vector<float> &values);
  /// A rank-1 f64 buffer holding `values`.
  static HostBuffer f64(const std::vector<double> &values);
  /// A rank-1 i32 buffer holding `values`.
  static HostBuffer i32(const std::vector<int32_t> &values);
  /// A rank-1 i64 buffer holding `values`.
  static HostBuffer i64(const std::vector<int64_t> &values);
  /// A rank-1 u32 buffer holding `values`.
  static HostBuffer u32(const std::vector<uint32_t> &values);
  /// A rank-1 f16 or bf16 buffer holding `values`, each rounded to nearest.
  static HostBuffer f16(const std::vector<float> &values);
  static HostBuffer bf16(const std::vector<float> &values);
  /// A rank-1 bool buffer holding `values`.
  static HostBuffer boolean(const std::vector<bool> &values);

  /// Product of the dims.
  int64_t numElements() const;
  size_t elemSize() const { return elementSize(elemType); }
  /// Typed view (the caller picks the right T).
  template <typename T> T *data() { return reinterpret_cast<T *>(bytes.data()); }
  template <typename T> const T *data() const {
    return reinterpret_cast<const T *>(bytes.data());
  }
  template <typename T> T at(int64_t i) const {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return v;
  }
  /// Element `i` (0 <= i < numElements(), else std::out_of_range is
  /// thrown) converted to double (ints and half types included).
  double get(int64_t i) const;
  /// Sets element `i` (in range, as for get) from a double: rounded to a
  /// float type; an integer type takes the value truncated and wrapped to
  /// its width (-1 in a u32 is 4294967295), NaN as 0.
  void set(int64_t i, double v);
  /// Element `i` (in range, as for get) as text ("1.5", "nan", "-inf", "42").
  std::string str(int64_t i) const;
};

/// A scalar argument.
using ScalarValue = std::variant<int64_t, double, bool>;

/// Kernel arguments bound by parameter name.
class Args {
public:
  Args &set(const std::string &name, ScalarValue v) {
    scalars[name] = v;
    return *this;
  }
  Args &setInt(const std::string &name, int64_t v) { return set(name, v); }
  Args &setFloat(const std::string &name, double v) { return set(name, v); }
  Args &setBool(const std::string &name, bool v) { return set(name, v); }
  /// Binds (moves) a buffer; returns the stored buffer.
  HostBuffer &setBuffer(const std::string &name, HostBuffer b) {
    return buffers[name] = std::move(b);
  }
  HostBuffer *buffer(const std::string &name) {
    auto it = buffers.find(name);
    return it == buffers.end() ? nullptr : &it->second;
  }
  const HostBuffer *buffer(const std::string &name) const {
    auto it = buffers.find(name);
    return it == buffers.end() ? nullptr : &it->second;
  }
  const ScalarValue *scalar(const std::string &name) const {
    auto it = scalars.find(name);
    return it == scalars.end() ? nullptr : &it->second;
  }
  const std::map<std::string, ScalarValue> &allScalars() const { return scalars; }
  std::map<std::string, HostBuffer> &allBuffers() { return buffers; }
  const std::map<std::string, HostBuffer> &allBuffers() const { return buffers; }

private:
  std::map<std::string, ScalarValue> scalars;
  std::map<std::string, HostBuffer> buffers;
};

/// Renders a scalar as text.
std::string toString(const ScalarValue &v);

/// Reads the text of a value for a scalar parameter of `type` (spelled as in
/// `.kp` source: "i32", "u32", "f32", "bool", ...): a decimal (or 0x) integer
/// that fits the type (a u64 above 2^63 is kept as its bit pattern), a float
/// number, or true/false/1/0 for a bool. False for anything else.
bool parseScalar(const std::string &type, const std::string &text, ScalarValue &value);

/// Writes the check's name as reports show it ("race").
inline std::ostream &operator<<(std::ostream &os, CheckId check) {
  return os << checkName(check);
}

/// One dynamic check that failed during a run.
struct Violation {
  /// The check (Checks.def): bounds, race, barrier-divergence,
  /// warp-convergence, coverage, contract, overflow, assert, assume,
  /// invariant, barrier-contract, precondition, postcondition, truncated.
  CheckId kind = CheckId::Internal;
  std::string message;  ///< "threads (0,3) and (0,4) both wrote s[4]"
  std::string location; ///< "file:line:col" of the op, if known
  /// Structured facts: ("block", "0"), ("thread", "3"), ("index", "4"), ...
  std::vector<std::pair<std::string, std::string>> details;
  unsigned count = 1; ///< occurrences folded into this one (same kind and op)
};

/// The launch geometry and shapes a kernel gets for given scalar arguments.
struct LaunchInfo {
  int64_t grid[3] = {0, 0, 0};
  int64_t block[3] = {1, 1, 1};
  /// Buffer parameter name -> its dims (from kuiper.shape).
  std::map<std::string, std::vector<int64_t>> bufferDims;
  /// Buffer parameter name -> element type ("f32", ...) and access mode.
  std::map<std::string, std::pair<std::string, std::string>> bufferTypes;
  /// Whether the `requires` clauses hold (false: `failedRequires` says which).
  bool requiresHold = true;
  /// True when a requires clause reads a buffer that was not bound, so it
  /// could not be evaluated (requiresHold is then only about the others).
  bool requiresNeedBuffers = false;
  std::string failedRequires;
  int64_t numBlocks() const { return grid[0] * grid[1] * grid[2]; }
  int64_t blockSize() const { return block[0] * block[1] * block[2]; }
};

/// How threads of a block are interleaved between suspension points.
struct ExecOptions {
  enum Schedule { InOrder, Reverse, Random };
  Schedule schedule = InOrder;
  uint64_t seed = 0;
  /// Dynamic checks (races, coverage, ensures, asserts, ...). Bounds checks
  /// always run (an out-of-bounds access is never performed).
  bool checks = true;
  /// Evaluate `ensures` after the run (only when `checks`).
  bool checkEnsures = true;
  /// Relative tolerance of approx clauses: |a - b| <= tol * (magnitude),
  /// where magnitude is the sum of the magnitudes of the terms involved (for
  /// f32 and f64; for a format of p < 24 significand bits, times 2^(24 - p)).
  double approxRelTol = 1e-5;
  /// Approx comparisons also hold where a side is outside the normal range
  /// of the compared float type (infinite, or below its smallest normal
  /// number times 2^24, both sides within that of each other): the approx
  /// proof is over the reals, without underflow or overflow, so a run that
  /// looks for failures of it (runForFailures) must not count those.
  bool approxWithinRange = false;
  /// Check a `for` loop's invariants after its first four iterations, after
  /// each iteration whose number is a power of two and after the last one
  /// only (on entry as always), not after every iteration: an invariant over
  /// a sum of the elements so far costs as many operations as the loop has
  /// run, every iteration. For runs that look for failures (runForFailures):
  /// a violation between those points goes unseen (a run proves nothing).
  bool sampleForInvariants = false;
  /// Stop recording new violations after this many (distinct) ones.
  unsigned maxViolations = 100;
  /// Do not run the kernel: evaluate its `ensures` on the buffers as bound
  /// (outputs computed elsewhere, e.g. on a GPU) and report the failed ones
  /// as `postcondition` violations. `old(e)` reads the buffers as bound.
  bool ensuresOnly = false;
  /// Stop (with an error) after this many interpreted operations over all
  /// threads, those of spec clauses included; 0 = no limit. Replay uses it so
  /// a huge loop cannot stall a compile.
  uint64_t maxSteps = 0;
  /// Stop (with an error) once the clock passes this point, checked every
  /// 4096 operations; none = no limit. The falsifying runs after a proof use
  /// it to stay within the kernel's verification budget.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// What a run observed.
struct ExecResult {
  std::vector<Violation> violations;
  LaunchInfo launch;
  uint64_t threadsRun = 0;
  bool ok() const { return violations.empty(); }
  /// First violation of a kind, or null.
  const Violation *find(CheckId kind) const {
    for (const auto &v : violations)
      if (v.kind == kind)
        return &v;
    return nullptr;
  }
};

/// The CPU executor.
class Executor {
public:
  explicit Executor(ExecOptions opts = {}) : opts(std::move(opts)) {}

  /// Runs `kernel` of `module` on `args` (out/inout buffers are updated in
  /// place). Errors: unknown kernel, missing or mis-sized argument, a false
  /// `requires` (code 2), an op or value type the executor has no semantics
  /// for, anywhere in the kernel (code 3, before anything runs). Dynamic
  /// check failures are not errors: they are listed in the result.
  Result<ExecResult> run(const Module &module, const std::string &kernel,
                         Args &args) const;

  /// Evaluates the kernel header (shapes, launch grid, requires) for the
  /// scalar arguments in `args`; buffers are needed only by requires
  /// clauses that read them.
  Result<LaunchInfo> describe(const Module &module, const std::string &kernel,
                              const Args &args) const;

  /// Binds a zero-filled buffer of the right type and shape for every buffer
  /// parameter not yet bound in `args` (scalars must be set).
  Result<LaunchInfo> allocateBuffers(const Module &module,
                                     const std::string &kernel,
                                     Args &args) const;

  const ExecOptions &options() const { return opts; }

private:
  ExecOptions opts;
};

/// Binds the scalar parameters of `kernel` not yet set in `args` to small
/// values (what `kuiper-run` does): floats 1.5, bools true, and integers the
/// first of 1000, 257, 256, 100, 64, 33, 32, 16, 8, 4, 2, 1, 0 (all alike,
/// then combinations of up to three parameters) for which `requires` holds
/// and the buffers (elements, summed) and the launch (threads) stay within
/// `maxElements`. Returns the choices made ("n=1000"); error code 2 when no
/// candidate fits. With `solve`, Z3 then looks for small values under which
/// every loop runs at least twice, and for values when no candidate fits.
/// With `favour` (an integer parameter's name), a skewed shape instead: that
/// parameter the largest candidate, and the others the smallest positive one
/// with which it fits (rows = 1, cols = 1000), no Z3; an error if none does.
Result<std::vector<std::string>> chooseScalars(const Module &module,
                                               const std::string &kernel,
                                               Args &args,
                                               int64_t maxElements = 1 << 16,
                                               bool solve = true,
                                               const std::string &favour = "");

/// The values fillInputs gives the input buffers.
enum class InputValues {
  /// Seeded random values: floats in [-2, 2), integers in [-100, 100],
  /// bools 0/1.
  Random,
  /// Half of the values edge cases instead (+-0, +-inf, NaN, denormals,
  /// huge and tiny values; INT_MIN/INT_MAX, -1, 0, 1), in runs.
  Edge,
  /// Integer buffers hold indices: values in [0, B) for B the smallest
  /// positive integer scalar of `args` (class targets, gathers); float
  /// buffers values in [0, 1) (probabilities, masks, `requires x[i] >= 0 &&
  /// x[i] < 1`).
  Index,
  /// Ramps along the last dimension, in [0, 1): rising in even rows,
  /// falling in odd ones, each row a little above the one before (distinct
  /// values). A row's maximum is its last element or its first, its minimum
  /// the other: a reduction that loses an end of a row (a bound one off, the
  /// last warp of a block never gathered) shows in every such row, where
  /// random values show it in a few. Integers as with Index, ramped too.
  Ramp,
};

/// Fills the `in` and `inout` buffers of `kernel` bound in `args` with
/// seeded `values` (see InputValues).
void fillInputs(const Module &module, const std::string &kernel, Args &args,
                uint64_t seed, InputValues values = InputValues::Random);

/// What fillInputsMeetingRequires did.
struct InputFill {
  bool requiresHold = false; ///< the `requires` clauses hold for the values filled
  bool fellBack = false;     ///< the first values broke one: other values instead
  std::string fallback;      ///< which: "inout buffers zeroed", "--inputs index", or both
  std::string broken;        ///< the clause the first values broke, as describe() says
};

/// fillInputs, and where its values break a `requires` over the data, other
/// values, the first that meet it: the same with the `inout` buffers zeroed (an
/// accumulator, `requires y[0] == 0.0`), Index values (`x[i] >= 0.0 && x[i]
/// < 1.0`, class targets below a count), Index with the `inout` buffers
/// zeroed, then Index values below the smallest buffer dimension too (a
/// histogram's bins), without and with the `inout` buffers zeroed (what
/// `kuiper-run` and the runs before and after a proof do).
InputFill fillInputsMeetingRequires(const Module &module, const std::string &kernel, Args &args,
                                    uint64_t seed,
                                    InputValues values = InputValues::Random);

/// Builds a Module from kuiper IR text (no front end, no verification):
/// for tests, replay and `kuiper-run file.mlir`.
Result<Module> parseModuleIR(const std::string &text,
                             const std::string &name = "<ir>");

} // namespace kuiper

#endif
