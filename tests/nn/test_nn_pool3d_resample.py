"""The nn entries of issue #15 against torch on both engines: shrink activations, 3-D and
ceil_mode average pooling, adaptive 3-D pooling, unpooling, ConvTranspose3d and output_size,
margin losses, bicubic / antialiased / area interpolation, grid_sample and affine_grid
(values, input gradients, printed forms, indices and torch's errors). Their second
derivatives against torch's are the coverage twins' (test_second_order_matches_torch)."""

import numpy as np
import pytest
from _torchcmp import raises_like, run_both

pytestmark = pytest.mark.torch
rng = np.random.default_rng(15)


def _x(*shape):
    return rng.standard_normal(shape)


LAYERS = [
    ("Hardshrink", (), {}, (3, 4, 5)),
    ("Hardshrink", (0.8,), {}, (2, 7)),
    ("Softshrink", (), {}, (3, 4, 5)),
    ("Softshrink", (1.1,), {}, (2, 7)),
    ("AvgPool3d", (2,), {}, (2, 2, 4, 5, 4)),
    ("AvgPool3d", ((3, 2, 2), (2, 1, 2), (1, 0, 1)), {"count_include_pad": False},
     (1, 2, 5, 4, 5)),
    ("AvgPool3d", (2,), {"ceil_mode": True, "padding": 1}, (2, 5, 3, 5)),
    ("AvgPool3d", ((2, 3, 2),), {"divisor_override": 4, "stride": 1}, (1, 1, 3, 4, 4)),
    ("AvgPool2d", (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}, (2, 2, 6, 7)),
    ("AvgPool2d", (2,), {"ceil_mode": True}, (2, 5, 5)),
    ("AvgPool1d", (3, 2, 1), {"ceil_mode": True}, (2, 3, 8)),
    ("AdaptiveAvgPool1d", (3,), {}, (2, 3, 7)),
    ("AdaptiveAvgPool1d", (4,), {}, (3, 9)),
    ("AdaptiveAvgPool3d", ((2, 3, 2),), {}, (2, 2, 5, 7, 4)),
    ("AdaptiveAvgPool3d", ((None, 2, 3),), {}, (2, 3, 4, 5)),
    ("AdaptiveMaxPool3d", ((2, 3, 2),), {}, (2, 2, 5, 7, 4)),
    ("AdaptiveMaxPool3d", (2,), {}, (3, 4, 5, 3)),
    ("ConvTranspose3d", (2, 3, 2), {}, (2, 2, 3, 3, 2)),
    ("ConvTranspose3d", (2, 4, (2, 3, 2)), {"stride": (2, 1, 2), "padding": (1, 1, 0),
                                            "output_padding": (1, 0, 1), "groups": 2,
                                            "dilation": (1, 2, 1)}, (1, 2, 3, 4, 3)),
    ("ConvTranspose3d", (3, 2, 2), {"stride": 3, "bias": False}, (3, 2, 2, 2)),
    ("Upsample", ((5, 7), None, "bicubic"), {}, (2, 2, 3, 4)),
    ("Upsample", (None, 2, "bicubic", True), {}, (1, 2, 3, 3)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAYERS,
                         ids=[f"{n}{a}{sorted(k.items())}" for n, a, k, _ in LAYERS])
def test_layer_matches_torch(lib, name, args, kwargs, shape):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: getattr(lib.nn, name)(*args, **kwargs),
             lambda: getattr(torch.nn, name)(*args, **kwargs), [_x(*shape)], module=True,
             rtol=1e-6, atol=1e-8)


def test_adaptive_max_pool3d_indices_match_torch(lib):
    torch = pytest.importorskip("torch")
    x = _x(2, 3, 5, 7, 4)
    v, i = lib.F.adaptive_max_pool3d(lib.tg.tensor(x), (2, 3, 2), return_indices=True)
    tv, ti = torch.nn.functional.adaptive_max_pool3d(torch.tensor(x), (2, 3, 2), True)
    np.testing.assert_array_equal(np.asarray(i), ti.numpy())
    np.testing.assert_allclose(np.asarray(v), tv.numpy())


@pytest.mark.parametrize("nd,shape,kernel,kwargs", [
    (1, (2, 3, 8), 2, {}),
    (2, (2, 3, 6, 4), 2, {}),
    (2, (1, 2, 7, 7), 3, {"stride": 2, "padding": 1}),
    (2, (2, 3, 5, 5), 2, {"output_size": (5, 5)}),
    (3, (1, 2, 4, 4, 6), 2, {}),
    (3, (2, 4, 4, 5), (2, 1, 2), {"output_size": (1, 2, 4, 4, 5)}),
])
def test_max_unpool_inverts_max_pool_as_torch(lib, nd, shape, kernel, kwargs):
    torch = pytest.importorskip("torch")
    x = _x(*shape)
    pool_args = {k: v for k, v in kwargs.items() if k in ("stride", "padding")}
    _, ti = getattr(torch.nn.functional, f"max_pool{nd}d")(torch.tensor(x), kernel,
                                                           return_indices=True, **pool_args)
    values = _x(*ti.shape)
    idx = ti.numpy()
    out = run_both(lib, torch,
                   lambda t: getattr(lib.F, f"max_unpool{nd}d")(t, lib.tg.tensor(idx), kernel,
                                                                **kwargs),
                   lambda t: getattr(torch.nn.functional, f"max_unpool{nd}d")(
                       t, torch.tensor(idx), kernel, **kwargs), [values])
    layer = getattr(lib.nn, f"MaxUnpool{nd}d")(kernel, kwargs.get("stride"),
                                              kwargs.get("padding", 0))
    tlayer = getattr(torch.nn, f"MaxUnpool{nd}d")(kernel, kwargs.get("stride"),
                                                  kwargs.get("padding", 0))
    assert str(layer) == str(tlayer)
    again = layer(lib.tg.tensor(values), lib.tg.tensor(idx), kwargs.get("output_size"))
    np.testing.assert_allclose(np.asarray(again), np.asarray(out.detach()))


def test_conv_transpose_output_size_as_torch(lib):
    torch = pytest.importorskip("torch")
    for size in [(7, 8), (2, 3, 8, 7), (8, 8)]:
        run_both(lib, torch, lambda: lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1),
                 lambda: torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1),
                 [_x(2, 2, 4, 4)], module=True)
        ours = lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
        theirs = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
        x = _x(2, 2, 4, 4)
        y = ours(lib.tg.tensor(x), output_size=size)
        assert tuple(y.shape) == tuple(theirs(torch.tensor(x), output_size=size).shape)
    x = _x(1, 2, 3, 3, 3)
    y = lib.nn.ConvTranspose3d(2, 1, 2, stride=2).double()(lib.tg.tensor(x), output_size=(7, 6, 7))
    assert tuple(y.shape) == (1, 1, 7, 6, 7)


MARGINS = [
    ("multi_margin_loss", lambda: [_x(4, 5), rng.integers(0, 5, 4)], {}),
    ("multi_margin_loss", lambda: [_x(3, 4), rng.integers(0, 4, 3)], {"p": 2, "margin": 0.7}),
    ("multi_margin_loss", lambda: [_x(5), np.array(2)], {}),
    ("multilabel_margin_loss", lambda: [_x(3, 5), np.array([[3, 0, -1, 1, 1],
                                                             [4, 4, 1, 2, 0],
                                                             [-1, 0, 0, 0, 0]])], {}),
    ("multilabel_margin_loss", lambda: [_x(4), np.array([2, 1, -1, 3])], {}),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("fname,inputs,kwargs", MARGINS,
                         ids=[f"{n}{sorted(k.items())}" for n, _, k in MARGINS])
def test_margin_losses_match_torch(lib, fname, inputs, kwargs, reduction):
    torch = pytest.importorskip("torch")
    x, t = inputs()
    run_both(lib, torch,
             lambda a: getattr(lib.F, fname)(a, lib.tg.tensor(t), reduction=reduction,
                                             **kwargs),
             lambda a: getattr(torch.nn.functional, fname)(a, torch.tensor(t),
                                                           reduction=reduction, **kwargs), [x])


def test_margin_loss_layers_match_torch(lib):
    torch = pytest.importorskip("torch")
    x, t = _x(4, 5), rng.integers(0, 5, 4)
    w = rng.uniform(0.5, 2.0, 5)
    ours = lib.nn.MultiMarginLoss(p=2, weight=lib.tg.tensor(w), reduction="sum")
    theirs = torch.nn.MultiMarginLoss(p=2, weight=torch.tensor(w), reduction="sum")
    assert str(ours) == str(theirs)
    run_both(lib, torch, lambda a: ours(a, lib.tg.tensor(t)),
             lambda a: theirs(a, torch.tensor(t)), [x])
    labels = np.array([[1, 3, -1, 0, 0], [0, -1, 0, 0, 0], [2, 2, 4, 1, 3], [4, 0, -1, 0, 0]])
    assert str(lib.nn.MultiLabelMarginLoss()) == str(torch.nn.MultiLabelMarginLoss())
    run_both(lib, torch, lambda a: lib.nn.MultiLabelMarginLoss()(a, lib.tg.tensor(labels)),
             lambda a: torch.nn.MultiLabelMarginLoss()(a, torch.tensor(labels)), [x])


INTERPOLATIONS = [
    ((2, 2, 3, 4), {"size": (5, 7), "mode": "bicubic"}),
    ((1, 2, 6, 5), {"size": (4, 3), "mode": "bicubic", "align_corners": True}),
    ((1, 1, 4, 4), {"scale_factor": 1.5, "mode": "bicubic"}),
    ((2, 2, 9, 7), {"size": (4, 3), "mode": "bilinear", "antialias": True}),
    ((1, 2, 3, 4), {"size": (5, 6), "mode": "bilinear", "antialias": True}),
    ((1, 2, 8, 6), {"scale_factor": 0.5, "mode": "bilinear", "antialias": True,
                    "align_corners": True}),
    ((2, 2, 9, 7), {"size": (4, 3), "mode": "bicubic", "antialias": True}),
    ((1, 1, 3, 4), {"size": (7, 5), "mode": "bicubic", "antialias": True}),
    ((2, 3, 5), {"size": 8, "mode": "nearest-exact"}),
    ((2, 2, 7, 6), {"size": (3, 4), "mode": "nearest-exact"}),
    ((1, 2, 3, 4, 5), {"scale_factor": 1.5, "mode": "nearest-exact"}),
    ((2, 3, 7), {"size": 3, "mode": "area"}),
    ((2, 2, 7, 6), {"size": (3, 4), "mode": "area"}),
    ((1, 2, 5, 4, 6), {"scale_factor": 0.5, "mode": "area"}),
]


@pytest.mark.parametrize("shape,kwargs", INTERPOLATIONS,
                         ids=[f"{s}{sorted(k.items())}" for s, k in INTERPOLATIONS])
def test_interpolate_matches_torch(lib, shape, kwargs):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda t: lib.F.interpolate(t, **kwargs),
             lambda t: torch.nn.functional.interpolate(t, **kwargs), [_x(*shape)])


GRIDS = [
    ((1, 2, 4, 5), (1, 3, 3, 2), 0.9, {"align_corners": False}),
    ((2, 1, 3, 5), (2, 2, 4, 2), 1.4, {"align_corners": True}),
    ((1, 2, 4, 3), (1, 3, 2, 2), 1.4, {"padding_mode": "border", "align_corners": False}),
    ((1, 2, 4, 3), (1, 3, 2, 2), 1.4, {"padding_mode": "border", "align_corners": True}),
    ((1, 1, 4, 5), (1, 3, 3, 2), 2.5, {"padding_mode": "reflection", "align_corners": False}),
    ((1, 1, 5, 4), (1, 2, 3, 2), 2.5, {"padding_mode": "reflection", "align_corners": True}),
    ((1, 2, 4, 4), (1, 3, 3, 2), 1.2, {"mode": "nearest", "align_corners": False}),
    ((2, 2, 3, 4, 3), (2, 2, 3, 2, 3), 0.9, {"align_corners": False}),
    ((1, 1, 3, 3, 4), (1, 2, 2, 2, 3), 1.4, {"padding_mode": "border", "align_corners": True}),
    ((1, 1, 4, 3, 3), (1, 2, 2, 2, 3), 2.5, {"padding_mode": "reflection",
                                             "align_corners": False}),
    ((1, 2, 3, 3, 3), (1, 2, 2, 2, 3), 1.2, {"mode": "nearest", "align_corners": True}),
]


@pytest.mark.parametrize("shape,gshape,reach,kwargs", GRIDS,
                         ids=[f"{s}{sorted(k.items())}" for s, _, _, k in GRIDS])
def test_grid_sample_matches_torch(lib, shape, gshape, reach, kwargs):
    torch = pytest.importorskip("torch")
    grid = rng.uniform(-reach, reach, gshape)
    # nearest: the grid's gradient is zero (torch's zeros; ours not connected)
    grads = [True, kwargs.get("mode") != "nearest"]
    run_both(lib, torch, lambda x, g: lib.F.grid_sample(x, g, **kwargs),
             lambda x, g: torch.nn.functional.grid_sample(x, g, **kwargs), [_x(*shape), grid],
             grads)


@pytest.mark.parametrize("size,align", [((2, 1, 4, 5), False), ((1, 3, 3, 2), True),
                                        ((2, 1, 2, 3, 4), False), ((1, 1, 3, 2, 2), True)])
def test_affine_grid_matches_torch(lib, size, align):
    torch = pytest.importorskip("torch")
    nd = len(size) - 2
    run_both(lib, torch, lambda t: lib.F.affine_grid(t, size, align_corners=align),
             lambda t: torch.nn.functional.affine_grid(t, size, align_corners=align),
             [_x(size[0], nd, nd + 1)])


@pytest.mark.parametrize("call", [
    lambda F, t: F.softshrink(t(np.ones(3)), -1.0),
    lambda F, t: F.avg_pool3d(t(np.ones((1, 2, 4, 4, 4))), 2, padding=2),
    lambda F, t: F.adaptive_avg_pool3d(t(np.ones((2, 4, 4))), 2),
    lambda F, t: F.max_unpool2d(t(np.ones((1, 1, 2, 2))), t(np.array([[[[0, 1], [2, 16]]]])),
                                2),
    lambda F, t: F.max_unpool2d(t(np.ones((1, 1, 2, 2))), t(np.zeros((1, 1, 2, 2),
                                                                     dtype=np.int64)),
                                2, output_size=(9, 9)),
    lambda F, t: F.multi_margin_loss(t(np.ones((2, 3))), t(np.array([0, 3]))),
    lambda F, t: F.multi_margin_loss(t(np.ones((2, 3))), t(np.array([0, 1, 1]))),
    lambda F, t: F.multi_margin_loss(t(np.ones((2, 3))), t(np.array([0, 1])), p=3),
    lambda F, t: F.multi_margin_loss(t(np.ones((2, 3))), t(np.array([0, 1])),
                                     weight=t(np.ones((2, 3)))),
    lambda F, t: F.multilabel_margin_loss(t(np.ones((2, 3))), t(np.array([[0, 3, -1],
                                                                           [0, 0, 0]]))),
    lambda F, t: F.multilabel_margin_loss(t(np.ones((2, 3))), t(np.array([0, 1]))),
    lambda F, t: F.affine_grid(t(np.ones((1, 2, 2))), (1, 1, 2, 2), align_corners=False),
    lambda F, t: F.grid_sample(t(np.ones((1, 1, 2, 2))), t(np.ones((1, 2, 2, 3))),
                               align_corners=False),
    lambda F, t: F.grid_sample(t(np.ones((1, 1, 2, 2))), t(np.ones((1, 2, 2, 2))),
                               mode="foo", align_corners=False),
    lambda F, t: F.grid_sample(t(np.ones((1, 1, 2, 2))), t(np.ones((1, 2, 2, 2))),
                               padding_mode="foo", align_corners=False),
    lambda F, t: F.interpolate(t(np.ones((1, 1, 2, 2))), size=(3, 3), mode="nearest",
                               antialias=True),
])
def test_errors_are_torchs(lib, call):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: call(torch.nn.functional, torch.tensor)):
        call(lib.F, lib.tg.tensor)


def test_align_corners_default_warns_as_torch(lib):
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        lib.F.affine_grid(lib.tg.tensor(np.ones((1, 2, 3))), (1, 1, 2, 2))
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        lib.F.grid_sample(lib.tg.tensor(np.ones((1, 1, 2, 2))),
                          lib.tg.tensor(np.zeros((1, 2, 2, 2))))


SECOND_ORDER = ["hardshrink", "softshrink", "avg_pool3d", "avg_pool2d", "_adaptive_avg_pool3d",
                "adaptive_max_pool3d", "max_unpool2d", "max_unpool3d", "slow_conv_transpose3d",
                "upsample_bicubic2d", "_upsample_bilinear2d_aa", "_upsample_nearest_exact1d",
                "_upsample_nearest_exact2d", "_upsample_nearest_exact3d", "_upsample_bicubic2d_aa",
                "grid_sampler_2d", "grid_sampler_3d", "affine_grid_generator"]


@pytest.mark.parametrize("entry", SECOND_ORDER)
def test_second_order_matches_torch(engine, entry):
    """Value, VJP and VJP-of-VJP against torch's on every coverage case (gradgradcheck with
    torch as the oracle: the entries are composites of differentiable ops)."""
    torch = pytest.importorskip("torch")
    from transgrad.coverage import TWINS, check_twin

    notes: list = []
    assert check_twin(entry, TWINS[entry], engine, torch, notes) is None
    assert "torch has no derivative (value only)" not in notes


@pytest.mark.parametrize("entry", ["multi_margin_loss", "multilabel_margin_loss_forward"])
def test_margin_entries_match_torch_to_first_order(engine, entry):
    """torch has no second derivative of the margin losses: value and VJP are the check."""
    torch = pytest.importorskip("torch")
    from transgrad.coverage import TWINS, check_twin

    assert check_twin(entry, TWINS[entry], engine, torch) is None
