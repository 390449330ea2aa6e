"""float32 products on the register tile (Note [Mid-size float32 gemms on the register tile] in
csrc/kernels/linalg.cpp): every operand layout the matmul and linear kernels hand to gemm, odd
sizes off the 8 x 32 tile, the bias accumulated into the output, compared with float64 numpy.
On a CPU without AVX-512 the same calls run on BLAS, and the test holds there too."""

import numpy as np
import pytest

tg = pytest.importorskip("transgrad")
if tg._C is None:
    pytest.skip("compiled engine not built", allow_module_level=True)

rng = np.random.default_rng(7)
SHAPES = [(512, 128, 512), (300, 70, 37), (257, 33, 129), (8, 256, 32), (1, 5, 1), (640, 96, 8)]


def _f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _close(got, want, k):
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-5 * np.sqrt(k))


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul_every_layout(m, k, n, ta, tb):
    a = _f32(k, m).T if ta else _f32(m, k)  # a transposed view: column-major storage
    b = _f32(n, k).T if tb else _f32(k, n)
    got = tg.from_numpy(np.ascontiguousarray(a.T)).t() if ta else tg.from_numpy(a)
    other = tg.from_numpy(np.ascontiguousarray(b.T)).t() if tb else tg.from_numpy(b)
    _close(got @ other, a.astype(np.float64) @ b.astype(np.float64), k)


@pytest.mark.parametrize("m,k,n", SHAPES)
def test_linear_with_bias_accumulates_into_the_bias_rows(m, k, n):
    x, w, bias = _f32(m, k), _f32(n, k), _f32(n)
    out = tg.nn.functional.linear(tg.from_numpy(x), tg.from_numpy(w), tg.from_numpy(bias))
    _close(out, x.astype(np.float64) @ w.astype(np.float64).T + bias, k)


def test_gradients_through_the_tile_match_float64():
    x64, w64 = rng.standard_normal((512, 128)), rng.standard_normal((384, 128))
    x = tg.tensor(x64.astype(np.float32), requires_grad=True)
    w = tg.tensor(w64.astype(np.float32), requires_grad=True)
    g = rng.standard_normal((512, 384))
    (tg.nn.functional.linear(x, w) * tg.tensor(g.astype(np.float32))).sum().backward()
    _close(x.grad, g @ w64, 384)
    _close(w.grad, g.T @ x64, 512)
