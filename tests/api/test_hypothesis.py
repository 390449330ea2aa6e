"""Property tests of the API (reference engine): broadcasting binary ops and reductions against
numpy, including the gradients the engine sums down to each input's shape."""

import numpy as np
import transgrad.reference as tg
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOATS = st.floats(-3, 3, allow_nan=False, width=64)


@st.composite
def broadcast_pair(draw):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                    max_side=3))
    a = draw(hnp.arrays(np.float64, shapes.input_shapes[0], elements=FLOATS))
    b = draw(hnp.arrays(np.float64, shapes.input_shapes[1], elements=FLOATS))
    return a, b


def sum_to(g, shape):
    """numpy reference of the engine's sum-down of a broadcast gradient."""
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


BINARY = {
    "add": (lambda x, y: x + y, lambda a, b, g: (g, g)),
    "sub": (lambda x, y: x - y, lambda a, b, g: (g, -g)),
    "mul": (lambda x, y: x * y, lambda a, b, g: (g * b, g * a)),
    "div": (lambda x, y: x / y, lambda a, b, g: (g / b, -g * a / b ** 2)),
    "maximum": (tg.maximum, lambda a, b, g: (g * (a > b) + 0.5 * g * (a == b),
                                             g * (b > a) + 0.5 * g * (a == b))),
}


@settings(max_examples=40, deadline=None)
@given(pair=broadcast_pair(), name=st.sampled_from(sorted(BINARY)), data=st.data())
def test_binary_broadcasting_value_and_grads(pair, name, data):
    a, b = pair
    if name == "div":
        b = np.where(np.abs(b) < 0.5, 1.0, b)
    fn, grads = BINARY[name]
    x = tg.tensor(a, requires_grad=True)
    y = tg.tensor(b, requires_grad=True)
    out = fn(x, y)
    ga_b = np.broadcast_arrays(a, b)
    expected = {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b,
                "maximum": np.maximum(a, b)}[name]
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-12)
    g = data.draw(hnp.arrays(np.float64, expected.shape, elements=FLOATS), label="g")
    out.backward(tg.tensor(g))
    da, db = grads(*ga_b, g)
    np.testing.assert_allclose(x.grad.detach().numpy(),
                               sum_to(np.broadcast_to(da, g.shape), a.shape),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(y.grad.detach().numpy(),
                               sum_to(np.broadcast_to(db, g.shape), b.shape),
                               rtol=1e-9, atol=1e-12)
    assert x.grad.shape == a.shape and y.grad.shape == b.shape


@settings(max_examples=40, deadline=None)
@given(a=hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=4, max_side=3),
                    elements=FLOATS), data=st.data())
def test_reductions_over_random_dims(a, data):
    dims = tuple(data.draw(st.sets(st.integers(0, a.ndim - 1), min_size=1), label="dims"))
    keepdim = data.draw(st.booleans(), label="keepdim")
    x = tg.tensor(a, requires_grad=True)
    s = x.sum(dims, keepdim=keepdim)
    np.testing.assert_allclose(s.detach().numpy(), a.sum(dims, keepdims=keepdim), atol=1e-12)
    m = x.mean(dims, keepdim=keepdim)
    np.testing.assert_allclose(m.detach().numpy(), a.mean(dims, keepdims=keepdim), atol=1e-12)
    (s.sum() + m.sum()).backward()
    n = np.prod([a.shape[d] for d in dims])
    np.testing.assert_allclose(x.grad.detach().numpy(), np.full(a.shape, 1.0 + 1.0 / n))


@settings(max_examples=30, deadline=None)
@given(shape=hnp.array_shapes(min_dims=1, max_dims=4, max_side=4), data=st.data())
def test_reshape_permute_roundtrip(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))), label="perm")
    x = tg.tensor(a, requires_grad=True)
    y = x.permute(*perm).reshape(-1)
    np.testing.assert_array_equal(y.detach().numpy(), a.transpose(perm).reshape(-1))
    (y * tg.tensor(np.arange(y.shape[0], dtype=np.float64))).sum().backward()
    expected = np.arange(a.size, dtype=np.float64).reshape(a.transpose(perm).shape)
    np.testing.assert_array_equal(x.grad.detach().numpy(), expected.transpose(np.argsort(perm)))
