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


# -- LU (linalg.lu, lu_factor, lu_factor_ex, lu_solve; torch.lu, lu_solve, lu_unpack) ---------


def test_lu_names_values_and_pivots(engine):
    x = np.random.default_rng(3).standard_normal((2, 4, 3))
    P, L, U = engine.linalg.lu(engine.tensor(x))
    np.testing.assert_allclose(P.numpy() @ L.numpy() @ U.numpy(), x, atol=1e-12)
    assert (tuple(P.shape), tuple(L.shape), tuple(U.shape)) == ((2, 4, 4), (2, 4, 3), (2, 3, 3))
    np.testing.assert_array_equal(np.diagonal(L.numpy(), axis1=-2, axis2=-1), 1.0)
    LU, pivots, info = engine.linalg.lu_factor_ex(engine.tensor(x))
    assert str(pivots.dtype).endswith("int32") and str(info.dtype).endswith("int32")
    assert tuple(pivots.shape) == (2, 3) and tuple(info.shape) == (2,)
    assert engine.linalg.lu_factor(engine.tensor(x)).pivots.shape == pivots.shape
    unpacked = engine.lu_unpack(LU, pivots)
    np.testing.assert_array_equal(unpacked.P.numpy(), P.numpy())
    assert tuple(engine.lu_unpack(LU, pivots, unpack_data=False).L.shape) == (0,)
    assert tuple(engine.lu_unpack(LU, pivots, unpack_pivots=False).P.shape) == (0,)
    a = engine.tensor(x[0, :3])
    b = np.random.default_rng(4).standard_normal((3, 2))
    LU, pivots = engine.linalg.lu_factor(a)
    np.testing.assert_allclose(engine.linalg.lu_solve(LU, pivots, engine.tensor(b)).numpy(),
                               np.linalg.solve(x[0, :3], b), atol=1e-10)
    np.testing.assert_allclose(
        engine.linalg.lu_solve(LU, pivots, engine.tensor(b.T), left=False, adjoint=True).numpy(),
        np.linalg.solve(x[0, :3], b).T, atol=1e-10)
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        np.testing.assert_allclose(engine.lu_solve(engine.tensor(b), LU, pivots).numpy(),
                                   np.linalg.solve(x[0, :3], b), atol=1e-10)
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        packed, piv, infos = a.lu(get_infos=True)
    np.testing.assert_array_equal(packed.numpy(), LU.numpy())
    assert int(infos.numpy()) == 0


def test_lu_matches_torch_at_a_singular_matrix(engine):
    torch = pytest.importorskip("torch")
    s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])
    ours = engine.linalg.lu_factor_ex(engine.tensor(s))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(s))
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert int(ours.info.numpy()) == 3  # U[3, 3] == 0: no error from the _ex form
    for fn, call in (("torch.linalg.lu_factor", lambda t: engine.linalg.lu_factor(t)),
                     ("torch.linalg.lu_factor_ex",
                      lambda t: engine.linalg.lu_factor_ex(t, check_errors=True))):
        with pytest.raises(RuntimeError, match=rf"^{fn}: U\[3,3\] is zero and using it on "
                           r"lu_solve would result in a division by zero\. If you still"):
            call(engine.tensor(s))
    with pytest.raises(RuntimeError, match=r"lu_factor: \(Batch element 1\): U\[3,3\] is zero"):
        engine.linalg.lu_factor(engine.tensor(np.stack([np.eye(3), s])))


@pytest.mark.parametrize("call, message", [
    (lambda e, t: e.linalg.lu(t[0, 0]), r"linalg.lu: Expected tensor with 2 or more dimensions. "
                                        r"Got size: \[3\] instead"),
    (lambda e, t: e.linalg.lu_factor(t[0, 0]), r"torch.lu_factor: Expected tensor with 2 or "
                                               r"more dimensions"),
    (lambda e, t: e.linalg.lu_factor(t, pivot=False),
     "linalg.lu_factor: LU without pivoting is not implemented on the CPU"),
    (lambda e, t: e.linalg.lu(t, pivot=False),
     "linalg.lu_factor: LU without pivoting is not implemented on the CPU"),
    (lambda e, t: e.linalg.lu_solve(*e.linalg.lu_factor(t[0]), t[0, 0]),
     "linalg.lu_solve: The input tensor B must have at least 2 dimensions."),
    (lambda e, t: e.linalg.lu_solve(*e.linalg.lu_factor(t[0]), t[0, :, :2], left=False),
     r"linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B \(3x3 and 3x2\)"),
    (lambda e, t: e.linalg.lu_solve(e.linalg.lu_factor(t[0]).LU, e.linalg.lu_factor(t[0])
                                    .pivots[:2], t[0]),
     "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix"),
    (lambda e, t: e.linalg.lu_solve(e.linalg.lu_factor(t).LU, e.linalg.lu_factor(t[0]).pivots,
                                    t[0]),
     r"linalg.lu_solve: Expected LU.shape\[:-1\] and pivots.shape to be the same, but got "
     r"pivots with shape \[3\] instead"),
    (lambda e, t: e.linalg.lu_solve(e.linalg.lu_factor(t[0]).LU, e.tensor([1, 2, 3]), t[0]),
     "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"),
    (lambda e, t: e.lu_unpack(t[0], e.tensor([1, 2, 3])),
     "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."),
])
def test_lu_errors_are_torchs(engine, call, message):
    t = engine.tensor(np.random.default_rng(5).standard_normal((2, 3, 3)))
    with pytest.raises(RuntimeError, match=message):
        call(engine, t)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=message):
        call(torch, torch.tensor(t.numpy()))


def test_lu_of_an_integer_tensor_raises_torchs_error(engine):
    with pytest.raises(NotImplementedError, match="\"lu_cpu\" not implemented for 'Long'"):
        engine.linalg.lu(engine.tensor(np.ones((3, 3), np.int64)))


# -- det and slogdet at singular matrices (Note [det at singular matrices]) ---------------------


def test_det_gradient_at_singular_matrices_is_torchs(engine):
    torch = pytest.importorskip("torch")
    for s in (np.array([[1.0, 2.0], [2.0, 4.0]]), np.arange(9.0).reshape(3, 3) + 1,
              np.stack([np.eye(3) * 2, np.diag([1.0, 0.0, 3.0])])):
        ours = engine.tensor(s, requires_grad=True)
        theirs = torch.tensor(s, requires_grad=True)
        (g,) = engine.autograd.grad([engine.linalg.det(ours).sum()], [ours], create_graph=True)
        (h,) = torch.autograd.grad([torch.linalg.det(theirs).sum()], [theirs],
                                   create_graph=True)
        np.testing.assert_allclose(g.detach().numpy(), h.detach().numpy(), atol=1e-12)
        (gg,) = engine.autograd.grad([(g * g).sum()], [ours])
        (hh,) = torch.autograd.grad([(h * h).sum()], [theirs])
        np.testing.assert_allclose(gg.numpy(), hh.numpy(), atol=1e-10)
    # the rank-1 2x2 matrix's cofactor matrix
    ours = engine.tensor(np.array([[1.0, 2.0], [2.0, 4.0]]), requires_grad=True)
    (g,) = engine.autograd.grad([engine.linalg.det(ours)], [ours])
    np.testing.assert_allclose(g.numpy(), [[4.0, -2.0], [-2.0, 1.0]], atol=1e-12)


def test_slogdet_gradient_at_a_singular_matrix_raises_torchs_solve_error(engine):
    s = engine.tensor(np.array([[1.0, 2.0], [2.0, 4.0]]), requires_grad=True)
    sign, logabsdet = engine.linalg.slogdet(s)
    assert float(sign.detach().numpy()) == 0.0 and float(logabsdet.detach().numpy()) == -np.inf
    with pytest.raises(RuntimeError, match="linalg.solve: The solver failed because the input "
                                           "matrix is singular."):
        engine.autograd.grad([logabsdet], [s])


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 3), (3, 0), (0, 2, 2)])
def test_lu_of_empty_matrices_is_torchs(engine, shape):
    torch = pytest.importorskip("torch")
    x = np.ones(shape)
    for ours, theirs in ((engine.linalg.lu(engine.tensor(x)), torch.linalg.lu(torch.tensor(x))),
                         (engine.linalg.lu_factor_ex(engine.tensor(x)),
                          torch.linalg.lu_factor_ex(torch.tensor(x)))):
        for a, b in zip(ours, theirs):
            assert tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
