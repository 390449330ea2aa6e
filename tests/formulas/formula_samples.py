"""Sample inputs of formulas (``@samples``) turned into engine tensors, deterministically.

``shipped_formulas()`` lists the formulas of ``transgrad.formulas`` (namespace ``transgrad``);
a formula of another namespace (a test fixture module) is named ``"namespace::name"``.
``make_call(engine, name, i)`` builds the i-th sample of a formula as float64 tensors drawn from
a numpy generator seeded by the formula's name and the sample's index, so both engines (and
torch) see the same numbers.
``Call.differentiable()`` gives what gradcheck needs: a function of the tensors that require
grad, returning the floating outputs.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from transgrad.lang import REGISTRY, B, FormulaDef, I, T, case, formulas_in, load_builtin_formulas

# Formulas whose outputs never require grad: comparisons, logic and creation (zeros & co).
NOT_DIFFERENTIABLE = frozenset({
    "eq", "ne", "lt", "le", "gt", "ge", "logical_not", "zeros", "zeros_like", "ones_like",
})


def shipped_formulas() -> dict[str, FormulaDef]:
    load_builtin_formulas()
    return {n: d for n, d in sorted(REGISTRY.items())
            if d.module.startswith("transgrad.formulas.")}


def formula_def(name: str) -> FormulaDef:
    """The shipped formula ``name``, or ``"namespace::name"`` of another namespace."""
    namespace, _, short = name.rpartition("::")
    return formulas_in(namespace)[short] if namespace else REGISTRY[name]


def op(engine: Any, name: str) -> Callable[..., Any]:
    """The entry point of formula ``name`` on ``engine``."""
    if engine.__name__.startswith("transgrad.reference"):
        return formula_def(name)
    ops = getattr(engine, "ops", None) or engine._C.ops
    return getattr(ops, name)


def rng_for(name: str, index: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(name.encode()), index])


def make_array(spec: Any, rng: np.random.Generator, dtype: Any = np.float64) -> np.ndarray:
    if isinstance(spec, T):
        if spec.levels:
            grid = np.linspace(spec.low, spec.high, spec.levels)
            a = grid[rng.integers(0, spec.levels, spec.shape)].astype(dtype)
        else:
            a = rng.uniform(spec.low, spec.high, spec.shape).astype(dtype)
        for z in spec.zeros:
            a[z] = 0.0
        return a
    if isinstance(spec, I):
        if spec.distinct:
            n = int(np.prod(spec.shape))
            drawn = spec.low + rng.permutation(spec.high - spec.low)[:n].reshape(spec.shape)
        else:
            drawn = rng.integers(spec.low, spec.high, spec.shape)
        return drawn.astype(spec.dtype)
    if isinstance(spec, B):
        return rng.random(spec.shape) > 0.5
    raise TypeError(f"not a tensor sample: {spec!r}")


def on_ties(spec: case) -> bool:
    """Whether a sample sits on non-differentiable points on purpose (a ``levels`` tensor)."""
    values = list(spec.args) + list(spec.kwargs.values())
    flat = [e for v in values for e in (v if isinstance(v, list) else [v])]
    return any(isinstance(v, T) and v.levels for v in flat)


def _is_spec(v: Any) -> bool:
    return isinstance(v, (T, I, B))


@dataclasses.dataclass
class Call:
    """One sample call of a formula on an engine (or on torch, through ``convert``)."""

    name: str
    fn: Callable[..., Any]
    args: list[Any]
    kwargs: dict[str, Any]
    # Positions of the tensors that require grad: ("arg"|"kwarg", key, index in a list or None)
    slots: list[tuple[str, Any, Any]]

    def leaves(self) -> list[Any]:
        return [self._get(s) for s in self.slots]

    def _get(self, slot: tuple[str, Any, Any]) -> Any:
        where, key, sub = slot
        v = self.args[key] if where == "arg" else self.kwargs[key]
        return v if sub is None else v[sub]

    def call_with(self, leaves: Sequence[Any]) -> Any:
        args = [list(a) if isinstance(a, list) else a for a in self.args]
        kwargs = {k: list(v) if isinstance(v, list) else v for k, v in self.kwargs.items()}
        for (where, key, sub), leaf in zip(self.slots, leaves):
            box = args if where == "arg" else kwargs
            if sub is None:
                box[key] = leaf
            else:
                box[key][sub] = leaf
        return self.fn(*args, **kwargs)

    def __call__(self) -> Any:
        return self.fn(*self.args, **self.kwargs)

    def differentiable(self) -> Callable[..., Any]:
        """``f(*leaves) -> outputs`` keeping only the floating outputs (max_dim: values)."""

        def f(*leaves: Any) -> Any:
            out = self.call_with(leaves)
            outs = [o for o in (out if isinstance(out, tuple) else (out,)) if is_floating(o)]
            return outs[0] if len(outs) == 1 else tuple(outs)

        return f


def is_floating(t: Any) -> bool:
    return np.dtype(str(t.dtype).replace("torch.", "")).kind in "fc"


def make_call(name: str, index: int, to_tensor: Callable[[np.ndarray, bool], Any],
              fn: Callable[..., Any], convert: Callable[[Any], Any] = lambda v: v,
              dtype: Any = np.float64) -> Call:
    """Build sample ``index`` of formula ``name``: tensors via ``to_tensor(array, requires)``
    (T samples in ``dtype``), other values via ``convert`` (e.g. a dtype name for torch)."""
    spec: case = formula_def(name).samples[index]
    rng = rng_for(name, index)
    slots: list[tuple[str, Any, Any]] = []

    def build(v: Any, where: str, key: Any) -> Any:
        if _is_spec(v):
            requires = isinstance(v, T) and v.requires_grad
            if requires:
                slots.append((where, key, None))
            return to_tensor(make_array(v, rng, dtype), requires)
        if isinstance(v, list) and v and all(_is_spec(e) for e in v):
            out = []
            for j, e in enumerate(v):
                requires = isinstance(e, T) and e.requires_grad
                if requires:
                    slots.append((where, key, j))
                out.append(to_tensor(make_array(e, rng, dtype), requires))
            return out
        return convert(v)

    args = [build(v, "arg", k) for k, v in enumerate(spec.args)]
    kwargs = {k: build(v, "kwarg", k) for k, v in spec.kwargs.items()}
    return Call(name, fn, args, kwargs, slots)


def engine_call(engine: Any, name: str, index: int, dtype: Any = np.float64) -> Call:
    def to_tensor(a: np.ndarray, requires: bool) -> Any:
        return engine.tensor(a, requires_grad=requires)

    return make_call(name, index, to_tensor, op(engine, name), dtype=dtype)


# Note [Hermitian inputs in samples] (formulas/linalg.py): these read one triangle of their first
# input while their gradient is symmetric (torch's); finite differences and the engines'
# comparison run on x x^T + n I (cholesky: positive-definite) or x + x^T (eigh, whose
# eigenvectors are compared squared: invariant to each column's sign)
HERMITIAN_INPUT = {"cholesky": "spd", "eigh": "symmetric"}
# cholesky_inverse and cholesky_solve read one triangle of their factor (argument 0 and 1) while
# torch's gradient for it is not projected: finite differences run on that triangle of it
TRIANGULAR_INPUT = {"cholesky_inverse": 0, "cholesky_solve": 1}


def _triangular(engine: Any, fn: Callable[..., Any], index: int, upper: bool) -> Callable[..., Any]:
    def wrapped(*leaves: Any) -> Any:
        args = list(leaves)
        args[index] = (engine.triu if upper else engine.tril)(args[index])
        return fn(*args)

    return wrapped


def _hermitian(engine: Any, fn: Callable[..., Any], kind: str) -> Callable[..., Any]:
    def wrapped(x: Any, *rest: Any) -> Any:
        xt = engine.transpose(x, -1, -2)
        if kind == "spd":
            a = engine.matmul(x, xt) + x.shape[-1] * engine.eye(x.shape[-1], dtype=x.dtype)
            return fn(a, *rest)
        values, vectors = fn(x + xt, *rest)
        return values, vectors * vectors

    return wrapped


def sample_function(engine: Any, name: str, index: int, call: Call) -> Callable[..., Any]:
    """``f(*call.leaves())``: the sample's floating outputs as a function of its leaves, through
    the input wrappers of Note [Hermitian inputs in samples]: what gradcheck and the engines'
    comparison differentiate."""
    fn = call.differentiable()
    if name in HERMITIAN_INPUT:
        fn = _hermitian(engine, fn, HERMITIAN_INPUT[name])
    if name in TRIANGULAR_INPUT:
        spec = formula_def(name).samples[index]
        upper = isinstance(spec.args[-1], bool) and spec.args[-1]
        fn = _triangular(engine, fn, TRIANGULAR_INPUT[name], upper)
    return fn


def sample_outputs(engine: Any, name: str, call: Call) -> Any:
    """The sample's outputs (through the symmetrising wrapper for HERMITIAN_INPUT)."""
    if name in HERMITIAN_INPUT:
        return _hermitian(engine, call.differentiable(), HERMITIAN_INPUT[name])(*call.leaves())
    return call()
