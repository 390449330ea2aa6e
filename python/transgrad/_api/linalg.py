"""PyTorch-style linear algebra over the formulas of formulas/blas.py and linalg.py: the fused
products (``addmm``, ``baddbmm``, ``addbmm``, ``addmv``, ``addr``), ``trace``, the distances
(``dist``, ``cdist``, ``pdist``) and the LAPACK-backed ``det``, ``slogdet``, ``inverse`` and
``solve``.

Input: tensors of either engine. Output: the module-level functions of ``__all__`` (exported by
both engines, several as Tensor methods: methods.py) and, under torch's ``linalg`` names, the
functions of ``transgrad.linalg`` (``LINALG``). Each calls its engine's formula.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transgrad import return_types
from transgrad._api import dtype_checks
from transgrad._api import out_args as _out_args
from transgrad._backend import backend_of

__all__ = ["addbmm", "addmm", "addmv", "addr", "baddbmm", "cdist", "det", "dist", "inverse",
           "logdet", "pdist", "slogdet", "trace"]



def _integral(input: Any, product: Any, beta: Any, alpha: Any) -> Any:
    """``beta * input + alpha * product``, integral (Note [Integral coefficients])."""
    beta, alpha = int(beta), int(alpha)
    scaled = product if alpha == 1 else product * alpha
    return scaled + input * beta  # an integer has no NaN to ignore when beta is 0


# Note [Integral coefficients]
# torch's fused products and addcmul on integral tensors keep the integral dtype and truncate
# the Python number coefficients toward zero (addbmm(int64, beta=0.6, alpha=0.2) is all zeros).
# The formulas take a Scalar, which the compiled engine carries as a double, so a product times
# it promotes to the default float dtype. An integral tensor never requires grad, so these
# calls compute the sum from the public ops instead, with int coefficients.


def _need(t: Any, ndim: int, fn: str, what: str) -> None:
    if t.ndim != ndim:
        raise RuntimeError(f"{fn}: {what} must be a {ndim}D tensor, got {t.ndim}D")


def addmm(input: Any, mat1: Any, mat2: Any, *, beta: Any = 1, alpha: Any = 1,
          out: Any = None) -> Any:
    """``beta * input + alpha * (mat1 @ mat2)`` (input broadcast to the product's shape)."""
    if out is not None:
        return _out_args.write_out("addmm", addmm, (input, mat1, mat2),
                                   {"beta": beta, "alpha": alpha}, out)
    _need(mat1, 2, "addmm", "mat1")
    _need(mat2, 2, "addmm", "mat2")
    dtype_checks.check_addmm(input, mat1, mat2)
    if input.dtype.kind in "iu":
        return _integral(input, mat1 @ mat2, beta, alpha)
    return backend_of(input).ops.addmm(input, mat1, mat2, beta, alpha)


def baddbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1,
            out: Any = None) -> Any:
    """``beta * input + alpha * (batch1 @ batch2)``, per batch."""
    if out is not None:
        return _out_args.write_out("baddbmm", baddbmm, (input, batch1, batch2),
                                   {"beta": beta, "alpha": alpha}, out)
    _need(batch1, 3, "baddbmm", "batch1")
    _need(batch2, 3, "baddbmm", "batch2")
    dtype_checks.check_baddbmm(input, batch1, batch2)
    if input.dtype.kind in "iu":
        return _integral(input, batch1 @ batch2, beta, alpha)
    return backend_of(input).ops.baddbmm(input, batch1, batch2, beta, alpha)


def addbmm(input: Any, batch1: Any, batch2: Any, *, beta: Any = 1, alpha: Any = 1,
           out: Any = None) -> Any:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``."""
    if out is not None:
        return _out_args.write_out("addbmm", addbmm, (input, batch1, batch2),
                                   {"beta": beta, "alpha": alpha}, out)
    _need(batch1, 3, "addbmm", "batch1")
    _need(batch2, 3, "addbmm", "batch2")
    dtype_checks.check_addmm(input, batch1, batch2)
    if input.dtype.kind in "iu":
        return _integral(input, (batch1 @ batch2).sum(0, dtype=input.dtype), beta, alpha)
    return backend_of(input).ops.addbmm(input, batch1, batch2, beta, alpha)


def addmv(input: Any, mat: Any, vec: Any, *, beta: Any = 1, alpha: Any = 1, out: Any = None) -> Any:
    """``beta * input + alpha * (mat @ vec)``."""
    if out is not None:
        return _out_args.write_out("addmv", addmv, (input, mat, vec),
                                   {"beta": beta, "alpha": alpha}, out)
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, "
                           f"{vec.ndim}")
    dtype_checks.check_addmv(input, mat, vec)
    if input.dtype.kind in "iu":
        return _integral(input, mat @ vec, beta, alpha)
    return backend_of(input).ops.addmv(input, mat, vec, beta, alpha)


def addr(input: Any, vec1: Any, vec2: Any, *, beta: Any = 1, alpha: Any = 1,
         out: Any = None) -> Any:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    if out is not None:
        return _out_args.write_out("addr", addr, (input, vec1, vec2),
                                   {"beta": beta, "alpha": alpha}, out)
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D"
                           if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    return backend_of(input).ops.addr(input, vec1, vec2, beta, alpha)


def trace(input: Any) -> Any:
    """The sum of the main diagonal of a matrix."""
    return backend_of(input).ops.trace(input)


def dist(input: Any, other: Any, p: Any = 2) -> Any:
    """The ``p``-norm of ``input - other`` (broadcast)."""
    return backend_of(input).ops.dist(input, other, float(p))


def cdist(x1: Any, x2: Any, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Any:
    """The ``p``-norm distance between each row of x1 (..., P, M) and each row of x2 (..., R, M);
    ``compute_mode`` is accepted (every mode computes the differences exactly here)."""
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist")
    dtype_checks.check_scalar_type(x1, x2)
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if float(p) < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    return backend_of(x1).ops.cdist(x1, x2, float(p))


def pdist(input: Any, p: float = 2) -> Any:
    """The ``p``-norm distances between the rows of input (N, M), pairs i < j in row order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if float(p) < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return backend_of(input).ops.pdist(input, float(p))


def _square(A: Any, fn: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def det(input: Any, *, out: Any = None) -> Any:
    """The determinant of each square matrix (batch dims allowed); its gradient goes through the
    SVD where |det| < 100 eps of the dtype, as torch's (Note [det at singular matrices] in
    formulas/linalg.py)."""
    if out is not None:
        return _out_args.write_out("det", det, (input,), {}, out)
    _square(input, "linalg.det")
    eps = 1.1920928955078125e-07 if str(input.dtype).endswith("float32") else 2.220446049250313e-16
    engine = backend_of(input)
    below = 100.0 * eps
    if input.requires_grad and engine.autograd.is_grad_enabled():
        # the backward takes the SVD path only if some matrix needs it (its threshold 0: none)
        with engine.autograd.no_grad():
            value = engine.ops.det(input)
        if not (np.abs(np.asarray(value.numpy())) < below).any():
            below = 0.0
    return engine.ops.det(input, below)


def slogdet(input: Any, *, out: Any = None) -> Any:
    """(sign, log |det|) of each square matrix (``torch.return_types.slogdet``)."""
    if out is not None:
        return _out_args.write_out("slogdet", slogdet, (input,), {}, out)
    return return_types.slogdet(linalg_slogdet(input))


def linalg_slogdet(input: Any, *, out: Any = None) -> Any:
    """``linalg.slogdet``: (sign, log |det|) of each square matrix; sign's gradient is zero (as
    torch)."""
    if out is not None:
        return _out_args.write_out("linalg_slogdet", linalg_slogdet, (input,), {}, out)
    _square(input, "linalg.slogdet")
    ops = backend_of(input).ops
    sign, logabsdet = ops.slogdet(input)
    if logabsdet.requires_grad:
        # torch's sign takes part in the graph with a zero gradient: add sgn's zero-gradient
        # 0 (sgn(l) - sgn(l) is finite for l = -inf, unlike 0 * l)
        level = ops.sgn(logabsdet)
        sign = ops.add(sign, ops.sub(level, level))
    return return_types.linalg_slogdet((sign, logabsdet))


def logdet(input: Any) -> Any:
    """``log(det(input))``: NaN for a negative determinant, -inf for a zero one."""
    sign, logabsdet = slogdet(input)
    ops = backend_of(input).ops
    nan = ops.where(ops.lt(sign, ops.zeros_like(sign)), ops.zeros_like(sign) + float("nan"),
                    ops.zeros_like(sign))
    return ops.add(logabsdet, nan)


def inverse(input: Any, *, out: Any = None) -> Any:
    """The inverse of each square matrix (batch dims allowed)."""
    if out is not None:
        return _out_args.write_out("inverse", inverse, (input,), {}, out)
    _square(input, "linalg.inv")
    return backend_of(input).ops.inverse(input)


def solve(A: Any, B: Any, *, left: bool = True, out: Any = None) -> Any:
    """``X`` with ``A @ X = B`` (``left=False``: ``X @ A = B``); B a vector or matrices as
    torch decides (B of A's shape without the last dim is a batch of vectors)."""
    if out is not None:
        return _out_args.write_out("solve", solve, (A, B), {"left": left}, out)
    _square(A, "linalg.solve")
    dtype_checks.check_solve(A, B)
    ops = backend_of(A).ops
    if left:
        return ops.solve(A, B)
    # X A = B  <=>  A^T X^T = B^T
    return ops.transpose(ops.solve_matrix(ops.transpose(A, -1, -2), ops.transpose(B, -1, -2)),
                         -1, -2)
