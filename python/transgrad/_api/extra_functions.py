"""PyTorch-style functions for the ops of formulas/conv.py, pool.py, norm.py and misc.py, plus
API-level composites that need Python the formula language does not have (strings, loops over
a variable number of operands): einsum, roll, repeat, mv, argsort.

Input: tensors of either engine. Output: the module-level functions of ``__all__`` (exported by
both engines; several are Tensor methods too: methods.py). Everything here is
engine-neutral: it calls the formulas of the tensor's engine (``backend_of``) only, so both
engines behave the same, and every result is differentiable to any order because the formulas
are.

Note [Torch argument forms]
Window arguments take an int or an (h, w) pair as torch; ``stride=None`` means the kernel
size (pooling); conv ``padding`` also takes "valid" and "same" (stride 1; an odd total
padding pads the input explicitly, the extra element after, as torch). 3-D inputs (C, H, W)
to the 2-D ops (2-D (C, L) to conv1d) are unbatched: a batch dim of 1 is added and removed.
"""

from __future__ import annotations

import collections
import math
import string
from collections.abc import Sequence
from typing import Any

import numpy as np

from transgrad import return_types
from transgrad._api import dtype_checks, functions
from transgrad._api import out_args as _out_args
from transgrad._api.factories import _check_fits as check_fits
from transgrad._api.functions import dims_arg, shape_arg, wrap_dim
from transgrad._backend import backend_of, find_backend, is_tensor
from transgrad._dtypes import is_floating_or_complex
from transgrad._errors import ArgumentError

__all__ = [
    "adaptive_avg_pool2d", "argsort", "avg_pool2d", "batch_norm", "conv1d",
    "conv2d", "cumsum", "einsum", "flip", "layer_norm", "masked_fill", "max_pool2d",
    "mv", "pad", "repeat", "roll", "sort", "topk", "tril",
    "triu",
]


def _pair(v: Any, name: str) -> tuple:
    if isinstance(v, int):
        return (int(v), int(v))
    t = tuple(int(i) for i in v)
    if len(t) == 1:
        return t * 2
    if len(t) != 2:
        raise ArgumentError(f"{name} must be an int or a pair of ints, got {v!r}")
    return t


def _single(v: Any, name: str) -> int:
    if isinstance(v, int):
        return int(v)
    t = tuple(v)
    if len(t) != 1:
        raise ArgumentError(f"{name} must be an int or a 1-tuple, got {v!r}")
    return int(t[0])


def _ops_of(operands: Sequence[Any]) -> Any:
    backend = find_backend(operands)
    if backend is None:
        raise TypeError("einsum(): expected Tensor operands")
    return backend.ops


def _unbatched(x: Any, image_ndim: int, fn: Any) -> Any:
    """Run ``fn`` on a batch of one when x lacks the batch dim (Note [Torch argument forms])."""
    ops = backend_of(x).ops
    if x.ndim == image_ndim - 1:
        out = fn(ops.unsqueeze(x, 0))
        if isinstance(out, tuple):
            return type(out)(ops.squeeze(o, (0,)) for o in out)
        return ops.squeeze(out, (0,))
    if x.ndim != image_ndim:
        raise ArgumentError(f"expected a {image_ndim}-D (batched) or {image_ndim - 1}-D "
                            f"(unbatched) input, got shape {tuple(x.shape)}")
    return fn(x)


def _same_padding(x: Any, kernel: tuple, dilation: tuple, stride: tuple) -> tuple:
    """(input, padding) for padding="same": symmetric when possible, else x is padded."""
    ops = backend_of(x).ops
    if any(s != 1 for s in stride):
        raise ArgumentError("padding='same' is not supported for strided convolutions")
    totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
    if all(t % 2 == 0 for t in totals):
        return x, tuple(t // 2 for t in totals)
    pads: tuple = ()
    for t in reversed(totals):  # pad's order: the last dim first
        pads += (t // 2, t - t // 2)
    return ops.pad(x, pads, 0.0), (0,) * len(totals)


# -- convolution -----------------------------------------------------------------------


def _check_channels(x: Any, weight: Any, groups: int) -> None:
    """torch's error for an input whose channels do not fit the weight (the formula refuses it
    too, in its own words; users' code matches torch's)."""
    want = weight.shape[1] * groups
    if weight.ndim == x.ndim and groups >= 1 and x.shape[1] != want:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {want} channels, but got "
                           f"{x.shape[1]} channels instead")


def conv2d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Any:
    """2-D convolution (cross-correlation) of (N, C, H, W) or (C, H, W) with ``weight``."""
    ops = backend_of(input).ops
    s, d = _pair(stride, "stride"), _pair(dilation, "dilation")
    k = tuple(weight.shape[2:])

    def run(x: Any) -> Any:
        if padding == "valid":
            p = (0, 0)
        elif padding == "same":
            x, p = _same_padding(x, k, d, s)
        else:
            p = _pair(padding, "padding")
        _check_channels(x, weight, int(groups))
        if int(groups) == 1:
            return ops.conv2d(x, weight, bias, s, p, d)
        return ops.conv2d_grouped(x, weight, bias, s, p, d, int(groups))

    return _unbatched(input, 4, run)


def conv1d(input: Any, weight: Any, bias: Any = None, stride: Any = 1, padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Any:
    """1-D convolution (cross-correlation) of (N, C, L) or (C, L) with ``weight``, as torch."""
    ops = backend_of(input).ops
    s, d = _single(stride, "stride"), _single(dilation, "dilation")

    def run(x: Any) -> Any:
        if padding == "valid":
            p = 0
        elif padding == "same":
            x, (p,) = _same_padding(x, (weight.shape[2],), (d,), (s,))
        else:
            p = _single(padding, "padding")
        _check_channels(x, weight, int(groups))
        return ops.conv1d(x, weight, bias, s, p, d, int(groups))

    return _unbatched(input, 3, run)


# -- pooling ---------------------------------------------------------------------------


def _no_ceil(ceil_mode: bool, name: str) -> None:
    if ceil_mode:
        raise NotImplementedError(f"{name}: ceil_mode=True is not supported")


def max_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False,
               return_indices: bool = False) -> Any:
    """2-D max pooling, as torch (``return_indices`` gives the argmax positions too)."""
    ops = backend_of(input).ops
    _no_ceil(ceil_mode, "max_pool2d")
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None or stride == () else _pair(stride, "stride")
    p, d = _pair(padding, "padding"), _pair(dilation, "dilation")
    out = _unbatched(input, 4, lambda x: tuple(ops.max_pool2d(x, k, s, p, d)))
    return tuple(out) if return_indices else out[0]


def avg_pool2d(input: Any, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Any:
    """2-D average pooling, as torch (``count_include_pad``, ``divisor_override``)."""
    ops = backend_of(input).ops
    _no_ceil(ceil_mode, "avg_pool2d")
    k = _pair(kernel_size, "kernel_size")
    s = k if stride is None or stride == () else _pair(stride, "stride")
    p = _pair(padding, "padding")

    def run(x: Any) -> Any:
        mean = ops.avg_pool2d(x, k, s, p)
        if divisor_override is not None:
            return mean * (k[0] * k[1] / float(divisor_override))
        if count_include_pad or p == (0, 0):
            return mean
        ones = backend_of(x).from_numpy(_ones((1, 1) + tuple(x.shape[2:]), x.dtype))
        return mean / ops.avg_pool2d(ones, k, s, p)  # the share of real elements

    return _unbatched(input, 4, run)


def check_adaptive_rank(input: Any, output_size: Any, nd: int) -> None:
    """torch.nn.functional's check that an adaptive pool's input has a dim per entry of a
    sequence ``output_size`` and one more (a ValueError in torch: ArgumentError is one)."""
    if not isinstance(output_size, int) and input.ndim <= len(tuple(output_size)):
        raise ArgumentError(f"Input dimension should be at least {len(tuple(output_size)) + 1}")


def adaptive_avg_pool2d(input: Any, output_size: Any) -> Any:
    """Average pooling of (N, C, H, W) or (C, H, W) to ``output_size``."""
    ops = backend_of(input).ops
    check_adaptive_rank(input, output_size, 2)
    size = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if len(size) != 2:
        raise ArgumentError(f"adaptive_avg_pool2d: output_size must be 2 (got {output_size!r})")
    size = tuple(int(input.shape[-2 + i]) if v is None else int(v) for i, v in enumerate(size))
    if min(size) < 0:
        raise RuntimeError("adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{size[0]}, {size[1]}}}")
    if input.ndim not in (3, 4):
        raise ArgumentError(f"adaptive_avg_pool2d: expected a 3-D or 4-D input, got shape "
                            f"{tuple(input.shape)}")
    return ops.adaptive_avg_pool2d(input, size)


# -- normalisation ---------------------------------------------------------------------


def batch_norm(input: Any, running_mean: Any, running_var: Any, weight: Any = None,
               bias: Any = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Any:
    """torch's ``batch_norm``: in training, the batch statistics normalise and, when running
    stats are given, update them in place (``(1 - momentum) * old + momentum * batch``,
    with the unbiased batch variance); in eval, the running stats normalise."""
    backend = backend_of(input)
    ops = backend.ops
    if not (training and running_mean is not None and running_var is not None):
        return ops.batch_norm(input, running_mean, running_var, weight, bias, bool(training),
                              float(eps))
    n = math.prod(input.shape[d] for d in range(input.ndim) if d != 1)
    if n <= 1:
        raise ValueError(f"batch_norm: expected more than 1 value per channel when "
                         f"training, got input of shape {tuple(input.shape)}")
    # the batch statistics come out of the fused formula (Note [Fused batch_norm])
    result, mean, var = ops.batch_norm_train(input, weight, bias, float(eps))
    with backend.autograd.no_grad():
        m = float(momentum)
        running_mean.mul_(1.0 - m).add_(mean.detach() * m)
        running_var.mul_(1.0 - m).add_(var.detach() * (m * n / (n - 1)))
    return result


# -- misc formulas ---------------------------------------------------------------------


def cumsum(x: Any, dim: int, dtype: Any = None, *, out: Any = None) -> Any:
    """The cumulative sum along ``dim``."""
    if out is not None:
        return _out_args.write_out("cumsum", cumsum, (x, dim, dtype), {}, out)
    ops = backend_of(x).ops
    return ops.cumsum(x if dtype is None else functions.cast(x, dtype), int(dim))


def flip(x: Any, dims: Any) -> Any:
    """``x`` reversed along ``dims``."""
    ops = backend_of(x).ops
    return ops.flip(x, dims_arg(dims, x.ndim) if x.ndim else ())


def tril(x: Any, diagonal: int = 0, *, out: Any = None) -> Any:
    """The lower triangle of ``x`` (below diagonal ``diagonal``), zeros elsewhere."""
    if out is not None:
        return _out_args.write_out("tril", tril, (x, diagonal), {}, out)
    ops = backend_of(x).ops
    return ops.tril(x, int(diagonal))


def triu(x: Any, diagonal: int = 0, *, out: Any = None) -> Any:
    """The upper triangle of ``x`` (above diagonal ``diagonal``), zeros elsewhere."""
    if out is not None:
        return _out_args.write_out("triu", triu, (x, diagonal), {}, out)
    ops = backend_of(x).ops
    return ops.triu(x, int(diagonal))


def pad(input: Any, pad: Sequence[int], mode: str = "constant",
        value: float | None = None) -> Any:
    """``input`` padded with ``value`` (``pad`` lists (before, after) pairs, last dim first)."""
    ops = backend_of(input).ops
    if mode != "constant":
        raise NotImplementedError(f"pad: only mode='constant' is supported, got {mode!r}")
    return ops.pad(input, tuple(int(p) for p in pad), 0.0 if value is None else float(value))


def layer_norm(input: Any, normalized_shape: Sequence[int], weight: Any = None,
               bias: Any = None, eps: float = 1e-05, cudnn_enable: bool = True) -> Any:
    """``torch.layer_norm``: normalise over the trailing ``normalized_shape`` dims (mean 0,
    variance 1, biased), then scale by ``weight`` and shift by ``bias`` when given;
    ``cudnn_enable`` is accepted and ignored (CPU only), as torch does on the CPU."""
    ops = backend_of(input).ops
    shape = (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(
        int(n) for n in normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise ArgumentError(f"layer_norm: normalized_shape {shape} does not match the trailing "
                            f"dims of an input of shape {tuple(input.shape)}")
    return ops.layer_norm(input, shape, weight, bias, float(eps))


def sort(x: Any, dim: int = -1, descending: bool = False, stable: bool = False, *,
         out: Any = None) -> Any:
    """(values, indices) of ``x`` sorted along ``dim``."""
    if out is not None:
        return _out_args.write_out("sort", sort, (x, dim, descending, stable), {}, out)
    ops = backend_of(x).ops
    return return_types.sort(ops.sort(x, int(dim), bool(descending)))


def argsort(x: Any, dim: int = -1, descending: bool = False, stable: bool = False, *,
            out: Any = None) -> Any:
    """The indices that sort ``x`` along ``dim``."""
    if out is not None:
        return _out_args.write_out("argsort", argsort, (x, dim, descending, stable), {}, out)
    ops = backend_of(x).ops
    return ops.sort(x, int(dim), bool(descending))[1]


def topk(x: Any, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *,
         out: Any = None) -> Any:
    """(values, indices) of the ``k`` largest (or smallest) entries along ``dim``."""
    if out is not None:
        return _out_args.write_out("topk", topk, (x, k, dim, largest, sorted), {}, out)
    ops = backend_of(x).ops
    return return_types.topk(ops.topk(x, int(k), int(dim), bool(largest)))


def masked_fill(input: Any, mask: Any, value: Any) -> Any:
    """``input`` with ``value`` where the bool ``mask`` is true; a 0-d tensor ``value`` gets
    the gradient summed over the masked positions (``masked_fill_tensor``)."""
    ops = backend_of(input).ops
    if mask.dtype.name != "bool":
        # torch raises RuntimeError; TypeError kept for tests/ops/test_ops_api_nn.py
        raise TypeError(f"masked_fill_ only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    if is_tensor(value):
        if value.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but "
                               f"got tensor with {value.ndim} dimension(s).")
        return ops.masked_fill_tensor(input, mask, value)
    if not is_floating_or_complex(input.dtype):
        # torch converts the number to the input's dtype (1.5 -> 1 in int64, 300 in uint8 is an
        # overflow error); the formula's float value would promote an integer input to float
        check_fits(value, input.dtype)
        fill = np.array(np.asarray(value).astype(np.dtype(input.dtype)))
        return ops.masked_fill_tensor(input, mask, backend_of(input).from_numpy(fill))
    return ops.masked_fill(input, mask, float(value))


# -- composites ------------------------------------------------------------------------


def roll(x: Any, shifts: Any, dims: Any = None) -> Any:
    """``x`` rotated by ``shifts`` along ``dims`` (flattened when dims is None)."""
    ops = backend_of(x).ops
    if dims is None:
        return ops.reshape(roll(ops.reshape(x, (-1,)), shifts, 0), tuple(x.shape))
    shifts = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    if not shifts:
        raise ArgumentError("`shifts` required")
    if len(shifts) != len(dims):
        raise ArgumentError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:"
                            f"{len(dims)}")
    out = x
    for shift, dim in zip(shifts, dims):
        d = wrap_dim(dim, x.ndim)
        n = x.shape[d]
        s = int(shift) % n if n else 0
        if s:
            out = ops.cat([ops.slice(out, d, n - s, n, 1), ops.slice(out, d, 0, n - s, 1)], d)
    return out


def repeat(x: Any, *sizes: Any) -> Any:
    """``x`` tiled ``sizes`` times along each dim."""
    ops = backend_of(x).ops
    reps = shape_arg(sizes)
    if len(reps) < x.ndim:
        raise ArgumentError(f"repeat: the number of repeats {reps} can not be smaller than the "
                            f"number of dims of a tensor of shape {tuple(x.shape)}")
    return ops.repeat(x, tuple(int(r) for r in reps))


def mv(mat: Any, vec: Any, *, out: Any = None) -> Any:
    """The product of a matrix and a vector."""
    if out is not None:
        return _out_args.write_out("mv", mv, (mat, vec), {}, out)
    ops = backend_of(mat).ops
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.ndim}, {vec.ndim}")
    functions._check_vector_product(mat, vec)
    dtype_checks.check_mv(mat, vec)
    return ops.mv(mat, vec)


def einsum(equation: str, *operands: Any) -> Any:
    """Einstein summation (``einsum("ij,jk->ik", a, b)``), by pairwise matmuls (Note [einsum])."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    dtype_checks.check_operands(operands)
    return _einsum(_ops_of(operands), equation, list(operands))


def _ones(shape: tuple, dtype: Any) -> Any:
    return np.ones(shape, dtype=dtype)


# ---------------------------------------------------------------------------------------------
# einsum: pairwise contraction through one batched matmul per pair (Note [einsum])
#
# Note [einsum]
# Each operand first sums away the letters no one else needs; then operands are folded left to
# right: for a pair (A, B), letters are batch (in both and still needed), contracted (in both,
# no longer needed) or free (in one only). A is permuted to (batch, free_A, contracted) and B to
# (batch, contracted, free_B), each flattened to 3-D, and one matmul gives (batch, free_A,
# free_B). The result is permuted to the output's order at the end. Only permute, reshape, sum
# and matmul are used, so gradients of every order come from those formulas. Not supported:
# ellipsis and a letter repeated within one operand (diagonals).


def _einsum(ops: Any, equation: str, operands: list) -> Any:
    eq = equation.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if "." in eq:
        raise NotImplementedError("einsum: '...' (ellipsis) is not supported")
    if len(inputs) != len(operands):
        raise ArgumentError(f"einsum: equation {equation!r} names {len(inputs)} operands, got "
                            f"{len(operands)}")
    letters = set(string.ascii_letters)
    for term, t in zip(inputs, operands):
        if not set(term) <= letters or len(term) != t.ndim:
            raise ArgumentError(f"einsum: subscripts {term!r} do not match an operand of shape "
                                f"{tuple(t.shape)}")
        if len(set(term)) != len(term):
            raise NotImplementedError(f"einsum: a repeated subscript within {term!r} "
                                      "(a diagonal) is not supported")
    if not arrow:
        counts = collections.Counter("".join(inputs))
        rhs = "".join(sorted(c for c in counts if counts[c] == 1))
    if not set(rhs) <= set(lhs) or len(set(rhs)) != len(rhs):
        raise ArgumentError(f"einsum: invalid output subscripts {rhs!r} in {equation!r}")
    sizes: dict[str, int] = {}
    for term, t in zip(inputs, operands):
        for c, n in zip(term, t.shape):
            if sizes.setdefault(c, n) != n:
                raise ArgumentError(f"einsum: subscript {c!r} has sizes {sizes[c]} and {n}")

    def needed(k: int) -> set:
        """Letters wanted after operand k: in the output or in a later operand."""
        return set(rhs).union(*[set(s) for s in inputs[k + 1:]])

    def reduce_alone(term: str, t: Any, keep: set) -> tuple:
        drop = tuple(i for i, c in enumerate(term) if c not in keep)
        if not drop:
            return term, t
        return "".join(c for c in term if c in keep), ops.sum(t, drop, False)

    acc_term, acc = reduce_alone(inputs[0], operands[0],
                                 needed(0).union(*[set(s) for s in inputs[1:]]))
    for k in range(1, len(operands)):
        later = needed(k)
        term, t = reduce_alone(inputs[k], operands[k], later | set(acc_term))
        acc_term, acc = reduce_alone(acc_term, acc, later | set(term))
        batch = [c for c in acc_term if c in term and c in later]
        contracted = [c for c in acc_term if c in term and c not in later]
        free_a = [c for c in acc_term if c not in term]
        free_b = [c for c in term if c not in acc_term]
        a = ops.permute(acc, tuple(acc_term.index(c) for c in batch + free_a + contracted))
        b = ops.permute(t, tuple(term.index(c) for c in batch + contracted + free_b))

        def size(cs: list) -> int:
            return math.prod(sizes[c] for c in cs)

        a = ops.reshape(a, (size(batch), size(free_a), size(contracted)))
        b = ops.reshape(b, (size(batch), size(contracted), size(free_b)))
        acc_term = "".join(batch + free_a + free_b)
        acc = ops.reshape(ops.matmul(a, b), tuple(sizes[c] for c in acc_term))
    acc_term, acc = reduce_alone(acc_term, acc, set(rhs))
    if acc_term == rhs:
        return acc
    return ops.permute(acc, tuple(acc_term.index(c) for c in rhs))


