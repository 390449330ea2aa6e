"""Formulas imported from PyTorch's derivatives.yaml by ``python -m translator import-yaml``.

Each formula names the yaml entry it came from. Real dtypes only: ``.conj()`` and
``handle_r_to_c`` are the identity (Note [Real dtypes only] in translator/import_rewrite.py).
"""

import math

from transgrad.lang import (B, Dims, DType, I, Optional, Scalar, Sequence, Shape, T, Tensor,
                            case, formula, helper, kernel, ops, samples)

# ---------------------------------------------------------------------------------------------
# Helpers (from translator/torch_helpers.py)


@helper
def wrap_dims(dims: Optional[Dims], ndim: int) -> Dims:
    """``dims`` with negative entries wrapped; every dim when None or empty (torch's rule for
    ``int[1]? dim`` of reductions)."""
    out = ()
    if dims is None or len(dims) == 0:
        for i in range(ndim):
            out = out + (i,)
        return out
    for d in dims:
        out = out + ((d + ndim if d < 0 else d),)
    return out


@helper
def kept_shape(sizes: Shape, dims: Dims) -> Shape:
    """``sizes`` with each (wrapped) dim of ``dims`` set to 1."""
    out = ()
    for i in range(len(sizes)):
        size = sizes[i]
        for d in dims:
            if d == i:
                size = 1
        out = out + (size,)
    return out


@helper
def sum_backward(grad: Tensor, sizes: Shape, dims: Optional[Dims], keepdim: bool) -> Tensor:
    """The gradient of a sum over ``dims`` of a tensor of ``sizes``: unsqueeze, then expand."""
    kept = kept_shape(sizes, wrap_dims(dims, len(sizes)))
    return ops.expand(ops.reshape(grad, kept), sizes)


@helper
def restore_reduced_dims(output: Tensor, dims: Dims, keepdim: bool) -> Tensor:
    """``output`` of a reduction over ``dims`` with the reduced dims back as size 1."""
    if keepdim:
        return output
    ndim = output.ndim + len(dims)
    wrapped = wrap_dims(dims, ndim) if len(dims) > 0 else ()
    shape = ()
    j = 0
    for i in range(ndim):
        reduced = False
        for d in wrapped:
            if d == i:
                reduced = True
        if reduced:
            shape = shape + (1,)
        else:
            shape = shape + (output.shape[j],)
            j = j + 1
    return ops.reshape(output, shape)


@helper
def scale_grad_by_count(grad: Tensor, mask: Tensor, dims: Dims) -> Tensor:
    """``grad`` split evenly among the ``mask``ed elements of each reduced slice (amax, amin)."""
    m = ops.cast(mask, grad.dtype)
    return grad / ops.sum(m, wrap_dims(dims, m.ndim), True) * m


@helper
def value_selecting_reduction_backward(grad: Tensor, dim: int, indices: Tensor, sizes: Shape,
                                       keepdim: bool) -> Tensor:
    """The gradient of values picked along ``dim`` at ``indices`` (max.dim, sort, topk): each
    gradient scattered back to where its value came from."""
    kept = kept_shape(sizes, wrap_dims((dim,), len(sizes)))
    if keepdim:
        return ops.scatter_add(ops.zeros(sizes, grad.dtype), dim, indices, grad)
    return ops.scatter_add(ops.zeros(sizes, grad.dtype), dim, ops.reshape(indices, kept),
                           ops.reshape(grad, kept))


@helper
def evenly_distribute_backward(grad: Tensor, input: Tensor, value: Tensor) -> Tensor:
    m = ops.cast(input == value, grad.dtype)
    return m * (grad / ops.sum(m))


@helper
def logsumexp_backward(grad: Tensor, self: Tensor, result: Tensor, dims: Dims,
                       keepdim: bool) -> Tensor:
    kept = kept_shape(self.shape, wrap_dims(dims, self.ndim))
    return ops.reshape(grad, kept) * ops.exp(self - ops.reshape(result, kept))


@helper
def mean_backward(grad: Tensor, sizes: Shape, dims: Optional[Dims], numel: int,
                  keepdim: bool) -> Tensor:
    """``sum_backward`` divided by how many elements each output element averages."""
    count = 1
    for d in wrap_dims(dims, len(sizes)):
        count = count * sizes[d]
    return sum_backward(grad, sizes, dims, keepdim) / count


@helper
def permute_backwards(grad: Tensor, fwd_dims: Dims) -> Tensor:
    """``grad`` permuted back by the inverse of ``fwd_dims``."""
    ndim = len(fwd_dims)
    inverse = ()
    for i in range(ndim):
        for j in range(ndim):
            if (fwd_dims[j] + ndim if fwd_dims[j] < 0 else fwd_dims[j]) == i:
                inverse = inverse + (j,)
    return ops.permute(grad, inverse)


@helper
def unsqueeze_to(grad: Tensor, dim: int, sizes: Shape) -> Tensor:
    """``grad`` of ``squeeze(dim)`` back to ``sizes`` (a no-op when that dim was not 1)."""
    d = dim + len(sizes) if dim < 0 else dim
    if len(sizes) > 0 and sizes[d] == 1:
        return ops.unsqueeze(grad, d)
    return grad


@helper
def select_backward(grad: Tensor, sizes: Shape, dim: int, index: int) -> Tensor:
    return ops.select_scatter(ops.zeros(sizes, grad.dtype), grad, dim, index)


@helper
def slice_backward_wrapper(grad: Tensor, sizes: Shape, dim: int, start: Optional[int],
                           end: Optional[int], step: int) -> Tensor:
    return ops.slice_scatter(ops.zeros(sizes, grad.dtype), grad, dim, start, end, step)


@helper
def diagonal_backward(grad: Tensor, sizes: Shape, offset: int, dim1: int, dim2: int) -> Tensor:
    return ops.diagonal_scatter(ops.zeros(sizes, grad.dtype), grad, offset, dim1, dim2)


@helper
def index_select_backward(grad: Tensor, sizes: Shape, dim: int, index: Tensor) -> Tensor:
    return ops.index_add(ops.zeros(sizes, grad.dtype), dim, index, grad)


@helper
def gather_backward(grad: Tensor, self: Tensor, dim: int, index: Tensor,
                    sparse_grad: bool) -> Tensor:
    return ops.scatter_add(ops.zeros_like(self), dim, index, grad)


@helper
def trace_backward(grad: Tensor, sizes: Shape) -> Tensor:
    n = min(sizes[0], sizes[1])
    return ops.diagonal_scatter(ops.zeros(sizes, grad.dtype), ops.expand(grad, (n,)), 0, 0, 1)


@helper
def cumsum_backward(grad: Tensor, dim: int) -> Tensor:
    """The reversed cumulative sum of ``grad`` along ``dim``."""
    return ops.flip(ops.cumsum(ops.flip(grad, (dim,)), dim), (dim,))


@helper
def constant_pad_nd_backward(grad: Tensor, pad: Shape) -> Tensor:
    crop = ()
    for p in pad:
        crop = crop + (-p,)
    return ops.pad(grad, crop, 0.0)


@helper
def masked_fill_backward(grad: Tensor, mask: Tensor) -> Tensor:
    return ops.sum(grad * ops.cast(mask, grad.dtype))


@helper
def reduced_count(sizes: Shape, dims: Dims) -> int:
    """How many elements each output element of a reduction over (wrapped) ``dims`` combines."""
    n = 1
    for d in dims:
        n = n * sizes[d]
    return n


@helper
def at_var(self: Tensor, dims: Optional[Dims], correction: Optional[float],
           keepdim: bool) -> Tensor:
    """torch's ``var(dim, correction=, keepdim=)``: squared deviations summed over ``dims``,
    divided by their count less ``correction`` (1 when None)."""
    rd = wrap_dims(dims, self.ndim)
    n = reduced_count(self.shape, rd)
    c = 1.0 if correction is None else correction
    d = self - ops.sum(self, rd, True) / n
    return ops.sum(d * d, rd, keepdim) / (n - c)


@helper
def var_backward(grad: Tensor, self: Tensor, dims: Optional[Dims], correction: Optional[float],
                 keepdim: bool) -> Tensor:
    rd = wrap_dims(dims, self.ndim)
    n = reduced_count(self.shape, rd)
    c = 1.0 if correction is None else correction
    g = ops.reshape(grad, kept_shape(self.shape, rd))
    return g * (self - ops.sum(self, rd, True) / n) * (2.0 / (n - c))


@helper
def std_backward(result: Tensor, grad: Tensor, self: Tensor, dims: Optional[Dims],
                 correction: Optional[float], keepdim: bool) -> Tensor:
    """``var_backward`` of ``grad / (2 std)``, zero where the deviation is 0 (as torch)."""
    scaled = ops.masked_fill(grad / (result * 2.0), result == 0.0, 0.0)
    return var_backward(scaled, self, dims, correction, keepdim)


@helper
def maybe_multiply(t: Tensor, s: Scalar) -> Tensor:
    """``t * s``, skipping the multiplication when ``s`` is 1."""
    return t if s == 1 else t * s


@helper
def mul_tensor_backward(grad: Tensor, other: Tensor, self_st: DType) -> Tensor:
    return grad * other


@helper
def div_tensor_self_backward(grad: Tensor, other: Tensor, self_st: DType) -> Tensor:
    return grad / other


@helper
def div_tensor_other_backward(grad: Tensor, self: Tensor, other: Tensor) -> Tensor:
    return -grad * (self / other) / other


@helper
def mm_mat1_backward(grad: Tensor, mat2: Tensor, sizes: Shape, strides: Optional[int],
                     layout: Optional[int], alpha: Scalar) -> Tensor:
    return maybe_multiply(ops.matmul(grad, ops.transpose(mat2, -2, -1)), alpha)


@helper
def mm_mat2_backward(grad: Tensor, mat1: Tensor, sizes: Shape, strides: Optional[int],
                     layout: Optional[int], alpha: Scalar) -> Tensor:
    return maybe_multiply(ops.matmul(ops.transpose(mat1, -2, -1), grad), alpha)


@helper
def pow_backward(grad: Tensor, self: Tensor, exponent: Scalar) -> Tensor:
    if exponent == 0.0:
        return ops.zeros_like(self)
    return grad * (ops.pow_scalar(self, exponent - 1.0) * exponent)


@helper
def pow_backward_self(grad: Tensor, self: Tensor, exponent: Tensor) -> Tensor:
    """``grad * exponent * self^(exponent-1)``, zero where the exponent is 0 (as torch)."""
    nonzero = ops.cast(exponent != 0.0, grad.dtype)
    return grad * (exponent * ops.pow(self, exponent - nonzero)) * nonzero


@helper
def pow_backward_exponent(grad: Tensor, self: Tensor, exponent: Tensor, result: Tensor) -> Tensor:
    """``grad * result * log(self)``, zero where ``self == 0`` and ``exponent >= 0`` (as torch:
    the limit of ``0^e log 0``); the log reads 1 there so no nan leaks into the product."""
    at_zero = ops.cast(self == 0.0, grad.dtype) * ops.cast(exponent >= 0.0, grad.dtype)
    safe = self + at_zero
    return grad * (result * ops.log(safe)) * (1.0 - at_zero)


@helper
def log1p_backward(grad: Tensor, self: Tensor) -> Tensor:
    return grad / (self + 1.0)


@helper
def deg2rad_backward(grad: Tensor) -> Tensor:
    return grad * (math.pi / 180.0)


@helper
def rad2deg_backward(grad: Tensor) -> Tensor:
    return grad * (180.0 / math.pi)


@helper
def at__softmax_backward_data(grad: Tensor, output: Tensor, dim: int, input_dtype: DType) -> Tensor:
    return output * (grad - ops.sum(grad * output, (dim,), True))


@helper
def at__log_softmax_backward_data(grad: Tensor, output: Tensor, dim: int,
                               input_dtype: DType) -> Tensor:
    return grad - ops.exp(output) * ops.sum(grad, (dim,), True)


@helper
def at_hardsigmoid_backward(grad: Tensor, self: Tensor) -> Tensor:
    inside = ops.cast(self > -3.0, grad.dtype) * ops.cast(self < 3.0, grad.dtype)
    return grad * inside / 6.0


@helper
def elu_backward(grad: Tensor, alpha: Scalar, scale: Scalar, input_scale: Scalar,
                 is_result: bool, self_or_result: Tensor) -> Tensor:
    """torch's elu_backward: from the input, or (``is_result``) from the output."""
    positive = ops.cast(self_or_result > 0.0, grad.dtype)
    if is_result:
        negative = (self_or_result + alpha * scale) * input_scale
    else:
        negative = ops.exp(self_or_result * input_scale) * (alpha * scale * input_scale)
    return grad * (positive * scale + (1.0 - positive) * negative)


@helper
def at_sigmoid_backward(grad: Tensor, output: Tensor) -> Tensor:
    return grad * output * (1.0 - output)


@helper
def at_tanh_backward(grad: Tensor, output: Tensor) -> Tensor:
    return grad * (1.0 - output * output)


@helper
def at_threshold_backward(grad: Tensor, self: Tensor, threshold: Scalar) -> Tensor:
    return grad * ops.cast(self > threshold, grad.dtype)


@helper
def at_leaky_relu_backward(grad: Tensor, self: Tensor, negative_slope: Scalar,
                        self_is_result: bool) -> Tensor:
    positive = ops.cast(self > 0.0, grad.dtype)
    return grad * (positive + (1.0 - positive) * negative_slope)


@helper
def at_hardtanh_backward(grad: Tensor, self: Tensor, min_val: Scalar, max_val: Scalar) -> Tensor:
    inside = ops.cast(self > min_val, grad.dtype) * ops.cast(self < max_val, grad.dtype)
    return grad * inside


@helper
def at_hardshrink_backward(grad: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    outside = ops.cast(self > lambd, grad.dtype) + ops.cast(self < -lambd, grad.dtype)
    return grad * outside


@helper
def at_softshrink_backward(grad: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    return at_hardshrink_backward(grad, self, lambd)


@helper
def at_softplus_backward(grad: Tensor, self: Tensor, beta: Scalar, threshold: Scalar) -> Tensor:
    """``grad * sigmoid(beta x)``, and ``grad`` where ``beta x > threshold`` (the linear part)."""
    linear = ops.cast(self * beta > threshold, grad.dtype)
    return grad * (linear + (1.0 - linear) * ops.sigmoid(self * beta))


@helper
def clamp_backward(grad: Tensor, self: Tensor, min: Optional[Scalar],
                   max: Optional[Scalar]) -> Tensor:
    """``grad`` where ``min <= self <= max`` (each bound optional), else 0."""
    inside = ops.ones_like(grad)
    if min is not None:
        inside = inside * ops.cast(self >= min, grad.dtype)
    if max is not None:
        inside = inside * ops.cast(self <= max, grad.dtype)
    return grad * inside


@helper
def sgn_backward(self: Tensor, grad: Tensor, result: Tensor) -> Tensor:
    """Real inputs: sign is flat wherever it is differentiable."""
    return ops.zeros_like(grad)


@helper
def at_hardswish_backward(grad: Tensor, self: Tensor) -> Tensor:
    """d/dx of ``x * clamp(x + 3, 0, 6) / 6``: 0 below -3, ``x / 3 + 1/2`` up to 3, then 1."""
    low = ops.cast(self >= -3.0, grad.dtype)
    high = ops.cast(self > 3.0, grad.dtype)
    return grad * (low * (1.0 - high) * (self / 3.0 + 0.5) + high)


@helper
def apply_loss_reduction(loss: Tensor, reduction: int) -> Tensor:
    """torch's ``Reduction``: 0 none, 1 mean, 2 sum."""
    if reduction == 1:
        return ops.mean(loss)
    if reduction == 2:
        return ops.sum(loss)
    return loss


@helper
def loss_scale(self: Tensor, reduction: int) -> float:
    """What a mean reduction divides each element's gradient by."""
    return 1.0 / self.numel if reduction == 1 else 1.0


@helper
def at_smooth_l1_loss_backward(grad: Tensor, self: Tensor, target: Tensor, reduction: int,
                               beta: float) -> Tensor:
    d = self - target
    inside = ops.cast(ops.abs(d) < beta, grad.dtype)
    slope = inside * d / beta + (1.0 - inside) * ops.sign(d)
    return grad * slope * loss_scale(self, reduction)


@helper
def at_huber_loss_backward(grad: Tensor, self: Tensor, target: Tensor, reduction: int,
                           delta: float) -> Tensor:
    d = self - target
    inside = ops.cast(ops.abs(d) <= delta, grad.dtype)
    slope = inside * d + (1.0 - inside) * ops.sign(d) * delta
    return grad * slope * loss_scale(self, reduction)


@helper
def at_soft_margin_loss_backward(grad: Tensor, self: Tensor, target: Tensor,
                                 reduction: int) -> Tensor:
    """d/dx of ``log(1 + exp(-y x))``: ``-y sigmoid(-y x)``."""
    return grad * (-target * ops.sigmoid(-target * self)) * loss_scale(self, reduction)


@helper
def at_mse_loss_backward(grad: Tensor, self: Tensor, target: Tensor, reduction: int) -> Tensor:
    scale = 2.0 / self.numel if reduction == 1 else 2.0
    return grad * (self - target) * scale


@helper
def at_cosh(x: Tensor) -> Tensor:
    return (ops.exp(x) + ops.exp(-x)) * 0.5


@helper
def at_sinh(x: Tensor) -> Tensor:
    return (ops.exp(x) - ops.exp(-x)) * 0.5


@helper
def at_ger(a: Tensor, b: Tensor) -> Tensor:
    return ops.unsqueeze(a, 1) * b

# ---------------------------------------------------------------------------------------------
# Formulas



# derivatives.yaml: abs(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_abs(self: Tensor) -> Tensor:
    result = kernel.abs(self)

    def backward(grad):
        # self: grad * self.sgn()
        return grad * ops.sign(self)

    return result, backward



# derivatives.yaml: acos(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_acos(self: Tensor) -> Tensor:
    result = kernel.acos(self)

    def backward(grad):
        # self: grad * -((-self * self + 1).rsqrt()).conj()
        return grad * (-ops.rsqrt(((-self) * self) + 1))

    return result, backward



# derivatives.yaml: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4), T(4), alpha=2.0))
@formula
def yaml_add_tensor(self: Tensor, other: Tensor, alpha: Scalar = 1) -> Tensor:
    result = self + other * alpha

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), grad)
        # other: handle_r_to_c(other.scalar_type(), maybe_multiply(grad, alpha.conj()))
        return grad, maybe_multiply(grad, alpha)

    return result, backward



# derivatives.yaml: add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_add_scalar(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    result = self + other * alpha

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), grad)
        return grad

    return result, backward



# derivatives.yaml: addbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
@samples(case(T(3, 5), T(2, 3, 4), T(2, 4, 5), beta=0.5, alpha=2.0))
@formula
def yaml_addbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    result = self * beta + ops.sum(kernel.matmul(batch1, batch2), (0,)) * alpha

    def backward(grad):
        # self: maybe_multiply(grad, beta.conj())
        # batch1: maybe_multiply(grad.unsqueeze(0).expand_symint({ batch1.sym_size(0), batch1.sym_size(1), batch2.sym_size(2) }).bmm(batch2.transpose(1, 2).conj()), alpha.conj())
        # batch2: maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad.unsqueeze(0).expand_symint({ batch1.sym_size(0), batch1.sym_size(1), batch2.sym_size(2) })), alpha.conj())
        return maybe_multiply(grad, beta), maybe_multiply(ops.matmul(ops.expand(ops.unsqueeze(grad, 0), (batch1.shape[0], batch1.shape[1], batch2.shape[2],)), ops.transpose(batch2, 1, 2)), alpha), maybe_multiply(ops.matmul(ops.transpose(batch1, 1, 2), ops.expand(ops.unsqueeze(grad, 0), (batch1.shape[0], batch1.shape[1], batch2.shape[2],))), alpha)

    return result, backward



# derivatives.yaml: addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0), T(3, 4, low=0.5, high=2.0), T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_addcdiv(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Scalar = 1) -> Tensor:
    result = self + tensor1 / tensor2 * value

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), grad)
        # tensor1: handle_r_to_c(tensor1.scalar_type(), grad * (value / tensor2).conj())
        # tensor2: handle_r_to_c(tensor2.scalar_type(), -grad * (value * tensor1 / (tensor2 * tensor2)).conj())
        return grad, grad * (value / tensor2), (-grad) * ((value * tensor1) / (tensor2 * tensor2))

    return result, backward



# derivatives.yaml: addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_addcmul(self: Tensor, tensor1: Tensor, tensor2: Tensor, value: Scalar = 1) -> Tensor:
    result = self + tensor1 * tensor2 * value

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), grad)
        # tensor1: handle_r_to_c(tensor1.scalar_type(), grad * (tensor2 * value).conj())
        # tensor2: handle_r_to_c(tensor2.scalar_type(), grad * (tensor1 * value).conj())
        return grad, grad * (tensor2 * value), grad * (tensor1 * value)

    return result, backward



# derivatives.yaml: addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
@samples(case(T(3, 2), T(3, 4), T(4, 2), beta=0.5, alpha=2.0), case(T(2), T(3, 4), T(4, 2)))
@formula
def yaml_addmm(self: Tensor, mat1: Tensor, mat2: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    result = self * beta + kernel.matmul(mat1, mat2) * alpha

    def backward(grad):
        # self: maybe_multiply(grad, beta.conj())
        # mat1: mm_mat1_backward(grad, mat2, mat1.sym_sizes(), mat1.sym_strides(), mat1.layout(), alpha)
        # mat2: mm_mat2_backward(grad, mat1, mat2.sym_sizes(), mat2.sym_strides(), mat2.layout(), alpha)
        return maybe_multiply(grad, beta), mm_mat1_backward(grad, mat2, mat1.shape, None, None, alpha), mm_mat2_backward(grad, mat1, mat2.shape, None, None, alpha)

    return result, backward



# derivatives.yaml: addmv(Tensor self, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) -> Tensor
@samples(case(T(3), T(3, 4), T(4), beta=0.5, alpha=2.0))
@formula
def yaml_addmv(self: Tensor, mat: Tensor, vec: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    result = self * beta + ops.matmul(mat, vec) * alpha

    def backward(grad):
        # self: maybe_multiply(grad, beta.conj())
        # mat: maybe_multiply(grad.ger(vec.conj()), alpha.conj())
        # vec: maybe_multiply(mat.t().conj().mv(grad), alpha.conj())
        return maybe_multiply(grad, beta), maybe_multiply(at_ger(grad, vec), alpha), maybe_multiply(ops.matmul(ops.transpose(mat, -2, -1), grad), alpha)

    return result, backward



# derivatives.yaml: addr(Tensor self, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4), T(3), T(4), beta=0.5, alpha=2.0))
@formula
def yaml_addr(self: Tensor, vec1: Tensor, vec2: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    result = self * beta + ops.unsqueeze(vec1, 1) * vec2 * alpha

    def backward(grad):
        # self: maybe_multiply(grad, beta.conj())
        # vec1: maybe_multiply(grad.mv(vec2.conj()), alpha.conj())
        # vec2: maybe_multiply(grad.t().mv(vec1.conj()), alpha.conj())
        return maybe_multiply(grad, beta), maybe_multiply(ops.matmul(grad, vec2), alpha), maybe_multiply(ops.matmul(ops.transpose(grad, -2, -1), vec1), alpha)

    return result, backward



# derivatives.yaml: alias(Tensor(a) self) -> Tensor(a)
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_alias(self: Tensor) -> Tensor:
    result = kernel.reshape(self, self.shape)

    def backward(grad):
        # self: grad
        return grad

    return result, backward



# derivatives.yaml: acosh(Tensor self) -> Tensor
@samples(case(T(3, 4, low=1.5, high=3.0)))
@formula
def yaml_acosh(self: Tensor) -> Tensor:
    result = ops.log(self + ops.sqrt(self * self - 1.0))

    def backward(grad):
        # self: self.is_complex() ? grad * ((self + 1).rsqrt() * (self - 1).rsqrt()).conj() : grad * (self * self - 1).rsqrt()
        return grad * ops.rsqrt((self * self) - 1)

    return result, backward



# derivatives.yaml: asinh(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_asinh(self: Tensor) -> Tensor:
    result = ops.log(self + ops.sqrt(self * self + 1.0))

    def backward(grad):
        # self: grad * (self.pow(2) + 1).rsqrt().conj()
        return grad * ops.rsqrt(ops.pow_scalar(self, 2) + 1)

    return result, backward



# derivatives.yaml: atanh(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-0.8, high=0.8)))
@formula
def yaml_atanh(self: Tensor) -> Tensor:
    result = (ops.log1p(self) - ops.log1p(-self)) * 0.5

    def backward(grad):
        # self: grad * 1 / (1 - self.pow(2)).conj()
        return (grad * 1) / (1 - ops.pow_scalar(self, 2))

    return result, backward



# derivatives.yaml: asin(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_asin(self: Tensor) -> Tensor:
    result = kernel.asin(self)

    def backward(grad):
        # self: grad * (-self * self + 1).rsqrt().conj()
        return grad * ops.rsqrt(((-self) * self) + 1)

    return result, backward



# derivatives.yaml: atan(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_atan(self: Tensor) -> Tensor:
    result = kernel.atan(self)

    def backward(grad):
        # self: grad / (self * self + 1).conj()
        return grad / ((self * self) + 1)

    return result, backward



# derivatives.yaml: baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
@samples(case(T(2, 3, 5), T(2, 3, 4), T(2, 4, 5), beta=0.5, alpha=2.0))
@formula
def yaml_baddbmm(self: Tensor, batch1: Tensor, batch2: Tensor, beta: Scalar = 1, alpha: Scalar = 1) -> Tensor:
    result = self * beta + kernel.matmul(batch1, batch2) * alpha

    def backward(grad):
        # self: maybe_multiply(grad, beta.conj())
        # batch1: maybe_multiply(grad.bmm(batch2.transpose(1, 2).conj()), alpha.conj())
        # batch2: maybe_multiply(batch1.transpose(1, 2).conj().bmm(grad), alpha.conj())
        return maybe_multiply(grad, beta), maybe_multiply(ops.matmul(grad, ops.transpose(batch2, 1, 2)), alpha), maybe_multiply(ops.matmul(ops.transpose(batch1, 1, 2), grad), alpha)

    return result, backward



# derivatives.yaml: bmm(Tensor self, Tensor mat2) -> Tensor
@samples(case(T(2, 3, 4), T(2, 4, 5)))
@formula
def yaml_bmm(self: Tensor, mat2: Tensor) -> Tensor:
    result = kernel.matmul(self, mat2)

    def backward(grad):
        # self: grad.bmm(mat2.transpose(1, 2).conj())
        # mat2: self.transpose(1, 2).conj().bmm(grad)
        return ops.matmul(grad, ops.transpose(mat2, 1, 2)), ops.matmul(ops.transpose(self, 1, 2), grad)

    return result, backward



# derivatives.yaml: clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor
@samples(case(T(3, 4), -0.5, 0.5), case(T(3, 4), min=-0.3))
@formula
def yaml_clamp(self: Tensor, min: Optional[float] = None, max: Optional[float] = None) -> Tensor:
    result = kernel.clamp(self, min, max)

    def backward(grad):
        # self: clamp_backward(grad, self, min, max)
        return clamp_backward(grad, self, min, max)

    return result, backward



# derivatives.yaml: clamp_min(Tensor self, Scalar min) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_clamp_min(self: Tensor, min: Scalar) -> Tensor:
    result = kernel.clamp(self, min, None)

    def backward(grad):
        # self: where(self >= min, grad, at::scalar_tensor(0., grad.options()))
        return ops.where(self >= min, grad, ops.zeros((), grad.dtype) + 0.0)

    return result, backward



# derivatives.yaml: clamp_min.Tensor(Tensor self, Tensor min) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_clamp_min_tensor(self: Tensor, min: Tensor) -> Tensor:
    result = ops.maximum(self, min)

    def backward(grad):
        # self: where(self >= min, grad, at::scalar_tensor(0., grad.options()))
        # min: where(self < min, grad, at::scalar_tensor(0., grad.options()))
        return ops.where(self >= min, grad, ops.zeros((), grad.dtype) + 0.0), ops.where(self < min, grad, ops.zeros((), grad.dtype) + 0.0)

    return result, backward



# derivatives.yaml: clamp_max(Tensor self, Scalar max) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_clamp_max(self: Tensor, max: Scalar) -> Tensor:
    result = kernel.clamp(self, None, max)

    def backward(grad):
        # self: where(self <= max, grad, at::scalar_tensor(0., grad.options()))
        return ops.where(self <= max, grad, ops.zeros((), grad.dtype) + 0.0)

    return result, backward



# derivatives.yaml: clamp_max.Tensor(Tensor self, Tensor max) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_clamp_max_tensor(self: Tensor, max: Tensor) -> Tensor:
    result = ops.minimum(self, max)

    def backward(grad):
        # self: where(self <= max, grad, at::scalar_tensor(0., grad.options()))
        # max: where(self > max, grad, at::scalar_tensor(0., grad.options()))
        return ops.where(self <= max, grad, ops.zeros((), grad.dtype) + 0.0), ops.where(self > max, grad, ops.zeros((), grad.dtype) + 0.0)

    return result, backward



# derivatives.yaml: clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_clone(self: Tensor) -> Tensor:
    result = kernel.clone(self)

    def backward(grad):
        # self: grad
        return grad

    return result, backward



# derivatives.yaml: cos(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_cos(self: Tensor) -> Tensor:
    result = kernel.cos(self)

    def backward(grad):
        # self: grad * -self.sin().conj()
        return grad * (-ops.sin(self))

    return result, backward



# derivatives.yaml: cosh(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_cosh(self: Tensor) -> Tensor:
    result = (ops.exp(self) + ops.exp(-self)) * 0.5

    def backward(grad):
        # self: grad * self.sinh().conj()
        return grad * at_sinh(self)

    return result, backward



# derivatives.yaml: cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor
@samples(case(T(3, 4), 1))
@formula
def yaml_cumsum(self: Tensor, dim: int) -> Tensor:
    result = kernel.cumsum(self, dim)

    def backward(grad):
        # self: cumsum_backward(grad.to(self.scalar_type()), dim)
        return cumsum_backward(ops.cast(grad, self.dtype), dim)

    return result, backward



# derivatives.yaml: deg2rad(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_deg2rad(self: Tensor) -> Tensor:
    result = self * (math.pi / 180.0)

    def backward(grad):
        # self: deg2rad_backward(grad)
        return deg2rad_backward(grad)

    return result, backward



# derivatives.yaml: diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)
@samples(case(T(3, 4), 1, 0, 1))
@formula
def yaml_diagonal(self: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    result = kernel.diagonal(self, offset, dim1, dim2)

    def backward(grad):
        # self: diagonal_backward_symint(grad, self.sym_sizes(), offset, dim1, dim2)
        return diagonal_backward(grad, self.shape, offset, dim1, dim2)

    return result, backward



# derivatives.yaml: div.Tensor(Tensor self, Tensor other) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0), T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_div_tensor(self: Tensor, other: Tensor) -> Tensor:
    result = kernel.div(self, other)

    def backward(grad):
        # self: div_tensor_self_backward(grad, other, self.scalar_type())
        # other: div_tensor_other_backward(grad, self, other)
        return div_tensor_self_backward(grad, other, self.dtype), div_tensor_other_backward(grad, self, other)

    return result, backward



# derivatives.yaml: dot(Tensor self, Tensor tensor) -> Tensor
@samples(case(T(4), T(4)))
@formula
def yaml_dot(self: Tensor, tensor: Tensor) -> Tensor:
    result = ops.matmul(self, tensor)

    def backward(grad):
        # self: grad * tensor.conj()
        # tensor: grad * self.conj()
        return grad * tensor, grad * self

    return result, backward



# derivatives.yaml: erf(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_erf(self: Tensor) -> Tensor:
    result = kernel.erf(self)

    def backward(grad):
        # self: 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        return ((2.0 / math.sqrt(math.pi)) * ops.exp(-ops.pow_scalar(self, 2))) * grad

    return result, backward



# derivatives.yaml: erfc(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_erfc(self: Tensor) -> Tensor:
    result = 1.0 - kernel.erf(self)

    def backward(grad):
        # self: -2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad
        return (((-2.0) / math.sqrt(math.pi)) * ops.exp(-ops.pow_scalar(self, 2))) * grad

    return result, backward



# derivatives.yaml: erfinv(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_erfinv(self: Tensor) -> Tensor:
    result = kernel.erfinv(self)

    def backward(grad):
        # self: 0.5 * sqrt(M_PI) * exp(self.erfinv().pow(2)) * grad
        return ((0.5 * math.sqrt(math.pi)) * ops.exp(ops.pow_scalar(ops.erfinv(self), 2))) * grad

    return result, backward



# derivatives.yaml: exp(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_exp(self: Tensor) -> Tensor:
    result = kernel.exp(self)

    def backward(grad):
        # self: grad * result.conj()
        return grad * result

    return result, backward



# derivatives.yaml: exp2(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_exp2(self: Tensor) -> Tensor:
    result = ops.exp(self * math.log(2.0))

    def backward(grad):
        # self: grad * result.conj() * M_LN2
        return (grad * result) * math.log(2.0)

    return result, backward



# derivatives.yaml: expm1(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_expm1(self: Tensor) -> Tensor:
    result = kernel.expm1(self)

    def backward(grad):
        # self: grad * (result.conj() + 1)
        return grad * (result + 1)

    return result, backward



# derivatives.yaml: expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)
@samples(case(T(3, 1), (2, 3, 4)))
@formula
def yaml_expand(self: Tensor, size: Shape, implicit: bool = False) -> Tensor:
    result = kernel.expand(self, size)

    def backward(grad):
        # self: at::sum_to(grad, self.sym_sizes())
        return ops.sum_to(grad, self.shape)

    return result, backward



# derivatives.yaml: gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor
@samples(case(T(3, 4), 1, I(3, 2, high=4)))
@formula
def yaml_gather(self: Tensor, dim: int, index: Tensor, sparse_grad: bool = False) -> Tensor:
    result = kernel.gather(self, dim, index)

    def backward(grad):
        # self: gather_backward(grad, self, dim, index, sparse_grad)
        return gather_backward(grad, self, dim, index, sparse_grad), None

    return result, backward



# derivatives.yaml: hardsigmoid(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_hardsigmoid(self: Tensor) -> Tensor:
    result = kernel.clamp(self / 6.0 + 0.5, 0.0, 1.0)

    def backward(grad):
        # self: hardsigmoid_backward(grad, self)
        return at_hardsigmoid_backward(grad, self)

    return result, backward



# derivatives.yaml: hardswish(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-5.0, high=5.0)))
@formula
def yaml_hardswish(self: Tensor) -> Tensor:
    result = self * kernel.clamp(self + 3.0, 0.0, 6.0) / 6.0

    def backward(grad):
        # self: hardswish_backward(grad, self)
        return at_hardswish_backward(grad, self)

    return result, backward



# derivatives.yaml: hypot(Tensor self, Tensor other) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0), T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_hypot(self: Tensor, other: Tensor) -> Tensor:
    result = ops.sqrt(self * self + other * other)

    def backward(grad):
        # self: grad * self / result
        # other: grad * other / result
        return (grad * self) / result, (grad * other) / result

    return result, backward



# derivatives.yaml: index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4), 0, I(5, high=3), T(5, 4), alpha=2.0))
@formula
def yaml_index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Scalar = 1) -> Tensor:
    result = kernel.index_add(self, dim, index, source * alpha)

    def backward(grad):
        # self: grad
        # source: maybe_multiply(source.dim() > 0 ? grad.index_select(dim, index).expand_as(source) : grad.index_select(dim, index.squeeze(0)), alpha)
        return grad, None, maybe_multiply((ops.expand(ops.index_select(grad, dim, index), source.shape) if (source.ndim > 0) else ops.index_select(grad, dim, ops.squeeze(index, (0,)))), alpha)

    return result, backward



# derivatives.yaml: index_select(Tensor self, int dim, Tensor index) -> Tensor
@samples(case(T(3, 4), 1, I(5, high=4)))
@formula
def yaml_index_select(self: Tensor, dim: int, index: Tensor) -> Tensor:
    result = kernel.index_select(self, dim, index)

    def backward(grad):
        # self: index_select_backward_symint(grad, self.sym_sizes(), dim, index)
        return index_select_backward(grad, self.shape, dim, index), None

    return result, backward



# derivatives.yaml: lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_lerp_scalar(self: Tensor, end: Tensor, weight: Scalar) -> Tensor:
    result = self + (end - self) * weight

    def backward(grad):
        # self: weight.isComplex() ? grad * (1 - weight.conj().toComplexDouble()) : grad * (1 - weight.toDouble())
        # end: grad * weight.conj()
        return grad * (1 - weight), grad * weight

    return result, backward



# derivatives.yaml: lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_lerp_tensor(self: Tensor, end: Tensor, weight: Tensor) -> Tensor:
    result = self + (end - self) * weight

    def backward(grad):
        # self: grad * (1 - weight).conj()
        # end: grad * weight.conj()
        # weight: grad * (end - self).conj()
        return grad * (1 - weight), grad * weight, grad * (end - self)

    return result, backward



# derivatives.yaml: lgamma(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_lgamma(self: Tensor) -> Tensor:
    result = kernel.lgamma(self)

    def backward(grad):
        # self: grad * digamma(self)
        return grad * ops.digamma(self)

    return result, backward



# derivatives.yaml: digamma(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_digamma(self: Tensor) -> Tensor:
    result = kernel.digamma(self)

    def backward(grad):
        # self: grad * polygamma(1, self)
        return grad * ops.polygamma(1, self)

    return result, backward



# derivatives.yaml: polygamma(int n, Tensor self) -> Tensor
@samples(case(1, T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_polygamma(n: int, self: Tensor) -> Tensor:
    result = kernel.polygamma(n, self)

    def backward(grad):
        # self: grad * polygamma(n + 1, self)
        return grad * ops.polygamma(n + 1, self)

    return result, backward



# derivatives.yaml: log(Tensor self) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_log(self: Tensor) -> Tensor:
    result = kernel.log(self)

    def backward(grad):
        # self: grad.div(self.conj())
        return grad / self

    return result, backward



# derivatives.yaml: log10(Tensor self) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_log10(self: Tensor) -> Tensor:
    result = ops.log(self) / math.log(10.0)

    def backward(grad):
        # self: grad / (self.conj() * 2.3025850929940456)
        return grad / (self * 2.3025850929940456)

    return result, backward



# derivatives.yaml: log1p(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-0.5, high=2.0)))
@formula
def yaml_log1p(self: Tensor) -> Tensor:
    result = kernel.log1p(self)

    def backward(grad):
        # self: log1p_backward(grad, self)
        return log1p_backward(grad, self)

    return result, backward



# derivatives.yaml: log2(Tensor self) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_log2(self: Tensor) -> Tensor:
    result = ops.log(self) / math.log(2.0)

    def backward(grad):
        # self: grad / (self.conj() * 0.6931471805599453)
        return grad / (self * 0.6931471805599453)

    return result, backward



# derivatives.yaml: logaddexp(Tensor self, Tensor other) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_logaddexp(self: Tensor, other: Tensor) -> Tensor:
    result = ops.maximum(self, other) + ops.log(ops.exp(self - ops.maximum(self, other)) + ops.exp(other - ops.maximum(self, other)))

    def backward(grad):
        # self: grad / (1 + exp(other - self)).conj()
        # other: grad / (1 + exp(self - other)).conj()
        return grad / (1 + ops.exp(other - self)), grad / (1 + ops.exp(self - other))

    return result, backward



# derivatives.yaml: logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor
@samples(case(T(3, 4), (1,)), case(T(2, 3, 4), (0, 2), True))
@formula
def yaml_logsumexp(self: Tensor, dim: Dims, keepdim: bool = False) -> Tensor:
    result = ops.logsumexp(self, dim, keepdim)

    def backward(grad):
        # self: logsumexp_backward(grad, self, result, dim, keepdim)
        return logsumexp_backward(grad, self, result, dim, keepdim)

    return result, backward



# derivatives.yaml: masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor
@samples(case(T(3, 4), B(3, 4), 0.5))
@formula
def yaml_masked_fill_scalar(self: Tensor, mask: Tensor, value: Scalar) -> Tensor:
    result = ops.masked_fill(self, mask, value)

    def backward(grad):
        # self: grad.masked_fill(mask, 0)
        return ops.masked_fill(grad, mask, 0), None

    return result, backward



# derivatives.yaml: masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor
@samples(case(T(3, 4), B(3, 4), T()))
@formula
def yaml_masked_fill_tensor(self: Tensor, mask: Tensor, value: Tensor) -> Tensor:
    result = ops.where(mask, ops.zeros_like(self) + value, self)

    def backward(grad):
        # self: grad.masked_fill(mask, 0)
        # value: masked_fill_backward(grad, mask)
        return ops.masked_fill(grad, mask, 0), None, masked_fill_backward(grad, mask)

    return result, backward



# derivatives.yaml: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2, True))
@formula(differentiable_outputs=('values',))
def yaml_max_dim(self: Tensor, dim: int, keepdim: bool = False) -> (Tensor, Tensor):
    values, indices = kernel.max_dim(self, dim, keepdim)

    def backward(grad):
        # self: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), keepdim)
        return value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)

    return (values, indices), backward



# derivatives.yaml: max(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_max(self: Tensor) -> Tensor:
    result = kernel.amax(self, wrap_dims(None, self.ndim), False)

    def backward(grad):
        # self: evenly_distribute_backward(grad, self, result)
        return evenly_distribute_backward(grad, self, result)

    return result, backward



# derivatives.yaml: maximum(Tensor self, Tensor other) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_maximum(self: Tensor, other: Tensor) -> Tensor:
    result = kernel.maximum(self, other)

    def backward(grad):
        # self: at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
        # other: at::where(self == other, grad / 2, grad).masked_fill_(self > other, 0)
        return ops.masked_fill(ops.where(self == other, grad / 2, grad), self < other, 0), ops.masked_fill(ops.where(self == other, grad / 2, grad), self > other, 0)

    return result, backward



# derivatives.yaml: mean(Tensor self, *, ScalarType? dtype=None) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_mean(self: Tensor) -> Tensor:
    result = ops.mean(self)

    def backward(grad):
        # self: grad.expand_symint(self.sym_sizes()) / self.sym_numel()
        return ops.expand(grad, self.shape) / self.numel

    return result, backward



# derivatives.yaml: mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
@samples(case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True))
@formula
def yaml_mean_dim(self: Tensor, dim: Optional[Dims], keepdim: bool = False) -> Tensor:
    result = ops.mean(self, wrap_dims(dim, self.ndim), keepdim)

    def backward(grad):
        # self: mean_backward(grad, self.sym_sizes(), dim, self.sym_numel(), keepdim)
        return mean_backward(grad, self.shape, dim, self.numel, keepdim)

    return result, backward



# derivatives.yaml: min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
@samples(case(T(3, 4), 1), case(T(2, 3, 4), -2, True))
@formula(differentiable_outputs=('values',))
def yaml_min_dim(self: Tensor, dim: int, keepdim: bool = False) -> (Tensor, Tensor):
    values, indices = kernel.min_dim(self, dim, keepdim)

    def backward(grad):
        # self: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), keepdim)
        return value_selecting_reduction_backward(grad, dim, indices, self.shape, keepdim)

    return (values, indices), backward



# derivatives.yaml: min(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_min(self: Tensor) -> Tensor:
    result = kernel.amin(self, wrap_dims(None, self.ndim), False)

    def backward(grad):
        # self: evenly_distribute_backward(grad, self, result)
        return evenly_distribute_backward(grad, self, result)

    return result, backward



# derivatives.yaml: minimum(Tensor self, Tensor other) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_minimum(self: Tensor, other: Tensor) -> Tensor:
    result = kernel.minimum(self, other)

    def backward(grad):
        # self: at::where(self == other, grad / 2, grad).masked_fill_(self > other, 0)
        # other: at::where(self == other, grad / 2, grad).masked_fill_(self < other, 0)
        return ops.masked_fill(ops.where(self == other, grad / 2, grad), self > other, 0), ops.masked_fill(ops.where(self == other, grad / 2, grad), self < other, 0)

    return result, backward



# derivatives.yaml: amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
@samples(case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True))
@formula
def yaml_amax(self: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    result = ops.amax(self, wrap_dims(dim, self.ndim), keepdim)

    def backward(grad):
        # self: scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(result, dim, keepdim) == self, dim)
        return scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(result, dim, keepdim) == self, dim)

    return result, backward



# derivatives.yaml: amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor
@samples(case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True))
@formula
def yaml_amin(self: Tensor, dim: Dims = (), keepdim: bool = False) -> Tensor:
    result = ops.amin(self, wrap_dims(dim, self.ndim), keepdim)

    def backward(grad):
        # self: scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(result, dim, keepdim) == self, dim)
        return scale_grad_by_count(restore_reduced_dims(grad, dim, keepdim), restore_reduced_dims(result, dim, keepdim) == self, dim)

    return result, backward



# derivatives.yaml: mm(Tensor self, Tensor mat2) -> Tensor
@samples(case(T(3, 4), T(4, 2)))
@formula
def yaml_mm(self: Tensor, mat2: Tensor) -> Tensor:
    result = kernel.matmul(self, mat2)

    def backward(grad):
        # self: mm_mat1_backward(grad, mat2, self.sym_sizes(), self.sym_strides(), self.layout(), 1)
        # mat2: mm_mat2_backward(grad, self, mat2.sym_sizes(), mat2.sym_strides(), mat2.layout(), 1)
        return mm_mat1_backward(grad, mat2, self.shape, None, None, 1), mm_mat2_backward(grad, self, mat2.shape, None, None, 1)

    return result, backward



# derivatives.yaml: mul.Tensor(Tensor self, Tensor other) -> Tensor
@samples(case(T(3, 4), T(4)))
@formula
def yaml_mul_tensor(self: Tensor, other: Tensor) -> Tensor:
    result = kernel.mul(self, other)

    def backward(grad):
        # self: mul_tensor_backward(grad, other, self.scalar_type())
        # other: mul_tensor_backward(grad, self, other.scalar_type())
        return mul_tensor_backward(grad, other, self.dtype), mul_tensor_backward(grad, self, other.dtype)

    return result, backward



# derivatives.yaml: mv(Tensor self, Tensor vec) -> Tensor
@samples(case(T(3, 4), T(4)))
@formula
def yaml_mv(self: Tensor, vec: Tensor) -> Tensor:
    result = ops.matmul(self, vec)

    def backward(grad):
        # self: grad.ger(vec.conj())
        # vec: self.conj().t().mv(grad)
        return at_ger(grad, vec), ops.matmul(ops.transpose(self, -2, -1), grad)

    return result, backward



# derivatives.yaml: neg(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_neg(self: Tensor) -> Tensor:
    result = kernel.neg(self)

    def backward(grad):
        # self: grad.neg()
        return -grad

    return result, backward



# derivatives.yaml: permute(Tensor(a) self, int[] dims) -> Tensor(a)
@samples(case(T(2, 3, 4), (2, 0, 1)))
@formula
def yaml_permute(self: Tensor, dims: Dims) -> Tensor:
    result = kernel.permute(self, dims)

    def backward(grad):
        # self: permute_backwards(grad, dims)
        return permute_backwards(grad, dims)

    return result, backward



# derivatives.yaml: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0), 0.5))
@formula
def yaml_pow_tensor_scalar(self: Tensor, exponent: Scalar) -> Tensor:
    result = ops.pow_scalar(self, exponent)

    def backward(grad):
        # self: pow_backward(grad, self, exponent)
        return pow_backward(grad, self, exponent)

    return result, backward



# derivatives.yaml: pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0), T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_pow_tensor_tensor(self: Tensor, exponent: Tensor) -> Tensor:
    result = kernel.pow(self, exponent)

    def backward(grad):
        # self: pow_backward_self(grad, self, exponent)
        # exponent: pow_backward_exponent(grad, self, exponent, result)
        return pow_backward_self(grad, self, exponent), pow_backward_exponent(grad, self, exponent, result)

    return result, backward



# derivatives.yaml: rad2deg(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_rad2deg(self: Tensor) -> Tensor:
    result = self * (180.0 / math.pi)

    def backward(grad):
        # self: rad2deg_backward(grad)
        return rad2deg_backward(grad)

    return result, backward



# derivatives.yaml: reciprocal(Tensor self) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_reciprocal(self: Tensor) -> Tensor:
    result = kernel.reciprocal(self)

    def backward(grad):
        # self: -grad * (result * result).conj()
        return (-grad) * (result * result)

    return result, backward



# derivatives.yaml: _reshape_alias(Tensor(a) self, SymInt[] size, SymInt[] stride) -> Tensor(a)
@samples(case(T(3, 4), (2, 6), (6, 1)))
@formula
def yaml__reshape_alias(self: Tensor, size: Shape, stride: Shape) -> Tensor:
    result = kernel.reshape(self, size)

    def backward(grad):
        # self: grad.reshape_symint(self.sym_sizes())
        return ops.reshape(grad, self.shape)

    return result, backward



# derivatives.yaml: rsqrt(Tensor self) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_rsqrt(self: Tensor) -> Tensor:
    result = kernel.rsqrt(self)

    def backward(grad):
        # self: -0.5 * grad * result.pow(3).conj()
        return ((-0.5) * grad) * ops.pow_scalar(result, 3)

    return result, backward



# derivatives.yaml: scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
@samples(case(T(3, 4), 1, I(3, 2, high=4), T(3, 2)))
@formula
def yaml_scatter_add(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    result = kernel.scatter_add(self, dim, index, src)

    def backward(grad):
        # self: grad
        # src: grad.gather(dim, index)
        return grad, None, ops.gather(grad, dim, index)

    return result, backward



# derivatives.yaml: select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)
@samples(case(T(3, 4), 1, 2))
@formula
def yaml_select_int(self: Tensor, dim: int, index: int) -> Tensor:
    result = kernel.select(self, dim, index)

    def backward(grad):
        # self: select_backward_symint(grad, self.sym_sizes(), dim, index)
        return select_backward(grad, self.shape, dim, index)

    return result, backward



# derivatives.yaml: sigmoid(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sigmoid(self: Tensor) -> Tensor:
    result = kernel.sigmoid(self)

    def backward(grad):
        # self: sigmoid_backward(grad, result)
        return at_sigmoid_backward(grad, result)

    return result, backward



# derivatives.yaml: sign(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sign(self: Tensor) -> Tensor:
    result = kernel.sign(self)

    def backward(grad):
        # self: zeros_like(grad)
        return ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: sgn(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sgn(self: Tensor) -> Tensor:
    result = kernel.sign(self)

    def backward(grad):
        # self: sgn_backward(self, grad, result)
        return sgn_backward(self, grad, result)

    return result, backward



# derivatives.yaml: sin(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sin(self: Tensor) -> Tensor:
    result = kernel.sin(self)

    def backward(grad):
        # self: grad * self.cos().conj()
        return grad * ops.cos(self)

    return result, backward



# derivatives.yaml: sinh(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sinh(self: Tensor) -> Tensor:
    result = (ops.exp(self) - ops.exp(-self)) * 0.5

    def backward(grad):
        # self: grad * self.cosh().conj()
        return grad * at_cosh(self)

    return result, backward



# derivatives.yaml: slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)
@samples(case(T(5, 4), 0, 1, 4, 2))
@formula
def yaml_slice_tensor(self: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None, step: int = 1) -> Tensor:
    result = kernel.slice(self, dim, start, end, step)

    def backward(grad):
        # self: slice_backward_wrapper(grad, self.sym_sizes(), dim, start, end, step)
        return slice_backward_wrapper(grad, self.shape, dim, start, end, step)

    return result, backward



# derivatives.yaml: slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor
@samples(case(T(5, 4), T(2, 4), 0, 1, 4, 2))
@formula
def yaml_slice_scatter(self: Tensor, src: Tensor, dim: int = 0, start: Optional[int] = None, end: Optional[int] = None, step: int = 1) -> Tensor:
    result = kernel.slice_scatter(self, src, dim, start, end, step)

    def backward(grad):
        # self: slice_scatter_symint(grad, zeros_like(src), dim, start, end, step)
        # src: grad.slice_symint(dim, start, end, step)
        return ops.slice_scatter(grad, ops.zeros_like(src), dim, start, end, step), ops.slice(grad, dim, start, end, step)

    return result, backward



# derivatives.yaml: select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor
@samples(case(T(3, 4), T(3), 1, 2))
@formula
def yaml_select_scatter(self: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    result = kernel.select_scatter(self, src, dim, index)

    def backward(grad):
        # self: select_scatter_symint(grad, zeros_like(src), dim, index)
        # src: grad.select_symint(dim, index)
        return ops.select_scatter(grad, ops.zeros_like(src), dim, index), ops.select(grad, dim, index)

    return result, backward



# derivatives.yaml: diagonal_scatter(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1) -> Tensor
@samples(case(T(3, 4), T(3), 0, 0, 1))
@formula
def yaml_diagonal_scatter(self: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    result = kernel.diagonal_scatter(self, src, offset, dim1, dim2)

    def backward(grad):
        # self: diagonal_scatter(grad, zeros_like(src), offset, dim1, dim2)
        # src: grad.diagonal(offset, dim1, dim2)
        return ops.diagonal_scatter(grad, ops.zeros_like(src), offset, dim1, dim2), ops.diagonal(grad, offset, dim1, dim2)

    return result, backward



# derivatives.yaml: sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
@samples(case(T(3, 4), 1), case(T(3, 4), 0, True))
@formula(differentiable_outputs=('values',))
def yaml_sort(self: Tensor, dim: int = -1, descending: bool = False) -> (Tensor, Tensor):
    values, indices = kernel.sort(self, dim, descending)

    def backward(grad):
        # self: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), true)
        return value_selecting_reduction_backward(grad, dim, indices, self.shape, True)

    return (values, indices), backward



# derivatives.yaml: sqrt(Tensor self) -> Tensor
@samples(case(T(3, 4, low=0.5, high=2.0)))
@formula
def yaml_sqrt(self: Tensor) -> Tensor:
    result = kernel.sqrt(self)

    def backward(grad):
        # self: grad / (2 * result.conj())
        return grad / (2 * result)

    return result, backward



# derivatives.yaml: squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)
@samples(case(T(3, 1, 4), 1))
@formula
def yaml_squeeze_dim(self: Tensor, dim: int) -> Tensor:
    result = kernel.squeeze(self, (dim,))

    def backward(grad):
        # self: unsqueeze_to(grad, dim, self.sym_sizes())
        return unsqueeze_to(grad, dim, self.shape)

    return result, backward



# derivatives.yaml: std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
@samples(case(T(3, 4)), case(T(2, 3, 4), (1,), correction=0.0), case(T(2, 3, 4), (0, -1), keepdim=True))
@formula
def yaml_std_correction(self: Tensor, dim: Optional[Dims] = None, correction: Optional[float] = None, keepdim: bool = False) -> Tensor:
    result = ops.sqrt(at_var(self, dim, correction, keepdim))

    def backward(grad):
        # self: std_backward(result, grad, self, dim, correction, keepdim)
        return std_backward(result, grad, self, dim, correction, keepdim)

    return result, backward



# derivatives.yaml: sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4), T(4), alpha=2.0))
@formula
def yaml_sub_tensor(self: Tensor, other: Tensor, alpha: Scalar = 1) -> Tensor:
    result = self - other * alpha

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), grad)
        # other: handle_r_to_c(other.scalar_type(), maybe_multiply(-grad, alpha.conj()))
        return grad, maybe_multiply(-grad, alpha)

    return result, backward



# derivatives.yaml: sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_sub_scalar(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    result = self - other * alpha

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), grad)
        return grad

    return result, backward



# derivatives.yaml: rsub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_rsub_tensor(self: Tensor, other: Tensor, alpha: Scalar = 1) -> Tensor:
    result = other - self * alpha

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), maybe_multiply(-grad, alpha.conj()))
        # other: handle_r_to_c(other.scalar_type(), grad)
        return maybe_multiply(-grad, alpha), grad

    return result, backward



# derivatives.yaml: rsub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_rsub_scalar(self: Tensor, other: Scalar, alpha: Scalar = 1) -> Tensor:
    result = other - self * alpha

    def backward(grad):
        # self: handle_r_to_c(self.scalar_type(), maybe_multiply(-grad, alpha.conj()))
        return maybe_multiply(-grad, alpha)

    return result, backward



# derivatives.yaml: sum(Tensor self, *, ScalarType? dtype=None) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sum(self: Tensor) -> Tensor:
    result = ops.sum(self)

    def backward(grad):
        # self: grad.expand_symint(self.sym_sizes())
        return ops.expand(grad, self.shape)

    return result, backward



# derivatives.yaml: sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor
@samples(case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True))
@formula
def yaml_sum_dim_intlist(self: Tensor, dim: Optional[Dims], keepdim: bool = False) -> Tensor:
    result = ops.sum(self, wrap_dims(dim, self.ndim), keepdim)

    def backward(grad):
        # self: sum_backward(grad, self.sym_sizes(), dim, keepdim)
        return sum_backward(grad, self.shape, dim, keepdim)

    return result, backward



# derivatives.yaml: t(Tensor(a) self) -> Tensor(a)
@samples(case(T(3, 4)))
@formula
def yaml_t(self: Tensor) -> Tensor:
    result = kernel.transpose(self, 0, 1)

    def backward(grad):
        # self: grad.t()
        return ops.transpose(grad, -2, -1)

    return result, backward



# derivatives.yaml: flip(Tensor self, int[] dims) -> Tensor
@samples(case(T(3, 4), (0, 1)))
@formula
def yaml_flip(self: Tensor, dims: Dims) -> Tensor:
    result = kernel.flip(self, dims)

    def backward(grad):
        # self: grad.flip(dims)
        return ops.flip(grad, dims)

    return result, backward



# derivatives.yaml: tan(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_tan(self: Tensor) -> Tensor:
    result = kernel.tan(self)

    def backward(grad):
        # self: grad * (1 + result.pow(2)).conj()
        return grad * (1 + ops.pow_scalar(result, 2))

    return result, backward



# derivatives.yaml: tanh(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_tanh(self: Tensor) -> Tensor:
    result = kernel.tanh(self)

    def backward(grad):
        # self: tanh_backward(grad, result)
        return at_tanh_backward(grad, result)

    return result, backward



# derivatives.yaml: topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)
@samples(case(T(3, 5), 2), case(T(3, 5), 2, 0, False))
@formula(differentiable_outputs=('values',))
def yaml_topk(self: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> (Tensor, Tensor):
    values, indices = kernel.topk(self, k, dim, largest)

    def backward(grad):
        # self: value_selecting_reduction_backward_symint(grad, dim, indices, self.sym_sizes(), true)
        return value_selecting_reduction_backward(grad, dim, indices, self.shape, True)

    return (values, indices), backward



# derivatives.yaml: trace(Tensor self) -> Tensor
@samples(case(T(3, 4)))
@formula
def yaml_trace(self: Tensor) -> Tensor:
    result = ops.sum(kernel.diagonal(self, 0, 0, 1))

    def backward(grad):
        # self: trace_backward_symint(grad, self.sym_sizes())
        return trace_backward(grad, self.shape)

    return result, backward



# derivatives.yaml: transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)
@samples(case(T(2, 3, 4), 0, 2))
@formula
def yaml_transpose_int(self: Tensor, dim0: int, dim1: int) -> Tensor:
    result = kernel.transpose(self, dim0, dim1)

    def backward(grad):
        # self: grad.transpose(dim0, dim1)
        return ops.transpose(grad, dim0, dim1)

    return result, backward



# derivatives.yaml: tril(Tensor self, SymInt diagonal=0) -> Tensor
@samples(case(T(4, 4), 1))
@formula
def yaml_tril(self: Tensor, diagonal: int = 0) -> Tensor:
    result = kernel.tril(self, diagonal)

    def backward(grad):
        # self: grad.tril_symint(diagonal)
        return ops.tril(grad, diagonal)

    return result, backward



# derivatives.yaml: triu(Tensor self, SymInt diagonal=0) -> Tensor
@samples(case(T(4, 4), -1))
@formula
def yaml_triu(self: Tensor, diagonal: int = 0) -> Tensor:
    result = kernel.triu(self, diagonal)

    def backward(grad):
        # self: grad.triu_symint(diagonal)
        return ops.triu(grad, diagonal)

    return result, backward



# derivatives.yaml: trunc(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_trunc(self: Tensor) -> Tensor:
    result = kernel.trunc(self)

    def backward(grad):
        # self: zeros_like(grad)
        return ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: _unsafe_view(Tensor self, SymInt[] size) -> Tensor
@samples(case(T(3, 4), (4, 3)))
@formula
def yaml__unsafe_view(self: Tensor, size: Shape) -> Tensor:
    result = kernel.reshape(self, size)

    def backward(grad):
        # self: grad.reshape_symint(self.sym_sizes())
        return ops.reshape(grad, self.shape)

    return result, backward



# derivatives.yaml: unsqueeze(Tensor(a) self, int dim) -> Tensor(a)
@samples(case(T(3, 4), 1))
@formula
def yaml_unsqueeze(self: Tensor, dim: int) -> Tensor:
    result = kernel.unsqueeze(self, dim)

    def backward(grad):
        # self: grad.squeeze(dim)
        return ops.squeeze(grad, (dim,))

    return result, backward



# derivatives.yaml: var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor
@samples(case(T(3, 4)), case(T(2, 3, 4), (1,), correction=0.0), case(T(2, 3, 4), (0, -1), keepdim=True))
@formula
def yaml_var_correction(self: Tensor, dim: Optional[Dims] = None, correction: Optional[float] = None, keepdim: bool = False) -> Tensor:
    result = at_var(self, dim, correction, keepdim)

    def backward(grad):
        # self: var_backward(grad, self, dim, correction, keepdim)
        return var_backward(grad, self, dim, correction, keepdim)

    return result, backward



# derivatives.yaml: view(Tensor(a) self, SymInt[] size) -> Tensor(a)
@samples(case(T(3, 4), (2, 6)))
@formula
def yaml_view(self: Tensor, size: Shape) -> Tensor:
    result = kernel.reshape(self, size)

    def backward(grad):
        # self: grad.reshape_symint(self.sym_sizes())
        return ops.reshape(grad, self.shape)

    return result, backward



# derivatives.yaml: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
@samples(case(B(3, 4), T(3, 4), T(4)))
@formula
def yaml_where_self(condition: Tensor, self: Tensor, other: Tensor) -> Tensor:
    result = kernel.where(condition, self, other)

    def backward(grad):
        # self: where(condition, grad, 0)
        # other: where(condition, 0, grad)
        return None, ops.where(condition, grad, ops.zeros_like(grad) + 0), ops.where(condition, ops.zeros_like(grad) + 0, grad)

    return result, backward



# derivatives.yaml: constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor
@samples(case(T(3, 4), (1, 2, 0, 1), 0.5))
@formula
def yaml_constant_pad_nd(self: Tensor, pad: Shape, value: Scalar = 0) -> Tensor:
    result = kernel.pad(self, pad, value)

    def backward(grad):
        # self: constant_pad_nd_backward(grad, pad)
        return constant_pad_nd_backward(grad, pad)

    return result, backward



# derivatives.yaml: mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
@samples(case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), 2), case(T(3, 4), T(3, 4), 0))
@formula
def yaml_mse_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    result = apply_loss_reduction((self - target) * (self - target), reduction)

    def backward(grad):
        # self: mse_loss_backward(grad, self, target, reduction)
        # target: mse_loss_backward(grad, target, self, reduction)
        return at_mse_loss_backward(grad, self, target, reduction), at_mse_loss_backward(grad, target, self, reduction)

    return result, backward



# derivatives.yaml: smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0) -> Tensor
@samples(case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), 2, 0.5), case(T(3, 4), T(3, 4), 0))
@formula
def yaml_smooth_l1_loss(self: Tensor, target: Tensor, reduction: int = 1, beta: float = 1.0) -> Tensor:
    result = apply_loss_reduction(ops.where(ops.abs(self - target) < beta, (self - target) * (self - target) * (0.5 / beta), ops.abs(self - target) - 0.5 * beta), reduction)

    def backward(grad):
        # self: smooth_l1_loss_backward(grad, self, target, reduction, beta)
        # target: smooth_l1_loss_backward(grad, target, self, reduction, beta)
        return at_smooth_l1_loss_backward(grad, self, target, reduction, beta), at_smooth_l1_loss_backward(grad, target, self, reduction, beta)

    return result, backward



# derivatives.yaml: huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor
@samples(case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), 2, 0.5), case(T(3, 4), T(3, 4), 0))
@formula
def yaml_huber_loss(self: Tensor, target: Tensor, reduction: int = 1, delta: float = 1.0) -> Tensor:
    result = apply_loss_reduction(ops.where(ops.abs(self - target) <= delta, (self - target) * (self - target) * 0.5, (ops.abs(self - target) - 0.5 * delta) * delta), reduction)

    def backward(grad):
        # self: huber_loss_backward(grad, self, target, reduction, delta)
        # target: huber_loss_backward(grad, target, self, reduction, delta)
        return at_huber_loss_backward(grad, self, target, reduction, delta), at_huber_loss_backward(grad, target, self, reduction, delta)

    return result, backward



# derivatives.yaml: soft_margin_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor
@samples(case(T(3, 4), T(3, 4, requires_grad=False)), case(T(3, 4), T(3, 4, requires_grad=False), 2))
@formula
def yaml_soft_margin_loss(self: Tensor, target: Tensor, reduction: int = 1) -> Tensor:
    result = apply_loss_reduction(ops.log1p(ops.exp(-target * self)), reduction)

    def backward(grad):
        # self: soft_margin_loss_backward(grad, self, target, reduction)
        return at_soft_margin_loss_backward(grad, self, target, reduction), None

    return result, backward



# derivatives.yaml: relu(Tensor self) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_relu(self: Tensor) -> Tensor:
    result = kernel.relu(self)

    def backward(grad):
        # self: threshold_backward(grad, result, 0)
        return at_threshold_backward(grad, result, 0)

    return result, backward



# derivatives.yaml: elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor
@samples(case(T(3, 4), 1.5, 1.0, 1.0))
@formula
def yaml_elu(self: Tensor, alpha: Scalar = 1, scale: Scalar = 1, input_scale: Scalar = 1) -> Tensor:
    result = ops.where(self > 0.0, self * scale, (ops.exp(self * input_scale) - 1.0) * (alpha * scale))

    def backward(grad):
        # self: elu_backward(grad, alpha, scale, input_scale, /* is_result */ false, self)
        return elu_backward(grad, alpha, scale, input_scale, False, self)

    return result, backward



# derivatives.yaml: celu(Tensor self, Scalar alpha=1.0) -> Tensor
@samples(case(T(3, 4), 1.5))
@formula
def yaml_celu(self: Tensor, alpha: Scalar = 1.0) -> Tensor:
    result = ops.where(self > 0.0, self, (ops.exp(self / alpha) - 1.0) * alpha)

    def backward(grad):
        # self: elu_backward(grad, alpha, 1, 1.0/alpha.toFloat(), /* is_result */ false, self)
        return elu_backward(grad, alpha, 1, 1.0 / alpha, False, self)

    return result, backward



# derivatives.yaml: hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor
@samples(case(T(3, 4), 0.5))
@formula
def yaml_hardshrink(self: Tensor, lambd: Scalar = 0.5) -> Tensor:
    result = ops.where(ops.abs(self) > lambd, self, ops.zeros_like(self))

    def backward(grad):
        # self: hardshrink_backward(grad, self, lambd)
        return at_hardshrink_backward(grad, self, lambd)

    return result, backward



# derivatives.yaml: hardshrink_backward(Tensor grad_out, Tensor self, Scalar lambd) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_hardshrink_backward(grad_out: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    result = at_hardshrink_backward(grad_out, self, lambd)

    def backward(grad):
        # grad_out: hardshrink_backward(grad, self, lambd)
        # self: zeros_like(grad)
        return at_hardshrink_backward(grad, self, lambd), ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_hardtanh(self: Tensor, min_val: Scalar = -1, max_val: Scalar = 1) -> Tensor:
    result = kernel.clamp(self, min_val, max_val)

    def backward(grad):
        # self: hardtanh_backward(grad, self, min_val, max_val)
        return at_hardtanh_backward(grad, self, min_val, max_val)

    return result, backward



# derivatives.yaml: leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
@samples(case(T(3, 4), 0.1))
@formula
def yaml_leaky_relu(self: Tensor, negative_slope: Scalar = 0.01) -> Tensor:
    result = ops.where(self > 0.0, self, self * negative_slope)

    def backward(grad):
        # self: leaky_relu_backward(grad, self, negative_slope, false)
        return at_leaky_relu_backward(grad, self, negative_slope, False)

    return result, backward



# derivatives.yaml: _log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor
@samples(case(T(3, 4), 1, False))
@formula
def yaml__log_softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    result = ops.log_softmax(self, dim)

    def backward(grad):
        # self: _log_softmax_backward_data(grad, result, dim, self.scalar_type())
        return at__log_softmax_backward_data(grad, result, dim, self.dtype)

    return result, backward



# derivatives.yaml: _softmax(Tensor self, int dim, bool half_to_float) -> Tensor
@samples(case(T(3, 4), 1, False))
@formula
def yaml__softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    result = ops.softmax(self, dim)

    def backward(grad):
        # self: _softmax_backward_data(grad, result, dim, self.scalar_type())
        return at__softmax_backward_data(grad, result, dim, self.dtype)

    return result, backward



# derivatives.yaml: softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_softplus(self: Tensor, beta: Scalar = 1, threshold: Scalar = 20) -> Tensor:
    result = ops.where(self * beta > threshold, self, ops.log1p(ops.exp(self * beta)) / beta)

    def backward(grad):
        # self: softplus_backward(grad, self, beta, threshold)
        return at_softplus_backward(grad, self, beta, threshold)

    return result, backward



# derivatives.yaml: softshrink(Tensor self, Scalar lambd=0.5) -> Tensor
@samples(case(T(3, 4), 0.5))
@formula
def yaml_softshrink(self: Tensor, lambd: Scalar = 0.5) -> Tensor:
    result = self - kernel.clamp(self, -lambd, lambd)

    def backward(grad):
        # self: softshrink_backward(grad, self, lambd)
        return at_softshrink_backward(grad, self, lambd)

    return result, backward



# derivatives.yaml: threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor
@samples(case(T(3, 4), 0.1, 0.5))
@formula
def yaml_threshold(self: Tensor, threshold: Scalar, value: Scalar) -> Tensor:
    result = ops.where(self > threshold, self, ops.zeros_like(self) + value)

    def backward(grad):
        # self: threshold_backward(grad, self, threshold)
        return at_threshold_backward(grad, self, threshold)

    return result, backward



# derivatives.yaml: hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), 0.5, 0.5))
@formula
def yaml_hardtanh_backward(grad_output: Tensor, self: Tensor, min_val: Scalar, max_val: Scalar) -> Tensor:
    result = at_hardtanh_backward(grad_output, self, min_val, max_val)

    def backward(grad):
        # grad_output: hardtanh_backward(grad, self, min_val, max_val)
        # self: zeros_like(grad)
        return at_hardtanh_backward(grad, self, min_val, max_val), ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: leaky_relu_backward(Tensor grad_output, Tensor self, Scalar negative_slope, bool self_is_result) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), 0.5, False))
@formula
def yaml_leaky_relu_backward(grad_output: Tensor, self: Tensor, negative_slope: Scalar, self_is_result: bool) -> Tensor:
    result = at_leaky_relu_backward(grad_output, self, negative_slope, self_is_result)

    def backward(grad):
        # grad_output: leaky_relu_backward(grad, self, negative_slope, false)
        # self: zeros_like(grad)
        return at_leaky_relu_backward(grad, self, negative_slope, False), ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: softshrink_backward(Tensor grad_output, Tensor self, Scalar lambd) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0), 0.5))
@formula
def yaml_softshrink_backward(grad_output: Tensor, self: Tensor, lambd: Scalar) -> Tensor:
    result = at_softshrink_backward(grad_output, self, lambd)

    def backward(grad):
        # grad_output: softshrink_backward(grad, self, lambd)
        # self: zeros_like(grad)
        return at_softshrink_backward(grad, self, lambd), ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor
@samples(case(T(3, 4), T(3, 4), 0.1))
@formula
def yaml_threshold_backward(grad_output: Tensor, self: Tensor, threshold: Scalar) -> Tensor:
    result = at_threshold_backward(grad_output, self, threshold)

    def backward(grad):
        # grad_output: threshold_backward(grad, self, threshold)
        # self: zeros_like(grad)
        return at_threshold_backward(grad, self, threshold), ops.zeros_like(grad)

    return result, backward



# derivatives.yaml: sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_sigmoid_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    result = at_sigmoid_backward(grad_output, output)

    def backward(grad):
        # grad_output: sigmoid_backward(grad, output.conj())
        # output: grad.conj() * grad_output * (-2 * output.conj() + 1)
        return at_sigmoid_backward(grad, output), (grad * grad_output) * (((-2) * output) + 1)

    return result, backward



# derivatives.yaml: tanh_backward(Tensor grad_output, Tensor output) -> Tensor
@samples(case(T(3, 4, low=-2.0, high=2.0), T(3, 4, low=-2.0, high=2.0)))
@formula
def yaml_tanh_backward(grad_output: Tensor, output: Tensor) -> Tensor:
    result = at_tanh_backward(grad_output, output)

    def backward(grad):
        # grad_output: tanh_backward(grad, output.conj())
        # output: grad.conj() * (-2 * output.conj() * grad_output)
        return at_tanh_backward(grad, output), grad * (((-2) * output) * grad_output)

    return result, backward
