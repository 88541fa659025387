//===- Solver.h - The solver layer of the verifier --------------*- C++ -*-===//
//
// Decides proof obligations given as SMT-LIB text: a portfolio of Z3
// configurations bounded by Z3's resource counter (so that an answer does not
// depend on the machine's load), an on-disk cache of proved queries, and
// worker threads. Knows nothing of MLIR or of what an obligation means.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_VERIFIER_SOLVER_SOLVER_H
#define KUIPER_VERIFIER_SOLVER_SOLVER_H

#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kuiper::solver {

/// What the solver says of "assumptions imply goal" (asked as: is
/// assumptions and not goal satisfiable?).
enum class Answer {
  Proved,      ///< unsat: the goal follows
  Failed,      ///< sat: a counterexample exists
  Unknown,     ///< the resource limit ran out (or the solver gave up)
  NotAttempted, ///< the budget ran out before the query was tried
  Skipped,      ///< failFast: left after the cheap stages, another check failed
  /// Its bit-precise float stages were not started: their bit-blasting, which
  /// Z3 does not interrupt, would outlast what is left of the budget.
  OutlastsBudget
};

/// Which of the portfolio's stages solveQuery runs.
enum class Stages {
  All,  ///< every stage, cheapest first
  Quick ///< the cheap first stages only (float abstraction, simplex)
};

/// The quick stages' resource limit in failFast's first pass (a tenth of a
/// second's worth): races, bounds and most wrong values fail within it.
constexpr uint64_t kProbeRlimit = 2'000'000;
/// A split on every thread of a block is first tried under this many
/// resource units per case, or kProbeRlimit in all if that is more.
constexpr uint64_t kProbeRlimitPerCase = 32'000;
/// Trees of float maxima/minima in a query from which canonicalExtrema is
/// worth trying (a 32-leaf butterfly has 62).
constexpr unsigned kMinExtremumTrees = 8;

/// Z3 4.8 does not count all its work against the resource limit: some of
/// its procedures (the SMT core on some quantified or bit-vector queries, the
/// simplifier on large terms) ran for seconds while counting almost nothing,
/// or did not stop at all. A call is therefore also stopped after
/// cpuGuardSeconds(rlimit) of its thread's CPU time: the time its resource
/// limit takes at kGuardUnitsPerSecond, 24 times slower than the nominal
/// 15 million per second. Across the corpus (767 kernels, 2026-12-04) every
/// call that finished used at most 0.45 of this guard, some counting as few
/// as 0.4 million units per second, so the resource limit decides every
/// answer but those of calls that stall,
/// and a loaded machine, whose CPU time per unit grows by tens of percent,
/// gives the same answers. (A guard at a third of the nominal rate fired on
/// calls that would have proved their query a moment later, and a kernel's
/// verdict then depended on the machine's load.) A guard can only turn an
/// answer into Unknown, which the report says.
constexpr double kGuardUnitsPerSecond = 625'000;
/// The CPU seconds a call under `rlimit` resource units may use; at least
/// 0.1 s (the watchdog looks every 20 ms).
inline double cpuGuardSeconds(uint64_t rlimit) {
  return std::max(0.1, double(rlimit) / kGuardUnitsPerSecond);
}

/// Limits that decide answers: resource units, never wall-clock time.
struct Limits {
  /// Z3 resource units for the full stage (about 15 million per second of
  /// solving on the reference 2-core machine).
  uint64_t rlimit = 150'000'000;
  /// Resource units for each cheap first stage.
  uint64_t quickRlimit = 40'000'000;
  /// The kernel's wall-clock budget (--budget), if any: past it every call
  /// is interrupted, so that its answer is unknown. It can only turn an
  /// answer into "unknown", never into a proof.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  /// The least CPU-time guard of a call (seconds), whatever its resource
  /// limit: a glance under a small limit is still given time for the work Z3
  /// does not count (setting up a query's floats), so that its guard does
  /// not decide it.
  double guardFloorSeconds = 0;
};

/// One query of the portfolio.
/// A prediction of the seconds Z3 spends bit-blasting the float operations
/// of `asserts` (which its interrupt does not stop): per distinct operation,
/// from its significand width (multipliers grow with its square).
double bitBlastSeconds(const z3::expr_vector &asserts);

struct Query {
  std::string smt;         ///< SMT-LIB: assumptions and the negated goal
  std::string fallbackSmt; ///< the same with lemmas, tried when undecided
  /// The query's integer skeleton (integerSkeleton), if any: tried first.
  std::string skeletonSmt;
  std::string hash;        ///< SHA-256 of `smt` (the cache key)
  bool trivial = false;    ///< the goal simplified to true
  bool skip = false;       ///< not to be solved (e.g. unsupported)
  bool proved = false;     ///< proven before the batch: solveAll keeps it
  /// A failure of this query fails the kernel (not a lemma, a finding or a
  /// vacuity probe): what failFast stops on.
  bool decisive = true;
  /// Decided even after failFast stops (a writer lemma: whether a failure
  /// about memory values is one rests on it).
  bool essential = false;
  /// Integer constants of the query, each with its range [0, count) (a
  /// warp lane, and a warp's index in the block): where every stage leaves
  /// the query undecided, it is tried once per combination of their values,
  /// and proved when every case is.
  struct Split {
    std::string var;
    int64_t count;
  };
  std::vector<Split> splits;
  /// A split on every thread of a block: tried once, after stage 0
  /// (equations solved) under kProbeRlimit, with kProbeRlimitPerCase per
  /// case (its cases cost more than most queries whole, but fold to
  /// constants where it helps), and not again after the later stages.
  bool probeSplit = false;
  Answer answer = Answer::Unknown;
  /// Unknown because a CPU-time guard stopped a stage (cpuGuardSeconds) that
  /// the resource limit did not: an answer the machine could change.
  bool stoppedByGuard = false;
  double ms = 0;           ///< wall time spent (for reports, never for verdicts)
  std::string certificate; ///< the SMT text that proved it (with keepCertificate)
};

/// Where proved queries are remembered across runs.
class ProofCache {
public:
  /// A cache in `directory` (empty: no cache).
  explicit ProofCache(std::string directory);
  /// The default directory: $KUIPER_CACHE_DIR, $XDG_CACHE_HOME/kuiper or
  /// ~/.cache/kuiper.
  static std::string defaultDirectory();
  bool contains(const std::string &hash) const;
  void storeProved(const std::string &hash) const;

private:
  std::string directory;
};

/// Progress of a batch: (queries done, queries in all, index of the last).
using ProgressFn = std::function<void(size_t done, size_t total, size_t last)>;

/// Options of a batch.
struct BatchOptions {
  Limits limits;
  unsigned jobs = 0;            ///< worker threads; 0 = one per core of the affinity mask
  bool keepCertificate = false; ///< fill Query::certificate
  /// Wall-clock deadline of the batch: queries not started by then are
  /// NotAttempted (an explicit user budget: it can only turn a verdict into
  /// "unknown", never into "verified").
  std::optional<std::chrono::steady_clock::time_point> deadline;
  ProgressFn progress;
  /// A context the calling thread may solve in (the first worker runs on the
  /// calling thread); none: every worker creates its own. Creating a Z3
  /// context costs tens of milliseconds of table set-up.
  z3::context *callerContext = nullptr;
  /// Queries per lane (a lane is a Z3 context solving its queries in order):
  /// a batch has (queries not trivial) / this many lanes, at least one and at
  /// most kMaxLanes, whatever the machine, --jobs or the proof cache; `jobs`
  /// threads (at most one per lane) run them.
  unsigned queriesPerWorker = 24;
  static constexpr size_t kMaxLanes = 4;
  /// Every query first gets the cheap stages under kProbeRlimit; the whole
  /// portfolio only if no decisive query failed there (and not
  /// alreadyFailed); otherwise the undecided ones are Skipped (but the
  /// essential ones). For tools that only need the verdict of a wrong kernel
  /// (kuiperc --fail-fast).
  bool failFast = false;
  /// With failFast: the kernel has already failed (e.g. a run refuted a check).
  bool alreadyFailed = false;
  /// Only the cheap stages under kProbeRlimit (failFast's first phase): what
  /// they leave undecided is Skipped.
  bool probeOnly = false;
};

/// A solver built from tactics (`simplify`, then `smt`) with the portfolio's
/// parameters (resource limit `rlimit`, no nlsat): each check is solved
/// afresh, and it costs no set-up when made (Z3's default solver's costs
/// ~2.5 ms per query).
z3::solver tacticSolver(z3::context &context, uint64_t rlimit);

/// SHA-256 of `text` in hex.
std::string hashText(const std::string &text);

/// SMT-LIB text asserting `asserts` (what z3::solver::to_smt2 prints, without
/// making a solver: a solver's first assertion sets up its tactics, which
/// cost more than printing a small query).
std::string smtText(z3::context &context, const std::vector<z3::expr> &asserts);

/// Interrupts a Z3 context whose solving thread used more CPU time than
/// allowed (cpuGuardSeconds). One watchdog thread serves a batch.
class CpuWatchdog {
public:
  /// With `deadline`, every guarded call still running then is interrupted
  /// too, and budgetRanOut() says so.
  explicit CpuWatchdog(
      std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);
  ~CpuWatchdog();
  /// Guards the calling thread's next solver call on `context`.
  void arm(z3::context &context, double cpuSeconds);
  /// Ends the guard; whether it interrupted the context.
  bool disarm(z3::context &context);
  /// Whether the deadline has passed.
  bool budgetRanOut() const {
    return deadline && std::chrono::steady_clock::now() > *deadline;
  }

private:
  struct Watch {
    clockid_t clock;
    double deadline;
    bool fired;
  };
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::mutex lock;
  std::condition_variable wake;
  bool stopping = false;
  std::map<z3::context *, Watch> armed;
  std::thread thread;
  void watch();
};

/// Arms a watchdog (if any) for the lifetime of one solver call; records in
/// `*interrupted` (if given) whether it fired.
class GuardedCall {
public:
  GuardedCall(CpuWatchdog *watchdog, z3::context &context, double cpuSeconds,
              bool *interrupted = nullptr)
      : watchdog(watchdog), context(context), interrupted(interrupted) {
    if (watchdog)
      watchdog->arm(context, cpuSeconds);
  }
  ~GuardedCall() {
    if (watchdog && watchdog->disarm(context) && interrupted)
      *interrupted = true;
  }

private:
  CpuWatchdog *watchdog;
  z3::context &context;
  bool *interrupted;
};

/// Decides one query in `context` (cache not consulted); `watchdog`, if
/// given, stops a stage that exceeds the CPU guard and sets `*interrupted`.
Answer solveQuery(z3::context &context, Query &query, const Limits &limits,
                  bool keepCertificate, CpuWatchdog *watchdog = nullptr,
                  bool *interrupted = nullptr, Stages stages = Stages::All);

/// A model of `asserts` (in `context`) found by the portfolio's stages that
/// can answer sat, each under `limits`; nothing if none finds one. The
/// integer terms `small` (a kernel's parameters) are then made small where
/// the constraints allow (see shrinkModel in Portfolio.cpp). With
/// `mediumFirst`, a search with `small` in [-4096, 4096] comes before the
/// unbounded one (after the one in [-64, 64]).
std::optional<z3::model> findModel(z3::context &context, const z3::expr_vector &asserts,
                                   const Limits &limits,
                                   const std::vector<z3::expr> &small = {},
                                   bool mediumFirst = false);

/// Decides every query on worker threads, each with its own context; a
/// static split keeps each worker's history, and so the answers, the same
/// from run to run.
void solveAll(std::vector<Query> &queries, const ProofCache &cache, const BatchOptions &opts);

/// Replaces floating-point operations by uninterpreted functions of the same
/// sorts (a proof there holds for IEEE too), in quantifier bodies too
/// (`quantified` says whether there were any); with `commute` the operands
/// of commutative operations in one order, by their shapes (`reordered`
/// says whether any were swapped). Nothing when there are no
/// float operations, or when `stop` (polled as it goes: a clause of nested
/// folds has tens of thousands of float terms) says so.
std::optional<z3::expr_vector> abstractFloats(z3::context &context, const z3::expr_vector &in,
                                              const std::function<bool()> &stop = nullptr,
                                              bool *stopped = nullptr,
                                              bool *quantified = nullptr, bool commute = true,
                                              bool *reordered = nullptr);

/// IEEE 754-2019 maximum (minimum with `isMin`) of two floats: NaN if either
/// is NaN, +0 above -0 (-0 below +0). Of two integers or reals, the larger
/// (smaller).
z3::expr ieeeExtremum(z3::context &c, bool isMin, const z3::expr &a, const z3::expr &b);

/// The query with each tree of float maxima (or minima), as ieeeExtremum builds
/// them, and of integer or real ones (`ite(a <= b, a, b)`, `ite(b > a, b, a)`,
/// ...), rewritten to the fold of its set of leaves, after equations are solved
/// and known literals propagated: two trees over the same leaves (a warp's
/// `shfl_xor` butterfly and a clause's `max(j in 0..32: ...)`) become one term.
/// Before that, a loop's value known through its invariant as equal in value
/// to a fold (`m == max(k in lane..j step 32: ...)`, -0 == +0) takes the fold's
/// place where only its value counts, and a fold whose terms a tree gathers at
/// a larger step is split into its interleaved folds at that step. Unsat only
/// if `in` is (the operations are associative, commutative and idempotent; a
/// model of `in` is one of the result); nothing when it has fewer than
/// `minTrees` of them and no fold, or, with `onlyRewritten`, when neither of
/// the two rewrites applies. `foldsSplit`, if given, tells whether a fold was
/// split.
std::optional<z3::expr_vector> canonicalExtrema(z3::context &context, const z3::expr_vector &in,
                                                unsigned minTrees, bool onlyRewritten = false,
                                                bool *foldsSplit = nullptr);

/// Calls `visit` on every application of `roots` outside binders, each once
/// (`seen` holds the ids of those visited).
template <typename Visit>
void forEachGroundApp(const std::vector<z3::expr> &roots, std::set<unsigned> &seen, Visit visit) {
  std::vector<z3::expr> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (!e.is_app() || !seen.insert(e.id()).second)
      continue;
    visit(e);
    for (unsigned i = 0; i < e.num_args(); ++i)
      stack.push_back(e.arg(i));
  }
}

/// Ground instances of the universally quantified assertions among `asserts`
/// at the ground terms of `asserts` that match one of their triggers (an
/// application of an uninterpreted function naming every bound variable), in
/// up to three rounds, at most `maxInstances` in all, and none of an
/// assertion with fewer than `minInstances` in a round (Instances.cpp). Each is
/// implied by its assertion.
std::vector<z3::expr> groundInstances(z3::context &context, const std::vector<z3::expr> &asserts,
                                      size_t minInstances, size_t maxInstances);

/// Congruence, for pairs of terms of `asserts` (outside binders) that are
/// equal where their arguments are: real quotients by the same denominator
/// (not a numeral), `a == b ==> a / d == b / d`, and applications of one
/// uninterpreted function of real arguments (a math function over the
/// reals), `a == b ==> sqrt(a) == sqrt(b)`. Z3 takes a quotient by a term as a
/// nonlinear product, and propagates the equality of two large sums to its
/// congruence closure late or never (Instances.cpp). Nothing for a group of
/// more than `maxGroup` terms.
std::vector<z3::expr> congruences(z3::context &context, const std::vector<z3::expr> &asserts,
                                  size_t maxGroup);

/// Where `negatedGoal` is a formula of integer arithmetic over integer
/// constants: the conjuncts of `assumptions` that are too (thread ranges,
/// index arithmetic, branch conditions on ids), without those about memory
/// values, floats, arrays or quantifiers, and then the goal. Fewer
/// assumptions: their unsatisfiability proves the query's. None where the
/// goal is not such a formula or no conjunct was left out.
std::optional<std::vector<z3::expr>> integerSkeleton(const std::vector<z3::expr> &assumptions,
                                                     const z3::expr &negatedGoal);

/// Whether integer bounds alone show the conjunction of `asserts` to be
/// unsatisfiable (Intervals.cpp): true is a proof; false says nothing.
bool refutedByIntervals(const std::vector<z3::expr> &asserts);

} // namespace kuiper::solver

#endif
