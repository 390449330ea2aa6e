"""Engine-neutral containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
(torch.nn.modules.container).

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator
from typing import Any

from ..module import Module, _is_tensor


class Sequential(Module):
    """Modules applied in order: ``Sequential(a, b, c)`` or ``Sequential(OrderedDict(...))``."""

    def __init__(self, *mods: Any) -> None:
        super().__init__()
        if len(mods) == 1 and isinstance(mods[0], collections.OrderedDict):
            for name, m in mods[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(mods):
                self.add_module(str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __getitem__(self, i: Any) -> Any:
        mods = list(self._modules.values())
        if isinstance(i, slice):
            return type(self)(*mods[i])
        return mods[i]

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self._modules)), module)
        return self


class ModuleList(Module):
    """A list of modules, registered (so their parameters are found)."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __repr__(self) -> str:
        """As torch: a run of equal sub-module reprs prints once, as ``(i-j): n x repr``."""
        runs: list[list] = []   # [first index, last index, repr]
        for i, m in enumerate(self._modules.values()):
            r = repr(m)
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        if not runs:
            return self._get_name() + "()"
        lines = [(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}")
                 .replace("\n", "\n  ") for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def _index(self, idx: int) -> str:
        n = len(self)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Any) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        for m in list(modules):
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Any) -> ModuleList:
        return self.extend(modules)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(self._index(idx), module)

    def __delitem__(self, idx: Any) -> None:
        mods = list(self._modules.values())
        del mods[idx]
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)


class ModuleDict(Module):
    """Modules by name, registered, in insertion order."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        self._modules.clear()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Any:
        return self._modules.keys()

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        for key, m in _pairs("ModuleDict", modules):
            self[key] = m


def _pairs(owner: str, values: Any) -> list:
    """(key, value) pairs of a mapping or of an iterable of pairs (torch's ``update``)."""
    if isinstance(values, collections.abc.Mapping):
        return list(values.items())
    if not isinstance(values, Iterable):
        raise TypeError(f"{owner}.update should be called with an iterable of key/value pairs, "
                        f"but got {type(values).__name__}")
    out = []
    for j, item in enumerate(values):
        if not isinstance(item, Iterable):
            raise ValueError(f"{owner} update sequence element #{j} should be Iterable; is "
                             f"{type(item).__name__}")
        pair: Any = item  # torch's check: any iterable, then len() (a generator raises there)
        if len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
        out.append((pair[0], pair[1]))
    return out


def _parameter_line(key: Any, p: Any, param_cls: type) -> str:
    kind = "Parameter" if isinstance(p, param_cls) else "Tensor"
    size = "x".join(str(d) for d in p.shape)
    return f"  ({key}): {kind} containing: [{p.dtype} of size {size}]"


class ParameterList(Module):
    """A list of parameters, registered; tensors are wrapped in this engine's Parameter."""

    def __init__(self, values: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self.extend(values)

    def _index(self, idx: int) -> str:
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % self._size)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(self._size)[idx]])
        return getattr(self, self._index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        key = self._index(idx)
        if _is_tensor(param) and not isinstance(param, self.Parameter):
            param = self.Parameter(param)
        setattr(self, key, param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(self._size))

    def __iadd__(self, parameters: Any) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        object.__setattr__(self, "_size", self._size + 1)
        self[self._size - 1] = value
        return self

    def extend(self, values: Any) -> ParameterList:
        if not isinstance(values, Iterable) or _is_tensor(values):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for v in list(values):
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(i, p, self.Parameter) if _is_tensor(p)
                         else f"  ({i}): Object of type: {type(p).__name__}"
                         for i, p in enumerate(self))


class ParameterDict(Module):
    """Parameters by name, registered, in insertion order; tensors are wrapped in this
    engine's Parameter."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        object.__setattr__(self, "_keys", {})
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        if _is_tensor(value) and not isinstance(value, self.Parameter):
            value = self.Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self) -> Any:
        return self._keys.keys()

    def items(self) -> Any:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Any:
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def update(self, parameters: Any) -> None:
        for key, p in _pairs("ParameterDict", parameters):
            self[key] = p

    def extra_repr(self) -> str:
        return "\n".join(_parameter_line(k, p, self.Parameter) if _is_tensor(p)
                         else f"  ({k}): Object of type: {type(p).__name__}"
                         for k, p in self.items())
