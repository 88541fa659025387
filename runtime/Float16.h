//===- Float16.h - f16/bf16 conversions for the executor (internal) -------===//
#ifndef KUIPER_RUNTIME_FLOAT16_H
#define KUIPER_RUNTIME_FLOAT16_H

#include <cstdint>
#include <cmath>
#include <cstring>

namespace kuiper {

/// IEEE binary16 bits -> float (exact).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) {
        man <<= 1;
        --exp;
      }
      man &= 0x3ff;
      bits = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000 | (man << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// double -> float rounded to odd (an inexact result gets its last bit set):
/// rounding that to a format of at most 22 significand bits (f16, bf16) is
/// the one correct rounding of the double, as the GPU's cvt.rn.f16.f64 does
/// (round to nearest twice, through a float, can differ: 1 + 2^-11 + 2^-40).
inline float toFloatRoundToOdd(double x) {
  float f = (float)x;
  if ((double)f == x || x != x)
    return f;
  if (std::fabs((double)f) > std::fabs(x))
    f = std::nextafter(f, 0.0f); // toward zero (inf becomes the largest float)
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits |= 1;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// float -> IEEE binary16 bits, round to nearest even.
inline uint16_t floatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint16_t sign = (x >> 16) & 0x8000;
  uint32_t absx = x & 0x7fffffff;
  if (absx >= 0x7f800000) // inf or nan
    return sign | 0x7c00 | (absx > 0x7f800000 ? 0x200 | ((absx >> 13) & 0x3ff) : 0);
  if (absx >= 0x477ff000) // rounds to >= 65520 -> inf
    return sign | 0x7c00;
  if (absx < 0x38800000) { // subnormal half or zero
    if (absx < 0x33000000) // < 2^-25: rounds to zero
      return sign;
    uint32_t man = (absx & 0x7fffff) | 0x800000;
    int shift = 126 - int(absx >> 23); // 14 + (113 - e)
    uint32_t half = man >> (shift);
    uint32_t rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    return sign | uint16_t(half);
  }
  uint32_t e = (absx >> 23) - 127 + 15, man = absx & 0x7fffff;
  uint32_t h = (e << 10) | (man >> 13);
  uint32_t rem = man & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
    ++h;
  return sign | uint16_t(h);
}

/// bfloat16 bits -> float (exact).
inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// float -> bfloat16 bits, round to nearest even.
inline uint16_t floatToBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return uint16_t((x >> 16) | 0x40);
  uint32_t lsb = (x >> 16) & 1;
  x += 0x7fff + lsb;
  return uint16_t(x >> 16);
}

} // namespace kuiper

#endif
