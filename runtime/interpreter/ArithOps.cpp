//===- ArithOps.cpp - Semantics of arith and math ops ---------------------===//
//
// Integer semantics are the op's own, as the verifier models them:
//  - without overflow flags, integer arithmetic wraps (two's complement);
//  - `nsw` makes signed overflow a fault, `nuw` unsigned overflow; in a
//    clause a signed `nsw` result past its type is held as a 64-bit integer
//    instead (integers in clauses never wrap);
//  - division or remainder by zero, INT_MIN / -1 (signed division and
//    remainder), a shift amount >= the width, and a float-to-integer
//    conversion out of range are always faults.
// A fault is an `overflow` violation (not in spec clauses, and only with
// checks on); the run continues with a defined value (0, or the wrapped one).
// Floats are rounded to their format after every op, except in approx
// clauses, which compute over the reals and compare with a tolerance.
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/KernelInterpreter.h"
#include "runtime/interpreter/Semantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <cstring>

using namespace mlir;

namespace kuiper {
namespace interp {
namespace {

/// The operands of an arith or math op (up to three) and its context.
struct ArithOperands {
  RuntimeValue lhs, rhs, third;
  /// Approx clause: floats are not rounded.
  bool exact = false;
};

bool fetchOperands(KernelInterpreter &in, Operation *op, EvalContext &context,
                   ArithOperands &values) {
  RuntimeValue *slots[3] = {&values.lhs, &values.rhs, &values.third};
  for (unsigned k = 0; k < op->getNumOperands() && k < 3; ++k)
    if (!in.operand(context, op->getOperand(k), *slots[k], op))
      return false;
  values.exact = context.approx;
  return true;
}

/// Reports an integer fault of `op` (overflow, division by zero, ...).
void reportFault(KernelInterpreter &in, Operation *op, EvalContext &context,
                 const ArithOperands &values, const std::string &what) {
  if (context.inSpec || !in.options.checks)
    return;
  // Operands of an unsigned op (nuw, or an unsigned division or shift) are
  // shown unsigned: `unsigned overflow (arith.shli 4294967282, 13)`.
  auto flags = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op);
  bool isUnsigned = (flags && flags.hasNoUnsignedWrap() && !flags.hasNoSignedWrap()) ||
                    isa<arith::DivUIOp, arith::RemUIOp, arith::ShRUIOp>(op);
  std::string operands =
      formatValue(values.lhs, isUnsigned) + ", " + formatValue(values.rhs, isUnsigned);
  ViolationDetails details = in.whoDetails(context);
  details.push_back({"operands", operands});
  in.violate(CheckId::Overflow, op,
             what + " (" + op->getName().getStringRef().str() + " " + operands +
                 ")" + in.inThread(context),
             details);
}

bool setResult(KernelInterpreter &in, Operation *op, EvalContext &context,
               const RuntimeValue &value) {
  in.bind(context, op->getResult(0), value);
  return true;
}

unsigned integerWidth(Type type) {
  return type.isIndex() ? 64 : cast<IntegerType>(type).getWidth();
}

//===----------------------------------------------------------------------===//
// Integer arithmetic
//===----------------------------------------------------------------------===//

bool evalConstant(KernelInterpreter &in, Operation *op, EvalContext &context) {
  // Every thread evaluates the same constants: each is read from its
  // attribute once per run.
  auto known = in.constants.find(op);
  if (known != in.constants.end())
    return setResult(in, op, context, known->second);
  Attribute attr = cast<arith::ConstantOp>(op).getValue();
  RuntimeValue value;
  if (auto intAttr = dyn_cast<IntegerAttr>(attr)) {
    value = makeInteger(integerWidth(intAttr.getType()), intAttr.getValue().getZExtValue());
  } else if (auto floatAttr = dyn_cast<FloatAttr>(attr)) {
    std::optional<FloatFormat> format = floatFormatOf(floatAttr.getType());
    if (!format)
      return in.fail("unsupported float constant at " + locationOf(op));
    double real = floatAttr.getValueAsDouble();
    value = makeFloat(*format, real, std::fabs(real));
  } else {
    return in.fail("unsupported constant at " + locationOf(op));
  }
  in.constants[op] = value;
  return setResult(in, op, context, value);
}

enum class AddSubMul { Add, Sub, Mul };

template <AddSubMul Kind>
bool evalAddSubMul(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  unsigned width = v.lhs.width;
  __int128 a = v.lhs.asSigned(), b = v.rhs.asSigned();
  unsigned __int128 ua = v.lhs.bits, ub = v.rhs.bits;
  __int128 exact = Kind == AddSubMul::Add   ? a + b
                   : Kind == AddSubMul::Sub ? a - b
                                            : a * b;
  unsigned __int128 unsignedExact = Kind == AddSubMul::Add   ? ua + ub
                                    : Kind == AddSubMul::Sub ? ua - ub
                                                             : ua * ub;
  __int128 signedMin = -((__int128)1 << (width - 1));
  __int128 signedMax = ((__int128)1 << (width - 1)) - 1;
  bool unsignedOverflow = Kind == AddSubMul::Sub
                              ? ua < ub
                              : unsignedExact > lowBitsMask(width);
  auto flags = cast<arith::ArithIntegerOverflowFlagsInterface>(op);
  // In a clause, signed integers never wrap (as the verifier reads them): a
  // result past the type's range is held as a 64-bit integer, so that
  // `requires n + 1 <= 64` is false for n = INT_MAX, not true of INT_MIN.
  if (context.inSpec && flags.hasNoSignedWrap() &&
      (exact < signedMin || exact > signedMax || v.lhs.width != v.rhs.width)) {
    if (exact < INT64_MIN || exact > INT64_MAX)
      return in.fail("an integer in the clause at " + locationOf(op) +
                     " is past 64 bits: the clause cannot be evaluated exactly");
    return setResult(in, op, context, makeInteger(64, (uint64_t)(int64_t)exact));
  }
  if (flags.hasNoSignedWrap() && (exact < signedMin || exact > signedMax))
    reportFault(in, op, context, v, "signed overflow");
  else if (flags.hasNoUnsignedWrap() && unsignedOverflow)
    reportFault(in, op, context, v, "unsigned overflow");
  return setResult(in, op, context,
                   makeInteger(width, (uint64_t)unsignedExact));
}

enum class SignedDivision { Div, Rem, CeilDiv, FloorDiv };

template <SignedDivision Kind>
bool evalSignedDivision(KernelInterpreter &in, Operation *op,
                        EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  unsigned width = v.lhs.width;
  int64_t a = v.lhs.asSigned(), b = v.rhs.asSigned();
  if (b == 0) {
    reportFault(in, op, context, v, "division by zero");
    return setResult(in, op, context, makeInteger(width, 0));
  }
  if (b == -1 && a == signExtend(1ull << (width - 1), width)) {
    // In a clause integers never wrap (see evalAddSubMul): INT_MIN / -1 is
    // 2^31 there, as the verifier reads it (a `requires a / b <= 0` wrapped
    // to true for a = INT_MIN, b = -1, which the proof had excluded).
    if (context.inSpec && Kind != SignedDivision::Rem) {
      if (width >= 64)
        return in.fail("an integer in the clause at " + locationOf(op) +
                       " is past 64 bits: the clause cannot be evaluated exactly");
      return setResult(in, op, context, makeInteger(64, (uint64_t)(-a)));
    }
    if (context.inSpec)
      return setResult(in, op, context, makeInteger(width, 0));
    reportFault(in, op, context, v, "signed overflow");
    return setResult(in, op, context,
                     makeInteger(width, Kind == SignedDivision::Rem ? 0 : a));
  }
  int64_t quotient = a / b, remainder = a % b;
  int64_t value = quotient;
  if (Kind == SignedDivision::Rem)
    value = remainder;
  else if (Kind == SignedDivision::CeilDiv)
    value += remainder != 0 && ((remainder > 0) == (b > 0)) ? 1 : 0;
  else if (Kind == SignedDivision::FloorDiv)
    value -= remainder != 0 && ((remainder < 0) != (b < 0)) ? 1 : 0;
  return setResult(in, op, context, makeInteger(width, (uint64_t)value));
}

template <bool Remainder>
bool evalUnsignedDivision(KernelInterpreter &in, Operation *op,
                          EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  uint64_t a = v.lhs.bits, b = v.rhs.bits;
  if (b == 0) {
    reportFault(in, op, context, v, "division by zero");
    return setResult(in, op, context, makeInteger(v.lhs.width, 0));
  }
  return setResult(in, op, context,
                   makeInteger(v.lhs.width, Remainder ? a % b : a / b));
}

enum class Bitwise { And, Or, Xor };

template <Bitwise Kind>
bool evalBitwise(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  uint64_t a = v.lhs.bits, b = v.rhs.bits;
  uint64_t value = Kind == Bitwise::And ? a & b : Kind == Bitwise::Or ? a | b : a ^ b;
  return setResult(in, op, context, makeInteger(v.lhs.width, value));
}

enum class Shift { Left, RightSigned, RightUnsigned };

template <Shift Kind>
bool evalShift(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  unsigned width = v.lhs.width;
  uint64_t amount = v.rhs.bits;
  if (amount >= width) {
    reportFault(in, op, context, v, "shift amount out of range");
    return setResult(in, op, context, makeInteger(width, 0));
  }
  if (Kind == Shift::RightSigned)
    return setResult(in, op, context,
                     makeInteger(width, (uint64_t)(v.lhs.asSigned() >> amount)));
  if (Kind == Shift::RightUnsigned)
    return setResult(in, op, context, makeInteger(width, v.lhs.bits >> amount));
  uint64_t shifted = (v.lhs.bits << amount) & lowBitsMask(width);
  auto flags = cast<arith::ArithIntegerOverflowFlagsInterface>(op);
  // In a clause a signed shift never wraps (see evalAddSubMul): `1 << s` is
  // 2^31 for s = 31, not INT_MIN.
  if (context.inSpec && flags.hasNoSignedWrap()) {
    __int128 exact = (__int128)v.lhs.asSigned() * ((__int128)1 << amount);
    if (exact < INT64_MIN || exact > INT64_MAX)
      return in.fail("an integer in the clause at " + locationOf(op) +
                     " is past 64 bits: the clause cannot be evaluated exactly");
    if (exact != signExtend(shifted, width))
      return setResult(in, op, context, makeInteger(64, (uint64_t)(int64_t)exact));
  }
  if (flags.hasNoSignedWrap() &&
      (signExtend(shifted, width) >> amount) != v.lhs.asSigned())
    reportFault(in, op, context, v, "signed overflow");
  else if (flags.hasNoUnsignedWrap() && (shifted >> amount) != v.lhs.bits)
    reportFault(in, op, context, v, "unsigned overflow");
  return setResult(in, op, context, makeInteger(width, shifted));
}

enum class IntegerMinMax { MinSigned, MaxSigned, MinUnsigned, MaxUnsigned };

template <IntegerMinMax Kind>
bool evalIntegerMinMax(KernelInterpreter &in, Operation *op,
                       EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  int64_t sa = v.lhs.asSigned(), sb = v.rhs.asSigned();
  uint64_t ua = v.lhs.bits, ub = v.rhs.bits;
  bool pickLhs = Kind == IntegerMinMax::MinSigned   ? sa <= sb
                 : Kind == IntegerMinMax::MaxSigned ? sa >= sb
                 : Kind == IntegerMinMax::MinUnsigned ? ua <= ub
                                                      : ua >= ub;
  return setResult(in, op, context, pickLhs ? v.lhs : v.rhs);
}

bool evalAbsI(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  int64_t a = v.lhs.asSigned();
  return setResult(in, op, context,
                   makeInteger(v.lhs.width, (uint64_t)(a < 0 ? -a : a)));
}

//===----------------------------------------------------------------------===//
// Comparisons and select
//===----------------------------------------------------------------------===//

/// Whether `op` (an arith.cmpi) holds for `lhs` and `rhs`.
bool compareIntegers(Operation *op, const RuntimeValue &lhs, const RuntimeValue &rhs) {
  int64_t sa = lhs.asSigned(), sb = rhs.asSigned();
  uint64_t ua = lhs.bits, ub = rhs.bits;
  using P = arith::CmpIPredicate;
  // (Operands of different widths: a clause's signed integer held wider,
  // see evalAddSubMul.)
  bool widened = lhs.width != rhs.width;
  switch (cast<arith::CmpIOp>(op).getPredicate()) {
  case P::eq: return widened ? sa == sb : ua == ub;
  case P::ne: return widened ? sa != sb : ua != ub;
  case P::slt: return sa < sb;
  case P::sle: return sa <= sb;
  case P::sgt: return sa > sb;
  case P::sge: return sa >= sb;
  case P::ult: return ua < ub;
  case P::ule: return ua <= ub;
  case P::ugt: return ua > ub;
  case P::uge: return ua >= ub;
  }
  return false;
}

/// An arith.cmpf of `lhs` and `rhs`: whether it holds, and in an approx
/// clause the tolerance it had and whether a side left the range the approx
/// proof models.
struct FloatComparison {
  bool holds = false;
  double tolerance = 0;
  bool outsideModel = false;
};

FloatComparison compareFloats(KernelInterpreter &in, Operation *op, const EvalContext &context,
                              const RuntimeValue &lhs, const RuntimeValue &rhs) {
  FloatComparison result;
  double a = lhs.real, b = rhs.real;
  bool unordered = std::isnan(a) || std::isnan(b);
  bool bothNaN = std::isnan(a) && std::isnan(b);
  // A clause's `==` (marked by MLIRGen) compares NaN == NaN as equal (a NaN
  // result is expected); an `fn` body's, inlined into a clause, is IEEE's.
  bool specNaNs = context.inSpec && bothNaN && op->hasAttr("kuiper.nan_equal");
  // The relative tolerance is meant for f32; a coarser format (f16, bf16)
  // rounds 2^13 or 2^16 times coarser, and its tolerance scales with it.
  double scale = 1;
  if (auto ft = dyn_cast<FloatType>(op->getOperand(0).getType());
      ft && ft.getFPMantissaWidth() < 24)
    scale = std::ldexp(1.0, 24 - ft.getFPMantissaWidth());
  double tolerance = context.approx ? in.options.approxRelTol * scale *
                                          (lhs.magnitude + rhs.magnitude)
                                    : 0;
  result.tolerance = tolerance;
  // (An infinite magnitude, a side that overflowed, gives no tolerance: -inf
  // is not approximately a finite value.)
  bool equal = a == b || (context.approx && std::isfinite(tolerance) &&
                          std::fabs(a - b) <= tolerance);
  // Past the range the approx proof models: underflow or overflow.
  if (context.approx && !equal && !unordered) {
    auto ft = dyn_cast<FloatType>(op->getOperand(0).getType());
    double tiny = ft ? llvm::APFloat::getSmallestNormalized(ft.getFloatSemantics())
                               .convertToDouble() * 0x1p24
                     : 0;
    bool underflow = (std::fabs(a) < tiny || std::fabs(b) < tiny) && std::fabs(a - b) <= tiny;
    result.outsideModel = underflow || std::isinf(a) || std::isinf(b);
    if (in.options.approxWithinRange)
      equal = result.outsideModel;
  }
  bool less = !equal && a < b, greater = !equal && a > b;
  using P = arith::CmpFPredicate;
  bool &holds = result.holds;
  switch (cast<arith::CmpFOp>(op).getPredicate()) {
  case P::AlwaysFalse: holds = false; break;
  case P::OEQ: holds = (!unordered && equal) || specNaNs; break;
  case P::OGT: holds = !unordered && greater; break;
  case P::OGE: holds = !unordered && (greater || equal); break;
  case P::OLT: holds = !unordered && less; break;
  case P::OLE: holds = !unordered && (less || equal); break;
  case P::ONE: holds = !unordered && !equal; break;
  case P::ORD: holds = !unordered; break;
  case P::UEQ: holds = unordered || equal; break;
  case P::UGT: holds = unordered || greater; break;
  case P::UGE: holds = unordered || greater || equal; break;
  case P::ULT: holds = unordered || less; break;
  case P::ULE: holds = unordered || less || equal; break;
  case P::UNE: holds = (unordered || !equal) && !specNaNs; break;
  case P::UNO: holds = unordered; break;
  case P::AlwaysTrue: holds = true; break;
  }
  return result;
}

// (A false comparison in a clause is described only when the clause fails:
// describeFalseComparison, from explainFalse. Formatting every false guard of
// every `p ==> q` was an eighth of the runs before the proof.)
bool evalCmpI(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  return setResult(in, op, context, makeBool(compareIntegers(op, v.lhs, v.rhs)));
}

bool evalCmpF(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  return setResult(in, op, context, makeBool(compareFloats(in, op, context, v.lhs, v.rhs).holds));
}

bool evalSelect(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  return setResult(in, op, context, v.lhs.isTrue() ? v.rhs : v.third);
}

//===----------------------------------------------------------------------===//
// Float arithmetic
//===----------------------------------------------------------------------===//

enum class FloatBinary { Add, Sub, Mul, Div, Rem };

template <FloatBinary Kind>
bool evalFloatBinary(KernelInterpreter &in, Operation *op,
                     EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  double a = v.lhs.real, b = v.rhs.real;
  double value = 0, magnitude = 0;
  switch (Kind) {
  case FloatBinary::Add:
    value = a + b;
    magnitude = v.lhs.magnitude + v.rhs.magnitude;
    break;
  case FloatBinary::Sub:
    value = a - b;
    magnitude = v.lhs.magnitude + v.rhs.magnitude;
    break;
  case FloatBinary::Mul:
    value = a * b;
    magnitude = v.lhs.magnitude * v.rhs.magnitude;
    break;
  case FloatBinary::Div:
    value = a / b;
    magnitude = v.lhs.magnitude / std::fabs(b);
    break;
  case FloatBinary::Rem:
    value = std::fmod(a, b);
    magnitude = std::fabs(value);
    break;
  }
  return setResult(in, op, context,
                   makeFloat(v.lhs.format, value, magnitude, v.exact));
}

bool evalNegF(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  RuntimeValue negated = v.lhs;
  negated.real = -v.lhs.real;
  return setResult(in, op, context, negated);
}

enum class FloatMinMax { MinNum, MaxNum, Minimum, Maximum };

template <FloatMinMax Kind>
bool evalFloatMinMax(KernelInterpreter &in, Operation *op,
                     EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  double a = v.lhs.real, b = v.rhs.real;
  bool isMin = Kind == FloatMinMax::MinNum || Kind == FloatMinMax::Minimum;
  double value = isMin ? minNum(a, b) : maxNum(a, b);
  RuntimeValue result = v.lhs;
  if (Kind == FloatMinMax::Minimum || Kind == FloatMinMax::Maximum) {
    if (std::isnan(a) || std::isnan(b))
      value = NAN;
  } else if (!(value == a && !std::isnan(a))) {
    result = v.rhs; // the magnitude of the operand chosen
  }
  result.real = value;
  return setResult(in, op, context, result);
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

template <bool ZeroExtend>
bool evalIntegerCast(KernelInterpreter &in, Operation *op,
                     EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  unsigned width = integerWidth(op->getResult(0).getType());
  // In a clause a narrowing keeps the value (integers there never wrap, as
  // the verifier reads them): `requires (a as i32) <= 100` is false for the
  // i64 a = 2^32 + 5, which the proof had excluded and the launch admitted.
  if (context.inSpec && !ZeroExtend && isa<arith::TruncIOp>(op) && width < 64) {
    int64_t value = v.lhs.asSigned();
    int64_t lo = -(int64_t(1) << (width - 1)), hi = (int64_t(1) << (width - 1)) - 1;
    if (value < lo || value > hi)
      return setResult(in, op, context, makeInteger(64, (uint64_t)value));
  }
  return setResult(in, op, context,
                   makeInteger(width, ZeroExtend ? v.lhs.bits
                                                 : (uint64_t)v.lhs.asSigned()));
}

template <bool Signed>
bool evalIntegerToFloat(KernelInterpreter &in, Operation *op,
                        EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  FloatFormat format = *floatFormatOf(op->getResult(0).getType());
  int64_t sa = v.lhs.asSigned();
  uint64_t ua = v.lhs.bits;
  double value = Signed ? (double)sa : (double)ua;
  if (format != FloatFormat::F64) // round once, from the integer
    value = Signed ? (double)(float)sa : (double)(float)ua;
  return setResult(in, op, context,
                   makeFloat(format, value, std::fabs(value), v.exact));
}

template <bool Signed>
bool evalFloatToInteger(KernelInterpreter &in, Operation *op,
                        EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  unsigned width = integerWidth(op->getResult(0).getType());
  double truncated = std::trunc(v.lhs.real);
  bool inRange =
      !std::isnan(truncated) &&
      (Signed ? truncated >= std::ldexp(-1.0, width - 1) &&
                    truncated < std::ldexp(1.0, width - 1)
              : truncated >= 0 && truncated < std::ldexp(1.0, width));
  if (!inRange) {
    reportFault(in, op, context, v, "float to integer conversion out of range");
    return setResult(in, op, context, makeInteger(width, 0));
  }
  return setResult(in, op, context,
                   makeInteger(width, Signed ? (uint64_t)(int64_t)truncated
                                             : (uint64_t)truncated));
}

bool evalFloatCast(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  FloatFormat format = *floatFormatOf(op->getResult(0).getType());
  return setResult(in, op, context,
                   makeFloat(format, v.lhs.real, v.lhs.magnitude, v.exact));
}

bool evalBitcast(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  Type resultType = op->getResult(0).getType();
  uint8_t storage[8] = {0};
  if (floatFormatOf(resultType)) {
    std::memcpy(storage, &v.lhs.bits, 8);
    return setResult(in, op, context,
                     readElement(*elementTypeOf(resultType), storage));
  }
  ElementType source = *elementTypeOf(op->getOperand(0).getType());
  writeElement(source, storage, v.lhs);
  uint64_t bits = 0;
  std::memcpy(&bits, storage, source.byteSize);
  return setResult(in, op, context,
                   makeInteger(integerWidth(resultType), bits));
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

/// A math function in single precision (what the GPU computes for f32,
/// f16 and bf16) and in double precision (f64 and approx clauses).
struct MathFunction {
  float (*single)(float);
  double (*twice)(double);
};

float rsqrtSingle(float x) { return 1.0f / sqrtf(x); }
double rsqrtDouble(double x) { return 1.0 / std::sqrt(x); }

template <MathFunction const &Function>
bool evalUnaryMath(KernelInterpreter &in, Operation *op,
                   EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  bool single = v.lhs.format != FloatFormat::F64 && !v.exact;
  double value = single ? Function.single((float)v.lhs.real)
                        : Function.twice(v.lhs.real);
  return setResult(in, op, context,
                   makeFloat(v.lhs.format, value, std::fabs(value), v.exact));
}

constexpr MathFunction kExp{expf, std::exp};
constexpr MathFunction kExp2{exp2f, std::exp2};
constexpr MathFunction kLog{logf, std::log};
constexpr MathFunction kLog2{log2f, std::log2};
constexpr MathFunction kSqrt{sqrtf, std::sqrt};
constexpr MathFunction kRsqrt{rsqrtSingle, rsqrtDouble};
constexpr MathFunction kTanh{tanhf, std::tanh};
constexpr MathFunction kErf{erff, std::erf};
constexpr MathFunction kSin{sinf, std::sin};
constexpr MathFunction kCos{cosf, std::cos};
constexpr MathFunction kFloor{floorf, std::floor};
constexpr MathFunction kCeil{ceilf, std::ceil};

bool evalAbsF(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  return setResult(in, op, context,
                   makeFloat(v.lhs.format, std::fabs(v.lhs.real),
                             v.lhs.magnitude, v.exact));
}

bool evalPowF(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  bool single = v.lhs.format != FloatFormat::F64 && !v.exact;
  double value = single ? powf((float)v.lhs.real, (float)v.rhs.real)
                        : std::pow(v.lhs.real, v.rhs.real);
  return setResult(in, op, context,
                   makeFloat(v.lhs.format, value, std::fabs(value), v.exact));
}

bool evalFma(KernelInterpreter &in, Operation *op, EvalContext &context) {
  ArithOperands v;
  if (!fetchOperands(in, op, context, v))
    return false;
  bool single = v.lhs.format != FloatFormat::F64 && !v.exact;
  double value =
      single ? fmaf((float)v.lhs.real, (float)v.rhs.real, (float)v.third.real)
             : std::fma(v.lhs.real, v.rhs.real, v.third.real);
  return setResult(in, op, context,
                   makeFloat(v.lhs.format, value,
                             v.lhs.magnitude * v.rhs.magnitude +
                                 v.third.magnitude,
                             v.exact));
}

} // namespace

std::optional<std::string> describeFalseComparisonOp(KernelInterpreter &in, Operation *op,
                                                     EvalContext &context) {
  bool isInteger = isa<arith::CmpIOp>(op);
  if (!isInteger && !isa<arith::CmpFOp>(op))
    return std::nullopt;
  std::optional<RuntimeValue> lhs = in.lookup(context, op->getOperand(0));
  std::optional<RuntimeValue> rhs = in.lookup(context, op->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  if (isInteger) {
    if (compareIntegers(op, *lhs, *rhs))
      return std::nullopt;
    auto predicate = cast<arith::CmpIOp>(op).getPredicate();
    return in.describeFalseComparison(context, op, *lhs, *rhs,
                                      predicate == arith::CmpIPredicate::eq,
                                      arith::stringifyCmpIPredicate(predicate).str());
  }
  FloatComparison compared = compareFloats(in, op, context, *lhs, *rhs);
  if (compared.holds)
    return std::nullopt;
  auto predicate = cast<arith::CmpFOp>(op).getPredicate();
  using P = arith::CmpFPredicate;
  std::string why = in.describeFalseComparison(
      context, op, *lhs, *rhs, predicate == P::OEQ || predicate == P::UEQ,
      arith::stringifyCmpFPredicate(predicate).str());
  if (context.approx)
    why += " (tolerance " + formatDouble(compared.tolerance, true) + ")";
  // The proof's bound assumes neither (its trust list says so).
  if (compared.outsideModel)
    why += "; a value underflowed or overflowed, which the approx proof assumes does not "
           "happen";
  return why;
}

void registerArithSemantics(SemanticsTable &table) {
  using namespace arith;
  constexpr OpRole computes = OpRole::Computes;
  table.add<ConstantOp>(computes, evalConstant);
  table.add<AddIOp>(computes, evalAddSubMul<AddSubMul::Add>);
  table.add<SubIOp>(computes, evalAddSubMul<AddSubMul::Sub>);
  table.add<MulIOp>(computes, evalAddSubMul<AddSubMul::Mul>);
  table.add<DivSIOp>(computes, evalSignedDivision<SignedDivision::Div>);
  table.add<RemSIOp>(computes, evalSignedDivision<SignedDivision::Rem>);
  table.add<CeilDivSIOp>(computes, evalSignedDivision<SignedDivision::CeilDiv>);
  table.add<FloorDivSIOp>(computes,
                          evalSignedDivision<SignedDivision::FloorDiv>);
  table.add<DivUIOp>(computes, evalUnsignedDivision<false>);
  table.add<RemUIOp>(computes, evalUnsignedDivision<true>);
  table.add<AndIOp>(computes, evalBitwise<Bitwise::And>);
  table.add<OrIOp>(computes, evalBitwise<Bitwise::Or>);
  table.add<XOrIOp>(computes, evalBitwise<Bitwise::Xor>);
  table.add<ShLIOp>(computes, evalShift<Shift::Left>);
  table.add<ShRSIOp>(computes, evalShift<Shift::RightSigned>);
  table.add<ShRUIOp>(computes, evalShift<Shift::RightUnsigned>);
  table.add<MinSIOp>(computes, evalIntegerMinMax<IntegerMinMax::MinSigned>);
  table.add<MaxSIOp>(computes, evalIntegerMinMax<IntegerMinMax::MaxSigned>);
  table.add<MinUIOp>(computes, evalIntegerMinMax<IntegerMinMax::MinUnsigned>);
  table.add<MaxUIOp>(computes, evalIntegerMinMax<IntegerMinMax::MaxUnsigned>);
  table.add<CmpIOp>(computes, evalCmpI);
  table.add<CmpFOp>(computes, evalCmpF);
  table.add<SelectOp>(computes, evalSelect);
  table.add<AddFOp>(computes, evalFloatBinary<FloatBinary::Add>);
  table.add<SubFOp>(computes, evalFloatBinary<FloatBinary::Sub>);
  table.add<MulFOp>(computes, evalFloatBinary<FloatBinary::Mul>);
  table.add<DivFOp>(computes, evalFloatBinary<FloatBinary::Div>);
  table.add<RemFOp>(computes, evalFloatBinary<FloatBinary::Rem>);
  table.add<NegFOp>(computes, evalNegF);
  table.add<MinNumFOp>(computes, evalFloatMinMax<FloatMinMax::MinNum>);
  table.add<MaxNumFOp>(computes, evalFloatMinMax<FloatMinMax::MaxNum>);
  table.add<MinimumFOp>(computes, evalFloatMinMax<FloatMinMax::Minimum>);
  table.add<MaximumFOp>(computes, evalFloatMinMax<FloatMinMax::Maximum>);
  table.add<ExtSIOp>(computes, evalIntegerCast<false>);
  table.add<ExtUIOp>(computes, evalIntegerCast<true>);
  table.add<TruncIOp>(computes, evalIntegerCast<false>);
  table.add<IndexCastOp>(computes, evalIntegerCast<false>);
  table.add<IndexCastUIOp>(computes, evalIntegerCast<true>);
  table.add<SIToFPOp>(computes, evalIntegerToFloat<true>);
  table.add<UIToFPOp>(computes, evalIntegerToFloat<false>);
  table.add<FPToSIOp>(computes, evalFloatToInteger<true>);
  table.add<FPToUIOp>(computes, evalFloatToInteger<false>);
  table.add<ExtFOp>(computes, evalFloatCast);
  table.add<TruncFOp>(computes, evalFloatCast);
  table.add<BitcastOp>(computes, evalBitcast);
}

void registerMathSemantics(SemanticsTable &table) {
  using namespace math;
  constexpr OpRole computes = OpRole::Computes;
  table.add<ExpOp>(computes, evalUnaryMath<kExp>);
  table.add<Exp2Op>(computes, evalUnaryMath<kExp2>);
  table.add<LogOp>(computes, evalUnaryMath<kLog>);
  table.add<Log2Op>(computes, evalUnaryMath<kLog2>);
  table.add<SqrtOp>(computes, evalUnaryMath<kSqrt>);
  table.add<RsqrtOp>(computes, evalUnaryMath<kRsqrt>);
  table.add<TanhOp>(computes, evalUnaryMath<kTanh>);
  table.add<ErfOp>(computes, evalUnaryMath<kErf>);
  table.add<SinOp>(computes, evalUnaryMath<kSin>);
  table.add<CosOp>(computes, evalUnaryMath<kCos>);
  table.add<FloorOp>(computes, evalUnaryMath<kFloor>);
  table.add<CeilOp>(computes, evalUnaryMath<kCeil>);
  table.add<AbsFOp>(computes, evalAbsF);
  table.add<PowFOp>(computes, evalPowF);
  table.add<FmaOp>(computes, evalFma);
  table.add<AbsIOp>(computes, evalAbsI);
}

} // namespace interp
} // namespace kuiper
