"""BatchNorm3d, SyncBatchNorm (one process) with convert_sync_batchnorm, and the lazy modules
(LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose*) against torch on both engines: values,
gradients, state-dict keys and shapes, printed form, torch's numbers after the same seed,
errors."""

import copy
import importlib

import numpy as np
import pytest
from _torchcmp import raises_like, run_both

pytestmark = pytest.mark.torch
rng = np.random.default_rng(11)


def _x(*shape):
    return rng.standard_normal(shape) * 1.5 + 0.3


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "numpy") else t.detach())


def _randomise(torch, m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.uniform(0.5, 1.5, tuple(p.shape))))
    return m


@pytest.mark.parametrize("name,args,shape", [
    ("BatchNorm3d", (3,), (2, 3, 2, 3, 2)),
    ("BatchNorm3d", (2, 1e-3, None), (3, 2, 2, 2, 2)),
    ("SyncBatchNorm", (3,), (4, 3)),
    ("SyncBatchNorm", (3,), (2, 3, 5)),
    ("SyncBatchNorm", (2, 1e-5, 0.3, True, True), (2, 2, 3, 2, 2)),
])
def test_batch_norms_match_torch(lib, name, args, shape):
    torch = pytest.importorskip("torch")
    ours = getattr(lib.nn, name)(*args).double()
    theirs = _randomise(torch, getattr(torch.nn, name)(*args).double())
    x = _x(*shape)
    for _ in range(2):  # two training steps: running statistics and num_batches_tracked move
        run_both(lib, torch, lambda: ours, lambda: theirs, [x], module=True)
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(_np(ours.state_dict()[key]), value.numpy(), rtol=1e-7)
    ours.eval()
    theirs.eval()
    run_both(lib, torch, lambda: ours, lambda: theirs, [x], module=True)


def test_batch_norm_errors_are_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.BatchNorm3d(2)(torch.zeros(2, 2, 3, 3))):
        lib.nn.BatchNorm3d(2)(lib.tg.zeros(2, 2, 3, 3))
    with raises_like(lambda: torch.nn.SyncBatchNorm(2)(torch.zeros(2))):
        lib.nn.SyncBatchNorm(2)(lib.tg.zeros(2))
    with raises_like(lambda: torch.nn.SyncBatchNorm(0)(torch.zeros(2, 0))):
        lib.nn.SyncBatchNorm(0)(lib.tg.zeros(2, 0))


def _net(nn):
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(),
                         nn.Sequential(nn.BatchNorm2d(3, affine=False), nn.InstanceNorm2d(3)),
                         nn.Flatten(), nn.BatchNorm1d(12, momentum=None))


def test_convert_sync_batchnorm_matches_torch(lib):
    torch = pytest.importorskip("torch")
    ours, theirs = _net(lib.nn), _net(torch.nn)
    ours.eval()
    theirs.eval()
    weight = ours[1].weight
    conv_o = lib.nn.SyncBatchNorm.convert_sync_batchnorm(ours)
    conv_t = torch.nn.SyncBatchNorm.convert_sync_batchnorm(theirs)
    assert conv_o is ours
    assert str(conv_o) == str(conv_t)
    assert [type(m).__name__ for m in conv_o.modules()] == [
        type(m).__name__ for m in conv_t.modules()]
    assert isinstance(conv_o[1], lib.nn.SyncBatchNorm) and conv_o[1].weight is weight
    assert not conv_o[1].training and conv_o[3][1].__class__ is lib.nn.InstanceNorm2d
    assert list(conv_o.state_dict()) == list(conv_t.state_dict())
    single = lib.nn.SyncBatchNorm.convert_sync_batchnorm(lib.nn.BatchNorm1d(4))
    assert type(single) is lib.nn.SyncBatchNorm
    assert str(single) == str(torch.nn.SyncBatchNorm.convert_sync_batchnorm(
        torch.nn.BatchNorm1d(4)))


def test_sync_batchnorm_keeps_torchs_signature(lib):
    torch = pytest.importorskip("torch")
    ours = lib.nn.SyncBatchNorm(4, 1e-3, 0.2, False, False, None, "cpu", lib.tg.float64)
    theirs = torch.nn.SyncBatchNorm(4, 1e-3, 0.2, False, False, None, "cpu", torch.float64)
    assert str(ours) == str(theirs)
    assert ours.process_group is None
    assert str(lib.nn.BatchNorm3d(3, bias=False)) == str(torch.nn.BatchNorm3d(3, bias=False))


# -- lazy modules ------------------------------------------------------------------------------

LAZY = [
    ("LazyLinear", (4,), {}, (3, 5)),
    ("LazyLinear", (2,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 7)),
    ("LazyConv1d", (2, 2), {}, (3, 5)),
    ("LazyConv2d", (4, 3), {"stride": 2, "groups": 2}, (2, 4, 7, 6)),
    ("LazyConv3d", (2, 2), {"bias": False}, (1, 3, 3, 4, 3)),
    ("LazyConvTranspose1d", (3, 2), {"stride": 2}, (2, 4, 5)),
    ("LazyConvTranspose2d", (2, 3), {"output_padding": 1, "stride": 2}, (2, 3, 4, 4)),
    ("LazyConvTranspose3d", (2, 2), {}, (1, 2, 3, 3, 2)),
]


@pytest.mark.parametrize("name,args,kwargs,shape", LAZY, ids=[n + str(a) for n, a, _, _ in LAZY])
def test_lazy_module_materialises_as_torch(lib, name, args, kwargs, shape):
    torch = pytest.importorskip("torch")
    ours = getattr(lib.nn, name)(*args, **kwargs)
    theirs = getattr(torch.nn, name)(*args, **kwargs)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert isinstance(ours.weight, lib.nn.UninitializedParameter)
    assert repr(ours.weight) == repr(theirs.weight) == "<UninitializedParameter>"
    assert ours.has_uninitialized_params()
    x = _x(*shape).astype(np.float32)
    lib.tg.manual_seed(7)
    torch.manual_seed(7)
    y_o = ours(lib.tg.tensor(x))
    y_t = theirs(torch.tensor(x))
    eager = name[4:]
    assert type(ours) is getattr(lib.nn, eager) and type(theirs) is getattr(torch.nn, eager)
    assert str(ours) == str(theirs)
    assert type(ours.weight) is lib.nn.Parameter
    for key, value in theirs.state_dict().items():  # torch's draws for torch's seed
        assert tuple(ours.state_dict()[key].shape) == tuple(value.shape)
        np.testing.assert_allclose(_np(ours.state_dict()[key]), value.numpy(), rtol=1e-6)
    np.testing.assert_allclose(_np(y_o), y_t.detach().numpy(), rtol=1e-5, atol=1e-6)
    y_o.sum().backward()
    y_t.sum().backward()
    np.testing.assert_allclose(_np(ours.weight.grad), theirs.weight.grad.numpy(), rtol=1e-5,
                               atol=1e-5)


def test_lazy_module_loads_a_state_dict_and_shape_errors(lib):
    torch = pytest.importorskip("torch")
    full = lib.nn.Linear(3, 2)
    lazy = lib.nn.Sequential(lib.nn.LazyLinear(2))
    result = lazy.load_state_dict({"0." + k: v for k, v in full.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    assert tuple(lazy[0].weight.shape) == (2, 3)
    np.testing.assert_array_equal(_np(lazy[0].weight), _np(full.weight))
    assert type(lazy[0]) is lib.nn.LazyLinear  # still lazy until called, as torch
    lazy(lib.tg.ones(1, 3))
    assert type(lazy[0]) is lib.nn.Linear
    p = lib.nn.UninitializedParameter()
    with raises_like(lambda: torch.nn.UninitializedParameter().shape):
        _ = p.shape
    with raises_like(lambda: torch.nn.LazyLinear(2).share_memory()):
        lib.nn.LazyLinear(2).share_memory()
    with raises_like(lambda: torch.nn.LazyConv2d(2, 3)(torch.ones(3, 3))):
        lib.nn.LazyConv2d(2, 3)(lib.tg.ones(3, 3))
    mixin = importlib.import_module(lib.tg.__name__ + ".nn.modules.lazy").LazyModuleMixin
    assert isinstance(lib.nn.LazyConv1d(2, 2), mixin)
    assert mixin.__name__ == torch.nn.modules.lazy.LazyModuleMixin.__name__
    copied = copy.deepcopy(lib.nn.LazyLinear(3))
    assert isinstance(copied.weight, lib.nn.UninitializedParameter)
    assert tuple(copied(lib.tg.ones(2, 4)).shape) == (2, 3) and copied.in_features == 4


def test_lazy_linear_trains_on_both_engines(lib):
    pytest.importorskip("torch")
    lib.tg.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.LazyLinear(8), lib.nn.Tanh(), lib.nn.LazyLinear(1))
    x = lib.tg.randn(16, 3)
    y = x.sum(1, keepdim=True)
    model(x)  # the dry run, then an optimizer over the materialised parameters
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]
