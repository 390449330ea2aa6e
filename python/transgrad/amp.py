"""``transgrad.amp``: ``autocast`` and ``GradScaler`` as training scripts use them, on the CPU.

Input: the script's mixed-precision switches. Output: ``GradScaler`` scales the loss, unscales
the gradients, skips an optimizer step whose gradients overflowed and adapts its scale, as
torch's does (engine-neutral: it only multiplies tensors and calls ``optimizer.step``).
``autocast`` has no CPU kernels to switch to here: as torch does for ``device_type="cuda"``
without CUDA, an enabled autocast warns and runs disabled (ops keep their input dtypes), so a
script written for a GPU runs unchanged. Disabled (``enabled=False``), both are no-ops, as torch.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable, Dict, Optional

__all__ = ["autocast", "GradScaler"]


class autocast:
    """``with autocast(device_type, dtype=None, enabled=True, cache_enabled=None):`` (also a
    decorator): a no-op context, with a warning when asked to be enabled."""

    def __init__(self, device_type: str, dtype: Any = None, enabled: bool = True,
                 cache_enabled: Optional[bool] = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: "
                             f"`{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = bool(enabled)
        if self._enabled:
            if device_type == "cuda":  # torch's words on a machine without CUDA
                message = "CUDA is not available or torch_xla is imported. Disabling autocast."
            else:
                message = (f"autocast on '{device_type}': transgrad has no reduced-precision "
                           "autocast kernels; ops keep their input dtypes. Disabling autocast.")
            warnings.warn(message, UserWarning, stacklevel=2)
            self._enabled = False

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return run


_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """Dynamic loss scaling: ``scaler.scale(loss).backward()``, ``scaler.step(optimizer)``,
    ``scaler.update()``. A step whose gradients hold inf or NaN is skipped and the scale
    multiplied by ``backoff_factor``; after ``growth_interval`` clean steps it grows by
    ``growth_factor``. ``device="cuda"`` (torch's default) has no CUDA here: enabled, it warns
    and disables itself, as torch does on a machine without CUDA."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = bool(enabled)
        if self._enabled and device == "cuda":
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = float(growth_factor), float(backoff_factor)
        self._growth_interval, self._growth_tracker = int(growth_interval), 0
        self._stages: Dict[int, str] = {}
        self._found_inf: Dict[int, bool] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def get_scale(self) -> float:
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor or nested lists/tuples of them) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * self._scale

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale (once per step), noting any inf/NaN."""
        if not self._enabled:
            return
        stage = self._stages.get(id(optimizer), _READY)
        if stage == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if stage == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = 1.0 / self._scale
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                g.mul_(inv_scale)
                if not found and not math.isfinite(float(g.abs().sum())):
                    found = True
        self._found_inf[id(optimizer)] = found
        self._stages[id(optimizer)] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step()`` on the unscaled gradients, skipped when they overflowed."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        stage = self._stages.get(id(optimizer), _READY)
        if stage == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if stage == _READY:
            self.unscale_(optimizer)
        result = None
        if not self._found_inf[id(optimizer)]:
            result = optimizer.step(*args, **kwargs)
        self._stages[id(optimizer)] = _STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        """Adapt the scale to this step's overflow record (or set it to ``new_scale``)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        elif any(self._found_inf.values()):
            self._scale *= self._backoff_factor
            self._growth_tracker = 0
        else:
            self._growth_tracker += 1
            if self._growth_tracker == self._growth_interval:
                self._scale *= self._growth_factor
                self._growth_tracker = 0
        self._stages.clear()
        self._found_inf.clear()

    def state_dict(self) -> Dict[str, Any]:
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: Dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])
