"""The factorisations of ``_api/factorizations.py`` through the public API, on both engines:
torch's errors, the results' names and shapes, the degenerate inputs torch documents (repeated
eigenvalues and singular values make the vector gradients non-finite), and gauge invariance
(a loss that does not depend on the vectors' signs gets torch's gradient)."""

import numpy as np
import pytest


def _spd(n, batch=()):
    a = np.random.default_rng(n).standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def test_cholesky_raises_torchs_error(engine):
    with pytest.raises(RuntimeError, match=r"linalg.cholesky: The factorization could not be "
                       r"completed because the input is not positive-definite \(the leading "
                       r"minor of order 1 is not positive-definite\)"):
        engine.linalg.cholesky(engine.tensor(-np.eye(3)))
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        engine.linalg.cholesky(engine.tensor(np.ones((2, 3))))


def test_results_are_torchs_named_tuples(engine):
    a = engine.tensor(_spd(4, (2,)))
    values, vectors = engine.linalg.eigh(a)
    assert engine.linalg.eigh(a).eigenvalues is not None and tuple(values.shape) == (2, 4)
    recon = np.einsum("bij,bj,bkj->bik", vectors.numpy(), values.numpy(), vectors.numpy())
    np.testing.assert_allclose(recon, a.numpy(), atol=1e-10)
    x = engine.tensor(np.random.default_rng(0).standard_normal((5, 3)))
    U, S, Vh = engine.linalg.svd(x)
    assert (tuple(U.shape), tuple(S.shape), tuple(Vh.shape)) == ((5, 5), (3,), (3, 3))
    U, S, Vh = engine.linalg.svd(x, full_matrices=False)
    np.testing.assert_allclose((U.numpy() * S.numpy()) @ Vh.numpy(), x.numpy(), atol=1e-12)
    Q, R = engine.linalg.qr(x)
    np.testing.assert_allclose(Q.numpy() @ R.numpy(), x.numpy(), atol=1e-12)
    assert tuple(engine.linalg.qr(x, mode="complete").Q.shape) == (5, 5)
    assert tuple(engine.linalg.qr(x, mode="r").Q.shape) == (0,)
    with pytest.raises(RuntimeError, match="qr received unrecognized mode 'full'"):
        engine.linalg.qr(x, mode="full")


def test_repeated_eigenvalues_give_non_finite_vector_gradients(engine):
    # torch's documented behaviour: the eigenvector gradient divides by the eigenvalue gaps
    a = engine.tensor(np.eye(3), requires_grad=True)
    _, vectors = engine.linalg.eigh(a)
    (g,) = engine.autograd.grad([vectors.sum()], [a])
    assert not np.isfinite(g.numpy()).all()
    # the eigenvalues alone stay finite
    (g,) = engine.autograd.grad([engine.linalg.eigvalsh(a).sum()], [a])
    np.testing.assert_allclose(g.numpy(), np.eye(3), atol=1e-12)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4)])
def test_gauge_invariant_losses_match_torch(engine, shape):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    ours = engine.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)

    def loss(lib, t):  # |U|^2 and |V|^2 weighted: invariant to each vector's sign
        U, S, Vh = lib.linalg.svd(t, full_matrices=False)
        return ((U * U).sum() * 2 + (Vh * Vh * Vh * Vh).sum() + (S * S * S).sum())

    (g,) = engine.autograd.grad([loss(engine, ours)], [ours])
    (h,) = torch.autograd.grad([loss(torch, theirs)], [theirs])
    np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-7, atol=1e-9)
    if shape[-1] == shape[-2]:
        sym = x + np.swapaxes(x, -1, -2)
        ours = engine.tensor(sym, requires_grad=True)
        theirs = torch.tensor(sym, requires_grad=True)
        lv = engine.linalg.eigh(ours)
        tv = torch.linalg.eigh(theirs)
        (g,) = engine.autograd.grad([(lv[1] ** 4).sum() + lv[0].sum()], [ours])
        (h,) = torch.autograd.grad([(tv[1] ** 4).sum() + tv[0].sum()], [theirs])
        np.testing.assert_allclose(g.numpy(), h.numpy(), rtol=1e-7, atol=1e-9)
