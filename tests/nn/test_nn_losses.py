"""Losses against torch on both engines: the loss, the gradients of every float input (and
of weights), each reduction, the layer's printed form and state dict, and torch's errors."""

import warnings

import numpy as np
import pytest
from _torchcmp import raises_like, run_both

pytestmark = pytest.mark.torch
REDUCTIONS = ["mean", "sum", "none"]
rng = np.random.default_rng(7)


def _u(*shape, low=-2.0, high=2.0):
    return rng.uniform(low, high, shape)


def _sign(*shape):
    return np.where(rng.uniform(size=shape) < 0.5, -1.0, 1.0)


def _classes(*shape, c=4):
    return rng.integers(0, c, shape).astype(np.int64)


def _probs(*shape):
    p = rng.uniform(0.1, 1.0, shape)
    return p / p.sum(1, keepdims=True)


# (layer name, layer kwargs, inputs) for the layer form; the same kwargs go to the functional.
CASES = [
    ("L1Loss", {}, lambda: [_u(3, 4), _u(3, 4)]),
    ("MSELoss", {}, lambda: [_u(3, 4), _u(3, 4)]),
    ("SmoothL1Loss", {"beta": 0.5}, lambda: [_u(3, 4), _u(3, 4)]),
    ("SmoothL1Loss", {"beta": 0.0}, lambda: [_u(3, 4), _u(3, 4)]),
    ("HuberLoss", {"delta": 0.7}, lambda: [_u(3, 4), _u(3, 4)]),
    ("SoftMarginLoss", {}, lambda: [_u(3, 4), _sign(3, 4)]),
    ("BCELoss", {}, lambda: [_u(3, 4, low=0.05, high=0.95), _u(3, 4, low=0, high=1)]),
    ("BCEWithLogitsLoss", {}, lambda: [_u(3, 4), _u(3, 4, low=0, high=1)]),
    ("KLDivLoss", {}, lambda: [np.log(_probs(3, 4)), _probs(3, 4)]),
    ("KLDivLoss", {"log_target": True}, lambda: [np.log(_probs(3, 4)), np.log(_probs(3, 4))]),
    ("PoissonNLLLoss", {}, lambda: [_u(3, 4), _u(3, 4, low=0, high=4)]),
    ("PoissonNLLLoss", {"log_input": False, "full": True},
     lambda: [_u(3, 4, low=0.2, high=3), rng.integers(1, 6, (3, 4)).astype(np.float64)]),
    ("GaussianNLLLoss", {}, lambda: [_u(3, 4), _u(3, 4), _u(3, 4, low=0.1, high=2)]),
    ("GaussianNLLLoss", {"full": True}, lambda: [_u(3, 4), _u(3, 4), _u(3, 1, low=0.1, high=2)]),
    ("GaussianNLLLoss", {}, lambda: [_u(3, 4), _u(3, 4), _u(3, low=0.1, high=2)]),
    ("CosineEmbeddingLoss", {"margin": 0.2}, lambda: [_u(5, 3), _u(5, 3), _sign(5)]),
    ("CosineEmbeddingLoss", {}, lambda: [_u(3), _u(3), np.array(-1.0)]),
    ("MarginRankingLoss", {"margin": 0.3}, lambda: [_u(6), _u(6), _sign(6)]),
    ("HingeEmbeddingLoss", {"margin": 1.5}, lambda: [_u(3, 4), _sign(3, 4)]),
    ("TripletMarginLoss", {"margin": 0.8}, lambda: [_u(5, 3), _u(5, 3), _u(5, 3)]),
    ("TripletMarginLoss", {"p": 1.0, "swap": True}, lambda: [_u(5, 3), _u(5, 3), _u(5, 3)]),
    ("MultiLabelSoftMarginLoss", {}, lambda: [_u(3, 4), _u(3, 4, low=0, high=1).round()]),
    ("CrossEntropyLoss", {}, lambda: [_u(5, 4), _classes(5)]),
    ("CrossEntropyLoss", {"label_smoothing": 0.2}, lambda: [_u(2, 4, 3), _classes(2, 3)]),
    ("CrossEntropyLoss", {"ignore_index": 1}, lambda: [_u(6, 4), _classes(6)]),
    ("CrossEntropyLoss", {}, lambda: [_u(5, 4), _probs(5, 4)]),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, lambda: [_u(2, 4, 3), _probs(2, 4, 3)]),
    ("CrossEntropyLoss", {}, lambda: [_u(4), _probs(1, 4)[0]]),
    ("NLLLoss", {}, lambda: [np.log(_probs(5, 4)), _classes(5)]),
    ("NLLLoss", {"ignore_index": 2}, lambda: [np.log(_probs(2, 4, 3)), _classes(2, 3)]),
]
IDS = [f"{n}{sorted(k.items())}" for n, k, _ in CASES]

FUNCTIONAL = {
    "L1Loss": "l1_loss", "MSELoss": "mse_loss", "SmoothL1Loss": "smooth_l1_loss",
    "HuberLoss": "huber_loss", "SoftMarginLoss": "soft_margin_loss",
    "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "KLDivLoss": "kl_div",
    "PoissonNLLLoss": "poisson_nll_loss", "GaussianNLLLoss": "gaussian_nll_loss",
    "CosineEmbeddingLoss": "cosine_embedding_loss", "MarginRankingLoss": "margin_ranking_loss",
    "HingeEmbeddingLoss": "hinge_embedding_loss", "TripletMarginLoss": "triplet_margin_loss",
    "MultiLabelSoftMarginLoss": "multilabel_soft_margin_loss",
    "CrossEntropyLoss": "cross_entropy", "NLLLoss": "nll_loss",
}


# losses whose last argument is a label (+-1 or 0/1) torch does not differentiate
LABELS = {"SoftMarginLoss", "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss",
          "MultiLabelSoftMarginLoss"}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kwargs,inputs", CASES, ids=IDS)
def test_loss_matches_torch(lib, name, kwargs, inputs, reduction):
    torch = pytest.importorskip("torch")
    arrays = inputs()
    grads = [a.dtype == np.float64 for a in arrays]
    if name in LABELS:
        grads[-1] = False
    kw = dict(kwargs, reduction=reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # KLDivLoss's 'mean' warning, on both sides
        run_both(lib, torch, lambda: getattr(lib.nn, name)(**kw),
                 lambda: getattr(torch.nn, name)(**kw), arrays, grads, module=True)
        fname = FUNCTIONAL[name]
        run_both(lib, torch, lambda *a: getattr(lib.F, fname)(*a, **kw),
                 lambda *a: getattr(torch.nn.functional, fname)(*a, **kw), arrays, grads)


@pytest.mark.parametrize("name,fname,arrays", [
    ("CrossEntropyLoss", "cross_entropy", lambda: [_u(5, 4), _classes(5), _u(4, low=0.2, high=2)]),
    ("CrossEntropyLoss", "cross_entropy", lambda: [_u(5, 4), _probs(5, 4), _u(4, low=0.2, high=2)]),
    ("NLLLoss", "nll_loss", lambda: [np.log(_probs(5, 4)), _classes(5), _u(4, low=0.2, high=2)]),
    ("BCELoss", "binary_cross_entropy",
     lambda: [_u(3, 4, low=0.05, high=0.95), _u(3, 4, low=0, high=1), _u(3, 4, low=0.2, high=2)]),
    ("MultiLabelSoftMarginLoss", "multilabel_soft_margin_loss",
     lambda: [_u(3, 4), _u(3, 4, low=0, high=1).round(), _u(4, low=0.2, high=2)]),
])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_loss_matches_torch(lib, name, fname, arrays, reduction):
    torch = pytest.importorskip("torch")
    x, t, w = arrays()
    run_both(lib, torch,
             lambda a, b, c: getattr(lib.F, fname)(a, b, weight=c, reduction=reduction),
             lambda a, b, c: getattr(torch.nn.functional, fname)(a, b, weight=c,
                                                                 reduction=reduction),
             [x, t, w], grads=[True, False, False])
    layer = getattr(lib.nn, name)(weight=lib.tg.tensor(w))
    assert list(layer.state_dict()) == list(getattr(torch.nn, name)(
        weight=torch.tensor(w)).state_dict()) == ["weight"]


def test_bce_with_logits_pos_weight_and_buffers(lib):
    torch = pytest.importorskip("torch")
    x, t, pw = _u(3, 4), _u(3, 4, low=0, high=1), _u(4, low=0.5, high=3)
    run_both(lib, torch,
             lambda a, b: lib.F.binary_cross_entropy_with_logits(
                 a, b, pos_weight=lib.tg.tensor(pw)),
             lambda a, b: torch.nn.functional.binary_cross_entropy_with_logits(
                 a, b, pos_weight=torch.tensor(pw)), [x, t])
    layer = lib.nn.BCEWithLogitsLoss(pos_weight=lib.tg.tensor(pw))
    assert list(layer.state_dict()) == ["pos_weight"]


def test_legacy_size_average_and_reduce(lib):
    torch = pytest.importorskip("torch")
    x, t = _u(3, 4), _u(3, 4)
    for kw in ({"size_average": False}, {"reduce": False}):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            ours = lib.nn.L1Loss(**kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.nn.L1Loss(**kw)
        assert ours.reduction == theirs.reduction
        run_both(lib, torch, lambda r=ours.reduction: lib.nn.L1Loss(reduction=r),
                 lambda m=theirs: m, [x, t], module=True)


def test_kl_div_batchmean(lib):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda a, b: lib.F.kl_div(a, b, reduction="batchmean"),
             lambda a, b: torch.nn.functional.kl_div(a, b, reduction="batchmean"),
             [np.log(_probs(3, 4)), _probs(3, 4)])
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        lib.F.kl_div(lib.tg.tensor(_u(2, 2)), lib.tg.tensor(_u(2, 2)))


def test_l1_loss_broadcast_warns_as_torch(lib):
    with pytest.warns(UserWarning, match=r"Using a target size \(torch.Size\(\[4\]\)\) that is "
                                         r"different to the input size"):
        lib.F.l1_loss(lib.tg.tensor(_u(3, 4)), lib.tg.tensor(_u(4)))


@pytest.mark.parametrize("call", [
    lambda F, T: F.l1_loss(T(_u(2)), T(_u(2)), reduction="avg"),
    lambda F, T: F.smooth_l1_loss(T(_u(2)), T(_u(2)), beta=-1.0),
    lambda F, T: F.binary_cross_entropy(T(np.array([0.5, 1.5])), T(np.array([0.0, 1.0]))),
    lambda F, T: F.binary_cross_entropy(T(_u(2, low=0.1, high=0.9)), T(_u(3, low=0, high=1))),
    lambda F, T: F.binary_cross_entropy_with_logits(T(_u(2, 3)), T(_u(3))),
    lambda F, T: F.gaussian_nll_loss(T(_u(2, 3)), T(_u(2, 3)), T(_u(2, 3, low=-2, high=-1))),
    lambda F, T: F.gaussian_nll_loss(T(_u(2, 3)), T(_u(2, 3)), T(_u(3, 3, low=1, high=2))),
    lambda F, T: F.triplet_margin_loss(T(_u(2, 3)), T(_u(2, 3)), T(_u(2, 3)), margin=0.0),
    lambda F, T: F.nll_loss(T(_u(2, 3)), T(np.array([0, 1, 1]))),
    lambda F, T: F.cross_entropy(T(_u(2, 3)), T(np.zeros((2, 3), np.int64))),
    lambda F, T: F.cross_entropy(T(_u(2, 3)), T(_probs(2, 3)), ignore_index=1),
])
def test_loss_errors_are_torchs(lib, call):
    torch = pytest.importorskip("torch")
    tg = lib.tg

    with raises_like(lambda: call(torch.nn.functional, torch.tensor)):
        call(lib.F, tg.tensor)


def _ctc_inputs(T=10, N=3, C=5, S=4, seed=0):
    r = np.random.default_rng(seed)
    return (r.standard_normal((T, N, C)), r.integers(1, C, (N, S)),
            np.array([T, T - 2, T - 3])[:N], np.array([S, 2, 3])[:N])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("flat_targets", [False, True])
def test_ctc_loss_matches_torch(lib, reduction, flat_targets):
    torch = pytest.importorskip("torch")
    logits, tgt, il, tl = _ctc_inputs()
    if flat_targets:
        tgt = np.concatenate([row[:n] for row, n in zip(tgt, tl)])

    def ours(x):
        layer = lib.nn.CTCLoss(blank=0, reduction=reduction)
        return layer(x.log_softmax(2), lib.tg.tensor(tgt), lib.tg.tensor(il), lib.tg.tensor(tl))

    def theirs(x):
        layer = torch.nn.CTCLoss(blank=0, reduction=reduction)
        return layer(x.log_softmax(2), torch.tensor(tgt), torch.tensor(il), torch.tensor(tl))

    run_both(lib, torch, ours, theirs, [logits])


def test_ctc_loss_unbatched_blank_and_zero_infinity(lib):
    torch = pytest.importorskip("torch")
    logits, tgt, _, _ = _ctc_inputs(T=6, N=1, S=3)
    run_both(lib, torch,
             lambda x: lib.F.ctc_loss(x.log_softmax(1), lib.tg.tensor(tgt[0]), (6,), (3,),
                                      blank=4),
             lambda x: torch.nn.functional.ctc_loss(x.log_softmax(1), torch.tensor(tgt[0]),
                                                    (6,), (3,), blank=4), [logits[:, 0]])
    # 5 labels cannot fit in 3 frames: inf, or 0 (and a zero gradient) with zero_infinity
    x = lib.tg.tensor(_ctc_inputs(T=3, N=1)[0], requires_grad=True)
    t = lib.tg.tensor(np.array([[1, 2, 1, 2, 1]]))
    assert np.isinf(float(lib.F.ctc_loss(x.log_softmax(2), t, (3,), (5,), reduction="sum")))
    loss = lib.F.ctc_loss(x.log_softmax(2), t, (3,), (5,), reduction="sum", zero_infinity=True)
    loss.backward()
    assert float(loss) == 0.0 and not np.asarray(x.grad).any()


def test_ctc_loss_gradgradcheck(lib):
    logits, tgt, il, tl = _ctc_inputs(T=4, N=2, C=3, S=2)
    x = lib.tg.tensor(logits, requires_grad=True)
    t, i, n = lib.tg.tensor(tgt), lib.tg.tensor(np.array([4, 3])), lib.tg.tensor(tl[:2])

    def f(a):
        return lib.F.ctc_loss(a.log_softmax(2), t, i, n, reduction="sum")

    assert lib.tg.autograd.gradcheck(f, (x,))
    assert lib.tg.autograd.gradgradcheck(f, (x,))
