"""The formulas of formulas/nn.py against their PyTorch twins on their own @samples: value,
gradient (a VJP) and gradient of gradient (the VJP of that VJP), float64, on both engines.

(tests/formulas checks gradcheck/gradgradcheck of the same samples; this adds the oracle.)
"""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "formulas"))
from formula_samples import engine_call, is_floating, make_call, shipped_formulas

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.torch


def _red(mean):
    return "mean" if mean else "sum"


def _bce_terms(x, t, weight=None, pos_weight=None):
    """torch's binary_cross_entropy_with_logits has no gradient for weight/pos_weight: this
    twin writes the same function with differentiable torch ops."""
    lw = 1.0 if pos_weight is None else 1.0 + (pos_weight - 1.0) * t
    loss = (1.0 - t) * x + lw * TF.softplus(-x)
    return loss if weight is None else loss * weight


def _affine(y, w, b):
    """torch's layer_norm double backward fails when only bias is given: apply w, b outside."""
    y = y if w is None else y * w
    return y if b is None else y + b


def _sdpa(q, k, v, mask=None, scale=1.0, drop=None):
    """The attention core with torch ops, dropout's keep-mask given as the formula takes it."""
    scores = q @ k.transpose(-2, -1) * scale
    weights = (scores if mask is None else scores + mask).softmax(-1)
    return (weights if drop is None else weights * drop) @ v


TWINS = {
    "linear": TF.linear,
    "sdpa": _sdpa,
    "layer_norm": lambda x, shape, w=None, b=None, eps=1e-5: _affine(
        TF.layer_norm(x, shape, None, None, eps), w, b),
    "softplus": lambda x, beta=1.0, threshold=20.0: TF.softplus(x, beta, threshold),
    "silu": TF.silu,
    "gelu": lambda x, approximate=False: TF.gelu(x, approximate="tanh" if approximate
                                                  else "none"),
    "elu": lambda x, alpha=1.0: TF.elu(x, alpha),
    "leaky_relu": lambda x, slope=0.01: TF.leaky_relu(x, slope),
    "logsigmoid": TF.logsigmoid,
    # the activations' backwards (Note [Activation backwards are ops] in formulas/nn.py)
    "softplus_backward": torch.ops.aten.softplus_backward,
    "elu_backward": torch.ops.aten.elu_backward,
    "leaky_relu_backward": torch.ops.aten.leaky_relu_backward,
    "gelu_backward": lambda g, x, approximate=False: torch.ops.aten.gelu_backward(
        g, x, approximate="tanh" if approximate else "none"),
    "log_sigmoid_backward": lambda g, x: torch.ops.aten.log_sigmoid_backward(
        g, x, torch.ops.aten.log_sigmoid_forward(x.detach())[1]),
    "hardshrink": lambda x, lambd=0.5: TF.hardshrink(x, lambd),
    "softshrink": lambda x, lambd=0.5: TF.softshrink(x, lambd),
    "mse_loss": lambda a, b, mean=True: TF.mse_loss(a, b, reduction=_red(mean)),
    "binary_cross_entropy": lambda x, t, reduction=1: TF.binary_cross_entropy(
        x, t, reduction=("none", "mean", "sum")[reduction]),
    "cross_entropy": lambda x, t, mean=True: TF.cross_entropy(x, t, reduction=_red(mean)),
    "nll_loss": lambda x, t, w=None, ignore_index=-100, mean=True: TF.nll_loss(
        x, t, w, ignore_index=ignore_index, reduction=_red(mean)),
    "binary_cross_entropy_with_logits_unreduced": _bce_terms,
    "binary_cross_entropy_with_logits": lambda x, t, w=None, pw=None, mean=True: (
        _bce_terms(x, t, w, pw).mean() if mean else _bce_terms(x, t, w, pw).sum()),
}

FORMULAS = {n: d for n, d in shipped_formulas().items() if d.module.endswith(".nn")}


def test_every_nn_formula_has_a_twin():
    assert sorted(set(FORMULAS) - set(TWINS)) == []


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach())


def _vjp(grad_fn, outs, leaves, vs, create_graph):
    pairs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    if not pairs:
        return [None] * len(leaves)
    return list(grad_fn([o for o, _ in pairs], leaves, [v for _, v in pairs],
                        create_graph=create_graph, allow_unused=True))


def _assert_close(ours, theirs, what):
    assert len(ours) == len(theirs), what
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if a is None and b is None:
            continue
        a = np.zeros_like(_np(b)) if a is None else _np(a)
        b = np.zeros_like(a) if b is None else _np(b)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11, err_msg=f"{what} {k}")


def _outs(out):
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_matches_torch(engine, name):
    for i in range(len(FORMULAS[name].samples)):
        ours = engine_call(engine, name, i)
        theirs = make_call(name, i, lambda a, r: torch.tensor(a, requires_grad=r), TWINS[name])
        o_out, t_out = _outs(ours()), _outs(theirs())
        _assert_close(o_out, t_out, f"{name} sample {i}: value")
        o_out = [o for o in o_out if is_floating(o)]
        rng = np.random.default_rng(i)
        vs = [rng.standard_normal(tuple(o.shape)) for o in t_out]
        o_v = [engine.tensor(v, requires_grad=True) for v in vs]
        t_v = [torch.tensor(v, requires_grad=True) for v in vs]
        o_leaves, t_leaves = ours.leaves(), theirs.leaves()
        o_g = _vjp(engine.autograd.grad, o_out, o_leaves, o_v, True)
        t_g = _vjp(torch.autograd.grad, t_out, t_leaves, t_v, True)
        _assert_close(o_g, t_g, f"{name} sample {i}: grad")
        keep = [k for k, g in enumerate(t_g) if g is not None and g.requires_grad]
        ws = [rng.standard_normal(tuple(t_g[k].shape)) for k in keep]
        o_g2 = _vjp(engine.autograd.grad, [o_g[k] for k in keep], o_leaves + o_v,
                    [engine.tensor(w) for w in ws], False)
        t_g2 = _vjp(torch.autograd.grad, [t_g[k] for k in keep], t_leaves + t_v,
                    [torch.tensor(w) for w in ws], False)
        _assert_close(o_g2, t_g2, f"{name} sample {i}: grad of grad")
