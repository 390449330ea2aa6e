// Special functions without a libm counterpart: erfinv, digamma, polygamma (through the Hurwitz
// zeta function). Scalar double-precision routines, applied elementwise by pointwise.cpp's
// loops; reference/kernels_special.py writes the same algorithms for its fallback.
//
// Note [Special function edges]
// The values at the edges are torch's: erfinv(+-1) = +-inf and NaN outside [-1, 1];
// digamma(+-0) = -+inf, NaN at negative integers; polygamma(n, x) for n >= 1 is
// (-1)^(n+1) n! zeta(n+1, x): at non-positive integers +inf for odd n, -inf for even n.
#include <cmath>
#include <limits>

#include "kernels/kernels.h"
#include "kernels/special_scalar.h"

namespace tg::kernel::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Bernoulli numbers B_2, B_4, ..., B_24 (for the Euler-Maclaurin tails).
constexpr double kBernoulli[] = {
    1.0 / 6, -1.0 / 30,     1.0 / 42,      -1.0 / 30,       5.0 / 66,       -691.0 / 2730,
    7.0 / 6, -3617.0 / 510, 43867.0 / 798, -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730,
};

}  // namespace

// Note [erfinv: polynomial start, one Halley step]
// A polynomial in w = -log((1 - a)(1 + a)) (Giles 2010, "Approximating the erfinv function":
// two branches, w < 5 and above; fitted for float32's range, w < 16: relative error below
// 1.3e-7 there, measured against torch) gives x0; one Halley step on f(x) = erf(x) - a (erfc
// near 1, where erf(x) - a would cancel) is cubic: 1.3e-7 -> 1e-21, below double rounding, so
// no second step and no convergence test. Beyond w = 16 (1 - |y| < 6e-8, the tails the
// polynomial was not fitted for; its start is still within 3%) Halley iterates until a step is
// below rounding. Within 2.4e-16 relative of mpmath's erfinv (torch's: 1.1e-16). Was: a rougher
// closed form and three to four steps of a Newton-like iteration (its denominator was
// f' (1 + x f), not Halley's f' + x f), 8x torch's time (bench/special.py).
double erfinv_scalar(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return kNaN;
  if (y == 1.0) return kInf;
  if (y == -1.0) return -kInf;
  const double a = std::fabs(y);
  const double w = -std::log((1.0 - a) * (1.0 + a));
  double p;
  if (w < 5.0) {
    const double v = w - 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * v;
    p = -3.5233877e-06 + p * v;
    p = -4.39150654e-06 + p * v;
    p = 0.00021858087 + p * v;
    p = -0.00125372503 + p * v;
    p = -0.00417768164 + p * v;
    p = 0.246640727 + p * v;
    p = 1.50140941 + p * v;
  } else {
    const double v = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * v;
    p = 0.00134934322 + p * v;
    p = -0.00367342844 + p * v;
    p = 0.00573950773 + p * v;
    p = -0.0076224613 + p * v;
    p = 0.00943887047 + p * v;
    p = 1.00167406 + p * v;
    p = 2.83297682 + p * v;
  }
  double x = p * a;
  const int steps = w < 16.0 ? 1 : 8;
  for (int i = 0; i < steps; ++i) {
    const double f = a > 0.5 ? (1.0 - a) - std::erfc(x) : std::erf(x) - a;
    const double df = 2.0 / std::sqrt(kPi) * std::exp(-x * x);
    if (df == 0.0) break;
    // Halley: f'' = -2 x f', so the step f / (f' - f f'' / (2 f')) is f / (f' + x f)
    const double step = f / (df + x * f);
    x -= step;
    if (steps > 1 && std::fabs(step) <= 1e-15 * std::fabs(x)) break;
  }
  return std::copysign(x, y);  // -0.0 -> -0.0, as torch
}

double digamma_scalar(double x) {
  if (std::isnan(x)) return x;
  if (x == 0.0) return std::copysign(kInf, -x);  // -inf at +0, +inf at -0 (as torch)
  if (x < 0.0) {
    if (x == std::floor(x)) return kNaN;
    // Reflection: psi(1 - x) - psi(x) = pi / tan(pi x).
    return digamma_scalar(1.0 - x) - kPi / std::tan(kPi * x);
  }
  double result = 0.0;
  while (x < 10.0) {  // recurrence psi(x) = psi(x + 1) - 1/x up to where the series is exact
    result -= 1.0 / x;
    x += 1.0;
  }
  // Asymptotic series: log x - 1/(2x) - sum B_2k / (2k x^2k).
  const double inv2 = 1.0 / (x * x);
  double term = inv2, tail = 0.0;
  for (int k = 1; k <= 7; ++k) {
    tail += kBernoulli[k - 1] / (2.0 * k) * term;
    term *= inv2;
  }
  return result + std::log(x) - 0.5 / x - tail;
}

namespace {

// Hurwitz zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2: direct terms until q + k >= 10,
// then the Euler-Maclaurin tail.
double hurwitz_zeta(double s, double q) {
  double sum = 0.0, a = q;
  while (a < 10.0) {
    if (a == 0.0) return kInf;
    sum += std::pow(a, -s);
    a += 1.0;
  }
  sum += std::pow(a, 1.0 - s) / (s - 1.0) + 0.5 * std::pow(a, -s);
  // term_j = B_2j / (2j)! * s (s+1) ... (s+2j-2) * a^-(s+2j-1)
  double rising = s, fact = 2.0, power = std::pow(a, -s - 1.0);
  for (int j = 1; j <= 12; ++j) {
    const double term = kBernoulli[j - 1] / fact * rising * power;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
    rising *= (s + 2.0 * j - 1.0) * (s + 2.0 * j);
    fact *= (2.0 * j + 1.0) * (2.0 * j + 2.0);
    power /= a * a;
  }
  return sum;
}

}  // namespace

double polygamma_scalar(int64_t n, double x) {
  if (n == 0) return digamma_scalar(x);
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return x > 0 ? 0.0 : kNaN;
  if (x <= 0.0 && x == std::floor(x)) return (n % 2 == 1) ? kInf : -kInf;
  double factorial = 1.0;
  for (int64_t i = 2; i <= n; ++i) factorial *= static_cast<double>(i);
  const double sign = (n % 2 == 1) ? 1.0 : -1.0;
  return sign * factorial * hurwitz_zeta(static_cast<double>(n + 1), x);
}

}  // namespace tg::kernel::detail
