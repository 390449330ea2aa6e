"""Type promotion of elementwise ops as torch's (Note [Type promotion] in transgrad/_dtypes.py),
both engines: every dtype pair x {tensor with dims, 0-d tensor, Python bool/int/float} for the
arithmetic operators, comparisons, where, clamp and in-place ops, against torch's result dtype
(or its refusal); the values where promotion decides them (half * 1.1, int8 + 300, int / int);
the default dtype."""

import itertools
import operator

import numpy as np
import pytest

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
         "float64"]
SCALARS = [True, 3, 2.5]
BINARY = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
          "truediv": operator.truediv, "pow": operator.pow, "lt": operator.lt,
          "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq,
          "ne": operator.ne}


def _make(mod, name, kind):
    """An operand: a tensor with dims ("dims"), a 0-d tensor ("0d"), or a Python number."""
    if kind == "dims":
        return mod.ones((2,), dtype=getattr(mod, name))
    if kind == "0d":
        return mod.ones((), dtype=getattr(mod, name))
    return kind


def _outcome(fn):
    """The result's dtype name, or "error" when the call raises."""
    try:
        out = fn()
    except Exception:  # noqa: BLE001  (torch's refusals are RuntimeErrors, ours may be narrower)
        return "error"
    return str(out.dtype).replace("torch.", "")


def _cases():
    kinds = ["dims", "0d"]
    for a, b in itertools.product(NAMES, NAMES):
        for ka, kb in itertools.product(kinds, kinds):
            yield (a, ka), (b, kb)
    for a in NAMES:
        for s in SCALARS:
            for ka in kinds:
                yield (a, ka), (None, s)
                yield (None, s), (a, ka)


def _operands(mod, case):
    return [_make(mod, name, kind) if name is not None else kind for name, kind in case]


def _table(mod, fn):
    return {case: _outcome(lambda case=case: fn(*_operands(mod, case))) for case in _cases()}


def _diff(ours, theirs):
    return {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_operator_dtypes_against_torch(engine, op):
    torch = pytest.importorskip("torch")
    fn = BINARY[op]
    assert _diff(_table(engine, fn), _table(torch, fn)) == {}


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "minimum", "atan2"])
def test_functions_dtypes_against_torch(engine, op):
    torch = pytest.importorskip("torch")

    def table(mod):
        f = getattr(mod, op)
        cases = [c for c in _cases() if c[0][0] is not None and (
            c[1][0] is not None or op in ("add", "sub", "mul", "div"))]
        return {c: _outcome(lambda c=c: f(*_operands(mod, c))) for c in cases}

    assert _diff(table(engine), table(torch)) == {}


def test_result_type_every_case_against_torch(engine):
    torch = pytest.importorskip("torch")

    def table(mod):
        return {c: _outcome(lambda c=c: mod.ones(1, dtype=mod.result_type(*_operands(mod, c))))
                for c in _cases() if c[0][0] is not None or c[1][0] is not None}

    assert _diff(table(engine), table(torch)) == {}


def test_where_dtypes_against_torch(engine):
    torch = pytest.importorskip("torch")

    def table(mod):
        cond = mod.tensor([True, False])
        return {c: _outcome(lambda c=c: mod.where(cond, *_operands(mod, c))) for c in _cases()}

    assert _diff(table(engine), table(torch)) == {}
    for x, y in itertools.product(SCALARS, SCALARS):  # two numbers
        ours = engine.where(engine.tensor([True, False]), x, y)
        theirs = torch.where(torch.tensor([True, False]), x, y)
        assert ours.dtype.name == str(theirs.dtype)[6:], (x, y)


@pytest.mark.parametrize("bound", SCALARS + ["dims", "0d"])
def test_clamp_dtypes_against_torch(engine, bound):
    torch = pytest.importorskip("torch")

    def table(mod):
        out = {}
        for a, kind in itertools.product(NAMES, ["dims", "0d"]):
            x = _make(mod, a, kind)
            for b in (NAMES if bound in ("dims", "0d") else [None]):
                lo = _make(mod, b, bound) if b is not None else bound
                out[a, kind, b] = _outcome(lambda x=x, lo=lo: mod.clamp(x, min=lo))
        return out

    assert _diff(table(engine), table(torch)) == {}


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_", "div_"])
def test_inplace_dtypes_against_torch(engine, op):
    """In-place keeps self's dtype, and refuses what torch refuses (int64.mul_(1.5))."""
    torch = pytest.importorskip("torch")

    def table(mod):
        out = {}
        for a, b in itertools.product(NAMES, NAMES + SCALARS):
            for kb in ("dims", "0d"):
                def run(a=a, b=b, kb=kb):
                    x = mod.ones(2, dtype=getattr(mod, a))
                    y = _make(mod, b, kb) if isinstance(b, str) else b
                    return getattr(x, op)(y)
                out[a, b, kb] = _outcome(run)
        return out

    assert _diff(table(engine), table(torch)) == {}
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        engine.ones(2, dtype=engine.int64).mul_(1.5)


# ---- what the rule means, without torch ---------------------------------------------------


def test_known_cases(engine):
    tg = engine
    assert (tg.arange(3) * 0.5).dtype == tg.float32
    assert (tg.arange(3) / tg.arange(1, 4)).dtype == tg.float32
    assert (tg.ones(2, dtype=tg.int32) + tg.tensor(1.5, dtype=tg.float64)).dtype == tg.float64
    assert (tg.ones(2) * tg.tensor(2.0, dtype=tg.float64)).dtype == tg.float32
    assert (tg.ones((), dtype=tg.float32) * tg.tensor(2.0, dtype=tg.float64)).dtype == tg.float64
    assert (tg.ones(2, dtype=tg.int8) + 5).dtype == tg.int8
    assert (tg.ones(2, dtype=tg.uint8) + tg.ones(2, dtype=tg.int8)).dtype == tg.int16
    assert (tg.ones(2, dtype=tg.int8) + tg.tensor(5)).dtype == tg.int8  # a 0-d int64 tensor
    assert (tg.ones(2, dtype=tg.bool) + True).dtype == tg.bool
    assert (tg.ones(2, dtype=tg.float16) * 2.5).dtype == tg.float16
    assert (tg.ones((), dtype=tg.float16) * 2.5).dtype == tg.float16
    with pytest.raises(RuntimeError, match="can't be cast"):
        tg.ones(2, dtype=tg.int64).mul_(1.5)


def test_half_times_float_is_not_rounded_first(engine):
    """torch multiplies float16 by a Python float in float32 and rounds once: 3 * 1.1 is
    3.3008 (float32(3 * 1.1) rounded), not 3 * half(1.1) = 3.2988."""
    tg = engine
    h = tg.tensor([1.0, 3.0, 7.0, 1000.0], dtype=tg.float16)
    expected = (np.array([1.0, 3.0, 7.0, 1000.0], np.float32) * np.float32(1.1)).astype(np.float16)
    assert np.array_equal(np.asarray(h * 1.1), expected)
    assert np.array_equal(np.asarray(1.1 * h), expected)
    assert not np.array_equal(np.asarray(h * 1.1),
                              np.array([1.0, 3.0, 7.0, 1000.0], np.float16) * np.float16(1.1))


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_half_with_scalars_values_against_torch(engine, name):
    torch = pytest.importorskip("torch")
    values = [1.0, 3.0, 7.0, 1000.0, -2.5]
    x, tx = (engine.tensor(values, dtype=getattr(engine, name)),
             torch.tensor(values, dtype=getattr(torch, name)))
    for op in ("add", "sub", "mul", "truediv", "lt", "eq", "pow"):
        for s in (1.1, 3, 0.3):
            for ours, theirs in ((BINARY[op](x, s), BINARY[op](tx, s)),
                                 (BINARY[op](s, x), BINARY[op](s, tx))):
                assert ours.dtype.name == str(theirs.dtype)[6:]
                assert np.array_equal(np.asarray(ours).astype(np.float64),
                                      theirs.double().numpy(), equal_nan=True), (op, s)
    d = torch.tensor(1.1, dtype=torch.float64)
    ours = x * engine.tensor(1.1, dtype=engine.float64)
    assert np.array_equal(np.asarray(ours).astype(np.float64), (tx * d).double().numpy())


def test_integer_scalars_wrap_as_torch(engine):
    """An int next to an int8 tensor is cast to int8 (wrapping) where the result is int8, and
    kept exact where the result is floating."""
    tg = engine
    a = tg.tensor([1, 100], dtype=tg.int8)
    assert np.asarray(a + 300).tolist() == [45, -112]
    assert np.asarray(a < 300).tolist() == [True, False]  # 300 wraps to 44, as torch
    assert np.allclose(np.asarray(a / 300), [1 / 300, 100 / 300])
    assert (a / 300).dtype == tg.float32
    u = tg.tensor([1, 2], dtype=tg.uint8)
    assert np.asarray(u - 3).tolist() == [254, 255]


def test_integer_scalars_values_against_torch(engine):
    torch = pytest.importorskip("torch")
    for name in ["uint8", "int8", "int16", "int32", "int64"]:
        values = [1, 100, 7]
        x, tx = (engine.tensor(values, dtype=getattr(engine, name)),
                 torch.tensor(values, dtype=getattr(torch, name)))
        for op in ("add", "sub", "mul", "truediv", "lt", "eq", "ne"):
            for s in (300, 2, 2.5, True):
                try:
                    theirs = BINARY[op](tx, s)
                except RuntimeError:  # int - True
                    with pytest.raises(RuntimeError):
                        BINARY[op](x, s)
                    continue
                ours = BINARY[op](x, s)
                assert ours.dtype.name == str(theirs.dtype)[6:], (name, op, s)
                assert np.allclose(np.asarray(ours).astype(np.float64),
                                   theirs.double().numpy()), (name, op, s)


def test_default_dtype_float64(engine):
    tg = engine
    try:
        tg.set_default_dtype(tg.float64)
        assert (tg.arange(3) * 0.5).dtype == tg.float64
        assert (tg.arange(3) / 2).dtype == tg.float64
        assert (tg.ones(2, dtype=tg.int32) < 0.5).dtype == tg.bool
        assert tg.where(tg.tensor([True]), 1.0, 0.0).dtype == tg.float64
        assert (tg.ones(2, dtype=tg.float32) * 2.5).dtype == tg.float32  # stays float32
        assert tg.result_type(tg.arange(3), 0.5) == tg.float64
    finally:
        tg.set_default_dtype(tg.float32)
    assert (tg.arange(3) * 0.5).dtype == tg.float32
    assert (tg.arange(3) / 2).dtype == tg.float32


def test_wrapped_numbers_do_not_escape(engine):
    """A Python number promotes below a 0-d tensor only while it is an operand: the result of
    an op on two numbers' tensors is an ordinary tensor."""
    tg = engine
    t = tg.where(tg.tensor(True), 2.5, 1.0)  # 0-d, from two numbers
    assert t.dtype == tg.float32
    assert (tg.ones(2, dtype=tg.float16) * t).dtype == tg.float16
    assert (tg.ones((), dtype=tg.float16) * t).dtype == tg.float32  # 0-d with 0-d: promoted


def test_backward_through_promoted_scalars(engine):
    """Gradients through an op with a wrapped number keep the input's dtype."""
    tg = engine
    x = tg.ones(3, dtype=tg.float16, requires_grad=True)
    (x * 1.1 + 2).sum().backward()
    assert x.grad.dtype == tg.float16
    y = tg.ones(3, dtype=tg.float64, requires_grad=True)
    g, = tg.autograd.grad((y * tg.tensor(2.0, dtype=tg.float32)).sum(), y)
    assert g.dtype == tg.float64 and np.asarray(g).tolist() == [2.0] * 3
