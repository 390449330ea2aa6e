"""The engine-neutral, PyTorch-style API, built over an engine *backend*.

Input: a backend (``transgrad._backend.Backend``; Note [One API, two engines] there). Output:
the functions of ``functions.py`` and ``extra_functions.py`` (module level, the same objects for
both engines, which import them), and, per engine, by ``build``: the factories put into the
engine's namespace (``transgrad.reference``, ``transgrad``), the methods/operators installed on
the backend's Tensor class, gradcheck and autograd.functional. That both engines go through the
same code is what keeps their APIs equal.

The backend interface in detail (exact attribute names; besides these, ``operators`` and
``inplace_verdict`` as documented on ``Backend``):

``Tensor``
    The tensor class. Natively it provides ``shape`` (tuple of ints), ``ndim``, ``dtype`` (a
    numpy dtype), ``requires_grad`` (settable), ``grad`` (settable), ``grad_fn``, ``is_leaf``,
    ``output_nr``, ``backward(gradient=None, retain_graph=None, create_graph=False,
    inputs=None)``, ``detach()``, ``requires_grad_(b=True)``, ``retain_grad()``,
    ``retains_grad``, ``register_hook(fn)``, ``register_post_accumulate_grad_hook(fn)``,
    ``_shares_storage(other)``, ``item()``, ``numpy()`` and ``__array__``
    (zero-copy), ``_version`` and ``_bump_version()``; optionally ``_is_view`` (True for a view
    of another tensor's storage: in-place ops on it are then refused while recording).
    ``grad_fn`` objects provide ``name()``, ``next_functions``, ``register_prehook(fn)``,
    ``register_hook(fn)`` and ``location``
    ("formulas/unary.py:12", or None).
    Everything else (ops as methods, operators, indexing, ``__repr__``) is installed here.
``ops``
    Formula entry points by name, called positionally with the formula signatures of
    docs/ARCHITECTURE.md ("Names of formulas"): ``ops.sum(x, dims, keepdim)``,
    ``ops.slice(x, dim, start, stop, step)``, ``ops.cast(x, "float64")`` (dtype names), ...
    Looked up on every call, so formulas may be loaded lazily.
``from_numpy(array)``
    Wrap a numpy array of dtype bool/int64/float32/float64 without copying.
``autograd``
    A namespace with ``grad``, ``backward``, ``no_grad``, ``enable_grad``, ``set_grad_enabled``,
    ``is_grad_enabled``, ``Function``, ``once_differentiable``; ``build`` adds ``gradcheck``,
    ``gradgradcheck`` and ``functional`` (vjp, jvp, jacobian, hessian, hvp, vhp).
``inplace_(dst, src)``
    Write ``src`` (same shape) into ``dst``'s storage, bump its version, and give ``dst``
    ``src``'s autograd history (grad_fn/output_nr) when ``src`` has one, else none. The API
    layer checks the leaf rule and clones saved operands first (Note [In-place ops]).
``set_history_(dst, src)``
    Give ``dst`` the history of ``src`` without copying data (a view replayed from its rebased
    base, Note [In-place on views] in views.py).
``name``
    The engine's module name (messages; unpickling imports it to find the backend again).
"""

from __future__ import annotations

from typing import Any

from transgrad import _backend


def build(backend: Any, factories: Any) -> None:
    """Register ``backend`` (``backend_of`` finds it from its tensors) and install the method
    table on ``backend.Tensor``, with ``factories`` (a ``factories.Factories``) for the methods
    that make tensors next to ``self`` (``new_zeros``...). Everything else of the API is module
    level and imported by each engine's module: Note [One API, two engines] in _backend.py."""
    from transgrad._api import methods

    _backend.register(backend)
    methods.install(backend, factories)
