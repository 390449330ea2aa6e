"""The dtype objects, aliases, finfo/iinfo, promote_types/result_type/can_cast
(transgrad/_dtypes.py) on both engines, against torch where it is installed."""

import itertools

import numpy as np
import pytest

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]
ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
           "int": "int32", "long": "int64", "bool": "bool"}


def test_aliases_are_torchs(engine):
    for alias, name in ALIASES.items():
        assert getattr(engine, alias) == getattr(engine, name), alias
    assert engine.int == np.int32 and engine.int != np.int64  # torch.int is int32
    assert not hasattr(engine, "char") and not hasattr(engine, "byte")  # no such torch dtypes


def test_aliases_match_torch_names():
    torch = pytest.importorskip("torch")
    import transgrad.reference as tg

    for alias in ALIASES:
        assert str(getattr(torch, alias)) == "torch." + getattr(tg, alias).name


def test_itemsize_and_floating(engine):
    sizes = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2,
             "bfloat16": 2, "float32": 4, "float64": 8}
    for name in NAMES:
        d = getattr(engine, name)
        assert d.itemsize == sizes[name]
        t = engine.zeros(2, dtype=d)
        assert t.dtype == d
        assert t.is_floating_point() == name.startswith(("float", "bfloat"))


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_against_torch(engine, name):
    torch = pytest.importorskip("torch")
    ours, theirs = engine.finfo(getattr(engine, name)), torch.finfo(getattr(torch, name))
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution"):
        assert getattr(ours, field) == getattr(theirs, field), field
    assert ours.dtype == theirs.dtype
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_against_torch(engine, name):
    torch = pytest.importorskip("torch")
    ours, theirs = engine.iinfo(getattr(engine, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max,
                                                           theirs.dtype)
    assert repr(ours) == repr(theirs)


def test_finfo_iinfo_values_and_errors(engine):
    assert engine.finfo(engine.float16).max == 65504.0
    assert engine.finfo(engine.bfloat16).eps == 2.0 ** -7
    assert engine.finfo().dtype == "float32"
    assert engine.iinfo(engine.uint8).max == 255
    with pytest.raises(TypeError, match="requires a floating point input type"):
        engine.finfo(engine.int32)
    with pytest.raises(TypeError, match="requires an integer input type"):
        engine.iinfo(engine.float16)
    with pytest.raises(TypeError, match="torch.bool is not supported by torch.iinfo"):
        engine.iinfo(engine.bool)


def _promote_table(mod):
    return {(a, b): str(mod.promote_types(getattr(mod, a), getattr(mod, b))).replace("torch.", "")
            for a, b in itertools.product(NAMES, NAMES)}


def test_promote_types_every_pair_against_torch(engine):
    torch = pytest.importorskip("torch")
    assert _promote_table(engine) == _promote_table(torch)


def test_promote_types_known_pairs(engine):
    tg = engine
    assert tg.promote_types(tg.uint8, tg.int8) == tg.int16
    assert tg.promote_types(tg.float16, tg.bfloat16) == tg.float32
    assert tg.promote_types(tg.int64, tg.float16) == tg.float16
    assert tg.promote_types(tg.bool, tg.uint8) == tg.uint8


def test_can_cast_every_pair_against_torch(engine):
    torch = pytest.importorskip("torch")
    for a, b in itertools.product(NAMES, NAMES):
        assert engine.can_cast(getattr(engine, a), getattr(engine, b)) == torch.can_cast(
            getattr(torch, a), getattr(torch, b)), (a, b)


SCALARS = [True, 3, 2.5]


def test_result_type_against_torch(engine):
    """Tensors of every dtype with dims, 0-d, and Python scalars: torch's priorities."""
    torch = pytest.importorskip("torch")
    for a, b in itertools.product(NAMES, NAMES):
        for da, db in ((1, 1), (1, 0), (0, 1), (0, 0)):
            x = engine.zeros((2,) * da, dtype=getattr(engine, a))
            y = engine.zeros((2,) * db, dtype=getattr(engine, b))
            tx = torch.zeros((2,) * da, dtype=getattr(torch, a))
            ty = torch.zeros((2,) * db, dtype=getattr(torch, b))
            assert engine.result_type(x, y).name == str(torch.result_type(tx, ty))[6:], (a, da,
                                                                                          b, db)
        for s in SCALARS:
            x = engine.zeros(2, dtype=getattr(engine, a))
            tx = torch.zeros(2, dtype=getattr(torch, a))
            assert engine.result_type(x, s).name == str(torch.result_type(tx, s))[6:], (a, s)
