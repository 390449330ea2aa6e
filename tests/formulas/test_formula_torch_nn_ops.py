"""The conv, pool, norm and misc formulas against their PyTorch twins (value, grad and grad of
grad on the formulas' sample inputs, both engines), with the comparison of test_formula_torch.py.
Skipped when torch is not installed.
"""

import numpy as np
import pytest
from formula_samples import engine_call, is_floating, make_call, shipped_formulas
from test_formula_torch import _assert_close, _outs, _vjp

torch = pytest.importorskip("torch")
F = torch.nn.functional
pytestmark = pytest.mark.torch


def _batch_norm(x, running_mean=None, running_var=None, weight=None, bias=None, training=False,
                eps=1e-5):
    if training:
        return F.batch_norm(x, None, None, weight, bias, True, 0.0, eps)
    shape = (1, -1) + (1,) * (x.dim() - 2)  # eval: written out (torch wants constant stats)
    y = (x - running_mean.reshape(shape)) / torch.sqrt(running_var.reshape(shape) + eps)
    y = y if weight is None else y * weight.reshape(shape)
    return y if bias is None else y + bias.reshape(shape)


def _conv(fn):
    def twin(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
        return fn(x, w, b, stride, padding, dilation, groups)

    return twin


TWINS = {
    "im2col": lambda x, k, s, p, d: F.unfold(x, k, dilation=d, padding=p, stride=s),
    "col2im": lambda c, size, k, s, p, d: F.fold(c, size, k, dilation=d, padding=p, stride=s),
    "conv2d": _conv(F.conv2d), "conv2d_grouped": _conv(F.conv2d),
    "conv1d": _conv(F.conv1d),
    "max_pool2d": lambda x, k, s, p=(0, 0), d=(1, 1): tuple(
        F.max_pool2d(x, k, s, p, d, return_indices=True)),
    "avg_pool2d": lambda x, k, s, p=(0, 0): F.avg_pool2d(x, k, s, p),
    "adaptive_avg_pool2d": F.adaptive_avg_pool2d,
    "batch_norm": _batch_norm,
    "cumsum": torch.cumsum,
    "flip": torch.flip,
    "tril": torch.tril,
    "triu": torch.triu,
    "pad": lambda x, pads, value=0.0: F.pad(x, pads, value=value),
    "sort": lambda x, dim=-1, descending=False: tuple(
        torch.sort(x, stable=True, dim=dim, descending=descending)),
    "topk": lambda x, k, dim=-1, largest=True: tuple(torch.topk(x, k, dim, largest)),
    "masked_fill": torch.masked_fill,
}

FORMULAS = shipped_formulas()
NAMES = sorted(TWINS)


def test_every_twin_is_a_shipped_formula():
    assert [n for n in NAMES if n not in FORMULAS] == []


def torch_call(name, i):
    return make_call(name, i, lambda a, requires: torch.tensor(a, requires_grad=requires),
                     TWINS[name])


@pytest.mark.parametrize("name", NAMES)
def test_matches_torch(engine, name):
    for i in range(len(FORMULAS[name].samples)):
        ours, theirs = engine_call(engine, name, i), torch_call(name, i)
        o_out, t_out = _outs(ours()), _outs(theirs())
        _assert_close(o_out, t_out, f"{name} sample {i}: value")
        o_out = [o for o in o_out if is_floating(o)]
        t_out = [o for o in t_out if o.is_floating_point()]
        rng = np.random.default_rng(i)
        vs = [rng.standard_normal(o.shape) for o in t_out]
        o_v = [engine.tensor(v, requires_grad=True) for v in vs]
        t_v = [torch.tensor(v, requires_grad=True) for v in vs]
        o_leaves, t_leaves = ours.leaves(), theirs.leaves()
        o_g = _vjp(engine.autograd.grad, o_out, o_leaves, o_v, True)
        t_g = _vjp(torch.autograd.grad, t_out, t_leaves, t_v, True)
        _assert_close(o_g, t_g, f"{name} sample {i}: grad")
        ws = [rng.standard_normal(tuple(g.shape)) for g in t_g if g is not None]
        o_g2 = _vjp(engine.autograd.grad, [g for g in o_g if g is not None], o_leaves + o_v,
                    [engine.tensor(w) for w in ws], False)
        t_g2 = _vjp(torch.autograd.grad, [g for g in t_g if g is not None], t_leaves + t_v,
                    [torch.tensor(w) for w in ws], False)
        _assert_close(o_g2, t_g2, f"{name} sample {i}: grad of grad")
