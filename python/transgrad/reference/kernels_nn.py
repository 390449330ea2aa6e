"""The reference engine's neural-network kernels: numpy implementations of the last section of
translator/signatures.py (im2col, col2im, max_pool2d, adaptive_pool_weights, cumsum, flip, tril,
triu, pad, sort, topk, and batch normalisation's batch_norm_stats, channel_affine and
batch_norm_backward). Re-exported by ``kernels.py``; same conventions (Note [Kernel
conventions], Note [Reference kernels]). The C++ twins are csrc/kernels/conv.cpp, pool.cpp and
nn_misc.cpp; both follow Note [Window geometry] below, so the engines agree exactly.

Note [Window geometry]
~~~~~~~~~~~~~~~~~~~~~~
For an input extent ``H``, a kernel extent ``k``, stride ``s``, padding ``p`` and dilation ``d``
(all per spatial dim, as (h, w) pairs): ``out = (H + 2p - d (k - 1) - 1) // s + 1``, which must
be >= 1. Window ``o`` reads input rows ``o s - p + i d`` for ``i`` in ``range(k)``; rows outside
``[0, H)`` are padding (zero for im2col/col2im, never chosen by max_pool2d, whose padding must be
at most half the kernel, as in torch). im2col's rows are ordered (channel, i, j) like torch's
``unfold``; col2im is its adjoint (overlapping windows sum).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from transgrad._errors import ArgumentError
from transgrad.reference.kernel_support import (
    _F32,
    _arr,
    _check_size,
    _is_half,
    _new,
    _quiet,
    _shape,
    _wrap_dim,
    _wrap_dims,
)

_INT = np.dtype("int64")


def _pair(v: Sequence[int], what: str, name: str) -> tuple[int, int]:
    t = tuple(operator.index(i) for i in v)
    if len(t) != 2:
        raise ArgumentError(f"{name}: {what} must have 2 entries (h, w), got {t}")
    return t  # type: ignore[return-value]


def _geometry(name: str, hw: Sequence[int], kernel_size: Sequence[int], stride: Sequence[int],
              padding: Sequence[int], dilation: Sequence[int]) -> tuple:
    """(kernel, stride, padding, dilation, out) pairs, checked (Note [Window geometry])."""
    k, s, p, d = (_pair(v, w, name) for v, w in ((kernel_size, "kernel_size"),
                                                  (stride, "stride"), (padding, "padding"),
                                                  (dilation, "dilation")))
    if min(k) < 1 or min(s) < 1 or min(d) < 1 or min(p) < 0:
        raise ArgumentError(f"{name}: kernel_size {k}, stride {s} and dilation {d} must be "
                            f"positive and padding {p} non-negative")
    out = tuple((hw[a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) // s[a] + 1 for a in range(2))
    if min(out) < 1:
        raise ArgumentError(f"{name}: input of spatial size {tuple(hw)} is too small for "
                            f"kernel_size {k}, padding {p}, dilation {d} (output size {out})")
    return k, s, p, d, out


def _image(a: np.ndarray, name: str) -> None:
    if a.ndim != 4:
        raise ArgumentError(f"{name}: expected a 4-D (N, C, H, W) input, got shape {_shape(a)}")
    if a.dtype.kind != "f":
        raise ArgumentError(f"{name}: unsupported dtype {a.dtype} (expected float32 or float64)")


def _window(k: tuple, s: tuple, d: tuple, out: tuple, i: int, j: int) -> tuple:
    """The (rows, cols) slices of a padded image read by kernel offset (i, j)."""
    return (slice(i * d[0], i * d[0] + s[0] * (out[0] - 1) + 1, s[0]),
            slice(j * d[1], j * d[1] + s[1] * (out[1] - 1) + 1, s[1]))


def im2col(x: Any, kernel_size: Sequence[int], stride: Sequence[int], padding: Sequence[int],
           dilation: Sequence[int]) -> Any:
    a = _arr(x)
    _image(a, "im2col")
    n, c, h, w = a.shape
    k, s, p, d, out = _geometry("im2col", (h, w), kernel_size, stride, padding, dilation)
    xp = np.pad(a, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    cols = np.empty((n, c, k[0], k[1], out[0], out[1]), dtype=a.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            cols[:, :, i, j] = xp[(Ellipsis,) + _window(k, s, d, out, i, j)]
    return _new(cols.reshape(n, c * k[0] * k[1], out[0] * out[1]))


def col2im(cols: Any, input_size: Sequence[int], kernel_size: Sequence[int],
           stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int]) -> Any:
    a = _arr(cols)
    hw = _pair(input_size, "input_size", "col2im")
    if a.ndim != 3 or a.dtype.kind != "f":
        raise ArgumentError(f"col2im: expected a 3-D (N, C*kh*kw, L) floating tensor, got shape "
                            f"{_shape(a)} of dtype {a.dtype}")
    k, s, p, d, out = _geometry("col2im", hw, kernel_size, stride, padding, dilation)
    n, rows, length = a.shape
    if rows % (k[0] * k[1]) or length != out[0] * out[1]:
        raise ArgumentError(f"col2im: columns of shape {_shape(a)} do not match kernel_size {k} "
                            f"and output size {out} (expected (N, C*{k[0] * k[1]}, "
                            f"{out[0] * out[1]}))")
    c = rows // (k[0] * k[1])
    blocks = a.reshape(n, c, k[0], k[1], out[0], out[1])
    img = np.zeros((n, c, hw[0] + 2 * p[0], hw[1] + 2 * p[1]), dtype=a.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            img[(Ellipsis,) + _window(k, s, d, out, i, j)] += blocks[:, :, i, j]
    return _new(np.asarray(img[:, :, p[0]:p[0] + hw[0], p[1]:p[1] + hw[1]], order="C"))


def max_pool2d(x: Any, kernel_size: Sequence[int], stride: Sequence[int],
               padding: Sequence[int], dilation: Sequence[int]) -> tuple:
    a = _arr(x)
    _image(a, "max_pool2d")
    h, w = a.shape[2:]
    k, s, p, d, out = _geometry("max_pool2d", (h, w), kernel_size, stride, padding, dilation)
    if p[0] > k[0] // 2 or p[1] > k[1] // 2:
        raise ArgumentError(f"max_pool2d: padding {p} must be at most half of kernel_size {k}")
    xp = np.pad(a, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])), constant_values=-np.inf)
    rows = np.arange(xp.shape[2]) - p[0]
    cols = np.arange(xp.shape[3]) - p[1]
    flat = rows[:, None] * w + cols[None, :]
    inside = np.pad(np.ones((h, w), bool), ((p[0], p[0]), (p[1], p[1])))
    wins, where, valid = [], [], []
    for i in range(k[0]):
        for j in range(k[1]):
            sl = _window(k, s, d, out, i, j)
            wins.append(xp[(Ellipsis,) + sl])
            where.append(flat[sl])
            valid.append(inside[sl])
    stacked = np.stack(wins, axis=2)  # (N, C, kh*kw, oh, ow)
    best = np.max(stacked, axis=2, keepdims=True)  # a nan wins (as torch)
    hit = (stacked == best) | (np.isnan(stacked) & np.isnan(best))
    arg = np.argmax(hit & np.stack(valid, axis=0), axis=2)  # the first real maximum
    values = np.take_along_axis(stacked, arg[:, :, None], axis=2)[:, :, 0]
    index = np.stack(where, axis=0)[arg, np.arange(out[0])[:, None], np.arange(out[1])]
    return _new(np.asarray(values, order="C")), _new(index.astype(_INT))


def adaptive_pool_weights(x: Any, in_size: int, out_size: int) -> Any:
    a = _arr(x)
    if a.dtype.kind != "f":
        raise ArgumentError(f"adaptive_pool_weights: unsupported dtype {a.dtype} (expected float32 "
                            "or float64)")
    if in_size < 1 or out_size < 1:
        raise ArgumentError(f"adaptive_pool_weights: sizes must be positive, got in_size "
                            f"{in_size} and out_size {out_size}")
    m = np.zeros((out_size, in_size), dtype=a.dtype)
    for i in range(out_size):
        lo, hi = (i * in_size) // out_size, ((i + 1) * in_size + out_size - 1) // out_size
        m[i, lo:hi] = 1.0 / (hi - lo)
    return _new(m)


def cumsum(x: Any, dim: int) -> Any:
    a = _arr(x)
    d = _wrap_dim(dim, a.ndim, "cumsum")
    if a.ndim == 0:
        return _new(a.astype(_INT if a.dtype.kind == "b" else a.dtype))
    if _is_half(a.dtype):  # accumulated in float32, each partial sum rounded back
        return _new(np.cumsum(a, axis=d, dtype=_F32).astype(a.dtype))
    out_dtype = _INT if a.dtype.kind in "biu" else a.dtype
    return _new(np.cumsum(a, axis=d, dtype=out_dtype))


def flip(x: Any, dims: Sequence[int]) -> Any:
    a = _arr(x)
    ds = _wrap_dims(dims, a.ndim, "flip")
    return _new(np.flip(a, ds).copy() if ds else a.copy())


def _triangle(x: Any, diagonal: int, name: str, fn: Any) -> Any:
    a = _arr(x)
    if a.ndim < 2:
        raise ArgumentError(f"{name}: input tensor must have at least 2 dimensions (got shape "
                            f"{_shape(a)})")
    # Diagonals beyond the matrix select all or nothing: clamped, so numpy's C long never
    # overflows (the compiled kernel takes any int64, as torch).
    rows, cols = a.shape[-2], a.shape[-1]
    return _new(fn(a, min(max(operator.index(diagonal), -rows - 1), cols + 1)))


def tril(x: Any, diagonal: int) -> Any:
    return _triangle(x, diagonal, "tril", np.tril)


def triu(x: Any, diagonal: int) -> Any:
    return _triangle(x, diagonal, "triu", np.triu)


def pad(x: Any, pads: Sequence[int], value: float) -> Any:
    a = _arr(x)
    pads = tuple(operator.index(v) for v in pads)
    if len(pads) % 2 or len(pads) // 2 > a.ndim:
        raise ArgumentError(f"pad: pads {pads} must have an even length of at most 2 * ndim for a "
                            f"tensor of shape {_shape(a)}")
    shape, src, dst = list(a.shape), [slice(None)] * a.ndim, [slice(None)] * a.ndim
    for k in range(len(pads) // 2):
        dim = a.ndim - 1 - k
        lo, hi, size = pads[2 * k], pads[2 * k + 1], a.shape[dim]
        shape[dim] = size + lo + hi
        if shape[dim] < 0:
            raise ArgumentError(f"pad: pads {pads} give a negative size {shape[dim]} in dimension "
                                f"{dim} of a tensor of shape {_shape(a)}")
        start, stop = max(0, -lo), size - max(0, -hi)
        length = max(0, stop - start)
        src[dim] = slice(start, start + length)
        dst[dim] = slice(max(0, lo), max(0, lo) + length)
    _check_size(shape, a.dtype)
    out = np.full(shape, value).astype(a.dtype)
    out[tuple(dst)] = a[tuple(src)]
    return _new(out)


def sort(x: Any, dim: int, descending: bool) -> tuple:
    a = _arr(x)
    if a.ndim == 0:
        return _new(a.copy()), _new(np.zeros((), _INT))
    d = _wrap_dim(dim, a.ndim, "sort")
    if descending:  # stable: equal values keep their order; nan first (largest)
        n = a.shape[d]
        idx = n - 1 - np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    else:
        idx = np.argsort(a, axis=d, kind="stable")
    return _new(np.take_along_axis(a, idx, d)), _new(idx.astype(_INT))


def topk(x: Any, k: int, dim: int, largest: bool) -> tuple:
    a = _arr(x)
    d = _wrap_dim(dim, a.ndim, "topk")
    size = a.shape[d] if a.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")  # torch's words
    values, idx = sort(x, dim, largest)
    if a.ndim == 0:
        return values, idx
    sl = (slice(None),) * d + (slice(0, k),)
    return _new(_arr(values)[sl].copy()), _new(_arr(idx)[sl].copy())


# ---------------------------------------------------------------------------------------------
# Batch normalisation (Note [Fused batch_norm] in formulas/norm.py): x is (N, C, ...), viewed as
# (N, C, L); statistics per channel over N and L, accumulated in float64 as the C++ twin
# (csrc/kernels/norm.cpp) does, and returned in x's dtype.


def _channels(a: np.ndarray, name: str) -> np.ndarray:
    """``a`` (N, C, ...) as (N, C, L), checked."""
    if a.ndim < 2:
        raise ArgumentError(f"{name}: expected an (N, C, ...) input of at least 2 dims, got shape "
                            f"{_shape(a)}")
    if a.dtype.kind != "f":
        raise ArgumentError(f"{name}: unsupported dtype {a.dtype} (expected a floating dtype)")
    return a.reshape(a.shape[0], a.shape[1], -1) if a.size else a.reshape(
        a.shape[0], a.shape[1], int(np.prod(a.shape[2:], dtype=np.int64)))


def _per_channel(t: Any, a: np.ndarray, name: str, what: str) -> np.ndarray:
    v = _arr(t)
    if v.shape != (a.shape[1],):
        raise ArgumentError(f"{name}: {what} must have shape ({a.shape[1]},) for an input of shape "
                            f"{_shape(a)}, got {_shape(v)}")
    if v.dtype != a.dtype:
        raise ArgumentError(f"{name}: {what} has dtype {v.dtype}, the input {a.dtype}")
    return v


@_quiet
def batch_norm_stats(x: Any) -> tuple:
    a = _arr(x)
    flat = _channels(a, "batch_norm_stats").astype(np.float64)
    count = flat.shape[0] * flat.shape[2]
    mean = flat.sum(axis=(0, 2)) / count if count else np.full(flat.shape[1], np.nan)
    dev = flat - mean.astype(a.dtype).astype(np.float64)[None, :, None]
    var = (dev * dev).sum(axis=(0, 2)) / count if count else np.full(flat.shape[1], np.nan)
    return _new(mean.astype(a.dtype)), _new(var.astype(a.dtype))


def channel_affine(x: Any, scale: Any, shift: Any) -> Any:
    a = _arr(x)
    flat = _channels(a, "channel_affine")
    k = _per_channel(scale, a, "channel_affine", "scale")
    d = _per_channel(shift, a, "channel_affine", "shift")
    return _new((flat * k[:, None] + d[:, None]).reshape(a.shape))


@_quiet
def batch_norm_backward(grad: Any, x: Any, mean: Any, rstd: Any, weight: Any) -> tuple:
    a, g = _arr(x), _arr(grad)
    name = "batch_norm_backward"
    flat = _channels(a, name)
    if g.shape != a.shape:
        raise ArgumentError(f"{name}: grad of shape {_shape(g)} for an input of shape {_shape(a)}")
    if g.dtype != a.dtype:
        raise ArgumentError(f"{name}: grad has dtype {g.dtype}, the input {a.dtype}")
    m = _per_channel(mean, a, name, "mean").astype(np.float64)
    r = _per_channel(rstd, a, name, "rstd").astype(np.float64)
    w = (np.ones_like(r) if weight is None
         else _per_channel(weight, a, name, "weight").astype(np.float64))
    gf = g.reshape(flat.shape).astype(np.float64)
    centered = flat.astype(np.float64) - m[None, :, None]
    count = flat.shape[0] * flat.shape[2]
    sg = gf.sum(axis=(0, 2))
    sgx = (gf * centered).sum(axis=(0, 2))
    scale = w * r
    gx = (gf * scale[None, :, None] - centered * (scale * r * r * sgx / count)[None, :, None]
          - (scale * sg / count)[None, :, None])
    return _new(gx.astype(a.dtype).reshape(a.shape)), _new(np.stack([sg, sgx * r]).astype(a.dtype))
