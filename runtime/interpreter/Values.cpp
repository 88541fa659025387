//===- Values.cpp - Runtime values of the kuiper IR interpreter -----------===//
//
// Integers are kept as bit patterns masked to their width, floats as doubles
// rounded to their format after every operation; memory is little endian.
//
//===----------------------------------------------------------------------===//
#include "runtime/interpreter/Values.h"
#include "runtime/Float16.h"

#include "kuiper/Dialect/Kuiper/IR/Kuiper.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir;

namespace kuiper {
namespace interp {

uint64_t lowBitsMask(unsigned width) {
  return width >= 64 ? ~0ull : ((1ull << width) - 1);
}

int64_t signExtend(uint64_t value, unsigned width) {
  if (width >= 64)
    return (int64_t)value;
  unsigned shift = 64 - width;
  return (int64_t)(value << shift) >> shift;
}

int64_t RuntimeValue::asSigned() const { return signExtend(bits, width); }

double roundToFormat(FloatFormat format, double x) {
  switch (format) {
  case FloatFormat::F64:
    return x;
  case FloatFormat::F32:
    return (double)(float)x;
  case FloatFormat::F16:
    return halfToFloat(floatToHalf(toFloatRoundToOdd(x)));
  case FloatFormat::BF16:
    return bf16ToFloat(floatToBf16(toFloatRoundToOdd(x)));
  }
  return x;
}

unsigned formatWidth(FloatFormat format) {
  return format == FloatFormat::F64 ? 64 : format == FloatFormat::F32 ? 32 : 16;
}

RuntimeValue makeInteger(unsigned width, uint64_t value) {
  RuntimeValue r;
  r.kind = RuntimeValue::Integer;
  r.width = width;
  r.bits = value & lowBitsMask(width);
  return r;
}

RuntimeValue makeBool(bool value) { return makeInteger(1, value); }

RuntimeValue makeFloat(FloatFormat format, double x, double magnitude,
                       bool exact) {
  RuntimeValue r;
  r.kind = RuntimeValue::Float;
  r.format = format;
  r.width = formatWidth(format);
  r.real = exact ? x : roundToFormat(format, x);
  r.magnitude = magnitude;
  return r;
}

RuntimeValue makeMemoryRef(RuntimeValue::Kind kind, uint64_t index) {
  RuntimeValue r;
  r.kind = kind;
  r.bits = index;
  return r;
}

std::optional<FloatFormat> floatFormatOf(Type type) {
  if (type.isF32())
    return FloatFormat::F32;
  if (type.isF64())
    return FloatFormat::F64;
  if (type.isF16())
    return FloatFormat::F16;
  if (type.isBF16())
    return FloatFormat::BF16;
  return std::nullopt;
}

std::optional<ElementType> elementTypeOf(Type type) {
  ElementType e;
  if (auto format = floatFormatOf(type)) {
    e.isFloat = true;
    e.format = *format;
    e.width = formatWidth(*format);
    e.byteSize = e.width / 8;
    e.name = *format == FloatFormat::F64   ? "f64"
             : *format == FloatFormat::F32 ? "f32"
             : *format == FloatFormat::F16 ? "f16"
                                           : "bf16";
    return e;
  }
  if (auto intType = dyn_cast<IntegerType>(type)) {
    e.width = intType.getWidth();
    if (e.width > 64)
      return std::nullopt;
    e.byteSize = e.width <= 8 ? 1 : e.width <= 16 ? 2 : e.width <= 32 ? 4 : 8;
    e.name = e.width == 1 ? "bool" : "i" + std::to_string(e.width);
    return e;
  }
  return std::nullopt;
}

bool isSupportedType(Type type) {
  if (type.isIndex() || elementTypeOf(type))
    return true;
  if (auto buffer = dyn_cast<BufferType>(type))
    return elementTypeOf(buffer.getElementType()).has_value();
  if (auto shared = dyn_cast<SharedType>(type))
    return elementTypeOf(shared.getElementType()).has_value();
  if (auto memref = dyn_cast<MemRefType>(type))
    return memref.getRank() == 0 &&
           elementTypeOf(memref.getElementType()).has_value();
  return false;
}

RuntimeValue readElement(const ElementType &type, const uint8_t *address) {
  if (!type.isFloat) {
    uint64_t bits = 0;
    std::memcpy(&bits, address, type.byteSize);
    return makeInteger(type.width, bits);
  }
  double value = 0;
  switch (type.format) {
  case FloatFormat::F64:
    std::memcpy(&value, address, 8);
    break;
  case FloatFormat::F32: {
    float f;
    std::memcpy(&f, address, 4);
    value = f;
    break;
  }
  case FloatFormat::F16:
  case FloatFormat::BF16: {
    uint16_t h;
    std::memcpy(&h, address, 2);
    value = type.format == FloatFormat::F16 ? halfToFloat(h) : bf16ToFloat(h);
    break;
  }
  }
  return makeFloat(type.format, value, std::fabs(value), /*exact=*/true);
}

void writeElement(const ElementType &type, uint8_t *address,
                  const RuntimeValue &value) {
  if (!type.isFloat) {
    uint64_t bits = value.bits & lowBitsMask(type.width);
    std::memcpy(address, &bits, type.byteSize);
    return;
  }
  double d = value.kind == RuntimeValue::Float ? value.real
                                               : (double)value.asSigned();
  switch (type.format) {
  case FloatFormat::F64:
    std::memcpy(address, &d, 8);
    break;
  case FloatFormat::F32: {
    float f = (float)d;
    std::memcpy(address, &f, 4);
    break;
  }
  case FloatFormat::F16:
  case FloatFormat::BF16: {
    uint16_t h = type.format == FloatFormat::F16 ? floatToHalf(toFloatRoundToOdd(d))
                                                 : floatToBf16(toFloatRoundToOdd(d));
    std::memcpy(address, &h, 2);
    break;
  }
  }
}

void fillWithPoison(const ElementType &type, uint8_t *address, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    uint8_t *element = address + k * type.byteSize;
    if (!type.isFloat) {
      uint64_t pattern = type.width == 1 ? 1 : 0xdeadbeefdeadbeefull;
      std::memcpy(element, &pattern, type.byteSize);
      continue;
    }
    switch (type.format) {
    case FloatFormat::F64: {
      uint64_t nan = 0x7ff8deadbeef0000ull;
      std::memcpy(element, &nan, 8);
      break;
    }
    case FloatFormat::F32: {
      uint32_t nan = 0x7fdeadbe;
      std::memcpy(element, &nan, 4);
      break;
    }
    case FloatFormat::F16:
    case FloatFormat::BF16: {
      uint16_t nan = type.format == FloatFormat::F16 ? 0x7e5a : 0x7fda;
      std::memcpy(element, &nan, 2);
      break;
    }
    }
  }
}

RuntimeValue poisonValue(const ElementType &type) {
  uint8_t storage[8];
  fillWithPoison(type, storage, 1);
  return readElement(type, storage);
}

std::string formatDouble(double value, bool doublePrecision) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char text[64];
  std::snprintf(text, sizeof text, doublePrecision ? "%.17g" : "%.9g", value);
  return text;
}

std::string formatValue(const RuntimeValue &value) {
  switch (value.kind) {
  case RuntimeValue::Integer:
    if (value.width == 1)
      return value.bits ? "true" : "false";
    return std::to_string(value.asSigned());
  case RuntimeValue::Float:
    return formatDouble(value.real, value.format == FloatFormat::F64);
  case RuntimeValue::Undefined:
    return "undef";
  default:
    return "<memory>";
  }
}

std::string formatValue(const RuntimeValue &value, bool asUnsigned) {
  if (asUnsigned && value.kind == RuntimeValue::Integer && value.width > 1)
    return std::to_string(value.asUnsigned());
  return formatValue(value);
}

std::string locationOf(Operation *op) {
  if (!op)
    return "";
  if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
    return fileLoc.getFilename().str() + ":" +
           std::to_string(fileLoc.getLine()) + ":" +
           std::to_string(fileLoc.getColumn());
  return "";
}

std::string formatIndices(llvm::ArrayRef<int64_t> indices) {
  std::string text;
  for (size_t k = 0; k < indices.size(); ++k)
    text += (k ? ", " : "") + std::to_string(indices[k]);
  return text;
}

double minNum(double a, double b) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

double maxNum(double a, double b) {
  if (std::isnan(a))
    return b;
  if (std::isnan(b))
    return a;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

} // namespace interp
} // namespace kuiper
