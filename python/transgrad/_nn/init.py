"""nn.init, engine-neutral: fill a tensor in place with torch's initialisation schemes.

Input: a tensor of either engine (usually a Parameter). Output: the same tensor, its values
replaced under no_grad (Note [In-place updates] in transgrad/_backend.py), returned as torch does.
Randomness comes from ``generator`` or the engine's default generator, drawn as torch draws
(Note [The same numbers as torch] in transgrad/_random.py): after the same ``manual_seed`` a
model starts from torch's weights. Fans and gains follow torch's definitions.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from transgrad._backend import backend_of

_GAINS_ONE = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for a nonlinearity (torch's table)."""
    if nonlinearity in _GAINS_ONE:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Any) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive = math.prod(tensor.shape[2:]) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Any, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor: Any, values: Any) -> Any:
    return backend_of(tensor).assign_(tensor, values)


def uniform_(tensor: Any, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Any:
    """U(a, b)."""
    with backend_of(tensor).no_grad():
        return tensor.uniform_(float(a), float(b), generator=generator)


def normal_(tensor: Any, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Any:
    """N(mean, std^2)."""
    with backend_of(tensor).no_grad():
        return tensor.normal_(float(mean), float(std), generator=generator)


def trunc_normal_(tensor: Any, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Any = None) -> Any:
    """N(mean, std^2) restricted to [a, b], drawn as torch 2.13 draws it: when [a, b] holds more
    than 30% of the mass, normal draws with the rejected ones redrawn; otherwise uniform
    proposals on [a, b] accepted by the density's ratio to its peak."""
    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    E = backend_of(tensor)
    m = E.module
    with E.no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = m.where(mask, m.empty_like(result).normal_(mean, std,
                                                                    generator=generator), result)
            return tensor.copy_(result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def excess(c: Any) -> Any:  # log density minus its peak
            return ((c - mean) / std) ** 2 * -0.5 - log_peak

        tensor.uniform_(a, b, generator=generator)
        candidates = excess(tensor)
        pending = m.empty_like(tensor).uniform_(generator=generator).log() > candidates
        result = tensor
        while pending.any():
            proposal = m.empty_like(tensor).uniform_(a, b, generator=generator)
            result = m.where(pending, proposal, result)
            accept_draw = m.empty_like(tensor).uniform_(generator=generator).log()
            pending = m.where(pending, accept_draw > excess(proposal), pending)
        return tensor.copy_(result)


def constant_(tensor: Any, val: float) -> Any:
    return _fill(tensor, np.full(tuple(tensor.shape), val))


def ones_(tensor: Any) -> Any:
    return constant_(tensor, 1.0)


def zeros_(tensor: Any) -> Any:
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    """U(-r, r), r = gain * sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    r = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return uniform_(tensor, -r, r, generator)


def xavier_normal_(tensor: Any, gain: float = 1.0, generator: Any = None) -> Any:
    """N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Any, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Any:
    """U(-r, r), r = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tuple(tensor.shape):
        return tensor  # torch warns and leaves an empty tensor alone
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return uniform_(tensor, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)


def kaiming_normal_(tensor: Any, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Any:
    """N(0, std^2), std = gain / sqrt(fan)."""
    if 0 in tuple(tensor.shape):
        return tensor
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode)),
                   generator)


def orthogonal_(tensor: Any, gain: float = 1, generator: Any = None) -> Any:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal draw (Saxe et al.),
    trailing dims flattened, scaled by ``gain``; drawn as torch's."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    E = backend_of(tensor)
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    draw = E.module.empty(rows, cols, dtype=tensor.dtype)
    with E.no_grad():
        draw.normal_(0.0, 1.0, generator=generator)
    flat = E.numpy(draw).astype(np.float64)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))  # unique: a positive diagonal of r
    if rows < cols:
        q = q.T
    return _fill(tensor, (gain * q).reshape(tuple(tensor.shape)))


def eye_(tensor: Any) -> Any:
    """The identity in a 2-D tensor (ones on the main diagonal, zeros elsewhere)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tuple(tensor.shape)))


def dirac_(tensor: Any, groups: int = 1) -> Any:
    """A convolution weight (out, in, *kernel) that passes its input through: in each of
    ``groups`` groups, output channel ``d`` has a one at input channel ``d``, kernel centre."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    shape = tuple(tensor.shape)
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = shape[0] // groups
    values = np.zeros(shape)
    centre = tuple(k // 2 for k in shape[2:])
    for g in range(groups):
        for d in range(min(out_per_group, shape[1])):
            values[(g * out_per_group + d, d) + centre] = 1.0
    return _fill(tensor, values)


__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "eye_", "dirac_"]
