"""Window functions for spectral analysis: ``hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window``, with torch's signatures, defaults
(``periodic=True``), dtype rule (the default floating dtype; an integer dtype is refused) and
errors.

Input: a length and options; output: a new 1-d tensor of the engine whose ``Factories`` the
``Windows`` object was built on (a window is made from nothing, so it needs the engine, as the
other factories do). Computed in float64 with numpy and rounded to the dtype once, so a float32
window is the nearest float32 to the exact value (torch computes in the dtype: differences are a
few ulps). A periodic window of length N is the symmetric window of length N + 1 without its last
point, as torch's (and scipy's ``sym=False``).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from transgrad._api.inplace import _TORCH_NAMES
from transgrad._dtypes import as_dtype, is_floating

__all__ = ["Windows", "NAMES"]

NAMES = ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
         "kaiser_window")


def _cosine_sum(n: int, coefficients: tuple) -> np.ndarray:
    """sum_k (-1)^k a_k cos(2 pi k i / (n - 1)), the symmetric window of length n >= 2."""
    phase = 2 * np.pi * np.arange(n, dtype=np.float64) / (n - 1)
    return sum((-1) ** k * a * np.cos(k * phase) for k, a in enumerate(coefficients))


def _bartlett(n: int) -> np.ndarray:
    return 1 - np.abs(2 * np.arange(n, dtype=np.float64) / (n - 1) - 1)


def _kaiser(n: int, beta: float) -> np.ndarray:
    alpha = (n - 1) / 2
    ratio = (np.arange(n, dtype=np.float64) - alpha) / alpha
    return np.i0(beta * np.sqrt(np.clip(1 - ratio ** 2, 0, None))) / np.i0(beta)


class Windows:
    """The window functions of one engine (bound to its ``Factories``)."""

    def __init__(self, factories: Any) -> None:
        self._factories = factories

    def _make(self, name: str, window_length: int, periodic: bool, dtype: Any, device: Any,
              requires_grad: bool, symmetric: Callable[[int], np.ndarray]) -> Any:
        if window_length < 0:
            raise RuntimeError(f"{name} requires non-negative window_length, got "
                               f"window_length={window_length}")
        d = self._factories.get_default_dtype() if dtype is None else as_dtype(dtype)
        if not is_floating(d):
            raise RuntimeError(f"{name} expects floating point dtypes, got: "
                               f"TensorOptions(dtype={_TORCH_NAMES.get(d.name, d.name)})")
        if window_length <= 1:
            values = np.ones(window_length, np.float64)
        else:
            n = window_length + 1 if periodic else window_length
            values = symmetric(n)[:window_length]
        return self._factories._wrap(values.astype(np.dtype(d)), requires_grad, device)

    def hann_window(self, window_length: int, periodic: bool = True, *, dtype: Any = None,
                    layout: Any = None, device: Any = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Any:
        """The Hann window, 0.5 - 0.5 cos(2 pi n / (N - 1))."""
        return self._make("hann_window", window_length, periodic, dtype, device, requires_grad,
                          lambda n: _cosine_sum(n, (0.5, 0.5)))

    def hamming_window(self, window_length: int, periodic: bool = True, alpha: float = 0.54,
                       beta: float = 0.46, *, dtype: Any = None, layout: Any = None,
                       device: Any = None, pin_memory: bool = False,
                       requires_grad: bool = False) -> Any:
        """The Hamming window, alpha - beta cos(2 pi n / (N - 1))."""
        return self._make("hamming_window", window_length, periodic, dtype, device,
                          requires_grad, lambda n: _cosine_sum(n, (alpha, beta)))

    def blackman_window(self, window_length: int, periodic: bool = True, *, dtype: Any = None,
                        layout: Any = None, device: Any = None, pin_memory: bool = False,
                        requires_grad: bool = False) -> Any:
        """The Blackman window, 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
        return self._make("blackman_window", window_length, periodic, dtype, device,
                          requires_grad, lambda n: _cosine_sum(n, (0.42, 0.5, 0.08)))

    def bartlett_window(self, window_length: int, periodic: bool = True, *, dtype: Any = None,
                        layout: Any = None, device: Any = None, pin_memory: bool = False,
                        requires_grad: bool = False) -> Any:
        """The Bartlett (triangular) window, 1 - |2n / (N - 1) - 1|."""
        return self._make("bartlett_window", window_length, periodic, dtype, device,
                          requires_grad, _bartlett)

    def kaiser_window(self, window_length: int, periodic: bool = True, beta: float = 12.0, *,
                      dtype: Any = None, layout: Any = None, device: Any = None,
                      pin_memory: bool = False, requires_grad: bool = False) -> Any:
        """The Kaiser window, I0(beta sqrt(1 - ((n - a) / a)^2)) / I0(beta), a = (N - 1) / 2."""
        return self._make("kaiser_window", window_length, periodic, dtype, device,
                          requires_grad, lambda n: _kaiser(n, beta))
