"""PyTorch's matrix factorisations over the formulas of formulas/linalg.py (issue 15):
``cholesky``, ``cholesky_solve``, ``cholesky_inverse``, ``triangular_solve``, ``svd``, ``qr``,
``lu``, ``lu_solve`` and ``lu_unpack`` at the top level, and under torch's ``linalg`` names
(``LINALG``, exported by ``transgrad.linalg``): ``cholesky``, ``cholesky_ex``,
``solve_triangular``, ``eigh``, ``eigvalsh``, ``qr``, ``svd``, ``svdvals``, ``pinv``, ``lu``,
``lu_factor``, ``lu_factor_ex``, ``lu_solve``.

Input: tensors of either engine. Output: the functions below, each calling its engine's
formula; the results are torch's named tuples. Argument checks raise torch's messages before any
kernel runs.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from transgrad import return_types
from transgrad._api import out_args as _out_args
from transgrad._backend import backend_of

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "lu", "lu_solve", "lu_unpack",
           "matrix_exp", "qr", "svd", "triangular_solve"]
LINALG = ["cholesky", "cholesky_ex", "eigh", "eigvalsh", "lu", "lu_factor", "lu_factor_ex",
          "lu_solve", "matrix_exp", "pinv", "qr", "solve_triangular", "svd", "svdvals"]


def _matrices(A: Any, fn: str, square: bool = True) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _mT(ops: Any, x: Any) -> Any:
    return ops.transpose(x, -1, -2)


def linalg_cholesky(A: Any, *, upper: bool = False, out: Any = None) -> Any:
    """L (lower) with ``A = L L^T`` (``upper``: U with ``A = U^T U``); reads that triangle."""
    if out is not None:
        return _out_args.write_out("linalg_cholesky", linalg_cholesky, (A,), {"upper": upper}, out)
    _matrices(A, "linalg.cholesky")
    return backend_of(A).ops.cholesky(A, bool(upper))


def cholesky_ex(A: Any, *, upper: bool = False, check_errors: bool = False, out: Any = None) -> Any:
    """(L, info): the factor and 0 (an input that is not positive-definite raises here, where
    torch returns the order of the failing minor in info unless ``check_errors``)."""
    if out is not None:
        return _out_args.write_out("cholesky_ex", cholesky_ex, (A,),
                                   {"upper": upper, "check_errors": check_errors}, out)
    L = linalg_cholesky(A, upper=upper)
    return return_types.linalg_cholesky_ex(
        (L, backend_of(A).from_numpy(np.zeros(tuple(A.shape[:-2]), np.int32))))


def cholesky(input: Any, upper: bool = False, *, out: Any = None) -> Any:
    """torch.cholesky (deprecated in torch for torch.linalg.cholesky): the same factor."""
    if out is not None:
        return _out_args.write_out("cholesky", cholesky, (input, upper), {}, out)
    return linalg_cholesky(input, upper=upper)


def cholesky_solve(B: Any, L: Any, upper: bool = False, *, out: Any = None) -> Any:
    """X with ``A X = B`` for A given by its Cholesky factor ``L``."""
    if out is not None:
        return _out_args.write_out("cholesky_solve", cholesky_solve, (B, L, upper), {}, out)
    _matrices(L, "cholesky_solve")
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions "
                           "instead")
    return backend_of(B).ops.cholesky_solve(B, L, bool(upper))


def cholesky_inverse(L: Any, upper: bool = False, *, out: Any = None) -> Any:
    """The inverse of A from its Cholesky factor ``L``."""
    if out is not None:
        return _out_args.write_out("cholesky_inverse", cholesky_inverse, (L, upper), {}, out)
    _matrices(L, "cholesky_inverse")
    return backend_of(L).ops.cholesky_inverse(L, bool(upper))


def solve_triangular(A: Any, B: Any, *, upper: bool, left: bool = True,
                     unitriangular: bool = False, out: Any = None) -> Any:
    """X with ``A X = B`` (``left=False``: ``X A = B``), A triangular."""
    if out is not None:
        return _out_args.write_out(
            "solve_triangular", solve_triangular,
            (A, B),
            {"upper": upper, "left": left, "unitriangular": unitriangular}, out)
    _matrices(A, "linalg.solve_triangular")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    return backend_of(A).ops.solve_triangular(A, B, bool(upper), bool(left), bool(unitriangular))


def triangular_solve(b: Any, A: Any, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out: Any = None) -> Any:
    """(X, A's copy) with ``A X = b`` (``transpose``: ``A^T X = b``)."""
    if out is not None:
        return _out_args.write_out(
            "triangular_solve", triangular_solve,
            (b, A, upper, transpose, unitriangular),
            {}, out)
    _matrices(A, "triangular_solve")
    ops = backend_of(A).ops
    coefficient = _mT(ops, A) if transpose else A
    solution = ops.solve_triangular(coefficient, b, bool(upper) != bool(transpose), True,
                                    bool(unitriangular))
    # the coefficient's copy has the broadcast batch shape (as torch's)
    shape = tuple(solution.shape[:-2]) + tuple(A.shape[-2:])
    return return_types.triangular_solve((solution, ops.clone(ops.expand(A, shape))))


def eigh(A: Any, UPLO: str = "L", *, out: Any = None) -> Any:
    """(eigenvalues ascending, eigenvectors) of the symmetric matrix in A's ``UPLO`` triangle."""
    if out is not None:
        return _out_args.write_out("eigh", eigh, (A, UPLO), {}, out)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _matrices(A, "linalg.eigh")
    values, vectors = backend_of(A).ops.eigh(A, UPLO == "U")
    return return_types.linalg_eigh((values, vectors))


def eigvalsh(A: Any, UPLO: str = "L", *, out: Any = None) -> Any:
    """The eigenvalues of :func:`eigh` (the gradient goes through the eigenvectors, as torch)."""
    if out is not None:
        return _out_args.write_out("eigvalsh", eigvalsh, (A, UPLO), {}, out)
    return eigh(A, UPLO).eigenvalues


def linalg_qr(A: Any, mode: str = "reduced", *, out: Any = None) -> Any:
    """(Q, R) with A = Q R; ``mode``: "reduced", "complete", or "r" (Q empty)."""
    if out is not None:
        return _out_args.write_out("linalg_qr", linalg_qr, (A, mode), {}, out)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    _matrices(A, "linalg.qr", square=False)
    engine = backend_of(A)
    Q, R = engine.ops.qr(A, mode == "complete")
    if mode == "r":  # torch's empty Q
        Q = engine.from_numpy(np.zeros((0,), np.dtype(str(A.dtype).split(".")[-1])))
    return return_types.linalg_qr((Q, R))


def qr(input: Any, some: bool = True, *, out: Any = None) -> Any:
    """torch.qr (deprecated in torch): ``linalg.qr`` with ``some`` for mode "reduced"."""
    if out is not None:
        return _out_args.write_out("qr", qr, (input, some), {}, out)
    return return_types.qr(linalg_qr(input, "reduced" if some else "complete"))


def linalg_svd(A: Any, full_matrices: bool = True, *, driver: Any = None, out: Any = None) -> Any:
    """(U, S, Vh) with A = U diag(S) Vh, S descending (``driver`` is CUDA's: accepted)."""
    if out is not None:
        return _out_args.write_out("linalg_svd", linalg_svd, (A, full_matrices),
                                   {"driver": driver}, out)
    _matrices(A, "linalg.svd", square=False)
    U, S, Vh = backend_of(A).ops.svd(A, bool(full_matrices))
    return return_types.linalg_svd((U, S, Vh))


def svdvals(A: Any, *, driver: Any = None, out: Any = None) -> Any:
    """The singular values, descending (the gradient goes through U and Vh, as torch)."""
    if out is not None:
        return _out_args.write_out("svdvals", svdvals, (A,), {"driver": driver}, out)
    return linalg_svd(A, full_matrices=False).S


def svd(input: Any, some: bool = True, compute_uv: bool = True, *, out: Any = None) -> Any:
    """torch.svd: (U, S, V) (V, not Vh); ``some=False``: square U and V."""
    if out is not None:
        return _out_args.write_out("svd", svd, (input, some, compute_uv), {}, out)
    U, S, Vh = linalg_svd(input, full_matrices=not some)
    ops = backend_of(input).ops
    if not compute_uv:
        return return_types.svd((ops.zeros_like(U), S, ops.zeros_like(_mT(ops, Vh))))
    return return_types.svd((U, S, _mT(ops, Vh)))


def pinv(A: Any, *, atol: Any = None, rtol: Any = None, hermitian: bool = False,
         out: Any = None) -> Any:
    """The pseudo-inverse through the SVD: ``V diag(1/s) U^T`` over the singular values above
    ``max(atol, rtol * s_max)`` (torch's default rtol: eps(dtype) * max(m, n) without atol)."""
    if out is not None:
        return _out_args.write_out("pinv", pinv, (A,),
                                   {"atol": atol, "rtol": rtol, "hermitian": hermitian}, out)
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


# -- LU -------------------------------------------------------------------------------------------
# torch's CPU LU always pivots; info (LAPACK getrf's) is the 1-based index of the first exactly
# zero diagonal entry of U, 0 if none, read from the packed factors.


def _lu_input(A: Any, fn: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    name = str(A.dtype).split(".")[-1]
    if not name.startswith("float"):
        from transgrad._api.inplace import _TORCH_NAMES

        torch_name = _TORCH_NAMES.get(name, name)
        raise NotImplementedError(f'"lu_cpu" not implemented for \'{torch_name}\'')


def _need_pivot(pivot: bool) -> None:
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _lu_info(LU: Any) -> np.ndarray:
    d = np.diagonal(np.asarray(LU.detach().numpy()), axis1=-2, axis2=-1)
    if d.shape[-1] == 0:  # empty matrices: no pivot
        return np.zeros(d.shape[:-1], np.int32)
    zero = d == 0
    return np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)


def _raise_singular(info: np.ndarray, fn: str) -> None:
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        k, i = int(bad[0]), int(flat[bad[0]])
        where = f"(Batch element {k}): " if info.ndim else ""
        raise RuntimeError(f"{fn}: {where}U[{i},{i}] is zero and using it on lu_solve would "
                           "result in a division by zero. If you still want to perform the "
                           "factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")


def lu_factor_ex(A: Any, *, pivot: bool = True, check_errors: bool = False, out: Any = None) -> Any:
    """(LU, pivots, info): the packed factors of A = P L U, LAPACK's 1-based int32 pivots, and
    the order of the first zero pivot (0: none) per matrix; ``check_errors`` raises on one."""
    if out is not None:
        return _out_args.write_out("lu_factor_ex", lu_factor_ex, (A,),
                                   {"pivot": pivot, "check_errors": check_errors}, out)
    _lu_input(A, "torch.lu_factor")
    _need_pivot(pivot)
    engine = backend_of(A)
    LU, pivots = engine.ops.lu_factor(A)
    info = _lu_info(LU)
    if check_errors:
        _raise_singular(info, "torch.linalg.lu_factor_ex")
    return return_types.linalg_lu_factor_ex((LU, pivots, engine.from_numpy(info)))


def lu_factor(A: Any, *, pivot: bool = True, out: Any = None) -> Any:
    """(LU, pivots): :func:`lu_factor_ex` that raises torch's error at a zero pivot."""
    if out is not None:
        return _out_args.write_out("lu_factor", lu_factor, (A,), {"pivot": pivot}, out)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_singular(np.asarray(info.numpy()), "torch.linalg.lu_factor")
    return return_types.linalg_lu_factor((LU, pivots))


def linalg_lu(A: Any, *, pivot: bool = True, out: Any = None) -> Any:
    """(P, L, U) with A = P L U: P a permutation, L unit lower (m x k), U upper (k x n)."""
    if out is not None:
        return _out_args.write_out("linalg_lu", linalg_lu, (A,), {"pivot": pivot}, out)
    _lu_input(A, "linalg.lu")
    _need_pivot(pivot)
    return return_types.linalg_lu(backend_of(A).ops.lu(A))


def lu_unpack(LU_data: Any, LU_pivots: Any, unpack_data: bool = True,
              unpack_pivots: bool = True, *, out: Any = None) -> Any:
    """(P, L, U) from :func:`lu_factor`'s output; the parts not asked for are empty."""
    if out is not None:
        return _out_args.write_out(
            "lu_unpack", lu_unpack,
            (LU_data, LU_pivots, unpack_data, unpack_pivots),
            {}, out)
    if LU_data.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(LU_data.shape)} instead")
    if not str(LU_pivots.dtype).endswith("int32"):
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used with "
                           "the output produced by torch.linalg.lu_factor")
    engine = backend_of(LU_data)
    P, L, U = engine.ops.lu_unpack(LU_data, LU_pivots)
    empty = engine.from_numpy(np.zeros((0,), np.dtype(str(LU_data.dtype).split(".")[-1])))
    return return_types.lu_unpack((P if unpack_pivots else empty, L if unpack_data else empty,
                                   U if unpack_data else empty))


def linalg_lu_solve(LU: Any, pivots: Any, B: Any, *, left: bool = True,
                    adjoint: bool = False, out: Any = None) -> Any:
    """X with ``A X = B`` for A given by :func:`lu_factor` (``adjoint``: ``A^T X = B``;
    ``left=False``: ``X A = B``); batch dims broadcast."""
    if out is not None:
        return _out_args.write_out("linalg_lu_solve", linalg_lu_solve, (LU, pivots, B),
                                   {"left": left, "adjoint": adjoint}, out)
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    _matrices(LU, "torch.linalg.lu_solve")
    if not str(pivots.dtype).endswith("int32"):
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if pivots.ndim < 1 or pivots.shape[-1] != LU.shape[-1]:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if tuple(pivots.shape) != tuple(LU.shape[:-1]):
        raise RuntimeError("linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape {list(pivots.shape)} instead")
    if LU.dtype != B.dtype:
        from transgrad._api.inplace import _TORCH_NAMES

        a, b = (_TORCH_NAMES.get(str(t.dtype).split(".")[-1], str(t.dtype)) for t in (LU, B))
        raise RuntimeError("linalg.lu_solve: Expected LU and B to have the same dtype, but found "
                           f"LU of type {a} and B of type {b} instead")
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        eq = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{eq} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    return backend_of(LU).ops.lu_solve(LU, pivots, B, bool(left), bool(adjoint))


def lu(A: Any, pivot: bool = True, get_infos: bool = False) -> Any:
    """torch.lu (deprecated in torch for ``linalg.lu_factor``): (LU, pivots), and info with
    ``get_infos``."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=2)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def lu_solve(b: Any, LU_data: Any, LU_pivots: Any, *, out: Any = None) -> Any:
    """torch.lu_solve (deprecated in torch for ``linalg.lu_solve``, whose arguments are in
    the other order): X with ``A X = b``."""
    if out is not None:
        return _out_args.write_out("lu_solve", lu_solve, (b, LU_data, LU_pivots), {}, out)
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    return linalg_lu_solve(LU_data, LU_pivots, b)
