"""Numpy bodies of the factorisation kernels (issue 15): cholesky, solve_triangular, eigh, qr,
svd, svdvals, matrix_exp, lu_factor, lu_solve, lu_permutation, as declared in
translator/signatures.py and written in C++ in csrc/kernels/lapack.cpp.

Input: tensors of the reference engine (batches of matrices). Output: new tensors in the input's
floating dtype, computed in float64. Errors are torch's (a matrix that is not positive-definite
names the leading minor, and the batch element when there are batch dims).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad._errors import LinAlgError
from transgrad.reference.kernel_support import _F64, _arr, _new, broadcast_pair

__all__ = ["cholesky", "eigh", "lu_factor", "lu_permutation", "lu_solve", "matrix_exp", "qr",
           "solve_triangular", "svd", "svdvals"]


def _matrices(x: Any, name: str, square: bool = True) -> np.ndarray:
    a = _arr(x)
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if a.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point tensor as input. Got {a.dtype}")
    return a


def _leading_minor(a: np.ndarray) -> int:
    """The order of the first leading minor of the symmetric ``a`` that is not positive."""
    for k in range(1, a.shape[-1] + 1):
        try:
            np.linalg.cholesky(a[:k, :k])
        except np.linalg.LinAlgError:
            return k
    return a.shape[-1]


def cholesky(x: Any, upper: bool) -> Any:
    a = _matrices(x, "linalg.cholesky").astype(_F64)
    # numpy reads the lower triangle: the upper factor of A is the lower one of A^T, transposed
    src = np.swapaxes(a, -1, -2) if upper else a
    lower = np.tril(src)
    sym = lower + np.swapaxes(np.tril(src, -1), -1, -2)
    flat = sym.reshape((int(np.prod(sym.shape[:-2])),) + sym.shape[-2:])
    out = np.zeros_like(flat)
    for k, m in enumerate(flat):
        try:
            out[k] = np.linalg.cholesky(m) if m.size else m
        except np.linalg.LinAlgError:
            where = f"(Batch element {k}): " if a.ndim > 2 else ""
            raise LinAlgError(
                f"linalg.cholesky: {where}The factorization could not be completed because the "
                f"input is not positive-definite (the leading minor of order "
                f"{_leading_minor(m)} is not positive-definite).") from None
    out = out.reshape(a.shape)
    return _new((np.swapaxes(out, -1, -2) if upper else out).astype(_arr(x).dtype))


def solve_triangular(a: Any, b: Any, upper: bool, unitriangular: bool) -> Any:
    m, r = _matrices(a, "linalg.solve_triangular"), _arr(b)
    if r.ndim < 2 or r.shape[-2] != m.shape[-1]:
        raise RuntimeError("linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation AX = B ({tuple(m.shape)} and {tuple(r.shape)})")
    dtype = m.dtype if r.dtype.kind != "f" or r.dtype == m.dtype else _F64
    tri = np.triu(m.astype(_F64)) if upper else np.tril(m.astype(_F64))
    if unitriangular:
        n = m.shape[-1]
        tri = tri * (1 - np.eye(n)) + np.eye(n)
    batch = broadcast_pair(m.shape[:-2], r.shape[:-2])
    tb = np.broadcast_to(tri, batch + tri.shape[-2:])
    rb = np.broadcast_to(r, batch + r.shape[-2:]).astype(_F64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = _substitute(tb, rb, upper) if rb.size else np.zeros(rb.shape)
    return _new(out.astype(dtype))


def _substitute(t: np.ndarray, b: np.ndarray, upper: bool) -> np.ndarray:
    """Forward (lower) or back (upper) substitution, row by row over the whole batch: a zero
    diagonal gives inf/nan as LAPACK's trsm does, never an error."""
    n = t.shape[-1]
    x = np.zeros(b.shape)
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, :], x)
        x[..., i, :] = acc / t[..., i, i][..., None]
    return x


def eigh(x: Any, upper: bool) -> tuple:
    a = _matrices(x, "linalg.eigh")
    w, v = np.linalg.eigh(a.astype(_F64), UPLO="U" if upper else "L")
    return _new(w.astype(a.dtype)), _new(v.astype(a.dtype))


def qr(x: Any, complete: bool) -> tuple:
    a = _matrices(x, "linalg.qr", square=False)
    q, r = np.linalg.qr(a.astype(_F64), mode="complete" if complete else "reduced")
    return _new(q.astype(a.dtype)), _new(r.astype(a.dtype))


def svd(x: Any, full_matrices: bool) -> tuple:
    a = _matrices(x, "linalg.svd", square=False)
    u, _, vh = np.linalg.svd(a.astype(_F64), full_matrices=full_matrices)
    return _new(u.astype(a.dtype)), _new(vh.astype(a.dtype))


def svdvals(x: Any) -> Any:
    a = _matrices(x, "linalg.svd", square=False)
    return _new(np.linalg.svd(a.astype(_F64), compute_uv=False).astype(a.dtype))


def matrix_exp(x: Any) -> Any:
    """Scaling and squaring over a degree-18 Taylor polynomial (the C++ kernel's algorithm):
    each matrix scaled by 2^-s to a 1-norm of at most 1/2, then squared s times."""
    a = _matrices(x, "linalg.matrix_exp")
    flat = a.astype(_F64).reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:])
    out = np.empty_like(flat)
    n = a.shape[-1]
    for k, m in enumerate(flat):
        norm = float(np.abs(m).sum(axis=0).max()) if n else 0.0
        s = int(np.ceil(np.log2(norm / 0.5))) if np.isfinite(norm) and norm > 0.5 else 0
        xs = m * 2.0 ** -s
        e = np.eye(n)
        for d in range(18, 0, -1):
            e = xs @ e / d + np.eye(n)
        for _ in range(s):
            e = e @ e
        out[k] = e
    return _new(out.reshape(a.shape).astype(a.dtype))


# ---------------------------------------------------------------------------------------------
# LU with partial pivoting: numpy has no getrf, so the elimination is written here, one column
# at a time over the whole batch, choosing LAPACK's pivot (the first largest |a| in the column).


def _batch(a: np.ndarray) -> np.ndarray:
    return a.reshape((int(np.prod(a.shape[:-2])),) + a.shape[-2:])


def lu_factor(x: Any) -> tuple:
    a = _matrices(x, "linalg.lu_factor", square=False)
    lu = _batch(a.astype(_F64)).copy()
    count, m, n = lu.shape
    k = min(m, n)
    piv = np.zeros((count, k), np.int32)
    rows = np.arange(count)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        piv[:, j] = p + 1
        row_j = lu[rows, j, :].copy()
        lu[rows, j, :] = lu[rows, p, :]
        lu[rows, p, :] = row_j
        d = lu[:, j, j][:, None]
        # a zero pivot (its column below is zero too) scales nothing, as LAPACK's getrf
        with np.errstate(divide="ignore", invalid="ignore"):
            lu[:, j + 1:, j] = np.where(d != 0, lu[:, j + 1:, j] / d, lu[:, j + 1:, j])
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return (_new(lu.reshape(a.shape).astype(a.dtype)),
            _new(piv.reshape(a.shape[:-2] + (k,))))


def singular_error(a: np.ndarray, inverting: bool) -> LinAlgError:
    """torch's error for the singular matrices ``a`` (..., n, n): the first batch element whose
    LU factor (getrf's) has a zero on its diagonal, and for ``inv`` that diagonal's position."""
    lu = _arr(lu_factor(_new(np.asarray(a, dtype=_F64, order="C")))[0])
    diag = _batch(lu).diagonal(axis1=-2, axis2=-1)
    k = int(np.argmax((diag == 0).any(axis=-1))) if diag.size else 0
    zero = np.flatnonzero(diag[k] == 0) if diag.size else np.array([0])
    where = f"(Batch element {k}): " if a.ndim > 2 else ""
    if inverting:
        info = int(zero[0]) + 1 if zero.size else 1
        return LinAlgError(f"linalg.inv: {where}The diagonal element {info} is zero, the "
                           "inversion could not be completed because the input matrix is "
                           "singular.")
    return LinAlgError(f"torch.linalg.solve: {where}The solver failed because the input "
                       "matrix is singular.")


def _pivots(pivots: Any, name: str) -> np.ndarray:
    p = _arr(pivots)
    if p.dtype.kind not in "iu":
        raise RuntimeError(f"{name}: Expected pivots to be an integer tensor, got {p.dtype}")
    if p.ndim < 1:
        raise RuntimeError(f"{name}: pivots must have at least 1 dimension")
    return p.astype(np.int64)


def _permutations(piv: np.ndarray, m: int, name: str) -> np.ndarray:
    """perm (count, m) with row i of P^T A = row perm[i] of A, from the row swaps in order."""
    if piv.size and (piv.min() < 1 or piv.max() > m):
        bad = int(piv[(piv < 1) | (piv > m)].reshape(-1)[0])
        raise RuntimeError(f"{name}: pivots must be between 1 and {m}, got {bad}")
    count = piv.shape[0]
    perm = np.tile(np.arange(m), (count, 1))
    rows = np.arange(count)
    for i in range(piv.shape[1]):
        j = piv[:, i] - 1
        at_i = perm[:, i].copy()
        perm[:, i] = perm[rows, j]
        perm[rows, j] = at_i
    return perm


def lu_permutation(pivots: Any, lu: Any) -> Any:
    a = _matrices(lu, "lu_unpack", square=False)
    p = _pivots(pivots, "lu_unpack")
    m, n = a.shape[-2:]
    if p.shape[-1] != min(m, n):
        raise RuntimeError("lu_unpack: Expected LU_pivots.size(-1) == min(LU_data.size(-1), "
                           f"LU_data.size(-2)), but got {p.shape[-1]} and {min(m, n)}")
    batch = broadcast_pair(a.shape[:-2], p.shape[:-1])
    count = int(np.prod(batch))
    piv = np.broadcast_to(p, batch + p.shape[-1:]).reshape(count, p.shape[-1])
    perm = _permutations(piv, m, "lu_unpack")
    out = np.zeros((perm.shape[0], m, m))
    cols = np.arange(m)
    for t in range(perm.shape[0]):
        out[t, perm[t], cols] = 1.0  # P = (P^T)^T
    return _new(out.reshape(batch + (m, m)).astype(a.dtype))


def lu_solve(lu: Any, pivots: Any, b: Any, adjoint: bool) -> Any:
    a, r = _matrices(lu, "linalg.lu_solve"), _arr(b)
    p = _pivots(pivots, "linalg.lu_solve")
    n = a.shape[-1]
    if r.ndim < 2 or r.shape[-2] != n:
        got = f"{r.shape[-2]}x{r.shape[-1]}" if r.ndim >= 2 else str(tuple(r.shape))
        raise RuntimeError("linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({n}x{n} and {got})")
    if p.shape[-1] != n:
        raise RuntimeError(f"linalg.lu_solve: Expected pivots to have {n} entries, got "
                           f"{p.shape[-1]}")
    dtype = a.dtype if r.dtype.kind != "f" or r.dtype == a.dtype else _F64
    batch = broadcast_pair(broadcast_pair(a.shape[:-2], p.shape[:-1]), r.shape[:-2])
    count = int(np.prod(batch))
    perm = _permutations(np.broadcast_to(p, batch + (n,)).reshape(count, n), n,
                         "linalg.lu_solve")
    f = np.broadcast_to(a.astype(_F64), batch + (n, n)).reshape(count, n, n)
    rhs = np.broadcast_to(r.astype(_F64), batch + r.shape[-2:]).reshape((count,) + r.shape[-2:])
    eye = np.eye(n)
    lower = np.tril(f, -1) + eye
    upper = np.triu(f)
    rows = np.arange(f.shape[0])[:, None]
    if not rhs.size:
        return _new(np.zeros(batch + r.shape[-2:], dtype))
    with np.errstate(divide="ignore", invalid="ignore"):
        if adjoint:  # A^T X = b: U^T L^T P^T X = b
            y = _substitute(np.swapaxes(upper, -1, -2), rhs, False)
            z = _substitute(np.swapaxes(lower, -1, -2), y, True)
            out = np.empty_like(z)
            out[rows, perm] = z  # X = P z
        else:  # L U X = P^T b
            out = _substitute(upper, _substitute(lower, rhs[rows, perm], False), True)
    return _new(out.reshape(batch + r.shape[-2:]).astype(dtype))
