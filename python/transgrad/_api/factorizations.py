"""PyTorch's matrix factorisations over the formulas of formulas/linalg.py (issue 15):
``cholesky``, ``cholesky_solve``, ``cholesky_inverse``, ``triangular_solve``, ``svd`` and ``qr``
at the top level, and under torch's ``linalg`` names (``LINALG``, exported by
``transgrad.linalg``): ``cholesky``, ``cholesky_ex``, ``solve_triangular``, ``eigh``,
``eigvalsh``, ``qr``, ``svd``, ``svdvals``, ``pinv``.

Input: tensors of either engine. Output: the functions below, each calling its engine's
formula; the results are torch's named tuples. Argument checks raise torch's messages before any
kernel runs.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from transgrad._backend import backend_of

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "matrix_exp", "qr", "svd",
           "triangular_solve"]
LINALG = ["cholesky", "cholesky_ex", "eigh", "eigvalsh", "matrix_exp", "pinv", "qr",
          "solve_triangular", "svd", "svdvals"]

EighResult = collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = collections.namedtuple("QRResult", ["Q", "R"])
SVDResult = collections.namedtuple("SVDResult", ["U", "S", "Vh"])
SvdResult = collections.namedtuple("SvdResult", ["U", "S", "V"])
CholeskyExResult = collections.namedtuple("CholeskyExResult", ["L", "info"])
TriangularSolveResult = collections.namedtuple("TriangularSolveResult",
                                               ["solution", "cloned_coefficient"])


def _matrices(A: Any, fn: str, square: bool = True) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _mT(ops: Any, x: Any) -> Any:
    return ops.transpose(x, -1, -2)


def linalg_cholesky(A: Any, *, upper: bool = False) -> Any:
    """L (lower) with ``A = L L^T`` (``upper``: U with ``A = U^T U``); reads that triangle."""
    _matrices(A, "linalg.cholesky")
    return backend_of(A).ops.cholesky(A, bool(upper))


def cholesky_ex(A: Any, *, upper: bool = False, check_errors: bool = False) -> Any:
    """(L, info): the factor and 0 (an input that is not positive-definite raises here, where
    torch returns the order of the failing minor in info unless ``check_errors``)."""
    L = linalg_cholesky(A, upper=upper)
    return CholeskyExResult(L, backend_of(A).from_numpy(np.zeros(tuple(A.shape[:-2]), np.int32)))


def cholesky(input: Any, upper: bool = False) -> Any:
    """torch.cholesky (deprecated in torch for torch.linalg.cholesky): the same factor."""
    return linalg_cholesky(input, upper=upper)


def cholesky_solve(B: Any, L: Any, upper: bool = False) -> Any:
    """X with ``A X = B`` for A given by its Cholesky factor ``L``."""
    _matrices(L, "cholesky_solve")
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions "
                           "instead")
    return backend_of(B).ops.cholesky_solve(B, L, bool(upper))


def cholesky_inverse(L: Any, upper: bool = False) -> Any:
    """The inverse of A from its Cholesky factor ``L``."""
    _matrices(L, "cholesky_inverse")
    return backend_of(L).ops.cholesky_inverse(L, bool(upper))


def solve_triangular(A: Any, B: Any, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Any:
    """X with ``A X = B`` (``left=False``: ``X A = B``), A triangular."""
    _matrices(A, "linalg.solve_triangular")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    return backend_of(A).ops.solve_triangular(A, B, bool(upper), bool(left), bool(unitriangular))


def triangular_solve(b: Any, A: Any, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    """(X, A's copy) with ``A X = b`` (``transpose``: ``A^T X = b``)."""
    _matrices(A, "triangular_solve")
    ops = backend_of(A).ops
    coefficient = _mT(ops, A) if transpose else A
    solution = ops.solve_triangular(coefficient, b, bool(upper) != bool(transpose), True,
                                    bool(unitriangular))
    # the coefficient's copy has the broadcast batch shape (as torch's)
    shape = tuple(solution.shape[:-2]) + tuple(A.shape[-2:])
    return TriangularSolveResult(solution, ops.clone(ops.expand(A, shape)))


def eigh(A: Any, UPLO: str = "L") -> Any:
    """(eigenvalues ascending, eigenvectors) of the symmetric matrix in A's ``UPLO`` triangle."""
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _matrices(A, "linalg.eigh")
    values, vectors = backend_of(A).ops.eigh(A, UPLO == "U")
    return EighResult(values, vectors)


def eigvalsh(A: Any, UPLO: str = "L") -> Any:
    """The eigenvalues of :func:`eigh` (the gradient goes through the eigenvectors, as torch)."""
    return eigh(A, UPLO).eigenvalues


def linalg_qr(A: Any, mode: str = "reduced") -> Any:
    """(Q, R) with A = Q R; ``mode``: "reduced", "complete", or "r" (Q empty)."""
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _matrices(A, "linalg.qr", square=False)
    engine = backend_of(A)
    Q, R = engine.ops.qr(A, mode == "complete")
    if mode == "r":  # torch's empty Q
        return QRResult(engine.from_numpy(np.zeros((0,), np.dtype(str(A.dtype).split(".")[-1]))), R)
    return QRResult(Q, R)


def qr(input: Any, some: bool = True) -> Any:
    """torch.qr (deprecated in torch): ``linalg.qr`` with ``some`` for mode "reduced"."""
    return linalg_qr(input, "reduced" if some else "complete")


def linalg_svd(A: Any, full_matrices: bool = True, *, driver: Any = None) -> Any:
    """(U, S, Vh) with A = U diag(S) Vh, S descending (``driver`` is CUDA's: accepted)."""
    _matrices(A, "linalg.svd", square=False)
    U, S, Vh = backend_of(A).ops.svd(A, bool(full_matrices))
    return SVDResult(U, S, Vh)


def svdvals(A: Any, *, driver: Any = None) -> Any:
    """The singular values, descending (the gradient goes through U and Vh, as torch)."""
    return linalg_svd(A, full_matrices=False).S


def svd(input: Any, some: bool = True, compute_uv: bool = True) -> Any:
    """torch.svd: (U, S, V) (V, not Vh); ``some=False``: square U and V."""
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    ops = backend_of(input).ops
    if not compute_uv:
        return SvdResult(ops.zeros_like(U), S, ops.zeros_like(_mT(ops, Vh)))
    return SvdResult(U, S, _mT(ops, Vh))


def pinv(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Any:
    """The pseudo-inverse through the SVD: ``V diag(1/s) U^T`` over the singular values above
    ``max(atol, rtol * s_max)`` (torch's default rtol: eps(dtype) * max(m, n) without atol)."""
    _matrices(A, "linalg.pinv", square=False)
    engine = backend_of(A)
    ops = engine.ops
    U, S, Vh = linalg_svd(A, full_matrices=False)
    if rtol is None:
        eps = 1.1920928955078125e-07 if str(A.dtype).endswith("float32") else 2.220446049250313e-16
        rtol = 0.0 if atol is not None and float(atol) > 0 else eps * max(A.shape[-2], A.shape[-1])
    s_max = ops.amax(S, (-1,), True) if S.shape[-1] else S
    cutoff = s_max * float(rtol)
    if atol is not None:
        cutoff = ops.maximum(cutoff, ops.zeros_like(cutoff) + float(atol))
    keep = ops.gt(S, cutoff)
    safe = ops.where(keep, S, ops.ones_like(S))
    inv_s = ops.where(keep, ops.reciprocal(safe), ops.zeros_like(S))
    return ops.matmul_nd(_mT(ops, Vh) * ops.unsqueeze(inv_s, -2), _mT(ops, U))


def matrix_exp(A: Any) -> Any:
    """The exponential of each square matrix (torch.matrix_exp and torch.linalg.matrix_exp)."""
    _matrices(A, "linalg.matrix_exp")
    return backend_of(A).ops.matrix_exp(A)
