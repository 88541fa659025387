//===- Spec.cpp - Spec ops: assert, assume, quantifiers, sums, old ----------===//
#include "verifier/analysis/SymExec.h"

using namespace mlir;
using namespace kuiper;
using namespace kuiper::verifier;


/// Executes one op of spec ops: assert, assume, quantifiers, sums, old; false if `op` is not one.
bool SymExec::execSpecOp(Operation &op) {
  [[maybe_unused]] Location loc = op.getLoc();
  if (auto a = dyn_cast<AssertOp>(op)) {
    if (a.getApprox() != (mode == FloatMode::Real))
      return true;
    std::vector<z3::expr> extra;
    std::vector<Observable> obs;
    bool savedRace = specReadsRace;
    specReadsRace = true;
    z3::expr g = evalGoal(a.getCond(), extra, obs);
    specReadsRace = savedRace;
    std::string kind = stringifyAssertKind(a.getKind()).str();
    bool plain = a.getKind() == AssertKind::Assert;
    CheckId id = plain ? CheckId::Assert
                 : a.getKind() == AssertKind::Precondition ? CheckId::Precondition
                                                          : CheckId::Postcondition;
    addObligation(id, loc, plain ? "the assertion holds" : "the " + kind + " of the called fn holds",
                  plain ? "assertion may fail" : "the " + kind + " of the called fn may fail", g,
                  extra, obs);
    facts = facts && evalRegion(a.getCond());
    return true;
  }
  if (auto a = dyn_cast<AssumeOp>(op)) {
    SrcLoc s = srcLoc(loc);
    trusted.insert("assume at " + s.file + ":" + std::to_string(s.line));
    bool savedRace = specReadsRace;
    specReadsRace = true;
    z3::expr assumed = evalRegion(a.getCond());
    specReadsRace = savedRace;
    addObligation(CheckId::Assume, loc, "the assumption can hold here",
                  "the assumption never holds here: everything after it is vacuously verified",
                  !assumed);
    obligations.back().vacuityProbe = true;
    facts = facts && assumed;
    return true;
  }
  // The body of a quantifier with constant bounds knows its variable's range
  // (a sum up to it is then a bounded one, see symbolicSum).
  auto quantified = [&](Region &body, Value lo, Value hi) {
    z3::expr c = fresh("q", z.int_sort());
    size_t bounded = boundedVars.size();
    int64_t l, h;
    if (isConst(get(lo).simplify(), l) && isConst(get(hi).simplify(), h))
      boundedVars.push_back({c, l, h});
    specRanges.push_back(c >= get(lo) && c < get(hi));
    z3::expr b = evalRegion(body, {c});
    specRanges.pop_back();
    boundedVars.resize(bounded, {c, 0, 0});
    return std::make_pair(c, b);
  };
  if (auto q = dyn_cast<ForallOp>(op)) {
    auto [c, body] = quantified(q.getBody(), q.getLo(), q.getHi());
    z3::expr range = c >= get(q.getLo()) && c < get(q.getHi());
    std::vector<z3::expr> vars{c};
    z3::expr matrix = z3::implies(range, body);
    if (auto inner = openForalls.find(Z3_get_ast_id(z, body)); inner != openForalls.end()) {
      // forall c: (range => forall d: m) is forall c, d: (range => m).
      vars.insert(vars.end(), inner->second.vars.begin(), inner->second.vars.end());
      matrix = z3::implies(range, inner->second.matrix);
    }
    z3::expr_vector bound(z);
    for (const z3::expr &v : vars)
      bound.push_back(v);
    z3::expr all = z3::forall(bound, matrix);
    openForalls.insert_or_assign(Z3_get_ast_id(z, all), OpenForall{all, vars, matrix});
    set(q, all);
    return true;
  }
  if (auto q = dyn_cast<ExistsOp>(op)) {
    auto [c, body] = quantified(q.getBody(), q.getLo(), q.getHi());
    set(q, z3::exists(c, c >= get(q.getLo()) && c < get(q.getHi()) && body));
    return true;
  }
  if (auto r = dyn_cast<ReduceOp>(op)) {
    set(r, reduceOp(r));
    return true;
  }
  if (auto s = dyn_cast<SumOp>(op)) {
    set(s, sumOp(s));
    return true;
  }
  if (auto o = dyn_cast<OldOp>(op)) {
    auto saved = state;
    state = entryState;
    bool so = oldState;
    oldState = true;
    set(o, evalRegion(o.getBody()));
    oldState = so;
    state = saved;
    return true;
  }
  if (isa<InvariantOp>(op))
    return true;
  return false;
}
