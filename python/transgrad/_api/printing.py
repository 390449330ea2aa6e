"""How tensors print: ``repr``/``str`` as torch prints, and ``set_printoptions``.

Input: a tensor of either engine. Output: ``tensor([...], dtype=..., grad_fn=<...>)`` with
torch's defaults (4 digits, summarised above 1000 elements with 3 at each edge, 80 columns);
``set_printoptions`` changes them for both engines, with torch's arguments and profiles.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from transgrad._backend import engine_module
from transgrad._dtypes import is_floating_or_complex

__all__ = ["set_printoptions", "get_printoptions"]

_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=2**63 - 1, edgeitems=3, linewidth=80)}
_options: dict = dict(_PROFILES["default"], sci_mode=None)


def set_printoptions(precision: Optional[int] = None, threshold: Optional[float] = None,
                     edgeitems: Optional[int] = None, linewidth: Optional[int] = None,
                     profile: Optional[str] = None, sci_mode: Optional[bool] = None) -> None:
    """Set how tensors print (torch's arguments): ``profile`` ("default", "short", "full")
    first, then each given option."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile {profile!r}: expected one of "
                             f"{sorted(_PROFILES)}")
        _options.update(_PROFILES[profile])
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _options[key] = int(value) if value != float("inf") else 2**63 - 1
    _options["sci_mode"] = sci_mode


def get_printoptions() -> dict:
    """The current print options, as torch's ``get_printoptions``."""
    return dict(_options)


def tensor_repr(t: Any) -> str:
    """``tensor(...)`` as torch prints it (layout, widths, summaries, suffixes)."""
    a = np.asarray(t.detach() if t.requires_grad else t)
    default = _default_dtype(t)
    suffixes = []
    if a.size == 0:
        body = "[]"
        if a.ndim != 1:
            suffixes.append(f"size={tuple(a.shape)}")
        if a.dtype.name != default:
            suffixes.append(f"dtype=torch.{a.dtype.name}")
    else:
        summarize = a.size > _options["threshold"]
        if not _options["edgeitems"]:
            suffixes.append(f"size={tuple(a.shape)}")
        if a.dtype.name not in (default, "int64", "bool"):
            suffixes.append(f"dtype=torch.{a.dtype.name}")
        fmt = _Formatter(_summary(a) if summarize else a)
        body = _nested(a, len("tensor("), summarize, fmt)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes("tensor(" + body, suffixes, len("tensor("))


def _default_dtype(t: Any) -> str:
    return engine_module(t).get_default_dtype().name


class _Formatter:
    """One width and one notation for every element of a tensor, chosen as torch chooses:
    integers print as they are; floats print as ``1.`` when all are integral, else with
    ``precision`` decimals, in scientific notation when the nonzero finite magnitudes span more
    than 1000x, exceed 1e8 or go below 1e-4 (unless ``sci_mode`` says otherwise)."""

    def __init__(self, a: np.ndarray) -> None:
        self.floating = is_floating_or_complex(a.dtype)
        self.int_mode, self.sci_mode, self.width = True, False, 1
        p = _options["precision"]
        flat = a.reshape(-1)
        if not self.floating:
            self.width = max([1] + [len(_plain(v)) for v in flat.tolist()])
            return
        vals = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if vals.size == 0:
            self.width = max([1] + [len(self.format(v)) for v in flat.tolist()])
            return
        mags = np.abs(vals)
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        sci = _options["sci_mode"]
        self.sci_mode = bool(mags.max() / mags.min() > 1000.0 or mags.max() > 1.0e8
                             or mags.min() < 1.0e-4) if sci is None else bool(sci)
        if self.sci_mode:
            widths = [len(f"{v:.{p}e}") for v in vals.tolist()]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in vals.tolist()]
        else:
            widths = [len(f"{v:.{p}f}") for v in vals.tolist()]
        self.width = max(widths)

    def format(self, v: Any) -> str:
        p = _options["precision"]
        if not self.floating:
            text = _plain(v)
        elif self.sci_mode:
            text = f"{v:.{p}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{p}f}"
        return text.rjust(self.width)


def _plain(v: Any) -> str:
    return str(v)


def _summary(a: np.ndarray) -> np.ndarray:
    """The entries a summarised print shows (``edgeitems`` at each end of every dim), for the
    formatter's width and notation."""
    e = _options["edgeitems"]
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * e:
        a = np.concatenate([a[:e], a[-e:]]) if e else a[:0]
    return np.stack([_summary(x) for x in a]) if a.ndim > 1 and a.shape[0] else a


def _nested(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    e = _options["edgeitems"]
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        per_line = max(1, (_options["linewidth"] - indent) // (fmt.width + 2))
        if summarize and not e:
            items = ["..."]
        elif summarize and a.shape[0] > 2 * e:
            items = ([fmt.format(v) for v in a[:e].tolist()] + [" ..."]
                     + [fmt.format(v) for v in a[-e:].tolist()])
        else:
            items = [fmt.format(v) for v in a.tolist()]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and a.shape[0] > 2 * e:
        parts = ([_nested(a[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                 + [_nested(a[i], indent + 1, summarize, fmt)
                    for i in range(a.shape[0] - e, a.shape[0])])
    else:
        parts = [_nested(x, indent + 1, summarize, fmt) for x in a]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _with_suffixes(text: str, suffixes: list, indent: int) -> str:
    """Append ``, suffix`` items, starting a new line where one would pass ``linewidth``."""
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > _options["linewidth"]:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"
