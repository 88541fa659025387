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
  bool any = false;
  region.walk([&](InvariantOp inv) {
    any |= inv.getApprox() == (mode == FloatMode::Real);
    if (mode == FloatMode::Real && !inv.getApprox() && !check)
      exactClausesNotAssumed.push_back(srcLoc(inv.getLoc()));
  });
  if (!any)
    return;
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
      if (inv.getApprox() == (mode == FloatMode::Real))
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
      if (inv.getApprox() != (mode == FloatMode::Real))
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
      } else
        facts = facts && get(inv.getCond());
    } else if (!o.hasTrait<OpTrait::IsTerminator>() && needed.count(&o)) {
      execOp(o);
    }
  }
  inSpec = saved;
}
