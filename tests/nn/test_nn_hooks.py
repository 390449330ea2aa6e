"""Module hooks and the Module methods torch programs use, against torch on both engines:
full backward hooks and pre-hooks (what they receive and what replacing it does), the global
module hooks, forward hooks with kwargs and always_call, registration hooks, state-dict and
load-state-dict hooks, set_submodule, to_empty, share_memory, load_state_dict(assign=True),
registration order."""

import warnings

import numpy as np
import pytest
from _torchcmp import raises_like

pytestmark = pytest.mark.torch


def _np(t):
    return None if t is None else np.asarray(t.detach().numpy() if hasattr(t, "numpy")
                                             else t.detach())


class _Twin:
    """The same small model on an engine and on torch, with torch's weights."""

    def __init__(self, lib, torch):
        torch.manual_seed(0)
        self.theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                                          torch.nn.Linear(4, 2)).double()
        self.ours = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(),
                                      lib.nn.Linear(4, 2)).double()
        self.ours.load_state_dict({k: lib.tg.tensor(v.numpy())
                                   for k, v in self.theirs.state_dict().items()})


class _TwoIn:
    """forward(a, scale, b): two tensor inputs around a non-tensor, two outputs."""

    @staticmethod
    def make(nn):
        class TwoIn(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(3, 3)

            def forward(self, a, scale, b):
                h = self.lin(a) * scale + b
                return h.tanh(), (h * h).sum(-1)

        return TwoIn


def _record(store):
    def hook(module, grad_input, grad_output):
        store.append(([_np(g) for g in grad_input], [_np(g) for g in grad_output]))
    return hook


def _same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if y is None:
            assert x is None
        else:
            np.testing.assert_allclose(x, y, rtol=1e-10, atol=1e-12)


def test_full_backward_hook_sees_torchs_gradients(lib):
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    theirs = _TwoIn.make(torch.nn)().double()
    ours = _TwoIn.make(lib.nn)().double()
    ours.load_state_dict({k: lib.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    rec_o, rec_t, pre_o, pre_t = [], [], [], []
    ours.register_full_backward_hook(_record(rec_o))
    theirs.register_full_backward_hook(_record(rec_t))
    ours.register_full_backward_pre_hook(lambda m, g: pre_o.append([_np(x) for x in g]))
    theirs.register_full_backward_pre_hook(lambda m, g: pre_t.append([_np(x) for x in g]))
    a, b = np.random.default_rng(0).standard_normal((2, 2, 3))
    for b_grad in (True, False):
        a_o = lib.tg.tensor(a, requires_grad=True)
        b_o = lib.tg.tensor(b, requires_grad=b_grad)
        a_t = torch.tensor(a, requires_grad=True)
        b_t = torch.tensor(b, requires_grad=b_grad)
        y_o, s_o = ours(a_o, 2.0, b_o)
        y_t, s_t = theirs(a_t, 2.0, b_t)
        (y_o.sum() + s_o.sum()).backward()
        (y_t.sum() + s_t.sum()).backward()
        np.testing.assert_allclose(_np(a_o.grad), _np(a_t.grad), rtol=1e-10)
    assert len(rec_o) == len(rec_t) == 2 and len(pre_o) == len(pre_t) == 2
    for (gi_o, go_o), (gi_t, go_t) in zip(rec_o, rec_t):
        _same(gi_o, gi_t)  # (grad a, None for the float, grad b or None)
        _same(go_o, go_t)
    for g_o, g_t in zip(pre_o, pre_t):
        _same(g_o, g_t)


def test_backward_hooks_replace_gradients_as_torch(lib):
    torch = pytest.importorskip("torch")
    twin = _Twin(lib, torch)
    for lin in (twin.ours[2], twin.theirs[2]):
        lin.register_full_backward_pre_hook(lambda m, g: (g[0] * 3.0,))
    twin.ours[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * -2.0,))
    twin.theirs[0].register_full_backward_hook(lambda m, gi, go: (gi[0] * -2.0,))
    x = np.random.default_rng(2).standard_normal((5, 3))
    x_o, x_t = lib.tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    twin.ours(x_o).pow(2).sum().backward()
    twin.theirs(x_t).pow(2).sum().backward()
    np.testing.assert_allclose(_np(x_o.grad), _np(x_t.grad), rtol=1e-10)
    for (name, p), q in zip(twin.ours.named_parameters(), twin.theirs.parameters()):
        np.testing.assert_allclose(_np(p.grad), _np(q.grad), rtol=1e-10, err_msg=name)


def test_backward_hook_errors_and_warning_are_torchs(lib):
    torch = pytest.importorskip("torch")
    twin = _Twin(lib, torch)
    x_o, x_t = lib.tg.ones(2, 3), torch.ones(2, 3, dtype=torch.float64)
    got = []
    handle = twin.ours[0].register_full_backward_hook(lambda m, gi, go: got.append(gi))
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are "
                                         "computed with respect to module outputs"):
        twin.ours(x_o.double()).sum().backward()
    assert got == [(None,)]
    handle.remove()
    for net in (twin.ours, twin.theirs):
        net[2].register_full_backward_pre_hook(lambda m, g: (g[0], g[0]))
    x_t.requires_grad_()
    with raises_like(lambda: twin.theirs(x_t).sum().backward()):
        twin.ours(lib.tg.ones(2, 3, dtype=lib.tg.float64, requires_grad=True)).sum().backward()


def test_global_hooks_run_before_the_modules_own(lib):
    torch = pytest.importorskip("torch")
    modmod = __import__(lib.tg.__name__ + ".nn.modules.module", fromlist=["x"])
    twin = _Twin(lib, torch)
    logs = {}
    for name, (mod, net, tg) in {"ours": (modmod, twin.ours, lib.tg),
                                 "theirs": (torch.nn.modules.module, twin.theirs,
                                            torch)}.items():
        log = logs.setdefault(name, [])
        handles = [
            mod.register_module_forward_pre_hook(
                lambda m, a, log=log: log.append(("gpre", type(m).__name__))),
            mod.register_module_forward_hook(
                lambda m, a, k, o, log=log: log.append(("gpost", type(m).__name__, sorted(k))),
                with_kwargs=True),
            mod.register_module_full_backward_pre_hook(
                lambda m, g, log=log: log.append(("gbpre", type(m).__name__))),
            mod.register_module_full_backward_hook(
                lambda m, gi, go, log=log: log.append(("gback", type(m).__name__))),
            net[0].register_forward_pre_hook(
                lambda m, a, log=log: log.append(("pre", "own"))),
            net[0].register_forward_hook(lambda m, a, o, log=log: log.append(("post", "own"))),
        ]
        try:
            x = tg.ones(2, 3, dtype=tg.float64, requires_grad=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                net(x).sum().backward()
        finally:
            for h in handles:
                h.remove()
        net(tg.ones(1, 3, dtype=tg.float64))  # removed: nothing more is logged
    assert logs["ours"] == logs["theirs"]


def test_forward_hooks_with_kwargs_and_always_call(lib):
    torch = pytest.importorskip("torch")
    for nn, tg in ((lib.nn, lib.tg), (torch.nn, torch)):
        class Boom(nn.Module):
            def forward(self, x, *, fail=False):
                if fail:
                    raise ValueError("boom")
                return x + 1

        m, seen = Boom(), []
        m.register_forward_pre_hook(lambda mod, a, k: ((a[0] * 2,), {**k}), with_kwargs=True)
        m.register_forward_hook(
            lambda mod, a, k, o, seen=seen: seen.append((sorted(k), o is None)),
            with_kwargs=True, always_call=True)
        assert float(m(tg.tensor(1.0), fail=False)) == 3.0
        with pytest.raises(ValueError, match="boom"):
            m(tg.tensor(1.0), fail=True)
        assert seen == [(["fail"], False), (["fail"], True)]


def test_registration_and_state_dict_hooks_match_torch(lib):
    torch = pytest.importorskip("torch")
    results = {}
    for key, nn, tg, modmod in (
            ("ours", lib.nn, lib.tg,
             __import__(lib.tg.__name__ + ".nn.modules.module", fromlist=["x"])),
            ("theirs", torch.nn, torch, torch.nn.modules.module)):
        log = []
        handles = [
            modmod.register_module_parameter_registration_hook(
                lambda m, n, p, log=log: log.append(("param", n))),
            modmod.register_module_buffer_registration_hook(
                lambda m, n, b, log=log: log.append(("buffer", n))),
            modmod.register_module_module_registration_hook(
                lambda m, n, s, log=log: log.append(("module", n))),
        ]
        try:
            net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
        finally:
            for h in handles:
                h.remove()
        net.register_state_dict_pre_hook(
            lambda m, prefix, keep, log=log: log.append(("sd_pre", prefix)))
        net[1].register_state_dict_pre_hook(
            lambda m, p, k, log=log: log.append(("sd_pre1", p)))
        net[0].register_state_dict_post_hook(
            lambda m, sd, prefix, meta: [sd.pop(prefix + "bias")] and None)
        sd = net.state_dict()
        log.append(("keys", list(sd)))
        net[0].register_load_state_dict_pre_hook(
            lambda m, sd, prefix, *rest, tg=tg: sd.__setitem__(prefix + "bias", tg.zeros(2)))
        net.register_load_state_dict_post_hook(
            lambda m, keys: keys.unexpected_keys.clear())
        result = net.load_state_dict({**sd, "extra": tg.zeros(1)})
        log.append(("load", repr(result), float(net[0].bias.detach().abs().sum())))
        results[key] = log
    assert results["ours"] == results["theirs"]


def test_module_methods_match_torch(lib):
    torch = pytest.importorskip("torch")
    for nn, tg in ((lib.nn, lib.tg), (torch.nn, torch)):
        net = nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.ReLU(), nn.Linear(3, 1)))
        net.set_submodule("1.0", nn.Tanh())
        net.set_submodule("1.extra", nn.Identity())
        assert type(net[1][0]).__name__ == "Tanh"
        with pytest.raises(AttributeError, match="has no attribute `nope`"):
            net.set_submodule("1.nope", nn.Tanh(), strict=True)
        with pytest.raises(ValueError, match="Cannot set the submodule without a target name"):
            net.set_submodule("", nn.Tanh())
        with pytest.raises(ValueError, match="is not an nn.Module"):
            net.set_submodule("0", 3)
        with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
            net.set_submodule("0.weight", nn.Tanh())
        assert str(net)
        old = net[0].weight
        assert net.to_empty(device="cpu") is net
        assert net[0].weight is old and tuple(net[0].weight.shape) == (3, 2)
        assert type(net[0].weight) is nn.Parameter and net[0].weight.requires_grad
        assert net.share_memory() is net
        # assign=True puts the given tensors in place, as Parameters keeping requires_grad
        net[0].weight.requires_grad_(False)
        values = {k: tg.ones(*v.shape, dtype=tg.float64) for k, v in net.state_dict().items()}
        result = net.load_state_dict(values, assign=True)
        assert repr(result) == "<All keys matched successfully>"
        assert type(net[0].weight) is nn.Parameter and not net[0].weight.requires_grad
        assert net[0].weight.dtype == tg.float64 and net[0].bias.requires_grad
        # replacing a parameter or submodule keeps its place in the state dict
        lin = nn.Linear(2, 2)
        lin.weight = nn.Parameter(tg.zeros(2, 2))
        assert list(lin.state_dict()) == ["weight", "bias"]
        seq = nn.Sequential(nn.ReLU(), nn.Tanh())
        seq.add_module("0", nn.Sigmoid())
        assert [type(m).__name__ for m in seq] == ["Sigmoid", "Tanh"]
        shared = nn.Linear(1, 1)
        dup = nn.Sequential(shared, shared)
        assert [n for n, _ in dup.named_modules(remove_duplicate=False)] == ["", "0", "1"]
        assert [n for n, _ in dup.named_modules()] == ["", "0"]
