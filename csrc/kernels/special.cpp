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
    1.0 / 6,     -1.0 / 30,   1.0 / 42,          -1.0 / 30,  5.0 / 66,          -691.0 / 2730,
    7.0 / 6,     -3617.0 / 510, 43867.0 / 798,   -174611.0 / 330, 854513.0 / 138, -236364091.0 / 2730,
};

}  // namespace

double erfinv_scalar(double y) {
  if (std::isnan(y) || y < -1.0 || y > 1.0) return kNaN;
  if (y == 1.0) return kInf;
  if (y == -1.0) return -kInf;
  const double a = std::fabs(y);
  // Winitzki's closed form (relative error ~2e-3) as a start, then Halley steps on
  // f(x) = erf(x) - a, written with erfc near 1 where erf(x) - a would cancel.
  const double k = 0.147, l = std::log((1.0 - a) * (1.0 + a));
  const double t = 2.0 / (kPi * k) + l / 2.0;
  double x = std::sqrt(std::sqrt(t * t - l / k) - t);
  // Halley converges cubically (2e-3 -> 1e-8 -> 1e-24): the loop stops once a step is below
  // rounding, usually after the third; the fourth serves the far tails, where the start is rougher.
  for (int i = 0; i < 4; ++i) {
    const double f = a > 0.5 ? (1.0 - a) - std::erfc(x) : std::erf(x) - a;
    const double df = 2.0 / std::sqrt(kPi) * std::exp(-x * x);
    if (df == 0.0) break;
    const double step = f / (df * (1.0 + x * f));
    x -= step;
    if (std::fabs(step) <= 1e-15 * std::fabs(x)) break;
  }
  return y < 0 ? -x : x;
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
