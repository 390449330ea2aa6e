"""The older spectral normalisation by a forward pre-hook (torch.nn.utils.spectral_norm),
engine-neutral; ``parametrizations.spectral_norm`` is the newer form.

``spectral_norm(module)`` renames the parameter ``weight`` to ``weight_orig``, adds the buffers
``weight_u`` and ``weight_v`` (N(0, 1) draws, normalised: torch's numbers for torch's seed) and
recomputes ``module.weight = weight_orig / sigma`` before each forward, with one power
iteration (``v`` then ``u``, torch's order) per call in training mode.
"""

from __future__ import annotations

from typing import Any

from transgrad._backend import backend_of

from . import functional as F
from .parameter import is_lazy
from .weight_norm import find_norm_hook, remove_norm_hook


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm`` (torch's class of the same name)."""

    _version = 1

    def __init__(self, name: str = "weight", n_power_iterations: int = 1, dim: int = 0,
                 eps: float = 1e-12) -> None:
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight: Any) -> Any:
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(
                self.dim, *[d for d in range(weight_mat.ndim) if d != self.dim])
        return weight_mat.reshape(weight_mat.shape[0], -1)

    def compute_weight(self, module: Any, do_power_iteration: bool) -> Any:
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        m = backend_of(weight).module
        if do_power_iteration:
            with m.no_grad():
                w = weight_mat.detach()
                for _ in range(self.n_power_iterations):
                    v.copy_(F.normalize(m.mv(w.t(), u), dim=0, eps=self.eps))
                    u.copy_(F.normalize(m.mv(w, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = m.dot(u, m.mv(weight_mat, v))
        return weight / sigma

    def remove(self, module: Any) -> None:
        with backend_of(getattr(module, self.name + "_orig")).no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, module.Parameter(weight.detach()))

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module: Any, name: str, n_power_iterations: int, dim: int,
              eps: float) -> SpectralNorm:
        if find_norm_hook(module, SpectralNorm, name) is not None:
            raise RuntimeError(f"Cannot register two spectral_norm hooks on the same "
                               f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if is_lazy(weight):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        m = backend_of(weight).module
        with m.no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = F.normalize(m.empty(h, dtype=weight.dtype).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(m.empty(w, dtype=weight.dtype).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.detach())
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module: Any, name: str = "weight", n_power_iterations: int = 1,
                  eps: float = 1e-12, dim: int | None = None) -> Any:
    """Normalise ``module.<name>`` by its spectral norm before each forward (``SpectralNorm``;
    ``dim`` defaults to 1 for transposed convolutions, 0 otherwise)."""
    if dim is None:
        from .modules.conv import _ConvTransposeNd

        dim = 1 if isinstance(module, _ConvTransposeNd) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module: Any, name: str = "weight") -> Any:
    """Undo ``spectral_norm``: ``module.<name>`` is a parameter holding its current value."""
    return remove_norm_hook(module, SpectralNorm, name, "spectral_norm")
