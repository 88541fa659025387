//===- Values.h - Runtime values of the kuiper IR interpreter ---*- C++ -*-===//
//
// What an SSA value holds while a kernel runs (an integer bit pattern, a
// float rounded to its type, or a reference to memory), how elements of
// buffers and shared arrays are read and written, and how values are shown in
// violation messages.
//
//===----------------------------------------------------------------------===//
#ifndef KUIPER_RUNTIME_INTERPRETER_VALUES_H
#define KUIPER_RUNTIME_INTERPRETER_VALUES_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace kuiper {
namespace interp {

/// The floating-point formats the executor computes in.
enum class FloatFormat : uint8_t { F16, BF16, F32, F64 };

/// A runtime value: an integer (its bit pattern masked to its width), a float
/// (a double already rounded to its format), or a reference to memory.
struct RuntimeValue {
  enum Kind : uint8_t { Undefined, Integer, Float, Buffer, SharedArray, Local };
  Kind kind = Undefined;
  /// Width in bits of an integer or a float.
  uint8_t width = 0;
  FloatFormat format = FloatFormat::F32;
  /// Integer bit pattern, or the index of the buffer, shared array or local.
  uint64_t bits = 0;
  /// Float value.
  double real = 0;
  /// Approx clauses: the sum of the magnitudes of the terms behind the value.
  double magnitude = 0;

  /// The integer, sign-extended from its width.
  int64_t asSigned() const;
  /// The integer, zero-extended from its width.
  uint64_t asUnsigned() const { return bits; }
  /// An i1 (or any integer) as a condition.
  bool isTrue() const { return bits != 0; }
};

/// All ones in the low `width` bits.
uint64_t lowBitsMask(unsigned width);
/// `value` sign-extended from `width` bits.
int64_t signExtend(uint64_t value, unsigned width);
/// `x` rounded to `format`.
double roundToFormat(FloatFormat format, double x);
/// Bit width of `format`.
unsigned formatWidth(FloatFormat format);

/// An integer of `width` bits (truncated to it).
RuntimeValue makeInteger(unsigned width, uint64_t value);
/// An i1.
RuntimeValue makeBool(bool value);
/// A float of `format`; `exact` keeps `x` unrounded (approx clauses compute
/// over the reals).
RuntimeValue makeFloat(FloatFormat format, double x, double magnitude,
                       bool exact = false);
/// A reference to memory of `kind` (Buffer, SharedArray, Local).
RuntimeValue makeMemoryRef(RuntimeValue::Kind kind, uint64_t index);

/// The float format of `type`, if it is a supported float type.
std::optional<FloatFormat> floatFormatOf(mlir::Type type);

/// How one element of a buffer, shared array or local is stored.
struct ElementType {
  bool isFloat = false;
  FloatFormat format = FloatFormat::F32;
  unsigned width = 32;
  unsigned byteSize = 4;
  /// "f32", "i32", "bool", ... (as HostBuffer::elemType names it).
  std::string name;
};

/// The storage of `type`, if the executor supports it (floats, integers up
/// to 64 bits).
std::optional<ElementType> elementTypeOf(mlir::Type type);
/// Whether values of `type` can live in the executor (element types, index,
/// buffers, shared arrays and local slots of element types).
bool isSupportedType(mlir::Type type);

/// Reads the element at `address`.
RuntimeValue readElement(const ElementType &type, const uint8_t *address);
/// Writes `value` to the element at `address` (rounded or truncated).
void writeElement(const ElementType &type, uint8_t *address,
                  const RuntimeValue &value);
/// Fills `count` elements with a recognisable garbage pattern (a NaN for
/// floats): what unwritten memory holds.
void fillWithPoison(const ElementType &type, uint8_t *address, size_t count);
/// The poison value of one element of `type`.
RuntimeValue poisonValue(const ElementType &type);

/// A double as messages show it ("nan", "-inf", "1.5").
/// IEEE minNum/maxNum as arith.minnumf/maxnumf and float atomics define them:
/// a NaN operand yields the other operand, and -0 < +0.
double minNum(double a, double b);
double maxNum(double a, double b);

std::string formatDouble(double value, bool doublePrecision);
/// A value as messages show it ("true", "-3", "1.5", "undef").
std::string formatValue(const RuntimeValue &value);
/// The same, an integer read unsigned where `asUnsigned` (an unsigned op's
/// operands: `unsigned overflow (arith.shli 4294967282, 13)`).
std::string formatValue(const RuntimeValue &value, bool asUnsigned);
/// "file:line:col" of `op`, or "" when it has no file location.
std::string locationOf(mlir::Operation *op);
/// "1, 2, 3".
std::string formatIndices(llvm::ArrayRef<int64_t> indices);

} // namespace interp
} // namespace kuiper

#endif
