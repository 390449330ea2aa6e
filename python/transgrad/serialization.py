"""Saving and loading, as ``torch.save`` / ``torch.load``, in the safetensors format.

Input of ``save``: tensors, numbers, strings, bools, None, and dicts / OrderedDicts / lists /
tuples of them (module and optimizer state dicts). Output: a safetensors file (a path or a
binary file object). ``load`` reads it back into tensors of the loading engine.

Note [File format]
The file is plain safetensors (8-byte little-endian header length, a JSON header, the tensor
data), written by ``safetensors.numpy.save``. Every tensor of ``obj`` is stored as one safetensors
tensor: a dict whose keys are strings keeps its keys as names ("0.weight"), nested containers
join the path with dots ("state.0.exp_avg"), and a clash gets a "#n" suffix. The structure
(containers, non-tensor values, requires_grad) is JSON under the metadata key STRUCTURE_KEY;
so a flat state dict written here is what ``safetensors.torch.save_file`` writes (its metadata
is ignored by ``safetensors.torch.load_file``), and a file without our key (written by torch's
``save_file``) loads as a flat dict of its tensors, in header order. Each tensor is saved by
value: views and tensors sharing storage are written as separate copies of their values, and
load gives independent tensors.

Note [Loading runs no code]
Nothing here unpickles. ``load`` checks the header itself before handing the bytes to
safetensors (length, JSON object, dtypes, shapes, offsets inside the data, sizes matching the
shapes) and checks the structure against the tensors it names, so a truncated or crafted file
is a ``ValueError`` saying what is wrong, never a crash or a hang. Values the format cannot hold
(functions, modules, arbitrary objects, complex128) are refused at save time, naming their path
in ``obj`` (``obj['opt']['param_groups'][0]['foo']``).
"""

from __future__ import annotations

import collections
import json
import math
import os
import struct
from typing import Any, Dict, Optional, Tuple

import numpy as np

from transgrad import _dtypes
from transgrad.utils import _engine

STRUCTURE_KEY = "transgrad.structure"
_FORMAT_VERSION = 1
_MAX_HEADER = 100_000_000  # safetensors' own limit on the header size
_MAX_DEPTH = 200  # nesting of the structure (a crafted file cannot exhaust the stack)

# safetensors dtype name <-> numpy dtype (what safetensors.numpy can read and write)
_ST_DTYPES: Dict[str, np.dtype] = {
    "BOOL": np.dtype("bool"), "U8": np.dtype("uint8"), "I8": np.dtype("int8"),
    "U16": np.dtype("uint16"), "I16": np.dtype("int16"), "U32": np.dtype("uint32"),
    "I32": np.dtype("int32"), "U64": np.dtype("uint64"), "I64": np.dtype("int64"),
    "F16": np.dtype("float16"), "F32": np.dtype("float32"), "F64": np.dtype("float64"),
    "C64": np.dtype("complex64"), "BF16": _dtypes.bfloat16.dtype,
}
_NUMPY_TO_ST = {v: k for k, v in _ST_DTYPES.items()}


# ---- save ----------------------------------------------------------------------------------

def _path_str(path: Tuple[Any, ...]) -> str:
    return "obj" + "".join(f"[{p!r}]" for p in path)


class _Writer:
    """Walks ``obj`` once: collects the tensors under unique names and builds the structure."""

    def __init__(self) -> None:
        self.arrays: Dict[str, np.ndarray] = {}
        self._open: set = set()  # ids of the containers being walked (cycle check)

    def _name(self, path: Tuple[Any, ...]) -> str:
        base = ".".join(str(p) for p in path) or "tensor"
        name, n = base, 1
        while name in self.arrays:
            name, n = f"{base}#{n}", n + 1
        return name

    def tensor(self, t: Any, path: Tuple[Any, ...]) -> Dict[str, Any]:
        # a C-ordered copy that keeps 0-d shapes (np.ascontiguousarray makes them 1-d)
        a = np.array(t.detach().numpy(), order="C", copy=True)
        if a.dtype not in _NUMPY_TO_ST:
            raise TypeError(f"cannot save {_path_str(path)}: a tensor of dtype {a.dtype} has no "
                            f"safetensors dtype (supported: "
                            f"{', '.join(str(d) for d in _ST_DTYPES.values())})")
        name = self._name(path)
        self.arrays[name] = a
        node: Dict[str, Any] = {"tensor": name}
        if t.requires_grad:
            node["requires_grad"] = True
        if type(t).__name__ == "Parameter":
            node["parameter"] = True
        return node

    def value(self, obj: Any, path: Tuple[Any, ...]) -> Any:
        if _engine.is_tensor(obj):
            return self.tensor(obj, path)
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, (int, np.integer)) and not isinstance(obj, np.bool_):
            return int(obj)
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, (float, np.floating)):
            f = float(obj)
            return f if math.isfinite(f) else {"float": repr(f)}
        if isinstance(obj, (dict, list, tuple)):
            if len(path) >= _MAX_DEPTH:
                raise ValueError(f"cannot save {_path_str(path)}: nested more than "
                                 f"{_MAX_DEPTH} levels deep")
            if id(obj) in self._open:
                raise ValueError(f"cannot save {_path_str(path)}: the container contains "
                                 "itself")
            self._open.add(id(obj))
            try:
                return self._container(obj, path)
            finally:
                self._open.discard(id(obj))
        if hasattr(obj, "state_dict"):
            what = "a module or optimizer (save its state_dict())"
        elif callable(obj):
            what = f"a callable ({getattr(obj, '__qualname__', type(obj).__qualname__)})"
        else:
            what = f"an object of type {type(obj).__module__}.{type(obj).__qualname__}"
        raise TypeError(f"cannot save {_path_str(path)}: it is {what}; transgrad.save stores "
                        "tensors, numbers, strings, bools, None and dicts, lists and tuples of "
                        "them (no pickle)")

    def _container(self, obj: Any, path: Tuple[Any, ...]) -> Dict[str, Any]:
        if isinstance(obj, dict):
            items = []
            for k, v in obj.items():
                if not (k is None or isinstance(k, (str, int, float, bool))):
                    raise TypeError(f"cannot save {_path_str(path)}: its key {k!r} is a "
                                    f"{type(k).__name__}; keys must be str, int, float, bool "
                                    "or None")
                items.append([self.value(k, path), self.value(v, path + (k,))])
            tag = "ordereddict" if isinstance(obj, collections.OrderedDict) else "dict"
            return {tag: items}
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            raise TypeError(f"cannot save {_path_str(path)}: it is a namedtuple "
                            f"({type(obj).__qualname__}); save tuple(x) or x._asdict()")
        tag = "list" if isinstance(obj, list) else "tuple"
        return {tag: [self.value(v, path + (i,)) for i, v in enumerate(obj)]}


def _encode(obj: Any) -> bytes:
    """The safetensors bytes of ``obj`` (Note [File format])."""
    import safetensors.numpy

    w = _Writer()
    structure = w.value(obj, ())
    metadata = {STRUCTURE_KEY: json.dumps({"version": _FORMAT_VERSION, "root": structure},
                                          allow_nan=False)}
    return safetensors.numpy.save(w.arrays, metadata=metadata)


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` to ``f`` (a path or a binary file object) as torch.save does, in the
    safetensors format (Note [File format]); torch's pickle options are accepted and have no
    effect. Tensors are saved by value (views and shared storage become separate copies);
    anything that is not a tensor, number, string, bool, None or a dict/list/tuple of those
    raises TypeError naming its path in ``obj``, before anything is written."""
    data = _encode(obj)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            fh.write(data)
    elif callable(getattr(f, "write", None)):
        f.write(data)
    else:
        raise TypeError(f"save: f must be a path or a binary file object with write(), got "
                        f"{type(f).__name__}")


# ---- load ----------------------------------------------------------------------------------

class _Reader:
    """Checks a file's bytes and rebuilds its object (Note [Loading runs no code])."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data = data
        self.source = source

    def error(self, what: str) -> ValueError:
        return ValueError(f"load: {self.source} is not a valid transgrad/safetensors file: "
                          f"{what}")

    def header(self) -> Tuple[Dict[str, Any], Dict[str, str]]:
        data = self.data
        if data[:2] == b"PK" or data[:1] == b"\x80":
            raise ValueError(
                f"load: {self.source} looks like a file written by torch.save (a pickle); "
                "transgrad.load reads safetensors files only and never unpickles. In torch, "
                "save it with safetensors.torch.save_file(state_dict, path).")
        if len(data) < 8:
            raise self.error(f"it is {len(data)} bytes long, shorter than the 8-byte header "
                             "length")
        (n,) = struct.unpack("<Q", data[:8])
        if n > _MAX_HEADER:
            raise self.error(f"the header length {n} is larger than the limit "
                             f"{_MAX_HEADER} (wrong header length)")
        if 8 + n > len(data):
            raise self.error(f"the header length {n} runs past the end of the file "
                             f"({len(data)} bytes): truncated?")
        try:
            header = json.loads(data[8:8 + n].decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as e:
            raise self.error(f"the header is not JSON ({e})") from None
        if not isinstance(header, dict):
            raise self.error(f"the header is a JSON {type(header).__name__}, not an object")
        metadata = header.pop("__metadata__", None) or {}
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise self.error("__metadata__ must be an object of strings")
        body = len(data) - 8 - n
        for name, info in header.items():
            self._check_entry(name, info, body)
        return header, metadata

    def _check_entry(self, name: str, info: Any, body: int) -> None:
        if not isinstance(info, dict):
            raise self.error(f"the entry of tensor {name!r} is not an object")
        dtype, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if dtype not in _ST_DTYPES:
            raise self.error(f"tensor {name!r} has dtype {dtype!r}, which transgrad does not "
                             f"read (supported: {', '.join(_ST_DTYPES)})")
        if not (isinstance(shape, list) and all(
                type(d) is int and d >= 0 for d in shape)):
            raise self.error(f"tensor {name!r} has shape {shape!r}: expected a list of "
                             "non-negative ints")
        if not (isinstance(offsets, list) and len(offsets) == 2
                and all(type(o) is int for o in offsets) and 0 <= offsets[0] <= offsets[1]):
            raise self.error(f"tensor {name!r} has data_offsets {offsets!r}: expected "
                             "[begin, end] with 0 <= begin <= end")
        if offsets[1] > body:
            raise self.error(f"tensor {name!r} ends at byte {offsets[1]} of the data, past its "
                             f"end ({body} bytes): truncated?")
        nbytes = math.prod(shape) * _ST_DTYPES[dtype].itemsize
        if offsets[1] - offsets[0] != nbytes:
            raise self.error(f"tensor {name!r} of shape {shape} and dtype {dtype} needs "
                             f"{nbytes} bytes, its data_offsets span {offsets[1] - offsets[0]}")

    def arrays(self) -> Dict[str, np.ndarray]:
        import safetensors.numpy

        data, bf16 = _bf16_as_u16(self.data)
        try:
            arrays = safetensors.numpy.load(data)
        except Exception as e:  # what our checks let through (overlaps, holes)
            raise self.error(str(e)) from None
        for name in bf16:
            arrays[name] = arrays[name].view(_dtypes.bfloat16.dtype)
        return arrays


def _bf16_as_u16(data: bytes) -> Tuple[bytes, list]:
    """safetensors.numpy writes BF16 (ml_dtypes' bfloat16) but cannot read it back: the same
    file with its BF16 entries declared U16 (same bytes, header re-encoded compactly and padded
    with spaces to its length, as the format allows), and the names of those entries. The header
    was checked already (``_check_entry``)."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    names = [k for k, v in header.items() if isinstance(v, dict) and v.get("dtype") == "BF16"]
    if not names:
        return data, names
    for k in names:
        header[k]["dtype"] = "U16"
    raw = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    if len(raw) > n:  # cannot happen for a header json.loads accepted; never write past it
        raise ValueError("load: cannot re-encode the header of a file with BF16 tensors")
    return data[:8] + raw.ljust(n, b" ") + data[8 + n:], names


def _read_bytes(f: Any) -> Tuple[bytes, str]:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return fh.read(), repr(os.fspath(f))
    if callable(getattr(f, "read", None)):
        data = f.read()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError("load: f must be opened in binary mode (its read() returned "
                            f"{type(data).__name__})")
        return bytes(data), "the file object"
    raise TypeError(f"load: f must be a path or a binary file object with read(), got "
                    f"{type(f).__name__}")


def _check_map_location(map_location: Any) -> None:
    """Everything transgrad holds is on the CPU: accept only locations that say so."""
    if map_location is None:
        return
    targets = list(map_location.values()) if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if callable(target) and not isinstance(target, str):
            raise TypeError("load: a callable map_location is not supported (transgrad never "
                            "unpickles storages); use map_location='cpu' or None")
        if str(target) != "cpu":
            raise RuntimeError(f"load: map_location={target!r}: transgrad runs on the CPU only; "
                               "use map_location='cpu' or None")


class _Builder:
    """Rebuilds the saved object from its structure, with tensors of one engine."""

    def __init__(self, reader: _Reader, arrays: Dict[str, np.ndarray], engine: Any,
                 header: Dict[str, Any]) -> None:
        self.reader = reader
        self.arrays = arrays
        self.engine = engine
        self.header = header

    def tensor(self, name: str, requires_grad: bool = False, parameter: bool = False) -> Any:
        a = self.arrays[name]
        try:
            t = self.engine.from_numpy(np.array(a, copy=True))
        except (TypeError, ValueError) as e:
            raise ValueError(f"load: tensor {name!r} has dtype {a.dtype}, which "
                             f"{self.engine.__name__} does not support: {e}") from None
        if parameter:
            return _engine.parameter_class(self.engine)(t, requires_grad=requires_grad)
        return t.requires_grad_(True) if requires_grad else t

    def value(self, node: Any, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            raise self.reader.error(f"the structure is nested more than {_MAX_DEPTH} deep")
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not (isinstance(node, dict) and node):
            raise self.reader.error(f"unknown structure node {node!r:.80}")
        if "tensor" in node:
            name = node["tensor"]
            if not isinstance(name, str) or name not in self.header:
                raise self.reader.error(f"the structure names a tensor {name!r:.80} that the "
                                        "file does not hold")
            return self.tensor(name, node.get("requires_grad") is True,
                               node.get("parameter") is True)
        if len(node) != 1:
            raise self.reader.error(f"unknown structure node {node!r:.80}")
        (tag, body), = node.items()
        if tag == "float" and body in ("inf", "-inf", "nan"):
            return float(body)
        if tag in ("list", "tuple") and isinstance(body, list):
            items = [self.value(v, depth + 1) for v in body]
            return items if tag == "list" else tuple(items)
        if tag in ("dict", "ordereddict") and isinstance(body, list):
            out = collections.OrderedDict() if tag == "ordereddict" else {}
            for pair in body:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise self.reader.error(f"a dict item is {pair!r:.80}, not a [key, value] "
                                            "pair")
                key = self.value(pair[0], depth + 1)
                if not (key is None or isinstance(key, (str, int, float, bool))):
                    raise self.reader.error(f"a dict key is a {type(key).__name__}")
                out[key] = self.value(pair[1], depth + 1)
            return out
        raise self.reader.error(f"unknown structure node {node!r:.80}")


def load_into(f: Any, engine: str, map_location: Any = None) -> Any:
    """What ``f`` holds, with tensors of ``engine`` ("transgrad" or "transgrad.reference")."""
    _check_map_location(map_location)
    data, source = _read_bytes(f)
    reader = _Reader(data, source)
    header, metadata = reader.header()
    mod = _engine.engine(engine)
    structure = metadata.get(STRUCTURE_KEY)
    if structure is None:  # written elsewhere (safetensors.torch.save_file): a flat dict
        arrays = reader.arrays()
        builder = _Builder(reader, arrays, mod, header)
        return {name: builder.tensor(name) for name in header}
    try:
        doc = json.loads(structure)
    except (ValueError, RecursionError) as e:
        raise reader.error(f"the {STRUCTURE_KEY} metadata is not JSON ({e})") from None
    if not (isinstance(doc, dict) and doc.get("version") == _FORMAT_VERSION and "root" in doc):
        raise reader.error(f"the {STRUCTURE_KEY} metadata is not a version-{_FORMAT_VERSION} "
                           "structure (written by a newer transgrad?)")
    builder = _Builder(reader, reader.arrays(), mod, header)
    return builder.value(doc["root"])


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: Optional[bool] = None, mmap: Optional[bool] = None,
         **pickle_load_args: Any) -> Any:
    """Load what ``save`` wrote (or any safetensors file) with tensors of ``transgrad``, as
    torch.load does. Never runs code from the file, whatever ``weights_only`` says (Note
    [Loading runs no code]); ``map_location`` may be None or "cpu"; ``mmap`` and torch's
    pickle options are accepted and have no effect."""
    return load_into(f, _engine.COMPILED, map_location)


__all__ = ["load", "load_into", "save"]
