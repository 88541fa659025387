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
#include <atomic>
#include <mutex>
#include <thread>

#define DEBUG_TYPE "kuiper-solver"

using namespace kuiper::solver;

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

z3::params resourceLimit(z3::context &context, uint64_t rlimit) {
  z3::params p(context);
  p.set("rlimit", static_cast<unsigned>(std::min<uint64_t>(rlimit, UINT32_MAX)));
  return p;
}

Answer answerOf(z3::check_result r) {
  return r == z3::unsat ? Answer::Proved : r == z3::sat ? Answer::Failed : Answer::Unknown;
}

/// Stage 1: unsat of the float abstraction.
bool provedByFloatAbstraction(z3::context &context, const z3::expr_vector &asserts,
                              const Limits &limits, std::string *certificate) {
  std::optional<z3::expr_vector> abstracted = abstractFloats(context, asserts);
  if (!abstracted)
    return false;
  z3::solver s(context);
  s.set(resourceLimit(context, limits.quickRlimit));
  for (auto a : *abstracted)
    s.add(a);
  if (s.check() != z3::unsat)
    return false;
  if (certificate)
    *certificate = "; floating-point operations abstracted as uninterpreted functions\n" +
                   s.to_smt2();
  return true;
}

/// Stage 2: the simplex arithmetic solver.
z3::check_result checkWithSimplex(z3::context &context, const z3::expr_vector &asserts,
                                  const Limits &limits) {
  z3::params simplex(context);
  simplex.set("arith.solver", 2u);
  z3::solver s = (z3::tactic(context, "simplify") & z3::with(z3::tactic(context, "smt"), simplex))
                     .mk_solver();
  s.set(resourceLimit(context, limits.quickRlimit));
  for (auto a : asserts)
    s.add(a);
  return s.check();
}

z3::check_result checkDefault(z3::context &context, const z3::expr_vector &asserts,
                              const Limits &limits) {
  z3::solver s(context);
  s.set(resourceLimit(context, limits.rlimit));
  for (auto a : asserts)
    s.add(a);
  return s.check();
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

Answer kuiper::solver::solveQuery(z3::context &context, Query &query, const Limits &limits,
                                  bool keepCertificate) {
  try {
    z3::expr_vector asserts = context.parse_string(query.smt.c_str());
    if (provedByFloatAbstraction(context, asserts, limits,
                                 keepCertificate ? &query.certificate : nullptr))
      return Answer::Proved;
    z3::check_result r = checkWithSimplex(context, asserts, limits);
    if (r == z3::unknown)
      r = checkDefault(context, asserts, limits);
    if (r == z3::unknown && !query.fallbackSmt.empty()) {
      z3::expr_vector withLemmas = context.parse_string(query.fallbackSmt.c_str());
      if (checkDefault(context, withLemmas, limits) == z3::unsat)
        r = z3::unsat;
    }
    return answerOf(r);
  } catch (z3::exception &e) {
    LLVM_DEBUG(llvm::dbgs() << "solver error: " << e.msg() << "\n");
    return Answer::Unknown;
  }
}

void kuiper::solver::solveAll(std::vector<Query> &queries, const ProofCache &cache,
                              const BatchOptions &opts) {
  unsigned workers = opts.jobs ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> done{0};
  std::mutex progressLock;
  auto work = [&](size_t first) {
    z3::context context;
    for (size_t i = first; i < queries.size(); i += workers) {
      Query &q = queries[i];
      auto t0 = std::chrono::steady_clock::now();
      if (q.skip) {
        q.answer = Answer::Unknown;
      } else if (q.trivial || cache.contains(q.hash)) {
        q.answer = Answer::Proved;
      } else if (opts.deadline && t0 > *opts.deadline) {
        q.answer = Answer::NotAttempted;
      } else {
        q.answer = solveQuery(context, q, opts.limits, opts.keepCertificate);
        if (q.answer == Answer::Proved)
          cache.storeProved(q.hash);
      }
      q.ms = msSince(t0);
      size_t finished = ++done;
      if (opts.progress) {
        std::lock_guard<std::mutex> guard(progressLock);
        opts.progress(finished, queries.size(), i);
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers && w < queries.size(); ++w)
    threads.emplace_back(work, w);
  work(0);
  for (auto &t : threads)
    t.join();
}
