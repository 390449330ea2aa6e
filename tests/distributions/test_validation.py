"""Argument and value validation: the same exceptions and messages as torch.distributions
(shapes print as the engines' tuples where torch prints torch.Size([...])). Both engines."""

import re

import numpy as np
import pytest


def _normalise(text):
    """Messages compared up to tensor printing (each engine prints tensors its own way: every
    ``tensor(...)`` becomes ``tensor(...)``) and runs of whitespace."""
    out, i = [], 0
    while True:
        j = text.find("tensor(", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j] + "tensor(...)")
        depth, k = 0, j + len("tensor")
        while k < len(text):
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        i = k
    return " ".join("".join(out).split())


def _torch_message(fn):
    """torch's message for the same mistake, with torch.Size([a, b]) written (a, b)."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as info:
        fn(torch.distributions, lambda x: torch.tensor(np.asarray(x, dtype=np.float64)))
    text = str(info.value)
    text = re.sub(r"torch\.Size\(\[([^\]]*)\]\)",
                  lambda m: str(tuple(int(v) for v in m.group(1).split(",") if v.strip())), text)
    return type(info.value), text


MISTAKES = {
    "normal_negative_scale": lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, -1.0])),
    "normal_number_scale": lambda D, t: D.Normal(0.0, -1.0),
    "bernoulli_both": lambda D, t: D.Bernoulli(probs=t([0.3]), logits=t([1.0])),
    "bernoulli_none": lambda D, t: D.Bernoulli(),
    "bernoulli_probs_above_one": lambda D, t: D.Bernoulli(probs=t([0.3, 1.5])),
    "categorical_scalar_probs": lambda D, t: D.Categorical(probs=t(0.5)),
    "categorical_scalar_logits": lambda D, t: D.Categorical(logits=t(0.5)),
    "categorical_negative": lambda D, t: D.Categorical(probs=t([0.5, -0.1])),
    "uniform_reversed": lambda D, t: D.Uniform(1.0, 0.0),
    "exponential_zero": lambda D, t: D.Exponential(t([0.0])),
    "mvn_scalar_loc": lambda D, t: D.MultivariateNormal(t(0.0), scale_tril=t([[1.0]])),
    "mvn_no_matrix": lambda D, t: D.MultivariateNormal(t([0.0])),
    "mvn_two_matrices": lambda D, t: D.MultivariateNormal(
        t([0.0]), scale_tril=t([[1.0]]), covariance_matrix=t([[1.0]])),
    "mvn_vector_tril": lambda D, t: D.MultivariateNormal(t([0.0]), scale_tril=t([1.0])),
    "mvn_upper_tril": lambda D, t: D.MultivariateNormal(
        t([0.0, 0.0]), scale_tril=t([[1.0, 0.5], [0.0, 1.0]])),
    "independent_too_many": lambda D, t: D.Independent(D.Normal(t([0.0]), t([1.0])), 2),
    "log_prob_of_a_number": lambda D, t: D.Normal(t([0.0]), t([1.0])).log_prob(1.0),
    "log_prob_wrong_event": lambda D, t: D.MultivariateNormal(
        t([0.0, 0.0]), scale_tril=t([[1.0, 0.0], [0.0, 1.0]])).log_prob(t([0.0, 0.0, 0.0])),
    "log_prob_not_broadcastable": lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).log_prob(
        t([0.0, 0.0, 0.0])),
    "log_prob_outside_support": lambda D, t: D.Bernoulli(probs=t([0.3])).log_prob(t([0.5])),
    "uniform_outside_support": lambda D, t: D.Uniform(t([0.0]), t([1.0])).log_prob(t([2.0])),
    "exponential_negative_value": lambda D, t: D.Exponential(t([1.0])).log_prob(t([-1.0])),
    "categorical_out_of_range": lambda D, t: D.Categorical(probs=t([0.5, 0.5])).log_prob(
        t([2.0])),
    "kl_not_registered": lambda D, t: D.kl_divergence(D.Laplace(t([0.0]), t([1.0])),
                                                      D.Bernoulli(t([0.5]))),
    "kl_mvn_event_shapes": lambda D, t: D.kl_divergence(
        D.MultivariateNormal(t([0.0]), scale_tril=t([[1.0]])),
        D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 0.0], [0.0, 1.0]]))),
    "transforms_not_a_list": lambda D, t: D.TransformedDistribution(D.Normal(t([0.0]), t([1.0])),
                                                                    (1, 2)),
}


@pytest.mark.torch
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_messages_are_torchs(lib, mistake):
    build = MISTAKES[mistake]
    expected_type, expected = _torch_message(build)
    with pytest.raises(expected_type) as info:
        build(lib.D, lib.t)
    assert _normalise(str(info.value)) == _normalise(expected)


def test_messages_without_torch(lib):
    D, t = lib.D, lib.t
    with pytest.raises(ValueError, match=re.escape(
            "Expected parameter scale (Tensor of shape ()) of distribution Normal(loc: 0.0, "
            "scale: -1.0) to satisfy the constraint GreaterThan(lower_bound=0.0), but found "
            "invalid values:\n-1.0")):
        D.Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        D.Categorical()
    with pytest.raises(ValueError, match=re.escape(
            "Value is not broadcastable with batch_shape+event_shape: (3,) vs (2,).")):
        D.Normal(t([0.0, 1.0]), t([1.0, 1.0])).log_prob(t([0.0, 0.0, 0.0]))
    with pytest.raises(ValueError, match=re.escape("to be within the support (Boolean())")):
        D.Bernoulli(probs=t([0.3])).log_prob(t([0.5]))


def test_validation_can_be_turned_off(lib):
    D, t = lib.D, lib.t
    d = D.Normal(t([0.0]), t([-1.0]), validate_args=False)
    assert np.isnan(d.log_prob(t([0.0])).item())
    D.Distribution.set_default_validate_args(False)
    try:
        D.Bernoulli(probs=t([1.5]))
        D.Normal(t([0.0]), t([1.0])).log_prob(t([0.0, 1.0, 2.0]).reshape((3, 1)))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Bernoulli(probs=t([1.5]))
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


def test_register_kl(lib):
    D, t = lib.D, lib.t

    class MyNormal(D.Normal):
        pass

    assert D.kl_divergence(MyNormal(t([0.0]), t([1.0])), D.Normal(t([1.0]), t([1.0]))).item() == 0.5

    @D.register_kl(MyNormal, MyNormal)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    try:
        p = MyNormal(t([0.0]), t([1.0]))
        assert D.kl_divergence(p, MyNormal(t([1.0]), t([1.0]))).item() == 42.0
        assert D.kl_divergence(p, D.Normal(t([1.0]), t([1.0]))).item() == 0.5
    finally:
        from transgrad.distributions import kl

        del kl._KL_REGISTRY[MyNormal, MyNormal]
        kl._KL_MEMOIZE.clear()
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        D.register_kl(int, D.Normal)


@pytest.mark.torch
def test_reprs_are_torchs(lib):
    torch = pytest.importorskip("torch")
    TD = torch.distributions
    pairs = [
        (lambda D, t: D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))),
        (lambda D, t: D.Normal(t(0.0), t(1.0))),
        (lambda D, t: D.Categorical(probs=t([0.2, 0.8]))),
        (lambda D, t: D.Uniform(t(0.0), t(2.0))),
        (lambda D, t: D.Independent(D.Normal(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1)),
        (lambda D, t: D.MultivariateNormal(t([0.0, 0.0]), scale_tril=t([[1.0, 0.0], [0.0, 1.0]]))),
        (lambda D, t: D.OneHotCategorical(probs=t([0.2, 0.8]))),
    ]
    for build in pairs:
        ours = repr(build(lib.D, lib.t))
        theirs = repr(build(TD, lambda x: torch.tensor(np.asarray(x, dtype=np.float64))))
        theirs = re.sub(r"torch\.Size\(\[([^\]]*)\]\)",
                        lambda m: str(tuple(int(v) for v in m.group(1).split(",") if v.strip())),
                        theirs)
        assert ours == theirs
    for c in ["real", "positive", "unit_interval", "simplex", "boolean", "real_vector",
              "lower_cholesky", "positive_definite", "nonnegative_integer", "one_hot"]:
        assert repr(getattr(lib.D.constraints, c)) == repr(getattr(TD.constraints, c))
    assert repr(lib.D.constraints.interval(0.0, 2.5)) == repr(TD.constraints.interval(0.0, 2.5))
