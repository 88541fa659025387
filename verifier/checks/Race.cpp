//===- Race.cpp - Data races within and between blocks ----------------------===//
#include "verifier/analysis/SymExec.h"

#include <map>

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::raceChecks() {
  auto A = renamedThread("@A"), B = renamedThread("@B");
  z3::expr sameBlock = A[3] == B[3] && A[4] == B[4] && A[5] == B[5];
  z3::expr sameThread = sameBlock && A[0] == B[0] && A[1] == B[1] && A[2] == B[2] && A[6] == B[6];
  std::vector<Observable> obsBase = pairObservables(A, B);
  // Buffers whose final contents get a merge node, hence a writer lemma for
  // each plain write (finalState()): out/inout buffers without atomics.
  std::set<const void *> withLemma;
  for (auto &[mem, mi] : mems)
    if (!mi.shared && mi.access != BufferAccess::In)
      withLemma.insert(mem);
  for (auto &e : events)
    if (e->kind == Event::Atomic)
      withLemma.erase(e->mem);
  // Per write event: "the inferred writer of its own element is the writing
  // thread" (the witness's equations), computed once, renamed per pair.
  std::map<const Event *, std::optional<z3::expr>> ownWriter;
  // Obligations about pairs of events from the same two places of the
  // source (the copies of an unrolled loop's access, the elements of a
  // vectorized one) are collected by those places and checked together
  // (mergePairs): 26 race queries of a 4-way unrolled saxpy become 2.
  std::vector<std::vector<Obligation>> groups;
  std::map<std::string, size_t> groupOf;
  auto collect = [&](const Event &a, const Event &b, Obligation o) {
    std::string key = std::to_string(int(o.id)) + "|" + o.message + "|" +
                      std::to_string(a.kind) + ":" + std::to_string(a.loc.line) + ":" +
                      std::to_string(a.loc.col) + "|" + std::to_string(b.kind) + ":" +
                      std::to_string(b.loc.line) + ":" + std::to_string(b.loc.col);
    auto [it, added] = groupOf.try_emplace(key, groups.size());
    if (added)
      groups.emplace_back();
    groups[it->second].push_back(std::move(o));
  };
  for (size_t i = 0; i < events.size(); ++i) {
    for (size_t j = i; j < events.size(); ++j) {
      const Event &a = *events[i], &b = *events[j];
      if (a.mem != b.mem)
        continue;
      if (a.kind == Event::Read && b.kind == Event::Read)
        continue;
      // Two atomics never race; but where one returns a value that is used,
      // or is a compare-and-swap, and both may update one element
      // concurrently, what a thread sees depends on the order they run in.
      bool atomics = a.kind == Event::Atomic && b.kind == Event::Atomic;
      if (atomics && !a.orderDependent && !b.orderDependent)
        continue;
      const MemInfo &mi = mems.at(a.mem);
      // Shared memory is per block: accesses in different barrier intervals
      // are ordered by the barrier between them.
      int64_t da, db;
      bool constDyn = a.dyn->simplify().is_numeral_i64(da) && b.dyn->simplify().is_numeral_i64(db);
      if (mi.shared && constDyn && da != db)
        continue;
      z3::expr pa = renamed(a.pc && a.facts, a.iters, "@A"), pb = renamed(b.pc && b.facts, b.iters, "@B");
      z3::expr same = z.bool_val(true);
      std::vector<Observable> obs = obsBase;
      for (size_t d = 0; d < a.idx.size(); ++d) {
        z3::expr ia = renamed(a.idx[d], a.iters, "@A");
        same = same && ia == renamed(b.idx[d], b.iters, "@B");
        obs.push_back({mi.name + " index " + std::to_string(d), ia});
      }
      z3::expr ranges = threadRange(A) && threadRange(B);
      for (unsigned k : a.iters)
        ranges = ranges && renamed(iterRange[k], {}, "@A");
      for (unsigned k : b.iters)
        ranges = ranges && renamed(iterRange[k], {}, "@B");
      // Two iterations of one loop are a whole step apart: a valid lemma that
      // spares the solver nonlinear search on symbolic (grid-stride) steps.
      for (unsigned k : a.iters) {
        if (std::find(b.iters.begin(), b.iters.end(), k) == b.iters.end() || k >= iterStep.size())
          continue;
        z3::expr d = renamed(iterVars[k], {}, "@A") - renamed(iterVars[k], {}, "@B");
        z3::expr st = renamed(iterStep[k], {}, "@A");
        ranges = ranges && (d == 0 || d * st >= st || d * st <= -st);
      }
      z3::expr concurrent = sameBlock && (constDyn ? z.bool_val(da == db)
                                                   : renamed(*a.dyn, a.iters, "@A") ==
                                                         renamed(*b.dyn, b.iters, "@B"));
      // Two lanes of one warp with a whole-warp syncwarp between them are
      // ordered in shared memory (SymExec::execSyncWarp).
      if (mi.shared && !z3::eq(*a.warpPhase, *b.warpPhase)) {
        z3::expr sameWarp = linearOf(A) / z.int_val(32) == linearOf(B) / z.int_val(32);
        concurrent = concurrent && !(sameWarp && renamed(*a.warpPhase, a.iters, "@A") !=
                                                     renamed(*b.warpPhase, b.iters, "@B"));
      }
      if (!mi.shared)
        concurrent = concurrent || !sameBlock;
      if (a.otherBlocksOnly || b.otherBlocksOnly)
        concurrent = !sameBlock;
      if (atomics) {
        Obligation o;
        o.id = CheckId::Determinism;
        o.loc = b.loc;
        o.message = "no two threads update one element of '" + mi.name +
                    "' with atomics whose order shows";
        o.failMessage = "two threads update one element of '" + mi.name +
                        "' with atomics, and what an atomic returns (or the value "
                        "atomic_cas leaves) depends on the order they run in (other "
                        "atomic at line " + std::to_string(a.loc.line) + ")";
        o.assumptions = {ranges, pa, pb, same, concurrent, !sameThread};
        o.goal = z.bool_val(false);
        o.observables = obs;
        o.finding = !kernel.getDeterministic();
        collect(a, b, o);
        continue;
      }
      Obligation o;
      o.id = CheckId::Race;
      o.loc = b.loc;
      o.other = a.loc;
      bool ww = a.kind != Event::Read && b.kind != Event::Read;
      o.message = "no two threads access the same element of '" + mi.name + "' concurrently";
      o.failMessage = std::string("data race on ") + (mi.shared ? "shared '" : "global '") + mi.name + "': " +
                      (ww ? "two threads write"
                          : a.spec || b.spec ? "an assert, assume or barrier contract of one thread reads, and "
                                               "another thread writes,"
                                             : "one thread writes and another reads") +
                      (mi.shared ? " the same element without a barrier between them"
                                 : " the same element, unordered (a barrier orders the threads "
                                   "of one block only)") +
                      " (other access at line " + std::to_string(a.loc.line) + ")";
      o.assumptions = {ranges, pa, pb, same, concurrent, !sameThread};
      o.goal = z.bool_val(false);
      o.observables = obs;
      // Second attempt for two plain writes of an out/inout buffer: the final
      // merge's lemma (checked on its own) says each write's inferred writer is
      // the writing thread; with it, equal indices mean equal threads. This
      // settles nonlinear index maps such as `r * cols + c`.
      bool lemmaApplies = ww && withLemma.count(a.mem) && a.kind == Event::Write &&
                          b.kind == Event::Write;
      // One write event: the writer lemma of that event (witness(idx(T)) = T
      // for each writing thread and iteration T) makes equal indices mean
      // equal threads and iterations. Instantiated for A and B at one shared
      // target J, the contradiction is plain congruence.
      std::vector<z3::expr> sameWriter;
      if (lemmaApplies && i == j) {
        std::vector<z3::expr> J, from, to;
        std::vector<bool> last; // as the final merge's lemma has it
        for (size_t d = 0; d < a.idx.size(); ++d)
          J.push_back(fresh(mi.name + "_target", z.int_sort()));
        if (witness(a, {0, 1, 2, 3, 4, 5, 6}, J, from, to, true, nullptr, {}, &last)) {
          witnessFacts.clear();
          z3::expr atJ = z.bool_val(true);
          for (size_t d = 0; d < J.size(); ++d)
            atJ = atJ && J[d] == renamed(a.idx[d], a.iters, "@A");
          sameWriter.push_back(atJ);
          for (const char *suffix : {"@A", "@B"}) {
            z3::expr hyp = z.bool_val(true), is = z.bool_val(true);
            for (size_t d = 0; d < J.size(); ++d)
              hyp = hyp && J[d] == renamed(a.idx[d], a.iters, suffix);
            // (The lemma of a loop's last iteration names the thread, and
            // an iteration no earlier: only the thread is equal.)
            for (size_t v = 0; v < from.size(); ++v)
              if (!last[v])
                is = is && renamed(from[v], a.iters, suffix) == to[v];
            sameWriter.push_back(z3::implies(hyp, is));
          }
        }
      }
      o.byLemma = sameWriter;
      if (lemmaApplies && i != j) {
        auto writerIs = [&](const Event &e, const std::string &suffix) -> std::optional<z3::expr> {
          auto known = ownWriter.find(&e);
          if (known == ownWriter.end()) {
            std::vector<z3::expr> from, to;
            std::vector<bool> last;
            std::optional<z3::expr> eq;
            if (witness(e, {0, 1, 2, 3, 4, 5, 6}, e.idx, from, to, true, nullptr, {}, &last)) {
              eq = z.bool_val(true);
              for (size_t v = 0; v < from.size(); ++v)
                if (!last[v])
                  eq = *eq && from[v] == to[v];
            }
            witnessFacts.clear();
            known = ownWriter.emplace(&e, eq).first;
          }
          if (!known->second)
            return std::nullopt;
          return renamed(*known->second, e.iters, suffix);
        };
        auto wa = writerIs(a, "@A"), wb = writerIs(b, "@B");
        if (wa && wb)
          o.fallback = {*wa, *wb};
      }
      collect(a, b, o);
      // Out buffers: every element written exactly once, also by one thread,
      // and by two threads ordered by a barrier (two that are not are a race,
      // above).
      if (ww && !mi.shared && mi.access == BufferAccess::Out && (i != j || !a.iters.empty())) {
        Obligation u;
        u.id = CheckId::Coverage;
        u.loc = b.loc;
        u.message = "each element of '" + mi.name + "' is written at most once";
        u.failMessage = "an element of out buffer '" + mi.name +
                        "' is written more than once (by one thread, or by two with a barrier "
                        "between them; an `out` element is written exactly once: keep the value "
                        "in a `var` and store it once, or declare the buffer `inout`)";
        z3::expr differentIter = z.bool_val(i != j);
        for (unsigned k : a.iters)
          differentIter = differentIter || renamed(iterVars[k], {}, "@A") != renamed(iterVars[k], {}, "@B");
        u.assumptions = {ranges, pa, pb, same,
                         z3::ite(sameThread, differentIter, sameBlock && !concurrent)};
        u.goal = z.bool_val(false);
        u.observables = obs;
        u.byLemma = sameWriter;
        collect(a, b, u);
      }
    }
  }
  for (auto &group : groups)
    for (size_t from = 0; from < group.size(); from += kMaxMergedPairs)
      obligations.push_back(mergePairs(group, from, std::min(group.size(), from + kMaxMergedPairs)));
}

/// One obligation for `pairs[from, to)` (obligations of one kind about pairs
/// of events from the same two source places, hence with one message and
/// location): a fresh selector `pair` picks a pair, and each pair's
/// assumptions, lemma instances and fallback facts are asserted under its
/// choice only. (Not unguarded: a lemma instance about thread A's index at
/// one event need not hold where A does not run that event.) Unsat exactly
/// when every pair's obligation is; a counterexample's observables are those
/// of the pair chosen.
Obligation SymExec::mergePairs(const std::vector<Obligation> &pairs, size_t from, size_t to) {
  if (to - from == 1)
    return pairs[from];
  Obligation merged = pairs[from];
  z3::expr pair = fresh("pair", z.int_sort());
  auto guarded = [&](std::vector<z3::expr> Obligation::*facts) {
    z3::expr all = z.bool_val(true);
    bool any = false;
    for (size_t k = from; k < to; ++k) {
      const std::vector<z3::expr> &f = pairs[k].*facts;
      if (f.empty())
        continue;
      z3::expr_vector conj(z);
      for (const z3::expr &e : f)
        conj.push_back(e);
      all = all && z3::implies(pair == int(k - from), z3::mk_and(conj));
      any = true;
    }
    return any ? std::vector<z3::expr>{all} : std::vector<z3::expr>{};
  };
  merged.assumptions = guarded(&Obligation::assumptions);
  merged.assumptions.insert(merged.assumptions.begin(),
                            pair >= 0 && pair < int(to - from));
  merged.byLemma = guarded(&Obligation::byLemma);
  merged.fallback = guarded(&Obligation::fallback);
  for (size_t i = 0; i < merged.observables.size(); ++i) {
    z3::expr term = pairs[to - 1].observables[i].term;
    for (size_t k = to - 1; k-- > from;)
      if (!z3::eq(pairs[k].observables[i].term, term))
        term = z3::ite(pair == int(k - from), pairs[k].observables[i].term, term);
    merged.observables[i].term = term;
  }
  return merged;
}
