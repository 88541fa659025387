//===- Invariants.cpp - Loop invariants -------------------------------------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;

/// Checks (`check`) or assumes, as facts, the invariants of a loop's
/// invariant region that belong to this float mode; `iv` binds the region's
/// argument (the induction variable of a `for`).
void SymExec::loopInvariants(Region &region, std::optional<z3::expr> iv, bool check,
                             const std::string &when) {
  // Over the reals an exact invariant is assumed as well (never checked:
  // the IEEE proof did) where it is rounding-free: its values are the same
  // numbers over the reals as in IEEE arithmetic, so what it says of them
  // holds there too. A warp's row maximum `m == max(k in 0..cols: x[r, k])`
  // then serves the approx sum of `exp(x[r, k] - m)` beside it.
  auto transferred = [&](InvariantOp inv) {
    return mode == FloatMode::Real && !inv.getApprox() && !check &&
           roundingFree().value(inv.getCond()) && roundingFree().control(inv);
  };
  auto applies = [&](InvariantOp inv) {
    return inv.getApprox() == (mode == FloatMode::Real) || transferred(inv);
  };
  bool any = false;
  region.walk([&](InvariantOp inv) {
    any |= applies(inv);
    if (mode == FloatMode::Real && !inv.getApprox() && !check && !transferred(inv))
      exactClausesNotAssumed.push_back(srcLoc(inv.getLoc()));
  });
  if (!any)
    return;
  // The locals the loop assigns (in its body, or a while loop's condition).
  std::set<const void *> modified;
  for (Region &r : region.getParentOp()->getRegions())
    if (&r != &region)
      storedLocals(r, modified);
  Block &ib = region.front();
  if (iv)
    set(ib.getArgument(0), *iv);
  // Only the ops the invariants of this mode use: an approx invariant's sum
  // with symbolic bounds is no exact clause, and was reported as one
  // ("not modelled in an exact clause") when the exact pass evaluated it.
  // (Ops without results, such as the stores of a called fn's result into a
  // local, are always run, with what they use.)
  llvm::SmallPtrSet<Operation *, 32> needed;
  SmallVector<Value> todo;
  // An op is run with every op of this block it uses, its nested regions (a
  // sum's body) included.
  auto need = [&](Operation *d) {
    if (!needed.insert(d).second)
      return;
    d->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (v.getParentBlock() == &ib)
          todo.push_back(v);
    });
  };
  for (Operation &o : ib) {
    if (auto inv = dyn_cast<InvariantOp>(o)) {
      if (applies(inv))
        todo.push_back(inv.getCond());
    } else if (o.getNumResults() == 0 && !o.hasTrait<OpTrait::IsTerminator>()) {
      need(&o);
    }
  }
  while (!todo.empty())
    if (Operation *d = todo.pop_back_val().getDefiningOp(); d && d->getBlock() == &ib)
      need(d);
  bool saved = inSpec;
  inSpec = true;
  for (Operation &o : ib) {
    if (auto inv = dyn_cast<InvariantOp>(o)) {
      if (!applies(inv))
        continue;
      if (check) {
        // A thread that returned has ended: nothing it would do is done, so
        // its locals need not satisfy the invariant (a for loop goes on
        // counting with its body skipped).
        z3::expr savedPc = pc;
        if (runningFlag && locals.count(runningFlag))
          pc = pc && locals.at(runningFlag);
        addObligation(CheckId::Invariant, inv.getLoc(), "the loop invariant holds " + when,
                      "the loop invariant may not hold " + when, get(inv.getCond()));
        pc = savedPc;
      } else {
        // Over the reals, an invariant's equations give the locals the loop
        // does not assign their terms (bindEqualLocals). An exact one that
        // is rounding-free is used only so, never asserted: its other side,
        // the loop's value as a tree of maxima over the lanes' folds, would
        // bring their facts into every later query (a warp softmax's sum
        // invariant: 60 ms -> undecided). (A local the loop assigns is not
        // bound: a lane's sum bound to its fold left a warp gemv's
        // butterfly undecided.)
        // It was checked only for a thread still running, so it is known
        // only of one: a thread that returned inside the loop need not
        // satisfy it, and a fact about the loop's locals said of it too
        // proved its missing stores (`invariant a != 12345 || j < m`, a
        // return in the loop for a == 12345, and nothing written).
        // Equations do not bind locals then (a binding holds on every path).
        z3::expr running = runningFlag && locals.count(runningFlag) ? locals.at(runningFlag)
                                                                    : z.bool_val(true);
        bool mayHaveReturned = !running.simplify().is_true();
        if (!transferred(inv)) {
          facts = facts && z3::implies(running, get(inv.getCond()));
          if (mode == FloatMode::Real && !mayHaveReturned)
            bindEqualLocals(inv.getCond(), modified);
        } else if (mayHaveReturned || !bindEqualLocals(inv.getCond(), {})) {
          exactClausesNotAssumed.push_back(srcLoc(inv.getLoc()));
        }
      }
    } else if (!o.hasTrait<OpTrait::IsTerminator>() && needed.count(&o)) {
      execOp(o);
    }
  }
  inSpec = saved;
}

/// Whether the value of `v` reads the local `mem`.
static bool readsLocal(Value v, Value mem, llvm::SmallPtrSetImpl<Operation *> &seen) {
  Operation *d = v.getDefiningOp();
  if (!d || !seen.insert(d).second)
    return false;
  if (auto l = dyn_cast<memref::LoadOp>(d); l && l.getMemRef() == mem)
    return true;
  bool reads = false;
  d->walk([&](Operation *inner) {
    if (auto l = dyn_cast<memref::LoadOp>(inner); l && l.getMemRef() == mem)
      reads = true;
    for (Value o : inner->getOperands())
      reads = reads || readsLocal(o, mem, seen);
  });
  return reads;
}

/// When an invariant `cond` over the reals is assumed: each of its
/// conjuncts `m == e` (a clause's `==`; its NaN alternative is false over
/// the reals) whose `m` is a local that neither `e` reads nor the loop
/// assigns (`modified`) gives the local
/// `e`'s value from here on: the same number (asserted as a fact for an
/// approx invariant; a rounding-free exact one is only bound), as a term a
/// clause also builds: `sum(k in 0..cols: exp(x[r, k] - m))` in a
/// later invariant then names the clause's `max(...)` where it would name
/// the loop's value, which no rewrite reaches inside the sum's body.
/// Whether every conjunct was such an equation.
bool SymExec::bindEqualLocals(Value cond, const std::set<const void *> &modified) {
  Operation *d = cond.getDefiningOp();
  if (!d)
    return false;
  if (auto a = dyn_cast<arith::AndIOp>(d)) {
    bool l = bindEqualLocals(a.getLhs(), modified);
    bool r = bindEqualLocals(a.getRhs(), modified);
    return l && r;
  }
  arith::CmpFOp eq = dyn_cast<arith::CmpFOp>(d);
  if (auto o = dyn_cast<arith::OrIOp>(d)) {
    if (!get(o.getRhs()).simplify().is_false())
      return false;
    eq = o.getLhs().getDefiningOp<arith::CmpFOp>();
  }
  if (!eq || eq.getPredicate() != arith::CmpFPredicate::OEQ)
    return false;
  for (auto [a, b] : {std::make_pair(eq.getLhs(), eq.getRhs()),
                      std::make_pair(eq.getRhs(), eq.getLhs())}) {
    auto l = a.getDefiningOp<memref::LoadOp>();
    if (!l || !locals.count(key(l.getMemRef())) || modified.count(key(l.getMemRef())))
      continue;
    llvm::SmallPtrSet<Operation *, 16> seen;
    if (readsLocal(b, l.getMemRef(), seen))
      continue;
    locals.erase(key(l.getMemRef()));
    locals.emplace(key(l.getMemRef()), get(b));
    return true;
  }
  return false;
}
