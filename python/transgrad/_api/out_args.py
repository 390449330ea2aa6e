"""``out=`` on torch's functions (issue 11): ``torch.mul(a, b, out=c)`` writes the result into
``c`` and returns ``c``, with torch's rules and words, on both engines.

Note [out= is a copy into the given tensor]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
One mechanism serves every function that takes ``out=``: the function runs as usual, then
its result is copied into ``out`` in place. As torch: while grad mode is on, an input or ``out``
that requires grad is refused (``mul(): functions with out=... arguments don't support
automatic differentiation, but one of the arguments requires grad.``), since no node could
record a write into a caller's tensor; a result that cannot be cast to ``out``'s dtype is
refused (``result type Float can't be cast to the desired output type Long``); an ``out`` of
another shape is resized to the result's, with torch's deprecation warning when it held
elements. The result is computed before ``out`` is touched, so ``out`` may alias an input.

Note [out= of several results]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Where torch returns several tensors (``max(x, dim)``, ``sort``, ``linalg.eigh``, ...), ``out``
is a tuple of as many tensors and the result is torch's ``<name>_out`` return type holding
them (``torch.return_types.max_out``). Each is written as above, but its dtype must be the
result's own (torch: ``Expected out tensor to have dtype long int, but got float instead``).
Whether a result is one tensor or several is known once the function ran (``max(x)`` and
``max(x, dim)`` are one function), so a tensor given for a tuple, or the reverse, is refused
then (before anything is written), with torch's ``argument 'out' must be ...`` words.

Note [out= in the function's own signature]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Each function spells torch's keyword-only ``out=None`` in its own signature and starts with
``if out is not None: return write_out(name, itself, args, kwargs, out)``. A wrapper adding
``out=`` around the plain function (as before) cost one Python frame per call: +0.04 us on
tg.sin's ~0.45 us, +2.6..4.5% on W1 (a 1000-op chain, one third sin). Spelled in the
signature, the common call pays one ``is None`` test, and ``inspect.signature``, ``help()``
and the generated stubs show ``out`` as torch's documentation does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from transgrad import return_types
from transgrad._backend import backend_of, is_tensor

__all__ = ["write_factory_out", "write_out"]


def _tensors(values: Any) -> list:
    out: list = []
    for v in values:
        if is_tensor(v):
            out.append(v)
        elif isinstance(v, (list, tuple)):
            out.extend(t for t in v if is_tensor(t))
    return out


def _category(dtype: Any) -> int:
    kind = dtype.kind if hasattr(dtype, "kind") else str(dtype)
    return {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}.get(kind, 2)


def _check_overlap(out: Any, inputs: list) -> None:
    """torch's refusals of an ``out`` whose elements share memory, with each other or partly
    with an input (the same tensor as an input is fine: each element is read before written)."""
    import numpy as np

    o = out.detach().numpy()
    if any(st == 0 and n > 1 for st, n in zip(o.strides, o.shape)) and o.size:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    where = o.__array_interface__["data"][0]
    for t in inputs:
        a = t.detach().numpy()
        if a.size and o.size and np.may_share_memory(a, o) and not (
                a.__array_interface__["data"][0] == where and a.shape == o.shape and
                a.strides == o.strides):
            raise RuntimeError("unsupported operation: some elements of the input tensor and "
                               "the written-to tensor refer to a single memory location. "
                               "Please clone() the tensor before performing the operation.")


def write_out(name: str, f: Callable[..., Any], args: tuple, kwargs: dict, out: Any) -> Any:
    """Note [out= is a copy into the given tensor]; a function of several results takes a tuple
    of tensors (Note [out= of several results])."""
    if isinstance(out, (tuple, list)):
        if not all(is_tensor(t) for t in out) or not out:
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not "
                            f"{type(out).__name__}")
        outs = list(out)
    elif not is_tensor(out):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    else:
        outs = [out]
    B = backend_of(outs[0])
    inputs = _tensors(list(args) + list(kwargs.values()))
    if B.autograd.is_grad_enabled() and (any(o.requires_grad for o in outs) or any(
            t.requires_grad for t in inputs)):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    for o in outs:
        _check_overlap(o, inputs)
    with B.autograd.no_grad():
        result = f(*args, **kwargs)
        several = isinstance(result, tuple)
        if several != (out is not outs[0]):
            want = "tuple of Tensors" if several else "Tensor"
            raise TypeError(f"{name}(): argument 'out' must be {want}, not "
                            f"{type(out).__name__}")
        results = list(result) if several else [result]
        if len(outs) != len(results):
            raise TypeError(f"expected tuple of {len(results)} elements but got {len(outs)}")
        for o, r in zip(outs, results):
            _check_dtype(o, r, exact=several)
        for o, r in zip(outs, results):
            _copy_into(o, r)
    if not several:
        return out
    if isinstance(result, return_types._StructSeq):
        return _out_type(type(result))(outs)
    return tuple(outs)


def write_factory_out(name: str, make: Callable[[Any], Any], out: Any, dtype: Any,
                      grad_words: str = "") -> Any:
    """torch's factories with ``out=`` (``zeros(2, 3, out=t)``): the values are made in
    ``out``'s dtype (a different ``dtype=`` is refused) and written into ``out``, resized
    without a warning except by ``arange``, as torch's."""
    from transgrad._api.dtype_checks import scalar_name
    from transgrad._dtypes import as_dtype

    if not is_tensor(out):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    B = backend_of(out)
    if B.autograd.is_grad_enabled() and out.requires_grad:
        raise RuntimeError(grad_words or f"aten::{name}(): functions with out=... arguments "
                           "don't support automatic differentiation, but one of the arguments "
                           "requires grad.")
    if dtype is not None and as_dtype(dtype) != out.dtype:
        raise RuntimeError(f"dtype {scalar_name(as_dtype(dtype))} does not match dtype of out "
                           f"parameter ({scalar_name(out.dtype)})")
    with B.autograd.no_grad():
        result = make(out.dtype)
        if name == "arange":
            _copy_into(out, result, stacklevel=5)
        else:
            if tuple(out.shape) != tuple(result.shape):
                out.resize_(tuple(result.shape))
            out.copy_(result)
    return out


def _check_dtype(out: Any, result: Any, exact: bool) -> None:
    from transgrad._api.dtype_checks import cpp_name, scalar_name

    if exact:  # torch's kernels of several results take out tensors of their own dtypes only
        if out.dtype != result.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {cpp_name(result.dtype)}, but "
                               f"got {cpp_name(out.dtype)} instead")
    elif _category(result.dtype) > _category(out.dtype):
        raise RuntimeError(f"result type {scalar_name(result.dtype)} can't be cast to the "
                           f"desired output type {scalar_name(out.dtype)}")


def _copy_into(out: Any, result: Any, stacklevel: int = 4) -> None:
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future "
                "PyTorch release outputs will not be resized unless they have zero "
                "elements. You can explicitly reuse an out tensor t by resizing it, "
                "inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=stacklevel)
        out.resize_(tuple(result.shape))
    out.copy_(result)


_OUT_TYPES: dict = {}


def _out_type(cls: type) -> Any:
    """torch's class for an out= result: ``torch.max(x, 0, out=(v, i))`` is a
    ``torch.return_types.max_out``, with ``max``'s fields."""
    t = _OUT_TYPES.get(cls)
    if t is None:
        t = return_types._make(cls.__name__ + "_out", cls._names)  # type: ignore[attr-defined]
        setattr(return_types, t.__name__, t)  # pickled by module and name, as the others
        _OUT_TYPES[cls] = t
    return t
