//===- KernelInterpreter.h - The interpreter of one kernel ------*- C++ -*-===//
//
// The state of one launch: buffers, the block being run, its threads, the
// violations found; and the services the op handlers (ArithOps.cpp,
// KuiperOps.cpp) and the scheduler (Scheduler.cpp) share. Internal to the
// runtime.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_INTERPRETER_KERNELINTERPRETER_H
#define KUIPER_RUNTIME_INTERPRETER_KERNELINTERPRETER_H

#include "runtime/interpreter/Memory.h"
#include "runtime/interpreter/Values.h"

#include "kuiper/Checks.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "kuiper/Executor.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace kuiper {
namespace interp {

/// Structured facts of a violation: ("block", "0"), ("thread", "3"), ...
using ViolationDetails = std::vector<std::pair<std::string, std::string>>;

/// An evaluation context: the host (header, ensures) or one thread.
struct EvalContext {
  llvm::DenseMap<mlir::Value, RuntimeValue> values;
  /// memref.alloca slots (mutable locals of the front end).
  std::vector<RuntimeValue> locals;
  bool isThread = false;
  /// Evaluating a spec clause: accesses are not checked, comparisons that
  /// come out false remember why.
  bool inSpec = false;
  /// Evaluating an `assert`/`assume` (fn contracts included): its reads count
  /// in the race detector, as in the verifier (what it reads must not be
  /// changing under another thread).
  bool specReadsRace = false;
  /// Evaluating a loop's invariants on entry (else after an iteration).
  bool invariantOnEntry = false;
  /// Evaluating only the approx (true) or exact (false) invariants of a loop
  /// that has both (each kind in its own arithmetic).
  std::optional<bool> invariantsOfKind;
  /// Evaluating an approx clause: floats are exact reals, equality has a
  /// tolerance.
  bool approx = false;
  /// Inside `old(...)`: buffers read their contents before the launch.
  bool readsOldContents = false;
  /// A clause read a buffer that is not bound (describe without buffers).
  bool readUnboundBuffer = false;
  /// The quantifier binders in scope while a clause is evaluated.
  std::vector<std::pair<std::string, int64_t>> binders;
  /// Why the last clause evaluated failed ("y[3] = 1.5, expected 2").
  std::string clauseFailure;
  /// Why an i1 spec value is false: text, and whether it names indices.
  llvm::DenseMap<mlir::Value, std::pair<std::string, bool>> whyFalse;
  /// The element a loaded spec value came from (printed "y[3]" only when a
  /// clause fails).
  llvm::DenseMap<mlir::Value, ElementAddress> loadedFrom;
};

/// One level of a thread's control stack: a block being run and the op to
/// run next.
struct Frame {
  enum Kind { KernelBody, IfRegion, ForBody, WhileRegion } kind = KernelBody;
  mlir::Operation *op = nullptr; ///< the scf.if, kuiper.for or kuiper.while
  mlir::Block *block = nullptr;
  mlir::Block::iterator next;
  int64_t inductionValue = 0, upperBound = 0, step = 1;
  uint64_t iterations = 0; ///< of a kuiper.for: how many have run
  unsigned inductionWidth = 32;
  bool inWhileBody = false; ///< false: in the condition
};

/// A thread of the running block.
struct Thread : EvalContext {
  enum State { Ready, AtBarrier, AtCollective, Done };
  int64_t threadId[3] = {0, 0, 0};
  int32_t linearId = 0;
  State state = Ready;
  std::vector<Frame> stack;
  /// The barrier or collective the thread waits at.
  mlir::Operation *waitingAt = nullptr;
  /// At a collective: the value it contributes, a shuffle's delta, its mask.
  RuntimeValue collectiveValue;
  int64_t shuffleDelta = 0;
  std::optional<uint64_t> participantMask;
};

/// Runs one `kuiper.kernel` op. Op semantics live in handlers registered in
/// the semantics table (Semantics.h); they reach the interpreter through the
/// public members below. Methods returning bool return false on a fatal
/// error, recorded by `fail` (a violation is not fatal).
class KernelInterpreter {
public:
  KernelInterpreter(KernelOp kernel, const ExecOptions &options,
                    ExecResult &result)
      : options(options), kernel(kernel), result(result), rng(options.seed) {}

  //===--------------------------------------------------------------------===//
  // Entry points (Interpreter.cpp)
  //===--------------------------------------------------------------------===//

  /// Binds arguments and evaluates the header (shapes, launch, access
  /// boxes, requires). With `forRun`, buffers must be bound and consistent.
  bool setup(const Args &args, bool forRun);
  /// Runs every block, then the coverage and postcondition checks.
  bool runLaunch();
  /// Evaluates the ensures on the current buffers (violations recorded).
  bool checkEnsures();

  /// The first fatal error, when `failed`.
  Error error;
  bool failed = false;
  /// Grid, block, shapes and requires of the launch (setup fills it).
  LaunchInfo launch;

  //===--------------------------------------------------------------------===//
  // Services for op handlers
  //===--------------------------------------------------------------------===//

  /// Schedule, checks and limits of the run.
  const ExecOptions &options;

  /// Records a fatal error (the first one wins); returns false.
  bool fail(const std::string &message, int code = 3);
  /// Records a violation; repeats of the same check at the same op are
  /// counted, not listed.
  void violate(CheckId check, mlir::Operation *op, const std::string &message,
               ViolationDetails details = {});
  /// " in thread 5 of block 2" for a thread, "" for the host.
  std::string inThread(const EvalContext &context) const;
  /// "thread 5 of block 2", or with coordinates in a launch of more than one
  /// dimension, "thread (5,1) of block (2,0)" (x first; trailing dimensions
  /// of extent 1 left out): a run's message names a thread as threadIdx and
  /// blockIdx do.
  std::string who(const EvalContext &context) const;
  std::string threadName(int64_t block, int64_t thread) const;
  /// ("block", b), ("thread", t) for a thread; nothing for the host.
  ViolationDetails whoDetails(const EvalContext &context) const;

  /// The value of `value` in `context` (a thread sees the host's values).
  std::optional<RuntimeValue> lookup(EvalContext &context, mlir::Value value);
  /// As lookup; a missing value is a fatal internal error.
  bool operand(EvalContext &context, mlir::Value value, RuntimeValue &out,
               mlir::Operation *user);
  /// The values of the arith.constant ops evaluated so far (evalConstant).
  llvm::DenseMap<mlir::Operation *, RuntimeValue> constants;
  /// Sets the value of `value` in `context`.
  void bind(EvalContext &context, mlir::Value value, const RuntimeValue &v) {
    context.values[value] = v;
  }

  /// Evaluates `op` to completion through its semantics-table entry.
  bool evaluate(mlir::Operation *op, EvalContext &context);
  /// Evaluates the single block of `region` with `arguments`, collecting the
  /// terminator's operands in `yielded`.
  bool evaluateRegion(mlir::Region &region,
                      llvm::ArrayRef<RuntimeValue> arguments,
                      EvalContext &context,
                      llvm::SmallVectorImpl<RuntimeValue> &yielded);
  /// Evaluates a clause region yielding an i1; `holds` receives it and
  /// `context.clauseFailure` why it is false.
  bool evaluateClause(mlir::Region &region, EvalContext &context, bool approx,
                      bool &holds);
  /// Evaluates the `kuiper.invariant`s of a loop with its arguments, on
  /// entry to the loop or after an iteration (which a failure says).
  bool checkInvariants(mlir::Region &invariants,
                       llvm::ArrayRef<RuntimeValue> arguments,
                       EvalContext &context, bool onEntry);
  /// Why the i1 spec value `value` is false, following and/or/select/if
  /// down to the comparison or quantifier that decides it.
  std::pair<std::string, bool> explainFalse(EvalContext &context,
                                            mlir::Value value, int depth = 0);
  /// How a false comparison reads: "y[3] = 1.5, expected 2" or
  /// "n = -3, not sge 0".
  /// The elements read out of bounds (no fault in a clause) that the
  /// operands of `op` were computed from ("x[1000], outside x[1000]").
  std::string outOfBoundsReads(EvalContext &context, mlir::Operation *op);
  std::string describeFalseComparison(EvalContext &context, mlir::Operation *op,
                                      const RuntimeValue &lhs,
                                      const RuntimeValue &rhs, bool equality,
                                      const std::string &predicate);

  /// Resolves the element `memory[indices]` addressed by `op`; reports an
  /// out-of-bounds access (address stays null).
  bool resolveElement(mlir::Operation *op, EvalContext &context,
                      mlir::Value memory, mlir::ValueRange indices,
                      ElementAddress &element);
  /// Race detection: records a thread's access and reports conflicts.
  void recordAccess(mlir::Operation *op, EvalContext &context,
                    ElementAddress &element, bool isWrite, bool isAtomic);
  /// Marks an element of an `out` buffer as written (coverage).
  void markWritten(ElementAddress &element);
  /// The shared array of a `kuiper.shared_alloc` of the running block,
  /// allocated (poisoned) on first use.
  bool sharedArrayFor(mlir::Operation *alloc, unsigned &index);

  /// The running block, its linear id and its launch dims.
  int64_t blockId[3] = {0, 0, 0};
  int64_t linearBlockId = 0;

  //===--------------------------------------------------------------------===//
  // Scheduling (Scheduler.cpp)
  //===--------------------------------------------------------------------===//

  /// Enters the taken region of an scf.if.
  bool enterIf(Thread &thread, mlir::Operation *op);
  /// Enters a kuiper.for (checks its invariants on entry).
  bool enterFor(Thread &thread, mlir::Operation *op);
  /// Enters a kuiper.while at its condition.
  bool enterWhile(Thread &thread, mlir::Operation *op);
  /// Suspends the thread at a barrier.
  bool suspendAtBarrier(Thread &thread, mlir::Operation *op);
  /// Suspends the thread at a warp collective (shfl, vote, syncwarp).
  bool suspendAtCollective(Thread &thread, mlir::Operation *op);

  /// The host bytes of global buffer `index` (null if not bound).
  const uint8_t *bufferData(uint64_t index) const {
    return index < buffers.size() ? buffers[index].data : nullptr;
  }

private:
  KernelOp kernel;
  ExecResult &result;
  std::mt19937_64 rng;

  std::vector<GlobalBuffer> buffers;
  std::vector<SharedArray> sharedArrays;
  llvm::DenseMap<mlir::Operation *, unsigned> sharedArrayOf;
  EvalContext host;
  std::vector<mlir::Operation *> ensuresClauses;
  int32_t barrierEpoch = 0;
  /// Whole-warp syncwarps each warp of the block has passed (AccessRecord).
  std::vector<int32_t> warpEpochs;
  uint64_t totalSteps = 0;
  std::map<std::pair<CheckId, mlir::Operation *>, size_t> violationIndex;
  unsigned droppedViolations = 0;

  // Setup (Interpreter.cpp).
  bool bindParameters(const Args &args);
  bool evaluateHeader(std::vector<mlir::Operation *> &requiresClauses,
                      std::string &headerError);
  bool evaluateHeaderArithmetic(mlir::Operation *op);
  bool bindBuffers(const Args &args, bool forRun);
  bool checkRequires(llvm::ArrayRef<mlir::Operation *> requiresClauses);
  void checkCoverage();

  // Threads and blocks (Scheduler.cpp).
  bool runBlocks();
  bool runBlock();
  void initThreads(std::vector<Thread> &threads);
  bool runReadyThreads(std::vector<Thread> &threads);
  void runThread(Thread &thread, bool yieldAtMemoryAccess);
  bool finishRegion(Thread &thread, mlir::Operation *terminator);
  bool continueFor(Thread &thread);
  bool continueWhile(Thread &thread, mlir::Operation *terminator);
  bool resolveCollectives(std::vector<Thread> &threads);
  void checkWarpConvergence(mlir::Operation *op, int64_t warp,
                            std::optional<uint64_t> mask, uint64_t active,
                            uint64_t fullWarp);
  /// All live threads wait: reports divergence (false: block stops) or
  /// checks the barrier contract and releases them.
  bool releaseBarrier(std::vector<Thread> &threads, bool &blockDone);
};

} // namespace interp
} // namespace kuiper

#endif
