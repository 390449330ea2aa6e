"""nn.Module and the layers: registration, traversal, state_dict, modes, layers vs torch."""

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib


def mlp(lib, dtype=None):
    nn = lib.nn
    dt = lib.tg.float64 if dtype is None else dtype
    return nn.Sequential(nn.Linear(4, 6, dtype=dt), nn.ReLU(), nn.Linear(6, 2, dtype=dt))


def make_net(lib):
    nn = lib.nn

    class TwoLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Linear(3, 5, dtype=lib.tg.float64)
            self.head = nn.Linear(5, 1, bias=False, dtype=lib.tg.float64)
            self.scale = 2.0  # a plain attribute, not registered

        def forward(self, x):
            return self.head(lib.F.tanh(self.body(x))) * self.scale

    return TwoLayer()


# -- registration and traversal ----------------------------------------------------------------


def test_parameters_are_registered_in_order(lib):
    net = make_net(lib)
    names = [n for n, _ in net.named_parameters()]
    assert names == ["body.weight", "body.bias", "head.weight"]
    assert [n for n, _ in net.named_children()] == ["body", "head"]
    assert len(list(net.modules())) == 3
    assert net.head.bias is None
    assert net.scale == 2.0 and "scale" not in dict(net.named_parameters())


def test_parameter_is_a_leaf_tensor_that_requires_grad(lib):
    tg, nn = lib.tg, lib.nn
    p = nn.Parameter(tg.tensor([1.0, 2.0], dtype=tg.float64))
    assert isinstance(p, tg.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    np.testing.assert_array_equal(to_numpy(p), [1.0, 2.0])
    frozen = nn.Parameter(tg.tensor([1.0]), requires_grad=False)
    assert not frozen.requires_grad


def test_layers_are_modules_of_their_engine(lib):
    nn = lib.nn
    lin = nn.Linear(2, 3)
    assert isinstance(lin, nn.Module) and isinstance(nn.Sequential(lin), nn.Module)
    assert isinstance(lin.weight, lib.tg.Tensor)


def test_plain_tensor_attribute_is_not_a_parameter_but_a_buffer_is(lib):
    tg, nn = lib.tg, lib.nn
    m = nn.Module()
    m.w = nn.Parameter(tg.ones(2))
    m.t = tg.ones(2)
    m.register_buffer("running", tg.zeros(3))
    assert [n for n, _ in m.named_parameters()] == ["w"]
    assert [n for n, _ in m.named_buffers()] == ["running"]
    assert list(m.state_dict()) == ["w", "running"]


def test_assignment_before_init_is_an_error(lib):
    nn = lib.nn

    class Bad(nn.Module):
        def __init__(self):
            self.lin = nn.Linear(1, 1)

    with pytest.raises(AttributeError, match="super"):
        Bad()


def test_shared_parameters_are_listed_once(lib):
    nn = lib.nn
    lin = nn.Linear(3, 3)
    seq = nn.Sequential(lin, nn.Tanh(), lin)
    assert len(list(seq.parameters())) == 2


def test_sequential_indexing_len_and_iteration(lib):
    nn = lib.nn
    seq = mlp(lib)
    assert len(seq) == 3 and isinstance(seq[1], nn.ReLU) and isinstance(seq[-1], nn.Linear)
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    assert len(seq[:2]) == 2


def test_repr_is_torch_like(lib):
    nn = lib.nn
    seq = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.1))
    assert repr(seq) == ("Sequential(\n"
                         "  (0): Linear(in_features=4, out_features=6, bias=True)\n"
                         "  (1): ReLU()\n"
                         "  (2): Dropout(p=0.1, inplace=False)\n"
                         ")")


# -- state_dict --------------------------------------------------------------------------------


def test_state_dict_round_trip(lib):
    tg = lib.tg
    a, b = mlp(lib), mlp(lib)
    x = tg.tensor(np.random.default_rng(0).normal(size=(5, 4)), dtype=tg.float64)
    sd = a.state_dict()
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    weight_before = b[0].weight
    result = b.load_state_dict(sd)
    assert list(result.missing_keys) == [] and list(result.unexpected_keys) == []
    np.testing.assert_array_equal(to_numpy(b(x)), to_numpy(a(x)))
    assert b[0].weight is weight_before  # loaded in place: the Parameter object stays
    assert b[0].weight.requires_grad and b[0].weight.is_leaf


def test_state_dict_values_are_detached(lib):
    sd = mlp(lib).state_dict()
    assert all(not t.requires_grad for t in sd.values())


def test_load_state_dict_from_numpy(lib):
    m = mlp(lib)
    sd = {k: np.full(tuple(t.shape), 0.5) for k, t in m.state_dict().items()}
    m.load_state_dict(sd)
    np.testing.assert_array_equal(to_numpy(m[2].bias), [0.5, 0.5])


def test_load_state_dict_errors(lib):
    # torch's RuntimeError and text (tests/nn/test_nn_module_api.py compares with torch itself)
    m = mlp(lib)
    sd = dict(m.state_dict())
    del sd["2.bias"]
    sd["extra"] = sd["0.bias"]
    with pytest.raises(RuntimeError, match=r'for Sequential:\n\tMissing key\(s\) in state_dict: '
                       r'"2.bias". \n\tUnexpected key\(s\) in state_dict: "extra". '):
        m.load_state_dict(sd)
    result = m.load_state_dict(sd, strict=False)
    assert list(result.missing_keys) == ["2.bias"] and list(result.unexpected_keys) == ["extra"]
    bad = dict(m.state_dict())
    bad["0.weight"] = np.zeros((2, 2))
    before = to_numpy(m[0].weight).copy()
    with pytest.raises(RuntimeError, match=r"size mismatch for 0.weight: copying a param with "
                       r"shape .*2, 2.* from checkpoint, the shape in current model is .*6, 4"):
        m.load_state_dict(bad, strict=False)
    np.testing.assert_array_equal(to_numpy(m[0].weight), before)  # nothing was loaded


# -- modes, grads, dtype -----------------------------------------------------------------------


def test_train_eval_propagate(lib):
    nn = lib.nn
    seq = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(0.5)))
    assert all(m.training for m in seq.modules())
    seq.eval()
    assert not any(m.training for m in seq.modules())
    seq.train()
    assert all(m.training for m in seq.modules())


def test_zero_grad(lib):
    tg = lib.tg
    m = mlp(lib)
    x = tg.tensor(np.ones((3, 4)), dtype=tg.float64)
    m(x).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())


def test_linear_init_bounds_and_default_dtype(lib):
    tg, nn = lib.tg, lib.nn
    tg.manual_seed(0)
    lin = nn.Linear(16, 8)
    w = to_numpy(lin.weight)
    assert w.shape == (8, 16) and lin.weight.dtype == tg.float32
    assert np.abs(w).max() <= 0.25 and np.abs(w).max() > 0.2  # U(-1/4, 1/4)
    assert to_numpy(lin.bias).shape == (8,)


def test_init_is_seeded(lib):
    tg, nn = lib.tg, lib.nn
    tg.manual_seed(3)
    a = to_numpy(nn.Linear(5, 5).weight).copy()
    tg.manual_seed(3)
    b = to_numpy(nn.Linear(5, 5).weight)
    np.testing.assert_array_equal(a, b)


def test_to_double(lib):
    tg = lib.tg
    m = mlp(lib, dtype=tg.float32).double()
    assert all(p.dtype == tg.float64 for p in m.parameters())
    assert all(p.requires_grad and p.is_leaf for p in m.parameters())


# -- layers ------------------------------------------------------------------------------------


def test_dropout(lib):
    tg, nn = lib.tg, lib.nn
    x = tg.ones(2000, dtype=tg.float64)
    drop = nn.Dropout(0.25)
    tg.manual_seed(1)
    y = to_numpy(drop(x)).copy()
    assert set(np.unique(y)) <= {0.0, 1.0 / 0.75}
    assert 0.2 < (y == 0).mean() < 0.3
    tg.manual_seed(1)
    np.testing.assert_array_equal(to_numpy(drop(x)), y)  # seeded by manual_seed
    drop.eval()
    np.testing.assert_array_equal(to_numpy(drop(x)), to_numpy(x))


def test_dropout_gradient_is_the_mask(lib):
    tg, nn = lib.tg, lib.nn
    x = tg.tensor(np.arange(1.0, 101.0), dtype=tg.float64, requires_grad=True)
    y = nn.Dropout(0.5)(x)
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), to_numpy(y) / to_numpy(x))


def test_embedding(lib):
    tg, nn = lib.tg, lib.nn
    emb = nn.Embedding(5, 3, dtype=tg.float64)
    idx = tg.tensor(np.array([[0, 4], [4, 2]]), dtype=tg.int64)
    out = emb(idx)
    w = to_numpy(emb.weight)
    assert tuple(out.shape) == (2, 2, 3)
    np.testing.assert_array_equal(to_numpy(out), w[[[0, 4], [4, 2]]])
    out.sum().backward()
    np.testing.assert_array_equal(to_numpy(emb.weight.grad)[:, 0], [1, 0, 1, 0, 2])


@pytest.mark.torch
def test_layer_norm_matches_torch(lib):
    torch = torch_lib().tg
    tg, nn = lib.tg, lib.nn
    rng = np.random.default_rng(0)
    x0, w0, b0 = rng.normal(size=(3, 2, 4)), rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    ln = nn.LayerNorm((2, 4), dtype=tg.float64)
    ln.load_state_dict({"weight": w0, "bias": b0})
    x = tg.tensor(x0, dtype=tg.float64, requires_grad=True)
    y = ln(x)
    (y * y).sum().backward()
    tln = torch.nn.LayerNorm((2, 4), dtype=torch.float64)
    tln.load_state_dict({"weight": torch.tensor(w0), "bias": torch.tensor(b0)})
    tx = torch.tensor(x0, requires_grad=True)
    ty = tln(tx)
    (ty * ty).sum().backward()
    np.testing.assert_allclose(to_numpy(y), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(x.grad), tx.grad.detach().numpy(), rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(to_numpy(ln.weight.grad), tln.weight.grad.detach().numpy(),
                               rtol=1e-9)
    np.testing.assert_allclose(to_numpy(ln.bias.grad), tln.bias.grad.detach().numpy(), rtol=1e-9)


def test_activation_modules(lib):
    tg, nn, F = lib.tg, lib.nn, lib.F
    x = tg.tensor(np.linspace(-3, 3, 9), dtype=tg.float64)
    pairs = [(nn.ReLU(), F.relu(x)), (nn.Tanh(), F.tanh(x)), (nn.Sigmoid(), F.sigmoid(x)),
             (nn.SiLU(), F.silu(x)), (nn.GELU("tanh"), F.gelu(x, approximate="tanh")),
             (nn.Softplus(2.0), F.softplus(x, 2.0)), (nn.ELU(0.5), F.elu(x, 0.5)),
             (nn.LeakyReLU(0.2), F.leaky_relu(x, 0.2)), (nn.Identity(), x)]
    for mod, expected in pairs:
        np.testing.assert_array_equal(to_numpy(mod(x)), to_numpy(expected), err_msg=repr(mod))


def test_parameters_of_another_engine_are_refused():
    from _nnhelpers import load_engine, nn_of

    ref, comp = nn_of(load_engine("reference")), nn_of(load_engine("compiled"))
    m = comp.nn.Module()
    with pytest.raises(TypeError, match="same engine"):
        m.w = ref.nn.Parameter(ref.tg.ones(2))


def test_deepcopy_copies_parameters(lib):
    import copy

    m = mlp(lib)
    m2 = copy.deepcopy(m)
    w, w2 = m[0].weight, m2[0].weight
    assert isinstance(w2, lib.nn.Parameter) and w2.requires_grad and w2.is_leaf
    np.testing.assert_array_equal(to_numpy(w2), to_numpy(w))
    assert not np.shares_memory(to_numpy(w2), to_numpy(w))
    assert [n for n, _ in m2.named_parameters()] == [n for n, _ in m.named_parameters()]


def test_bilinear_layer_is_torchs_from_the_same_seed(lib):
    torch = pytest.importorskip("torch")
    torch.manual_seed(11)
    lib.tg.manual_seed(11)
    theirs = torch.nn.Bilinear(3, 4, 5, dtype=torch.float64)
    ours = lib.nn.Bilinear(3, 4, 5, dtype=lib.tg.float64)
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(to_numpy(ours.weight), theirs.weight.detach().numpy())
    np.testing.assert_array_equal(to_numpy(ours.bias), theirs.bias.detach().numpy())
    x1, x2 = np.random.default_rng(2).standard_normal((2, 6, 3)), np.ones((6, 4)) * 0.5
    y = ours(lib.tg.tensor(x1[0]), lib.tg.tensor(x2))
    y.sum().backward()
    z = theirs(torch.tensor(x1[0]), torch.tensor(x2))
    z.sum().backward()
    np.testing.assert_allclose(to_numpy(y), z.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(to_numpy(ours.weight.grad), theirs.weight.grad.numpy(), atol=1e-12)
    assert lib.nn.Bilinear(3, 4, 5, bias=False).bias is None
