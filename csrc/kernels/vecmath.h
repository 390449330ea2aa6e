// Scalar math written so that loops calling it vectorise: polynomials (Cephes coefficients),
// bit manipulation for 2^n and frexp, and selects instead of branches. No libm calls.
// The selects only if-convert without -ftrapping-math: files using these in hot loops start
// with `#pragma GCC optimize("no-trapping-math")` (results are unchanged; only FP exception
// flags could differ, and nothing reads them).
// Accuracy: a few ulp over the whole range; inf/nan/denormal inputs give what libm gives
// (denormal results of exp included). Stable compositions (sigmoid, tanh) live here too.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace tg::kernel::vec {

inline __attribute__((always_inline)) float as_float(int32_t i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline __attribute__((always_inline)) int32_t as_int(float f) {
  int32_t i;
  std::memcpy(&i, &f, 4);
  return i;
}
inline __attribute__((always_inline)) double as_double(int64_t i) {
  double f;
  std::memcpy(&f, &i, 8);
  return f;
}
inline __attribute__((always_inline)) int64_t as_int(double f) {
  int64_t i;
  std::memcpy(&i, &f, 8);
  return i;
}
// 2^e for a biased exponent e, built from bits. The shift is unsigned: for a NaN input the
// callers' e is garbage (their results are then replaced by the NaN), and a signed shift of
// it would be undefined behaviour (UBSan: "left shift ... cannot be represented").
inline __attribute__((always_inline)) float pow2_biased(int32_t e) {
  return as_float(static_cast<int32_t>(static_cast<uint32_t>(e) << 23));
}
inline __attribute__((always_inline)) double pow2_biased(int64_t e) {
  return as_double(static_cast<int64_t>(static_cast<uint64_t>(e) << 52));
}

// e^x, float. x = n ln2 + g, |g| <= ln2/2; e^g by a degree-7 polynomial; 2^n split in two
// factors so that denormal results come out right.
inline __attribute__((always_inline)) float exp(float x) {
  const float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  const float magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float t = xc * 1.44269504088896341f + magic;
  const float fx = t - magic;
  const int32_t n = as_int(t) - as_int(magic);
  float g = xc - fx * 0.693359375f;
  g = g - fx * -2.12194440e-4f;
  float z = g * g;
  float y =
      ((((1.9875691500e-4f * g + 1.3981999507e-3f) * g + 8.3334519073e-3f) * g + 4.1665795894e-2f) *
           g +
       1.6666665459e-1f) *
          g +
      5.0000001201e-1f;
  y = y * z + g + 1.0f;
  int32_t n1 = n >> 1, n2 = n - n1;
  y = y * pow2_biased(n1 + 127) * pow2_biased(n2 + 127);
  y = x > 88.72283935546875f ? std::numeric_limits<float>::infinity() : y;
  y = x < -103.97f ? 0.0f : y;
  return x != x ? x : y;
}

// e^x, double (Cephes exp: rational approximation on |g| <= ln2/2).
inline __attribute__((always_inline)) double exp(double x) {
  const double xc = x < -746.0 ? -746.0 : (x > 710.0 ? 710.0 : x);
  const double magic = 6755399441055744.0;  // 1.5 * 2^52
  const double t = xc * 1.4426950408889634073599 + magic;
  const double fx = t - magic;
  const int64_t n = as_int(t) - as_int(magic);
  double g = xc - fx * 6.93145751953125e-1;
  g = g - fx * 1.42860682030941723212e-6;
  double xx = g * g;
  double px = g * ((1.26177193074810590878e-4 * xx + 3.02994407707441961300e-2) * xx +
                   9.99999999999999999910e-1);
  double qx = ((3.00198505138664455042e-6 * xx + 2.52448340349684104192e-3) * xx +
               2.27265548208155028766e-1) *
                  xx +
              2.00000000000000000009e0;
  double y = 1.0 + 2.0 * (px / (qx - px));
  int64_t n1 = n >> 1, n2 = n - n1;
  y = y * pow2_biased(n1 + 1023) * pow2_biased(n2 + 1023);
  y = x > 709.782712893384 ? std::numeric_limits<double>::infinity() : y;
  y = x < -745.2 ? 0.0 : y;
  return x != x ? x : y;
}

// log(x), float (Cephes logf).
inline __attribute__((always_inline)) float log(float x) {
  const bool tiny = x < 1.17549435e-38f;  // denormals: scale up first
  float xs = tiny ? x * 8388608.0f : x;
  int32_t bits = as_int(xs);
  int32_t e = ((bits >> 23) & 0xff) - 126 - (tiny ? 23 : 0);
  float m = as_float((bits & 0x007fffff) | 0x3f000000);  // [0.5, 1)
  const bool small = m < 0.707106781186547524f;
  float fe = static_cast<float>(e - (small ? 1 : 0));
  float t = small ? m + m - 1.0f : m - 1.0f;
  float z = t * t;
  float y = (((((((7.0376836292e-2f * t - 1.1514610310e-1f) * t + 1.1676998740e-1f) * t -
                 1.2420140846e-1f) *
                    t +
                1.4249322787e-1f) *
                   t -
               1.6668057665e-1f) *
                  t +
              2.0000714765e-1f) *
                 t -
             2.4999993993e-1f) *
                t +
            3.3333331174e-1f;
  y = y * t * z;
  y = y + -2.12194440e-4f * fe;
  y = y + -0.5f * z;
  float r = t + y + 0.693359375f * fe;
  r = x == std::numeric_limits<float>::infinity() ? x : r;
  r = x == 0.0f ? -std::numeric_limits<float>::infinity() : r;
  r = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : r;
  return x != x ? x : r;
}

// log(x), double (Cephes log: rational approximations around 1).
inline __attribute__((always_inline)) double log(double x) {
  const bool tiny = x < 2.2250738585072014e-308;
  double xs = tiny ? x * 4503599627370496.0 : x;  // 2^52
  int64_t bits = as_int(xs);
  int64_t e =
      static_cast<int64_t>((static_cast<uint64_t>(bits) >> 52) & 0x7ff) - 1022 - (tiny ? 52 : 0);
  double m = as_double((bits & 0x000fffffffffffffLL) | 0x3fe0000000000000LL);  // [0.5, 1)
  const bool small = m < 0.70710678118654752440;
  // int64 -> double without a conversion instruction (vectorises without AVX-512).
  const double dmagic = 6755399441055744.0;
  double fe = as_double(e - (small ? 1 : 0) + as_int(dmagic)) - dmagic;
  double t = small ? m + m - 1.0 : m - 1.0;
  double z = t * t;
  double p = ((((1.01875663804580931796e-4 * t + 4.97494994976747001425e-1) * t +
                4.70579119878881725854e0) *
                   t +
               1.44989225341610930846e1) *
                  t +
              1.79368678507819816313e1) *
                 t +
             7.70838733755885391666e0;
  double q = ((((t + 1.12873587189167450590e1) * t + 4.52279145837532221105e1) * t +
               8.29875266912776603211e1) *
                  t +
              7.11544750618563894466e1) *
                 t +
             2.31251620126765340583e1;
  double y = t * (z * p / q);
  y = y - fe * 2.121944400546905827679e-4;
  y = y - 0.5 * z;
  double r = t + y + fe * 0.693359375;
  r = x == std::numeric_limits<double>::infinity() ? x : r;
  r = x == 0.0 ? -std::numeric_limits<double>::infinity() : r;
  r = x < 0.0 ? std::numeric_limits<double>::quiet_NaN() : r;
  return x != x ? x : r;
}

// tanh: an odd polynomial/rational near 0 (where 1 - 2/(e^2x + 1) cancels), the exp form beyond.
inline __attribute__((always_inline)) float tanh(float x) {
  const float ax = x < 0.0f ? -x : x;
  float z = x * x;
  float small = ((((-5.70498872745e-3f * z + 2.06390887954e-2f) * z - 5.37397155531e-2f) * z +
                  1.33314422036e-1f) *
                     z -
                 3.33332819422e-1f) *
                    z * x +
                x;
  float e = vec::exp(2.0f * (ax > 44.0f ? 44.0f : ax));
  float big = 1.0f - 2.0f / (e + 1.0f);
  big = x < 0.0f ? -big : big;
  float r = ax < 0.625f ? small : big;
  return x != x ? x : r;
}

inline __attribute__((always_inline)) double tanh(double x) {
  const double ax = x < 0.0 ? -x : x;
  double z = x * x;
  double p =
      (-9.64399179425052238628e-1 * z - 9.92877231001918586564e1) * z - 1.61468768441708447952e3;
  double q = ((z + 1.12811678491632931402e2) * z + 2.23548839060100448583e3) * z +
             4.84406305325125486048e3;
  double small = x + x * z * (p / q);
  double e = vec::exp(2.0 * (ax > 40.0 ? 40.0 : ax));
  double big = 1.0 - 2.0 / (e + 1.0);
  big = x < 0.0 ? -big : big;
  double r = ax < 0.625 ? small : big;
  return x != x ? x : r;
}

// sin and cos (Cephes sin/cos): reduction by pi/4 in three parts, then the sine or cosine
// polynomial picked per octant. Accurate for |x| <= kTrigMaxD; callers route larger arguments
// to libm (see trig_needs_libm).
constexpr double kTrigMaxD = 1.0e8;

// float octant reduction (Cephes sinf/cosf): fast, but for large |x| the float reduction loses
// relative accuracy near the zeros of sin; used for |x| <= kTrigFastF only (see unary.cpp).
constexpr float kTrigFastF = 64.0f;
template <bool IsCos>
inline __attribute__((always_inline)) float sincos_impl(float x) {
  float ax = x < 0.0f ? -x : x;
  const float magic = 12582912.0f;
  float t = ax * 1.27323954473516f;
  float r = (t + magic) - magic;
  r = r > t ? r - 1.0f : r;  // floor
  int32_t j = static_cast<int32_t>(r);
  const int32_t odd = j & 1;
  j += odd;
  float y = r + static_cast<float>(odd);
  j &= 7;
  int32_t neg = IsCos ? 0 : (x < 0.0f ? 1 : 0);
  neg ^= (j > 3) ? 1 : 0;
  j = j > 3 ? j - 4 : j;
  if (IsCos) neg ^= (j > 1) ? 1 : 0;
  float g = ((ax - y * 0.78515625f) - y * 2.4187564849853515625e-4f) - y * 3.77489497744594108e-8f;
  float z = g * g;
  float c =
      ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z -
      0.5f * z + 1.0f;
  float sn = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * g + g;
  const bool use_cos = IsCos ? !(j == 1 || j == 2) : (j == 1 || j == 2);
  float res = use_cos ? c : sn;
  res = neg ? -res : res;
  return x != x ? x : res;
}
inline __attribute__((always_inline)) float sin_fast(float x) { return sincos_impl<false>(x); }
inline __attribute__((always_inline)) float cos_fast(float x) { return sincos_impl<true>(x); }

template <bool IsCos>
inline __attribute__((always_inline)) double sincos_impl(double x) {
  double ax = x < 0.0 ? -x : x;
  const double magic = 6755399441055744.0;
  double t = ax * 1.27323954473516268615;
  double r = (t + magic) - magic;
  r = r > t ? r - 1.0 : r;
  int64_t j = as_int(r + magic) - as_int(magic);
  const int64_t odd = j & 1;
  j += odd;
  double y = r + (odd ? 1.0 : 0.0);
  j &= 7;
  int64_t neg = IsCos ? 0 : (x < 0.0 ? 1 : 0);
  neg ^= (j > 3) ? 1 : 0;
  j = j > 3 ? j - 4 : j;
  if (IsCos) neg ^= (j > 1) ? 1 : 0;
  double g = ((ax - y * 7.85398125648498535156e-1) - y * 3.77489470793079817668e-8) -
             y * 2.69515142907905952645e-15;
  double z = g * g;
  double c = 1.0 - 0.5 * z +
             z * z *
                 (((((-1.13585365213876817300e-11 * z + 2.08757008419747316778e-9) * z -
                     2.75573141792967388112e-7) *
                        z +
                    2.48015872888517045348e-5) *
                       z -
                   1.38888888888730564116e-3) *
                      z +
                  4.16666666666665929218e-2);
  double sn = g + g * z *
                      (((((1.58962301576546568060e-10 * z - 2.50507477628578072866e-8) * z +
                          2.75573136213857245213e-6) *
                             z -
                         1.98412698295895385996e-4) *
                            z +
                        8.33333333332211858878e-3) *
                           z -
                       1.66666666666666307295e-1);
  const bool use_cos = IsCos ? !(j == 1 || j == 2) : (j == 1 || j == 2);
  double res = use_cos ? c : sn;
  res = neg ? -res : res;
  return x != x ? x : res;
}

// float goes through the double algorithm: as fast once vectorised, and the float reduction
// loses relative accuracy near the zeros of sin.
inline __attribute__((always_inline)) float sin(float x) {
  return static_cast<float>(sincos_impl<false>(double(x)));
}
inline __attribute__((always_inline)) float cos(float x) {
  return static_cast<float>(sincos_impl<true>(double(x)));
}
inline __attribute__((always_inline)) double sin(double x) { return sincos_impl<false>(x); }
inline __attribute__((always_inline)) double cos(double x) { return sincos_impl<true>(x); }
inline bool trig_needs_libm(float x) {
  return !(x <= float(kTrigMaxD) && x >= -float(kTrigMaxD)) && x == x;
}
inline bool trig_needs_libm(double x) { return !(x <= kTrigMaxD && x >= -kTrigMaxD) && x == x; }

// 1 / (1 + e^-x) without overflow: with e = e^-|x|, sigmoid = 1/(1+e) for x >= 0 and e/(1+e)
// otherwise.
template <class T>
inline __attribute__((always_inline)) T sigmoid(T x) {
  T ax = x < T(0) ? -x : x;
  T e = vec::exp(-ax);
  T r = T(1) / (T(1) + e);
  return x >= T(0) ? r : e * r;
}

}  // namespace tg::kernel::vec
