"""nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm, orthogonal) and
the older nn.utils.weight_norm/spectral_norm against torch on both engines: values, gradients,
state-dict keys, printed form, torch's power-iteration numbers after the same seed, removal,
caching, errors."""

import importlib
import warnings

import numpy as np
import pytest
from _nnhelpers import load_engine
from _torchcmp import raises_like

pytestmark = pytest.mark.torch


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "numpy") else t.detach())


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)


def _utils(lib):
    name = lib.tg.__name__ + ".nn.utils"
    return (importlib.import_module(name + ".parametrize"),
            importlib.import_module(name + ".parametrizations"))


def _pair(lib, torch, make, seed=0):
    """``make(nn)`` on torch and on the engine with torch's values (float64)."""
    torch.manual_seed(seed)
    theirs = make(torch.nn).double()
    ours = make(lib.nn).double()
    ours.load_state_dict({k: lib.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _grads_match(lib, torch, ours, theirs, shape, tol=1e-9):
    x = np.random.default_rng(5).standard_normal(shape)
    y_o, y_t = ours(lib.tg.tensor(x)), theirs(torch.tensor(x))
    _close(y_o, y_t, tol)
    (y_o ** 2).sum().backward()
    (y_t ** 2).sum().backward()
    named_t = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        _close(p.grad, named_t[name].grad, tol)


def _symmetric(nn):
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(0, 1)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric


def _scaled(nn):
    class Scale(nn.Module):
        def __init__(self):
            super().__init__()
            self.s = nn.Parameter(nn.Linear(1, 1).weight.new_ones(()) * 2.0)

        def forward(self, X):
            return X * self.s

    return Scale


def test_register_parametrization_as_torch(lib):
    torch = pytest.importorskip("torch")
    P, _ = _utils(lib)
    TP = torch.nn.utils.parametrize
    ours, theirs = _pair(lib, torch, lambda nn: nn.Linear(4, 4))
    for P_, m, nn in ((P, ours, lib.nn), (TP, theirs, torch.nn)):
        P_.register_parametrization(m, "weight", _symmetric(nn)())
        P_.register_parametrization(m, "weight", _scaled(nn)().double())
        assert P_.is_parametrized(m) and P_.is_parametrized(m, "weight")
        assert not P_.is_parametrized(m, "bias")
    assert str(ours) == str(theirs)
    assert type(ours).__name__ == "ParametrizedLinear"
    assert P.type_before_parametrizations(ours) is lib.nn.Linear
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        _close(ours.state_dict()[k], v)
    _close(ours.weight, theirs.weight)
    _grads_match(lib, torch, ours, theirs, (3, 4))
    # assignment runs right_inverse (the Scale has none: torch's error)
    with raises_like(lambda: setattr(theirs, "weight", torch.eye(4, dtype=torch.float64))):
        ours.weight = lib.tg.eye(4, dtype=lib.tg.float64)
    # cached: one computation per tensor inside the block
    calls = []
    ours.parametrizations.weight[0].register_forward_hook(lambda *a: calls.append(1))
    with P.cached():
        _ = ours.weight
        _ = ours.weight
    assert len(calls) == 1
    _ = ours.weight
    assert len(calls) == 2
    for P_, m in ((P, ours), (TP, theirs)):
        P_.remove_parametrizations(m, "weight", leave_parametrized=True)
    assert type(ours) is lib.nn.Linear and str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _close(ours.weight, theirs.weight)
    assert type(ours.weight) is lib.nn.Parameter


def test_parametrize_assignment_and_unparametrized_removal(lib):
    torch = pytest.importorskip("torch")
    P, _ = _utils(lib)
    TP = torch.nn.utils.parametrize
    ours, theirs = _pair(lib, torch, lambda nn: nn.Linear(3, 3))
    for P_, m, nn in ((P, ours, lib.nn), (TP, theirs, torch.nn)):
        P_.register_parametrization(m, "weight", _symmetric(nn)())
    a = np.random.default_rng(1).standard_normal((3, 3))
    a = a + a.T
    original = ours.parametrizations.weight.original
    ours.weight = lib.tg.tensor(a)
    theirs.weight = torch.tensor(a)
    assert ours.parametrizations.weight.original is original  # written in place
    _close(ours.parametrizations.weight.original, theirs.parametrizations.weight.original)
    _close(ours.weight, theirs.weight)
    for P_, m in ((P, ours), (TP, theirs)):
        P_.remove_parametrizations(m, "weight", leave_parametrized=False)
    _close(ours.weight, theirs.weight)
    assert ours.weight is original


def test_parametrize_errors_are_torchs(lib):
    torch = pytest.importorskip("torch")
    P, _ = _utils(lib)
    TP = torch.nn.utils.parametrize

    def shrink(nn):
        class Shrink(nn.Module):
            def forward(self, X):
                return X[:1]
        return Shrink()

    with raises_like(lambda: TP.register_parametrization(torch.nn.Linear(2, 2), "weight",
                                                         shrink(torch.nn))):
        P.register_parametrization(lib.nn.Linear(2, 2), "weight", shrink(lib.nn))
    with raises_like(lambda: TP.register_parametrization(torch.nn.Linear(2, 2), "nope",
                                                         shrink(torch.nn))):
        P.register_parametrization(lib.nn.Linear(2, 2), "nope", shrink(lib.nn))
    with raises_like(lambda: TP.remove_parametrizations(torch.nn.Linear(2, 2), "weight")):
        P.remove_parametrizations(lib.nn.Linear(2, 2), "weight")
    ours = P.register_parametrization(lib.nn.Linear(2, 2), "weight", shrink(lib.nn),
                                      unsafe=True)
    assert tuple(ours.weight.shape) == (1, 2)
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only "
                                           "supported through state_dict()"):
        ours.__getstate__()


@pytest.mark.parametrize("make,shape,dim", [
    (lambda nn: nn.Linear(5, 4), (3, 5), 0),
    (lambda nn: nn.Conv1d(2, 3, 3), (2, 2, 6), 0),
    (lambda nn: nn.Conv2d(2, 3, 2), (1, 2, 4, 4), None),
    (lambda nn: nn.ConvTranspose1d(3, 2, 3), (2, 3, 4), 1),
])
def test_weight_norm_parametrization_as_torch(lib, make, shape, dim):
    torch = pytest.importorskip("torch")
    _, PZ = _utils(lib)
    ours, theirs = _pair(lib, torch, make)
    PZ.weight_norm(ours, dim=dim)
    torch.nn.utils.parametrizations.weight_norm(theirs, dim=dim)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        _close(ours.state_dict()[k], v)
    _grads_match(lib, torch, ours, theirs, shape)


def test_weight_norm_loads_the_older_keys(lib):
    torch = pytest.importorskip("torch")
    _, PZ = _utils(lib)
    old, theirs = _pair(lib, torch, lambda nn: nn.Linear(3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        lib.nn.utils.weight_norm(old)
        torch.nn.utils.weight_norm(theirs)
    assert list(old.state_dict()) == list(theirs.state_dict()) == ["bias", "weight_g",
                                                                    "weight_v"]
    new = PZ.weight_norm(lib.nn.Linear(3, 2).double())
    new.load_state_dict(old.state_dict())
    _close(new.weight, theirs.weight)


@pytest.mark.parametrize("make,shape,kwargs", [
    (lambda nn: nn.Linear(5, 4), (3, 5), {}),
    (lambda nn: nn.Conv2d(2, 3, 2), (1, 2, 4, 4), {"n_power_iterations": 3}),
    (lambda nn: nn.ConvTranspose2d(3, 2, 2), (1, 3, 3, 3), {}),
    (lambda nn: nn.Linear(3, 6), (2, 3), {"eps": 1e-6, "dim": 1}),
])
def test_spectral_norm_parametrization_follows_torchs_numbers(lib, make, shape, kwargs):
    torch = pytest.importorskip("torch")
    _, PZ = _utils(lib)
    ours, theirs = _pair(lib, torch, make)
    torch.manual_seed(3)
    lib.tg.manual_seed(3)
    PZ.spectral_norm(ours, **kwargs)
    torch.nn.utils.parametrizations.spectral_norm(theirs, **kwargs)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for step in range(3):  # each training-mode access runs the power iteration on both
        for k, v in theirs.state_dict().items():
            _close(ours.state_dict()[k], v, 1e-9)
        if step < 2:
            _grads_match(lib, torch, ours, theirs, shape)
            ours.zero_grad()
            theirs.zero_grad()
    ours.eval()
    theirs.eval()
    _close(ours.weight, theirs.weight, 1e-9)
    u = _np(ours.parametrizations.weight[0]._u).copy()
    _ = ours.weight
    np.testing.assert_array_equal(_np(ours.parametrizations.weight[0]._u), u)  # eval: no step


@pytest.mark.parametrize("shape,orthogonal_map,trivial", [
    ((4, 4), None, True),
    ((5, 3), None, True),
    ((3, 5), None, True),
    ((4, 4), "cayley", True),
    ((5, 3), "cayley", True),
    ((3, 5), "matrix_exp", True),
    ((4, 4), "matrix_exp", False),
    ((3, 3), "householder", True),
    ((5, 3), "householder", False),
    ((3, 5), "householder", False),
])
def test_orthogonal_parametrization_as_torch(lib, shape, orthogonal_map, trivial):
    torch = pytest.importorskip("torch")
    _, PZ = _utils(lib)
    ours, theirs = _pair(lib, torch, lambda nn: nn.Linear(shape[1], shape[0]))
    torch.manual_seed(4)
    lib.tg.manual_seed(4)
    PZ.orthogonal(ours, orthogonal_map=orthogonal_map, use_trivialization=trivial)
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map,
                                                use_trivialization=trivial)
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        _close(ours.state_dict()[k], v, 1e-9)
    W = _np(ours.weight)
    small = min(shape)
    gram = W @ W.T if shape[0] < shape[1] else W.T @ W
    np.testing.assert_allclose(gram, np.eye(small), atol=1e-9)
    # move off the initial point, so the map's derivative is taken away from zero
    with torch.no_grad():
        theirs.parametrizations.weight.original.mul_(0.0).add_(
            torch.tensor(np.random.default_rng(6).standard_normal(shape)) * 0.3)
    ours.parametrizations.weight.original.data = lib.tg.tensor(
        _np(theirs.parametrizations.weight.original))
    _grads_match(lib, torch, ours, theirs, (2, shape[1]), 1e-8)


def test_orthogonal_errors_are_torchs(lib):
    torch = pytest.importorskip("torch")
    _, PZ = _utils(lib)
    TPZ = torch.nn.utils.parametrizations
    with raises_like(lambda: TPZ.orthogonal(torch.nn.Linear(2, 2), orthogonal_map="qr")):
        PZ.orthogonal(lib.nn.Linear(2, 2), orthogonal_map="qr")
    with raises_like(lambda: TPZ.orthogonal(torch.nn.Linear(2, 2), "bias")):
        PZ.orthogonal(lib.nn.Linear(2, 2), "bias")
    with raises_like(lambda: TPZ.spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0)):
        PZ.spectral_norm(lib.nn.Linear(2, 2), n_power_iterations=0)


def test_older_weight_norm_as_torch(lib):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(lib, torch, lambda nn: nn.Conv1d(2, 4, 3))
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated"):
        lib.nn.utils.weight_norm(ours, dim=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(theirs, dim=None)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for k, v in theirs.state_dict().items():
        _close(ours.state_dict()[k], v)
    _grads_match(lib, torch, ours, theirs, (2, 2, 5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        with raises_like(lambda: torch.nn.utils.weight_norm(theirs)):
            lib.nn.utils.weight_norm(ours)
    lib.nn.utils.remove_weight_norm(ours)
    torch.nn.utils.remove_weight_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert type(ours.weight) is lib.nn.Parameter
    _close(ours.weight, theirs.weight)
    with raises_like(lambda: torch.nn.utils.remove_weight_norm(theirs)):
        lib.nn.utils.remove_weight_norm(ours)


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.Linear(4, 3), (2, 4)),
    (lambda nn: nn.ConvTranspose1d(2, 3, 2), (1, 2, 5)),
])
def test_older_spectral_norm_follows_torchs_numbers(lib, make, shape):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(lib, torch, make)
    torch.manual_seed(8)
    lib.tg.manual_seed(8)
    lib.nn.utils.spectral_norm(ours, n_power_iterations=2)
    torch.nn.utils.spectral_norm(theirs, n_power_iterations=2)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for _ in range(2):
        _grads_match(lib, torch, ours, theirs, shape)
        for k, v in theirs.state_dict().items():
            _close(ours.state_dict()[k], v, 1e-9)
    ours.eval()
    theirs.eval()
    _grads_match(lib, torch, ours, theirs, shape)
    lib.nn.utils.remove_spectral_norm(ours)
    torch.nn.utils.remove_spectral_norm(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _close(ours.weight, theirs.weight, 1e-9)


@pytest.mark.parametrize("path,names", [
    ("nn.utils.parametrize", ["ParametrizationList"]),
    ("nn.utils.parametrizations", ["_WeightNorm", "_SpectralNorm", "_Orthogonal"]),
    ("optim.swa_utils", ["AveragedModel"]),
    ("nn.utils", []),
    ("nn.utils.weight_norm", []),
    ("nn.utils.spectral_norm", []),
    ("nn.modules.lazy", []),
    ("nn.modules.module", []),
])
def test_utility_modules_are_bound_per_engine(path, names):
    """The Modules that nn.utils and optim.swa_utils make are bound like the layers."""
    load_engine("compiled")
    ref = importlib.import_module("transgrad.reference." + path)
    comp = importlib.import_module("transgrad." + path)
    assert getattr(ref, "__all__", None) == getattr(comp, "__all__", None)
    hooks = {n for n in dir(comp) if n.startswith("register_module_")}
    assert hooks == {n for n in dir(ref) if n.startswith("register_module_")}
    assert len(hooks) == (7 if path == "nn.modules.module" else 0)
    for name in names:
        r, c = getattr(ref, name), getattr(comp, name)
        assert r is not c and r.__bases__[0] is c.__bases__[0]
        assert r._engine == "transgrad.reference" and c._engine == "transgrad"
