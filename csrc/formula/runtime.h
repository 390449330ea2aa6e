// Python semantics for the C++ the translator generates from formulas (namespace tg::py).
//
// A formula's non-tensor arithmetic is plain Python; the generated code calls these helpers
// wherever C++ would differ: `//` and `%` round toward negative infinity, `/` is always a float
// division, `**` keeps int ** int exact, shapes index and slice like tuples (negative indices,
// IndexError), and errors are raised where Python raises them (as tg::ValueError /
// tg::IndexError, which the bindings map to Python exceptions).
//
// Header-only; depends on the standard library, tensor/errors.h and tensor/small_alloc.h only.
// Integer arguments are any integral type (the translator emits bare literals), computed in
// int64_t; anything else is computed in double, exactly as CPython computes floats.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tensor/errors.h"
#include "tensor/small_alloc.h"

namespace tg::py {

template <class A, class B>
inline constexpr bool both_int = std::is_integral_v<A> && std::is_integral_v<B>;

// ---------------------------------------------------------------------------------------------
// Arithmetic

template <class A, class B>
auto floordiv(A a, B b) {
  if constexpr (both_int<A, B>) {
    const int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    if (y == 0) throw ValueError("integer division or modulo by zero");
    if (x == std::numeric_limits<int64_t>::min() && y == -1)
      throw ValueError("integer overflow in floor division");
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    return q;
  } else {
    // CPython's float_floor_div.
    const double x = static_cast<double>(a), y = static_cast<double>(b);
    if (y == 0.0) throw ValueError("float floor division by zero");
    double mod = std::fmod(x, y);
    double div = (x - mod) / y;
    if (mod != 0.0 && ((y < 0) != (mod < 0))) div -= 1.0;
    if (div != 0.0) {
      double fl = std::floor(div);
      if (div - fl > 0.5) fl += 1.0;
      return fl;
    }
    return std::copysign(0.0, x / y);
  }
}

template <class A, class B>
auto mod(A a, B b) {
  if constexpr (both_int<A, B>) {
    const int64_t x = static_cast<int64_t>(a), y = static_cast<int64_t>(b);
    if (y == 0) throw ValueError("integer division or modulo by zero");
    if (y == -1) return int64_t{0};
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
  } else {
    // CPython's float_rem.
    const double x = static_cast<double>(a), y = static_cast<double>(b);
    if (y == 0.0) throw ValueError("float modulo by zero");
    double r = std::fmod(x, y);
    if (r != 0.0) {
      if ((y < 0) != (r < 0)) r += y;
    } else {
      r = std::copysign(0.0, y);
    }
    return r;
  }
}

template <class A, class B>
double truediv(A a, B b) {
  if (b == 0) throw ValueError("division by zero");
  return static_cast<double>(a) / static_cast<double>(b);
}

// int ** int with a non-negative exponent (the translator only types it int then).
template <class A, class B>
auto pow(A a, B b) {
  if constexpr (both_int<A, B>) {
    int64_t base = static_cast<int64_t>(a), e = static_cast<int64_t>(b), r = 1;
    if (e < 0) throw ValueError("negative exponent in int ** int");
    while (e > 0) {
      if (e & 1) r *= base;
      e >>= 1;
      if (e > 0) base *= base;
    }
    return r;
  } else {
    const double x = static_cast<double>(a), y = static_cast<double>(b);
    if (x == 0.0 && y < 0.0) throw ValueError("0.0 cannot be raised to a negative power");
    if (x < 0.0 && std::isfinite(x) && std::isfinite(y) && y != std::floor(y))
      throw ValueError("negative number cannot be raised to a fractional power");
    return std::pow(x, y);
  }
}

template <class A>
A abs(A a) {
  return a < 0 ? -a : a;
}

template <class A, class B>
auto min(A a, B b) {
  using R = std::conditional_t<both_int<A, B>, int64_t, double>;
  return static_cast<R>(b < a ? b : a);
}

template <class A, class B>
auto max(A a, B b) {
  using R = std::conditional_t<both_int<A, B>, int64_t, double>;
  return static_cast<R>(b > a ? b : a);
}

template <class A, class B, class... C>
auto min(A a, B b, C... c) {
  return min(min(a, b), c...);
}

template <class A, class B, class... C>
auto max(A a, B b, C... c) {
  return max(max(a, b), c...);
}

// int(x) on a float: truncation toward zero; ValueError for nan, inf.
template <class A>
int64_t to_int(A a) {
  if constexpr (std::is_integral_v<A>) {
    return static_cast<int64_t>(a);
  } else {
    if (std::isnan(a)) throw ValueError("cannot convert float NaN to integer");
    if (std::isinf(a)) throw ValueError("cannot convert float infinity to integer");
    return static_cast<int64_t>(a);
  }
}

// ---------------------------------------------------------------------------------------------
// math.*

inline int64_t floor(double x) { return to_int(std::floor(x)); }
inline int64_t ceil(double x) { return to_int(std::ceil(x)); }
inline int64_t floor(int64_t x) { return x; }
inline int64_t ceil(int64_t x) { return x; }

inline double math_sqrt(double x) {
  if (x < 0) throw ValueError("math domain error");
  return std::sqrt(x);
}

inline double math_log(double x) {
  if (!(x > 0) && !std::isnan(x)) throw ValueError("math domain error");
  return std::log(x);
}

inline double math_log(double x, double base) { return math_log(x) / math_log(base); }

inline double math_exp(double x) {
  double r = std::exp(x);
  if (std::isinf(r) && std::isfinite(x)) throw ValueError("math range error");
  return r;
}

// ---------------------------------------------------------------------------------------------
// Tuples (shapes, dims) and lists

template <class T, class A>
int64_t len(const std::vector<T, A>& v) {
  return static_cast<int64_t>(v.size());
}

template <class T, class A>
const T& index(const std::vector<T, A>& v, int64_t i) {
  const int64_t n = len(v);
  const int64_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) throw IndexError("tuple index out of range");
  return v[static_cast<size_t>(j)];
}

// v[start:stop:step] with Python's clamping of out-of-range bounds.
template <class T, class A>
std::vector<T, A> slice(const std::vector<T, A>& v, std::optional<int64_t> start,
                        std::optional<int64_t> stop, int64_t step = 1) {
  if (step == 0) throw ValueError("slice step cannot be zero");
  const int64_t n = len(v);
  auto adjust = [n, step](std::optional<int64_t> b, bool is_start) {
    if (!b) return step > 0 ? (is_start ? int64_t{0} : n) : (is_start ? n - 1 : int64_t{-1});
    int64_t x = *b;
    if (x < 0) {
      x += n;
      if (x < 0) x = step > 0 ? 0 : -1;
    } else if (x >= n) {
      x = step > 0 ? n : n - 1;
    }
    return x;
  };
  const int64_t lo = adjust(start, true), hi = adjust(stop, false);
  std::vector<T, A> out;
  if (step > 0) {
    for (int64_t i = lo; i < hi; i += step) out.push_back(v[static_cast<size_t>(i)]);
  } else {
    for (int64_t i = lo; i > hi; i += step) out.push_back(v[static_cast<size_t>(i)]);
  }
  return out;
}

template <class T, class A>
std::vector<T, A> concat(std::vector<T, A> a, const std::vector<T, A>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// ``a = a + b`` on a local, in place (no copy of ``a`` per iteration of a loop); ``b`` is taken
// by value, so ``a = a + a`` is right too.
template <class T, class A>
void extend(std::vector<T, A>& a, std::vector<T, A> b) {
  a.insert(a.end(), b.begin(), b.end());
}

template <class T, class A>
std::vector<T, A> repeat(const std::vector<T, A>& v, int64_t times) {
  std::vector<T, A> out;
  for (int64_t k = 0; k < times; ++k) out.insert(out.end(), v.begin(), v.end());
  return out;
}

template <class T, class A, class U>
bool contains(const std::vector<T, A>& v, const U& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

template <class T, class A>
std::vector<T, A> sorted(std::vector<T, A> v, bool reverse = false) {
  std::stable_sort(v.begin(), v.end());
  if (reverse) std::reverse(v.begin(), v.end());
  return v;
}

template <class T, class A>
std::vector<T, A> reversed(std::vector<T, A> v) {
  std::reverse(v.begin(), v.end());
  return v;
}

template <class T, class A>
T min(const std::vector<T, A>& v) {
  if (v.empty()) throw ValueError("min() arg is an empty sequence");
  return *std::min_element(v.begin(), v.end());
}

template <class T, class A>
T max(const std::vector<T, A>& v) {
  if (v.empty()) throw ValueError("max() arg is an empty sequence");
  return *std::max_element(v.begin(), v.end());
}

template <class T, class A>
T sum(const std::vector<T, A>& v) {
  T s = 0;
  for (const T& x : v) s += x;
  return s;
}

template <class T, class A>
T prod(const std::vector<T, A>& v) {
  T s = 1;
  for (const T& x : v) s *= x;
  return s;
}

// enumerate(v, start) and zip(a, b[, c]) (shortest): vectors of tuples, for range-for loops.
template <class T, class A>
std::vector<std::tuple<int64_t, T>> enumerate(const std::vector<T, A>& v, int64_t start = 0) {
  std::vector<std::tuple<int64_t, T>> out;
  for (const T& x : v) out.emplace_back(start++, x);
  return out;
}

template <class A, class AA, class B, class AB>
std::vector<std::tuple<A, B>> zip(const std::vector<A, AA>& a, const std::vector<B, AB>& b) {
  std::vector<std::tuple<A, B>> out;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) out.emplace_back(a[i], b[i]);
  return out;
}

template <class A, class AA, class B, class AB, class C, class AC>
std::vector<std::tuple<A, B, C>> zip(const std::vector<A, AA>& a, const std::vector<B, AB>& b,
                                     const std::vector<C, AC>& c) {
  std::vector<std::tuple<A, B, C>> out;
  for (size_t i = 0; i < a.size() && i < b.size() && i < c.size(); ++i)
    out.emplace_back(a[i], b[i], c[i]);
  return out;
}

// [f(x) for x in seq] and [f(x) for x in seq if cond(x)], into a vector type Out.
template <class Out, class Seq, class F>
Out comprehension(const Seq& seq, F f) {
  Out out;
  for (const auto& x : seq) out.push_back(f(x));
  return out;
}

template <class Out, class Seq, class C, class F>
Out comprehension(const Seq& seq, C cond, F f) {
  Out out;
  for (const auto& x : seq)
    if (cond(x)) out.push_back(f(x));
  return out;
}

// all()/any() of a tuple of ints (a comprehension of bools is one).
template <class T, class A>
bool all(const std::vector<T, A>& v) {
  return std::all_of(v.begin(), v.end(), [](const T& x) { return x != 0; });
}

template <class T, class A>
bool any(const std::vector<T, A>& v) {
  return std::any_of(v.begin(), v.end(), [](const T& x) { return x != 0; });
}

// round(x): to the nearest int, ties to even (Python 3).
inline int64_t round(double x) {
  if (std::isnan(x)) throw ValueError("cannot convert float NaN to integer");
  if (std::isinf(x)) throw ValueError("cannot convert float infinity to integer");
  double r = std::nearbyint(x);  // default rounding mode: to nearest, ties to even
  return static_cast<int64_t>(r);
}

// range(start, stop, step): iterable in a range-for.
class range {
 public:
  explicit range(int64_t stop) : range(0, stop, 1) {}
  range(int64_t start, int64_t stop, int64_t step = 1) : start_(start), stop_(stop), step_(step) {
    if (step == 0) throw ValueError("range() arg 3 must not be zero");
  }
  struct iterator {
    int64_t value, step, stop;
    int64_t operator*() const { return value; }
    iterator& operator++() {
      value += step;
      return *this;
    }
    bool operator!=(const iterator&) const { return step > 0 ? value < stop : value > stop; }
  };
  iterator begin() const { return {start_, step_, stop_}; }
  iterator end() const { return {stop_, step_, stop_}; }
  // A Shape (tensor/tensor.h), spelled without depending on tensor.h.
  template <class A = SmallAlloc<int64_t>>
  std::vector<int64_t, A> to_vector() const {
    std::vector<int64_t, A> out;
    for (int64_t i : *this) out.push_back(i);
    return out;
  }
  template <class A>
  operator std::vector<int64_t, A>() const {
    return to_vector<A>();
  }

 private:
  int64_t start_, stop_, step_;
};

// ---------------------------------------------------------------------------------------------
// str() for error messages built with f-strings

inline std::string str(int64_t x) { return std::to_string(x); }
inline std::string str(int x) { return std::to_string(x); }
inline std::string str(bool x) { return x ? "True" : "False"; }
inline std::string str(const std::string& s) { return s; }
inline std::string str(const char* s) { return s; }
inline std::string str(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  std::string s = os.str();
  if (s.find_first_of(".einn") == std::string::npos) s += ".0";
  return s;
}
template <class A>
std::string str(const std::vector<int64_t, A>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

}  // namespace tg::py
