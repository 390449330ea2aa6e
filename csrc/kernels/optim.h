// Multi-tensor optimizer steps (csrc/kernels/optim.cpp): one call updates every parameter of a
// parameter group, in place, in torch's order of operations (Note [Optimizer steps in torch's
// order] in optim.cpp). The numpy twin is python/transgrad/reference/optim_kernels.py; the
// callers are the engine-neutral optimizers of python/transgrad/optim/.
//
// Every list holds one tensor per parameter (an empty list: that state is not used), all
// contiguous, of the parameter's dtype (float32 or float64) and numel; per-parameter scalars
// (bias corrections, Adagrad's decayed rate) come as lists of doubles. Each kernel bumps the
// version of every tensor it writes, as an in-place op does.
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace tg::kernel {

// SGD: d = grad (+ wd * p); with momentum, buf = d on a parameter's first step (`first`), else
// buf = momentum * buf + (1 - dampening) * d, and d = buf (or d + momentum * buf, nesterov);
// p -= lr * d.
void sgd_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               std::vector<Tensor>& bufs, const std::vector<bool>& first, double lr,
               double momentum, double dampening, double weight_decay, bool nesterov,
               bool maximize);

// Adam / AdamW (decoupled): step_sizes[i] = lr / (1 - beta1^t), bc2_sqrts[i] = sqrt(1 - beta2^t).
void adam_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                std::vector<Tensor>& exp_avgs, std::vector<Tensor>& exp_avg_sqs,
                std::vector<Tensor>& max_exp_avg_sqs, const std::vector<double>& step_sizes,
                const std::vector<double>& bc2_sqrts, double lr, double beta1, double beta2,
                double eps, double weight_decay, bool decoupled, bool amsgrad, bool maximize);

// RMSprop: grad_avgs when centered, bufs when momentum > 0 (else empty lists).
void rmsprop_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   std::vector<Tensor>& square_avgs, std::vector<Tensor>& grad_avgs,
                   std::vector<Tensor>& bufs, double lr, double alpha, double eps,
                   double weight_decay, double momentum, bool centered, bool maximize);

// Adagrad: clrs[i] = lr / (1 + (t - 1) * lr_decay).
void adagrad_step_(std::vector<Tensor>& params, const std::vector<Tensor>& grads,
                   std::vector<Tensor>& sums, const std::vector<double>& clrs, double weight_decay,
                   double eps, bool maximize);

}  // namespace tg::kernel
