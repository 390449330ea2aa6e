"""``transgrad.testing``: ``assert_close``, as ``torch.testing.assert_close``.

Input: two tensors of either engine, numbers, numpy arrays, or sequences and mappings of them.
Output: nothing, or an ``AssertionError`` in torch's words (which attribute differs, or how many
elements are not close and the greatest absolute and relative differences with their indices).
Default tolerances per dtype are torch's.
"""

from __future__ import annotations

import collections.abc
from typing import Any, Optional

import numpy as np

from transgrad._backend import is_tensor

__all__ = ["assert_close"]

# torch's defaults (rtol, atol) by dtype; integers and bools compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True,
                 rtol: Optional[float] = None, atol: Optional[float] = None,
                 equal_nan: bool = False, check_device: bool = True, check_dtype: bool = True,
                 check_layout: bool = True, check_stride: bool = False,
                 msg: Optional[str] = None) -> None:
    """Raise ``AssertionError`` unless ``actual`` and ``expected`` are close:
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise, after checking shape and
    (with ``check_dtype``) dtype; sequences and mappings are compared item by item."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {'rtol' if rtol is None else 'atol'}.")
    _compare(actual, expected, rtol, atol, equal_nan, check_dtype, msg, [])


def _compare(actual: Any, expected: Any, rtol: Optional[float], atol: Optional[float],
             equal_nan: bool, check_dtype: bool, msg: Optional[str], path: list) -> None:
    if isinstance(expected, collections.abc.Mapping) and isinstance(
            actual, collections.abc.Mapping):
        if set(actual) != set(expected):
            _fail(f"The keys of the mappings do not match:\nActual keys: {sorted(actual)}\n"
                  f"Expected keys: {sorted(expected)}", msg, path)
        for k in expected:
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_dtype, msg,
                     path + [repr(k)])
        return
    if _is_sequence(expected) and _is_sequence(actual):
        if len(actual) != len(expected):
            _fail(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                  msg, path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_dtype, msg, path + [str(i)])
        return
    if _is_number(actual) and _is_number(expected):
        _compare_scalars(actual, expected, rtol, atol, equal_nan, check_dtype, msg, path)
        return
    if not (_is_tensor_like(actual) and _is_tensor_like(expected)):
        raise TypeError(f"No comparison pair was able to handle inputs of type "
                        f"{type(actual)} and {type(expected)}.")
    a, e = _array(actual), _array(expected)
    if a.shape != e.shape:
        _fail(f"The values for attribute 'shape' do not match: {_size(a)} != {_size(e)}.",
              msg, path)
    if check_dtype and a.dtype != e.dtype:
        _fail(f"The values for attribute 'dtype' do not match: torch.{a.dtype} != "
              f"torch.{e.dtype}.", msg, path)
    r, t = _tolerances(a, e, rtol, atol)
    _compare_values(a, e, r, t, equal_nan, "Tensor-likes", msg, path)


def _compare_scalars(actual: Any, expected: Any, rtol: Optional[float], atol: Optional[float],
                     equal_nan: bool, check_dtype: bool, msg: Optional[str], path: list) -> None:
    if check_dtype and type(actual) is not type(expected):
        _fail(f"The (d)types do not match: {type(actual)} != {type(expected)}.", msg, path)
    exact = isinstance(expected, (int, np.integer)) and isinstance(actual, (int, np.integer))
    r, t = (rtol, atol) if rtol is not None else (
        (0.0, 0.0) if exact else _TOLERANCES["float64"])
    assert t is not None
    if _close(np.array(actual), np.array(expected), r, t, equal_nan).all():
        return
    diff = abs(actual - expected)
    rel = diff / abs(expected) if expected != 0 else float("inf")
    if exact:
        _fail(f"Scalars are not equal!\n\nExpected {expected} but got {actual}.\n"
              f"Absolute difference: {diff}\nRelative difference: {rel}", msg, path)
    _fail(f"Scalars are not close!\n\nExpected {expected} but got {actual}.\n"
          f"Absolute difference: {diff} (up to {t} allowed)\n"
          f"Relative difference: {rel} (up to {r} allowed)", msg, path)


def _compare_values(a: np.ndarray, e: np.ndarray, rtol: float, atol: float, equal_nan: bool,
                    what: str, msg: Optional[str], path: list) -> None:
    ok = _close(a, e, rtol, atol, equal_nan)
    if ok.all():
        return
    bad = int((~ok).sum())
    exact = a.dtype.kind in "iub" and e.dtype.kind in "iub"
    # torch computes the differences in the pair's dtype (relative ones of integers in float32)
    work = np.result_type(a.dtype, e.dtype) if not exact else np.dtype(np.int64)
    rel_work = work if not exact else np.dtype(np.float32)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.where(ok, 0, np.abs(a.astype(work) - e.astype(work)))
        rel = np.where(ok, 0, diff.astype(rel_work) / np.abs(e.astype(rel_work)))
    limits = ("", "") if exact else (f" (up to {atol} allowed)", f" (up to {rtol} allowed)")
    lines = [f"Mismatched elements: {bad} / {a.size} ({100 * bad / a.size:.1f}%)",
             f"Greatest absolute difference: {_num(diff.max(), exact)} at index "
             f"{_index(diff, a.shape)}{limits[0]}",
             f"Greatest relative difference: {_num(rel.max(), False)} at index "
             f"{_index(rel, a.shape)}{limits[1]}"]
    verdict = "equal" if exact else "close"
    _fail(f"{what} are not {verdict}!\n\n" + "\n".join(lines), msg, path)


def _close(a: np.ndarray, e: np.ndarray, rtol: float, atol: float,
           equal_nan: bool) -> np.ndarray:
    if a.dtype.kind in "iub" and e.dtype.kind in "iub" and rtol == 0 and atol == 0:
        return np.asarray(a == e)
    af, ef = a.astype(np.float64), e.astype(np.float64)
    with np.errstate(invalid="ignore"):
        ok = (af == ef) | (np.abs(af - ef) <= atol + rtol * np.abs(ef))
    if equal_nan:
        ok |= np.isnan(af) & np.isnan(ef)
    return np.asarray(ok)


def _tolerances(a: np.ndarray, e: np.ndarray, rtol: Optional[float],
                atol: Optional[float]) -> tuple:
    if rtol is not None and atol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(str(d), (0.0, 0.0)) for d in (a.dtype, e.dtype)]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _fail(text: str, msg: Optional[str], path: list) -> None:
    if msg is not None:
        raise AssertionError(msg)
    if path:
        text += "\n\nThe failure occurred for item " + "".join(f"[{p}]" for p in path)
    raise AssertionError(text)


def _array(x: Any) -> np.ndarray:
    return np.asarray(x.detach()) if is_tensor(x) else np.asarray(x)


def _is_tensor_like(x: Any) -> bool:
    return is_tensor(x) or isinstance(x, np.ndarray)


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float, complex, np.number)) and not isinstance(x, np.ndarray)


def _is_sequence(x: Any) -> bool:
    return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)


def _size(a: np.ndarray) -> str:
    return f"torch.Size({list(a.shape)})"


def _num(v: Any, exact: bool) -> Any:
    return int(v) if exact else float(v)


def _index(values: np.ndarray, shape: tuple) -> tuple:
    return tuple(int(i) for i in np.unravel_index(int(np.argmax(values)), shape)) if shape \
        else ()
