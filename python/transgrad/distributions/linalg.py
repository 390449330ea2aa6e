"""Batched Cholesky factorisation and lower-triangular solve, for MultivariateNormal.

Stage: runtime, engine-neutral. Input: tensors (..., n, n) of either engine. Output: tensors of
the same engine, built only from differentiable ops (select, mul, sum, sqrt, stack, matmul), so
gradients of any order flow through them without a formula of their own.

Note [Cholesky from ops]
~~~~~~~~~~~~~~~~~~~~~~~~
No engine has a cholesky or triangular-solve op yet. Both are written here column by column
(row by row for the solve): n steps of a few vectorised ops over the batch, O(n) recorded nodes
of O(n^2 batch) work each. That is cheap for the event sizes distributions use (n up to a few
dozen); a formula with a hand-written backward should replace it for large n. The input of
``cholesky`` is symmetrised first, (A + A^T) / 2, so the gradient with respect to A is
symmetric, as torch's ``linalg.cholesky`` gives it.
"""

from __future__ import annotations

from typing import Any

from transgrad.distributions.utils import engine_of


def _columns(a: Any) -> tuple[Any, Any]:
    """Cholesky columns of symmetric ``a`` and the pivots (..., n) they divided by."""
    eng = engine_of(a)
    n = a.shape[-1]
    a = (a + a.mT) * 0.5
    cols: list[Any] = []
    pivots = []
    for j in range(n):
        col = a[..., :, j]
        if cols:
            prev = eng.stack(cols, -1)                       # (..., n, j)
            col = col - (prev * prev[..., j:j + 1, :]).sum(-1)
        mask = eng.tensor([0.0] * j + [1.0] * (n - j), dtype=a.dtype)
        pivot = col[..., j]
        pivots.append(pivot)
        cols.append(col * mask / pivot.clamp(min=0).sqrt().unsqueeze(-1))
    return eng.stack(cols, -1), eng.stack(pivots, -1)


def cholesky_ex(a: Any) -> tuple[Any, Any]:
    """(L, ok): the lower Cholesky factor and a bool tensor of the batch shape, False where the
    matrix is not positive definite (L is then not finite there)."""
    _check_square(a, "cholesky_ex")
    factor, pivots = _columns(a)
    return factor, (pivots > 0).all(-1)


def cholesky(a: Any) -> Any:
    """The lower Cholesky factor L of symmetric positive-definite ``a`` (L L^T = a), batched."""
    _check_square(a, "linalg.cholesky")
    factor, pivots = _columns(a)
    bad = (pivots > 0).logical_not()  # NaN pivots too
    if bool(bad.any()):
        import numpy as np

        flags = np.asarray(bad.detach()).reshape(-1, a.shape[-1])
        batch, order = [int(i) for i in np.argwhere(flags)[0]]
        where = f"(Batch element {batch}): " if a.ndim > 2 else ""
        raise RuntimeError(f"linalg.cholesky: {where}The factorization could not be completed "
                           "because the input is not positive-definite (the leading minor of "
                           f"order {order + 1} is not positive-definite).")
    return factor


def solve_triangular_lower(tril: Any, b: Any) -> Any:
    """X with tril @ X = b, for lower-triangular ``tril`` (..., n, n) and ``b`` (..., n, m)
    (forward substitution; batch dimensions broadcast)."""
    eng = engine_of(tril)
    n = tril.shape[-1]
    if b.shape[-2] != n:
        raise RuntimeError(f"solve_triangular: expected b with {n} rows, got shape "
                           f"{tuple(b.shape)}")
    rows: list[Any] = []
    for i in range(n):
        row = b[..., i, :]
        if rows:
            prev = eng.stack(rows, -2)                        # (..., i, m)
            row = row - (tril[..., i, :i].unsqueeze(-1) * prev).sum(-2)
        rows.append(row / tril[..., i, i].unsqueeze(-1))
    return eng.stack(rows, -2)


def _check_square(a: Any, name: str) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2] if a.ndim >= 2 else 1} by {a.shape[-1] if a.ndim else 1} "
                           "matrices")
