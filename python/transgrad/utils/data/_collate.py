"""Collation, as ``torch.utils.data._utils.collate``: a list of samples -> one batch.

Input: a list of samples (tensors of either engine, numpy arrays and scalars, Python numbers,
strings, and mappings/namedtuples/sequences of these). Output: the same structure with a batch
dimension in front of every tensor leaf: ``default_collate`` stacks tensors and arrays, makes
int64 / float64 tensors of Python ints / floats, and leaves strings as lists.
``default_convert`` (no batching) only turns numpy arrays and scalars into tensors.

Note [The engine of a batch]
Tensors are stacked by their own engine. Leaves that are not tensors (numbers, arrays) become
tensors of the engine of the first tensor found in the first sample, so a sample
``(reference_image, 3)`` collates to two reference tensors; a batch without any tensor uses the
loader's engine (``transgrad`` for ``transgrad.utils.data``, ``transgrad.reference`` for its
twin). The choice is made once per call of ``default_collate``/``default_convert`` and held in a
context variable, so the per-type functions keep torch's signature ``fn(batch, *,
collate_fn_map)`` and work the same in worker processes and threads.
"""

from __future__ import annotations

import abc
import collections.abc
import contextlib
import contextvars
import copy
import re
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Type, Union

import numpy as np

from transgrad.utils import _engine

_ENGINE: contextvars.ContextVar[Optional[str]] = contextvars.ContextVar("collate_engine",
                                                                        default=None)

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")

np_str_obj_array_pattern = re.compile(r"[SaUO]")


class AnyTensor(abc.ABC):  # noqa: B024 (a virtual base: membership by __subclasshook__)
    """``isinstance(x, AnyTensor)``: x is a tensor of any loaded engine (Parameters included).
    The key of the tensor entry in ``default_collate_fn_map``."""

    @classmethod
    def __subclasshook__(cls, subclass: type) -> Any:
        return _engine.engine_of_class(subclass) is not None or NotImplemented


def _first_tensor_engine(obj: Any, depth: int = 0) -> Optional[str]:
    """The engine name of the first tensor found in ``obj`` (depth-first, bounded)."""
    mod = _engine.engine_of(obj)
    if mod is not None:
        return mod.__name__
    if depth > 8 or isinstance(obj, (str, bytes, np.ndarray)):
        return None
    if isinstance(obj, collections.abc.Mapping):
        items: Any = obj.values()
    elif isinstance(obj, collections.abc.Sequence):
        items = obj
    else:
        return None
    for item in items:
        name = _first_tensor_engine(item, depth + 1)
        if name is not None:
            return name
    return None


@contextlib.contextmanager
def _engine_for(sample: Any, default: str) -> Iterator[None]:
    """Hold the engine of this batch while it is collated (Note [The engine of a batch])."""
    token = _ENGINE.set(_first_tensor_engine(sample) or default)
    try:
        yield
    finally:
        _ENGINE.reset(token)


def _current_engine() -> Any:
    return _engine.engine(_ENGINE.get() or _engine.COMPILED)


def _stack(batch: list) -> Any:
    """Stack same-shape tensors along a new first dimension, with torch's error."""
    shape = tuple(batch[0].shape)
    for i, t in enumerate(batch):
        if tuple(t.shape) != shape:
            raise RuntimeError("stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(t.shape)} at entry {i}")
    mod = _engine.engine_of(batch[0])
    return mod.stack(batch, 0)  # type: ignore[union-attr]


def _like_mapping(elem: Any, fields: Dict[Any, Any]) -> Any:
    """``fields`` in a mapping of ``elem``'s type (a copy of it, when mutable), or a dict when
    that type cannot be built from one."""
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(fields)
            return clone
        return type(elem)(fields)
    except TypeError:
        return fields


def _like_sequence(elem: Any, items: List[Any]) -> Any:
    """``items`` in a sequence of ``elem``'s type (as ``_like_mapping``), else the list."""
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(elem)(items)
    except TypeError:
        return items


# ---- per-type collate functions (torch's names and signature) ------------------------------

def collate_tensor_fn(batch: list, *, collate_fn_map: Optional[Dict] = None) -> Any:
    return _stack(batch)


def collate_numpy_array_fn(batch: list, *, collate_fn_map: Optional[Dict] = None) -> Any:
    elem = batch[0]
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    mod = _current_engine()
    return collate([mod.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list, *, collate_fn_map: Optional[Dict] = None) -> Any:
    return _current_engine().as_tensor(np.array(batch))


def collate_float_fn(batch: list, *, collate_fn_map: Optional[Dict] = None) -> Any:
    mod = _current_engine()
    return mod.tensor(batch, dtype=mod.float64)


def collate_int_fn(batch: list, *, collate_fn_map: Optional[Dict] = None) -> Any:
    return _current_engine().tensor(batch)


def collate_str_fn(batch: Any, *, collate_fn_map: Optional[Dict] = None) -> Any:
    return batch


default_collate_fn_map: Dict[Union[Type, Tuple[Type, ...]], Callable] = {
    AnyTensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    # numpy scalars (np.float64 is also a float: this entry comes first, as torch's)
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch: Any, *, collate_fn_map: Optional[Dict] = None) -> Any:
    """Collate ``batch`` (a list of samples) by the type of its first element: an exact type in
    ``collate_fn_map`` first, then the first key it is an instance of, then the containers
    (mapping, namedtuple, sequence: collated field by field)."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for key in collate_fn_map:
            if isinstance(elem, key):
                return collate_fn_map[key](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _like_mapping(elem, {k: collate([d[k] for d in batch],
                                               collate_fn_map=collate_fn_map) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map)
                           for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # a list, as torch's (kept for backward compatibility there)
        return _like_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_on(batch: Any, engine: str) -> Any:
    """``default_collate`` with ``engine`` for batches that hold no tensor."""
    with _engine_for(batch[0], engine):
        return collate(batch, collate_fn_map=default_collate_fn_map)


def convert_on(data: Any, engine: str) -> Any:
    """``default_convert`` with ``engine`` for data that holds no tensor."""
    with _engine_for(data, engine):
        return _convert(data)


def _convert(data: Any) -> Any:
    elem_type = type(data)
    if _engine.is_tensor(data):
        return data
    if isinstance(data, np.ndarray):
        if np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _current_engine().as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_)):
        return _current_engine().as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return _like_mapping(data, {k: _convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(_convert(d) for d in data))
    if isinstance(data, tuple):
        return [_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _like_sequence(data, [_convert(d) for d in data])
    return data


def default_collate(batch: Any) -> Any:
    """Stack a list of samples into a batch, as torch's ``default_collate`` (tensors of
    ``transgrad`` unless the samples hold tensors of another engine)."""
    return collate_on(batch, _engine.COMPILED)


def default_convert(data: Any) -> Any:
    """Numpy arrays and scalars in ``data`` to tensors, containers kept, as torch's
    ``default_convert`` (the collate of a DataLoader with ``batch_size=None``)."""
    return convert_on(data, _engine.COMPILED)
