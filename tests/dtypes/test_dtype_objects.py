"""The dtype objects, aliases, finfo/iinfo, promote_types/result_type/can_cast
(transgrad/_dtypes.py) on both engines, against torch where it is installed."""

import itertools
import operator

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


# ---- the dtype objects themselves (Note [dtype objects and numpy]) ------------------------

ALL_NAMES = NAMES + ["complex128"]
TORCH_ALIASES = ["float", "double", "half", "long", "int", "short", "bool", "cdouble"]


def test_dtype_class_and_printing(engine):
    for name in ALL_NAMES:
        d = getattr(engine, name)
        assert type(d) is engine.dtype
        assert repr(d) == str(d) == "torch." + name
    assert engine.zeros(2, dtype=engine.float64).dtype is engine.float64
    assert engine.tensor([1]).dtype is engine.int64
    with pytest.raises(TypeError, match="cannot create 'torch.dtype' instances"):
        engine.dtype()
    with pytest.raises(AttributeError, match="not writable"):
        engine.float32.itemsize = 8


def test_dtype_printing_against_torch(engine):
    torch = pytest.importorskip("torch")
    for name in ALL_NAMES + TORCH_ALIASES:
        assert repr(getattr(engine, name)) == repr(getattr(torch, name)), name
        assert str(getattr(engine, name)) == str(getattr(torch, name)), name
    x, tx = engine.ones(2, dtype=engine.float64), torch.ones(2, dtype=torch.float64)
    assert repr(x) == repr(tx)
    assert repr(x.dtype) == repr(tx.dtype)


def test_dtype_attributes_against_torch(engine):
    torch = pytest.importorskip("torch")
    for name in ALL_NAMES:
        ours, theirs = getattr(engine, name), getattr(torch, name)
        for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize", "abbr"):
            assert getattr(ours, attr) == getattr(theirs, attr), (name, attr)
        assert repr(ours.to_real()) == repr(theirs.to_real()), name
        try:
            expected = repr(theirs.to_complex())
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)):
                ours.to_complex()
        else:
            if expected == "torch.complex128":
                assert repr(ours.to_complex()) == expected
            else:  # complex64/complex32: no such transgrad dtype, a clear error
                with pytest.raises(RuntimeError, match="no complex dtype"):
                    ours.to_complex()


def test_dtype_equality_hash_and_numpy(engine):
    tg = engine
    for name in NAMES + ["complex128"]:
        d = getattr(tg, name)
        npd = d.dtype
        assert isinstance(npd, np.dtype) and npd.name == name
        assert d == npd and npd == d and hash(d) == hash(npd)
        assert d == npd.type and npd.type == d
        assert np.dtype(d) == npd
        assert np.zeros(3, dtype=d).dtype == npd
        assert np.arange(3).astype(d).dtype == npd
        assert {npd: name}[d] == name and {d: name}[npd] == name
        assert d != name and d != "torch." + name  # never equal to a string, as torch's
    assert tg.float32 != tg.float64 and tg.float32 != np.float64
    assert operator.ne(tg.float64, float) and operator.ne(tg.int64, int)  # nor a Python type
    assert tg.float == tg.float32 and tg.float is tg.float32
    assert len({tg.float32, tg.float, np.dtype("float32")}) == 1
    x = tg.ones(2, dtype=tg.int16)
    assert x.dtype == np.int16 and x.dtype.kind == "i" and x.dtype.name == "int16"
    assert np.asarray(x).dtype == np.int16


def test_dtype_pickle_and_copy(engine):
    import copy
    import pickle

    for name in ALL_NAMES + ["float", "long", "bool"]:
        d = getattr(engine, name)
        assert pickle.loads(pickle.dumps(d)) is d
        assert copy.copy(d) is d and copy.deepcopy(d) is d
    assert pickle.loads(pickle.dumps({"dtype": engine.bfloat16}))["dtype"] is engine.bfloat16


def test_dtype_arguments_accept_every_spelling(engine):
    tg = engine
    for spelled in (tg.float64, np.float64, np.dtype("float64"), "float64", float):
        assert tg.zeros(2, dtype=spelled).dtype is tg.float64, spelled
        assert tg.ones(2).to(spelled).dtype is tg.float64, spelled
    assert tg.zeros(2, dtype=int).dtype is tg.int64
    assert tg.zeros(2, dtype=bool).dtype is tg.bool
    assert tg.promote_types(np.int8, tg.uint8) is tg.int16
    assert tg.promote_types(tg.float16, tg.bfloat16) is tg.float32
    assert tg.result_type(tg.ones(2, dtype=tg.int8), 2.5) is tg.float32
    assert tg.can_cast(tg.float32, np.int64) is False
    assert tg.get_default_dtype() is tg.float32
    assert tg.finfo(tg.float16) == tg.finfo(np.float16)
    assert tg.iinfo(tg.uint8).max == 255


def test_module_reprs_keep_torch_dtype_suffix(engine):
    torch = pytest.importorskip("torch")
    assert repr(engine.nn.Linear(2, 3).to(engine.float64)) == repr(
        torch.nn.Linear(2, 3).to(torch.float64))
    p, tp = engine.nn.Parameter(engine.ones(2, dtype=engine.float64)), torch.nn.Parameter(
        torch.ones(2, dtype=torch.float64))
    assert repr(p) == repr(tp)
    pl = engine.nn.ParameterList([engine.nn.Parameter(engine.ones(3))])
    tpl = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(3))])
    assert repr(pl) == repr(tpl)
