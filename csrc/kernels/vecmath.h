// Scalar math written so that loops calling it can be vectorised (no libm calls where a
// polynomial does), plus numerically stable compositions (sigmoid).
#pragma once

#include <cmath>

namespace tg::kernel::vec {

template <class T>
inline T exp(T x) { return std::exp(x); }
template <class T>
inline T log(T x) { return std::log(x); }
template <class T>
inline T tanh(T x) { return std::tanh(x); }

// 1 / (1 + e^-x) without overflow: with e = e^-|x|, sigmoid = 1/(1+e) for x >= 0 and e/(1+e)
// otherwise.
template <class T>
inline T sigmoid(T x) {
  T e = vec::exp(-std::fabs(x));
  T r = T(1) / (T(1) + e);
  return x >= T(0) ? r : e * r;
}

}  // namespace tg::kernel::vec
