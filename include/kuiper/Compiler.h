//===- Compiler.h - Kuiper embedding API: compile and verify ----*- C++ -*-===//
//
// Public API. No MLIR, LLVM or Z3 types: modules are held behind a pimpl.
// Errors are values: every fallible call returns a Result<T>.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_COMPILER_H
#define KUIPER_COMPILER_H

#include "kuiper/Report.h"

#include <cstdint>
#include <memory>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace kuiper {

/// An error: a message (possibly several clang-style diagnostic lines) and a
/// process-style code (1 check failed, 2 malformed input, 3 internal).
struct Error {
  std::string message;
  int code = 3;
};

/// A value or an Error.
/// A value or an Error. Check it (`if (r)`) before `*r` or `->`: on an error
/// they throw std::bad_variant_access; `error()` on a value likewise.
template <typename T> class Result {
public:
  Result(T v) : v(std::move(v)) {}
  Result(Error e) : v(std::move(e)) {}
  explicit operator bool() const { return v.index() == 0; }
  T &operator*() { return std::get<0>(v); }
  const T &operator*() const { return std::get<0>(v); }
  T *operator->() { return &std::get<0>(v); }
  const T *operator->() const { return &std::get<0>(v); }
  const Error &error() const { return std::get<1>(v); }

private:
  std::variant<T, Error> v;
};

/// Options of a compilation.
struct CompileOptions {
  std::string arch = "sm_80";
  bool verify = true;               ///< run the verifier
  bool emitPTX = true;              ///< lower to PTX (refused when verification fails)
  std::vector<std::string> importPaths;
  /// Solver effort per obligation, in milliseconds of the reference 2-core
  /// machine: converted to Z3 resource units, so that verdicts do not depend
  /// on the machine's load (never a wall-clock limit).
  unsigned solverTimeoutMs = 10000;
  /// Wall-clock budget per kernel in seconds (0: none); when it runs out the
  /// remaining obligations are reported unknown, never verified.
  double budgetSeconds = 60;
  /// Receives progress lines for kernels that take over a second (nullptr: none).
  std::function<void(const std::string &)> progress;
  unsigned jobs = 0;                ///< solver threads, 0 = one per core it may run on
  /// Once a check has failed, stop trying the obligations the cheap solver
  /// stages leave undecided (they are reported unknown, "not attempted"):
  /// for tools that only need to know that a candidate kernel is wrong.
  bool failFast = false;
  bool useCache = true;
  bool keepSMT = false;             ///< keep each obligation's SMT-LIB text in the report
  /// When verification fails, replay each failed check's counterexample on
  /// the CPU executor (kuiper/Replay.h) and mark it confirmed or possible.
  bool replay = true;
  std::string libdevice;            ///< default: the CUDA toolkit's libdevice
  /// After a kernel is verified, rewrite it to run several elements per
  /// thread with 128-bit accesses (--kuiper-vectorize) where its shape allows,
  /// verify the rewrite again and lower it only if that is proven too.
  bool vectorize = true;
  /// Free the solver's memory after verifying (hundreds of ms for large
  /// kernels). A command-line tool that exits right after may skip it.
  bool releaseSolverMemory = true;
};

/// A kernel parameter as the host sees it.
struct ParamInfo {
  std::string name;
  enum Kind { Scalar, Buffer } kind = Scalar;
  std::string type;   ///< scalar type or element type: "f32", "i32", ...
  std::string access; ///< "in", "out", "inout" for buffers
  unsigned rank = 0;
};

/// A kernel of a compiled module.
struct KernelInfo {
  std::string name;
  std::vector<ParamInfo> params;
  int64_t block[3] = {1, 1, 1};
  /// Whether a clause is `approx`: proven over the reals for finite inputs,
  /// so a run with NaN or infinite inputs is no evidence against the kernel.
  bool approx = false;
};

struct ModuleImpl;

/// A compiled (and possibly verified) module: kernels, PTX, report, and the
/// IR the executor runs. Move-only.
class Module {
public:
  explicit Module(std::unique_ptr<ModuleImpl> impl);
  Module(Module &&) noexcept;
  Module &operator=(Module &&) noexcept;
  ~Module();
  const std::vector<KernelInfo> &kernels() const;
  const KernelInfo *kernel(const std::string &name) const;
  /// PTX text (empty if not emitted).
  const std::string &ptx() const;
  /// The verification report (verdicts "not-verified" when verify was off).
  const Report &report() const;
  Report &report();
  /// The kuiper IR as text.
  std::string mlir(bool debugInfo = false) const;
  ModuleImpl &impl() { return *p; }
  const ModuleImpl &impl() const { return *p; }

private:
  std::unique_ptr<ModuleImpl> p;
};

/// Compiles `.kp` source to a Module.
class Compiler {
public:
  explicit Compiler(CompileOptions opts = {}) : opts(std::move(opts)) {}
  /// Compiles a file. A failed verification is not an Error: the Module's
  /// report says so (and no PTX is emitted).
  Result<Module> compileFile(const std::string &path) const;
  /// Compiles source text; `name` is used in diagnostics.
  Result<Module> compileString(const std::string &source,
                               const std::string &name = "<string>") const;
  const CompileOptions &options() const { return opts; }

private:
  CompileOptions opts;
};

} // namespace kuiper

#endif
