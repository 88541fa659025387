//===- Portfolio.cpp - Deciding one query, and batches of them ------------===//
//
// Cheapest configuration first; unsat from any stage is a proof and sat a
// counterexample (except in the float abstraction, whose sat means nothing):
//  1. floating-point operations as uninterpreted functions: fast when both
//     sides of a goal compute the same term;
//  2. Z3's simplex arithmetic solver (better on div/mod-by-constant witness
//     queries);
//  3. Z3's default configuration with the full resource limit;
//  4. the same with lemmas other obligations justify, if still undecided.
// Every stage is bounded by Z3's resource counter, never by the clock.
//
//===----------------------------------------------------------------------===//
#include "verifier/solver/Solver.h"

#include "llvm/Support/Debug.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <time.h>

#define DEBUG_TYPE "kuiper-solver"

using namespace kuiper::solver;

//===----------------------------------------------------------------------===//
// CPU-time guard
//===----------------------------------------------------------------------===//

kuiper::solver::CpuWatchdog::CpuWatchdog(
    std::optional<std::chrono::steady_clock::time_point> deadline)
    : deadline(deadline), thread([this] { watch(); }) {}

kuiper::solver::CpuWatchdog::~CpuWatchdog() {
  {
    std::lock_guard<std::mutex> guard(lock);
    stopping = true;
  }
  wake.notify_all();
  thread.join();
}

static double cpuTime(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void kuiper::solver::CpuWatchdog::arm(z3::context &context, double cpuSeconds) {
  clockid_t clock;
  pthread_getcpuclockid(pthread_self(), &clock);
  std::lock_guard<std::mutex> guard(lock);
  armed[&context] = {clock, cpuTime(clock) + cpuSeconds, false};
}

bool kuiper::solver::CpuWatchdog::disarm(z3::context &context) {
  std::lock_guard<std::mutex> guard(lock);
  auto it = armed.find(&context);
  bool fired = it != armed.end() && it->second.fired;
  if (it != armed.end())
    armed.erase(it);
  return fired;
}

void kuiper::solver::CpuWatchdog::watch() {
  std::unique_lock<std::mutex> guard(lock);
  while (!stopping) {
    wake.wait_for(guard, std::chrono::milliseconds(20));
    // Once past the deadline the context is interrupted at every tick until
    // the call returns: an interrupt that lands while Z3 sets up an inner
    // procedure can be lost, and one more costs nothing.
    bool pastBudget = budgetRanOut();
    for (auto &[context, w] : armed)
      if (w.fired || pastBudget || cpuTime(w.clock) > w.deadline) {
        w.fired = true;
        context->interrupt();
      }
  }
}

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

/// A resource limit alone (tactic solvers without the SMT core take no
/// arithmetic options).
z3::params rlimitParams(z3::context &context, uint64_t rlimit) {
  z3::params p(context);
  p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(rlimit, UINT32_MAX)));
  return p;
}

/// The parameters of every call to the SMT core: the resource limit, and no nlsat.
/// Z3 4.8's nonlinear real procedure neither counts its work against the
/// resource limit nor stops when interrupted (a race query of a tiled-matmul
/// mutant ran for 16 minutes; without it, unsat in 0.7 s). The nonlinear
/// integer facts the verifier needs come from its own lemmas
/// (SymExec::productFacts), Z3's Groebner and Horner steps and tangents.
z3::params solverParams(z3::context &context, uint64_t rlimit) {
  z3::params p = rlimitParams(context, rlimit);
  p.set("arith.nl.nra", false);
  return p;
}

} // namespace

z3::solver kuiper::solver::tacticSolver(z3::context &context, uint64_t rlimit) {
  z3::solver s = (z3::tactic(context, "simplify") & z3::tactic(context, "smt")).mk_solver();
  s.set(solverParams(context, rlimit));
  return s;
}

namespace {

Answer answerOf(z3::check_result r) {
  return r == z3::unsat ? Answer::Proved : r == z3::sat ? Answer::Failed : Answer::Unknown;
}

/// The first line of a certificate proved with floats abstracted.
constexpr const char *kAbstractedHeader =
    "; floating-point operations abstracted as uninterpreted functions\n";

/// Equations solved for their variables and substituted, then simplified;
/// undecided unless that shows the assertions false or true (no SMT core).
z3::solver equationSolver(z3::context &context) {
  return (z3::tactic(context, "simplify") & z3::tactic(context, "solve-eqs") &
          z3::tactic(context, "simplify") & z3::tactic(context, "fail-if-undecided"))
      .mk_solver();
}

/// `s` (set up with `params`, whose resource limit is `rlimit`) on `query`
/// under that limit's CPU guard.
std::pair<z3::check_result, z3::solver> quickCheck(z3::context &context, z3::solver s,
                                                   const z3::params &params, uint64_t rlimit,
                                                   const z3::expr_vector &query,
                                                   CpuWatchdog *watchdog, bool *interrupted) {
  s.set(params);
  for (auto a : query)
    s.add(a);
  GuardedCall guard(watchdog, context, cpuGuardSeconds(rlimit), interrupted);
  z3::check_result r = s.check();
  return {r, s};
}

/// Stage 0 alone on `query` under `rlimit` (and its CPU guard).
std::pair<z3::check_result, z3::solver> equationsOnly(z3::context &context,
                                                      const z3::expr_vector &query,
                                                      uint64_t rlimit, CpuWatchdog *watchdog,
                                                      bool *interrupted) {
  return quickCheck(context, equationSolver(context), rlimitParams(context, rlimit), rlimit, query,
                    watchdog, interrupted);
}

/// Whether stage 0 alone (floats abstracted, equations solved: see
/// docs/verification.md) shows `asserts` unsat under kProbeRlimit: the cheap
/// test before a split on every thread. (Not stages 0-1 whole: what they
/// leave in the lane's context changes what the later stages do, and a layer
/// norm's postcondition took 27 s instead of 3 after them.)
bool equationsRefute(z3::context &context, const z3::expr_vector &asserts,
                     std::string *certificate, CpuWatchdog *watchdog, bool *interrupted) {
  bool stopped = false, quantified = false;
  auto budgetGone = [&] { return watchdog && watchdog->budgetRanOut(); };
  std::optional<z3::expr_vector> abstracted =
      abstractFloats(context, asserts, budgetGone, &stopped, &quantified, true);
  if (stopped)
    return false;
  if (abstracted && quantified && bitBlastSeconds(asserts) == 0)
    abstracted.reset(); // as stage 1 does
  auto [r, s] = equationsOnly(context, abstracted ? *abstracted : asserts, kProbeRlimit, watchdog,
                              interrupted);
  if (r != z3::unsat)
    return false;
  if (certificate)
    *certificate = (abstracted ? kAbstractedHeader : "") + s.to_smt2();
  return true;
}

/// Stage 0 then simplify-then-smt on `query`, each under `rlimit` (and its
/// CPU guard): the solver and its answer.
std::pair<z3::check_result, z3::solver> simplifyThenSmt(z3::context &context,
                                                        const z3::expr_vector &query,
                                                        uint64_t rlimit, CpuWatchdog *watchdog,
                                                        bool *interrupted) {
  // First without the SMT core: equations solved for their variables and
  // substituted, then simplified. A postcondition `y[i] == f(x[i])` whose
  // writer index is an equation becomes `f(x[i]) != f(x[i])`, false: 5 ms in
  // the SMT core, 0.1 ms here. What this leaves undecided goes to the tactic
  // below as it was (the same asserts, not the rewritten goal).
  auto [r, s] = equationsOnly(context, query, rlimit, watchdog, interrupted);
  if (r == z3::unsat || (interrupted && *interrupted))
    return {r, s};
  return quickCheck(context, tacticSolver(context, rlimit), solverParams(context, rlimit), rlimit,
                    query, watchdog, interrupted);
}

/// Stage 1b: the query with its trees of maxima and minima folded over their
/// sets of leaves (canonicalExtrema), under a probe's share; only its unsat
/// counts. With `onlyRewritten`, only where a loop's value was put in place
/// of its invariant's fold or a fold was split to match a tree's (the stage
/// then comes before the others: a warp's strided row maximum and butterfly,
/// undecided after 50 s in them, is proved here in 0.2 s).
z3::check_result extremaStage(z3::context &context, const z3::expr_vector &asserts,
                              const Limits &limits, std::string *certificate,
                              CpuWatchdog *watchdog, bool *interrupted, bool onlyRewritten) {
  std::optional<z3::expr_vector> canonical;
  bool split = false;
  try {
    // (Its own simplification calls count no resources: the guard of the
    // probe's limit bounds them.)
    GuardedCall guard(watchdog, context, cpuGuardSeconds(kProbeRlimit), interrupted);
    canonical = canonicalExtrema(context, asserts, kMinExtremumTrees, onlyRewritten, &split);
  } catch (z3::exception &) {
    // Its simplification stopped by a guard (tactics throw where a check
    // returns unknown): no canonical form, and the later stages still run.
  }
  if (!canonical || (interrupted && *interrupted))
    return z3::unknown;
  // (Where a fold was split, early, only equations solved and terms
  // simplified: the two sides are one term or the attempt is left to the
  // later stages; the SMT core on a block tree's contracts, each fold split
  // 2 to 256 ways, took 0.3-1.6 s a query and did not prove them.)
  auto [c, cs] = onlyRewritten && split
                     ? equationsOnly(context, *canonical, kProbeRlimit, watchdog, interrupted)
                     : simplifyThenSmt(context, *canonical,
                                       std::min(limits.quickRlimit, kProbeRlimit), watchdog,
                                       interrupted);
  if (c != z3::unsat)
    return z3::unknown;
  if (certificate)
    *certificate = "; maxima and minima folded over their sets of leaves\n" + cs.to_smt2();
  return c;
}

/// Stage 1: Z3's simplify-then-smt tactic under the quick limit, on the float
/// abstraction where there is one (only its unsat counts: a proof there
/// holds for IEEE too), else on the query itself (real-valued and integer
/// queries, which it settles far sooner than the default solver does: a
/// norm's postcondition over the reals 12 s -> 1.3 s).
z3::check_result tacticStage(z3::context &context, const z3::expr_vector &asserts,
                             const Limits &limits, std::string *certificate,
                             CpuWatchdog *watchdog, bool *interrupted) {
  bool stopped = false, quantified = false, reordered = false;
  auto budgetGone = [&] { return watchdog && watchdog->budgetRanOut(); };
  auto budgetRanOut = [&] { // while abstracting
    if (interrupted)
      *interrupted = true;
    return z3::unknown;
  };
  std::optional<z3::expr_vector> abstracted =
      abstractFloats(context, asserts, budgetGone, &stopped, &quantified, true, &reordered);
  if (stopped)
    return budgetRanOut();
  // A quantified query whose float terms are only compared (a maximum's
  // fp.gt and fp.isNaN: nothing to bit-blast) keeps its first stage as it
  // was: the abstraction loses the IEEE order such a proof needs, and its
  // terms in a warm context changed what the solver did next (a softmax's
  // row statistics 5.8 -> 18 s).
  if (abstracted && quantified && bitBlastSeconds(asserts) == 0)
    abstracted.reset();
  auto tactic = [&](const z3::expr_vector &query, uint64_t rlimit) {
    return simplifyThenSmt(context, query, rlimit, watchdog, interrupted);
  };
  // A quantified abstraction gets a probe's share, as the query itself is
  // tried after it: what congruence shows (a cross-entropy's postcondition,
  // 19 thousand resource units), it shows at once.
  auto [r, s] = tactic(abstracted ? *abstracted : asserts,
                       abstracted && quantified ? std::min(limits.quickRlimit, kProbeRlimit)
                                                : limits.quickRlimit);
  if (r == z3::unsat && certificate && abstracted)
    *certificate = kAbstractedHeader + s.to_smt2();
  if (abstracted && r == z3::sat)
    r = z3::unknown; // a model of the abstraction need not be one of the query
  // The operands of commutative operations in the order written, where the
  // canonical order swapped some: it orders them by shape, and a value read
  // from shared memory (a choice among its writers) and the input element a
  // clause names in its place have different shapes, so `s[a] + s[b]` in the
  // code and `x[i] + x[j]` in a clause could be put in opposite orders (a
  // 5-point stencil's postcondition: 8 s in the full stages, 0.1 s so).
  if (r == z3::unknown && reordered && !(interrupted && *interrupted)) {
    std::optional<z3::expr_vector> asWritten =
        abstractFloats(context, asserts, budgetGone, &stopped, nullptr, false);
    if (stopped)
      return budgetRanOut();
    if (asWritten) {
      auto [w, ws] = tactic(*asWritten, std::min(limits.quickRlimit, kProbeRlimit));
      if (w == z3::unsat) {
        if (certificate)
          *certificate = kAbstractedHeader + ws.to_smt2();
        return w;
      }
    }
  }
  // With quantifiers, what the abstraction leaves undecided is tried as it
  // is too, as before quantifier bodies were abstracted (a quantified query
  // that needs IEEE facts keeps its first stage).
  if (r == z3::unknown && abstracted && quantified && !(interrupted && *interrupted))
    r = tactic(asserts, limits.quickRlimit).first;
  // Trees of maxima or minima over the same leaves in different shapes (a
  // warp's butterfly against a clause's fold): bit-blasting their IEEE
  // comparisons took past 40 s for 32 leaves; as one term each, the two sides
  // of the equality are the same.
  if (r == z3::unknown && !(interrupted && *interrupted))
    r = extremaStage(context, asserts, limits, certificate, watchdog, interrupted, false);
  return r;
}

/// The two stages that can answer sat: Z3's simplex arithmetic solver
/// (cheap, good on div/mod-by-constant witness queries) and its default
/// configuration with the full resource limit.
enum class Stage { Simplex, Default };

/// A solver of `stage`'s configuration holding `asserts`.
z3::solver stageSolver(z3::context &context, Stage stage, const z3::expr_vector &asserts,
                       const Limits &limits) {
  z3::solver s(context);
  if (stage == Stage::Simplex) {
    z3::params simplex(context);
    simplex.set("arith.solver", 2u);
    s = (z3::tactic(context, "simplify") & z3::with(z3::tactic(context, "smt"), simplex))
            .mk_solver();
  }
  s.set(solverParams(context, stage == Stage::Simplex ? limits.quickRlimit : limits.rlimit));
  for (auto a : asserts)
    s.add(a);
  return s;
}

/// Checks `s` (built for `stage`) under the CPU guard of the stage's limit.
z3::check_result checkStage(z3::context &context, z3::solver &s, Stage stage,
                            const Limits &limits, CpuWatchdog *watchdog, bool *interrupted) {
  GuardedCall guard(watchdog, context,
                    std::max(limits.guardFloorSeconds,
                             cpuGuardSeconds(stage == Stage::Simplex ? limits.quickRlimit
                                                                     : limits.rlimit)),
                    interrupted);
  return s.check();
}

z3::check_result check(z3::context &context, Stage stage, const z3::expr_vector &asserts,
                       const Limits &limits, CpuWatchdog *watchdog, bool *interrupted) {
  z3::solver s = stageSolver(context, stage, asserts, limits);
  return checkStage(context, s, stage, limits, watchdog, interrupted);
}

/// Visits each distinct term under `roots` once, depth first, then its
/// arguments (a quantifier's or lambda's body): `visit(t)` returns false to
/// stop the walk, and walkTerms then returns false.
template <typename Visit>
bool walkTerms(std::vector<z3::expr> stack, Visit visit) {
  std::set<unsigned> seen;
  while (!stack.empty()) {
    z3::expr t = stack.back();
    stack.pop_back();
    if (!seen.insert(t.id()).second)
      continue;
    if (!visit(t))
      return false;
    if (t.is_quantifier() || t.is_lambda())
      stack.push_back(t.body());
    else if (t.is_app())
      for (unsigned i = 0; i < t.num_args(); ++i)
        stack.push_back(t.arg(i));
  }
  return true;
}

/// Whether `e` is a formula of integer arithmetic over integer constants (no
/// functions, arrays, quantifiers or floats): a thread range, say.
bool integerFact(const z3::expr &e) {
  return walkTerms({e}, [](const z3::expr &t) {
    if (!t.is_app() || !(t.is_bool() || t.is_int()))
      return false;
    if (t.is_numeral())
      return true;
    switch (t.decl().decl_kind()) {
    case Z3_OP_UNINTERPRETED:
      return t.num_args() == 0;
    case Z3_OP_TRUE: case Z3_OP_FALSE: case Z3_OP_AND: case Z3_OP_OR: case Z3_OP_NOT:
    case Z3_OP_IMPLIES: case Z3_OP_EQ: case Z3_OP_DISTINCT: case Z3_OP_ITE: case Z3_OP_LE:
    case Z3_OP_GE:
    case Z3_OP_LT: case Z3_OP_GT: case Z3_OP_ADD: case Z3_OP_SUB: case Z3_OP_MUL:
    case Z3_OP_UMINUS:
    // (A grid of cdiv(g, 2) blocks: the thread ranges divide. Without them the
    // lane's range was missing from the case outside the split's values,
    // which was satisfiable, and every split of such a kernel failed: a
    // butterfly's postcondition took 33 s instead of 0.2.)
    case Z3_OP_IDIV: case Z3_OP_MOD: case Z3_OP_REM:
      return true;
    default:
      return false;
    }
  });
}

} // namespace

std::optional<std::vector<z3::expr>>
kuiper::solver::integerSkeleton(const std::vector<z3::expr> &assumptions,
                                const z3::expr &negatedGoal) {
  if (!integerFact(negatedGoal))
    return std::nullopt;
  std::vector<z3::expr> kept;
  bool dropped = false;
  std::vector<z3::expr> stack(assumptions.rbegin(), assumptions.rend());
  while (!stack.empty()) {
    z3::expr e = stack.back();
    stack.pop_back();
    if (e.is_app() && e.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = e.num_args(); i-- > 0;)
        stack.push_back(e.arg(i));
    } else if (integerFact(e)) {
      if (!e.is_true())
        kept.push_back(e);
    } else {
      dropped = true;
    }
  }
  if (!dropped)
    return std::nullopt;
  kept.push_back(negatedGoal);
  return kept;
}

namespace {

/// Whether `asserts` multiply or divide integer terms that are not numerals
/// (`y * (16 * gx)`, `e / n`): Z3's nonlinear integer reasoning there does
/// not count all its work against the resource limit (a flat 2-D index's
/// coverage query: 1 s under 500 thousand units).
bool nonlinearIntegers(const z3::expr_vector &asserts) {
  std::vector<z3::expr> roots;
  for (const z3::expr &a : asserts)
    roots.push_back(a);
  return !walkTerms(std::move(roots), [](const z3::expr &t) {
    if (!t.is_app() || !t.is_int())
      return true;
    Z3_decl_kind k = t.decl().decl_kind();
    if (k != Z3_OP_MUL && k != Z3_OP_IDIV && k != Z3_OP_MOD && k != Z3_OP_REM)
      return true;
    unsigned symbolic = 0;
    for (unsigned i = 0; i < t.num_args(); ++i)
      symbolic += !t.arg(i).is_numeral();
    bool divisorSymbolic = k != Z3_OP_MUL && !t.arg(t.num_args() - 1).is_numeral();
    return symbolic <= 1 && !divisorSymbolic;
  });
}

/// Whether the query is unsat in every case of its split variables (each
/// `var == v`, v in [0, count)): a warp scan's postcondition for a symbolic
/// lane is a tangle of guarded shuffles the solver does not untie; for each
/// fixed lane (and warp of the block) the guards are constants and stage 0
/// settles it. The cases share the resource limit `rlimit`, and any case
/// that is not unsat leaves the query undecided (its model would be one of
/// the query, but the counterexample search runs on the query as a whole).
bool caseSplit(z3::context &context, const z3::expr_vector &asserts, const Query &query,
               const Limits &limits, uint64_t rlimit, CpuWatchdog *watchdog, bool *interrupted) {
  int64_t cases = 1;
  std::vector<z3::expr> vars;
  for (const Query::Split &s : query.splits) {
    cases *= s.count;
    vars.push_back(context.int_const(s.var.c_str()));
  }
  Limits each = limits;
  each.rlimit = std::max<uint64_t>(rlimit / uint64_t(cases), 1);
  each.quickRlimit = each.rlimit;
  // The cases, and last the values outside the ranges (excluded by the
  // query's thread ranges: so the cases are exhaustive whatever it says).
  for (int64_t c = 0; c <= cases; ++c) {
    z3::expr_vector one(context);
    z3::expr outside = context.bool_val(false);
    z3::expr_vector from(context), to(context);
    for (size_t i = 0, rest = c; i < vars.size(); ++i) {
      int64_t n = query.splits[i].count;
      from.push_back(vars[i]);
      to.push_back(context.int_val(int64_t(rest % n)));
      outside = outside || vars[i] < 0 || vars[i] >= context.int_val(n);
      rest /= n;
    }
    // A case is its query with the values put in and simplified: the
    // guards on the lane fold away before the solver sees them (a block
    // scan over 4 warps: about a tenth of the solver's effort per case).
    // The values outside the ranges contradict the thread ranges, which are
    // integer facts over constants: those facts alone show it (the whole
    // query, float terms and all, can take the solver a while to).
    for (const z3::expr &a : asserts) {
      if (c < cases)
        one.push_back(z3::expr(a).substitute(from, to).simplify());
      else if (integerFact(a))
        one.push_back(a);
    }
    if (c == cases)
      one.push_back(outside);
    // A case the CPU guard stops ends the split undecided (a verdict never
    // rests on time); the caller learns of it, as of any interrupt.
    bool stopped = false;
    z3::check_result r = tacticStage(context, one, each, nullptr, watchdog, &stopped);
    if (r == z3::unknown && !stopped)
      r = check(context, Stage::Default, one, each, watchdog, &stopped);
    if (stopped && interrupted)
      *interrupted = true;
    if (r != z3::unsat)
      return false;
  }
  return true;
}

} // namespace

std::string kuiper::solver::hashText(const std::string &text) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  static const char *hexDigits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += hexDigits[b >> 4];
    out += hexDigits[b & 15];
  }
  return out;
}

std::string kuiper::solver::smtText(z3::context &context, const std::vector<z3::expr> &asserts) {
  z3::expr truth = context.bool_val(true);
  std::vector<Z3_ast> fmls(asserts.begin(), asserts.end());
  Z3_ast last = fmls.empty() ? Z3_ast(truth) : fmls.back();
  if (!fmls.empty())
    fmls.pop_back();
  std::string text = Z3_benchmark_to_smtlib_string(context, "", "", "unknown", "",
                                                   unsigned(fmls.size()), fmls.data(), last);
  context.check_error();
  return text;
}

double kuiper::solver::bitBlastSeconds(const z3::expr_vector &asserts) {
  // Calibrated on the 2-core reference machine, where an f32 fp.mul and
  // fp.add pair took 0.14 s to bit-blast, and taken to be twice as fast: a
  // stage is left only where it would clearly not end in time.
  constexpr double kSecondsPerUnit = 0.1e-3;
  std::unordered_set<unsigned> seen;
  std::vector<z3::expr> todo;
  for (unsigned i = 0; i < asserts.size(); ++i)
    todo.push_back(asserts[i]);
  double units = 0;
  while (!todo.empty()) {
    z3::expr e = todo.back();
    todo.pop_back();
    if (!seen.insert(Z3_get_ast_id(e.ctx(), e)).second)
      continue;
    if (e.is_quantifier()) {
      todo.push_back(e.body());
      continue;
    }
    if (!e.is_app())
      continue;
    for (unsigned i = 0; i < e.num_args(); ++i)
      todo.push_back(e.arg(i));
    z3::sort s = e.get_sort();
    if (s.sort_kind() != Z3_FLOATING_POINT_SORT)
      continue;
    double sb = Z3_fpa_get_sbits(e.ctx(), s);
    switch (e.decl().decl_kind()) {
    case Z3_OP_FPA_MUL: case Z3_OP_FPA_DIV: case Z3_OP_FPA_FMA: case Z3_OP_FPA_SQRT:
    case Z3_OP_FPA_REM:
      units += sb * sb;
      break;
    case Z3_OP_FPA_ADD: case Z3_OP_FPA_SUB:
      units += 6 * sb;
      break;
    case Z3_OP_FPA_TO_FP: case Z3_OP_FPA_ROUND_TO_INTEGRAL:
      units += 4 * sb;
      break;
    default:
      break;
    }
  }
  return units * kSecondsPerUnit;
}

/// `limits` with the quick stages' resource limit lowered to `rlimit` (never
/// to 0, which Z3 reads as no limit); their CPU guard follows it.
static Limits quickShare(const Limits &limits, uint64_t rlimit) {
  Limits share = limits;
  share.quickRlimit = std::max<uint64_t>(1, std::min(rlimit, limits.quickRlimit));
  return share;
}

Answer kuiper::solver::solveQuery(z3::context &context, Query &query, const Limits &limits,
                                  bool keepCertificate, CpuWatchdog *watchdog,
                                  bool *interrupted, Stages stages) {
  try {
    // The integer facts alone, where the goal is one (see integerSkeleton):
    // a race or bounds check whose paths branch on values read from memory
    // carries every value in its path conditions (a bitonic sort's 36
    // compare-and-swap phases: terms that outgrew the budget), and needs none.
    if (!query.skeletonSmt.empty()) {
      z3::expr_vector skeleton = context.parse_string(query.skeletonSmt.c_str());
      auto [r, s] = simplifyThenSmt(context, skeleton, std::min(limits.quickRlimit, kProbeRlimit),
                                    watchdog, interrupted);
      if (r == z3::unsat) {
        if (keepCertificate)
          query.certificate = "; proved from the query's integer facts alone (its conditions on "
                              "values dropped)\n" + s.to_smt2();
        return Answer::Proved;
      }
      if (interrupted && *interrupted)
        return Answer::Unknown;
    }
    z3::expr_vector asserts = context.parse_string(query.smt.c_str());
    // Loop values known through invariants equal in value to folds, and
    // folds matched to a tree's at a larger step (see extremaStage): before
    // the stages that bit-blast the trees.
    // (Only a query that has such a fold: looking for the rewrites costs a
    // pass over the query, 0.6 s over a tiled matmul's.)
    bool folds = query.smt.find("reduce_max_n") != std::string::npos ||
                 query.smt.find("reduce_min_n") != std::string::npos;
    if (folds && extremaStage(context, asserts, limits,
                              keepCertificate ? &query.certificate : nullptr, watchdog,
                              interrupted, true) == z3::unsat)
      return Answer::Proved;
    if (interrupted && *interrupted)
      return Answer::Unknown;
    // A value check split by lane (and warp): each case, its guards folded
    // away, is settled in milliseconds, where the whole query can keep even
    // the first stage past its CPU guard (a float block scan over 4 warps).
    if (!query.splits.empty()) {
      // A split on every thread of a block: stage 0 before it,
      // which decides most such queries whole (a map kernel's value check:
      // its 256 cases took 0.2 s, the query 1 ms).
      if (query.probeSplit &&
          equationsRefute(context, asserts, keepCertificate ? &query.certificate : nullptr,
                          watchdog, interrupted))
        return Answer::Proved;
      // Then, without floats to bit-blast, a glance at the whole query in
      // Z3's default solver: a 32x8 transpose's value check through its
      // shared tile took its 256 cases 2-3 s, the whole query 11 thousand
      // resource units (milliseconds).
      bool noBitBlast = bitBlastSeconds(asserts) == 0;
      if (noBitBlast) {
        Limits glance = limits;
        glance.rlimit = std::min(limits.rlimit, kProbeRlimit / 16);
        glance.guardFloorSeconds = cpuGuardSeconds(kProbeRlimit);
        z3::check_result whole =
            check(context, Stage::Default, asserts, glance, watchdog, interrupted);
        if (whole != z3::unknown)
          return answerOf(whole);
        if (interrupted && *interrupted)
          return Answer::Unknown;
      }
      uint64_t cases = 1;
      for (const Query::Split &sp : query.splits)
        cases *= uint64_t(sp.count);
      // A split by lane (and warp) of a query without floats to bit-blast
      // (over the reals, or integers): the cases under a small share each,
      // then the whole query in Z3's default solver under a probe's share.
      // The whole query is hard where its cases are easy (a butterfly's 64
      // cases: 6 thousand resource units each, 0.2 s in all; the whole query
      // undecided at 8 million), and the number of cases makes other splits
      // slow (a 4-warp row sum's 128 cases took 80 ms each under the usual
      // share; simplify-then-smt on the whole query 0.9 s, the default
      // solver 0.15 s; over 32 warps 3.4 million resource units).
      if (!query.probeSplit && noBitBlast) {
        if (caseSplit(context, asserts, query, limits, cases * kProbeRlimitPerCase, watchdog,
                      interrupted))
          return Answer::Proved;
        if (interrupted && *interrupted)
          return Answer::Unknown;
        Limits probe = limits;
        probe.rlimit = std::min(limits.rlimit, 4 * kProbeRlimit);
        z3::check_result whole = check(context, Stage::Default, asserts, probe, watchdog, interrupted);
        if (whole != z3::unknown)
          return answerOf(whole);
        if (interrupted && *interrupted)
          return Answer::Unknown;
      }
      uint64_t share = limits.quickRlimit / 4;
      if (query.probeSplit)
        share = std::min(share, std::max(kProbeRlimit, cases * kProbeRlimitPerCase));
      if (caseSplit(context, asserts, query, limits, share, watchdog, interrupted))
        return Answer::Proved;
    }
    // In a warm context (the quick stages only), a query with folds (their
    // bodies are lambdas) and no floats to bit-blast gets the simplex stage
    // first: simplify-then-smt on a 16x16 tiled matmul's k-loop invariant (16
    // products against the fold, a tile contract) ran 8 s there in work Z3
    // does not count against its resource limit, until the CPU guard stopped
    // it, where simplex proves it in 54 ms. (414 kernels with folds, all of
    // KernelBench's and 314 of the corpus: 363 s -> 293 s one after another,
    // every failed check the same; the tiled matmuls 9 s -> 0.6-0.9 s each;
    // slower: a 4-D tensor matmul 0.6 -> 7 s, a grouped transposed 3-D
    // convolution 3.4 -> 7.5 s, batch norm 1.9 -> 3.6 s.)
    if (stages == Stages::Quick && bitBlastSeconds(asserts) == 0 &&
        query.smt.find("(lambda") != std::string::npos) {
      // (Under a probe's share: where simplex does not settle it at once, the
      // usual order goes on.)
      Limits probe = quickShare(limits, kProbeRlimit / 4);
      z3::check_result quick = check(context, Stage::Simplex, asserts, probe, watchdog, interrupted);
      if (quick != z3::unknown)
        return answerOf(quick);
      if (interrupted && *interrupted)
        return Answer::Unknown;
    }
    // In a fresh context, a query without floats to bit-blast and without
    // nonlinear integer terms first gets Z3's default solver under a probe's
    // share: some that simplify-then-smt and simplex leave undecided after
    // their whole quick limits it settles at once (a 3-D transposed
    // convolution's postcondition over the reals: 8.5 s and 4.2 s undecided,
    // then 25 ms).
    if (stages == Stages::All && query.splits.empty() && bitBlastSeconds(asserts) == 0 &&
        !nonlinearIntegers(asserts)) {
      Limits probe = limits;
      probe.rlimit = std::min(limits.rlimit, kProbeRlimit);
      z3::check_result early = check(context, Stage::Default, asserts, probe, watchdog, interrupted);
      if (early != z3::unknown)
        return answerOf(early);
      if (interrupted && *interrupted)
        return Answer::Unknown;
    }
    // In a fresh context (a query a warm one left undecided), a query
    // without floats to bit-blast gets a quarter of the quick limit in
    // simplify-then-smt before the simplex stage, not all of it: a block
    // softmax's postcondition over the reals ran simplify-then-smt for its
    // whole 40 million units (64 s) undecided, where simplex then proved it
    // in 7 s. (No query of the corpus a warm context left undecided was
    // proven there past a quarter, and no verdict of the corpus changed.)
    Limits firstLimits = limits;
    if (stages == Stages::All && bitBlastSeconds(asserts) == 0)
      firstLimits = quickShare(limits, limits.quickRlimit / 4);
    z3::check_result first = tacticStage(context, asserts, firstLimits,
                                         keepCertificate ? &query.certificate : nullptr,
                                         watchdog, interrupted);
    if (first != z3::unknown)
      return answerOf(first);
    // The stages below bit-blast the float operations, which Z3's interrupt
    // does not stop: where that would outlast the budget, they are left
    // (the budget's promise: past it, nothing runs on).
    if (limits.deadline) {
      double seconds = bitBlastSeconds(asserts);
      auto left = std::chrono::duration<double>(*limits.deadline -
                                                std::chrono::steady_clock::now()).count();
      if (seconds > 0.25 && seconds > left)
        return Answer::OutlastsBudget;
    }
    z3::check_result r = check(context, Stage::Simplex, asserts, limits, watchdog, interrupted);
    if (stages == Stages::Quick)
      return answerOf(r);
    // The lane split under the quick limit before the full stage (a warp
    // scan's postcondition: 3.7 -> 2 s); under the full limit after it.
    if (r == z3::unknown && !query.splits.empty() && !query.probeSplit &&
        !(interrupted && *interrupted) &&
        caseSplit(context, asserts, query, limits, limits.quickRlimit, watchdog, interrupted))
      r = z3::unsat;
    if (r == z3::unknown)
      r = check(context, Stage::Default, asserts, limits, watchdog, interrupted);
    if (r == z3::unknown && !query.fallbackSmt.empty()) {
      z3::expr_vector withLemmas = context.parse_string(query.fallbackSmt.c_str());
      if (check(context, Stage::Default, withLemmas, limits, watchdog, interrupted) ==
          z3::unsat)
        r = z3::unsat;
    }
    if (r == z3::unknown && !query.splits.empty() && !query.probeSplit &&
        !(interrupted && *interrupted) &&
        caseSplit(context, asserts, query, limits, limits.rlimit, watchdog, interrupted))
      r = z3::unsat;
    return answerOf(r);
  } catch (z3::exception &e) {
    LLVM_DEBUG(llvm::dbgs() << "solver error: " << e.msg() << "\n");
    return Answer::Unknown;
  }
}

namespace {

/// Shrinks the integer terms `small` of `m`, a model of `s`: for each term in
/// turn, the smallest of a few bounds on its magnitude that keeps `s`
/// satisfiable within an eighth of the quick limit stays asserted (at most
/// three tries fail). A counterexample with n = 3 is one a reader, and the
/// replay on the CPU executor, can follow.
z3::model shrinkModel(z3::context &context, z3::solver &s, z3::model m,
                      const std::vector<z3::expr> &small, const Limits &limits,
                      CpuWatchdog &watchdog) {
  s.set(solverParams(context, limits.quickRlimit / 8));
  unsigned failures = 0;
  for (const z3::expr &t : small) {
    if (!t.is_int())
      continue;
    int64_t v = 0;
    if (!m.eval(t, true).is_numeral_i64(v))
      v = INT64_MAX;
    uint64_t magnitude = v < 0 ? uint64_t(-(v + 1)) + 1 : uint64_t(v);
    for (int64_t bound : {2, 8, 64, 1024}) {
      if (uint64_t(bound) >= magnitude || failures >= 3)
        break;
      s.push();
      s.add(t >= context.int_val(-bound) && t <= context.int_val(bound));
      bool interrupted = false;
      GuardedCall guard(&watchdog, context, cpuGuardSeconds(limits.quickRlimit / 8), &interrupted);
      z3::check_result r = s.check();
      if (r == z3::sat) {
        m = s.get_model();
        break; // the bound stays
      }
      s.pop();
      ++failures;
      if (r == z3::unknown)
        break;
      if (interrupted)
        return m;
    }
  }
  return m;
}

} // namespace

std::optional<z3::model> kuiper::solver::findModel(z3::context &context,
                                                   const z3::expr_vector &asserts,
                                                   const Limits &limits,
                                                   const std::vector<z3::expr> &small,
                                                   bool mediumFirst) {
  CpuWatchdog watchdog(limits.deadline);
  try {
    // First with every term of `small` in [-64, 64], then (mediumFirst) in
    // [-4096, 4096], each under a quarter of the quick limit: most failures
    // show on small shapes, and a bounded nonlinear search (a 3-D grid whose
    // last layer starts past 256 elements) ends where the unbounded one may
    // not.
    for (int64_t bound : {64, 4096}) {
      if (small.empty() || (bound > 64 && !mediumFirst))
        break;
      z3::expr_vector bounded(context); // (copying a vector would share it)
      for (const z3::expr &a : asserts)
        bounded.push_back(a);
      for (const z3::expr &t : small)
        if (t.is_int())
          bounded.push_back(t >= context.int_val(-bound) && t <= context.int_val(bound));
      Limits quick = limits;
      quick.rlimit = limits.quickRlimit / 4;
      z3::solver s = stageSolver(context, Stage::Default, bounded, quick);
      bool interrupted = false;
      z3::check_result r = checkStage(context, s, Stage::Default, quick, &watchdog, &interrupted);
      if (r == z3::sat)
        return shrinkModel(context, s, s.get_model(), small, limits, watchdog);
      if (interrupted)
        return std::nullopt;
    }
    for (Stage stage : {Stage::Simplex, Stage::Default}) {
      z3::solver s = stageSolver(context, stage, asserts, limits);
      bool interrupted = false;
      if (checkStage(context, s, stage, limits, &watchdog, &interrupted) == z3::sat)
        return shrinkModel(context, s, s.get_model(), small, limits, watchdog);
      if (interrupted)
        return std::nullopt; // the context is cancelled
    }
  } catch (z3::exception &e) {
    LLVM_DEBUG(llvm::dbgs() << "solver error: " << e.msg() << "\n");
  }
  return std::nullopt;
}

/// The cores this process may run on: its CPU affinity mask (taskset, a
/// container's cpuset), not every core of the machine, which is what
/// std::thread::hardware_concurrency() counts. A second thread on a process
/// confined to one core only costs its start and its own memory arena.
static unsigned usableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void kuiper::solver::solveAll(std::vector<Query> &queries, const ProofCache &cache,
                              const BatchOptions &opts) {
  // Queries are dealt round-robin to lanes, each with its own Z3 context
  // solved in order. How many lanes there are depends on the batch alone
  // (never on the machine's cores, the --jobs option or the proof cache), so
  // each query meets the same solver history everywhere; threads only run
  // lanes side by side.
  size_t toSolve = 0;
  for (auto &q : queries)
    toSolve += !q.skip && !q.trivial && !q.proved;
  size_t perLane = std::max(1u, opts.queriesPerWorker);
  unsigned lanes = static_cast<unsigned>(
      std::clamp<size_t>(toSolve / perLane, 1, BatchOptions::kMaxLanes));
  unsigned threads = opts.jobs ? opts.jobs : usableCores();
  threads = std::min(threads, lanes);
  std::atomic<size_t> done{0};
  CpuWatchdog watchdog(opts.deadline);
  std::mutex progressLock;
  // With failFast, every query first gets the cheap stages under a probe
  // limit (phase 1: most failures show there in milliseconds), and the whole
  // portfolio (phase 2) only if no decisive query failed: which queries are
  // skipped depends on resource-limited answers alone, never on timing.
  Limits probe = quickShare(opts.limits, kProbeRlimit);
  // A warm context's quick stages, under an eighth of their limit: most
  // queries are decided in a few milliseconds, and one that is not goes to a
  // fresh context soon.
  Limits warmLimits = quickShare(opts.limits, opts.limits.quickRlimit / 8);
  std::vector<char> pending(queries.size(), 0);
  auto runLane = [&](unsigned lane, bool probing) {
    // Created on the first query that needs solving: a Z3 context costs
    // milliseconds (it fills large tables), and cached or trivial queries
    // need none. Lane 0 solves in the caller's context, on the calling thread.
    std::unique_ptr<z3::context> owned;
    z3::context *context = lane == 0 ? opts.callerContext : nullptr;
    bool warm = context != nullptr;
    for (size_t i = lane; i < queries.size(); i += lanes) {
      Query &q = queries[i];
      bool fromPhase1 = !probing && opts.failFast; // failFast's phase 2
      if (fromPhase1 && !pending[i])
        continue;
      auto t0 = std::chrono::steady_clock::now();
      if (!fromPhase1 && q.skip) {
        q.answer = Answer::Unknown;
      } else if (!fromPhase1 && (q.trivial || q.proved || cache.contains(q.hash))) {
        q.answer = Answer::Proved;
      } else if (opts.deadline && t0 > *opts.deadline) {
        q.answer = Answer::NotAttempted;
      } else {
        bool interrupted = false;
        if (!context) {
          owned = std::make_unique<z3::context>();
          context = owned.get();
          warm = false;
        }
        // Z3's search depends on what its context saw before (the ids of
        // its terms): a query that takes 0.5 s in a fresh context took 39 s
        // in one that held the symbolic execution's terms, and could run out
        // of its CPU guard. A warm context only gets the quick stages (their
        // limit bounds what it can cost); whatever it leaves undecided,
        // interrupted or not, is solved in a fresh one with every stage, where
        // the answer depends on the query alone.
        bool wasWarm = warm;
        q.answer = solveQuery(*context, q, probing ? probe : wasWarm ? warmLimits : opts.limits,
                              opts.keepCertificate, &watchdog, &interrupted,
                              probing || wasWarm ? Stages::Quick : Stages::All);
        if (interrupted) { // an interrupted context is not reused
          owned = std::make_unique<z3::context>();
          context = owned.get();
          warm = false;
        } else {
          warm = true;
        }
        if (q.answer == Answer::Unknown && watchdog.budgetRanOut()) {
          q.answer = Answer::NotAttempted; // stopped by the budget: not decided
        } else if (probing && q.answer == Answer::Unknown) {
          pending[i] = 1; // to phase 2 (or skipped there)
        } else if (q.answer == Answer::Unknown && wasWarm) {
          z3::context cold;
          bool coldInterrupted = false;
          q.answer = solveQuery(cold, q, opts.limits, opts.keepCertificate, &watchdog,
                                &coldInterrupted);
          if (q.answer == Answer::Unknown && watchdog.budgetRanOut())
            q.answer = Answer::NotAttempted;
          else
            q.stoppedByGuard = q.answer == Answer::Unknown && coldInterrupted;
        } else {
          q.stoppedByGuard = q.answer == Answer::Unknown && interrupted;
        }
        if (q.answer == Answer::Proved)
          cache.storeProved(q.hash);
      }
      q.ms += msSince(t0);
      if (probing && pending[i])
        continue; // counted when phase 2 decides it
      size_t finished = ++done;
      if (opts.progress) {
        std::lock_guard<std::mutex> guard(progressLock);
        opts.progress(finished, queries.size(), i);
      }
    }
  };
  // Thread t runs lanes t, t + threads, ...; thread 0 is the caller.
  auto runPhase = [&](bool probing) {
    auto work = [&](unsigned thread) {
      for (unsigned lane = thread; lane < lanes; lane += threads)
        runLane(lane, probing);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back(work, t);
    work(0);
    for (auto &t : pool)
      t.join();
  };
  runPhase(/*probing=*/opts.failFast || opts.probeOnly);
  if (opts.probeOnly) {
    for (size_t i = 0; i < queries.size(); ++i)
      if (pending[i])
        queries[i].answer = Answer::Skipped;
    return;
  }
  if (!opts.failFast)
    return;
  bool failed = opts.alreadyFailed;
  for (const Query &q : queries)
    failed |= q.decisive && q.answer == Answer::Failed;
  if (failed) {
    // Only the queries other answers rest on are still decided.
    for (size_t i = 0; i < queries.size(); ++i)
      if (pending[i] && !queries[i].essential) {
        queries[i].answer = Answer::Skipped;
        pending[i] = 0;
      }
  }
  runPhase(/*probing=*/false);
}
