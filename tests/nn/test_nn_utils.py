"""nn.utils: gradient clipping vs torch.nn.utils."""

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib

GRADS = [np.array([[0.3, -4.0], [1.5, 0.2]]), np.array([2.0, -0.5])]


def with_grads(lib):
    tg = lib.tg
    params = [lib.nn.Parameter(tg.tensor(np.ones_like(g), dtype=tg.float64)) for g in GRADS]
    loss = sum((p * tg.tensor(g, dtype=tg.float64)).sum() for p, g in zip(params, GRADS))
    loss.backward()
    return params


@pytest.mark.torch
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(lib, norm_type, max_norm):
    tl = torch_lib()
    ours, theirs = with_grads(lib), with_grads(tl)
    n1 = lib.nn.utils.clip_grad_norm_(ours, max_norm, norm_type)
    n2 = tl.nn.utils.clip_grad_norm_(theirs, max_norm, norm_type)
    np.testing.assert_allclose(to_numpy(n1), to_numpy(n2), rtol=1e-12)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(to_numpy(a.grad), to_numpy(b.grad), rtol=1e-12)


def test_clip_grad_norm_scales_to_max_norm(lib):
    params = with_grads(lib)
    total = lib.nn.utils.clip_grad_norm_(params, 1.0)
    expected = np.sqrt(sum((g ** 2).sum() for g in GRADS))
    np.testing.assert_allclose(total.item(), expected)
    after = np.sqrt(sum((to_numpy(p.grad) ** 2).sum() for p in params))
    np.testing.assert_allclose(after, 1.0, rtol=1e-5)


def test_clip_grad_norm_nonfinite(lib):
    tg = lib.tg
    p = lib.nn.Parameter(tg.tensor([1.0], dtype=tg.float64))
    (p * float("inf")).sum().backward()
    with pytest.raises(RuntimeError, match="error_if_nonfinite"):
        lib.nn.utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


def test_clip_grad_value(lib):
    params = with_grads(lib)
    lib.nn.utils.clip_grad_value_(params, 1.0)
    for p, g in zip(params, GRADS):
        np.testing.assert_array_equal(to_numpy(p.grad), np.clip(g, -1.0, 1.0))


def test_utils_import_as_submodule(lib):
    import importlib

    mod = importlib.import_module(lib.tg.__name__ + ".nn.utils")
    assert mod.clip_grad_norm_.__name__ == "clip_grad_norm_"
