"""Helpers shared by the distributions tests (engine + its distributions package, numpy)."""

import importlib
import types

import numpy as np
import pytest


def make_lib(engine):
    D = importlib.import_module(
        "transgrad.reference.distributions" if engine.__name__ == "transgrad.reference"
        else "transgrad.distributions")

    def t(x, requires_grad=False, dtype=None):
        a = np.asarray(x, dtype=np.float64 if dtype is None else dtype)
        return engine.tensor(a, requires_grad=requires_grad)

    return types.SimpleNamespace(tg=engine, D=D, t=t)


def to_numpy(x):
    if hasattr(x, "detach"):
        x = x.detach()
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def has_special(engine):
    """Whether the engine has the lgamma/digamma ops Beta, Gamma, Dirichlet need."""
    from transgrad.distributions.utils import special_op

    return all(special_op(engine, name) is not None for name in ("lgamma", "digamma"))


def require_special(engine):
    """Skip (with the reason) when the engine lacks lgamma/digamma: they arrive with the
    special-function formulas; these tests run as soon as they land."""
    if not has_special(engine):
        pytest.skip(f"{engine.__name__} has no lgamma/digamma op yet (special-function "
                    "formulas not merged)")
