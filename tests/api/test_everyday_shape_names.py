"""torch's everyday shape names that ported scripts call (issue #13 programs): repeat_interleave,
tile, ravel, moveaxis, swapdims, tensor_split, hsplit/vsplit/dsplit, take_along_dim, diag,
fliplr/flipud, inner, broadcast_shapes; the Tensor's element_size/itemsize/nbytes/ndimension/
get_device; in-place square_/log2_/tril_/... . Values, gradients and errors against torch, on
both engines."""

import warnings

import numpy as np
import pytest

rng = np.random.default_rng(3)
A = rng.standard_normal((2, 3, 4))
M = rng.standard_normal((3, 4))


def _run(lib, program, arrays):
    """``program(lib, *tensors)`` -> (outputs as arrays, gradients of a weighted sum) or the
    error's (type, message)."""
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    try:
        out = program(lib, *xs)
    except Exception as e:  # noqa: BLE001  (the error is the result)
        return type(e).__name__, str(e)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    total = None
    for i, o in enumerate(outs):
        if o.is_floating_point() and o.requires_grad:
            w = lib.tensor(np.cos(np.arange(o.numel()) + i).reshape(tuple(o.shape)))
            term = (o * w).sum()
            total = term if total is None else total + term
    grads = []
    if total is not None:
        total.backward()
        grads = [None if x.grad is None else np.asarray(x.grad) for x in xs]
    return [np.asarray(o.detach()) for o in outs], grads


def _same(engine, program, *arrays):
    torch = pytest.importorskip("torch")
    ours, theirs = _run(engine, program, arrays), _run(torch, program, arrays)
    if isinstance(theirs[0], str):
        assert ours == theirs
        return
    assert not isinstance(ours[0], str), ours
    for o, t in zip(ours[0], theirs[0]):
        assert o.shape == t.shape and o.dtype == t.dtype
        np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-14)
    assert len(ours[0]) == len(theirs[0])
    for o, t in zip(ours[1], theirs[1]):
        assert (o is None) == (t is None)
        if o is not None:
            np.testing.assert_allclose(o, t, rtol=1e-12, atol=1e-14)


CASES = {
    "repeat_interleave-int": (lambda t, x: t.repeat_interleave(x, 2, dim=1), A),
    "repeat_interleave-flat": (lambda t, x: x.repeat_interleave(3), M),
    "repeat_interleave-tensor": (
        lambda t, x: x.repeat_interleave(t.tensor([1, 0, 2]), dim=0), M),
    "repeat_interleave-0d-tensor": (lambda t, x: x.repeat_interleave(t.tensor(2), dim=-1), M),
    "repeat_interleave-counts": (lambda t, x: t.repeat_interleave(t.tensor([2, 0, 1])), M),
    "repeat_interleave-bad-size": (
        lambda t, x: x.repeat_interleave(t.tensor([1, 2]), dim=0), M),
    "repeat_interleave-2d-repeats": (
        lambda t, x: x.repeat_interleave(t.tensor([[1, 2, 3]]), dim=0), M),
    "repeat_interleave-negative": (lambda t, x: x.repeat_interleave(-1, dim=0), M),
    "tile-fewer": (lambda t, x: t.tile(x, (2,)), A),
    "tile-more": (lambda t, x: x.tile(2, 1, 1, 2), M),
    "ravel": (lambda t, x: t.ravel(x.transpose(0, 1)), M),
    "moveaxis": (lambda t, x: t.moveaxis(x, 0, -1), A),
    "swapdims": (lambda t, x: x.swapdims(0, 2), A),
    "tensor_split-sections": (lambda t, x: t.tensor_split(x, 3, dim=2), A),
    "tensor_split-indices": (lambda t, x: x.tensor_split([1, 5], dim=-1), A),
    "tensor_split-tensor": (lambda t, x: t.tensor_split(x, t.tensor([1, 2])), M),
    "tensor_split-0": (lambda t, x: t.tensor_split(x, 0), M),
    "hsplit": (lambda t, x: t.hsplit(x, 3), A),
    "hsplit-indivisible": (lambda t, x: t.hsplit(x, 2), A),
    "hsplit-list": (lambda t, x: x.hsplit([1]), M),
    "vsplit": (lambda t, x: t.vsplit(x, [1, 2]), M),
    "vsplit-1d": (lambda t, x: t.vsplit(x[0], 2), M),
    "dsplit": (lambda t, x: t.dsplit(x, 2), A),
    "dsplit-2d": (lambda t, x: t.dsplit(x, 2), M),
    "take_along_dim": (lambda t, x: t.take_along_dim(x, x.argsort(dim=1), dim=1), M),
    "take_along_dim-broadcast": (
        lambda t, x: t.take_along_dim(x, t.tensor([[[0], [3], [1]]]), dim=2), A),
    "take_along_dim-flat": (lambda t, x: x.take_along_dim(t.tensor([5, 0, 11])), M),
    "take_along_dim-ndim": (lambda t, x: t.take_along_dim(x, t.tensor([0]), dim=0), M),
    "diag-vector": (lambda t, x: t.diag(x[0], 1), M),
    "diag-matrix": (lambda t, x: x.diag(-1), M),
    "diag-3d": (lambda t, x: t.diag(x), A),
    "fliplr": (lambda t, x: t.fliplr(x), A),
    "flipud": (lambda t, x: x.flipud(), M),
    "fliplr-1d": (lambda t, x: t.fliplr(x[0]), M),
    "inner": (lambda t, x: t.inner(x, x[0]), A),
    "inner-0d": (lambda t, x: x.inner(x[0, 0]), M),
    "inner-mismatch": (lambda t, x: t.inner(x, x[:, :2]), M),
    "square_": (lambda t, x: x.clone().square_(), M),
    "log2_": (lambda t, x: x.abs().log2_(), M),
    "tril_": (lambda t, x: x.clone().tril_(-1), M),
    "negative_": (lambda t, x: x.clone().negative_(), M),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(engine, name):
    program, array = CASES[name]
    _same(engine, program, array)


@pytest.mark.parametrize("shapes", [((2, 1), (3,)), ((5, 1, 4), (1, 3, 1), 4), ((2, 1), (3, 4)),
                                    ((),), ((3,), [1])])
def test_broadcast_shapes(engine, shapes):
    torch = pytest.importorskip("torch")
    try:
        expected = torch.broadcast_shapes(*shapes)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e).replace("[", r"\[").replace("(", r"\(")
                           .replace(")", r"\)").replace("]", r"\]")):
            engine.broadcast_shapes(*shapes)
        return
    got = engine.broadcast_shapes(*shapes)
    assert tuple(got) == tuple(expected) and isinstance(got, engine.Size)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "bool"])
def test_element_size_nbytes_ndimension_get_device(engine, dtype):
    torch = pytest.importorskip("torch")
    ours = engine.zeros(2, 3, dtype=getattr(engine, dtype))
    theirs = torch.zeros(2, 3, dtype=getattr(torch, dtype))
    assert ours.element_size() == theirs.element_size()
    assert ours.itemsize == theirs.itemsize and ours.nbytes == theirs.nbytes
    assert ours.ndimension() == theirs.ndimension() == 2
    assert ours.get_device() == theirs.get_device() == -1
    assert engine.is_floating_point(ours) == torch.is_floating_point(theirs)


CASES_MORE = {
    "cross-dim": (lambda t, x: t.cross(x, x.flip(1) * 2.0, dim=1), M[:, :3]),
    "cross-method": (lambda t, x: x[:, :3].cross(x[:, 1:], dim=-1), M),
    "cross-no-size-3": (lambda t, x: t.cross(x[:2, :2], x[:2, :2], dim=0), M),
    "positive": (lambda t, x: t.positive(x) * 2, M),
    "positive-bool": (lambda t, x: (x > 0).positive(), M),
}


@pytest.mark.parametrize("name", list(CASES_MORE))
def test_more_match_torch(engine, name):
    program, array = CASES_MORE[name]
    _same(engine, program, array)


def test_cross_without_dim_warns_and_takes_the_first_size_3_dim(engine):
    torch = pytest.importorskip("torch")
    a, b = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    with pytest.warns(UserWarning, match="without specifying the dim arg is deprecated"):
        ours = engine.cross(engine.tensor(a), engine.tensor(b))
    with warnings.catch_warnings():  # torch warns once per process (TORCH_WARN_ONCE)
        warnings.simplefilter("ignore")
        theirs = torch.cross(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(np.asarray(ours), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("args", [(3, 4, 1), (4, 3, -1), (3, 3), (1, 5, 2), (5, 2, -10)])
def test_tri_indices_as_torch(engine, args):
    torch = pytest.importorskip("torch")
    for name in ("triu_indices", "tril_indices"):
        ours, theirs = getattr(engine, name)(*args), getattr(torch, name)(*args)
        assert np.asarray(ours).tolist() == theirs.tolist() and ours.dtype == engine.int64
    assert engine.triu_indices(3, 3, dtype=engine.int32).dtype == engine.int32
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        engine.triu_indices(3, 3, dtype=engine.float32)


def test_new_factories_take_device_and_requires_grad(engine):
    x = engine.ones(2, 3, dtype=engine.float64)
    z = x.new_zeros(4, device=x.device, requires_grad=True)
    assert z.dtype == engine.float64 and z.requires_grad and tuple(z.shape) == (4,)
    assert tuple(x.new_empty((2, 2)).shape) == (2, 2)
    assert x.new_ones(1, dtype=engine.int64, device="cpu").dtype == engine.int64
    assert x.new_full((2,), 7.0, requires_grad=True).requires_grad
    assert x.new_tensor([1.0], device="cpu").dtype == engine.float64
    assert engine.scalar_tensor(3).dtype == engine.float32 and float(engine.scalar_tensor(3)) == 3
    assert x.is_signed() and engine.ones(1, dtype=engine.int64).is_signed()
    assert not engine.ones(1, dtype=engine.uint8).is_signed()
    assert not engine.ones(1, dtype=engine.bool).is_signed()
