// float16 and bfloat16 storage types and their conversions to and from float.
//
// Note [Half conversions]
// Both are 16-bit patterns; values are read by widening to float (exact) and written by
// rounding a float to the nearest representable value, ties to even, NaN kept a (quiet) NaN
// with its sign, overflow to infinity. A double is rounded to float first, as torch does
// (c10::Half and c10::BFloat16 are constructed from float), so both engines agree with torch
// bit for bit, double rounding included.
#pragma once

#include <cstdint>
#include <cstring>

namespace tg {

struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline float to_float(BFloat16 h) { return bits_float(static_cast<uint32_t>(h.bits) << 16); }

inline BFloat16 bfloat16_from_float(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)  // NaN: keep the sign, make it quiet
    return BFloat16{static_cast<uint16_t>((u >> 16) | 0x0040u)};
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even (may carry into inf)
  return BFloat16{static_cast<uint16_t>(u >> 16)};
}

inline float to_float(Half h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  const uint32_t exp = (h.bits >> 10) & 0x1fu, man = h.bits & 0x3ffu;
  if (exp == 0x1f) return bits_float(sign | 0x7f800000u | (man << 13));  // inf, NaN
  if (exp == 0) {  // zero or subnormal: man * 2^-24, exact in float
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp + 112) << 23) | (man << 13));
}

inline Half half_from_float(float f) {
  const uint32_t u = float_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return Half{static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu))};
  if (a >= 0x477ff000u) return Half{static_cast<uint16_t>(sign | 0x7c00u)};  // >= 65520: inf
  if (a < 0x38800000u) {  // below 2^-14: subnormal half (or zero), step 2^-24
    // a * 2^24 rounded to an integer, ties to even: adding 0.5 (as float) does the rounding.
    const float scaled = bits_float(a) + 0.5f;  // 0.5 = 2^-1: aligns the mantissa to 2^-24 steps
    const uint32_t r = float_bits(scaled) - 0x3f000000u;
    return Half{static_cast<uint16_t>(sign | r)};
  }
  // normal: rebias the exponent (127 -> 15), round 13 dropped bits to nearest even
  uint32_t h = a - 0x38000000u;
  h += 0xfffu + ((h >> 13) & 1u);
  return Half{static_cast<uint16_t>(sign | (h >> 13))};
}

}  // namespace tg
