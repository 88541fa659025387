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
  region.walk([&](InvariantOp inv) { any |= inv.getApprox() == (mode == FloatMode::Real); });
  if (!any)
    return;
  Block &ib = region.front();
  if (iv)
    set(ib.getArgument(0), *iv);
  bool saved = inSpec;
  inSpec = true;
  for (Operation &o : ib) {
    if (auto inv = dyn_cast<InvariantOp>(o)) {
      if (inv.getApprox() != (mode == FloatMode::Real))
        continue;
      if (check)
        addObligation(CheckId::Invariant, inv.getLoc(), "the loop invariant holds " + when,
                      "the loop invariant may not hold " + when, get(inv.getCond()));
      else
        facts = facts && get(inv.getCond());
    } else if (!o.hasTrait<OpTrait::IsTerminator>()) {
      execOp(o);
    }
  }
  inSpec = saved;
}
