"""The examples run end to end (short runs) on each engine."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "examples"))


def _name(engine):
    return "reference" if engine.__name__.startswith("transgrad.reference") else "compiled"


@pytest.mark.slow
def test_mlp_digits(engine):
    pytest.importorskip("sklearn")
    import mlp_digits

    r = mlp_digits.train(_name(engine), epochs=3, quiet=True)
    assert r["accuracy"] > 0.9, r


def test_tiny_transformer(engine):
    import tiny_transformer

    first = tiny_transformer.train(_name(engine), steps=1, quiet=True)
    r = tiny_transformer.train(_name(engine), steps=40, quiet=True)
    assert np.isfinite(r["loss"]) and r["loss"] < 0.6 * first["loss"], (first, r)


@pytest.mark.slow
def test_demo_main_job():
    """README's first command ends in `python examples/demo.py`: it must keep working."""
    import re
    import subprocess

    pytest.importorskip("sklearn")
    demo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "demo.py")
    run = subprocess.run([sys.executable, demo], check=False, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    out = run.stdout
    if "compiled engine not built" in out:  # a checkout without _C: the reference engine only
        assert out.count("gradcheck ok, gradgradcheck ok") == 1, out
    else:
        assert out.count("gradcheck ok, gradgradcheck ok") == 2, out
        diff = re.search(r"max \|reference - compiled\| = (\S+)", out)
        assert diff and float(diff.group(1)) <= 1e-12, out  # the differential tests' tolerance
    acc = re.search(r"test accuracy ([\d.]+)%", out)
    assert acc and float(acc.group(1)) > 90.0, out
