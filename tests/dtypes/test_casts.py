"""Casts between every pair of dtypes on both engines (the compiled engine's own conversions,
csrc/tensor/half.h and dispatch.h convert_element), against torch where it is installed and
against ml_dtypes/numpy bit patterns for the float16/bfloat16 rounding."""

import itertools

import ml_dtypes
import numpy as np
import pytest

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]
# Values every dtype holds exactly, so each cast is defined (no out-of-range float -> int).
SMALL = [0.0, 1.0, -0.0, 2.0, 100.0, 0.5, 1.5, -1.0, -2.5]


def _bits(a):
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("src,dst", list(itertools.product(NAMES, NAMES)))
def test_every_pair_against_torch(engine, src, dst):
    torch = pytest.importorskip("torch")
    vals = [v for v in SMALL if src not in ("uint8",) or v >= 0]
    t = torch.tensor(vals, dtype=torch.float64).to(getattr(torch, src))
    ours = engine.tensor(vals, dtype=engine.float64).to(getattr(engine, src))
    assert np.array_equal(np.asarray(ours).astype(np.float64),
                          t.to(torch.float64).numpy()), src
    out, expect = ours.to(getattr(engine, dst)), t.to(getattr(torch, dst))
    assert out.dtype == getattr(engine, dst)
    assert np.array_equal(np.asarray(out).astype(np.float64), expect.to(torch.float64).numpy())


EDGES = np.array([np.inf, -np.inf, np.nan, -0.0, 65504.0, 65520.0, 65519.99, 1e-8, 6e-8,
                  3e-8, 2.98e-8, 5.96e-8, 1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -8,
                  1 + 3 * 2 ** -8, 3.4e38, -3.4e38, 1e-40, 0.1, -0.1, 2049.0, 2051.0, 1e5],
                 dtype=np.float32)


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("src", ["float32", "float64"])
def test_rounding_to_half_is_nearest_even(engine, half, src):
    """Ties to even, NaN kept, overflow to inf; a float64 is rounded through float32 (torch)."""
    a = EDGES.astype(src)
    target = np.float16 if half == "float16" else ml_dtypes.bfloat16
    expect = a.astype(np.float32).astype(target)
    out = np.asarray(engine.from_numpy(a).to(getattr(engine, half)))
    assert out.dtype == np.dtype(target)
    same = (_bits(out) == _bits(expect)).reshape(len(a), -1).all(axis=1)
    nan = np.isnan(expect.astype(np.float32))
    assert np.all(same | nan) and np.all(np.isnan(out.astype(np.float32)) == nan)


def test_float64_rounds_to_half_through_float32(engine):
    """1 + 2**-11 + 2**-40 is above the float16 tie, but float32 rounds it onto the tie, which
    then goes to even: torch's answer (it converts a double to float first)."""
    torch = pytest.importorskip("torch")
    v = [1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -8 + 2 ** -40]
    for name in ("float16", "bfloat16"):
        ours = engine.tensor(v, dtype=engine.float64).to(getattr(engine, name))
        theirs = torch.tensor(v, dtype=torch.float64).to(getattr(torch, name))
        assert np.asarray(ours).astype(np.float64).tolist() == theirs.double().tolist()


@pytest.mark.parametrize("half", [np.float16, ml_dtypes.bfloat16])
def test_every_half_pattern_round_trips(engine, half):
    """All 65536 bit patterns widen exactly to float32 and narrow back unchanged (NaN aside)."""
    bits = np.arange(2 ** 16, dtype=np.uint16)
    h = bits.view(half)
    wide = np.asarray(engine.from_numpy(h.copy()).to(engine.float32))
    assert np.array_equal(wide, h.astype(np.float32), equal_nan=True)
    back = np.asarray(engine.from_numpy(wide).to(np.dtype(half)))
    ok = np.isnan(wide) | (back.view(np.uint16) == bits)
    assert ok.all()


def test_random_float32_to_half_against_torch(engine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2 ** 32, 200_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    a = a[np.isfinite(a)]
    for name in ("float16", "bfloat16"):
        ours = np.asarray(engine.from_numpy(a).to(getattr(engine, name))).view(np.uint16)
        theirs = torch.from_numpy(a).to(getattr(torch, name)).view(torch.int16).numpy()
        assert np.array_equal(ours, theirs.view(np.uint16)), name


def test_integer_wrapping(engine):
    x = engine.tensor([127, -128, 255, 256, 300, -1], dtype=engine.int64)
    assert np.asarray(x.to(engine.int8)).tolist() == [127, -128, -1, 0, 44, -1]
    assert np.asarray(x.to(engine.uint8)).tolist() == [127, 128, 255, 0, 44, 255]
    assert np.asarray(x.to(engine.int16)).tolist() == [127, -128, 255, 256, 300, -1]
    f = engine.tensor([3.7, -3.7, 0.5, -0.5])
    assert np.asarray(f.to(engine.int32)).tolist() == [3, -3, 0, 0]  # truncation
    assert np.asarray(f.to(engine.bool)).tolist() == [True, True, True, True]


def test_tensor_methods(engine):
    x = engine.tensor([1.5, -2.0])
    for meth, name in [("half", "float16"), ("bfloat16", "bfloat16"), ("int", "int32"),
                       ("short", "int16"), ("char", "int8"), ("byte", "uint8"),
                       ("long", "int64"), ("bool", "bool"), ("float", "float32"),
                       ("double", "float64")]:
        assert getattr(x, meth)().dtype == getattr(engine, name), meth
