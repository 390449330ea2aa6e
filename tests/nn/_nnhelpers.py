"""Helpers shared by the nn/optim tests (engines by name, their nn namespaces, torch)."""

import importlib
import os
import types

import pytest


def load_engine(name):
    """``transgrad.reference`` or the compiled ``transgrad`` (skips when it is not built,
    unless TG_REQUIRE_COMPILED=1, as tests/conftest.py does)."""
    if name == "reference":
        return importlib.import_module("transgrad.reference")
    import transgrad

    if getattr(transgrad, "_C", None) is None:
        if os.environ.get("TG_REQUIRE_COMPILED") == "1":
            raise ImportError(f"compiled engine not built: {transgrad._C_error}")
        pytest.skip(f"compiled engine not built: {transgrad._C_error}")
    return transgrad


def nn_of(engine):
    """(tg, nn, F, optim) of an engine module (``transgrad`` or ``transgrad.reference``)."""
    nn = importlib.import_module(engine.__name__ + ".nn")
    optim = importlib.import_module(engine.__name__ + ".optim")
    return types.SimpleNamespace(tg=engine, nn=nn, F=nn.functional, optim=optim)


def torch_lib():
    """torch.nn & co. in the same shape as ``nn_of`` (skips without torch)."""
    torch = pytest.importorskip("torch")
    return types.SimpleNamespace(tg=torch, nn=torch.nn, F=torch.nn.functional, optim=torch.optim)


def to_numpy(t):
    if hasattr(t, "detach"):
        t = t.detach()
    return t.detach().numpy() if hasattr(t, "numpy") else __import__("numpy").asarray(t)
