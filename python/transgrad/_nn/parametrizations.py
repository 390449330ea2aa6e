"""Weight normalisation, spectral normalisation and orthogonality as parametrizations
(torch.nn.utils.parametrizations), engine-neutral.

``weight_norm``, ``spectral_norm`` and ``orthogonal`` register a ``_WeightNorm``,
``_SpectralNorm`` or ``_Orthogonal`` module with ``parametrize.register_parametrization``; those
are Modules, bound to each engine in ``nn/utils/parametrizations.py`` of each namespace (Note
[Parametrized modules] in parametrize.py). The arithmetic is torch's step for step, so the same
seed gives the same power-iteration vectors as torch.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from transgrad._backend import backend_of, is_tensor

from . import functional as F
from . import parametrize
from .module import Module

_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _bound(module: Any, name: str) -> Any:
    """The class ``name`` of this file bound to ``module``'s engine."""
    parametrize._engine_nn(module)  # the engine check, with its message
    return getattr(importlib.import_module(f"{module._engine}.nn.utils.parametrizations"), name)


def _is_conv_transpose(module: Any) -> bool:
    from .modules.conv import _ConvTransposeNd

    return isinstance(module, _ConvTransposeNd)


# -- weight norm -------------------------------------------------------------------------------

class _WeightNorm(Module):
    """``weight = g * v / ||v||`` with the norm over every dim but ``dim`` (torch's
    ``_weight_norm``); ``right_inverse`` splits a weight into ``(g, v)``."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Any, weight_v: Any) -> Any:
        return backend_of(weight_v).module._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Any) -> Any:
        return backend_of(weight).module.norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Any, name: str = "weight", dim: int | None = 0) -> Any:
    """Parametrize ``module.<name>`` as ``g * v / ||v||``: ``parametrizations.<name>.original0``
    is g, ``original1`` is v; a state dict of the older ``nn.utils.weight_norm``
    (``<name>_g``/``<name>_v``) still loads."""
    parametrize.register_parametrization(module, name, _bound(module, "_WeightNorm")(dim),
                                         unsafe=True)

    def _weight_norm_compat_hook(state_dict: Any, prefix: str, local_metadata: Any,
                                 strict: bool, missing_keys: list, unexpected_keys: list,
                                 error_msgs: list) -> None:
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# -- spectral norm -----------------------------------------------------------------------------

class _SpectralNorm(Module):
    """``weight / sigma`` with sigma the largest singular value of the weight seen as a matrix
    (``dim`` first), estimated by power iteration: buffers ``_u`` and ``_v`` drawn from N(0, 1)
    and normalised, 15 iterations at registration, ``n_power_iterations`` more on each use in
    training mode, as torch."""

    def __init__(self, weight: Any, n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError("Dimension out of range (expected to be in range of "
                             f"[-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            E = backend_of(weight)
            with E.no_grad():
                weight_mat = self._reshape_weight_to_matrix(weight.detach())
                h, w = weight_mat.shape
                u = E.module.empty(h, dtype=weight.dtype).normal_(0, 1)
                v = E.module.empty(w, dtype=weight.dtype).normal_(0, 1)
                self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
                self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Any) -> Any:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Any, n_power_iterations: int) -> None:
        """``n_power_iterations`` steps of ``u = normalize(W v)``, ``v = normalize(W^T u)``,
        written into the buffers in place (torch's ``out=``)."""
        E = backend_of(weight_mat)
        with E.no_grad():
            weight_mat = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(E.module.mv(weight_mat, self._v), dim=0,
                                          eps=self.eps))
                self._v.copy_(F.normalize(E.module.mv(weight_mat.t(), self._u), dim=0,
                                          eps=self.eps))

    def forward(self, weight: Any) -> Any:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        E = backend_of(weight)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = E.module.dot(u, E.module.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Any) -> Any:
        return value


def spectral_norm(module: Any, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Any:
    """Parametrize ``module.<name>`` as itself divided by its spectral norm (``_SpectralNorm``;
    ``dim`` defaults to 1 for transposed convolutions, 0 otherwise)."""
    weight: Any = getattr(module, name, None)
    if not is_tensor(weight):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if _is_conv_transpose(module) else 0
    parametrize.register_parametrization(
        module, name, _bound(module, "_SpectralNorm")(weight, n_power_iterations, dim, eps))
    return module


# -- orthogonal --------------------------------------------------------------------------------

def _householder_product(A: Any, tau: Any) -> Any:
    """The first k columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` the
    i-th column of ``A`` below the diagonal and 1 on it (LAPACK's orgqr, torch's
    ``linalg.householder_product``), as differentiable ops; A is (*, n, k) with n >= k."""
    E = backend_of(A)
    m = E.module
    n, k = A.shape[-2], A.shape[-1]
    V = A.tril(-1) + m.eye(n, k, dtype=A.dtype)
    Q = m.eye(n, dtype=A.dtype).expand(*A.shape[:-2], n, n)
    for i in range(k):
        v = V[..., :, i:i + 1]                                    # (*, n, 1)
        t = tau[..., i:i + 1].unsqueeze(-1)                       # (*, 1, 1)
        Q = Q - (Q @ v) @ (v.transpose(-2, -1) * t)
    return Q[..., :, :k]


def _geqrf(Q: Any) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK geqrf of each matrix of Q (n >= k): the reflectors below R in one array, and
    tau (numpy's raw QR gives the same, transposed); as arrays, for ``right_inverse``, which
    runs without gradients."""
    q = np.asarray(Q.detach())
    flat = q.reshape(-1, *q.shape[-2:])
    As, taus = [], []
    for mat in flat:
        h, tau = np.linalg.qr(mat, mode="raw")
        As.append(h.T)
        taus.append(tau)
    return (np.stack(As).reshape(q.shape), np.stack(taus).reshape(*q.shape[:-2], -1))


def _make_orthogonal(A: Any) -> Any:
    """The Q of A's QR decomposition with R's diagonal made positive (torch's geqrf and
    householder_product, through ``linalg.qr``)."""
    m = backend_of(A).module
    Q, R = m.linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


def _is_orthogonal(Q: Any) -> bool:
    m = backend_of(Q).module
    n, k = Q.shape[-2], Q.shape[-1]
    Id = m.eye(k, dtype=Q.dtype)
    eps = 10.0 * n * m.finfo(Q.dtype).eps
    return bool(m.allclose(Q.transpose(-2, -1) @ Q, Id, atol=eps))


class _Orthogonal(Module):
    """A matrix (or batch) with orthonormal columns (or rows, when wide), through the matrix
    exponential or the Cayley map of a skew-symmetric matrix, or a product of Householder
    reflectors; with ``use_trivialization`` a buffer ``base`` multiplies it on the left, set by
    ``right_inverse`` (torch's dynamic trivialization)."""

    def __init__(self, weight: Any, orthogonal_map: str, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.dtype.is_complex and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Any) -> Any:
        m = backend_of(X).module
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            X = X.tril()
            if n != k:
                X = m.cat([X, m.zeros(*X.shape[:-2], n, n - k, dtype=X.dtype)], dim=-1)
            A = X - X.transpose(-2, -1)
            if self.orthogonal_map == "matrix_exp":
                Q = m.matrix_exp(A)
            else:
                Id = m.eye(n, dtype=A.dtype)
                Q = m.linalg.solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if "base" in self._buffers:
            Q = self.base @ Q
        if transposed:
            Q = Q.transpose(-2, -1)
        return Q

    def right_inverse(self, Q: Any) -> Any:
        m = backend_of(Q).module
        if tuple(Q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with m.no_grad():
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q = Q.transpose(-2, -1)
                n, k = k, n
            if "base" not in self._buffers:
                if self.orthogonal_map in ("cayley", "matrix_exp"):
                    raise NotImplementedError("It is not possible to assign to the matrix "
                                              "exponential or the Cayley parametrizations when "
                                              "use_trivialization=False.")
                A, tau = _geqrf(Q)
                diag = np.sign(np.diagonal(A, axis1=-2, axis2=-1)).copy()
                diag[tau == 0.0] *= -1  # torch: sign_(), then flip where tau is 0
                idx = np.arange(A.shape[-1])
                A[..., idx, idx] = diag
                if transpose:
                    A = np.swapaxes(A, -2, -1)
                return m.tensor(np.asarray(A, order="C"), dtype=Q.dtype)
            if n == k:
                Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
            else:
                N = m.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)
                Q = _make_orthogonal(m.cat([Q, N], dim=-1))
            self.base = Q
            rows, cols = Q_init.shape[-2], Q_init.shape[-1]
            return -m.eye(rows, cols, dtype=Q_init.dtype).expand(*Q_init.shape).clone()


def orthogonal(module: Any, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Any:
    """Parametrize the matrix (or batch) ``module.<name>`` to have orthonormal columns or rows
    (``_Orthogonal``); ``orthogonal_map`` defaults to "matrix_exp" for square or complex
    matrices, "householder" otherwise, as torch."""
    weight: Any = getattr(module, name, None)
    if not is_tensor(weight):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. "
                         f"Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = ("matrix_exp" if weight.shape[-2] == weight.shape[-1]
                          or weight.dtype.is_complex else "householder")
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    orth = _bound(module, "_Orthogonal")(weight, orthogonal_map,
                                          use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module
