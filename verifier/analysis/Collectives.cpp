//===- Collectives.cpp - Warp shuffles and votes ----------------------------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

void SymExec::collective(Operation *op, Value maskValue) {
  std::optional<z3::expr> mask;
  if (maskValue)
    mask = get(maskValue);
  collectives.push_back({pc, srcLoc(op->getLoc()), mask});
}

/// The facts in force about the thread-dependent unknowns `v` mentions (a
/// loop's values after it, known through its invariant; values after a
/// barrier, known through its contract), for lane `lane` of this warp. A
/// collective reads other lanes' values; those lanes are at this point (the
/// convergence check), so what the facts say of this thread holds of them
/// too, and without it a shuffled loop result is any number (a one-warp-
/// per-row gemv failed with a counterexample no run reproduces).
z3::expr SymExec::factsAtLane(const z3::expr &v, const z3::expr &lane) {
  // The unknowns (uninterpreted applications of arity > 0) a term applies,
  // by function.
  auto unknownsOf = [&](const z3::expr &f) {
    std::set<unsigned> found, visited;
    std::function<void(const z3::expr &)> go = [&](const z3::expr &t) {
      if (!t.is_app() || !visited.insert(Z3_get_ast_id(z, t)).second)
        return;
      if (t.decl().decl_kind() == Z3_OP_UNINTERPRETED && t.num_args() > 0)
        found.insert(Z3_get_func_decl_id(z, t.decl()));
      for (unsigned i = 0; i < t.num_args(); ++i)
        go(t.arg(i));
    };
    go(f);
    return found;
  };
  std::set<unsigned> unknowns = unknownsOf(v);
  // Only where lanes are thread variables (blockDim.x a multiple of 32): with
  // lanes as `(x + bx * y) % 32` the instances are nonlinear, and a vote's 32
  // of them over a loop result ran a 2-D kernel out of memory.
  if (unknowns.empty() || !useLanes)
    return z.bool_val(true);
  std::vector<std::pair<z3::expr, std::set<unsigned>>> all;
  std::function<void(const z3::expr &)> conjuncts = [&](const z3::expr &f) {
    if (f.is_app() && f.decl().decl_kind() == Z3_OP_AND) {
      for (unsigned i = 0; i < f.num_args(); ++i)
        conjuncts(f.arg(i));
      return;
    }
    all.push_back({f, unknownsOf(f)});
  };
  conjuncts(facts);
  // The conjuncts about those unknowns, and transitively about the unknowns
  // they mention (`acc == i` and the loop's exit `!(i < 4)` give acc == 4).
  std::vector<bool> taken(all.size(), false);
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t i = 0; i < all.size(); ++i) {
      if (taken[i])
        continue;
      bool about = false;
      for (unsigned d : all[i].second)
        about |= unknowns.count(d) > 0;
      if (!about)
        continue;
      taken[i] = grew = true;
      unknowns.insert(all[i].second.begin(), all[i].second.end());
    }
  }
  z3::expr r = z.bool_val(true);
  for (size_t i = 0; i < all.size(); ++i)
    if (taken[i])
      r = r && atLane(all[i].first, lane);
  return r;
}

z3::expr SymExec::shuffle(ShuffleOp op) {
  collective(op, op.getMask());
  z3::expr v = get(op.getValue()), d = get(op.getDelta());
  z3::expr lane = laneId();
  z3::expr src = lane;
  z3::expr valid = z.bool_val(true);
  ShuffleMode mode = op.getMode();
  // `shfl.sync` reads the distance's low five bits only (b[4:0]): 33 is 1,
  // -1 is 31, in every mode. (The integers are their signed reading: the
  // low bits of two's complement are the value mod 32.)
  int64_t dc = 0;
  bool constant = isConst(d.simplify(), dc);
  z3::expr low = constant ? z.int_val(dc & 31)
                          : z3::ite(d >= 0 && d < 32, d, z3::mod(d, z.int_val(32)));
  dc &= 31;
  if (mode == ShuffleMode::Down) {
    src = lane + low;
    valid = src < 32;
  } else if (mode == ShuffleMode::Up) {
    src = lane - low;
    valid = src >= 0;
  } else if (mode == ShuffleMode::Idx) {
    src = low;
  } else {
    if (!constant) {
      unsupported(op, "shfl_xor with a distance that is not a constant is not modelled yet");
      return v;
    }
    // lane ^ dc, bit by bit: + 2^k where the lane's bit k is clear, - 2^k
    // where it is set, for each bit k of dc (its low five bits: every lane's
    // partner is in the warp).
    if (dc > 0 && (dc & (dc - 1)) == 0) {
      z3::expr bit = z3::mod(lane / z.int_val(dc), z.int_val(2));
      src = z3::ite(bit == 0, lane + z.int_val(dc), lane - z.int_val(dc));
    } else {
      for (int64_t k = 1; k < 32; k <<= 1)
        if (dc & k)
          src = src + z3::ite(z3::mod(lane / z.int_val(k), z.int_val(2)) == 0, z.int_val(k),
                              z.int_val(-k));
    }
  }
  // Normalised, as at a barrier's merge: otherwise the lane offsets of an
  // unrolled shuffle loop stay nested, the copies of the value at the lanes
  // share no subterms, and the term doubles every round (18 rounds of
  // `v = v + shfl_down(v, d)`: 8 s and 1 GB in this substitution; now 0.15 s).
  // Not for shfl_xor, whose partner `ite(bit, lane + d, lane - d)` has no
  // normal form that composes (normalising made its terms larger still).
  auto normal = [&](z3::expr e) {
    return mode == ShuffleMode::Xor ? e : normalizeIndices(e);
  };
  z3::expr other = normal(atLane(v, src));
  // (Only where there is something to add: a trivial `c => true` alone can
  // change the solver's search.)
  z3::expr known = normal(factsAtLane(v, src));
  z3::expr there = op.getMask() ? valid && laneActive(src, get(op.getMask())) : valid;
  if (!known.is_true())
    facts = facts && z3::implies(there, known);
  // (A value read from memory another thread wrote before a barrier is known
  // through what held for its writer, a fact about the read's writer
  // condition; the lane's copy of the value reads through the lane's writer.
  // Warp totals gathered by warp 0, `v = ws[laneid]`, and shuffled again:
  // without the copies the other warps' totals were any number, and a
  // correct two-level warp reduction failed with a counterexample no run
  // reproduced.)
  if (useLanes)
    copyTermFacts(v, [&](const z3::expr &e) { return normal(atLane(e, src)); }, there);
  if (op.getMask()) {
    // Reading a lane outside the mask (or not there) gives an undefined value.
    other = z3::ite(laneActive(src, get(op.getMask())), other, havoc("shfl_undefined", v.get_sort()));
  }
  z3::expr result = z3::ite(valid, other, v);
  // (A butterfly's rounds are told apart by their distances' bits: powers of
  // two only.)
  if (mode == ShuffleMode::Xor && !op.getMask() && useLanes && dc > 0 &&
      (dc & (dc - 1)) == 0)
    xorShuffles.insert_or_assign(Z3_get_ast_id(z, result),
                                 XorShuffle{result, v, unsigned(dc)});
  return result;
}

/// A butterfly `v = op(v, shfl_xor(v, d))` over d = 16, 8, 4, 2, 1 (any order)
/// with a commutative `op` leaves every lane of the warp with the same value,
/// bit for bit, whether `op` is associative or not: after the rounds of a set
/// S of distances, lane l's value depends only on l's class modulo the span
/// of S (induction: the round of d gives l and l ^ d op(v(l), v(l ^ d)) and
/// op(v(l ^ d), v(l)), equal as op commutes, and any other lane of their
/// class one of the two), and the span of all five is the warp. IEEE `+` and
/// `*` (rounded once), fmaximum and fminimum commute, and so do their real
/// counterparts. Every lane then computes lane 0's value: modelling it so,
/// the lanes' copies that later shuffles and clauses read (a softmax's row
/// maximum inside each lane's `exp(x - m)`) are one term. The convergence
/// check answers for the lanes being there.
z3::expr SymExec::butterflyStep(const z3::expr &a, const z3::expr &b, const z3::expr &r) {
  if (!useLanes || xorShuffles.empty())
    return r;
  unsigned rounds = 0;
  for (auto [value, shuffled] : {std::pair{a, b}, std::pair{b, a}}) {
    auto s = xorShuffles.find(Z3_get_ast_id(z, shuffled));
    if (s == xorShuffles.end() || !z3::eq(s->second.source, value))
      continue;
    auto before = butterflyRounds.find(Z3_get_ast_id(z, value));
    rounds = (before == butterflyRounds.end() ? 0u : before->second.second) | s->second.distance;
  }
  if (!rounds)
    return r;
  if (rounds != 31) {
    butterflyRounds.insert_or_assign(Z3_get_ast_id(z, r), std::make_pair(r, rounds));
    return r;
  }
  // Lane 0's value, and what is known of the unknowns it reads there (as a
  // shuffle from lane 0 would give it).
  z3::expr zero = z.int_val(0);
  z3::expr known = factsAtLane(r, zero);
  if (!known.is_true())
    facts = facts && known;
  copyTermFacts(r, [&](const z3::expr &e) { return atLane(e, zero); }, z.bool_val(true));
  return atLane(r, zero);
}

z3::expr SymExec::vote(VoteOp op) {
  collective(op, op.getMask());
  std::optional<z3::expr> mask;
  if (op.getMask())
    mask = get(op.getMask());
  z3::expr c = get(op.getPred());
  VoteMode mode = op.getMode();
  z3::expr any = z.bool_val(false), all = z.bool_val(true), ballot = z.int_val(0);
  for (int64_t l = 0; l < 32; ++l) {
    z3::expr L = z.int_val(l);
    z3::expr active = laneActive(L, mask);
    z3::expr cl = atLane(c, L);
    if (z3::expr known = factsAtLane(c, L); !known.is_true())
      facts = facts && z3::implies(active, known);
    any = any || (active && cl);
    all = all && z3::implies(active, cl);
    ballot = ballot + z3::ite(active && cl, z.int_val((int64_t)(uint64_t(1) << l)), z.int_val(0));
  }
  if (mode == VoteMode::Any)
    return any;
  if (mode == VoteMode::All)
    return all;
  return toSigned(ballot, 32);
}

/// Executes one op of barriers and warp collectives; false if `op` is not one.
bool SymExec::execCollectiveOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto b = dyn_cast<BarrierOp>(op)) {
    execBarrier(b);
    return true;
  }
  if (auto s = dyn_cast<ShuffleOp>(op)) {
    set(s, shuffle(s));
    return true;
  }
  if (auto s = dyn_cast<SyncWarpOp>(op)) {
    execSyncWarp(s);
    return true;
  }
  if (auto v = dyn_cast<VoteOp>(op)) {
    set(v, vote(v));
    return true;
  }
  return false;
}
