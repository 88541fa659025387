//===- KuiperDialect.cpp - kuiper dialect, types and op verifiers ---------===//
#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace kuiper;

#include "kuiper/Dialect/Kuiper/IR/KuiperDialect.cpp.inc"
#include "kuiper/Dialect/Kuiper/IR/KuiperEnums.cpp.inc"
#include "kuiper/Dialect/Kuiper/IR/KuiperInterfaces.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "kuiper/Dialect/Kuiper/IR/KuiperTypes.cpp.inc"

void KuiperDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "kuiper/Dialect/Kuiper/IR/KuiperTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kuiper/Dialect/Kuiper/IR/KuiperOps.cpp.inc"
      >();
}

#define GET_OP_CLASSES
#include "kuiper/Dialect/Kuiper/IR/KuiperOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type kuiper::getElementType(Type t) {
  if (auto b = dyn_cast<BufferType>(t))
    return b.getElementType();
  if (auto s = dyn_cast<SharedType>(t))
    return s.getElementType();
  return {};
}

unsigned kuiper::getRank(Type t) {
  if (auto b = dyn_cast<BufferType>(t))
    return b.getRank();
  if (auto s = dyn_cast<SharedType>(t))
    return s.getShape().size();
  return 0;
}

ShapeOp kuiper::findShape(KernelOp kernel, Value buffer) {
  ShapeOp found;
  kernel.getBody().front().walk([&](ShapeOp op) {
    if (op.getBuffer() == buffer)
      found = op;
  });
  return found;
}

/// Verifies that a single-block region yields exactly the given types.
static LogicalResult verifyYields(Operation *op, Region &region,
                                  ArrayRef<Type> types, StringRef what) {
  if (region.empty())
    return op->emitOpError() << what << " region must not be empty";
  auto yield = dyn_cast<YieldOp>(region.front().getTerminator());
  if (!yield)
    return op->emitOpError() << what << " region must end in kuiper.yield";
  if (TypeRange(yield.getValues()) != TypeRange(types))
    return op->emitOpError() << what << " region must yield "
                             << types.size() << " value(s) of the expected type";
  return success();
}

static LogicalResult verifyIndices(Operation *op, Type ref, ValueRange indices) {
  if (getRank(ref) != indices.size())
    return op->emitOpError() << "expects " << getRank(ref)
                             << " indices, got " << indices.size();
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

bool KernelOp::hasApproxClauses() {
  bool approx = false;
  walk([&](Operation *op) {
    if (auto e = dyn_cast<EnsuresOp>(op))
      approx |= e.getApprox();
    else if (auto b = dyn_cast<BarrierOp>(op))
      approx |= b.getApprox();
    else if (auto i = dyn_cast<InvariantOp>(op))
      approx |= i.getApprox();
    else if (auto a = dyn_cast<AssertOp>(op))
      approx |= a.getApprox();
  });
  return approx;
}

LogicalResult KernelOp::verify() {
  if (getBlock().size() != 3)
    return emitOpError("expects 3 block dimensions");
  int64_t threads = 1;
  for (int64_t d : getBlock()) {
    if (d <= 0)
      return emitOpError("block dimensions must be positive");
    threads *= d;
  }
  if (threads > 1024)
    return emitOpError("a block holds at most 1024 threads");
  Block &entry = getBody().front();
  if (entry.getNumArguments() != getArgNames().size())
    return emitOpError("expects one name per parameter");
  if (auto flags = getArgUnsigned(); flags && flags->size() != getArgNames().size())
    return emitOpError("expects one arg_unsigned flag per parameter");
  for (BlockArgument arg : entry.getArguments()) {
    if (isa<BufferType>(arg.getType()) && !findShape(*this, arg))
      return emitOpError("buffer parameter #")
             << arg.getArgNumber() << " has no kuiper.shape";
  }
  unsigned launches = 0;
  for (Operation &op : entry)
    launches += isa<LaunchOp>(op);
  if (launches != 1)
    return emitOpError("expects exactly one kuiper.launch");
  return success();
}

bool KernelOp::isUnsignedArg(unsigned index) {
  std::optional<ArrayRef<bool>> flags = getArgUnsigned();
  return flags && index < flags->size() && (*flags)[index];
}

LogicalResult ShapeOp::verify() {
  if (getBuffer().getType().getRank() != getDims().size())
    return emitOpError("expects one dimension per rank");
  return success();
}

LogicalResult LaunchOp::verify() {
  if (getGrid().size() != 3)
    return emitOpError("expects 3 grid dimensions");
  return success();
}

LogicalResult AccessOp::verify() {
  if (getBounds().size() != 2 * getBuffer().getType().getRank())
    return emitOpError("expects a (lo, hi) pair per dimension");
  return success();
}

LogicalResult RequiresOp::verify() {
  return verifyYields(*this, getCond(), {IntegerType::get(getContext(), 1)}, "condition");
}
LogicalResult EnsuresOp::verify() {
  return verifyYields(*this, getCond(), {IntegerType::get(getContext(), 1)}, "condition");
}
LogicalResult AssertOp::verify() {
  return verifyYields(*this, getCond(), {IntegerType::get(getContext(), 1)}, "condition");
}
LogicalResult AssumeOp::verify() {
  return verifyYields(*this, getCond(), {IntegerType::get(getContext(), 1)}, "condition");
}

static LogicalResult verifyBoundRegion(Operation *op, Region &body, Type ivType,
                                       ArrayRef<Type> yields) {
  if (body.empty() || body.front().getNumArguments() != 1 ||
      body.front().getArgument(0).getType() != ivType)
    return op->emitOpError("region expects one argument of the range type");
  return verifyYields(op, body, yields, "body");
}

LogicalResult ForallOp::verify() {
  if (getLo().getType() != getHi().getType())
    return emitOpError("bounds must have one type");
  return verifyBoundRegion(*this, getBody(), getLo().getType(),
                           {IntegerType::get(getContext(), 1)});
}
LogicalResult ExistsOp::verify() {
  if (getLo().getType() != getHi().getType())
    return emitOpError("bounds must have one type");
  return verifyBoundRegion(*this, getBody(), getLo().getType(),
                           {IntegerType::get(getContext(), 1)});
}
LogicalResult SumOp::verify() {
  if (getLo().getType() != getHi().getType() || getLo().getType() != getStep().getType())
    return emitOpError("bounds and step must have one type");
  return verifyBoundRegion(*this, getBody(), getLo().getType(), {getType()});
}
LogicalResult ReduceOp::verify() {
  if (getLo().getType() != getHi().getType() || getLo().getType() != getStep().getType())
    return emitOpError("bounds and step must have one type");
  if (getBody().empty() || getBody().front().getNumArguments() != 1)
    return emitOpError("body must take the index");
  auto y = dyn_cast<YieldOp>(getBody().front().getTerminator());
  if (!y || y.getValues().size() != 1)
    return emitOpError("body must yield one term");
  Type term = y.getValues()[0].getType();
  bool arg = getKind() == ReduceKind::ArgMax || getKind() == ReduceKind::ArgMin;
  if (!term.isIntOrFloat() || term.isInteger(1))
    return emitOpError("term must be a number");
  if (arg) {
    if (getType() != getLo().getType())
      return emitOpError("argmax/argmin result must have the type of the range");
    return verifyBoundRegion(*this, getBody(), getLo().getType(), {term});
  }
  if (getKind() == ReduceKind::Prod && !isa<FloatType>(term))
    return emitOpError("prod is defined on floats only");
  return verifyBoundRegion(*this, getBody(), getLo().getType(), {getType()});
}
LogicalResult OldOp::verify() {
  if (!getBody().empty() && getBody().front().getNumArguments() != 0)
    return emitOpError("region takes no arguments");
  return verifyYields(*this, getBody(), {getType()}, "body");
}

/// `align`, where given, is a power of two.
static LogicalResult verifyAlign(Operation *op, std::optional<uint64_t> align) {
  if (align && !llvm::isPowerOf2_64(*align))
    return op->emitOpError("align must be a power of two, not ") << *align;
  return success();
}

LogicalResult LoadOp::verify() {
  if (getElementType(getRef().getType()) != getType())
    return emitOpError("result type must be the element type");
  if (failed(verifyAlign(*this, getAlign())))
    return failure();
  return verifyIndices(*this, getRef().getType(), getIndices());
}

LogicalResult AlignedOp::verify() {
  return verifyAlign(*this, getBytes());
}

LogicalResult StoreOp::verify() {
  if (auto b = dyn_cast<BufferType>(getRef().getType()); b && b.getAccess() == BufferAccess::In)
    return emitOpError("cannot store to an 'in' buffer");
  if (getElementType(getRef().getType()) != getValue().getType())
    return emitOpError("value type must be the element type");
  if (failed(verifyAlign(*this, getAlign())))
    return failure();
  return verifyIndices(*this, getRef().getType(), getIndices());
}

LogicalResult AtomicOp::verify() {
  if (getValues().size() != (getKind() == AtomicKind::Cas ? 2u : 1u))
    return emitOpError("wrong number of values for atomic ") << stringifyAtomicKind(getKind());
  Type elt = getElementType(getRef().getType());
  for (Value v : getValues())
    if (v.getType() != elt)
      return emitOpError("values must have the element type");
  if (getType() != elt)
    return emitOpError("result must have the element type");
  if ((getKind() == AtomicKind::UMax || getKind() == AtomicKind::UMin) && !isa<IntegerType>(elt))
    return emitOpError("umax and umin take integer elements");
  if (auto b = dyn_cast<BufferType>(getRef().getType()); b && b.getAccess() == BufferAccess::In)
    return emitOpError("cannot update an 'in' buffer");
  return verifyIndices(*this, getRef().getType(), getIndices());
}

LogicalResult BarrierOp::verify() {
  if (getContract().empty())
    return success();
  return verifyYields(*this, getContract(), {IntegerType::get(getContext(), 1)}, "contract");
}

LogicalResult ShuffleOp::verify() {
  if (getType() != getValue().getType())
    return emitOpError("result type must match the value type");
  return success();
}

LogicalResult VoteOp::verify() {
  if (getMode() == VoteMode::Ballot) {
    if (!getType().isInteger(32))
      return emitOpError("ballot returns i32");
  } else if (!getType().isInteger(1)) {
    return emitOpError("any/all return i1");
  }
  return success();
}

LogicalResult ForOp::verify() {
  Type t = getLo().getType();
  if (getHi().getType() != t || getStep().getType() != t)
    return emitOpError("bounds and step must have one type");
  if (failed(verifyBoundRegion(*this, getBody(), t, {})))
    return failure();
  return verifyBoundRegion(*this, getInvariants(), t, {});
}

LogicalResult WhileOp::verify() {
  if (failed(verifyYields(*this, getCond(), {IntegerType::get(getContext(), 1)}, "cond")))
    return failure();
  if (failed(verifyYields(*this, getInvariants(), {}, "invariants")))
    return failure();
  return verifyYields(*this, getBody(), {}, "body");
}

//===----------------------------------------------------------------------===//
// CollectiveOpInterface
//===----------------------------------------------------------------------===//

CollectiveScope BarrierOp::getScope() { return CollectiveScope::Block; }
Value BarrierOp::getParticipantMask() { return {}; }
CollectiveScope ShuffleOp::getScope() { return CollectiveScope::Warp; }
CollectiveScope VoteOp::getScope() { return CollectiveScope::Warp; }
CollectiveScope SyncWarpOp::getScope() { return CollectiveScope::Warp; }
