"""Entries of torch's derivative table that are compositions of functions both engines already
have: ``fmax``/``fmin``, ``copysign``, ``ldexp``, ``special.xlog1py``, ``special.entr``,
``mvlgamma``, ``vdot``, ``count_nonzero``, ``fill``, ``renorm``, ``nanmedian``, ``put``,
``index_put``, ``narrow_copy``, ``unsafe_split``/``unsafe_split_with_sizes`` and the pixel and
channel shuffles.

Stage: public API, engine-neutral (each finds its engine from its tensor). Input: torch's
arguments. Output: torch's value; the gradient of every order is the composition's, which is
torch's formula wherever the entry's derivative is defined (each function says which of torch's
derivative expressions its composition reproduces, and at which points it differs, if any).
Nothing here reads tensor data into Python except ``nanmedian`` (sizes of the NaN-free part),
``put`` and ``index_put`` (index wrapping), none of which is differentiated.
"""

from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from transgrad import return_types
from transgrad._api import dtype_checks, indexing
from transgrad._api import out_args as _out_args
from transgrad._api.extra_functions import sort
from transgrad._api.functions import (
    abs,
    add,
    amin,
    as_tensor,
    broadcast_tensors,
    cast,
    check_tensor_first,
    check_tensors,
    clamp,
    div,
    dot,
    eq,
    exp,
    expand,
    floor_divide,
    gather,
    ge,
    index_add,
    isnan,
    le,
    log,
    log1p,
    logical_not,
    logical_or,
    lt,
    mul,
    narrow,
    ne,
    neg,
    norm,
    permute,
    reshape,
    select,
    sin,
    split,
    sqrt,
    squeeze,
    stack,
    sub,
    sum,
    where,
    wrap_dim,
)
from transgrad._api.pointwise import exp2, lgamma, xlogy
from transgrad._api.scatter import index_copy
from transgrad._backend import backend_of, is_tensor

# torch's top-level names (entr, xlog1py, multigammaln are torch.special's: special.py)
__all__ = [
    "channel_shuffle", "conv_tbc", "copysign", "count_nonzero", "fill", "fmax", "fmin",
    "frexp", "index_put", "nextafter",
    "i0", "ldexp", "mode", "mvlgamma", "nanmedian", "narrow_copy", "norm_except_dim", "sinc",
    "pixel_shuffle", "pixel_unshuffle", "put",
    "renorm", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes", "vdot", "_weight_norm",
]
# torch.linalg's names (linalg.py)
LINALG = ["cross", "vector_norm"]


def _tensors(x: Any, other: Any) -> tuple:
    if not is_tensor(x):
        x = as_tensor(x, other)
    return x, as_tensor(other, x)


# -- pointwise ----------------------------------------------------------------------------------


def fmax(input: Any, other: Any, *, out: Any = None) -> Any:
    """The larger of the two, ignoring a NaN (NaN only where both are). Gradient as torch's: to
    ``input`` where ``input >= other`` or ``other`` is NaN, else to ``other``."""
    if out is not None:
        return _out_args.write_out("fmax", fmax, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("fmax", input, other)
    x, y = _tensors(input, other)
    return where(logical_or(ge(x, y), isnan(y)), x, y)


def fmin(input: Any, other: Any, *, out: Any = None) -> Any:
    """The smaller of the two, ignoring a NaN (NaN only where both are); gradient as fmax's."""
    if out is not None:
        return _out_args.write_out("fmin", fmin, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("fmin", input, other)
    x, y = _tensors(input, other)
    return where(logical_or(le(x, y), isnan(y)), x, y)


def _signbit(y: Any) -> Any:
    """Whether y's sign bit is set: y < 0, or y is -0.0 (1 / -0.0 is -inf)."""
    return lt(where(eq(y, 0), div(1.0, y), y), 0)


def copysign(input: Any, other: Any, *, out: Any = None) -> Any:
    """``|input|`` with the sign of ``other`` (-0.0 counts as negative). Gradient as torch's:
    ``grad * result / input`` for input (0 at input == 0), none for ``other``."""
    if out is not None:
        return _out_args.write_out("copysign", copysign, (input, other), {}, out)
    if not is_tensor(input):
        check_tensor_first("copysign", input, other)
    x, y = _tensors(input, other)
    if x.dtype.kind not in "fc":
        x = cast(x, np.result_type(y.dtype, np.float32) if y.dtype.kind == "f" else
                 np.dtype(np.float32))
    y = y.detach() if is_tensor(y) else y
    m = abs(x)
    return where(_signbit(y), neg(m), m)


def nextafter(input: Any, other: Any, *, out: Any = None) -> Any:
    """The next representable value after ``input`` towards ``other``. Gradients as torch's:
    ``grad`` for input where input != other (0 where equal), none for other. The step is
    taken on the data; ``input + step`` is exact (the two are neighbours)."""
    if out is not None:
        return _out_args.write_out("nextafter", nextafter, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("nextafter", input, other)
    x, y = _tensors(input, other)
    a, b = np.broadcast_arrays(np.asarray(x.detach().numpy()), np.asarray(y.detach().numpy()))
    with np.errstate(invalid="ignore"):
        step = np.nextafter(a, b.astype(a.dtype)) - a
    step_t = backend_of(x).from_numpy(np.asarray(step, order="C"))
    return where(eq(x.detach(), y.detach()), y.detach(), add(x, step_t))


def frexp(input: Any, *, out: Any = None) -> Any:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent``, |mantissa| in
    [0.5, 1) (0 for 0; inf and NaN kept, exponent 0). The exponent is int64 (torch: int32,
    a dtype transgrad's tensors do not have yet). The mantissa's gradient is
    ``grad / 2 ** exponent``, as torch's."""
    if out is not None:
        return _out_args.write_out("frexp", frexp, (input,), {}, out)
    if input.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    _, e = np.frexp(np.asarray(input.detach().numpy()))
    B = backend_of(input)
    exponent = B.from_numpy(np.asarray(e.astype(np.int32), order="C"))  # torch's dtype
    scale = B.from_numpy(np.asarray(np.ldexp(np.ones_like(
        np.asarray(input.detach().numpy())), -e), order="C"))
    return return_types.frexp((mul(input, scale), exponent))


def ldexp(input: Any, other: Any, *, out: Any = None) -> Any:
    """``input * 2 ** other``; gradients ``grad * 2 ** other`` and ``grad * result * ln 2``."""
    if out is not None:
        return _out_args.write_out("ldexp", ldexp, (input, other), {}, out)
    if type(other) is not type(input) or not is_tensor(input):
        check_tensors("ldexp", input, other)
    x, y = _tensors(input, other)
    if y.dtype.kind not in "fc":
        y = cast(y, x.dtype if x.dtype.kind == "f" else np.dtype(np.float32))
    return mul(x, exp2(y))


def xlog1py(input: Any, other: Any, *, out: Any = None) -> Any:
    """``input * log1p(other)``, 0 where input is 0 (unless other is NaN): ``xlogy(input,
    1 + other)``, whose gradients are torch's (``log1p(other)``, 0 where also other <= -1, and
    ``input / (1 + other)``)."""
    if out is not None:
        return _out_args.write_out("xlog1py", xlog1py, (input, other), {}, out)
    x, y = _tensors(input, other)
    if y.dtype.kind not in "fc":
        y = cast(y, x.dtype if x.dtype.kind == "f" else np.dtype(np.float32))
    return xlogy(x, add(y, 1.0))


def entr(input: Any, *, out: Any = None) -> Any:
    """``-input * log(input)`` for input > 0, 0 at 0, -inf below; gradient ``-(1 + log x)``."""
    if out is not None:
        return _out_args.write_out("entr", entr, (input,), {}, out)
    x = input
    return where(lt(x, 0), -math.inf, neg(xlogy(x, x)))


def mvlgamma(input: Any, p: int, *, out: Any = None) -> Any:
    """The multivariate log-gamma of dimension ``p``: ``sum_j lgamma(input - j / 2) +
    p (p - 1) / 4 log(pi)``; every element must be greater than ``(p - 1) / 2`` (as torch)."""
    if out is not None:
        return _out_args.write_out("mvlgamma", mvlgamma, (input, p), {}, out)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input
    if not bool(np.all(np.asarray(x.detach().numpy()) > (p - 1) / 2.0)):
        raise RuntimeError("All elements must be greater than (p-1)/2")
    total = lgamma(x)
    for j in range(1, p):
        total = add(total, lgamma(add(x, -j / 2.0)))
    return add(total, p * (p - 1) / 4.0 * math.log(math.pi))


multigammaln = mvlgamma


def sinc(input: Any, *, out: Any = None) -> Any:
    """``sin(pi x) / (pi x)``, 1 at 0. Near 0 (|pi x| < 1e-3) the Taylor polynomial
    ``1 - t^2/6 + t^4/120`` (t = pi x) is used, so every derivative is right there: 0 first,
    -pi^2/3 second (torch's second derivative at exactly 0 is NaN). The quotient is taken on a
    copy of x that is 1 near 0, so no NaN reaches the backward from the branch not taken."""
    if out is not None:
        return _out_args.write_out("sinc", sinc, (input,), {}, out)
    x = input
    if x.dtype.kind not in "fc":
        x = cast(x, np.dtype(np.float32))
    t = mul(x, math.pi)
    near = lt(abs(t.detach()), 1e-3)
    safe = where(near, 1.0, t)
    t2 = mul(t, t)
    taylor = add(mul(t2, add(mul(t2, 1.0 / 120.0), -1.0 / 6.0)), 1.0)
    return where(near, taylor, div(sin(safe), safe))


# -- special functions (torch.special; Note [Special functions by branches]) -------------------

# Note [Special functions by branches]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# log_ndtr, erfcx and the modified Bessel functions i0/i0e/i1/i1e are built from elementwise
# ops in branches, each accurate (relative, double) on its range: a convergent series or the
# functions erfc/log1p where those are accurate, an asymptotic expansion in 1/x beyond. Each
# branch sees a "safe" copy of x (inside its range everywhere) and ``where`` picks, so the
# branch not taken never produces inf/NaN that would leak into a gradient (0 * NaN). Every
# derivative is the composition's, i.e. torch's formula (i0' = i1, erfcx' = 2 x erfcx - 2 /
# sqrt(pi), ...), to every order.

_SQRT_PI = math.sqrt(math.pi)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_BESSEL_SERIES_MAX = 15.0  # |x| below: the power series; above: the asymptotic expansion


def _float(x: Any) -> Any:
    return x if x.dtype.kind in "fc" else cast(x, np.dtype(np.float32))


def log_ndtr(input: Any, *, out: Any = None) -> Any:
    """``log`` of the standard normal CDF, accurate in both tails: ``log1p(-erfc(x/sqrt2)/2)``
    above -1, ``log(erfc(-x/sqrt2)/2)`` down to -20, the asymptotic series of the Mills ratio
    below (Note [Special functions by branches])."""
    if out is not None:
        return _out_args.write_out("log_ndtr", log_ndtr, (input,), {}, out)
    from transgrad._api.pointwise import erfc

    x = _float(input)
    hi, lo = ge(x, -1.0), lt(x, -20.0)
    x_hi = where(hi, x, 0.0)
    x_mid = where(logical_or(hi, lo), -2.0, x)
    x_lo = where(lo, x, -30.0)
    upper = log1p(neg(div(erfc(mul(x_hi, 1 / math.sqrt(2.0))), 2.0)))
    middle = log(div(erfc(mul(x_mid, -1 / math.sqrt(2.0))), 2.0))
    inv2 = div(1.0, mul(x_lo, x_lo))
    series, term = 1.0, None
    for k in range(1, 7):  # 1 - 1/x^2 + 3/x^4 - 15/x^6 + ...
        term = mul(inv2, -(2 * k - 1)) if term is None else mul(mul(term, inv2), -(2 * k - 1))
        series = add(term, series)
    tail = add(sub(mul(mul(x_lo, x_lo), -0.5), log(neg(x_lo))), sub(log(series),
                                                                      _HALF_LOG_2PI))
    return where(hi, upper, where(lo, tail, middle))


def ndtri(input: Any, *, out: Any = None) -> Any:
    """The inverse of the standard normal CDF, ``sqrt(2) erfinv(2p - 1)``: its gradient,
    ``sqrt(2 pi) exp(ndtri(p)^2 / 2)``, is torch's; +-inf at 1 and 0, NaN outside [0, 1]. (2p - 1
    rounds where p is tiny: the relative error grows as eps / p below p ~ 1e-3.)"""
    if out is not None:
        return _out_args.write_out("ndtri", ndtri, (input,), {}, out)
    from transgrad._api.pointwise import erfinv

    return mul(erfinv(sub(mul(_float(input), 2.0), 1.0)), math.sqrt(2.0))


def erfcx(input: Any, *, out: Any = None) -> Any:
    """The scaled complementary error function ``exp(x^2) erfc(x)``: the product below 8, the
    asymptotic series ``1/(x sqrt(pi)) sum (-1)^k (2k-1)!! / (2x^2)^k`` above (no overflow; Note
    [Special functions by branches]). +inf where exp(x^2) overflows (x < -26.6), as torch."""
    if out is not None:
        return _out_args.write_out("erfcx", erfcx, (input,), {}, out)
    from transgrad._api.pointwise import erfc

    x = _float(input)
    big = ge(x, 8.0)
    x_small = where(big, 0.0, x)
    x_big = where(big, x, 10.0)
    direct = mul(exp(mul(x_small, x_small)), erfc(x_small))
    inv = div(1.0, mul(mul(x_big, x_big), 2.0))
    series, term = 1.0, None
    for k in range(1, 11):
        term = mul(inv, -(2 * k - 1)) if term is None else mul(mul(term, inv), -(2 * k - 1))
        series = add(term, series)
    return where(big, div(series, mul(x_big, _SQRT_PI)), direct)


def _bessel(x: Any, nu: int, scaled: bool) -> Any:
    """I_nu(x) (nu = 0, 1), times exp(-|x|) when ``scaled`` (Note [Special functions by
    branches])."""
    x = _float(x)
    ax = abs(x)
    big = ge(ax, _BESSEL_SERIES_MAX)
    xs = where(big, 0.0, x)
    # the power series: sum (x/2)^(2k+nu) / (k! (k+nu)!), each term from the last
    q = div(mul(xs, xs), 4.0)
    term = div(xs, 2.0) if nu else add(mul(xs, 0.0), 1.0)
    total = term
    for k in range(1, 60):
        term = div(mul(term, q), float(k * (k + nu)))
        total = add(total, term)
    if scaled:
        total = mul(total, exp(neg(abs(xs))))
    # the asymptotic expansion: e^|x| / sqrt(2 pi |x|) sum (-1)^k a_k(nu) / |x|^k
    xb = where(big, ax, 2.0 * _BESSEL_SERIES_MAX)
    mu = 4.0 * nu * nu
    term, series = None, 1.0
    for k in range(1, 30):
        factor = -(mu - (2 * k - 1) ** 2) / (8.0 * k)
        term = div(factor, xb) if term is None else div(mul(term, factor), xb)
        series = add(term, series)
    tail = div(series, sqrt(mul(xb, 2.0 * math.pi)))
    if not scaled:
        tail = mul(tail, exp(xb))
    if nu:  # I_1 is odd
        tail = where(lt(x, 0), neg(tail), tail)
    return where(big, tail, total)


def i0(input: Any, *, out: Any = None) -> Any:
    """The modified Bessel function of the first kind of order 0."""
    if out is not None:
        return _out_args.write_out("i0", i0, (input,), {}, out)
    return _bessel(input, 0, False)


def i0e(input: Any, *, out: Any = None) -> Any:
    """``exp(-|x|) i0(x)``, without overflow."""
    if out is not None:
        return _out_args.write_out("i0e", i0e, (input,), {}, out)
    return _bessel(input, 0, True)


def i1(input: Any, *, out: Any = None) -> Any:
    """The modified Bessel function of the first kind of order 1."""
    if out is not None:
        return _out_args.write_out("i1", i1, (input,), {}, out)
    return _bessel(input, 1, False)


def i1e(input: Any, *, out: Any = None) -> Any:
    """``exp(-|x|) i1(x)``, without overflow."""
    if out is not None:
        return _out_args.write_out("i1e", i1e, (input,), {}, out)
    return _bessel(input, 1, True)


# -- reductions and fills ------------------------------------------------------------------------


def vdot(input: Any, other: Any, *, out: Any = None) -> Any:
    """The dot product of two 1-D tensors (real tensors: ``dot``)."""
    if out is not None:
        return _out_args.write_out("vdot", vdot, (input, other), {}, out)
    return dot(input, other)


def count_nonzero(input: Any, dim: Any = None) -> Any:
    """The number of non-zero elements (over ``dim``: an int or a tuple), int64."""
    nz = cast(ne(input, 0), np.dtype(np.int64))
    if dim is None:
        return sum(nz)
    return sum(nz, dim)


def fill(input: Any, value: Any) -> Any:
    """A tensor of ``input``'s shape and dtype filled with ``value`` (a number or a 0-d tensor);
    gradients as torch's: zero for ``input``, ``grad.sum()`` for a tensor ``value``."""
    if is_tensor(value) and value.ndim != 0:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    keep = backend_of(input).from_numpy(np.zeros(tuple(input.shape), dtype=bool))
    return where(keep, input, expand(cast(as_tensor(value, input), input.dtype),
                                      tuple(input.shape)))


def renorm(input: Any, p: float, dim: int, maxnorm: float, *, out: Any = None) -> Any:
    """Each slice of ``input`` along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled to norm
    ``maxnorm`` (torch's factor ``maxnorm / (norm + 1e-7)``); differentiated through the norm,
    as torch's renorm_backward."""
    if out is not None:
        return _out_args.write_out("renorm", renorm, (input, p, dim, maxnorm), {}, out)
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported (got p={p})")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    d = wrap_dim(dim, input.ndim)
    others = tuple(i for i in range(input.ndim) if i != d)
    norms = input.norm(p, others, True)
    factor = where(le(norms, maxnorm), 1.0, div(maxnorm, add(norms, 1e-7)))
    return mul(input, factor)


def nanmedian(input: Any, dim: Optional[int] = None, keepdim: bool = False, *,
              out: Any = None) -> Any:
    """The median ignoring NaNs (the lower of the two middle values; NaN where a slice is all
    NaN); with ``dim``, ``(values, indices)`` as torch. The gradient goes to the element
    chosen, as torch's (``evenly_distribute``-free: one index per slice)."""
    if out is not None:
        return _out_args.write_out("nanmedian", nanmedian, (input, dim, keepdim), {}, out)
    if dim is None:
        flat = reshape(input, (-1,))
        values, _ = _nanmedian_dim(flat, 0, False)
        return values
    return _nanmedian_dim(input, dim, keepdim)


def _nanmedian_dim(x: Any, dim: int, keepdim: bool) -> Any:
    if x.ndim == 0:
        return return_types.nanmedian((x.clone(), as_tensor(0, x.detach().to(np.int64))))
    d = wrap_dim(dim, x.ndim)
    values, order = sort(x, d)  # NaN sorts last
    with backend_of(x).autograd.no_grad():
        count = sum(cast(logical_not(isnan(x)), np.dtype(np.int64)), d, True)
        pos = floor_divide(clamp(sub(count, 1), min=0), 2)
    picked, index = gather(values, d, pos), gather(order, d, pos)
    if not keepdim:
        picked, index = squeeze(picked, d), squeeze(index, d)
    return return_types.nanmedian((picked, index))


# Note [mode's index]
# torch's CPU mode sorts each row's (value, position) pairs with std::sort comparing values by
# `<`, then takes the first longest run of equal neighbours (`!=` ends a run) and returns the
# position at the end of that run. Which occurrence that is depends on libstdc++'s introsort
# (not stable beyond 16 elements), and with NaN (`<` false both ways, `!=` true) the runs split
# and a NaN can be the mode: mode([nan, nan, 1]) is (nan, 0), mode([1, nan, 1, nan, nan]) is
# (1, 0). So the order is reproduced step by step: _std_sort_order follows libstdc++'s
# std::sort (introsort with median-of-three, heap sort past the depth limit, final insertion
# sort) on positions. Rows of at most 16 elements without NaN take a numpy shortcut (insertion
# sort is stable there: the last occurrence of the smallest most frequent value).


def _std_sort_order(row: list) -> list[int]:
    """The positions of ``row`` in the order libstdc++'s std::sort(first, last, `<`) leaves
    them (Note [mode's index])."""
    idx = list(range(len(row)))

    def lt(i: int, j: int) -> bool:
        return bool(row[i] < row[j])

    def linear_insert(k: int, lo: int) -> None:
        val = idx[k]  # "unguarded" in libstdc++; bounded here (NaN voids its guarantee)
        while k > lo and lt(val, idx[k - 1]):
            idx[k] = idx[k - 1]
            k -= 1
        idx[k] = val

    def insertion_sort(first: int, last: int) -> None:
        for i in range(first + 1, last):
            if lt(idx[i], idx[first]):
                idx[first:i + 1] = [idx[i]] + idx[first:i]
            else:
                linear_insert(i, first)

    def adjust_heap(first: int, hole: int, length: int, val: int) -> None:
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if lt(idx[first + child], idx[first + child - 1]):
                child -= 1
            idx[first + hole] = idx[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            idx[first + hole] = idx[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and lt(idx[first + parent], val):
            idx[first + hole] = idx[first + parent]
            hole, parent = parent, (parent - 1) // 2
        idx[first + hole] = val

    def heap_sort(first: int, last: int) -> None:
        length = last - first
        for parent in range((length - 2) // 2, -1, -1):
            adjust_heap(first, parent, length, idx[first + parent])
        while last - first > 1:
            last -= 1
            val, idx[last] = idx[last], idx[first]
            adjust_heap(first, 0, last - first, val)

    def median_to_first(r: int, a: int, b: int, c: int) -> None:
        if lt(idx[a], idx[b]):
            m = b if lt(idx[b], idx[c]) else c if lt(idx[a], idx[c]) else a
        else:
            m = a if lt(idx[a], idx[c]) else c if lt(idx[b], idx[c]) else b
        idx[r], idx[m] = idx[m], idx[r]

    def partition(first: int, last: int, pivot: int) -> int:
        while True:
            while lt(idx[first], idx[pivot]):
                first += 1
            last -= 1
            while lt(idx[pivot], idx[last]):
                last -= 1
            if not first < last:
                return first
            idx[first], idx[last] = idx[last], idx[first]
            first += 1

    def introsort(first: int, last: int, depth: int) -> None:
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            cut = partition(first + 1, last, first)
            introsort(cut, last, depth)
            last = cut

    n = len(row)
    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        insertion_sort(0, min(n, 16))
        for i in range(16, n):
            linear_insert(i, 0)
    return idx


def _mode_index(row: np.ndarray) -> int:
    """The position torch's mode reports for one row (Note [mode's index])."""
    if row.size <= 16 and not (row.dtype.kind == "f" and np.isnan(row).any()):
        values, counts = np.unique(row, return_counts=True)
        return int(np.flatnonzero(row == values[np.argmax(counts)])[-1])
    vals = row.tolist()
    order = _std_sort_order(vals)
    best = freq = max_freq = 0
    for i, k in enumerate(order):
        freq += 1
        if i == len(order) - 1 or vals[k] != vals[order[i + 1]]:
            if freq > max_freq:
                best, max_freq = k, freq
            freq = 0
    return best


def mode(input: Any, dim: int = -1, keepdim: bool = False, *, out: Any = None) -> Any:
    """The most frequent value along ``dim`` and the index torch reports for it (Note [mode's
    index]); the gradient goes to that element."""
    if out is not None:
        return _out_args.write_out("mode", mode, (input, dim, keepdim), {}, out)
    x = input
    d = wrap_dim(dim, max(x.ndim, 1))
    a = np.moveaxis(np.asarray(x.detach().numpy()).reshape(x.shape or (1,)), d, -1)
    flat = a.reshape(-1, a.shape[-1]) if a.shape[-1] else a.reshape(-1, 0)
    if flat.shape[-1] == 0:
        raise IndexError("mode(): Expected reduction dim 0 to have non-zero size.")
    if flat.dtype.kind not in "biuf":  # float16/bfloat16 compare as float32, as torch's
        flat = flat.astype(np.float32)
    best = np.array([_mode_index(row) for row in flat], dtype=np.int64)
    index = np.moveaxis(best.reshape(a.shape[:-1] + (1,)), -1, d)
    if x.ndim == 0:
        index = index.reshape(())
    idx_t = backend_of(x).from_numpy(np.asarray(index, order="C"))
    values = gather(x, d, idx_t) if x.ndim else x.clone()
    if not keepdim and x.ndim:
        values, idx_t = squeeze(values, d), squeeze(idx_t, d)
    return return_types.mode((values, idx_t))


# -- indexing --------------------------------------------------------------------------------------


def put(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
    """``input`` (flattened) with ``source`` written at ``index`` (negative indices count from
    the end), added there with ``accumulate``. Gradients as torch's: ``grad`` with the written
    positions zeroed (not when accumulating) for input, ``grad.take(index)`` for source."""
    n = input.numel()
    with backend_of(input).autograd.no_grad():
        idx = np.asarray(index.numpy()).reshape(-1).astype(np.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = int(idx[(idx < -n) | (idx >= n)][0])
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    idx_t = backend_of(input).from_numpy(np.where(idx < 0, idx + n, idx))
    flat = reshape(input, (-1,))
    src = reshape(source, (-1,))
    out = index_add(flat, 0, idx_t, src) if accumulate else index_copy(flat, 0, idx_t, src)
    return reshape(out, tuple(input.shape))


def index_put(input: Any, indices: Sequence[Any], values: Any, accumulate: bool = False) -> Any:
    """``input`` with ``values`` written at ``input[indices]`` (added with ``accumulate``):
    indices a tuple of index tensors (integer or bool; None for a whole dim), broadcast as
    Python indexing's. Gradients as torch's: ``grad`` with the written entries zeroed (not when
    accumulating) for input, ``grad[indices]`` for values (python/transgrad/_api/indexing.py)."""
    return indexing.index_put(input, indices, values, accumulate)


def narrow_copy(input: Any, dim: int, start: int, length: int, *, out: Any = None) -> Any:
    """``narrow`` as a new tensor (a copy, not a view)."""
    if out is not None:
        return _out_args.write_out("narrow_copy", narrow_copy, (input, dim, start, length), {}, out)
    if input.ndim and dim >= input.ndim:  # torch's narrow_copy asserts where narrow's wraps
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           f"but got false. (narrow_copy: dim {dim} of a {input.ndim}-D tensor)")
    return narrow(input, dim, start, length).clone()


# Note [The unsafe splits]
# ~~~~~~~~~~~~~~~~~~~~~~~~
# torch's ``unsafe_split``/``unsafe_chunk`` return pieces that autograd does not treat as views
# of the input, so each may be modified in place: ``split``'s pieces refuse it (one in-place
# change would have to rewrite the history of all of them), and single-output views would
# still share the input's version counter, so ``s1.mul_(s2)`` would invalidate the saved
# ``s2``. torch's pieces share the input's memory with a counter each; both engines keep one
# counter per storage (Note [Version counters]), so here each piece is its own copy (a
# ``narrow`` then ``clone``): the same values and gradients, and an in-place change of a piece
# reaches neither the input nor the other pieces, where torch's would write into them (torch
# documents that aliasing as unsafe to rely on).


def _unsafe_pieces(tensor: Any, pieces: Sequence[Any], dim: int) -> tuple:
    """Copies of the pieces of ``tensor`` shaped as ``pieces`` along ``dim`` (Note [The unsafe
    splits])."""
    d = wrap_dim(dim, tensor.ndim)
    out, start = [], 0
    for p in pieces:
        out.append(narrow(tensor, d, start, p.shape[d]).clone())
        start += p.shape[d]
    return tuple(out)


def unsafe_split(tensor: Any, split_size_or_sections: Any, dim: int = 0) -> Any:
    """``split`` whose pieces may be modified in place (Note [The unsafe splits])."""
    return _unsafe_pieces(tensor, split(tensor.detach(), split_size_or_sections, dim), dim)


def unsafe_split_with_sizes(input: Any, split_sizes: Sequence[int], dim: int = 0) -> Any:
    """``split`` with a list of sizes, pieces that may be modified in place."""
    return _unsafe_pieces(input, split(input.detach(), list(split_sizes), dim), dim)


def unsafe_chunk(input: Any, chunks: int, dim: int = 0) -> Any:
    """``chunk`` whose pieces may be modified in place (Note [The unsafe splits])."""
    return _unsafe_pieces(input, input.detach().chunk(chunks, dim), dim)


# -- torch.linalg -------------------------------------------------------------------------------


def cross(input: Any, other: Any, *, dim: int = -1, out: Any = None) -> Any:
    """torch.linalg.cross: the cross product of 3-vectors along ``dim`` (batch dims broadcast);
    gradients ``cross(other, grad)`` and ``cross(grad, input)``, as torch's."""
    if out is not None:
        return _out_args.write_out("cross", cross, (input, other), {"dim": dim}, out)
    dtype_checks.check_scalar_type(input, other)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:  # before broadcasting, as torch
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    x, y = broadcast_tensors(input, other)
    a = [select(x, d, i) for i in range(3)]
    b = [select(y, d, i) for i in range(3)]
    return stack([sub(mul(a[1], b[2]), mul(a[2], b[1])), sub(mul(a[2], b[0]), mul(a[0], b[2])),
                  sub(mul(a[0], b[1]), mul(a[1], b[0]))], d)


def vector_norm(x: Any, ord: float = 2, dim: Any = None, keepdim: bool = False, *,
                dtype: Any = None, out: Any = None) -> Any:
    """torch.linalg.vector_norm: the ``ord``-norm of x as a vector (over ``dim``, all by
    default); ord 0 counts non-zeros, +-inf take max/min of |x|."""
    if out is not None:
        return _out_args.write_out("vector_norm", vector_norm, (x, ord, dim, keepdim),
                                   {"dtype": dtype}, out)
    if dtype is not None:
        x = cast(x, dtype)
    if ord == 0:
        return sum(cast(ne(x, 0), x.dtype), dim, keepdim) if dim is not None else (
            sum(cast(ne(x, 0), x.dtype)))
    if ord == -math.inf:
        return amin(abs(x), dim, keepdim) if dim is not None else amin(abs(x))
    if dim is None:
        if keepdim:
            return reshape(norm(reshape(x, (-1,)), ord), (1,) * x.ndim)
        return norm(reshape(x, (-1,)), ord)
    return norm(x, ord, dim, keepdim)


# -- pixel and channel shuffles ------------------------------------------------------------------


def pixel_shuffle(input: Any, upscale_factor: int) -> Any:
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``."""
    r = upscale_factor
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    nb = len(batch)
    x = reshape(input, (*batch, c // (r * r), r, r, h, w))
    x = permute(x, (*range(nb), nb, nb + 3, nb + 1, nb + 4, nb + 2))
    return reshape(x, (*batch, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Any, downscale_factor: int) -> Any:
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``, the inverse of pixel_shuffle."""
    r = downscale_factor
    *batch, c, h, w = input.shape
    if h % r or w % r:
        raise RuntimeError("pixel_unshuffle expects height and width to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} and input.size(-1)={w} "
                           f"are not both divisible by {r}")
    nb = len(batch)
    x = reshape(input, (*batch, c, h // r, r, w // r, r))
    x = permute(x, (*range(nb), nb, nb + 2, nb + 4, nb + 1, nb + 3))
    return reshape(x, (*batch, c * r * r, h // r, w // r))


def conv_tbc(input: Any, weight: Any, bias: Any, pad: int = 0) -> Any:
    """The 1-d convolution of a (time, batch, channel) input with a (width, in, out) weight:
    conv1d on the transposed layouts."""
    from transgrad._api.extra_functions import conv1d

    if input.ndim != 3 or weight.ndim != 3 or bias.ndim != 1:
        raise RuntimeError("conv_tbc: input must have 3 dims, weight 3 dims and bias 1 dim")
    out = conv1d(permute(input, (1, 2, 0)), permute(weight, (2, 1, 0)), bias, 1, pad)
    return permute(out, (2, 0, 1))


def channel_shuffle(input: Any, groups: int) -> Any:
    """``(N, C, *) -> (N, C, *)`` with the channels of ``groups`` groups interleaved."""
    n, c, *rest = input.shape
    if groups <= 0 or c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = reshape(input, (n, groups, c // groups, *rest))
    return reshape(permute(x, (0, 2, 1, *range(3, 3 + len(rest)))), tuple(input.shape))


def norm_except_dim(v: Any, pow: float = 2, dim: int = 0) -> Any:
    """The ``pow``-norm of ``v`` over every dim but ``dim``, with those dims kept as size 1;
    ``dim=-1`` means over every dim (a 0-d result), as torch's."""
    if dim == -1:
        return vector_norm(v, pow)
    d = wrap_dim(dim, v.ndim)
    return vector_norm(v, pow, tuple(e for e in range(v.ndim) if e != d), keepdim=True)


def _weight_norm(v: Any, g: Any, dim: int = 0) -> Any:
    """torch._weight_norm (nn.utils.weight_norm's reparametrisation): ``v * (g / ||v||)``, the
    norm over every dim but ``dim`` (norm_except_dim). The gradients are torch's
    ``_weight_norm_interface`` ones: the composition's."""
    return mul(v, div(g, norm_except_dim(v, 2, dim)))

