"""F.normalize, F.cosine_similarity, nn.CosineSimilarity, nn.PairwiseDistance and the padding
layers (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad in 1-3 dims) against
torch on both engines: values, gradients, printed form and errors."""

import numpy as np
import pytest
from _torchcmp import raises_like

pytestmark = pytest.mark.torch
rng = np.random.default_rng(11)


def _grads(lib, torch, ours_fn, theirs_fn, *arrays):
    """Values and input gradients of ``fn(*inputs)`` (weighted by a random cotangent)."""
    xs = [lib.tg.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = ours_fn(*xs), theirs_fn(*ts)
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_allclose(np.asarray(y.detach()), ty.detach().numpy(), rtol=1e-12,
                               atol=1e-15)
    v = rng.standard_normal(tuple(ty.shape))
    (y * lib.tg.tensor(v)).sum().backward()
    (ty * torch.tensor(v)).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(np.asarray(x.grad), t.grad.numpy(), rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("shapes,kwargs", [
    (((4, 5), (4, 5)), {}),
    (((4, 5), (5,)), {"dim": -1}),
    (((3, 1, 4), (1, 2, 4)), {"dim": 2, "eps": 1e-3}),
    (((6,), (6,)), {"dim": 0}),
])
def test_cosine_similarity_matches_torch(lib, shapes, kwargs):
    torch = pytest.importorskip("torch")
    arrays = [rng.standard_normal(s) for s in shapes]
    _grads(lib, torch, lambda a, b: lib.F.cosine_similarity(a, b, **kwargs),
           lambda a, b: torch.nn.functional.cosine_similarity(a, b, **kwargs), *arrays)
    mod, tmod = lib.nn.CosineSimilarity(**kwargs), torch.nn.CosineSimilarity(**kwargs)
    assert str(mod) == str(tmod)
    _grads(lib, torch, mod, tmod, *arrays)


def test_cosine_similarity_clamps_small_norms_as_torch(lib):
    """A norm under eps is replaced by eps in the value; the gradient still flows through the
    unclamped norm (torch clamps in place under no_grad)."""
    torch = pytest.importorskip("torch")
    a = np.array([[1e-5, -2e-5, 3e-6], [0.3, 0.1, -0.2]])
    b = np.array([[0.5, 0.2, -0.1], [1e-6, 2e-6, 0.0]])
    _grads(lib, torch, lambda x, y: lib.F.cosine_similarity(x, y, eps=1e-3),
           lambda x, y: torch.nn.functional.cosine_similarity(x, y, eps=1e-3), a, b)


def test_cosine_similarity_errors_are_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.functional.cosine_similarity(
            torch.ones(3, dtype=torch.long), torch.ones(3, dtype=torch.long), dim=0)):
        lib.F.cosine_similarity(lib.tg.ones(3, dtype=lib.tg.int64),
                                lib.tg.ones(3, dtype=lib.tg.int64), dim=0)
    # an integer input with a floating one is promoted, as torch
    got = lib.F.cosine_similarity(lib.tg.ones(3, dtype=lib.tg.int64), lib.tg.ones(3), dim=0)
    assert abs(float(got) - 1.0) < 1e-6


@pytest.mark.parametrize("kwargs", [{}, {"p": 1.0, "dim": -1}, {"p": 3.0, "dim": 0},
                                    {"p": float("inf"), "dim": 1, "eps": 0.5}])
def test_normalize_matches_torch(lib, kwargs):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((3, 4))
    a[1] *= 1e-14  # a row whose norm is under eps is divided by eps
    _grads(lib, torch, lambda x: lib.F.normalize(x, **kwargs),
           lambda x: torch.nn.functional.normalize(x, **kwargs), a)


def test_normalize_out_and_errors(lib):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3))
    out = lib.tg.empty(2, 3, dtype=lib.tg.float64)
    got = lib.F.normalize(lib.tg.tensor(a), out=out)
    assert got is out
    np.testing.assert_allclose(np.asarray(out),
                               torch.nn.functional.normalize(torch.tensor(a)).numpy())
    with pytest.raises(IndexError):
        lib.F.normalize(lib.tg.ones(3))  # dim=1 of a vector: torch raises IndexError too
    with pytest.raises(IndexError):
        torch.nn.functional.normalize(torch.ones(3))


@pytest.mark.parametrize("kwargs", [{}, {"p": 1.0, "keepdim": True}, {"p": 3.0, "eps": 0.1}])
def test_pairwise_distance_module_matches_torch(lib, kwargs):
    torch = pytest.importorskip("torch")
    mod, tmod = lib.nn.PairwiseDistance(**kwargs), torch.nn.PairwiseDistance(**kwargs)
    assert str(mod) == str(tmod)
    assert mod.norm == tmod.norm
    _grads(lib, torch, mod, tmod, rng.standard_normal((4, 3)), rng.standard_normal((4, 3)))


PADS = [
    ("ZeroPad1d", (2,), (2, 3, 5)), ("ZeroPad2d", ((1, 0, 2, 1),), (2, 3, 4, 5)),
    ("ZeroPad3d", (1,), (1, 2, 3, 3, 3)), ("ConstantPad1d", ((1, 2), 3.5), (3, 5)),
    ("ConstantPad2d", (1, -0.5), (1, 2, 3, 4)),
    ("ConstantPad3d", ([1, 0, 0, 1, 2, 0], 1), (2, 2, 3, 3)),
    ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad2d", ((1, 2, 2, 1),), (2, 2, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 1, 3, 3, 3)), ("ReplicationPad1d", ((3, 1),), (1, 2, 4)),
    ("ReplicationPad2d", (2,), (2, 3, 3)),
    ("ReplicationPad3d", ((1, 0, 1, 0, 1, 0),), (1, 1, 2, 3, 4)),
    ("CircularPad1d", (2,), (2, 3, 5)), ("CircularPad2d", ((1, 2, 0, 1),), (1, 2, 4, 5)),
    ("CircularPad3d", (1,), (1, 1, 3, 3, 3)),
]


@pytest.mark.parametrize("name,args,shape", PADS, ids=[p[0] for p in PADS])
def test_padding_layers_match_torch(lib, name, args, shape):
    torch = pytest.importorskip("torch")
    mod, tmod = getattr(lib.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert str(mod) == str(tmod)
    assert mod.padding == tmod.padding
    _grads(lib, torch, mod, tmod, rng.standard_normal(shape))


def test_circular_pad_checks_the_rank_as_torch(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.CircularPad2d(1)(torch.ones(3))):
        lib.nn.CircularPad2d(1)(lib.tg.ones(3))


@pytest.mark.parametrize("name", ["norm", "vector_norm", "normalize", "cosine_similarity"])
def test_zero_rows_have_torchs_finite_gradient(lib, name):
    """A zero row: torch's 2-norm gradient there is 0, not 0 / 0 (Note [The 2-norm's gradient
    at zero] in formulas/reduce.py)."""
    torch = pytest.importorskip("torch")
    a = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 2.0]])
    b = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0]])
    fns = {
        "norm": lambda t, F, x: x.norm(2, 1),
        "vector_norm": lambda t, F, x: t.linalg.vector_norm(x, dim=-1),
        "normalize": lambda t, F, x: F.normalize(x),
        "cosine_similarity": lambda t, F, x: F.cosine_similarity(x, t.tensor(b)),
    }
    _grads(lib, torch, lambda x: fns[name](lib.tg, lib.F, x),
           lambda x: fns[name](torch, torch.nn.functional, x), a)
