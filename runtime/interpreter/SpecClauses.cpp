//===- SpecClauses.cpp - Regions evaluated in place, and why clauses fail -===//
//
// Spec regions (requires, ensures, asserts, invariants, barrier contracts)
// never suspend: they are evaluated op by op through the semantics table.
// When a clause is false, the message names the comparison or quantifier
// that decides it ("at i = 3: y[3] = 1.5, expected 2").
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/KernelInterpreter.h"
#include "runtime/interpreter/Semantics.h"

using namespace mlir;

namespace kuiper {
namespace interp {

bool KernelInterpreter::evaluateRegion(Region &region,
                                       ArrayRef<RuntimeValue> arguments,
                                       EvalContext &context,
                                       SmallVectorImpl<RuntimeValue> &yielded) {
  yielded.clear();
  if (region.empty())
    return true;
  Block &block = region.front();
  for (unsigned k = 0; k < block.getNumArguments() && k < arguments.size(); ++k)
    bind(context, block.getArgument(k), arguments[k]);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value v : op.getOperands()) {
        RuntimeValue value;
        if (!operand(context, v, value, &op))
          return false;
        yielded.push_back(value);
      }
      return true;
    }
    // Spec clauses count against the step limit too: an invariant that
    // sums a row, checked every iteration, is quadratic in the row.
    if (options.maxSteps && ++totalSteps > options.maxSteps) {
      fail("step limit of " + std::to_string(options.maxSteps) + " operations reached");
      return false;
    }
    if (options.deadline && (totalSteps & 4095) == 0 &&
        std::chrono::steady_clock::now() > *options.deadline) {
      fail("time limit reached");
      return false;
    }
    if (!evaluate(&op, context))
      return false;
  }
  return true;
}

bool KernelInterpreter::evaluateClause(Region &region, EvalContext &context,
                                       bool approx, bool &holds) {
  bool wasInSpec = context.inSpec, wasApprox = context.approx;
  // A clause inside a clause (the precondition of an `fn` called in an
  // `ensures`, under a `forall`) keeps the outer one's bound variables,
  // which the outer quantifier pops when its body is done.
  size_t outerBinders = wasInSpec ? context.binders.size() : 0;
  context.inSpec = true;
  context.approx = approx;
  context.clauseFailure.clear();
  if (!wasInSpec) {
    context.binders.clear();
    context.loadedFrom.clear();
    context.whyFalse.clear();
  }
  SmallVector<RuntimeValue, 1> yielded;
  bool ok = evaluateRegion(region, {}, context, yielded);
  if (ok) {
    holds = yielded.empty() || yielded[0].kind != RuntimeValue::Integer ||
            yielded[0].isTrue();
    if (context.readUnboundBuffer)
      holds = true;
    // (Explained in the clause's own mode: a comparison is described with
    // the tolerance it had.)
    if (!holds && !region.empty())
      context.clauseFailure =
          explainFalse(context, region.front().getTerminator()->getOperand(0)).first;
  }
  context.inSpec = wasInSpec;
  context.approx = wasApprox;
  if (wasInSpec)
    context.binders.resize(std::min(context.binders.size(), outerBinders));
  return ok;
}

bool KernelInterpreter::checkInvariants(Region &invariants,
                                        ArrayRef<RuntimeValue> arguments,
                                        EvalContext &context, bool onEntry) {
  if (!options.checks || invariants.empty())
    return true;
  bool anyApprox = false, anyExact = false;
  invariants.walk([&](InvariantOp invariant) {
    anyApprox |= invariant.getApprox();
    anyExact |= !invariant.getApprox();
  });
  bool wasInSpec = context.inSpec, wasApprox = context.approx;
  // A loop inside a clause (an fn's, called in an `ensures` under a
  // `forall`) keeps the outer quantifiers' bound variables: clearing them
  // made the outer quantifier pop from an empty list (a crash).
  size_t outerBinders = wasInSpec ? context.binders.size() : 0;
  context.inSpec = true;
  context.invariantOnEntry = onEntry;
  // The exact invariants in IEEE arithmetic, the approx ones over the reals
  // with a tolerance, as the verifier proves them: a loop with both kinds is
  // evaluated once for each (an exact invariant beside an approx one was
  // compared with a tolerance).
  bool ok = true;
  for (bool approx : {false, true}) {
    if (!(approx ? anyApprox : anyExact))
      continue;
    context.approx = approx;
    context.invariantsOfKind = anyApprox && anyExact ? std::optional<bool>(approx) : std::nullopt;
    context.clauseFailure.clear();
    context.binders.resize(outerBinders);
    if (!wasInSpec)
      context.whyFalse.clear();
    SmallVector<RuntimeValue, 1> yielded;
    ok = evaluateRegion(invariants, arguments, context, yielded);
    if (!ok)
      break;
  }
  context.invariantsOfKind.reset();
  context.inSpec = wasInSpec;
  context.approx = wasApprox;
  context.binders.resize(std::min(context.binders.size(), outerBinders));
  return ok;
}

std::pair<std::string, bool>
KernelInterpreter::explainFalse(EvalContext &context, Value value, int depth) {
  auto known = context.whyFalse.find(value);
  if (known != context.whyFalse.end())
    return known->second;
  Operation *def = value.getDefiningOp();
  if (!def || depth > 64)
    return {"", false};
  if (std::optional<std::string> comparison = describeFalseComparisonOp(*this, def, context))
    return {*comparison, false};
  auto valueOf = [&](Value v) -> const RuntimeValue * {
    auto it = context.values.find(v);
    return it == context.values.end() ? nullptr : &it->second;
  };
  if (isa<arith::OrIOp, arith::AndIOp>(def)) {
    for (Value operand : def->getOperands()) {
      const RuntimeValue *v = valueOf(operand);
      if (!v || v->kind != RuntimeValue::Integer || v->isTrue())
        continue;
      auto why = explainFalse(context, operand, depth + 1);
      if (!why.first.empty())
        return why;
    }
  } else if (auto select = dyn_cast<arith::SelectOp>(def)) {
    if (const RuntimeValue *condition = valueOf(select.getCondition()))
      return explainFalse(context,
                          condition->isTrue() ? select.getTrueValue()
                                              : select.getFalseValue(),
                          depth + 1);
  } else if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
    unsigned resultNumber = cast<OpResult>(value).getResultNumber();
    if (const RuntimeValue *condition = valueOf(ifOp.getCondition())) {
      Region &taken = condition->isTrue() ? ifOp.getThenRegion()
                                          : ifOp.getElseRegion();
      if (!taken.empty())
        return explainFalse(
            context, taken.front().getTerminator()->getOperand(resultNumber),
            depth + 1);
    }
  }
  return {"", false};
}

std::string KernelInterpreter::describeFalseComparison(
    EvalContext &context, Operation *op, const RuntimeValue &lhs,
    const RuntimeValue &rhs, bool equality, const std::string &predicate) {
  Value lhsValue = op->getOperand(0);
  std::string lhsText;
  // An element of an `out` buffer no thread wrote: said here, where the
  // coverage is known (its poison value may also have been computed from an
  // element never written, and stored).
  bool neverWritten = false;
  // An unsigned comparison (ult, ..., uge), or one of a u32/u64 element or
  // parameter, shows its operands unsigned.
  bool asUnsigned = predicate.size() == 3 && predicate[0] == 'u';
  auto loaded = context.loadedFrom.find(lhsValue);
  if (loaded != context.loadedFrom.end()) {
    const ElementAddress &element = loaded->second;
    lhsText = element.text();
    const GlobalBuffer *buffer = element.buffer;
    asUnsigned |= buffer && buffer->isUnsigned;
    if (buffer && buffer->access == BufferAccess::Out && element.address && buffer->data &&
        !buffer->written.empty()) {
      int64_t linear = (element.address - buffer->data) / element.elementType.byteSize;
      neverWritten = linear >= 0 && linear < int64_t(buffer->written.size()) &&
                     !buffer->written[linear];
    }
  } else if (auto argument = dyn_cast<BlockArgument>(lhsValue)) {
    if (auto kernelOp =
            dyn_cast<KernelOp>(argument.getOwner()->getParentOp())) {
      lhsText = cast<StringAttr>(kernelOp.getArgNames()[argument.getArgNumber()])
                    .str();
      asUnsigned |= kernelOp.isUnsignedArg(argument.getArgNumber());
    }
  }
  if (lhsText.empty())
    lhsText = "lhs";
  lhsText += " = " + formatValue(lhs, asUnsigned) + (neverWritten ? " (never written)" : "");
  // The comparison as the source writes it (`cols = 0, not > 0`), not
  // arith's predicate name (`sgt`).
  std::string symbol = predicate.size() >= 2 ? predicate.substr(predicate.size() - 2) : predicate;
  symbol = symbol == "gt"   ? ">"
           : symbol == "lt" ? "<"
           : symbol == "ge" ? ">="
           : symbol == "le" ? "<="
           : symbol == "eq" ? "=="
           : symbol == "ne" ? "!="
                            : predicate;
  std::string text = equality ? lhsText + ", expected " + formatValue(rhs, asUnsigned)
                              : lhsText + ", not " + symbol + " " + formatValue(rhs, asUnsigned);
  // A value the clause read past the end of its buffer (no fault in a
  // clause, where `p ==> q` reads q's elements eagerly) has no meaning: the
  // comparison with it says so, not just "expected nan".
  std::string outside = outOfBoundsReads(context, op);
  if (!outside.empty())
    text += " (the clause reads " + outside + ")";
  return text;
}

std::string KernelInterpreter::outOfBoundsReads(EvalContext &context, Operation *op) {
  std::vector<std::string> found;
  llvm::SmallPtrSet<Operation *, 32> seen;
  SmallVector<Operation *> todo{op};
  while (!todo.empty() && seen.size() < 256 && found.size() < 2) {
    Operation *at = todo.pop_back_val();
    if (!seen.insert(at).second)
      continue;
    for (Value v : at->getOperands()) {
      auto loaded = context.loadedFrom.find(v);
      if (loaded != context.loadedFrom.end()) {
        const ElementAddress &e = loaded->second;
        // Out of bounds: no address although the buffer holds data.
        if (!e.address && e.name && (!e.buffer || e.buffer->data)) {
          std::string what = e.text() + ", outside " + *e.name;
          if (e.buffer)
            what += "[" + formatIndices(e.buffer->dims) + "]";
          if (std::find(found.begin(), found.end(), what) == found.end())
            found.push_back(what);
        }
        continue;
      }
      if (Operation *def = v.getDefiningOp())
        todo.push_back(def);
    }
  }
  std::string out;
  for (const std::string &f : found)
    out += (out.empty() ? "" : " and ") + f;
  return out;
}

} // namespace interp
} // namespace kuiper
