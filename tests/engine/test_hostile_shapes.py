"""Hostile arguments found by the issue-11 sweep beyond its list, on both engines: the most
negative integer divided by -1 (a SIGFPE that killed the process on the compiled engine: Note
[Integer division by -1] in csrc/kernels/pointwise.cpp), and argument checks torch makes where
transgrad returned a wrong answer (flatten with start_dim after end_dim, chunk/split with
non-positive sizes, arange whose step runs away from its end)."""

import subprocess
import sys

import numpy as np
import pytest

INT64_MIN = -2**63


@pytest.mark.parametrize("op, expected", [
    ("floor_divide", INT64_MIN), ("remainder", 0), ("fmod", 0), ("trunc", INT64_MIN)])
def test_most_negative_integer_by_minus_one(engine, op, expected):
    # in a fresh interpreter: the trap killed the process
    body = f"""
import importlib
tg = importlib.import_module({engine.__name__!r})
a = tg.tensor([{INT64_MIN}, 7, -7])
b = tg.tensor([-1, -1, -1])
op = {op!r}
r = tg.div(a, b, rounding_mode="trunc") if op == "trunc" else getattr(tg, op)(a, b)
print(r.tolist())
"""
    proc = subprocess.run([sys.executable, "-c", body], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, (proc.returncode, proc.stderr[-1500:])
    got = eval(proc.stdout.strip())
    small = {"floor_divide": [-7, 7], "remainder": [0, 0], "fmod": [0, 0], "trunc": [-7, 7]}[op]
    assert got == [expected] + small


def test_int32_most_negative_by_minus_one(engine):
    tg = engine
    a = tg.tensor(np.array([-2**31], dtype=np.int32))
    b = tg.tensor(np.array([-1], dtype=np.int32))
    assert (a // b).tolist() == [-2**31]  # wraps, as torch
    assert (a % b).tolist() == [0]


def test_flatten_start_after_end_raises(engine):
    with pytest.raises(RuntimeError, match="start_dim cannot come after end_dim"):
        engine.ones(2, 3).flatten(1, 0)
    assert engine.ones(2, 3, 4).flatten(-2, -1).shape == (2, 12)


@pytest.mark.parametrize("chunks", [0, -1])
def test_chunk_of_non_positive_count_raises(engine, chunks):
    with pytest.raises(RuntimeError, match="chunk expects `chunks` to be greater than 0"):
        engine.ones(3).chunk(chunks)


def test_split_size_zero_or_negative(engine):
    tg = engine
    with pytest.raises(RuntimeError, match="split_size can only be 0 if dimension size is 0"):
        tg.ones(3).split(0)
    with pytest.raises(RuntimeError, match="split expects split_size be non-negative"):
        tg.ones(3).split(-1)
    (empty,) = tg.ones(0).split(0)
    assert empty.shape == (0,)


def test_arange_checks_as_torch(engine):
    tg = engine
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tg.arange(0, 10, 0)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent"):
        tg.arange(0, 10, -1)
    with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent"):
        tg.arange(5, 1)
    assert tg.arange(3, 3, -1).tolist() == []
    assert tg.arange(5, 1, -2).tolist() == [5, 3]


def test_against_torch(engine):
    torch = pytest.importorskip("torch")
    for fn in (lambda m: m.ones(2, 3).flatten(1, 0), lambda m: m.ones(3).chunk(0),
               lambda m: m.arange(0, 10, -1), lambda m: m.ones(3).split(0)):
        with pytest.raises(RuntimeError):
            fn(torch)
        with pytest.raises(RuntimeError):
            fn(engine)
    a = torch.tensor([INT64_MIN])
    assert (a // -1).tolist() == (engine.tensor([INT64_MIN]) // -1).tolist()
    assert (a % -1).tolist() == (engine.tensor([INT64_MIN]) % -1).tolist()
