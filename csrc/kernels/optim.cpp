// Multi-tensor optimizer steps (optim.h): SGD, Adam/AdamW, RMSprop, Adagrad. One call per
// parameter group; the loop over parameters and elements runs here, the caller (the binding)
// has released the GIL.
//
// Note [Optimizer steps in torch's order]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each element is updated with the operations of torch's single-tensor step (foreach=False,
// its CPU default), rounded where torch rounds. SGD's trajectory matches torch's bit for bit.
// The steps that take a square root (Adam, RMSprop, Adagrad) cannot quite: torch's CPU sqrt is
// MKL's vector sqrt, within an ulp of the correctly rounded root but not always equal to it
// (1 element in 5 in float32); ours is the correctly rounded one, so e.g. after 10 float32 Adam
// steps 99.7% of the parameters are bit-identical and the rest differ by the rounding of one
// update (tests/optim/test_fused_steps.py).
// torch's CPU kernels round as follows (checked against torch 2.13, float32 and float64):
// `a.add(b, alpha=s)` and `a.lerp(b, w)` are one fused multiply-add (fma(b, s, a);
// fma(w, b - a, a) for |w| < 0.5, else fma(w - 1, b - a, b)); `a.addcmul(b, c, value=s)` is
// fma(s * b, c, a); `a.addcdiv(b, c, value=s)` is a + (s * b) / c; `mul_`, `sqrt`, division by a
// Python number and `add_(eps)` round each. Python numbers are cast to the tensor's dtype first,
// as torch does. So this file spells every fused multiply-add as std::fma and turns off the
// compiler's own contraction (fp-contract=off), which would otherwise fuse `buf * m + x` in the
// AVX2 clone where torch rounds the product.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#endif
#include "kernels/optim.h"

#include <cmath>
#include <string>

#include "kernels/loops.h"
#include "tensor/errors.h"

namespace tg::kernel {
namespace {

template <class T>
TG_INLINE T lerp(T self, T end, T w,
                 bool small) {  // torch's lerp, vectorised form; small: |w| < 0.5
  return small ? std::fma(w, end - self, self) : std::fma(w - T(1), end - self, end);
}

template <class T>
TG_INLINE T maximum(T a, T b) {  // torch.maximum: NaN wins
  return (a != a || a > b) ? a : b;
}

// Note [Options as template flags]
// Each loop is instantiated per combination of its options (the F bits below), so that no
// branch is left in the loop and GCC vectorises it; `maximize` is a multiplication by -1
// (exact). The TG_FLAGS_* macros turn the runtime combination into the instantiation.
#define TG_FLAGS_2(CALL) \
  switch (flags) {       \
    case 0:              \
      CALL(0);           \
      break;             \
    default:             \
      CALL(1);           \
      break;             \
  }
#define TG_FLAGS_8(CALL) \
  switch (flags) {       \
    case 0:              \
      CALL(0);           \
      break;             \
    case 1:              \
      CALL(1);           \
      break;             \
    case 2:              \
      CALL(2);           \
      break;             \
    case 3:              \
      CALL(3);           \
      break;             \
    case 4:              \
      CALL(4);           \
      break;             \
    case 5:              \
      CALL(5);           \
      break;             \
    case 6:              \
      CALL(6);           \
      break;             \
    default:             \
      CALL(7);           \
      break;             \
  }
#define TG_FLAGS_16(CALL) \
  switch (flags) {        \
    case 0:               \
      CALL(0);            \
      break;              \
    case 1:               \
      CALL(1);            \
      break;              \
    case 2:               \
      CALL(2);            \
      break;              \
    case 3:               \
      CALL(3);            \
      break;              \
    case 4:               \
      CALL(4);            \
      break;              \
    case 5:               \
      CALL(5);            \
      break;              \
    case 6:               \
      CALL(6);            \
      break;              \
    case 7:               \
      CALL(7);            \
      break;              \
    case 8:               \
      CALL(8);            \
      break;              \
    case 9:               \
      CALL(9);            \
      break;              \
    case 10:              \
      CALL(10);           \
      break;              \
    case 11:              \
      CALL(11);           \
      break;              \
    case 12:              \
      CALL(12);           \
      break;              \
    case 13:              \
      CALL(13);           \
      break;              \
    case 14:              \
      CALL(14);           \
      break;              \
    default:              \
      CALL(15);           \
      break;              \
  }

constexpr unsigned kDecay = 1;  // every optimizer: weight decay added to the gradient (or AdamW's)

// The per-dtype scalars of one step, cast once (Python numbers take the tensor's dtype).
template <class T>
struct SgdScalars {
  T sign, neg_lr, momentum, one_minus_dampening, weight_decay;
};
constexpr unsigned kSgdMomentum = 2, kSgdNesterov = 4, kSgdFirst = 8;

template <class T, unsigned F>
TG_INLINE void sgd_loop(T* __restrict p, const T* __restrict g, T* __restrict buf, int64_t n,
                        const SgdScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    T d = g[i] * s.sign;
    if constexpr (F & kDecay) d = std::fma(p[i], s.weight_decay, d);
    if constexpr (F & kSgdMomentum) {
      T b;
      if constexpr (F & kSgdFirst)
        b = d;  // torch starts the buffer at the first direction
      else
        b = std::fma(d, s.one_minus_dampening, buf[i] * s.momentum);
      buf[i] = b;
      if constexpr (F & kSgdNesterov)
        d = std::fma(b, s.momentum, d);
      else
        d = b;
    }
    p[i] = std::fma(d, s.neg_lr, p[i]);
  }
}

template <class T>
struct AdamScalars {
  T sign, one_minus_beta1, beta2, one_minus_beta2, eps, weight_decay, decay_factor, neg_step_size,
      bc2_sqrt;
  bool lerp_small;
};
constexpr unsigned kAdamDecoupled = 2, kAdamAmsgrad = 4;

template <class T, unsigned F>
TG_INLINE void adam_loop(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                         T* __restrict vmax, int64_t n, const AdamScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i] * s.sign;
    T pi = p[i];
    if constexpr ((F & kDecay) && (F & kAdamDecoupled))
      pi = pi * s.decay_factor;
    else if constexpr (F & kDecay)
      gi = std::fma(pi, s.weight_decay, gi);
    const T mi = lerp(m[i], gi, s.one_minus_beta1, s.lerp_small);
    const T vi = std::fma(s.one_minus_beta2 * gi, gi, v[i] * s.beta2);
    m[i] = mi;
    v[i] = vi;
    T src = vi;
    if constexpr (F & kAdamAmsgrad) {
      src = maximum(vmax[i], vi);
      vmax[i] = src;
    }
    const T denom = std::sqrt(src) / s.bc2_sqrt + s.eps;
    p[i] = pi + (s.neg_step_size * mi) / denom;
  }
}

template <class T>
struct RmspropScalars {
  T sign, neg_lr, alpha, one_minus_alpha, eps, weight_decay, momentum;
  bool lerp_small;
};
constexpr unsigned kRmsCentered = 2, kRmsMomentum = 4;

template <class T, unsigned F>
TG_INLINE void rmsprop_loop(T* __restrict p, const T* __restrict g, T* __restrict sq,
                            T* __restrict ga, T* __restrict buf, int64_t n,
                            const RmspropScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i] * s.sign;
    if constexpr (F & kDecay) gi = std::fma(p[i], s.weight_decay, gi);
    const T sqi = std::fma(s.one_minus_alpha * gi, gi, sq[i] * s.alpha);
    sq[i] = sqi;
    T avg;
    if constexpr (F & kRmsCentered) {
      const T gai = lerp(ga[i], gi, s.one_minus_alpha, s.lerp_small);
      ga[i] = gai;
      avg = std::sqrt(std::fma(-gai, gai, sqi));
    } else {
      avg = std::sqrt(sqi);
    }
    avg = avg + s.eps;
    if constexpr (F & kRmsMomentum) {
      const T b = buf[i] * s.momentum + gi / avg;
      buf[i] = b;
      p[i] = std::fma(b, s.neg_lr, p[i]);
    } else {
      p[i] = p[i] + (s.neg_lr * gi) / avg;
    }
  }
}

template <class T>
struct AdagradScalars {
  T sign, neg_clr, eps, weight_decay;
};

template <class T, unsigned F>
TG_INLINE void adagrad_loop(T* __restrict p, const T* __restrict g, T* __restrict sum, int64_t n,
                            const AdagradScalars<T> s) {
  for (int64_t i = 0; i < n; ++i) {
    T gi = g[i] * s.sign;
    if constexpr (F & kDecay) gi = std::fma(p[i], s.weight_decay, gi);
    const T si = std::fma(gi, gi, sum[i]);
    sum[i] = si;
    p[i] = p[i] + (s.neg_clr * gi) / (std::sqrt(si) + s.eps);
  }
}

// Non-template entry points, so that GCC clones them per target (Note [SIMD clones] in
// unary.cpp): the x86-64-v3 clone has a hardware fma and vectorises.
#define TG_SGD(F) sgd_loop<T, F>(p, g, b, n, s)
#define TG_ADAM(F) adam_loop<T, F>(p, g, m, v, vmax, n, s)
#define TG_RMS(F) rmsprop_loop<T, F>(p, g, sq, ga, b, n, s)
#define TG_ADAGRAD(F) adagrad_loop<T, F>(p, g, sum, n, s)
#define TG_ENTRY_POINTS(TYPE, SUFFIX)                                                             \
  TG_CLONES void sgd_##SUFFIX(TYPE* p, const TYPE* g, TYPE* b, int64_t n, unsigned flags,         \
                              const SgdScalars<TYPE>& s) {                                        \
    using T = TYPE;                                                                               \
    TG_FLAGS_16(TG_SGD)                                                                           \
  }                                                                                               \
  TG_CLONES void adam_##SUFFIX(TYPE* p, const TYPE* g, TYPE* m, TYPE* v, TYPE* vmax, int64_t n,   \
                               unsigned flags, const AdamScalars<TYPE>& s) {                      \
    using T = TYPE;                                                                               \
    TG_FLAGS_8(TG_ADAM)                                                                           \
  }                                                                                               \
  TG_CLONES void rmsprop_##SUFFIX(TYPE* p, const TYPE* g, TYPE* sq, TYPE* ga, TYPE* b, int64_t n, \
                                  unsigned flags, const RmspropScalars<TYPE>& s) {                \
    using T = TYPE;                                                                               \
    TG_FLAGS_8(TG_RMS)                                                                            \
  }                                                                                               \
  TG_CLONES void adagrad_##SUFFIX(TYPE* p, const TYPE* g, TYPE* sum, int64_t n, unsigned flags,   \
                                  const AdagradScalars<TYPE>& s) {                                \
    using T = TYPE;                                                                               \
    TG_FLAGS_2(TG_ADAGRAD)                                                                        \
  }
TG_ENTRY_POINTS(float, f32)
TG_ENTRY_POINTS(double, f64)
#undef TG_ENTRY_POINTS

// Checks that `list` has one tensor per parameter (or none, when `optional`), each defined,
// contiguous, of the parameter's dtype and numel.
void check_list(const char* op, const char* what, const std::vector<Tensor>& params,
                const std::vector<Tensor>& list, bool optional) {
  if (optional && list.empty()) return;
  if (list.size() != params.size())
    throw ValueError(std::string(op) + ": expected " + std::to_string(params.size()) + " " + what +
                     ", got " + std::to_string(list.size()));
  for (size_t i = 0; i < list.size(); ++i) {
    const Tensor& p = params[i];
    const Tensor& t = list[i];
    p.check_defined(op);
    t.check_defined(op);
    if (p.dtype() != DType::Float32 && p.dtype() != DType::Float64)
      throw ValueError(std::string(op) + ": parameter " + std::to_string(i) + " has dtype " +
                       dtype_name(p.dtype()) + " (expected float32 or float64)");
    if (t.dtype() != p.dtype() || t.numel() != p.numel() || !t.is_contiguous() ||
        !p.is_contiguous())
      throw ValueError(std::string(op) + ": " + what + " " + std::to_string(i) +
                       " must be a contiguous tensor of its parameter's dtype and size (" +
                       dtype_name(p.dtype()) + ", " + std::to_string(p.numel()) +
                       " elements), got " + dtype_name(t.dtype()) + ", " +
                       std::to_string(t.numel()) + " elements" +
                       (t.is_contiguous() ? "" : ", non-contiguous"));
  }
}

template <class T>
T* data(std::vector<Tensor>& list, size_t i) {  // nullptr for an unused (empty) state list
  return list.empty() ? nullptr : list[i].data<T>();
}

void bump(std::vector<Tensor>& list, size_t i) {
  if (!list.empty()) list[i].bump_version();
}

}  // namespace

void sgd_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               std::vector<Tensor>& bufs, const std::vector<bool>& first, double lr,
               double momentum, double dampening, double weight_decay, bool nesterov,
               bool maximize) {
  const char* op = "sgd_step_";
  check_list(op, "grads", params, grads, false);
  check_list(op, "momentum buffers", params, bufs, momentum == 0);
  if (momentum != 0 && first.size() != params.size())
    throw ValueError("sgd_step_: expected one `first` flag per parameter");
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t n = params[i].numel();
    const unsigned flags =
        (weight_decay != 0 ? kDecay : 0) |
        (momentum != 0 ? kSgdMomentum | (nesterov ? kSgdNesterov : 0) | (first[i] ? kSgdFirst : 0)
                       : 0);
    const double sign = maximize ? -1.0 : 1.0;
    if (params[i].dtype() == DType::Float32) {
      const SgdScalars<float> s{float(sign), float(-lr), float(momentum), float(1.0 - dampening),
                                float(weight_decay)};
      sgd_f32(params[i].data<float>(), grads[i].data<float>(), data<float>(bufs, i), n, flags, s);
    } else {
      const SgdScalars<double> s{sign, -lr, momentum, 1.0 - dampening, weight_decay};
      sgd_f64(params[i].data<double>(), grads[i].data<double>(), data<double>(bufs, i), n, flags,
              s);
    }
    params[i].bump_version();
    bump(bufs, i);
  }
}

void adam_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<Tensor>& exp_avgs, std::vector<Tensor>& exp_avg_sqs,
                std::vector<Tensor>& max_exp_avg_sqs, const std::vector<double>& step_sizes,
                const std::vector<double>& bc2_sqrts, double lr, double beta1, double beta2,
                double eps, double weight_decay, bool decoupled, bool amsgrad, bool maximize) {
  const char* op = "adam_step_";
  check_list(op, "grads", params, grads, false);
  check_list(op, "exp_avgs", params, exp_avgs, false);
  check_list(op, "exp_avg_sqs", params, exp_avg_sqs, false);
  check_list(op, "max_exp_avg_sqs", params, max_exp_avg_sqs, !amsgrad);
  if (amsgrad && max_exp_avg_sqs.empty())
    throw ValueError("adam_step_: amsgrad needs max_exp_avg_sqs");
  if (step_sizes.size() != params.size() || bc2_sqrts.size() != params.size())
    throw ValueError("adam_step_: expected one step size and bias correction per parameter");
  const unsigned flags = (weight_decay != 0 ? kDecay : 0) | (decoupled ? kAdamDecoupled : 0) |
                         (amsgrad ? kAdamAmsgrad : 0);
  const double sign = maximize ? -1.0 : 1.0;
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t n = params[i].numel();
    if (params[i].dtype() == DType::Float32) {
      const float w = float(1.0 - beta1);
      const AdamScalars<float> s{float(sign),
                                 w,
                                 float(beta2),
                                 float(1.0 - beta2),
                                 float(eps),
                                 float(weight_decay),
                                 float(1.0 - lr * weight_decay),
                                 float(-step_sizes[i]),
                                 float(bc2_sqrts[i]),
                                 std::fabs(w) < 0.5f};
      adam_f32(params[i].data<float>(), grads[i].data<float>(), exp_avgs[i].data<float>(),
               exp_avg_sqs[i].data<float>(), data<float>(max_exp_avg_sqs, i), n, flags, s);
    } else {
      const double w = 1.0 - beta1;
      const AdamScalars<double> s{sign,
                                  w,
                                  beta2,
                                  1.0 - beta2,
                                  eps,
                                  weight_decay,
                                  1.0 - lr * weight_decay,
                                  -step_sizes[i],
                                  bc2_sqrts[i],
                                  std::fabs(w) < 0.5};
      adam_f64(params[i].data<double>(), grads[i].data<double>(), exp_avgs[i].data<double>(),
               exp_avg_sqs[i].data<double>(), data<double>(max_exp_avg_sqs, i), n, flags, s);
    }
    params[i].bump_version();
    exp_avgs[i].bump_version();
    exp_avg_sqs[i].bump_version();
    bump(max_exp_avg_sqs, i);
  }
}

void rmsprop_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   std::vector<Tensor>& square_avgs, std::vector<Tensor>& grad_avgs,
                   std::vector<Tensor>& bufs, double lr, double alpha, double eps,
                   double weight_decay, double momentum, bool centered, bool maximize) {
  const char* op = "rmsprop_step_";
  check_list(op, "grads", params, grads, false);
  check_list(op, "square_avgs", params, square_avgs, false);
  check_list(op, "grad_avgs", params, grad_avgs, !centered);
  check_list(op, "momentum buffers", params, bufs, !(momentum > 0));
  if ((centered && grad_avgs.empty()) || (momentum > 0 && bufs.empty()))
    throw ValueError("rmsprop_step_: centered needs grad_avgs and momentum needs momentum buffers");
  const unsigned flags = (weight_decay != 0 ? kDecay : 0) | (centered ? kRmsCentered : 0) |
                         (momentum > 0 ? kRmsMomentum : 0);
  const double sign = maximize ? -1.0 : 1.0;
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t n = params[i].numel();
    if (params[i].dtype() == DType::Float32) {
      const float w = float(1.0 - alpha);
      const RmspropScalars<float> s{
          float(sign), float(-lr),          float(alpha),    w,
          float(eps),  float(weight_decay), float(momentum), std::fabs(w) < 0.5f};
      rmsprop_f32(params[i].data<float>(), grads[i].data<float>(), square_avgs[i].data<float>(),
                  data<float>(grad_avgs, i), data<float>(bufs, i), n, flags, s);
    } else {
      const double w = 1.0 - alpha;
      const RmspropScalars<double> s{sign, -lr,          alpha,    w,
                                     eps,  weight_decay, momentum, std::fabs(w) < 0.5};
      rmsprop_f64(params[i].data<double>(), grads[i].data<double>(), square_avgs[i].data<double>(),
                  data<double>(grad_avgs, i), data<double>(bufs, i), n, flags, s);
    }
    params[i].bump_version();
    square_avgs[i].bump_version();
    bump(grad_avgs, i);
    bump(bufs, i);
  }
}

void adagrad_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   std::vector<Tensor>& sums, const std::vector<double>& clrs, double weight_decay,
                   double eps, bool maximize) {
  const char* op = "adagrad_step_";
  check_list(op, "grads", params, grads, false);
  check_list(op, "sums", params, sums, false);
  if (clrs.size() != params.size())
    throw ValueError("adagrad_step_: expected one learning rate per parameter");
  const unsigned flags = weight_decay != 0 ? kDecay : 0;
  const double sign = maximize ? -1.0 : 1.0;
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t n = params[i].numel();
    if (params[i].dtype() == DType::Float32) {
      const AdagradScalars<float> s{float(sign), float(-clrs[i]), float(eps), float(weight_decay)};
      adagrad_f32(params[i].data<float>(), grads[i].data<float>(), sums[i].data<float>(), n, flags,
                  s);
    } else {
      const AdagradScalars<double> s{sign, -clrs[i], eps, weight_decay};
      adagrad_f64(params[i].data<double>(), grads[i].data<double>(), sums[i].data<double>(), n,
                  flags, s);
    }
    params[i].bump_version();
    sums[i].bump_version();
  }
}

}  // namespace tg::kernel
