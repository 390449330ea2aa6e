"""The orthogonal polynomials of ``torch.special``: Chebyshev (T, U, V, W and their shifted
forms on [0, 1]), Hermite (physicists' H, probabilists' He), Laguerre L and Legendre P.

Stage: public API, engine-neutral (each function finds its engine from its tensor operand).
Input: ``input`` (x) and ``n``, each a tensor or a number, at least one a tensor; ``n`` is
truncated to an integer, as torch's kernels read it. Output: ``P_n(x)`` broadcast, in the
promoted floating dtype (an integer or a number operand takes the default float dtype), never
requiring grad: torch's derivative table marks every one of them ``non_differentiable``.

Note [Polynomials by recurrence over whole tensors]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each family is its three-term recurrence ``P_{k+1} = step(k, x, P_k, P_{k-1})`` from ``P_0 = 1``
and its own ``P_1``, run on whole tensors with the engine's kernels (one vectorised pass per
degree up to ``max(n)``, each element keeping the step where its own ``n`` is reached), under
no_grad. ``n < 0`` gives 0 (as torch). This is the recurrence torch evaluates too; where torch
switches to ``cos(n acos x)`` (Chebyshev T, |x| < 1, n > 6) the two agree to rounding.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from transgrad._api import out_args as _out_args
from transgrad._api.functions import add, as_tensor, cast, div, eq, mul, sub, where
from transgrad._backend import backend_of, is_tensor

__all__ = [
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
]

Step = Callable[[int, Any, Any, Any], Any]  # (k, x, P_k, P_{k-1}) -> P_{k+1}


def _chebyshev(k: int, x: Any, q: Any, p: Any) -> Any:
    return sub(mul(mul(x, 2.0), q), p)


def _hermite_h(k: int, x: Any, q: Any, p: Any) -> Any:
    return sub(mul(mul(x, 2.0), q), mul(p, 2.0 * k))


def _hermite_he(k: int, x: Any, q: Any, p: Any) -> Any:
    return sub(mul(x, q), mul(p, float(k)))


def _laguerre(k: int, x: Any, q: Any, p: Any) -> Any:
    return div(sub(mul(sub(mul(x, -1.0), -(2.0 * k + 1.0)), q), mul(p, float(k))), k + 1.0)


def _legendre(k: int, x: Any, q: Any, p: Any) -> Any:
    return div(sub(mul(mul(x, 2.0 * k + 1.0), q), mul(p, float(k))), k + 1.0)


def _default_float(like: Any) -> Any:
    from transgrad._api.methods import _factory  # the engine's factories (its default dtype)

    return _factory(like, "get_default_dtype")()


def _operands(x: Any, n: Any) -> tuple:
    """x as a floating tensor and n as an int64 tensor of one engine (torch's promotion)."""
    like = x if is_tensor(x) else n
    if not is_tensor(like):
        raise TypeError("expected a Tensor for input or n")
    dtypes = [t.dtype for t in (x, n) if is_tensor(t) and t.dtype.kind in "fc"]
    dtype = np.result_type(*dtypes) if dtypes else _default_float(like)
    xt = cast(as_tensor(float(x), like) if not is_tensor(x) else x.detach(), dtype)
    nt = cast(as_tensor(int(n), like) if not is_tensor(n) else n.detach(), np.dtype(np.int64))
    return xt, nt


def _evaluate(x: Any, n: Any, first: Callable[[Any], Any], step: Step,
              shifted: bool = False) -> Any:
    """Note [Polynomials by recurrence over whole tensors]."""
    x, n = _operands(x, n)
    with backend_of(x).autograd.no_grad():
        if shifted:
            x = sub(mul(x, 2.0), 1.0)
        x = add(x, mul(cast(n, x.dtype), 0.0))  # broadcast x against n
        p, q = add(mul(x, 0.0), 1.0), first(x)
        out = where(eq(n, 0), p, where(eq(n, 1), q, mul(x, 0.0)))
        top = int(n.max().item()) if n.numel() else 0
        for k in range(1, top):
            p, q = q, step(k, x, q, p)
            out = where(eq(n, k + 1), q, out)
        return out


def chebyshev_polynomial_t(input: Any, n: Any, *, out: Any = None) -> Any:
    """The Chebyshev polynomial of the first kind, ``T_n(input)``."""
    if out is not None:
        return _out_args.write_out("chebyshev_polynomial_t", chebyshev_polynomial_t, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: x, _chebyshev)


def chebyshev_polynomial_u(input: Any, n: Any, *, out: Any = None) -> Any:
    """The Chebyshev polynomial of the second kind, ``U_n(input)``."""
    if out is not None:
        return _out_args.write_out("chebyshev_polynomial_u", chebyshev_polynomial_u, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: mul(x, 2.0), _chebyshev)


def chebyshev_polynomial_v(input: Any, n: Any, *, out: Any = None) -> Any:
    """The Chebyshev polynomial of the third kind, ``V_n(input)``."""
    if out is not None:
        return _out_args.write_out("chebyshev_polynomial_v", chebyshev_polynomial_v, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: sub(mul(x, 2.0), 1.0), _chebyshev)


def chebyshev_polynomial_w(input: Any, n: Any, *, out: Any = None) -> Any:
    """The Chebyshev polynomial of the fourth kind, ``W_n(input)``."""
    if out is not None:
        return _out_args.write_out("chebyshev_polynomial_w", chebyshev_polynomial_w, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: add(mul(x, 2.0), 1.0), _chebyshev)


def shifted_chebyshev_polynomial_t(input: Any, n: Any, *, out: Any = None) -> Any:
    """``T*_n(input) = T_n(2 input - 1)``, the first kind on [0, 1]."""
    if out is not None:
        return _out_args.write_out(
            "shifted_chebyshev_polynomial_t", shifted_chebyshev_polynomial_t,
            (input, n),
            {}, out)
    return _evaluate(input, n, lambda x: x, _chebyshev, shifted=True)


def shifted_chebyshev_polynomial_u(input: Any, n: Any, *, out: Any = None) -> Any:
    """``U*_n(input) = U_n(2 input - 1)``, the second kind on [0, 1]."""
    if out is not None:
        return _out_args.write_out(
            "shifted_chebyshev_polynomial_u", shifted_chebyshev_polynomial_u,
            (input, n),
            {}, out)
    return _evaluate(input, n, lambda x: mul(x, 2.0), _chebyshev, shifted=True)


def shifted_chebyshev_polynomial_v(input: Any, n: Any, *, out: Any = None) -> Any:
    """``V*_n(input) = V_n(2 input - 1)``, the third kind on [0, 1]."""
    if out is not None:
        return _out_args.write_out(
            "shifted_chebyshev_polynomial_v", shifted_chebyshev_polynomial_v,
            (input, n),
            {}, out)
    return _evaluate(input, n, lambda x: sub(mul(x, 2.0), 1.0), _chebyshev, shifted=True)


def shifted_chebyshev_polynomial_w(input: Any, n: Any, *, out: Any = None) -> Any:
    """``W*_n(input) = W_n(2 input - 1)``, the fourth kind on [0, 1]."""
    if out is not None:
        return _out_args.write_out(
            "shifted_chebyshev_polynomial_w", shifted_chebyshev_polynomial_w,
            (input, n),
            {}, out)
    return _evaluate(input, n, lambda x: add(mul(x, 2.0), 1.0), _chebyshev, shifted=True)


def hermite_polynomial_h(input: Any, n: Any, *, out: Any = None) -> Any:
    """The physicists' Hermite polynomial ``H_n(input)``."""
    if out is not None:
        return _out_args.write_out("hermite_polynomial_h", hermite_polynomial_h, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: mul(x, 2.0), _hermite_h)


def hermite_polynomial_he(input: Any, n: Any, *, out: Any = None) -> Any:
    """The probabilists' Hermite polynomial ``He_n(input)``."""
    if out is not None:
        return _out_args.write_out("hermite_polynomial_he", hermite_polynomial_he, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: x, _hermite_he)


def laguerre_polynomial_l(input: Any, n: Any, *, out: Any = None) -> Any:
    """The Laguerre polynomial ``L_n(input)``."""
    if out is not None:
        return _out_args.write_out("laguerre_polynomial_l", laguerre_polynomial_l, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: add(mul(x, -1.0), 1.0), _laguerre)


def legendre_polynomial_p(input: Any, n: Any, *, out: Any = None) -> Any:
    """The Legendre polynomial ``P_n(input)``."""
    if out is not None:
        return _out_args.write_out("legendre_polynomial_p", legendre_polynomial_p, (input, n),
                                   {}, out)
    return _evaluate(input, n, lambda x: x, _legendre)
