"""erfinv (Note [erfinv: polynomial start, one Halley step] in csrc/kernels/special.cpp) against
torch's across the range and into both tails, to double rounding; torch-optional."""

import numpy as np
import pytest

Y = np.concatenate([np.linspace(-0.999999, 0.999999, 4001), 1 - np.logspace(-16, -1, 200),
                    -(1 - np.logspace(-16, -1, 200)), [1e-300, 1e-10, 5e-324, 1 - 2**-53]])


def test_erfinv_matches_torch_to_rounding(engine):
    torch = pytest.importorskip("torch")
    ours = engine.erfinv(engine.tensor(Y)).numpy()
    theirs = torch.special.erfinv(torch.tensor(Y)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=4e-16, atol=0)


def test_erfinv_edges(engine):
    out = engine.erfinv(engine.tensor([1.0, -1.0, 1.5, np.nan, 0.0, -0.0])).numpy()
    np.testing.assert_array_equal(out[:2], [np.inf, -np.inf])
    assert np.isnan(out[2]) and np.isnan(out[3])
    assert out[4] == 0.0 and np.signbit(out[5])
