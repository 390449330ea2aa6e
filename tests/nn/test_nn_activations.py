"""Activation layers and functions against torch on both engines: values, input and parameter
gradients, printed form, state-dict layout, in-place variants and torch's errors."""

import numpy as np
import pytest
from _torchcmp import raises_like, run_both

pytestmark = pytest.mark.torch

# (layer name, constructor args, functional name, functional args after the input)
LAYERS = [
    ("ReLU", (), "relu", ()),
    ("ReLU6", (), "relu6", ()),
    ("SiLU", (), "silu", ()),
    ("Mish", (), "mish", ()),
    ("Hardswish", (), "hardswish", ()),
    ("Hardsigmoid", (), "hardsigmoid", ()),
    ("SELU", (), "selu", ()),
    ("ELU", (0.7,), "elu", (0.7,)),
    ("CELU", (1.5,), "celu", (1.5,)),
    ("LeakyReLU", (0.2,), "leaky_relu", (0.2,)),
    ("Hardtanh", (-0.5, 1.5), "hardtanh", (-0.5, 1.5)),
    ("Threshold", (0.1, -2.0), "threshold", (0.1, -2.0)),
    ("Softplus", (2.0, 3.0), "softplus", (2.0, 3.0)),
    ("GELU", ("tanh",), None, ()),
    ("GELU", (), "gelu", ()),
    ("Softsign", (), "softsign", ()),
    ("LogSigmoid", (), "logsigmoid", ()),
    ("Tanhshrink", (), "tanhshrink", ()),
    ("GLU", (1,), "glu", (1,)),
    ("Softmin", (1,), "softmin", (1,)),
    ("Softmax2d", (), None, ()),
]


def _x(shape=(3, 4, 5), scale=4.0, seed=1):
    # away from the kinks (0, +-3, thresholds) where one-sided derivatives may differ
    x = np.random.default_rng(seed).uniform(-scale, scale, shape)
    return np.where(np.abs(np.abs(x) - 3.0) < 0.05, x + 0.1, x)


@pytest.mark.parametrize("name,args,fname,fargs", LAYERS,
                         ids=[f"{n}{a}" for n, a, _, _ in LAYERS])
def test_layer_matches_torch(lib, name, args, fname, fargs):
    torch = pytest.importorskip("torch")
    x = _x()
    run_both(lib, torch, lambda: getattr(lib.nn, name)(*args),
             lambda: getattr(torch.nn, name)(*args), [x], module=True)
    if fname is not None:
        run_both(lib, torch, lambda t: getattr(lib.F, fname)(t, *fargs),
                 lambda t: getattr(torch.nn.functional, fname)(t, *fargs), [x])


def test_gelu_tanh_functional_matches_torch(lib):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda t: lib.F.gelu(t, approximate="tanh"),
             lambda t: torch.nn.functional.gelu(t, approximate="tanh"), [_x()])


@pytest.mark.parametrize("num", [1, 4])
def test_prelu_matches_torch(lib, num):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: lib.nn.PReLU(num, 0.1), lambda: torch.nn.PReLU(num, 0.1),
             [_x((2, 4, 3))], module=True)
    assert list(lib.nn.PReLU(num).state_dict()) == ["weight"]


@pytest.mark.parametrize("name", ["ReLU", "ReLU6", "SiLU", "Mish", "Hardswish", "Hardsigmoid",
                                  "SELU", "ELU", "CELU", "LeakyReLU", "Hardtanh"])
def test_inplace_writes_the_input_and_keeps_gradients(lib, name):
    torch = pytest.importorskip("torch")
    x = _x((4, 5))

    def ours(t):
        y = t * 1.0
        out = getattr(lib.nn, name)(inplace=True)(y)
        assert out is y
        return y * 2.0

    def theirs(t):
        y = t * 1.0
        out = getattr(torch.nn, name)(inplace=True)(y)
        assert out is y
        return y * 2.0

    run_both(lib, torch, ours, theirs, [x])
    assert str(getattr(lib.nn, name)(inplace=True)) == str(getattr(torch.nn, name)(inplace=True))


def test_inplace_on_a_leaf_that_requires_grad_raises(lib):
    x = lib.tg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        lib.F.relu(x, inplace=True)


def test_glu_odd_dim_error_is_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.functional.glu(torch.ones(2, 3), 1)):
        lib.F.glu(lib.tg.ones(2, 3), 1)


def test_softmax2d_rank_error_is_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.Softmax2d()(torch.ones(2))):
        lib.nn.Softmax2d()(lib.tg.ones(2))


def test_prelu_channel_mismatch_error_is_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.functional.prelu(torch.ones(2, 3), torch.ones(2))):
        lib.F.prelu(lib.tg.ones(2, 3), lib.tg.ones(2))


def test_celu_zero_alpha_error_is_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.functional.celu(torch.ones(2), 0.0)):
        lib.F.celu(lib.tg.ones(2), 0.0)


def test_unflatten_matches_torch(lib):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: lib.nn.Unflatten(1, (2, -1)),
             lambda: torch.nn.Unflatten(1, (2, -1)), [_x((3, 6, 2))], module=True)
    with raises_like(lambda: torch.nn.Unflatten(1, (2, 2))(torch.ones(3, 5))):
        lib.nn.Unflatten(1, (2, 2))(lib.tg.ones(3, 5))


@pytest.mark.parametrize("name,shape", [("Dropout1d", (8, 16, 5)), ("Dropout2d", (8, 16, 3, 3)),
                                        ("Dropout3d", (4, 16, 2, 2, 2))])
def test_channel_dropout_drops_whole_channels(lib, name, shape):
    torch = pytest.importorskip("torch")
    layer = getattr(lib.nn, name)(0.5)
    assert str(layer) == str(getattr(torch.nn, name)(0.5))
    x = lib.tg.ones(*shape, dtype=lib.tg.float64, requires_grad=True)
    y = layer(x)
    a = np.asarray(y.detach()).reshape(shape[0], shape[1], -1)
    per_channel = {tuple(np.unique(row)) for row in a.reshape(-1, a.shape[-1])}
    assert per_channel <= {(0.0,), (2.0,)} and len(per_channel) == 2
    y.sum().backward()
    np.testing.assert_array_equal(np.asarray(x.grad).reshape(a.shape), a)
    layer.eval()
    assert layer(x) is x
    with pytest.raises(RuntimeError, match=f"{name.lower()}: Expected"):
        layer.train()(lib.tg.ones(2))


def test_alpha_dropout_keeps_mean_and_variance(lib):
    lib.tg.manual_seed(0)
    x = lib.tg.tensor(np.random.default_rng(0).standard_normal(200000))
    y = np.asarray(lib.nn.AlphaDropout(0.2).train()(x))
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1.0) < 0.02
    assert lib.nn.AlphaDropout(0.2).eval()(x) is x
