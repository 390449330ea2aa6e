"""The names found missing by walking dir(torch) and dir(torch.Tensor) (issue 13), on both
engines: values, dtypes and shapes against torch, gradients by gradcheck/gradgradcheck."""

import warnings

import numpy as np
import pytest

Y = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])
XS = np.array([0.0, 1.0, 3.0])
A = np.array([[2.0, 1.0], [0.5, 3.0]])


def _cases(lib):
    y, x, a = lib.from_numpy(Y.copy()), lib.from_numpy(XS.copy()), lib.from_numpy(A.copy())
    i, j = lib.from_numpy(np.array([12, 18, -4, 0])), lib.from_numpy(np.array([8, 27, 6, 5]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # chain_matmul's deprecation, torch's too
        chain = lib.chain_matmul(a, a, a)
    return [
        lib.trapezoid(y), lib.trapezoid(y, x), lib.trapezoid(y, dx=0.5, dim=0), lib.trapz(y, x),
        lib.trapezoid(y, lib.from_numpy(np.array([[0.0, 1, 2], [0, 2, 5]]))),
        lib.cumulative_trapezoid(y), lib.cumulative_trapezoid(y, x),
        lib.cumulative_trapezoid(y, dx=2.0, dim=0),
        lib.cosine_similarity(y, y * 2 + 1), lib.cosine_similarity(y, y.flip(0), dim=0),
        lib.pairwise_distance(y, y.flip(0)), lib.pairwise_distance(y, y * 3, p=1.0, keepdim=True),
        lib.matrix_power(a, 3), lib.matrix_power(a, 0), lib.matrix_power(a, -2),
        lib.matrix_power(lib.stack([a, a * 2]), 2),
        lib.msort(y), lib.diagflat(x, 1), lib.diagflat(y), lib.vander(x), lib.vander(x, 4, True),
        lib.gcd(i, j), lib.lcm(i, j), lib.float_power(x, 2), lib.float_power(y, x),
        lib.heaviside(y - 1, lib.from_numpy(np.array([0.5, 0.25, 0.75]))),
        *lib.unravel_index(lib.from_numpy(np.array([5, 1, 4])), (2, 3)),
        *lib.split_with_sizes(y, [1, 2], 1), chain, lib.ger(x, x), lib.pinverse(y),
        lib.greater_equal(y, 1.0), lib.less_equal(y, 1.0), lib.not_equal(y, 2.0),
        y.greater(1.0), y.less(2.0), y.greater_equal(2.0), y.less_equal(2.0), y.not_equal(4.0),
        y.logical_xor(y > 1), y.adjoint(), y.mH, y.H, y.conj(), y.real, lib.conj(y),
        lib.adjoint(y), lib.resolve_conj(y), lib.detach(y), y.resolve_neg(), y.conj_physical(),
        y.clone().fill_diagonal_(7.0), lib.zeros(5, 2).fill_diagonal_(1.0, wrap=True),
        lib.zeros(5, 2).fill_diagonal_(1.0), lib.ones(3, 3, 3).fill_diagonal_(2.0),
        y.clone().apply_(lambda v: v * 10), y.clone().map_(x, lambda u, v: u + v),
        y.float_power(2), a.matrix_power(2), y.msort(),
        x.diagflat(), x.ger(x), y.pinverse(), i.gcd(j), i.lcm(j), y.heaviside(y),
        *y.split_with_sizes([2, 1], 1),
        y.clone().greater_(1.0), y.clone().greater_equal_(2.0), y.clone().less_(2.0),
        y.clone().less_equal_(1.0), y.clone().not_equal_(4.0), (y - 1).logical_and_(y),
        (y - 1).logical_or_(y * 0), (y - 1).logical_xor_(y - 2), (y - 1).logical_not_(),
        y.clone().cumsum_(1), i.clone().greater_(10),
        # facts: equal values, compared as strings
        y.storage_offset(), y[1:].storage_offset(), y[:, 1:].storage_offset(), y.is_cpu,
        y.layout, y.is_complex(), lib.is_complex(y), y.is_conj(), lib.is_neg(y),
        y.is_same_size(y), lib.is_same_size(y, x), y.is_sparse, y.is_quantized, y.is_meta,
        y.is_pinned(), y.share_memory_() is y,
    ]


def test_against_torch(engine):
    torch = pytest.importorskip("torch")
    mine, theirs = _cases(engine), _cases(torch)
    assert len(mine) == len(theirs)
    for k, (m, t) in enumerate(zip(mine, theirs)):
        if isinstance(t, torch.Tensor):
            assert tuple(m.shape) == tuple(t.shape), k
            assert str(m.dtype) == str(t.dtype), k
            np.testing.assert_allclose(np.asarray(m.detach()), t.numpy(), rtol=1e-12,
                                       atol=1e-12, err_msg=str(k))
        else:
            assert str(m) == str(t), k


def test_gradients(engine):
    tg = engine
    y = tg.from_numpy(Y.copy()).requires_grad_()
    x = tg.from_numpy(XS.copy()).requires_grad_()
    a = tg.from_numpy(A.copy()).requires_grad_()
    gc, ggc = tg.autograd.gradcheck, tg.autograd.gradgradcheck
    for f, inputs in (
            (lambda y, x: tg.trapezoid(y, x), (y, x)),
            (lambda y: tg.trapezoid(y, dx=0.5, dim=0), (y,)),
            (lambda y, x: tg.cumulative_trapezoid(y, x), (y, x)),
            (lambda y: tg.cosine_similarity(y, y.flip(0) * 2 + 1), (y,)),
            (lambda y: tg.pairwise_distance(y, y.flip(1)), (y,)),
            (lambda a: tg.matrix_power(a, 3), (a,)),
            (lambda a: tg.matrix_power(a, -2), (a,)),
            (lambda x: tg.vander(x, 4), (x,)),
            (lambda y, x: tg.float_power(y * y + 0.5, x + 0.5), (y, x)),  # pow: exponent 0 is flat
            (lambda x: tg.diagflat(x, -1), (x,)),
            (lambda y: y.clone().fill_diagonal_(3.0), (y,)),
            (lambda y: tg.msort(y), (y,)),
            (lambda y: (y * 1).cumsum_(1), (y,))):
        assert gc(f, inputs)
        assert ggc(f, inputs)


def test_errors_are_torchs(engine):
    torch = pytest.importorskip("torch")

    def calls(lib):
        f = lib.from_numpy(np.array([1.0, 2.0]))
        return [lambda: f.imag, lambda: lib.ones(2, 3, 4).H, lambda: f.adjoint(),
                lambda: lib.matrix_power(lib.ones(2, 3), 2), lambda: lib.gcd(f, f),
                lambda: lib.split_with_sizes(lib.ones(3), [1, 1]),
                lambda: lib.ones(2).fill_diagonal_(1.0), lambda: lib.ones(2).pin_memory(),
                lambda: lib.ones(2, 3, 2).fill_diagonal_(1.0)]

    for k, (mine, theirs) in enumerate(zip(calls(engine), calls(torch))):
        with pytest.raises(Exception) as want:
            theirs()
        with pytest.raises(Exception) as got:
            mine()
        assert type(got.value) is type(want.value), k
        assert str(got.value).startswith(str(want.value).split(" (")[0][:40]), (k, got, want)
