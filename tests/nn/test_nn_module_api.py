"""The Module API (issue #13 item 8) on both engines, against torch where it is installed:
containers, buffers, registration errors, traversal, hooks, modes, state dicts, nn.init and
nn.utils. torch's numbers are not ours (different generators), so values are compared where
they are deterministic and distributions by their defining bounds/moments."""

import math

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib


def _make(lib):
    """The same small model from a namespace (ours or torch's): nested containers, a module
    shared under two names, a persistent and a non-persistent buffer."""
    tg, nn = lib.tg, lib.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.ModuleList([nn.Linear(2, 3), nn.ReLU()])
            self.heads = nn.ModuleDict({"a": nn.Linear(3, 1), "b": nn.Linear(3, 2)})
            self.extra = nn.ParameterList([nn.Parameter(tg.ones(3))])
            self.register_buffer("count", tg.ones(1))
            self.register_buffer("scratch", tg.ones(2), persistent=False)
            self.shared = self.heads["a"]

        def forward(self, x):
            for m in self.body:
                x = m(x)
            return self.heads["a"](x) + self.extra[0].sum()

    return Net()


def _both(lib):
    return _make(lib), _make(torch_lib())


def test_traversal_names_match_torch(lib):
    ours, theirs = _both(lib)
    for f in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [n for n, _ in getattr(ours, f)()] == [n for n, _ in getattr(theirs, f)()], f
    for kw in ({"prefix": "p"}, {"recurse": False}, {"remove_duplicate": False}):
        for f in ("named_parameters", "named_buffers"):
            assert ([n for n, _ in getattr(ours, f)(**kw)]
                    == [n for n, _ in getattr(theirs, f)(**kw)]), (f, kw)
    assert ([n for n, _ in ours.named_modules(prefix="m", remove_duplicate=False)]
            == [n for n, _ in theirs.named_modules(prefix="m", remove_duplicate=False)])
    assert len(list(ours.children())) == len(list(theirs.children()))
    assert list(ours.state_dict()) == list(theirs.state_dict())  # scratch: not persistent
    assert "scratch" in dict(ours.named_buffers())


def test_containers_match_torch(lib):
    t = torch_lib()
    for L in (lib, t):
        L.ml = L.nn.ModuleList([L.nn.ReLU(), L.nn.Tanh()])
        L.ml.insert(1, L.nn.Sigmoid())
        L.ml[-1] = L.nn.Identity()
        del L.ml[0]
        L.ml += [L.nn.ELU()]
        L.md = L.nn.ModuleDict([("x", L.nn.ReLU())])
        L.md.update({"y": L.nn.Tanh()})
        L.md.pop("x")
        L.pl = L.nn.ParameterList([L.tg.ones(2), L.tg.zeros(3)])
        L.pd = L.nn.ParameterDict({"w": L.tg.ones(2)})
        L.pd["v"] = L.tg.zeros(1)
    assert repr(lib.ml) == repr(t.ml) and repr(lib.md) == repr(t.md)
    assert list(lib.md.keys()) == list(t.md.keys()) and list(lib.pd) == list(t.pd)
    assert all(isinstance(p, lib.nn.Parameter) for p in lib.pl)
    assert [n for n, _ in lib.pl.named_parameters()] == [n for n, _ in t.pl.named_parameters()]
    assert [n for n, _ in lib.pd.named_parameters()] == [n for n, _ in t.pd.named_parameters()]
    assert repr(lib.pl).replace("torch.", "") == repr(t.pl).replace("torch.", "")
    for bad in (lambda L: L.ml[5], lambda L: L.pl[2]):
        with pytest.raises(IndexError) as ours:
            bad(lib)
        with pytest.raises(IndexError) as theirs:
            bad(t)
        assert str(ours.value) == str(theirs.value)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the point is to compare what is raised
        return type(e), str(e)
    return None


def test_registration_errors_match_torch(lib):
    t = torch_lib()
    cases = [
        lambda L: L.nn.Linear(2, 2).register_buffer("a.b", None),
        lambda L: L.nn.Linear(2, 2).register_buffer("", None),
        lambda L: L.nn.Linear(2, 2).register_buffer("weight", L.tg.ones(1)),
        lambda L: L.nn.Linear(2, 2).register_parameter("w2", L.tg.ones(1)),
        lambda L: L.nn.Linear(2, 2).register_buffer("b2", 3),
        lambda L: L.nn.Linear(2, 2).train("yes"),
        lambda L: setattr(L.nn.Linear(2, 2), "weight", L.tg.ones(1)),
    ]
    for case in cases:
        ours, theirs = _err(lambda c=case: c(lib)), _err(lambda c=case: c(t))
        assert theirs is not None and ours is not None
        assert ours[0] is theirs[0], (ours, theirs)
        # torch names a tensor's type "torch.FloatTensor", ours "Tensor": the rest is the same
        assert ours[1] == theirs[1].replace("torch.FloatTensor", "Tensor"), (ours, theirs)


def test_forward_hooks_match_torch(lib):
    t = torch_lib()
    logs = {}
    for L in (lib, t):
        log = logs[L.nn.__name__] = []
        m = L.nn.Identity()
        h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        m.register_forward_pre_hook(
            lambda mod, args, kw, log=log: log.append(("pre-kw", sorted(kw))), with_kwargs=True)
        m.register_forward_hook(lambda mod, args, out: out + 1)
        m.register_forward_hook(lambda mod, args, out, log=log: log.append("first"), prepend=True)
        m.register_forward_hook(
            lambda mod, args, kw, out, log=log: log.append(("kw", float(out.sum()))),
            with_kwargs=True)
        log.append(float(m(L.tg.ones(2)).sum()))
        h1.remove()
        log.append(float(m(L.tg.ones(2)).sum()))
        m2 = L.nn.Identity()
        m2.register_forward_pre_hook(lambda mod, a, k: 3, with_kwargs=True)
        log.append(_err(lambda m2=m2: m2(1)))
    assert logs[lib.nn.__name__] == logs["torch.nn"]


def test_modes_grads_apply(lib):
    ours, theirs = _both(lib)
    for m in (ours, theirs):
        m.eval()
        assert not any(x.training for x in m.modules())
        m.train()
        assert all(x.training for x in m.modules())
    x = lib.tg.ones(4, 2)
    ours(x).sum().backward()
    used = [p for p in ours.parameters() if p.grad is not None]
    assert len(used) == 5  # body.0, heads.a (weight, bias) and extra.0; heads.b unused
    ours.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not to_numpy(p.grad).any() for p in used)
    ours.zero_grad()
    assert all(p.grad is None for p in ours.parameters())
    ours.requires_grad_(False)
    assert not any(p.requires_grad for p in ours.parameters())
    seen = []
    ours.apply(lambda m: seen.append(type(m).__name__))
    theirs.apply(lambda m: seen.append(type(m).__name__))
    assert seen[:len(seen) // 2] == seen[len(seen) // 2:]


def test_load_state_dict_matches_torch(lib):
    t = torch_lib()
    a, b = lib.nn.Linear(3, 4), t.nn.Linear(3, 4)
    assert repr(a.load_state_dict(a.state_dict())) == repr(b.load_state_dict(b.state_dict()))
    ra = a.load_state_dict({"weight": lib.tg.zeros(4, 3)}, strict=False)
    rb = b.load_state_dict({"weight": t.tg.zeros(4, 3)}, strict=False)
    assert repr(ra) == repr(rb) and ra.missing_keys == ["bias"]
    np.testing.assert_array_equal(to_numpy(a.weight), np.zeros((4, 3)))
    e1 = _err(lambda: a.load_state_dict({"weight": lib.tg.zeros(4, 3), "foo": lib.tg.ones(1)}))
    e2 = _err(lambda: b.load_state_dict({"weight": t.tg.zeros(4, 3), "foo": t.tg.ones(1)}))
    assert e1 == e2
    e1 = _err(lambda: a.load_state_dict({"weight": lib.tg.zeros(4, 2)}, strict=False))
    e2 = _err(lambda: b.load_state_dict({"weight": t.tg.zeros(4, 2)}, strict=False))
    assert e1[0] is e2[0] is RuntimeError
    assert e1[1].split("shape")[0] == e2[1].split("shape")[0]


def test_init_matches_torch_definitions(lib):
    t = torch_lib()
    nn_i, ti = lib.nn.init, t.nn.init
    for args in (("linear",), ("tanh",), ("relu",), ("leaky_relu",), ("leaky_relu", 0.2),
                 ("selu",), ("conv2d",), ("sigmoid",)):
        assert nn_i.calculate_gain(*args) == ti.calculate_gain(*args)
    for bad in (lambda I, T: I.calculate_gain("foo"),
                lambda I, T: I.xavier_uniform_(T.zeros(3)),
                lambda I, T: I.orthogonal_(T.zeros(3)),
                lambda I, T: I.kaiming_uniform_(T.zeros(3, 3), mode="x")):
        expected = _err(lambda bad=bad: bad(ti, t.tg))
        assert expected is not None and _err(lambda bad=bad: bad(nn_i, lib.tg)) == expected
    lib.tg.manual_seed(0)
    w = lib.tg.zeros(200, 300)
    for fn, ok in [
        (lambda: nn_i.uniform_(w, -0.5, 0.25), lambda a: a.min() >= -0.5 and a.max() <= 0.25),
        (lambda: nn_i.normal_(w, 1.0, 0.5), lambda a: abs(a.mean() - 1) < 0.01
         and abs(a.std() - 0.5) < 0.01),
        (lambda: nn_i.trunc_normal_(w, 0.0, 1.0, -1.0, 0.5),
         lambda a: a.min() >= -1.0 and a.max() <= 0.5 and a.min() < -0.99),
        (lambda: nn_i.constant_(w, 0.3), lambda a: (a == np.float32(0.3)).all()),
        (lambda: nn_i.ones_(w), lambda a: (a == 1).all()),
        (lambda: nn_i.zeros_(w), lambda a: (a == 0).all()),
        (lambda: nn_i.xavier_uniform_(w, gain=2.0),
         lambda a: 0.9 * 2 * math.sqrt(6 / 500) < abs(a).max() <= 2 * math.sqrt(6 / 500)),
        (lambda: nn_i.xavier_normal_(w), lambda a: abs(a.std() - math.sqrt(2 / 500)) < 2e-3),
        (lambda: nn_i.kaiming_uniform_(w, a=math.sqrt(5)),
         lambda a: abs(a).max() <= 1 / math.sqrt(300) + 1e-7),
        (lambda: nn_i.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"),
         lambda a: abs(a.std() - math.sqrt(2 / 200)) < 2e-3),
    ]:
        out = fn()
        assert out is w
        assert ok(to_numpy(w).astype(np.float64))
    q = lib.tg.zeros(3, 5)
    nn_i.orthogonal_(q, gain=2.0)
    np.testing.assert_allclose(to_numpy(q) @ to_numpy(q).T, 4 * np.eye(3), atol=1e-5)
    p = lib.nn.Linear(2, 2).weight
    nn_i.zeros_(p)
    assert p.requires_grad and p.is_leaf and not to_numpy(p).any()


def test_parameters_to_vector_round_trip(lib):
    t = torch_lib()
    ours, theirs = lib.nn.Linear(3, 2), t.nn.Linear(3, 2)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    vo = lib.nn.utils.parameters_to_vector(ours.parameters())
    vt = t.nn.utils.parameters_to_vector(theirs.parameters())
    np.testing.assert_allclose(to_numpy(vo), to_numpy(vt))
    vo.sum().backward()  # differentiable, as torch's
    assert all(p.grad is not None for p in ours.parameters())
    lib.nn.utils.vector_to_parameters(vo * 2, ours.parameters())
    t.nn.utils.vector_to_parameters(vt * 2, theirs.parameters())
    for (n, a), (_, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(to_numpy(a), to_numpy(b), err_msg=n)
    with pytest.raises(ValueError):
        lib.nn.utils.vector_to_parameters(vo[:3], ours.parameters())


def test_torch_module_paths_exist(lib):
    import importlib

    base = lib.tg.__name__
    assert importlib.import_module(base + ".nn.parameter").Parameter is lib.nn.Parameter
    assert importlib.import_module(base + ".nn.modules.module").Module is lib.nn.Module
    assert importlib.import_module(base + ".nn.init").xavier_uniform_ is lib.nn.init.xavier_uniform_


def _every_layer(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 8, bias=False),
        nn.LayerNorm(8), nn.LayerNorm(8, elementwise_affine=False), nn.GELU("tanh"),
        nn.Dropout(0.1), nn.Embedding(5, 2), nn.Softmax(1), nn.LogSoftmax(dim=1), nn.ELU(),
        nn.LeakyReLU(0.2), nn.Softplus(), nn.Conv1d(2, 3, 2, stride=2, bias=False),
        nn.BatchNorm1d(3, affine=False), nn.CrossEntropyLoss(), nn.MSELoss(), nn.Identity(),
        nn.ModuleList([nn.Tanh()]), nn.ModuleDict({"s": nn.SiLU()}), nn.Sigmoid(),
        nn.NLLLoss(), nn.BCEWithLogitsLoss())


def test_printed_tree_matches_torch(lib):
    t = torch_lib()
    assert repr(_every_layer(lib.nn)) == repr(_every_layer(t.nn))

    class Block(lib.nn.Module):  # a user's extra_repr, as torch prints it
        def __init__(self):
            super().__init__()
            self.inner = lib.nn.Linear(1, 1)

        def extra_repr(self):
            return "width=1\nsecond line"

    assert repr(Block()) == ("Block(\n  width=1\n  second line\n  (inner): Linear(in_features=1, "
                             "out_features=1, bias=True)\n)")


def test_always_call_hook_runs_when_forward_raises(lib):
    t = torch_lib()
    logs = []
    for L in (lib, t):
        log = []

        class Boom(L.nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Boom()
        m.register_forward_hook(lambda mod, args, out, log=log: log.append(("always", out)),
                                always_call=True)
        m.register_forward_hook(lambda mod, args, out, log=log: log.append("not run"))
        log.append(_err(lambda m=m: m(1)))
        logs.append(log)
    assert logs[0] == logs[1]


def test_incompatible_keys_at_torch_path(lib):
    import importlib

    mod = importlib.import_module(lib.tg.__name__ + ".nn.modules.module")
    result = lib.nn.Linear(2, 2).load_state_dict({}, strict=False)
    assert isinstance(result, mod._IncompatibleKeys)
    assert result == (["weight", "bias"], []) and result.missing_keys == ["weight", "bias"]


def test_get_submodule_parameter_buffer_match_torch(lib):
    ours, theirs = _both(lib)
    assert ours.get_submodule("") is ours
    assert ours.get_submodule("heads.b") is ours.heads["b"]
    assert ours.get_parameter("body.0.bias") is ours.body[0].bias
    assert ours.get_buffer("scratch") is ours.scratch
    for call in (lambda m: m.get_submodule("heads.c"), lambda m: m.get_submodule("count.x"),
                 lambda m: m.get_parameter("body.0.nope"), lambda m: m.get_parameter("count"),
                 lambda m: m.get_buffer("body.0.weight"), lambda m: m.get_buffer("nope")):
        expected = _err(lambda call=call: call(theirs))
        assert expected is not None and _err(lambda call=call: call(ours)) == expected


def test_pickled_model_keeps_parameters(lib):
    import pickle

    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
    m2 = pickle.loads(pickle.dumps(m))
    assert type(m2[0].weight) is lib.nn.Parameter and m2[0].weight.requires_grad
    frozen = lib.nn.Parameter(lib.tg.ones(2), requires_grad=False)
    assert not pickle.loads(pickle.dumps(frozen)).requires_grad
    for (n, a), (_, b) in zip(m.state_dict().items(), m2.state_dict().items()):
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b), err_msg=n)
    assert list(m2.state_dict()) == list(m.state_dict())


@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 4), (2, 3, 2, 2)])
def test_softmax_implicit_dim_as_torch(lib, shape):
    t = torch_lib()
    x = np.random.default_rng(1).normal(size=shape)
    for name in ("Softmax", "LogSoftmax"):
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            ours = getattr(lib.nn, name)()(lib.tg.tensor(x))
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            theirs = getattr(t.nn, name)()(t.tg.tensor(x))
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=1e-12, err_msg=name)
    assert repr(lib.nn.Softmax()) == repr(t.nn.Softmax()) == "Softmax(dim=None)"
    out = lib.F.softmax(lib.tg.tensor(x, dtype=lib.tg.float32), -1, dtype=lib.tg.float64)
    assert out.dtype == lib.tg.float64


@pytest.mark.parametrize("shape,kwargs", [((3, 5), {}), ((4, 2), {}), ((4, 2, 3), {}),
                                          ((4, 2, 3), {"groups": 2}), ((2, 3, 3, 3), {}),
                                          ((2, 2, 1, 3, 3), {})])
def test_init_eye_and_dirac_match_torch(lib, shape, kwargs):
    t = torch_lib()
    name = "eye_" if len(shape) == 2 else "dirac_"
    ours = getattr(lib.nn.init, name)(lib.tg.empty(*shape), **kwargs)
    theirs = getattr(t.nn.init, name)(t.tg.empty(*shape), **kwargs)
    np.testing.assert_array_equal(np.asarray(ours), theirs.numpy())
    for bad in (lambda I, T: I.eye_(T.zeros(2, 2, 2)), lambda I, T: I.dirac_(T.zeros(2, 2)),
                lambda I, T: I.dirac_(T.zeros(3, 2, 2), groups=2)):
        expected = _err(lambda bad=bad: bad(t.nn.init, t.tg))
        assert expected is not None and _err(lambda bad=bad: bad(lib.nn.init, lib.tg)) == expected


@pytest.mark.parametrize("method,dtype", [("half", "float16"), ("bfloat16", "bfloat16")])
def test_module_half_and_bfloat16(lib, method, dtype):
    t = torch_lib()
    ours, theirs = lib.nn.Linear(3, 2), t.nn.Linear(3, 2)
    assert getattr(ours, method)() is ours and getattr(theirs, method)() is theirs
    assert ours.weight.dtype == getattr(lib.tg, dtype) and ours.bias.dtype == ours.weight.dtype
    assert str(theirs.weight.dtype) == f"torch.{dtype}"
