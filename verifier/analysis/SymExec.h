//===- SymExec.h - Symbolic execution of one kuiper kernel ------*- C++ -*-===//
//
// Executes a kernel for one symbolic thread T = (tid, bid, loop iterations)
// and records what it did: memory events, barriers, collectives and proof
// obligations. Floats are IEEE (Z3 floating point) in Exact mode and reals in
// Real mode (for `approx` clauses). See docs/verification.md.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_VERIFIER_SYMEXEC_H
#define KUIPER_VERIFIER_SYMEXEC_H

#include "kuiper/Checks.h"
#include "verifier/Verifier.h"
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"
#include "verifier/analysis/RoundingFree.h"

#include <z3++.h>

#include <algorithm>
#include <cstdint>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <tuple>
#include <vector>

namespace kuiper::verifier {

/// True (with the value in `out`) if `v` is an integer `arith.constant`.
inline bool constantInt(mlir::Value v, int64_t &out) {
  if (auto c = v.getDefiningOp<mlir::arith::ConstantOp>())
    if (auto ia = llvm::dyn_cast<mlir::IntegerAttr>(c.getValue())) {
      out = ia.getInt();
      return true;
    }
  return false;
}

enum class FloatMode { Exact, Real };

/// A source location for reports.
struct SrcLoc {
  std::string file;
  int line = 0, col = 0;
  bool operator==(const SrcLoc &o) const {
    return line == o.line && col == o.col && file == o.file;
  }
};
SrcLoc srcLoc(mlir::Location loc);

/// A named value shown in counterexamples.
struct Observable {
  std::string name;
  z3::expr term;
  /// Non-zero for a value of an unsigned type of that many bits (shown
  /// unsigned; the encoding holds integers in their signed reading).
  unsigned unsignedBits = 0;
};

/// One proof obligation: under `assumptions`, `goal` must hold.
struct Obligation {
  CheckId id;
  SrcLoc loc;
  /// A race between two places: the other (earlier) access.
  SrcLoc other;
  std::string message;     ///< what is proven
  std::string failMessage; ///< what a counterexample means
  std::vector<z3::expr> assumptions;
  std::optional<z3::expr> goal;
  std::vector<Observable> observables;
  std::string unsupported; ///< non-empty: cannot be checked (verdict unknown)
  std::string memoryName;  ///< the buffer a coverage obligation is about
  bool lemma = false;      ///< a modelling lemma: failure means "unknown"
  /// A writer lemma (the writer inferred for an element is the thread that
  /// writes it): the merged memory states that reads see rest on it, so
  /// while one is not proven a failure about memory values may be an
  /// artifact of a wrong writer.
  bool writerLemma = false;
  bool finding = false;    ///< a finding, not an error: failure means "warning"
  /// What the obligation may assume besides the requires clauses:
  /// Launch (the launch's own validity: nothing else), Kernel (valid buffer
  /// shapes; coverage and postconditions, which must also hold for a launch
  /// that runs no thread) or Thread (valid shapes, and that the symbolic
  /// thread is one of the launch).
  /// Kernel obligations are split by run() into a Thread one and an
  /// EmptyLaunch one (the same goal when no thread runs).
  enum class Scope { Launch, Kernel, Thread, EmptyLaunch } scope = Scope::Thread;
  /// A vacuity probe: the goal is the negation of an assumption; "proved"
  /// means the assumption is contradictory (a warning), "failed" is fine.
  bool vacuityProbe = false;
  /// A contradictory assumption of this vacuity probe is an error, not a
  /// warning (the requires clauses: no launch of the kernel is allowed).
  bool vacuityIsError = false;
  /// Extra assumptions, justified by other obligations (lemmas), for a second
  /// attempt when the first one is undecided.
  std::vector<z3::expr> fallback;
  /// Instances of lemma obligations (proven separately), assumed from the
  /// first attempt on. If a lemma is not proven, the obligation is solved
  /// again without them, so that a failure gets its own counterexample.
  std::vector<z3::expr> byLemma;
  /// An exact barrier contract checked over the reals (see
  /// SymExec::exactContractsOverReals).
  bool overReals = false;
  /// Made while executing an op of a rewrite (marked `kuiper.rewrite`), or an
  /// alignment check: a side condition of a refinement
  /// (VerifyOptions::refinementSideConditions).
  bool sideCondition = false;
  /// How many of SymExec::orderedFacts were assumed when the obligation was
  /// made: barrier contracts assumed later are not visible to it. A barrier
  /// contract's own arrival check must not assume that contract (a false
  /// contract would prove itself and everything after it).
  size_t visibleFacts = SIZE_MAX;
  /// Shown failing by a run on the CPU executor (VerifyOptions::runFirst):
  /// the index of that run's failure. Not solved.
  std::optional<size_t> refutedByRun;
  /// The index (in the same execution's obligations) of one whose proof
  /// proves this one: the same goal under no more assumptions (a clause's
  /// "every element it names is written" where it names exactly the
  /// elements of an out buffer's coverage check). Solved only where that
  /// one is not proved.
  std::optional<size_t> impliedBy;
};

/// A memory access of the symbolic thread.
struct Event {
  enum Kind { Read, Write, Atomic } kind;
  const void *mem = nullptr;
  std::vector<z3::expr> idx;
  std::optional<z3::expr> value;
  z3::expr pc;    ///< path condition: the branches taken to get here
  z3::expr facts; ///< proven or assumed facts in force (invariants, asserts, assumes)
  unsigned interval = 0;
  std::vector<unsigned> iters; ///< iteration variables in scope
  SrcLoc loc;
  unsigned order = 0;
  /// The dynamic barrier interval: `interval` outside loops with barriers;
  /// inside one, `start + m * K + j` (iteration m, K barriers per iteration,
  /// j barriers passed in this iteration), so that two accesses are in one
  /// interval exactly when these terms are equal.
  std::optional<z3::expr> dyn;
  /// The number of whole-warp `syncwarp()`s the thread has passed (see
  /// SymExec::warpPhase): two accesses of lanes of one warp with different
  /// phases are ordered by a syncwarp between them.
  std::optional<z3::expr> warpPhase;
  /// A read by an `assert`/`assume` (SymExec::specReadsRace): for the race
  /// check alone.
  bool spec = false;
  /// A barrier contract's read of global memory: the barrier orders the
  /// block's own threads, so it races only with other blocks' writes.
  bool otherBlocksOnly = false;
  /// An atomic whose returned value is used, or a compare-and-swap: what the
  /// thread sees or leaves depends on the order the threads run in.
  bool orderDependent = false;
};

/// The state of one memory (buffer or shared array) as a chain of nodes.
/// `e` with its integer and boolean subterms put in Z3's normal form (floats
/// keep their shape): a term substituted at another thread's or lane's ids
/// (`(l + 16) + 8`) is then the same term as `l + 24` reached another way.
z3::expr normalizeIndices(const z3::expr &e);

struct MemNode {
  enum Kind { Base, Store, Merge, Select } kind;
  std::shared_ptr<MemNode> prev;
  /// Select: after a uniform `if` whose branches pass barriers, `alt` where
  /// `cond` (the branch condition) holds, `prev` elsewhere.
  std::shared_ptr<MemNode> alt;
  // Base: f(block vars if perBlock, idx...)
  std::optional<z3::func_decl> fn;
  bool perBlock = false;
  std::vector<z3::expr> prefix; ///< extra leading arguments (thread, iterations)
  // Store (one thread's own store in the current interval)
  std::optional<z3::expr> cond, value;
  std::vector<z3::expr> idx;
  // Merge: writes of one interval (or the whole kernel) by all threads whose
  // variables in `free` are chosen by witnesses.
  std::vector<const Event *> events;
  std::vector<std::vector<z3::expr>> witnessFrom, witnessTo; // per event (filled lazily)
  std::vector<unsigned> freeThreadVars; ///< indices into thread vars (0..5)
  /// Iteration variables that are the same for the writers as for the reader
  /// (loops with barriers run in lockstep across the block).
  std::set<unsigned> fixedIters;
  /// A syncwarp's merge: it holds only where the reader passed that syncwarp
  /// (`cond`, its path condition there; `prev` elsewhere), and takes the
  /// writes of the reader's own warp alone (the syncwarp orders no others).
  bool warpOnly = false;
  /// A merge at a barrier or syncwarp (not the kernel's final state): the
  /// values read through it are normalised (IndexNormalizer), since later
  /// rounds read them again at their neighbours' indices.
  bool normalizeReads = false;
  unsigned id = 0;
};
using MemRef = std::shared_ptr<MemNode>;

/// Description of one memory of the kernel.
struct MemInfo {
  std::string name;
  bool shared = false;
  BufferAccess access = BufferAccess::In; ///< for buffers
  std::vector<z3::expr> dims;
  std::vector<std::pair<z3::expr, z3::expr>> reads, writes; ///< contract boxes (flattened per dim)
  bool hasReads = false, hasWrites = false;
  mlir::Type elemType;
  bool isUnsigned = false; ///< a buffer of u32/u64 (the encoding is signed)
  /// The width to show an element with unsigned, or 0 (see Observable).
  unsigned unsignedBits() const {
    return isUnsigned ? elemType.getIntOrFloatBitWidth() : 0;
  }
};

/// The identity of a Z3 term as a string key.
inline std::string exprKey(const z3::expr &e) {
  return std::to_string(Z3_get_ast_id(e.ctx(), e));
}
/// Whether `e` is an integer numeral; its value in `v`.
/// The largest and smallest value of a signed integer of `w` bits (1..64),
/// computed without signed overflow.
inline int64_t signedMax(unsigned w) {
  return int64_t((uint64_t(1) << (std::min(w, 64u) - 1)) - 1);
}
inline int64_t signedMin(unsigned w) { return -signedMax(w) - 1; }
inline bool isConst(const z3::expr &e, int64_t &v) {
  return e.is_numeral_i64(v);
}
bool linearForm(const z3::expr &e, std::vector<std::pair<int64_t, z3::expr>> &terms, int64_t &off);

class SymExec {
public:
  SymExec(z3::context &z, kuiper::KernelOp kernel, FloatMode mode);

  /// Runs the kernel body. Returns false on an internal/unsupported error
  /// (recorded as an obligation with `unsupported`).
  void run();

  /// The assumptions an obligation of `scope` is proven under.
  std::vector<z3::expr> scopeAssumptions(const Obligation &o) const;
  /// Valid facts about the terms that occur in `roots`.
  std::vector<z3::expr> relevantFacts(const std::vector<z3::expr> &roots, const Obligation &o) const;
  /// The range of every element read through a contents function in `asserts`
  /// (outside quantifiers): a u32 warp maximum's other lanes, reads the
  /// loaded value's term fact did not follow into, were any integer.
  std::vector<z3::expr> contentsRanges(const std::vector<z3::expr> &asserts) const;
  /// Monotonicity facts about the integer products in `roots`.
  std::vector<z3::expr> productFacts(const std::vector<z3::expr> &roots) const;
  /// Adds to `terms` the ids of the terms of `root` not seen before
  /// (quantifier bodies included) and to `decls` the ids of the functions
  /// applied in them; sets `*quantified` if it meets a quantifier or lambda.
  static void collectTerms(const z3::expr &root, std::set<unsigned> &terms,
                           std::set<unsigned> &decls, bool *quantified = nullptr);
  /// Whether `o` mentions the value an atomic returned, or the contents of a
  /// buffer after atomic updates (neither modelled: any value of the type).
  enum class AtomicDependence { None, Result, Contents };
  AtomicDependence atomicDependence(const Obligation &o) const;
  /// Whether `e` applies a symbolic fold (`sum_n`, `reduce_<kind>_n`).
  static bool isFoldTerm(const z3::expr &e);
  /// The value of the fold application `app` (isFoldTerm) when its count is
  /// `count`, unrolled over its body's terms as a fold with constant bounds
  /// is; nothing where that is not modelled (an empty value reduction).
  std::optional<z3::expr> foldValue(const z3::expr &app, int64_t count);

  std::vector<Obligation> obligations;
  std::set<std::string> trusted;
  /// Per approx clause: its location and rounding depth (a negative depth
  /// -d-1 means "at least d, plus what a loop or barrier contract hides"),
  /// and whether a comparison of rounded values decides a value it reads.
  struct ClauseRounding {
    std::string clause;
    int depth;
    bool roundedComparison;
    /// Why γ(d)·Σ|terms| bounds nothing here (a quotient by a computed
    /// value, a math function); empty where it does.
    std::string noBound;
    /// The float format of the coarsest rounding in the code ("f16", ...).
    std::string format;
    /// Where part of the value comes through a cut loop (depth < 0): the
    /// roundings its iterations hide (loopRounding).
    LoopRounding loops;
  };
  std::vector<ClauseRounding> tolerances;
  /// Obligations that stand although the execution stopped (unsupportedReason):
  /// the divergence checks of the barriers of a loop it does not model, in
  /// its first iteration. A failure of one is the kernel's.
  std::vector<size_t> prefixChecks;
  bool opaqueDepth = false;
  bool roundedComparison = false;
  std::string noBound;

private:
  friend class KernelVerifier;
  z3::context &z;
  kuiper::KernelOp kernel;
  FloatMode mode;
  /// In Real mode: also check, then assume, the exact barrier contracts (a
  /// tile copy holds over the reals as well; the approx proof may need it).
  bool exactContractsOverReals = false;
  /// In Real mode: the exact invariants and barrier contracts of the code
  /// run that this execution does not assume (an exact invariant never is;
  /// an exact contract unless exactContractsOverReals): the values they
  /// summarise are arbitrary here, so a failure may be one of the reals'
  /// proof alone, not of the kernel.
  std::vector<SrcLoc> exactClausesNotAssumed;
  /// Which values are computed without rounding (made where first asked):
  /// in Real mode an exact invariant over such values is assumed too.
  std::unique_ptr<RoundingFree> roundingFreeValues;
  RoundingFree &roundingFree() {
    if (!roundingFreeValues)
      roundingFreeValues = std::make_unique<RoundingFree>(kernel);
    return *roundingFreeValues;
  }
  /// Only the side conditions of a refinement are wanted
  /// (VerifyOptions::refinementSideConditions): the kernel-wide checks (races,
  /// coverage, postconditions, uniformity, the vacuity probe) are not built.
  bool sideConditionsOnly = false;
  /// The op being executed (innermost).
  mlir::Operation *currentOp = nullptr;
  int64_t block[3];

  // Thread model.
  /// lane (or tid.x), tid.y, tid.z, bid.x, bid.y, bid.z, warp column
  /// (threadIdx.x = 32 * warpcol + lane when blockDim.x % 32 == 0).
  std::vector<z3::expr> threadVars;
  std::vector<z3::expr> grid;       ///< grid dims
  std::vector<z3::expr> iterVars;   ///< iteration variables of abstract loops
  /// How many times the body being executed runs within the loops of
  /// constant trip count around it that are executed pass by pass: nested
  /// loops multiply (20 nested `for j in 0..2` are 2^20 passes), so past
  /// kMaxUnrolledPasses a loop is abstracted as one of symbolic trip count.
  int64_t unrolledPasses = 1;
  static constexpr int64_t kMaxUnrolledPasses = 4096;
  std::vector<z3::expr> iterRange;  ///< range constraint of each iteration var
  std::vector<z3::expr> iterStep;
  /// The last iteration of each `for` loop with a symbolic trip count,
  /// `(hi - lo - 1) / step` (meaningful where the loop runs at all); none for
  /// `while` loops.
  std::vector<std::optional<z3::expr>> iterLast;
  /// Valid arithmetic facts about the witnesses built since the last use.
  /// Facts valid for every thread (in its ids and iterations), whatever it
  /// did: instantiated, as witnessFacts, for each writer an obligation names.
  std::vector<z3::expr> threadFacts;
  std::vector<z3::expr> witnessFacts;   ///< step of each `for` iteration var (0 for while)
  std::vector<unsigned> iterScope;  ///< iteration vars currently in scope
  /// Facts of the launch in the order they were found (solvers are sensitive
  /// to the order of assertions): Always (requires clauses, parameter ranges),
  /// Contract (proven barrier contracts, about shared memory), Shape (buffer dimensions are non-negative, proven by
  /// `launch` obligations) and ThreadExists (the symbolic thread is one of the
  /// launch, which implies a non-empty grid); scopeAssumptions() picks the
  /// ones an obligation may assume.
  enum class FactKind { Always, Shape, Contract, ThreadExists };
  std::vector<std::pair<FactKind, z3::expr>> orderedFacts;
  /// For each of orderedFacts: the functions it describes (a barrier
  /// contract's fresh shared-array states). A fact that describes some is
  /// assumed only by an obligation that mentions one of them, directly or
  /// through another fact taken (relevantFacts): a quantified contract about
  /// an array the goal never reads only slows the solver down.
  std::vector<std::vector<unsigned>> factDescribes;
  void assumeFact(FactKind kind, z3::expr fact, std::vector<unsigned> describes = {}) {
    orderedFacts.push_back({kind, fact});
    factDescribes.push_back(std::move(describes));
  }
  void splitKernelObligations();
  /// Valid facts about particular terms (sum definitions, writers' facts),
  /// added to an obligation only when the term occurs in it.
  std::vector<std::pair<z3::expr, z3::expr>> termFacts;
  /// The termFacts that say what held for the writer of a value read from
  /// memory (about the read's writer condition), by index; and of those, the
  /// copies for another lane a shuffle made (and their copies).
  std::set<size_t> writerFacts, laneWriterFacts;
  /// For copyTermFacts' callers that read one value many times (a memory
  /// event's stored value): the termFacts it needs, found once.
  std::map<const void *, std::vector<size_t>> termFactsOf;
  /// The functions that stand for the old values atomics return (any value
  /// of the type: not modelled). A failure whose query mentions one is
  /// unknown, not failed.
  std::set<unsigned> atomicResults;
  /// The same for the contents of a buffer after an atomic update (the
  /// state after it is arbitrary: `y[0]` after `atomic_add(y[0], v)`).
  std::set<unsigned> atomicStates;
  /// `v` lies in the range of the integer type `t` (true for other types):
  /// what a loaded element, an atomic's old value or a local after a loop
  /// holds, whatever was stored there.
  z3::expr typeRange(const z3::expr &v, mlir::Type t) const;
  /// The functions that stand for an unsigned buffer's contents (an input,
  /// after a barrier, a loop or an atomic), by declaration id, with their
  /// element type: every element they give is a value of that type, wherever
  /// a substitution (another thread, another lane, a clause's instance) put
  /// the read.
  std::unordered_map<unsigned, mlir::Type> contentsFns;
  /// `fn` is a contents function of the buffer `mi` (contentsFns).
  z3::func_decl contentsFn(z3::func_decl fn, const MemInfo &mi);
  std::vector<Observable> params;

  // Values.
  /// The identity of an SSA value as a key of the tables below: its ordinal
  /// in the order the symbolic execution first met it, not its address.
  /// (Tables ordered or hashed by address made the order in which terms were
  /// built, and so the solver's search, differ from run to run with the
  /// address layout: the same kernel verified in 0.5 s or in 11 s.)
  const void *key(mlir::Value v);
  /// The value whose key is `k`.
  mlir::Value valueOf(const void *k) const;
  llvm::DenseMap<const void *, const void *> keyOfValue;
  std::vector<mlir::Value> keyedValues;
  /// Memories (buffers, shared arrays) written anywhere inside `r`.
  void storedMemories(mlir::Region &r, std::set<const void *> &out);
  /// Locals (memref allocas) stored to anywhere inside `r`.
  void storedLocals(mlir::Region &r, std::set<const void *> &out);
  std::set<const void *> ownElementOnly(ForOp op, const std::set<const void *> &written);
  std::unordered_map<const void *, z3::expr> env;
  std::unordered_map<const void *, z3::expr> locals;
  std::map<const void *, MemInfo> mems;
  std::map<const void *, MemRef> state;         ///< current state of each memory
  std::map<const void *, MemRef> intervalStart; ///< state at the last barrier
  std::vector<std::unique_ptr<Event>> events;
  z3::expr pc;
  /// Facts that hold for every thread here (assumed loop invariants, proven
  /// asserts, trusted assumes). Kept apart from the path condition: a writer
  /// inferred for coverage need not be shown to satisfy them.
  z3::expr facts;
  unsigned interval = 0;
  /// The dynamic interval (see Event::dyn).
  z3::expr dynInterval;
  /// Whole-warp `syncwarp()`s passed outside loops (see Event::warpPhase):
  /// across a warp-uniform `if` whose branches pass different numbers,
  /// `ite(c, then, else)`.
  z3::expr warpPhase;
  /// Iteration variables of the loops with barriers in scope.
  std::set<unsigned> lockstepIters;
  unsigned nodeIds = 0;
  unsigned freshIds = 0;
  bool inSpec = false;
  /// Evaluating an `assert`/`assume` (fn contracts included): its reads of
  /// memory other threads write are paired in the race check like the
  /// code's (Event::spec), since what it reads must not be changing.
  bool specReadsRace = false;
  /// Evaluating a barrier contract where it is checked: its reads of global
  /// memory are paired with other blocks' writes (Event::otherBlocksOnly).
  bool contractReadsRace = false;
  /// The variables of the quantifiers and sums being evaluated, with their
  /// ranges: a spec read's index may use them (the race check then asks for
  /// some value in range).
  std::vector<z3::expr> specRanges;
  bool oldState = false; ///< evaluating inside kuiper.old
  std::map<const void *, MemRef> entryState;
  std::vector<std::pair<z3::expr, SrcLoc>> barriers;   ///< pc at each barrier
  struct Collective {
    z3::expr pc;
    SrcLoc loc;
    std::optional<z3::expr> mask;
  };
  std::vector<Collective> collectives; ///< pc (and mask) at each warp collective
  std::unordered_map<std::string, z3::expr> readMemo;
  /// Whether an event's facts simplify to true, by event (read() asks for
  /// every element a merge is read at; the facts can hold large values).
  std::unordered_map<const Event *, bool> factsTrivial;
  /// Truncating signed quotients and remainders computed by the code.
  struct Division {
    bool quotient;
    z3::expr result, dividend, divisor;
  };
  std::vector<Division> divisions;
  /// Results `operand ^ bit` of an xor with one bit (a butterfly partner
  /// `t ^ j`): the writer of `s[t ^ j]` at target T is found at T ^ j.
  struct XorBit {
    z3::expr result, operand;
    int64_t bit;
  };
  std::vector<XorBit> xorBits;
  /// `a ^ bit` for a one-bit constant, arithmetically.
  z3::expr xorBit(const z3::expr &a, int64_t bit) const;
  std::vector<z3::expr> keepAlive;
  std::string unsupportedReason;
  /// The kernel's --budget: past it the symbolic execution stops, and the
  /// kernel is unknown ("the budget ran out"), never verified.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// Whether the deadline has passed (then the execution is stopped).
  bool pastDeadline(mlir::Operation *op);
  /// As unsupported(), reported at `at` (a write's location, say).
  void unsupportedAt(const SrcLoc &at, const std::string &why);
  SrcLoc unsupportedLoc;

  // Helpers.
  z3::sort floatSort(mlir::Type t);
  z3::sort sortOf(mlir::Type t);
  z3::expr fresh(const std::string &name, z3::sort s);
  /// Pair obligations checked as one (Race.cpp), at most this many at once.
  static constexpr size_t kMaxMergedPairs = 16;
  Obligation mergePairs(const std::vector<Obligation> &pairs, size_t from, size_t to);
  z3::expr havoc(const std::string &name, z3::sort s);
  z3::expr linear() const;
  z3::expr tidX(const std::vector<z3::expr> &tv) const;
  z3::expr linearOf(const std::vector<z3::expr> &tv) const;
  std::vector<Observable> pairObservables(const std::vector<z3::expr> &A,
                                          const std::vector<z3::expr> &B) const;
  /// The kernel's "still running" local (how `return` is lowered; marked
  /// `kuiper.thread_running`), if it has one.
  const void *runningFlag = nullptr;
  bool useLanes = false;
  /// A warp-level kernel whose warps are several short rows of the block
  /// (blockDim.x 16, 8, 4 or 2, a whole number of warps per block, at most
  /// 512 threads): lanes are `(x + blockDim.x * y) % 32`, not thread
  /// variables, and its value checks are split on (x, y) instead.
  bool rowsPerWarp = false;
  /// threadIdx.x = split * threadVars[6] + threadVars[0] when split > 1 (32:
  /// warp column and lane, with useLanes); threadVars[0] itself otherwise.
  int64_t split = 1;
  int64_t lowRange() const { return split > 1 ? split : block[0]; }
  int64_t highRange() const { return split > 1 ? block[0] / split : 1; }
  /// The exclusive upper bound of thread variable `t` (its lower bound is 0).
  z3::expr threadVarBound(unsigned t) const;
  z3::expr threadRange(const std::vector<z3::expr> &tv) const;
  z3::expr inRangeAll() const;
  void unsupported(mlir::Operation *op, const std::string &why);
  /// For a shift of a w-bit integer by `amount` that is not a constant in
  /// range: whether the amount is in 0..w-1 (an overflow obligation in code)
  /// and 2^amount over that range (1 past it).
  /// The one term `k + e` (and e) of a body that uses `k` only there (Sums.cpp).
  std::optional<std::pair<z3::expr, z3::expr>> offsetOf(const z3::expr &body,
                                                        const z3::expr &k);
  std::pair<z3::expr, z3::expr> shiftAmount(mlir::Operation &op, const z3::expr &amount,
                                            unsigned w);
  void addObligation(CheckId id, mlir::Location loc, const std::string &msg,
                     const std::string &failMsg, z3::expr goal,
                     std::vector<z3::expr> extra = {}, std::vector<Observable> obs = {});

  // Execution: execOp dispatches to one function per op family
  // (analysis/Execution.cpp).
  void execBlock(mlir::Block &block);
  void execOp(mlir::Operation &op);
  bool execIntegerOp(mlir::Operation &op);
  bool execFloatOp(mlir::Operation &op);
  bool execStructuredOp(mlir::Operation &op);
  bool execHeaderOp(mlir::Operation &op);
  bool execSpecOp(mlir::Operation &op);
  bool execThreadOp(mlir::Operation &op);
  bool execMemoryOp(mlir::Operation &op);
  bool execCollectiveOp(mlir::Operation &op);
  z3::expr get(mlir::Value v);
  void set(mlir::Value v, z3::expr e);
  z3::expr evalRegion(mlir::Region &r, const std::vector<z3::expr> &args = {});
  z3::expr evalGoal(mlir::Region &r, std::vector<z3::expr> &extra, std::vector<Observable> &obs);
  z3::expr evalYielded(mlir::Value v, std::vector<z3::expr> &extra, std::vector<Observable> &obs);
  void execIf(mlir::scf::IfOp op);
  void execFor(kuiper::ForOp op);
  void execWhile(kuiper::WhileOp op);
  void execBarrier(kuiper::BarrierOp op);
  void execAccess(mlir::Operation *op, mlir::Value ref, mlir::ValueRange indices,
                  Event::Kind kind, std::optional<z3::expr> value, mlir::Value result);
  /// The launch-wide fact "buffer `mem`'s base address is a multiple of `bytes`".
  z3::expr alignedBase(const void *mem, uint64_t bytes);
  void checkAlignment(mlir::Operation *op, const void *mem, const std::vector<z3::expr> &idx,
                      uint64_t align, const std::vector<Observable> &obs);
  z3::expr intOp(mlir::Operation &op);
  /// `a` as `c * q + r` with `q >= 0` and `0 <= r < c` for every thread, read
  /// off `a`'s linear form over the thread variables (whose ranges are known);
  /// none where that form does not show it.
  std::optional<std::pair<z3::expr, z3::expr>> splitByConstant(const z3::expr &a, int64_t c) const;
  std::optional<std::pair<int64_t, int64_t>> atomRange(const z3::expr &atom) const;
  std::optional<std::pair<int64_t, int64_t>> rangeOf(const z3::expr &e) const;
  /// An upper bound of `hi - lo` over the ranges rangeOf knows, also where
  /// `hi` is a minimum (`min(lo + 256, n)`: at most 256) or a choice.
  std::optional<int64_t> spanBound(const z3::expr &hi, const z3::expr &lo, int depth = 0) const;
  static std::optional<std::pair<z3::expr, z3::expr>> minOperands(const z3::expr &h);
  /// Bound variables of the contract being evaluated whose range [lo, hi) is
  /// constant (`forall l in 0..32`).
  std::vector<std::tuple<z3::expr, int64_t, int64_t>> boundedVars;
  /// The ranges [lo, hi) a `requires` puts on integer parameters by conjuncts
  /// `n <= 256`, `n >= 1` (a missing side: the i32 extreme), which atomRange
  /// uses only while `withRequiredRanges` is set (see sumOp).
  std::vector<std::tuple<z3::expr, int64_t, int64_t>> requiredRanges;
  bool withRequiredRanges = false;
  int symbolicLoops = -1; ///< loops of the kernel whose bounds are not constants (-1: not counted)
  void noteRequiredRanges(const z3::expr &cond);
  /// Each `forall` built, by the AST id of its quantifier: its variables and
  /// its matrix (range => body), so that a `forall` whose body is another is
  /// built as one quantifier over both (Z3 instantiates nested ones poorly: an
  /// element bound from `forall b: forall i: forall j: ...` went unused).
  struct OpenForall {
    z3::expr quantifier;
    std::vector<z3::expr> vars;
    z3::expr matrix;
  };
  std::unordered_map<unsigned, OpenForall> openForalls;
  /// The constants evalGoal() made for the clause's outer `forall`s that
  /// have constant bounds, with those bounds (of its last call).
  std::vector<std::tuple<z3::expr, int64_t, int64_t>> goalBounds;
  /// Facts implied by `written == named` where the name is `A * p + q` with
  /// `0 <= q < A` and the written index splits as `A * X + Y`, `0 <= Y < A`:
  /// `p == X` and `q == Y` (a postcondition's `y[128 * b + t]` against a
  /// write at `128 * blockIdx.x + threadIdx.x`). Pushed to `facts`.
  void solveIndex(const z3::expr &written, const z3::expr &named, std::vector<z3::expr> &facts) const;
  z3::expr floatOp(mlir::Operation &op);
  z3::expr mathFn(const std::string &name, mlir::Type t, std::vector<z3::expr> args);
  /// Over the reals (FloatMode::Real): the infinities and NaN a division by
  /// zero computes (sign 1, -1; 0 for NaN), distinguished reals beyond every
  /// float, and whether a real-valued term may be one of them (through
  /// selects, maxima, minima and negation).
  z3::expr realSpecial(int sign);
  z3::expr mayBeSpecial(const z3::expr &t);
  /// Over the reals: the other operand where one of a maximum's (isMin:
  /// minimum's) operands is its identity, the infinity of realSpecial.
  std::optional<z3::expr> realIdentityPick(const z3::expr &a, const z3::expr &b, bool isMin);
  /// Over the reals: `v` is a finite float's value (an input's, trusted).
  z3::expr finiteReal(const z3::expr &v);
  /// Over the reals: an obligation that no infinity or NaN of realSpecial is
  /// an operand of `op`'s arithmetic, where the reals would treat it as a
  /// number (`0.0 * (1.0 / 0.0)` is 0 there, NaN in IEEE).
  void checkFiniteOperands(mlir::Operation &op);
  bool realSpecialsMade = false;
  z3::expr shuffle(kuiper::ShuffleOp op);
  /// `r`, the result of a commutative operation (`+`, `*`, fmaximum,
  /// fminimum) of `a` and `b`, or, where `b` is `shfl_xor(a, d)` (or `a`
  /// of `b`) and the rounds so far have gathered every lane (distances 16,
  /// 8, 4, 2 and 1 in any order), lane 0's value of `r` with the facts about
  /// it: after such a butterfly every lane holds one value, bit for bit (see
  /// Collectives.cpp).
  z3::expr butterflyStep(const z3::expr &a, const z3::expr &b, const z3::expr &r);
  /// The unmasked `shfl_xor` results by AST id: the value shuffled and the
  /// distance; and the values a butterfly has gathered so far, with the
  /// distances (a bit set) of its rounds.
  struct XorShuffle {
    z3::expr result, source;
    unsigned distance;
  };
  std::unordered_map<unsigned, XorShuffle> xorShuffles;
  std::unordered_map<unsigned, std::pair<z3::expr, unsigned>> butterflyRounds;
  z3::expr vote(kuiper::VoteOp op);
  void collective(mlir::Operation *op, mlir::Value mask);
  void execSyncWarp(kuiper::SyncWarpOp op);
  z3::expr laneId() const;
  z3::expr atLane(z3::expr e, z3::expr lane) const;
  z3::expr factsAtLane(const z3::expr &v, const z3::expr &lane);
  /// Copies, mapped by `map` and implied by `guard`, of the termFacts that `v`
  /// needs (with `laneWritersOnly`, of the laneWriterFacts about its terms,
  /// not those they need in turn): a valid fact about a term is valid about
  /// its image under a substitution of variables (another thread's ids,
  /// another lane). Copies of writerFacts are laneWriterFacts.
  void copyTermFacts(const z3::expr &v, const std::function<z3::expr(const z3::expr &)> &map,
                     const z3::expr &guard, bool laneWritersOnly = false,
                     const void *memo = nullptr);

  z3::expr factsSince(const z3::expr &now, const z3::expr &base) const;
  z3::expr maskBit(z3::expr mask, z3::expr lane) const;
  z3::expr laneActive(z3::expr lane, std::optional<z3::expr> mask) const;
  z3::expr floatConst(mlir::FloatAttr a);
  z3::expr sumOp(kuiper::SumOp op);
  z3::expr symbolicSum(kuiper::SumOp op, z3::expr lo, z3::expr hi, int64_t step);
  z3::expr sumTerm(z3::expr f, z3::expr lo, z3::expr count, int64_t step);
  z3::expr sumCount(z3::expr lo, z3::expr hi, int64_t step);
  int64_t sumWindow = -1; ///< see sumTerm
  /// Whether the kernel has a sum or reduction whose start is computed from a
  /// loop's index or a `var` (a suffix `sum(k in n - t..n: ...)` in a loop
  /// invariant): then symbolic folds also get their first-term definition.
  bool frontStepFolds();
  /// Whether `e` mentions a value a loop's summary left arbitrary (a local
  /// it changes, or memory it writes; with `memoryOnly`, memory), of which
  /// only its invariants speak.
  static bool mentionsLoopHavoc(const z3::expr &e, bool memoryOnly = false);
  std::optional<bool> frontSteps;
  /// Symbolic sums made so far: body, start, step, count, term.
  std::vector<std::tuple<z3::expr, z3::expr, int64_t, z3::expr, z3::expr>> sumTerms;
  /// Symbolic sums whose body reads at `k + e` (offsetOf): the sum, its body
  /// at k (a lambda), its start moved by e, its count and step, and whether
  /// its shifted form is stated yet (only once another sum has that body as
  /// it is: a tail block's loop against its clause).
  struct ShiftedSum {
    z3::expr total, moved, lo, count;
    int64_t step;
    bool stated = false;
  };
  std::vector<ShiftedSum> shiftedSums;
  /// The lambdas of the symbolic sums read as they are (for ShiftedSum).
  std::vector<z3::expr> plainSumBodies;
  z3::expr reduceOp(kuiper::ReduceOp op);
  /// The max (min) and argmax (argmin) terms made so far, by their terms,
  /// first index, count and step (see reduceTerm: a fact ties the two).
  std::map<std::string, std::pair<std::optional<z3::expr>, std::optional<z3::expr>>> extremumPairs;
  std::optional<bool> extremumPairsPossible; ///< the kernel has a max and an argmax (min, argmin)
  z3::expr reduceTerm(kuiper::ReduceKind k, z3::expr f, mlir::Type termType, z3::expr lo, z3::expr hi,
                      int64_t step, int64_t maxStep);
  z3::expr reduceCombine(kuiper::ReduceKind k, z3::expr acc, z3::expr term);
  std::optional<z3::expr> reduceIdentity(kuiper::ReduceKind k, mlir::Type t);
  z3::expr fextremum(z3::expr a, z3::expr b, bool isMin);
  z3::expr argBeats(z3::expr v, z3::expr w, bool isMin);
  z3::expr argBefore(z3::expr v, z3::expr i, z3::expr w, z3::expr j, bool isMin);
  void checkOverflow(mlir::Operation &op, z3::expr r, unsigned width, bool isSigned);
  void checkUniformity();

  // Memory.
  z3::expr read(const MemRef &m, const std::vector<z3::expr> &idx);
  MemRef mergeNode(const void *mem, MemRef prev, const std::vector<const Event *> &evs,
                   const std::vector<unsigned> &freeThreadVars,
                   const std::set<unsigned> &fixedIters = {});
  /// The last iterations, outermost loop first, of the loops `vars[decided]`
  /// (`loopOf` maps a variable after the `nThread` thread ids to its loop) at
  /// which the writer named by `w` writes `e`'s element, where `e`'s path
  /// depends on them: fresh functions of the rest of the witness, with the
  /// fact that defines them (witness()).
  std::vector<z3::expr> lastWritingIterations(const Event &e, const std::vector<z3::expr> &vars,
                                              const std::vector<std::optional<z3::expr>> &w,
                                              const std::vector<size_t> &decided,
                                              const std::vector<unsigned> &loopOf, size_t nThread);
  bool witness(const Event &e, const std::vector<unsigned> &freeThreadVars,
               const std::vector<z3::expr> &target, std::vector<z3::expr> &from,
               std::vector<z3::expr> &to, bool iterFirst = true,
               std::optional<z3::expr> *selfGoal = nullptr,
               const std::set<unsigned> &fixedIters = {},
               std::vector<bool> *lastIteration = nullptr);
  /// Lexicographic `a <= b` (or `a < b` with `strict`) of iteration vectors,
  /// outermost loop first.
  z3::expr iterationsBefore(const std::vector<z3::expr> &a, const std::vector<z3::expr> &b,
                            bool strict);
  /// Merges the writes of the barrier interval into the memory state at a
  /// barrier; `atSyncWarp`: of shared arrays, by the reader's warp, where the
  /// reader passed the syncwarp (MemNode::warpOnly). The events numbered
  /// [skip.first, skip.second) are left out (the other branch of an `if`).
  void mergeInterval(const std::set<unsigned> &fixedIters, bool atSyncWarp = false,
                     std::pair<size_t, size_t> skip = {0, 0});
  z3::expr covered(const Event &e, const std::vector<z3::expr> &from,
                   const std::vector<z3::expr> &to, const std::vector<z3::expr> &target);

  // Kernel-level checks after execution.
  void finalChecks();
  bool writerPostcondition(kuiper::EnsuresOp ens);
  /// The coverage obligation of each out buffer (finalChecks): its index
  /// and the bounds [lo, hi) of the elements it is about, per dimension.
  struct CoverageCheck {
    size_t index;
    std::vector<std::pair<z3::expr, z3::expr>> region;
  };
  std::map<const void *, CoverageCheck> coverageChecks;
  MemRef havocMemory(const void *mem);
  bool bindEqualLocals(mlir::Value cond, const std::set<const void *> &modified);
  void restoreUnmodifiedLocals(const std::unordered_map<const void *, z3::expr> &before,
                               const std::set<const void *> &modified);
  void loopInvariants(mlir::Region &region, std::optional<z3::expr> iv, bool check,
                      const std::string &when);
  void havocLoop(const std::set<const void *> &modified, const std::set<const void *> &written,
                 const std::string &why);
  /// A boolean local that a loop body only ever clears (stores `false` to):
  /// how `return` inside a loop is lowered, the thread's "still running"
  /// flag. After the loop it is false only where some iteration cleared it.
  struct ClearedFlag {
    const void *local;
    z3::expr before;                 ///< its value before the loop
    std::optional<z3::expr> atStart; ///< at the start of the body (havocked)
    std::optional<z3::expr> witness; ///< an iteration of the body clears it
  };
  void exitFactsForWriters(const z3::expr &savedPc, const z3::expr &savedFacts);
  std::vector<ClearedFlag> clearedFlags(mlir::Region &body,
                                        const std::set<const void *> &modified);
  void noteClearing(std::vector<ClearedFlag> &flags, const z3::expr &bodyPc,
                    const z3::expr &savedFacts);
  void assumeCleared(const std::vector<ClearedFlag> &flags, const z3::expr &savedPc,
                     const z3::expr &savedFacts,
                     const std::unordered_map<const void *, z3::expr> &localsBefore,
                     const std::map<const void *, MemRef> &stateBefore, size_t eventsBefore);
  z3::expr toUnsigned(z3::expr v, unsigned width);
  z3::expr toSigned(z3::expr v, unsigned width);
  std::map<mlir::Operation *, z3::expr> overrideLoad;
  void raceChecks();
  void finalState();
  z3::expr renamed(z3::expr e, const std::vector<unsigned> &iters, const std::string &suffix,
                   bool iterations = true);
  std::vector<z3::expr> renamedThread(const std::string &suffix) const;
};

} // namespace kuiper::verifier

#endif
