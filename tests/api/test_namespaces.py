"""``transgrad`` and ``transgrad.reference`` are the same API: the same public names, and
``nn``, ``optim``, ``autograd`` reachable as attributes right after the import (as torch)."""

import subprocess
import sys
import textwrap
import types

import pytest

_FRESH = textwrap.dedent("""
    import sys
    import {mod} as tg
    tg.nn.Linear, tg.nn.functional.relu, tg.nn.utils.clip_grad_norm_, tg.optim.SGD
    tg.optim.Optimizer, tg.autograd.grad, tg.autograd.Function, tg.autograd.gradcheck
    print(sorted(m for m in sys.modules if m.startswith("{mod}.") and m.count(".") == {depth}))
""")


@pytest.mark.parametrize("mod", ["transgrad", "transgrad.reference"])
def test_submodules_are_attributes_after_import(mod):
    if mod == "transgrad":
        import transgrad

        if transgrad._C is None:
            pytest.skip("compiled engine not built")
    script = _FRESH.format(mod=mod, depth=mod.count(".") + 1)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded = eval(out.stdout)
    for name in ("nn", "optim", "autograd"):
        assert f"{mod}.{name}" in loaded


def _public(module):
    return {n for n in dir(module) if not n.startswith("_")}


def test_both_engines_export_the_same_names(ref, compiled):
    # engine-specific plumbing a user never needs (the compiled extension, the reference
    # engine's modules and its formula runner) aside
    from transgrad._stubgen import _REFERENCE_ONLY

    own = _REFERENCE_ONLY | {"cmake_prefix_path", "user_kernels"}
    assert _public(ref) - own == _public(compiled) - own
    assert _public(ref.nn) == _public(compiled.nn)
    assert _public(ref.nn.functional) == _public(compiled.nn.functional)
    assert ref.optim.__all__ == compiled.optim.__all__
    for n in ref.optim.__all__:  # the same classes; lr_scheduler a module of the same names
        mine, theirs = getattr(ref.optim, n), getattr(compiled.optim, n)
        if isinstance(theirs, types.ModuleType):
            assert all(getattr(mine, k) is getattr(theirs, k) for k in theirs.__all__)
        else:
            assert mine is theirs
    assert {"grad", "backward", "Function", "no_grad", "gradcheck", "gradgradcheck"} <= (
        _public(ref.autograd) & _public(compiled.autograd))


def test_optimizers_are_shared_and_find_their_engine(engine):
    tg = engine
    assert tg.optim.SGD is __import__("transgrad.optim", fromlist=["SGD"]).SGD
    p = tg.nn.Parameter(tg.tensor([1.0, -2.0]))
    opt = tg.optim.SGD([p], lr=0.5)
    (p * p).sum().backward()
    opt.step()
    assert type(p) is tg.nn.Parameter
    assert p.tolist() == [0.0, 0.0]


def test_one_home_per_function(ref, compiled):
    from transgrad._api import extra_functions, functions

    for module in (functions, extra_functions):
        for name in module.__all__:
            fn = getattr(module, name)
            assert getattr(ref, name) is fn and getattr(compiled, name) is fn, name
            assert fn.__module__ == module.__name__, name
            assert fn.__doc__, f"{module.__name__}.{name} has no docstring"
