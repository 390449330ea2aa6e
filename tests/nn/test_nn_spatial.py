"""Spatial layers against torch on both engines: padding modes, conv padding_mode, Conv3d,
ConvTranspose1d/2d, MaxPool1d/AvgPool1d, ceil_mode, PixelShuffle/PixelUnshuffle, Upsample /
interpolate, Fold/Unfold, and empty batches (values, input and parameter gradients, printed
form, state dict, torch's errors)."""

import numpy as np
import pytest
from _torchcmp import raises_like, run_both

pytestmark = pytest.mark.torch
rng = np.random.default_rng(11)


def _x(*shape):
    return rng.standard_normal(shape)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pads", [((2, 3, 5), (2, 1)), ((2, 3, 4, 5), (1, 2, 3, 0)),
                                        ((3, 4, 5), (1, 1, 2, 2)),
                                        ((1, 2, 3, 4, 5), (1, 0, 2, 1, 1, 2))])
def test_pad_matches_torch(lib, mode, shape, pads):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda t: lib.F.pad(t, pads, mode),
             lambda t: torch.nn.functional.pad(t, pads, mode), [_x(*shape)])


@pytest.mark.parametrize("call", [
    lambda F, t: F.pad(t(np.ones((1, 2, 3))), (3, 3), "reflect"),
    lambda F, t: F.pad(t(np.ones((1, 2, 3))), (4, 4), "circular"),
    lambda F, t: F.pad(t(np.ones((1, 2, 3))), (1, 1), "bad"),
    lambda F, t: F.pad(t(np.ones((1, 2, 3))), (1,), "reflect"),
    lambda F, t: F.pad(t(np.ones(3)), (1, 1), "reflect"),
    lambda F, t: F.pixel_shuffle(t(np.ones((1, 3, 2, 2))), 2),
    lambda F, t: F.pixel_unshuffle(t(np.ones((1, 3, 3, 2))), 2),
])
def test_spatial_errors_are_torchs(lib, call):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: call(torch.nn.functional, torch.tensor)):
        call(lib.F, lib.tg.tensor)


CONVS = [
    ("Conv2d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (2, 2, 5, 6)),
    ("Conv2d", (2, 4, (3, 2)), {"padding": (2, 1), "padding_mode": "circular", "groups": 2},
     (2, 2, 5, 6)),
    ("Conv2d", (2, 3, 3), {"padding": "same", "padding_mode": "replicate", "dilation": 2},
     (2, 2, 6, 6)),
    ("Conv1d", (2, 3, 4), {"padding": "same", "padding_mode": "reflect"}, (2, 2, 7)),
    ("Conv3d", (2, 3, 3), {}, (2, 2, 5, 4, 4)),
    ("Conv3d", (2, 4, (2, 3, 2)), {"stride": (2, 1, 2), "padding": (1, 1, 0),
                                   "dilation": (2, 1, 1), "groups": 2}, (1, 2, 6, 5, 5)),
    ("Conv3d", (2, 3, 3), {"padding": "same"}, (2, 4, 4, 4)),
    ("Conv3d", (2, 3, 2), {"padding": 1, "padding_mode": "circular", "bias": False},
     (1, 2, 3, 3, 3)),
    ("ConvTranspose2d", (2, 3, 3), {}, (2, 2, 4, 5)),
    ("ConvTranspose2d", (4, 2, (3, 2)), {"stride": 2, "padding": 1, "output_padding": 1,
                                         "groups": 2, "dilation": (1, 2)}, (2, 4, 3, 4)),
    ("ConvTranspose2d", (2, 3, 3), {"stride": (2, 3), "bias": False}, (2, 3, 3)),
    ("ConvTranspose1d", (2, 3, 3), {"stride": 3, "padding": 1, "output_padding": 2},
     (2, 2, 5)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", CONVS,
                         ids=[f"{n}{a}{sorted(k.items())}" for n, a, k, _ in CONVS])
def test_conv_layer_matches_torch(lib, name, args, kwargs, shape):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: getattr(lib.nn, name)(*args, **kwargs),
             lambda: getattr(torch.nn, name)(*args, **kwargs), [_x(*shape)], module=True,
             rtol=1e-6, atol=1e-8)


def test_conv_transpose_initialisation_bounds_follow_torch(lib):
    layer = lib.nn.ConvTranspose2d(2, 6, 3, groups=2)
    assert tuple(layer.weight.shape) == (2, 3, 3, 3)
    bound = 1.0 / np.sqrt(3 * 9)  # torch's fan_in: weight.shape[1] * prod(kernel_size)
    w = np.asarray(layer.weight.detach())
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.5 * bound


POOLS = [
    ("MaxPool1d", (3,), {}, (2, 3, 10)),
    ("MaxPool1d", (3, 2, 1, 2), {"ceil_mode": True}, (2, 3, 10)),
    ("MaxPool1d", (2,), {"ceil_mode": True}, (3, 7)),
    ("MaxPool2d", (3, 2), {"ceil_mode": True}, (2, 2, 8, 7)),
    ("MaxPool2d", ((2, 3), (2, 2), (1, 1)), {"ceil_mode": True}, (1, 2, 7, 8)),
    ("MaxPool3d", (2,), {}, (2, 2, 4, 5, 4)),
    ("MaxPool3d", ((3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1)), {"ceil_mode": True},
     (1, 2, 6, 6, 5)),
    ("MaxPool3d", (2,), {"ceil_mode": True}, (2, 5, 3, 3)),
    ("AdaptiveMaxPool2d", ((3, 2),), {}, (2, 3, 7, 5)),
    ("AdaptiveMaxPool2d", ((None, 4),), {}, (3, 5, 7)),
    ("AdaptiveMaxPool1d", (3,), {}, (2, 3, 8)),
    ("AvgPool1d", (3,), {}, (2, 3, 10)),
    ("AvgPool1d", (4, 2, 1), {"count_include_pad": False}, (2, 3, 9)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", POOLS,
                         ids=[f"{n}{a}{sorted(k.items())}" for n, a, k, _ in POOLS])
def test_pool_layer_matches_torch(lib, name, args, kwargs, shape):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: getattr(lib.nn, name)(*args, **kwargs),
             lambda: getattr(torch.nn, name)(*args, **kwargs), [_x(*shape)], module=True)


@pytest.mark.parametrize("fn,args,shape", [
    ("max_pool1d", (3, 2, 1, 1, True), (2, 3, 10)),
    ("max_pool2d", (3, 2, 1, 1, True), (2, 2, 8, 7)),
    ("max_pool3d", ((2, 3, 2), (2, 1, 2), (1, 1, 0), 1, True), (2, 2, 5, 4, 5)),
    ("max_pool3d", (2, None, 0, (2, 1, 1)), (2, 6, 3, 4)),
    ("adaptive_max_pool2d", ((3, 2),), (2, 3, 7, 5)),
    ("adaptive_max_pool1d", (4,), (3, 9)),
])
def test_pool_indices_match_torch(lib, fn, args, shape):
    torch = pytest.importorskip("torch")
    x = _x(*shape)
    v, i = getattr(lib.F, fn)(lib.tg.tensor(x), *args, return_indices=True)
    tv, ti = getattr(torch.nn.functional, fn)(torch.tensor(x), *args, return_indices=True)
    np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    np.testing.assert_allclose(np.asarray(v), tv.numpy())


@pytest.mark.parametrize("name,args,shape", [
    ("PixelShuffle", (2,), (2, 8, 3, 4)), ("PixelShuffle", (3,), (9, 2, 2)),
    ("PixelUnshuffle", (2,), (2, 2, 4, 6)), ("Unfold", ((2, 3), 1, 1, 2), (2, 3, 5, 6)),
    ("Unfold", (2,), (3, 4, 4)), ("Fold", ((4, 5), (2, 2), 1, 0, 1), (2, 8, 12)),
    ("Fold", ((5, 5), 3, 2, 1, 2), (9, 4)),
    ("Upsample", (None, 2.0), (2, 3, 4)), ("Upsample", ((5, 7),), (2, 3, 3, 4)),
    ("Upsample", (None, 1.7, "bilinear"), (2, 2, 3, 4)),
    ("Upsample", ((5, 6), None, "bilinear", True), (2, 2, 3, 4)),
    ("Upsample", (7, None, "linear"), (2, 2, 3)),
    ("Upsample", (None, (2.0, 1.5, 1.0), "trilinear", False), (1, 2, 2, 3, 4)),
    ("Upsample", (None, 2, "nearest"), (1, 2, 2, 3, 2)),
    ("UpsamplingBilinear2d", (None, 2), (1, 2, 3, 3)),
    ("UpsamplingNearest2d", ((4, 5),), (1, 2, 3, 3)),
])
def test_rearranging_layer_matches_torch(lib, name, args, shape):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: getattr(lib.nn, name)(*args),
             lambda: getattr(torch.nn, name)(*args), [_x(*shape)], module=True)


@pytest.mark.parametrize("call", [
    lambda F, x, w: F.conv2d(x(0, 3, 8, 8), w(4, 3, 3, 3)),
    lambda F, x, w: F.conv2d(x(0, 4, 8, 8), w(4, 2, 3, 3), groups=2),
    lambda F, x, w: F.max_pool2d(x(0, 3, 8, 8), 2),
    lambda F, x, w: F.avg_pool2d(x(0, 3, 8, 8), 2),
    lambda F, x, w: F.layer_norm(x(0, 3, 8), (8,), w(8), w(8)),
    lambda F, x, w: F.group_norm(x(0, 4, 8), 2, w(4), w(4)),
    lambda F, x, w: F.batch_norm(x(0, 3, 5), w(3), w(3), training=False),
    lambda F, x, w: F.conv_transpose2d(x(0, 3, 4, 4), w(3, 2, 3, 3)),
    lambda F, x, w: F.linear(x(0, 3), w(2, 3)),
])
def test_empty_batch_works_as_torch(lib, call):
    torch = pytest.importorskip("torch")

    def ours(*shape):
        return lib.tg.zeros(*shape, dtype=lib.tg.float64, requires_grad=True)

    def theirs(*shape):
        return torch.zeros(*shape, dtype=torch.float64, requires_grad=True)

    y = call(lib.F, ours, ours)
    ty = call(torch.nn.functional, theirs, theirs)
    assert tuple(y.shape) == tuple(ty.shape)
    y.sum().backward()


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pads", [((1, 2, 6), (-1, 2)), ((1, 2, 6), (3, -3)),
                                        ((1, 2, 6), (-2, -1)), ((2, 5, 6), (-1, 2, 2, -3)),
                                        ((1, 1, 4, 5, 6), (1, -2, -1, 0, 2, -1))])
def test_negative_pad_crops_as_torch(lib, mode, shape, pads):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda t: lib.F.pad(t, pads, mode),
             lambda t: torch.nn.functional.pad(t, pads, mode), [_x(*shape)])


@pytest.mark.parametrize("call", [
    lambda F, t: F.pad(t(np.ones((1, 2, 6))), (-6, 0), "reflect"),
    lambda F, t: F.pad(t(np.ones((1, 2, 6))), (-4, -3), "replicate"),
    lambda F, t: F.pad(t(np.ones((1, 2, 6))), (-4, -3), "circular"),
])
def test_negative_pad_errors_are_torchs(lib, call):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: call(torch.nn.functional, torch.tensor)):
        call(lib.F, lib.tg.tensor)


@pytest.mark.parametrize("kwargs,shape", [
    ({"stride": 1, "output_padding": 1, "dilation": 2}, (1, 2, 5, 4)),
    ({"stride": 2, "output_padding": 2, "dilation": 3, "padding": 1}, (2, 2, 3, 4)),
    ({"stride": (1, 2), "output_padding": (2, 1), "dilation": (3, 2), "padding": (3, 0)},
     (1, 2, 4, 3)),
])
def test_conv_transpose2d_output_padding_past_the_stride(lib, kwargs, shape):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda x, w: lib.F.conv_transpose2d(x, w, **kwargs),
             lambda x, w: torch.nn.functional.conv_transpose2d(x, w, **kwargs),
             [_x(*shape), _x(2, 3, 3, 2)])


def test_conv_transpose3d_output_padding_past_the_stride(lib):
    torch = pytest.importorskip("torch")
    kw = {"stride": 1, "output_padding": (1, 1, 0), "dilation": 2}
    run_both(lib, torch, lambda x, w: lib.F.conv_transpose3d(x, w, **kw),
             lambda x, w: torch.nn.functional.conv_transpose3d(x, w, **kw),
             [_x(1, 2, 3, 3, 2), _x(2, 2, 2, 2, 2)])


@pytest.mark.parametrize("args", [((3, 3), (1, 1), (1,), True, False, 2),
                                  ((4, 4), (2, 2), (2,), True, True, None)])
def test_avg_pool2d_takes_a_one_element_padding(lib, args):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda x: lib.F.avg_pool2d(x, *args),
             lambda x: torch.nn.functional.avg_pool2d(x, *args), [_x(2, 3, 9, 9)])


INTEGRAL = [
    ("conv1d", lambda F, x, w: F.conv1d(x, w, None, 1, 1), (2, 3, 7), (4, 3, 3)),
    ("conv2d", lambda F, x, w: F.conv2d(x, w, stride=2, padding=1), (1, 2, 5, 6), (3, 2, 3, 2)),
    ("conv3d", lambda F, x, w: F.conv3d(x, w), (1, 2, 4, 3, 3), (2, 2, 2, 2, 2)),
    ("conv_transpose1d", lambda F, x, w: F.conv_transpose1d(x, w, stride=2), (1, 4, 5),
     (4, 2, 3)),
    ("conv_transpose2d", lambda F, x, w: F.conv_transpose2d(x, w, padding=1), (1, 4, 3, 3),
     (4, 2, 3, 3)),
    ("avg_pool1d", lambda F, x, w: F.avg_pool1d(x, 3, 1, 1, count_include_pad=False), (2, 3, 7),
     None),
    ("avg_pool2d", lambda F, x, w: F.avg_pool2d(x, 2, padding=1), (1, 2, 5, 5), None),
    ("avg_pool3d", lambda F, x, w: F.avg_pool3d(x, 2, divisor_override=3), (1, 2, 4, 4, 4), None),
    ("max_pool2d", lambda F, x, w: F.max_pool2d(x, 2, return_indices=True), (1, 2, 5, 5), None),
    ("max_pool3d", lambda F, x, w: F.max_pool3d(x, 2, ceil_mode=True), (1, 2, 5, 4, 5), None),
]


@pytest.mark.parametrize("name,call,xshape,wshape", INTEGRAL, ids=[c[0] for c in INTEGRAL])
def test_integral_convolutions_and_pools_as_torch(lib, name, call, xshape, wshape):
    """Note [Integral convolutions and pools]: int64 in, int64 out, torch's values (an average
    truncated toward zero)."""
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(3)
    x = r.integers(-50, 50, xshape)
    w = None if wshape is None else r.integers(-5, 5, wshape)
    want = call(torch.nn.functional, torch.tensor(x), None if w is None else torch.tensor(w))
    got = call(lib.F, lib.tg.tensor(x), None if w is None else lib.tg.tensor(w))
    for g, t in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert str(g.dtype) == str(t.dtype) == "torch.int64"
        np.testing.assert_array_equal(g.numpy(), t.numpy())


def test_unfold_of_a_bool_tensor_stays_bool(lib):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(4).random((1, 2, 4, 4)) < 0.5
    want = torch.nn.functional.unfold(torch.tensor(x), 2)
    got = lib.F.unfold(lib.tg.tensor(x), 2)
    assert got.dtype == lib.tg.bool
    np.testing.assert_array_equal(got.numpy(), want.numpy())
