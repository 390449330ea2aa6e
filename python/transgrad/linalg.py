"""``transgrad.linalg``: torch.linalg's names for the linear algebra both engines have.

Input: the engine-neutral functions of ``transgrad._api`` (each finds its engine from its
tensor, so this one module serves ``transgrad`` and ``transgrad.reference``). Output: torch's
``linalg`` names: ``det``, ``slogdet``, ``inv``, ``solve``, ``matmul``, ``cross``, ``vector_norm``,
and the factorisations of ``_api/factorizations.py``.
"""

from transgrad._api.composites import cross, vector_norm  # noqa: F401
from transgrad._api.factorizations import (  # noqa: F401
    cholesky_ex,
    eigh,
    eigvalsh,
    lu_factor,
    lu_factor_ex,
    matrix_exp,
    pinv,
    solve_triangular,
    svdvals,
)
from transgrad._api.factorizations import linalg_cholesky as cholesky  # noqa: F401
from transgrad._api.factorizations import linalg_lu as lu  # noqa: F401
from transgrad._api.factorizations import linalg_lu_solve as lu_solve  # noqa: F401
from transgrad._api.factorizations import linalg_qr as qr  # noqa: F401
from transgrad._api.factorizations import linalg_svd as svd  # noqa: F401
from transgrad._api.functions import matmul  # noqa: F401
from transgrad._api.linalg import det, inverse, solve  # noqa: F401
from transgrad._api.linalg import linalg_slogdet as slogdet  # noqa: F401
from transgrad._errors import LinAlgError  # noqa: F401

inv = inverse

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "eigh", "eigvalsh", "inv",
           "lu", "lu_factor", "lu_factor_ex", "lu_solve", "matmul", "matrix_exp", "pinv",
           "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals", "vector_norm"]
