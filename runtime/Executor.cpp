//===- Executor.cpp - Kuiper CPU executor: public API ----------------------===//
#include "kuiper/Executor.h"
#include "runtime/Float16.h"
#include "runtime/interpreter/Interpreter.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <algorithm>

namespace kuiper {

size_t elementSize(const std::string &t) {
  if (t == "bool" || t == "i1" || t == "i8" || t == "u8")
    return 1;
  if (t == "f16" || t == "bf16" || t == "i16" || t == "u16")
    return 2;
  if (t == "f32" || t == "i32" || t == "u32")
    return 4;
  if (t == "f64" || t == "i64" || t == "u64")
    return 8;
  return 0;
}

HostBuffer::HostBuffer(std::string elemType, std::vector<int64_t> dims)
    : elemType(std::move(elemType)), dims(std::move(dims)) {
  bytes.assign(numElements() * elemSize(), 0);
}

int64_t HostBuffer::numElements() const {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

template <typename T>
static HostBuffer make(const char *type, const std::vector<T> &values) {
  HostBuffer b(type, {(int64_t)values.size()});
  if (!values.empty())
    std::memcpy(b.bytes.data(), values.data(), values.size() * sizeof(T));
  return b;
}
HostBuffer HostBuffer::f32(const std::vector<float> &v) { return make("f32", v); }
HostBuffer HostBuffer::f64(const std::vector<double> &v) { return make("f64", v); }
HostBuffer HostBuffer::i32(const std::vector<int32_t> &v) { return make("i32", v); }
HostBuffer HostBuffer::i64(const std::vector<int64_t> &v) { return make("i64", v); }
HostBuffer HostBuffer::u32(const std::vector<uint32_t> &v) { return make("u32", v); }

/// A rank-1 buffer of `type` with `values` set one by one (converted).
template <typename T>
static HostBuffer converted(const char *type, const std::vector<T> &values) {
  HostBuffer b(type, {(int64_t)values.size()});
  for (size_t i = 0; i < values.size(); ++i)
    b.set((int64_t)i, (double)values[i]);
  return b;
}
HostBuffer HostBuffer::f16(const std::vector<float> &v) { return converted("f16", v); }
HostBuffer HostBuffer::bf16(const std::vector<float> &v) { return converted("bf16", v); }
HostBuffer HostBuffer::boolean(const std::vector<bool> &v) { return converted("bool", v); }

/// Throws std::out_of_range unless `i` names an element of `b`.
static void checkIndex(const HostBuffer &b, int64_t i) {
  size_t size = b.elemSize();
  if (i < 0 || size == 0 || (size_t)i >= b.bytes.size() / size)
    throw std::out_of_range("HostBuffer index " + std::to_string(i) + " out of range (" +
                            std::to_string(size ? b.bytes.size() / size : 0) + " elements of " +
                            b.elemType + ")");
}

double HostBuffer::get(int64_t i) const {
  checkIndex(*this, i);
  const std::string &t = elemType;
  if (t == "f32")
    return at<float>(i);
  if (t == "f64")
    return at<double>(i);
  if (t == "f16")
    return halfToFloat(at<uint16_t>(i));
  if (t == "bf16")
    return bf16ToFloat(at<uint16_t>(i));
  if (t == "i32")
    return at<int32_t>(i);
  if (t == "u32")
    return at<uint32_t>(i);
  if (t == "i64")
    return (double)at<int64_t>(i);
  if (t == "u64")
    return (double)at<uint64_t>(i);
  if (t == "i16")
    return at<int16_t>(i);
  if (t == "u16")
    return at<uint16_t>(i);
  if (t == "bool" || t == "i1" || t == "u8")
    return at<uint8_t>(i);
  if (t == "i8")
    return at<int8_t>(i);
  return 0;
}

template <typename T> static void put(HostBuffer &b, int64_t i, T v) {
  std::memcpy(b.bytes.data() + i * sizeof(T), &v, sizeof(T));
}

void HostBuffer::set(int64_t i, double v) {
  checkIndex(*this, i);
  const std::string &t = elemType;
  bool isFloat = t == "f32" || t == "f64" || t == "f16" || t == "bf16";
  if (!isFloat) {
    // An integer: NaN as 0; past int64's range, its end (u64 up to 2^64 - 1),
    // so that the conversion below is defined; then wrapped to the width.
    if (std::isnan(v))
      v = 0;
    if (t == "u64" && v >= 0x1p63 && v < 0x1p64) {
      put<uint64_t>(*this, i, (uint64_t)v);
      return;
    }
    v = std::max(-0x1p63, std::min(v, 0x1.fffffffffffffp62));
  }
  if (t == "f32")
    put<float>(*this, i, (float)v);
  else if (t == "f64")
    put<double>(*this, i, v);
  else if (t == "f16")
    put<uint16_t>(*this, i, floatToHalf(toFloatRoundToOdd(v)));
  else if (t == "bf16")
    put<uint16_t>(*this, i, floatToBf16(toFloatRoundToOdd(v)));
  else if (t == "i32")
    put<int32_t>(*this, i, (int32_t)(int64_t)v);
  else if (t == "u32")
    put<uint32_t>(*this, i, (uint32_t)(int64_t)v);
  else if (t == "i64")
    put<int64_t>(*this, i, (int64_t)v);
  else if (t == "u64")
    put<uint64_t>(*this, i, (uint64_t)v);
  else if (t == "i16" || t == "u16")
    put<uint16_t>(*this, i, (uint16_t)(int64_t)v);
  else if (t == "bool" || t == "i1")
    put<uint8_t>(*this, i, v != 0);
  else if (t == "i8" || t == "u8")
    put<uint8_t>(*this, i, (uint8_t)(int64_t)v);
}

std::string HostBuffer::str(int64_t i) const {
  checkIndex(*this, i);
  double d = get(i);
  bool flt = elemType == "f32" || elemType == "f64" || elemType == "f16" ||
             elemType == "bf16";
  if (!flt) {
    if (elemType == "u64")
      return std::to_string(at<uint64_t>(i));
    if (elemType == "i64")
      return std::to_string(at<int64_t>(i));
    if (elemType == "bool" || elemType == "i1")
      return d != 0 ? "true" : "false";
    return std::to_string((int64_t)d);
  }
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, elemType == "f64" ? "%.17g" : "%.9g", d);
  return buf;
}

std::string toString(const ScalarValue &v) {
  if (auto *i = std::get_if<int64_t>(&v))
    return std::to_string(*i);
  if (auto *b = std::get_if<bool>(&v))
    return *b ? "true" : "false";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", std::get<double>(v));
  return buf;
}

bool parseScalar(const std::string &type, const std::string &text, ScalarValue &value) {
  if (type == "bool" || type == "i1") {
    if (text != "true" && text != "false" && text != "1" && text != "0")
      return false;
    value = text == "true" || text == "1";
    return true;
  }
  char *end = nullptr;
  errno = 0;
  if (type == "f16" || type == "bf16" || type == "f32" || type == "f64") {
    double d = std::strtod(text.c_str(), &end);
    value = d;
    return end != text.c_str() && !*end;
  }
  bool isUnsigned = !type.empty() && type[0] == 'u';
  if (isUnsigned) {
    // strtoull accepts "-1" as 2^64 - 1: a sign is no unsigned value.
    if (text.find('-') != std::string::npos)
      return false;
    unsigned long long u = std::strtoull(text.c_str(), &end, 0);
    if (end == text.c_str() || *end || errno == ERANGE || (type == "u32" && u > 0xffffffffull))
      return false;
    value = static_cast<int64_t>(u);
    return true;
  }
  long long x = std::strtoll(text.c_str(), &end, 0);
  if (end == text.c_str() || *end || errno == ERANGE ||
      (type == "i32" && (x < INT32_MIN || x > INT32_MAX)))
    return false;
  value = static_cast<int64_t>(x);
  return true;
}

Result<ExecResult> Executor::run(const Module &module, const std::string &kernel,
                                 Args &args) const {
  return detail::interpretKernel(module, kernel, args, opts);
}

Result<LaunchInfo> Executor::describe(const Module &module,
                                      const std::string &kernel,
                                      const Args &args) const {
  return detail::describeKernel(module, kernel, args);
}

Result<LaunchInfo> Executor::allocateBuffers(const Module &module,
                                             const std::string &kernel,
                                             Args &args) const {
  Result<LaunchInfo> info = describe(module, kernel, args);
  if (!info || !info->requiresHold)
    return info;
  int64_t totalBytes = 0;
  for (auto &[name, dims] : info->bufferDims) {
    int64_t n = 1;
    for (int64_t d : dims)
      n = d < 0 ? 0 : n * d;
    totalBytes += n * (int64_t)elementSize(info->bufferTypes[name].first);
  }
  if (totalBytes > (int64_t(1) << 31))
    return Error{"the buffers would take " + std::to_string(totalBytes) +
                     " bytes, more than the executor allocates (2 GiB)",
                 2};
  for (auto &[name, dims] : info->bufferDims) {
    if (args.buffer(name))
      continue;
    int64_t n = 1;
    for (int64_t d : dims) {
      if (d < 0)
        return Error{"buffer '" + name + "' gets a negative dimension", 2};
      n *= d;
    }
    if (n > (int64_t(1) << 31))
      return Error{"buffer '" + name + "' would hold " + std::to_string(n) +
                       " elements",
                   2};
    args.setBuffer(name, HostBuffer(info->bufferTypes[name].first, dims));
  }
  return describe(module, kernel, args);
}

Result<Module> parseModuleIR(const std::string &text, const std::string &name) {
  return detail::parseIR(text, name);
}

} // namespace kuiper
