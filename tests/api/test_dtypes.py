"""Dtype arguments are canonicalised by one function (transgrad/_dtypes.py), with torch's error
type and words, on both engines."""

import numpy as np
import pytest
from transgrad._dtypes import as_dtype


@pytest.mark.parametrize("spelling,expected", [
    ("float32", "float32"), (np.float64, "float64"), (float, "float64"), (int, "int64"),
    (bool, "bool"), (np.dtype("int64"), "int64"), ("complex128", "complex128")])
def test_spellings_of_a_dtype(spelling, expected):
    assert as_dtype(spelling) == np.dtype(expected)


@pytest.mark.parametrize("bad", [3, "nope", object(), None])
def test_a_non_dtype_is_a_type_error(bad):
    with pytest.raises(TypeError, match=r"zeros\(\): argument 'dtype' must be torch.dtype, not"):
        as_dtype(bad, "zeros")


def test_an_unsupported_dtype_is_a_type_error():
    with pytest.raises(TypeError, match="unsupported dtype uint16"):
        as_dtype(np.uint16)


def test_both_engines_raise_type_error(engine):
    tg = engine
    with pytest.raises(TypeError, match="argument 'dtype' must be torch.dtype, not int"):
        tg.zeros(2, dtype=3)
    x = tg.ones(2)
    with pytest.raises(TypeError, match="must be torch.dtype, not str"):
        x.to(dtype="nope")
    with pytest.raises(TypeError, match="only floating-point types are supported as the "
                                        "default type"):
        tg.set_default_dtype(tg.int64)


def test_same_error_type_as_torch(engine):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError) as ours:
        engine.zeros(2, dtype=3)
    with pytest.raises(TypeError) as theirs:
        torch.zeros(2, dtype=3)
    assert "argument 'dtype' must be torch.dtype, not int" in str(theirs.value)
    assert "argument 'dtype' must be torch.dtype, not int" in str(ours.value)
