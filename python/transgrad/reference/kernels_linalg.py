"""Numpy bodies of the factorisation kernels (issue 15): cholesky, solve_triangular, eigh, qr,
svd, svdvals, as declared in translator/signatures.py and written in C++ in
csrc/kernels/lapack.cpp.

Input: tensors of the reference engine (batches of matrices). Output: new tensors in the input's
floating dtype, computed in float64. Errors are torch's (a matrix that is not positive-definite
names the leading minor, and the batch element when there are batch dims).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad.reference.kernel_support import _F64, _arr, _new

__all__ = ["cholesky", "eigh", "matrix_exp", "qr", "solve_triangular", "svd", "svdvals"]


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
            raise RuntimeError(
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
    batch = np.broadcast_shapes(m.shape[:-2], r.shape[:-2])
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
