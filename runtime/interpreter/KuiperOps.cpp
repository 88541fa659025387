//===- KuiperOps.cpp - Semantics of kuiper, scf and memref ops ------------===//
//
// Thread and block ids, shared arrays, loads, stores and atomics (with the
// bounds, contract and race checks), asserts and assumptions, spec
// quantifiers, and the non-suspending forms of scf.if and kuiper loops (spec
// clauses and the header run them in place; threads enter them through the
// scheduler). Which kuiper ops have which role:
//
//   kernel                                  header (the launch itself)
//   shape, launch, access, requires,        header (read by the setup)
//     ensures
//   return, yield                           terminators
//   thread_id, block_id, grid_dim,          computed
//     lane_id, warp_id, shared_alloc,
//     load, store, atomic
//   assert, assume, invariant               checked when reached (spec-only
//                                           for the verifier, checked here)
//   forall, exists, sum, old                evaluated in spec clauses
//   for, while                              control flow (invariants checked)
//   barrier, shfl, vote, syncwarp           suspend the thread
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/KernelInterpreter.h"
#include "runtime/interpreter/Semantics.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace kuiper {
namespace interp {
namespace {

//===----------------------------------------------------------------------===//
// Locals and scf.if
//===----------------------------------------------------------------------===//

bool evalLocalAlloca(KernelInterpreter &in, Operation *op,
                     EvalContext &context) {
  Type type = cast<MemRefType>(op->getResult(0).getType()).getElementType();
  RuntimeValue initial;
  if (std::optional<ElementType> elementType = elementTypeOf(type))
    initial = poisonValue(*elementType);
  in.bind(context, op->getResult(0),
          makeMemoryRef(RuntimeValue::Local, context.locals.size()));
  context.locals.push_back(initial);
  return true;
}

bool localSlot(KernelInterpreter &in, Operation *op, EvalContext &context,
               Value ref, RuntimeValue *&slot) {
  RuntimeValue local;
  if (!in.operand(context, ref, local, op))
    return false;
  if (local.kind != RuntimeValue::Local || local.bits >= context.locals.size())
    return in.fail("internal: '" + op->getName().getStringRef().str() +
                   "' of an unknown local at " + locationOf(op));
  slot = &context.locals[local.bits];
  return true;
}

bool evalLocalLoad(KernelInterpreter &in, Operation *op, EvalContext &context) {
  RuntimeValue *slot;
  if (!localSlot(in, op, context, cast<memref::LoadOp>(op).getMemRef(), slot))
    return false;
  RuntimeValue value = *slot;
  if (value.kind == RuntimeValue::Float)
    value.magnitude = std::fabs(value.real);
  in.bind(context, op->getResult(0), value);
  return true;
}

bool evalLocalStore(KernelInterpreter &in, Operation *op,
                    EvalContext &context) {
  auto store = cast<memref::StoreOp>(op);
  RuntimeValue value, *slot;
  if (!in.operand(context, store.getValueToStore(), value, op) ||
      !localSlot(in, op, context, store.getMemRef(), slot))
    return false;
  *slot = value;
  return true;
}

bool evalIf(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto ifOp = cast<scf::IfOp>(op);
  RuntimeValue condition;
  if (!in.operand(context, ifOp.getCondition(), condition, op))
    return false;
  Region &taken =
      condition.isTrue() ? ifOp.getThenRegion() : ifOp.getElseRegion();
  SmallVector<RuntimeValue, 2> yielded;
  if (!in.evaluateRegion(taken, {}, context, yielded))
    return false;
  for (unsigned k = 0; k < op->getNumResults() && k < yielded.size(); ++k)
    in.bind(context, op->getResult(k), yielded[k]);
  return true;
}

//===----------------------------------------------------------------------===//
// Ids and shared arrays
//===----------------------------------------------------------------------===//

enum class GeometryId { Thread, Block, GridDim, Lane, Warp };

template <GeometryId Kind>
bool evalGeometryId(KernelInterpreter &in, Operation *op,
                    EvalContext &context) {
  if (!context.isThread && Kind != GeometryId::GridDim)
    return in.fail("'" + op->getName().getStringRef().str() +
                   "' used outside thread code at " + locationOf(op));
  auto &thread = static_cast<Thread &>(context);
  int64_t dim = 0;
  if (Kind == GeometryId::Thread || Kind == GeometryId::Block ||
      Kind == GeometryId::GridDim)
    dim = op->getAttrOfType<IntegerAttr>("dim").getInt();
  int64_t value = 0;
  switch (Kind) {
  case GeometryId::Thread:
    value = thread.threadId[dim];
    break;
  case GeometryId::Block:
    value = in.blockId[dim];
    break;
  case GeometryId::GridDim:
    value = in.launch.grid[dim];
    break;
  case GeometryId::Lane:
    value = thread.linearId % 32;
    break;
  case GeometryId::Warp:
    value = thread.linearId / 32;
    break;
  }
  in.bind(context, op->getResult(0), makeInteger(32, (uint64_t)value));
  return true;
}

bool evalSharedAlloc(KernelInterpreter &in, Operation *op,
                     EvalContext &context) {
  unsigned index;
  if (!in.sharedArrayFor(op, index))
    return false;
  in.bind(context, op->getResult(0),
          makeMemoryRef(RuntimeValue::SharedArray, index));
  return true;
}

//===----------------------------------------------------------------------===//
// Loads, stores, atomics
//===----------------------------------------------------------------------===//

/// kuiper.aligned: whether the host address of the buffer is a multiple of the
/// given bytes (what the device code tests on the device address).
bool evalAligned(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto aligned = cast<AlignedOp>(op);
  RuntimeValue ref;
  if (!in.operand(context, aligned.getRef(), ref, op))
    return false;
  if (ref.kind != RuntimeValue::Buffer)
    return in.fail("internal: kuiper.aligned of a non-buffer value");
  const uint8_t *data = in.bufferData(ref.bits);
  in.bind(context, op->getResult(0),
          makeBool(data && reinterpret_cast<uintptr_t>(data) % aligned.getBytes() == 0));
  return true;
}

/// An access marked `{align = A}` must be at an address that is a multiple of A.
void checkAlignment(KernelInterpreter &in, Operation *op, EvalContext &context,
                    const ElementAddress &element) {
  if (!element.address || !in.options.checks || context.inSpec)
    return;
  IntegerAttr align;
  if (auto load = dyn_cast<LoadOp>(op))
    align = load.getAlignAttr();
  else if (auto store = dyn_cast<StoreOp>(op))
    align = store.getAlignAttr();
  if (!align)
    return;
  if (reinterpret_cast<uintptr_t>(element.address) % align.getInt() != 0)
    in.violate(CheckId::Alignment, op,
               "access of " + element.text() + " is not aligned to " +
                   std::to_string(align.getInt()) + " bytes" +
                   in.inThread(context),
               in.whoDetails(context));
}

bool evalLoad(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto load = cast<LoadOp>(op);
  ElementAddress element;
  if (!in.resolveElement(op, context, load.getRef(), load.getIndices(),
                         element))
    return false;
  RuntimeValue value;
  if (!element.address) {
    value = poisonValue(*elementTypeOf(op->getResult(0).getType()));
  } else {
    value = readElement(element.elementType, element.address);
    checkAlignment(in, op, context, element);
    GlobalBuffer *buffer = element.buffer;
    if (in.options.checks && !context.inSpec) {
      if (buffer && !buffer->readsClauses.empty() &&
          !inAnyBox(buffer->readsClauses, element.indices) &&
          !inAnyBox(buffer->writesClauses, element.indices))
        in.violate(CheckId::Contract, op,
                   "read of " + element.text() + " outside the reads clause of " +
                       buffer->name +
                       (context.isThread ? " by " + in.who(context) : ""),
                   in.whoDetails(context));
      in.recordAccess(op, context, element, /*isWrite=*/false,
                      /*isAtomic=*/false);
    }
  }
  if (context.inSpec)
    context.loadedFrom[op->getResult(0)] = element;
  in.bind(context, op->getResult(0), value);
  return true;
}

bool evalStore(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto store = cast<StoreOp>(op);
  if (context.inSpec)
    return in.fail("store in a spec region at " + locationOf(op));
  RuntimeValue value;
  if (!in.operand(context, store.getValue(), value, op))
    return false;
  ElementAddress element;
  if (!in.resolveElement(op, context, store.getRef(), store.getIndices(),
                         element))
    return false;
  if (!element.address)
    return true;
  checkAlignment(in, op, context, element);
  GlobalBuffer *buffer = element.buffer;
  if (in.options.checks) {
    if (buffer && !buffer->writesClauses.empty() &&
        !inAnyBox(buffer->writesClauses, element.indices))
      in.violate(CheckId::Contract, op,
                 "write of " + element.text() + " outside the writes clause of " +
                     buffer->name +
                     (context.isThread ? " by " + in.who(context) : ""),
                 in.whoDetails(context));
    in.recordAccess(op, context, element, /*isWrite=*/true, /*isAtomic=*/false);
  }
  in.markWritten(element);
  writeElement(element.elementType, element.address, value);
  return true;
}

/// The value an atomic leaves in memory, given the one it found.
RuntimeValue atomicUpdate(AtomicKind kind, const ElementType &type,
                          const RuntimeValue &found,
                          ArrayRef<RuntimeValue> operands) {
  const RuntimeValue &v = operands[0];
  switch (kind) {
  case AtomicKind::Add:
    return type.isFloat ? makeFloat(type.format, found.real + v.real, 0)
                        : makeInteger(type.width, found.bits + v.bits);
  case AtomicKind::Max:
  case AtomicKind::Min: {
    bool isMax = kind == AtomicKind::Max;
    if (type.isFloat)
      return makeFloat(type.format,
                       isMax ? maxNum(found.real, v.real)
                             : minNum(found.real, v.real),
                       0);
    int64_t current = signExtend(found.bits, type.width), candidate = v.asSigned();
    bool replace = isMax ? candidate > current : candidate < current;
    return replace ? makeInteger(type.width, v.bits) : found;
  }
  case AtomicKind::UMax:
  case AtomicKind::UMin: {
    uint64_t current = found.bits & lowBitsMask(type.width),
             candidate = v.bits & lowBitsMask(type.width);
    bool replace = kind == AtomicKind::UMax ? candidate > current : candidate < current;
    return replace ? makeInteger(type.width, v.bits) : found;
  }
  case AtomicKind::Cas: {
    uint8_t expected[8] = {0}, actual[8] = {0};
    writeElement(type, expected, operands[0]);
    writeElement(type, actual, found);
    return std::memcmp(expected, actual, type.byteSize) == 0 ? operands[1]
                                                             : found;
  }
  }
  return found;
}

bool evalAtomic(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto atomic = cast<AtomicOp>(op);
  if (context.inSpec)
    return in.fail("atomic in a spec region at " + locationOf(op));
  SmallVector<RuntimeValue, 2> operands;
  for (Value v : atomic.getValues()) {
    RuntimeValue value;
    if (!in.operand(context, v, value, op))
      return false;
    operands.push_back(value);
  }
  ElementAddress element;
  if (!in.resolveElement(op, context, atomic.getRef(), atomic.getIndices(),
                         element))
    return false;
  if (!element.address) {
    in.bind(context, op->getResult(0), poisonValue(element.elementType));
    return true;
  }
  RuntimeValue found = readElement(element.elementType, element.address);
  if (in.options.checks)
    in.recordAccess(op, context, element, /*isWrite=*/true, /*isAtomic=*/true);
  in.markWritten(element);
  if (operands.empty())
    return in.fail("atomic without operands at " + locationOf(op));
  if (atomic.getKind() == AtomicKind::Cas && operands.size() < 2)
    return in.fail("atomic cas needs two values at " + locationOf(op));
  writeElement(element.elementType, element.address,
               atomicUpdate(atomic.getKind(), element.elementType, found,
                            operands));
  in.bind(context, op->getResult(0), found);
  return true;
}

//===----------------------------------------------------------------------===//
// Asserts, assumptions, invariants
//===----------------------------------------------------------------------===//

CheckId checkOfAssertion(Operation *op) {
  auto assertOp = dyn_cast<AssertOp>(op);
  if (!assertOp)
    return CheckId::Assume;
  switch (assertOp.getKind()) {
  case AssertKind::Assert:
    return CheckId::Assert;
  case AssertKind::Precondition:
    return CheckId::Precondition;
  case AssertKind::Postcondition:
    return CheckId::Postcondition;
  }
  return CheckId::Assert;
}

bool evalAssertion(KernelInterpreter &in, Operation *op, EvalContext &context) {
  if (!in.options.checks)
    return true;
  auto assertOp = dyn_cast<AssertOp>(op);
  bool approx = assertOp && assertOp.getApprox();
  bool holds = true;
  bool wasRace = context.specReadsRace;
  context.specReadsRace = true;
  bool evaluated = in.evaluateClause(op->getRegion(0), context, approx, holds);
  context.specReadsRace = wasRace;
  if (!evaluated)
    return false;
  if (holds)
    return true;
  CheckId check = checkOfAssertion(op);
  // An approx clause's failure says so (as an approx ensures' does): a run
  // with edge inputs shows nothing about it (proven for finite inputs).
  std::string message = std::string(approx ? "approx " : "") +
                        (check == CheckId::Assume   ? "assumption"
                         : check == CheckId::Assert ? "assertion"
                                                    : checkName(check));
  message += " failed" + in.inThread(context);
  if (!context.clauseFailure.empty())
    message += ": " + context.clauseFailure;
  in.violate(check, op, message, in.whoDetails(context));
  return true;
}

/// Whether the thread has returned: the kernel's "still running" local (an
/// alloca at the start of its body, marked `kuiper.thread_running`) is false.
bool threadReturned(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel || kernel.getBody().empty())
    return false;
  for (Operation &o : kernel.getBody().front()) {
    auto a = dyn_cast<memref::AllocaOp>(o);
    if (!a)
      break; // the front end's locals come first
    RuntimeValue *slot;
    if (a->hasAttr("kuiper.thread_running") && context.values.count(a.getResult()))
      return localSlot(in, op, context, a.getResult(), slot) && !slot->isTrue();
  }
  return false;
}

bool evalInvariant(KernelInterpreter &in, Operation *op, EvalContext &context) {
  // A thread that returned has ended (a for loop goes on counting with its
  // body skipped): its locals need not satisfy the invariant.
  if (threadReturned(in, op, context))
    return true;
  if (context.invariantsOfKind && *context.invariantsOfKind != cast<InvariantOp>(op).getApprox())
    return true; // the other kind's pass checks it
  RuntimeValue value;
  if (!in.operand(context, op->getOperand(0), value, op))
    return false;
  if (value.isTrue())
    return true;
  // "on entry" / "after an iteration", as the verifier's two obligations say:
  // a run's failure refutes the one it shows (kuiper::refutes).
  std::string message = std::string(cast<InvariantOp>(op).getApprox() ? "approx " : "") +
                        "loop invariant does not hold " +
                        (context.invariantOnEntry ? "on entry" : "after an iteration") +
                        in.inThread(context);
  std::string why = in.explainFalse(context, op->getOperand(0)).first;
  if (!why.empty())
    message += ": " + why;
  in.violate(CheckId::Invariant, op, message, in.whoDetails(context));
  return true;
}

//===----------------------------------------------------------------------===//
// Quantifiers, sums, old
//===----------------------------------------------------------------------===//

/// "at i = 3", "at (i, j) = (1, 2)" or "at index 3": where a forall fails.
std::string binderPosition(const EvalContext &context) {
  std::string names, values;
  bool named = true;
  for (size_t k = 0; k < context.binders.size(); ++k) {
    names += (k ? ", " : "") + context.binders[k].first;
    values += (k ? ", " : "") + std::to_string(context.binders[k].second);
    named &= !context.binders[k].first.empty();
  }
  bool many = context.binders.size() > 1;
  if (many) {
    names = "(" + names + ")";
    values = "(" + values + ")";
  }
  return named ? "at " + names + " = " + values : "at index " + values;
}

template <bool IsForall>
bool evalQuantifier(KernelInterpreter &in, Operation *op,
                    EvalContext &context) {
  RuntimeValue lo, hi;
  if (!in.operand(context, op->getOperand(0), lo, op) ||
      !in.operand(context, op->getOperand(1), hi, op))
    return false;
  auto binder = op->getAttrOfType<StringAttr>("binder");
  std::string binderName = binder ? binder.str() : "";
  bool result = IsForall;
  std::pair<std::string, bool> why;
  SmallVector<RuntimeValue, 1> yielded;
  for (int64_t i = lo.asSigned(), end = hi.asSigned(); i < end; ++i) {
    context.binders.push_back({binderName, i});
    if (!in.evaluateRegion(op->getRegion(0), {makeInteger(lo.width, i)},
                           context, yielded))
      return false;
    bool holds = !yielded.empty() && yielded[0].isTrue();
    if (IsForall && !holds) {
      result = false;
      Block &body = op->getRegion(0).front();
      why = in.explainFalse(context, body.getTerminator()->getOperand(0));
      if (!why.second) {
        why.first = binderPosition(context) +
                    (why.first.empty() ? "" : ": " + why.first);
        why.second = true;
      }
      context.binders.pop_back();
      break;
    }
    context.binders.pop_back();
    if (!IsForall && holds) {
      result = true;
      break;
    }
  }
  if (!result)
    context.whyFalse[op->getResult(0)] = why;
  in.bind(context, op->getResult(0), makeBool(result));
  return true;
}

bool evalSum(KernelInterpreter &in, Operation *op, EvalContext &context) {
  RuntimeValue lo, hi, step;
  if (!in.operand(context, op->getOperand(0), lo, op) ||
      !in.operand(context, op->getOperand(1), hi, op) ||
      !in.operand(context, op->getOperand(2), step, op))
    return false;
  int64_t stride = step.asSigned();
  Type resultType = op->getResult(0).getType();
  std::optional<FloatFormat> format = floatFormatOf(resultType);
  RuntimeValue total = format ? makeFloat(*format, 0, 0)
                              : makeInteger(resultType.getIntOrFloatBitWidth(), 0);
  if (stride <= 0) {
    in.violate(CheckId::Overflow, op, "sum with a non-positive step");
    stride = 1;
  }
  SmallVector<RuntimeValue, 1> yielded;
  for (int64_t i = lo.asSigned(), end = hi.asSigned(); i < end; i += stride) {
    if (!in.evaluateRegion(op->getRegion(0), {makeInteger(lo.width, i)},
                           context, yielded))
      return false;
    if (yielded.empty())
      return in.fail("sum body yields nothing at " + locationOf(op));
    const RuntimeValue &term = yielded[0];
    // A float sum is the left-to-right fold from its first term, as the
    // verifier reads it: all -0 terms sum to -0 (from +0 they would give +0).
    if (format && i == lo.asSigned())
      total = term;
    else
      total = format ? makeFloat(*format, total.real + term.real,
                                 total.magnitude + term.magnitude, context.approx)
                     : makeInteger(total.width, total.bits + term.bits);
  }
  in.bind(context, op->getResult(0), total);
  return true;
}

/// kuiper.reduce: prod, max, min (IEEE 754-2019 maximum/minimum for floats:
/// NaN propagates, -0 < +0), argmax, argmin (first index of the extreme, a
/// NaN beating every number). The left-to-right fold, as the verifier reads it.
bool evalReduce(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto red = cast<ReduceOp>(op);
  RuntimeValue lo, hi, step;
  if (!in.operand(context, red.getLo(), lo, op) || !in.operand(context, red.getHi(), hi, op) ||
      !in.operand(context, red.getStep(), step, op))
    return false;
  int64_t stride = step.asSigned();
  if (stride <= 0) {
    in.violate(CheckId::Overflow, op, "reduction with a non-positive step");
    stride = 1;
  }
  ReduceKind kind = red.getKind();
  bool arg = kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
  bool isMin = kind == ReduceKind::Min || kind == ReduceKind::ArgMin;
  Type termType = cast<YieldOp>(red.getBody().front().getTerminator()).getValues()[0].getType();
  std::optional<FloatFormat> format = floatFormatOf(termType);
  unsigned width = termType.getIntOrFloatBitWidth();
  std::optional<RuntimeValue> acc;
  int64_t best = lo.asSigned();
  // Whether term t beats the extreme so far (strictly: ties keep the first).
  auto beats = [&](const RuntimeValue &t, const RuntimeValue &w) {
    if (format) {
      if (std::isnan(t.real))
        return !std::isnan(w.real);
      return isMin ? t.real < w.real : t.real > w.real;
    }
    return isMin ? t.asSigned() < w.asSigned() : t.asSigned() > w.asSigned();
  };
  SmallVector<RuntimeValue, 1> yielded;
  for (int64_t i = lo.asSigned(), end = hi.asSigned(); i < end; i += stride) {
    if (!in.evaluateRegion(op->getRegion(0), {makeInteger(lo.width, i)}, context, yielded))
      return false;
    if (yielded.empty())
      return in.fail("reduction body yields nothing at " + locationOf(op));
    const RuntimeValue &t = yielded[0];
    if (!acc) {
      acc = t;
      best = i;
      continue;
    }
    switch (kind) {
    case ReduceKind::Prod:
      acc = makeFloat(*format, acc->real * t.real, acc->magnitude * t.magnitude, context.approx);
      break;
    case ReduceKind::Max:
    case ReduceKind::Min:
      if (format) {
        double a = acc->real, b = t.real;
        double v = isMin ? minNum(a, b) : maxNum(a, b);
        if (std::isnan(a) || std::isnan(b))
          v = NAN;
        RuntimeValue r = *acc;
        r.real = v;
        r.magnitude = std::max(acc->magnitude, t.magnitude);
        acc = r;
      } else if (beats(t, *acc)) {
        acc = t;
      }
      break;
    case ReduceKind::ArgMax:
    case ReduceKind::ArgMin:
      if (beats(t, *acc)) {
        acc = t;
        best = i;
      }
      break;
    }
  }
  if (arg) {
    in.bind(context, op->getResult(0), makeInteger(lo.width, (uint64_t)best));
    return true;
  }
  if (!acc) {
    // Empty range: the reduction's identity.
    if (kind == ReduceKind::Prod)
      acc = makeFloat(*format, 1.0, 1.0, context.approx);
    else if (format)
      acc = makeFloat(*format, isMin ? INFINITY : -INFINITY, 0, context.approx);
    else
      acc = makeInteger(width, isMin ? lowBitsMask(width) >> 1 : (uint64_t(1) << (width - 1)));
  }
  in.bind(context, op->getResult(0), *acc);
  return true;
}

bool evalOld(KernelInterpreter &in, Operation *op, EvalContext &context) {
  bool wasOld = context.readsOldContents;
  context.readsOldContents = true;
  SmallVector<RuntimeValue, 1> yielded;
  bool ok = in.evaluateRegion(op->getRegion(0), {}, context, yielded);
  context.readsOldContents = wasOld;
  if (!ok)
    return false;
  if (!yielded.empty())
    in.bind(context, op->getResult(0), yielded[0]);
  return true;
}

//===----------------------------------------------------------------------===//
// Loops (non-suspending form: spec clauses and the header)
//===----------------------------------------------------------------------===//

bool evalFor(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto forOp = cast<ForOp>(op);
  RuntimeValue lo, hi, step;
  if (!in.operand(context, forOp.getLo(), lo, op) ||
      !in.operand(context, forOp.getHi(), hi, op) ||
      !in.operand(context, forOp.getStep(), step, op))
    return false;
  int64_t i = lo.asSigned(), end = hi.asSigned(), stride = step.asSigned();
  if (stride <= 0) {
    in.violate(CheckId::Overflow, op,
               "loop step " + std::to_string(stride) + " is not positive");
    return true;
  }
  SmallVector<RuntimeValue, 1> yielded;
  for (int64_t first = i;; i += stride) {
    int64_t at = i == first ? i : std::min(i, end);
    if (!in.checkInvariants(forOp.getInvariants(),
                            {makeInteger(lo.width, (uint64_t)at)}, context, i == first))
      return false;
    if (i >= end)
      return true;
    if (!in.evaluateRegion(forOp.getBody(), {makeInteger(lo.width, i)},
                           context, yielded))
      return false;
  }
}

bool evalWhile(KernelInterpreter &in, Operation *op, EvalContext &context) {
  auto whileOp = cast<WhileOp>(op);
  SmallVector<RuntimeValue, 1> yielded;
  for (bool first = true;; first = false) {
    if (!in.checkInvariants(whileOp.getInvariants(), {}, context, first) ||
        !in.evaluateRegion(whileOp.getCond(), {}, context, yielded))
      return false;
    if (yielded.empty() || !yielded[0].isTrue())
      return true;
    if (!in.evaluateRegion(whileOp.getBody(), {}, context, yielded))
      return false;
  }
}

//===----------------------------------------------------------------------===//
// Header ops and collectives outside threads
//===----------------------------------------------------------------------===//

/// Header ops are read by the launch setup; met again, they do nothing.
bool evalHeaderOp(KernelInterpreter &, Operation *, EvalContext &) {
  return true;
}

/// Barriers and warp collectives need the scheduler: only threads run them.
bool rejectOutsideThread(KernelInterpreter &in, Operation *op, EvalContext &) {
  return in.fail("'" + op->getName().getStringRef().str() +
                 "' in a context that cannot suspend (spec region or host) at " +
                 locationOf(op));
}

} // namespace

void registerStructuredSemantics(SemanticsTable &table) {
  table.add<scf::IfOp>(OpRole::ControlFlow, evalIf,
                       &KernelInterpreter::enterIf);
  table.add<scf::YieldOp>(OpRole::Terminator, nullptr);
  table.add<memref::AllocaOp>(OpRole::Computes, evalLocalAlloca);
  table.add<memref::LoadOp>(OpRole::Computes, evalLocalLoad);
  table.add<memref::StoreOp>(OpRole::Computes, evalLocalStore);
}

void registerKuiperSemantics(SemanticsTable &table) {
  table.add<KernelOp>(OpRole::Header, nullptr);
  table.add<ShapeOp>(OpRole::Header, evalHeaderOp);
  table.add<LaunchOp>(OpRole::Header, evalHeaderOp);
  table.add<AccessOp>(OpRole::Header, evalHeaderOp);
  table.add<RequiresOp>(OpRole::Header, evalHeaderOp);
  table.add<EnsuresOp>(OpRole::Header, evalHeaderOp);
  table.add<ReturnOp>(OpRole::Terminator, nullptr);
  table.add<YieldOp>(OpRole::Terminator, nullptr);

  table.add<ThreadIdOp>(OpRole::Computes, evalGeometryId<GeometryId::Thread>);
  table.add<BlockIdOp>(OpRole::Computes, evalGeometryId<GeometryId::Block>);
  table.add<GridDimOp>(OpRole::Computes, evalGeometryId<GeometryId::GridDim>);
  table.add<LaneIdOp>(OpRole::Computes, evalGeometryId<GeometryId::Lane>);
  table.add<WarpIdOp>(OpRole::Computes, evalGeometryId<GeometryId::Warp>);
  table.add<SharedAllocOp>(OpRole::Computes, evalSharedAlloc);
  table.add<AlignedOp>(OpRole::Computes, evalAligned);
  table.add<LoadOp>(OpRole::Computes, evalLoad);
  table.add<StoreOp>(OpRole::Computes, evalStore);
  table.add<AtomicOp>(OpRole::Computes, evalAtomic);

  table.add<AssertOp>(OpRole::Specification, evalAssertion);
  table.add<AssumeOp>(OpRole::Specification, evalAssertion);
  table.add<InvariantOp>(OpRole::Specification, evalInvariant);
  table.add<ForallOp>(OpRole::Specification, evalQuantifier<true>);
  table.add<ExistsOp>(OpRole::Specification, evalQuantifier<false>);
  table.add<SumOp>(OpRole::Specification, evalSum);
  table.add<ReduceOp>(OpRole::Specification, evalReduce);
  table.add<OldOp>(OpRole::Specification, evalOld);

  table.add<ForOp>(OpRole::ControlFlow, evalFor, &KernelInterpreter::enterFor);
  table.add<WhileOp>(OpRole::ControlFlow, evalWhile,
                     &KernelInterpreter::enterWhile);

  table.add<BarrierOp>(OpRole::Suspends, rejectOutsideThread,
                       &KernelInterpreter::suspendAtBarrier);
  table.add<ShuffleOp>(OpRole::Suspends, rejectOutsideThread,
                       &KernelInterpreter::suspendAtCollective);
  table.add<VoteOp>(OpRole::Suspends, rejectOutsideThread,
                    &KernelInterpreter::suspendAtCollective);
  table.add<SyncWarpOp>(OpRole::Suspends, rejectOutsideThread,
                        &KernelInterpreter::suspendAtCollective);
}

} // namespace interp
} // namespace kuiper
