"""Embedding (padding_idx, max_norm, from_pretrained) and EmbeddingBag (sum/mean/max, offsets,
per_sample_weights, padding_idx) against torch on both engines."""

import numpy as np
import pytest
from _torchcmp import raises_like

pytestmark = pytest.mark.torch
rng = np.random.default_rng(5)


def _pair(lib, torch, ours_cls, theirs_cls, *args, **kwargs):
    theirs = theirs_cls(*args, **kwargs).double()
    ours = ours_cls(*args, **kwargs).double()
    assert str(ours) == str(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: lib.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


def _check(lib, torch, ours, theirs, call_ours, call_theirs):
    y, ty = call_ours(ours), call_theirs(theirs)
    np.testing.assert_allclose(np.asarray(y.detach()), ty.detach().numpy(), rtol=1e-12)
    v = rng.standard_normal(tuple(ty.shape))
    (y * lib.tg.tensor(v)).sum().backward()
    (ty * torch.tensor(v)).sum().backward()
    np.testing.assert_allclose(np.asarray(ours.weight.grad), theirs.weight.grad.numpy(),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.asarray(ours.weight.detach()), theirs.weight.detach().numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 2}, {"padding_idx": -1},
                                    {"max_norm": 1.0}, {"max_norm": 0.5, "norm_type": 1.0}])
def test_embedding_matches_torch(lib, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(lib, torch, lib.nn.Embedding, torch.nn.Embedding, 10, 4, **kwargs)
    if "padding_idx" in kwargs:
        assert not np.asarray(lib.nn.Embedding(10, 4, **kwargs).weight.detach())[
            kwargs["padding_idx"]].any()
    idx = np.array([[1, 2, 9], [2, 2, 0]])
    _check(lib, torch, ours, theirs, lambda m: m(lib.tg.tensor(idx)),
           lambda m: m(torch.tensor(idx)))


def test_embedding_from_pretrained(lib):
    torch = pytest.importorskip("torch")
    w = rng.standard_normal((5, 3))
    ours = lib.nn.Embedding.from_pretrained(lib.tg.tensor(w))
    theirs = torch.nn.Embedding.from_pretrained(torch.tensor(w))
    assert ours.weight.requires_grad is theirs.weight.requires_grad is False
    np.testing.assert_allclose(np.asarray(ours(lib.tg.tensor(np.array([4, 0])))),
                               theirs(torch.tensor(np.array([4, 0]))).numpy())
    with raises_like(lambda: torch.nn.Embedding(10, 3, padding_idx=10)):
        lib.nn.Embedding(10, 3, padding_idx=10)


BAGS = [
    ({"mode": "sum"}, np.array([[1, 2, 3], [4, 4, 0]]), None, None),
    ({"mode": "mean"}, np.array([[1, 2, 3], [4, 4, 0]]), None, None),
    ({"mode": "max"}, np.array([[1, 2, 3], [4, 4, 0]]), None, None),
    ({"mode": "mean"}, np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4]), None),
    ({"mode": "max"}, np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3, 6]), None),
    ({"mode": "sum"}, np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 5]), "psw"),
    ({"mode": "mean", "include_last_offset": True}, np.array([1, 2, 4, 5, 4, 3]),
     np.array([0, 2, 4, 6]), None),
    ({"mode": "mean", "padding_idx": 4}, np.array([1, 2, 4, 5, 4, 3]), np.array([0, 2, 5]),
     None),
    ({"mode": "sum", "max_norm": 1.0}, np.array([[1, 2], [2, 7]]), None, None),
]


@pytest.mark.parametrize("kwargs,idx,offsets,psw", BAGS,
                         ids=[f"{k}-{o is not None}-{p}" for k, _, o, p in BAGS])
def test_embedding_bag_matches_torch(lib, kwargs, idx, offsets, psw):
    torch = pytest.importorskip("torch")
    ours, theirs = _pair(lib, torch, lib.nn.EmbeddingBag, torch.nn.EmbeddingBag, 10, 3,
                         **kwargs)
    w = rng.uniform(0.5, 2.0, idx.shape) if psw else None
    _check(lib, torch, ours, theirs,
           lambda m: m(lib.tg.tensor(idx), None if offsets is None else lib.tg.tensor(offsets),
                       None if w is None else lib.tg.tensor(w)),
           lambda m: m(torch.tensor(idx), None if offsets is None else torch.tensor(offsets),
                       None if w is None else torch.tensor(w)))


def test_embedding_bag_errors_are_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.EmbeddingBag(10, 3)(torch.tensor([1, 2]), None)):
        lib.nn.EmbeddingBag(10, 3)(lib.tg.tensor(np.array([1, 2])), None)
    with raises_like(lambda: torch.nn.EmbeddingBag(10, 3, mode="max")(
            torch.tensor([[1, 2]]), per_sample_weights=torch.ones(1, 2))):
        lib.nn.EmbeddingBag(10, 3, mode="max")(lib.tg.tensor(np.array([[1, 2]])),
                                               per_sample_weights=lib.tg.ones(1, 2))


@pytest.mark.parametrize("kwargs", [{}, {"freeze": False, "mode": "sum"},
                                    {"mode": "max", "padding_idx": 1}])
def test_embedding_bag_from_pretrained(lib, kwargs):
    torch = pytest.importorskip("torch")
    w = rng.standard_normal((5, 3))
    ours = lib.nn.EmbeddingBag.from_pretrained(lib.tg.tensor(w), **kwargs)
    theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), **kwargs)
    assert str(ours) == str(theirs)
    assert ours.weight.requires_grad is theirs.weight.requires_grad
    idx = np.array([[4, 0, 1], [2, 1, 3]])
    np.testing.assert_allclose(np.asarray(ours(lib.tg.tensor(idx)).detach()),
                               theirs(torch.tensor(idx)).detach().numpy())
    with raises_like(lambda: torch.nn.EmbeddingBag.from_pretrained(torch.zeros(3))):
        lib.nn.EmbeddingBag.from_pretrained(lib.tg.zeros(3))
