"""Tensor methods, operators, indexing, ``__repr__`` and in-place ops, installed on the backend's
Tensor class (a Python class or a pybind11 class alike: only ``setattr`` is used).

Operators follow docs/ARCHITECTURE.md ("Operators and scalars"): ``+ - * / @``, unary ``-``,
``t ** number`` -> pow_scalar, ``t ** tensor`` -> pow, comparisons -> eq/ne/lt/le/gt/ge; reflected
forms wrap the number with the scalar rule.

Note [In-place ops]
~~~~~~~~~~~~~~~~~~~
``x.add_(y)`` computes the out-of-place result and writes it into ``x`` (``backend.inplace_``:
same storage, version bumped, history taken from the result). When autograd records, a leaf that
requires grad (or a view of one) is refused, as PyTorch. Whether the op may read ``x`` itself
or must run on a copy is the translator's verdict for its formula (translator/inplace.py, Note
[In-place variants]): ``safe`` (exp_, relu_, neg_, add_) computes from ``x`` directly; ``copy``
(mul_, div_, clamp_: ``@formula(inplace_saves_copy=True)``) computes from a clone, which the node
saves; ``unsafe`` (sin_, log_) is refused with the reason. A registered view (views.py) writes
through its base: Note [In-place on views]. Under no_grad (optimizer steps) nothing is cloned,
nothing is recorded and every variant runs.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, Optional

import numpy as np

from transgrad._api import indexing
from transgrad._backend import backend_named
from transgrad._api.views import refresh_views, registry_for, scatter_into_base
from transgrad._api.functions import shape_arg


class _Numel(int):
    """``x.numel`` is an int that can also be called (``x.numel()``), as formulas read it as
    metadata and PyTorch users call it."""

    def __call__(self) -> int:
        return int(self)


def install(B: Any, F: Dict[str, Any], facts: Dict[str, Any]) -> None:  # noqa: C901
    T = B.Tensor
    ag = B.autograd
    scalar, as_tensor = F["_scalar"], F["_as_tensor"]

    def put(name: str, fn: Any) -> None:
        setattr(T, name, fn)

    # -- methods that are the functions with the tensor first ------------------------------
    for name in ("neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin",
                 "cos", "tan", "tanh", "sigmoid", "relu", "abs", "sign", "erf", "square", "log2",
                 "log10", "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne",
                 "lt", "le", "gt", "ge", "clamp", "clip", "sum", "mean", "amax", "amin", "max",
                 "min", "logsumexp", "softmax", "log_softmax", "var", "std", "norm", "reshape",
                 "flatten", "unflatten", "squeeze", "unsqueeze", "expand", "broadcast_to",
                 "permute", "transpose", "swapaxes", "t", "movedim", "contiguous", "clone",
                 "narrow", "split", "chunk", "unbind", "index_select", "gather", "index_add",
                 "scatter_add", "select", "diagonal", "matmul", "mm", "bmm", "dot", "outer", "argmax",
                 "argmin", "all", "any", "logical_not", "logical_and", "logical_or", "isnan",
                 "isinf", "isfinite", "allclose", "equal", "negative", "multiply", "subtract",
                 "divide", "true_divide", "absolute", "floor", "ceil", "round", "trunc",
                 "floor_divide", "remainder"):
        put(name, F[name])
    put("view", F["reshape"])

    def where(self: Any, condition: Any, other: Any) -> Any:
        return F["where"](condition, self, other)

    put("where", where)
    put("T", property(lambda self: self if self.ndim < 2 else F["permute"](
        self, tuple(reversed(range(self.ndim))))))
    put("mT", property(lambda self: F["transpose"](self, -2, -1)))
    put("view_as", lambda self, other: F["reshape"](self, tuple(other.shape)))
    put("reshape_as", lambda self, other: F["reshape"](self, tuple(other.shape)))
    put("expand_as", lambda self, other: F["expand"](self, tuple(other.shape)))
    put("sum_to_size", lambda self, *size: B.ops.sum_to(self, shape_arg(size)))

    # -- metadata and conversion -----------------------------------------------------------
    put("numel", property(lambda self: _Numel(math.prod(self.shape))))
    put("nelement", lambda self: math.prod(self.shape))
    put("dim", lambda self: self.ndim)
    put("size", lambda self, dim=None: tuple(self.shape) if dim is None else
        self.shape[dim])
    put("data", property(lambda self: self.detach()))  # PyTorch's x.data: same storage
    put("device", property(lambda self: "cpu"))
    put("cpu", lambda self: self)
    put("is_floating_point", lambda self: self.dtype.kind == "f")
    put("tolist", lambda self: np.asarray(self).tolist())

    def to(self: Any, *args: Any, dtype: Any = None, **kwargs: Any) -> Any:
        """``x.to(dtype)``, ``x.to(other)``; device strings ("cpu") are accepted and ignored."""
        for a in args:
            if isinstance(a, T):
                dtype = a.dtype
            elif not (isinstance(a, str) and a.startswith("cpu")):
                dtype = a
        return self if dtype is None else F["cast"](self, dtype)

    put("to", to)
    put("type", lambda self, dtype=None: self.dtype.name if dtype is None else
        F["cast"](self, dtype))
    put("type_as", lambda self, other: F["cast"](self, other.dtype))
    def caster(dtype: str) -> Callable[[Any], Any]:
        return lambda self: F["cast"](self, dtype)

    for name, dtype in (("float", "float32"), ("double", "float64"), ("long", "int64"),
                        ("bool", "bool")):
        put(name, caster(dtype))
    put("new_zeros", lambda self, *size, dtype=None: facts["zeros"](
        *size, dtype=dtype or self.dtype))
    put("new_ones", lambda self, *size, dtype=None: facts["ones"](
        *size, dtype=dtype or self.dtype))
    put("new_full", lambda self, size, value, dtype=None: facts["full"](
        size, value, dtype=dtype or self.dtype))
    put("new_tensor", lambda self, data, dtype=None: facts["tensor"](
        data, dtype=dtype or self.dtype))

    views = registry_for(B)  # views and their bases (Note [In-place on views])
    if not hasattr(T, "_is_view"):  # the compiled engine: views are known from the registry
        put("_is_view", property(lambda self: views.get(self) is not None))
        put("_base", property(lambda self: getattr(views.get(self), "base", None)))
    getitem = indexing.make_getitem(B, F, views)

    # -- operators -------------------------------------------------------------------------
    def _rev(name: str) -> Callable[[Any, Any], Any]:
        fn = F[name]

        def reflected(self: Any, other: Any) -> Any:
            return fn(as_tensor(other, self), self)

        return reflected

    def _fwd(name: str) -> Callable[[Any, Any], Any]:
        fn = F[name]

        def forward(self: Any, other: Any) -> Any:
            if other is None:
                return NotImplemented
            return fn(self, other)

        return forward

    # The arithmetic operators in Python; the backend may put faster ones in their place
    # (``backend.operators``), which it hands these for what they do not cover.
    arithmetic: Dict[str, Any] = {"__neg__": F["neg"]}
    for op, name in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                     ("matmul", "matmul")):
        arithmetic[f"__{op}__"] = _fwd(name)
        arithmetic[f"__r{op}__"] = _rev(name)
    for name, fn in B.operators(arithmetic).items():
        put(name, fn)
    for op, name in (("lt", "lt"), ("le", "le"), ("gt", "gt"), ("ge", "ge")):
        put(f"__{op}__", _fwd(name))

    def __eq__(self: Any, other: Any) -> Any:
        if other is None or not isinstance(other, (T, int, float, bool, np.number, np.ndarray,
                                                    list)):
            return False
        return F["eq"](self, other)

    def __ne__(self: Any, other: Any) -> Any:
        if other is None or not isinstance(other, (T, int, float, bool, np.number, np.ndarray,
                                                    list)):
            return True
        return F["ne"](self, other)

    put("__eq__", __eq__)
    put("__ne__", __ne__)
    put("__hash__", lambda self: id(self))
    put("__pos__", lambda self: self)
    put("__abs__", F["abs"])
    put("__pow__", lambda self, e: F["pow"](self, e))
    put("__rpow__", lambda self, base: B.ops.pow(scalar(self, base), self))
    put("__floordiv__", lambda self, o: F["floor_divide"](self, o))
    put("__rfloordiv__", lambda self, o: F["floor_divide"](as_tensor(o, self), self))
    put("__mod__", lambda self, o: F["remainder"](self, o))
    put("__rmod__", lambda self, o: F["remainder"](as_tensor(o, self), self))
    put("__invert__", lambda self: F["logical_not"](self))
    put("__and__", lambda self, o: F["logical_and"](self, o))
    put("__or__", lambda self, o: F["logical_or"](self, o))
    put("__xor__", lambda self, o: F["logical_xor"](self, o))
    put("__array_ufunc__", None)  # numpy defers to our reflected operators
    put("__array_priority__", 1000)

    def __bool__(self: Any) -> bool:
        if math.prod(self.shape) != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    put("__bool__", __bool__)
    put("__float__", lambda self: float(self.item()))
    put("__int__", lambda self: int(self.item()))

    def __index__(self: Any) -> int:
        if self.dtype.kind not in "iub" or math.prod(self.shape) != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    put("__index__", __index__)

    def __len__(self: Any) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self: Any) -> Any:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (getitem(self, i) for i in range(self.shape[0]))

    put("__len__", __len__)
    put("__iter__", __iter__)
    put("__getitem__", getitem)
    put("__repr__", _repr)
    put("__str__", _repr)
    put("__format__", lambda self, spec: format(self.item(), spec) if self.ndim == 0 and spec
        else _repr(self))

    # -- in-place (Note [In-place ops]) ----------------------------------------------------
    def refuse(self: Any, formula: Optional[str]) -> bool:
        """Whether the in-place op must run on a copy; raises for an unsafe variant."""
        if formula is None:
            return False
        v = B.inplace_verdict(formula)
        if v is None or v.needs_copy:
            return True
        if not v.allowed:
            raise RuntimeError(
                f"{formula}_(): cannot run in place while autograd records: {v.reason} "
                f"(the saved input would be lost). Use the out-of-place op instead "
                f"(y = x.{formula}()), or run it under no_grad(); a formula of your own can ask "
                f"for a copy with @formula(inplace_saves_copy=True).")
        return False

    def inplace(self: Any, compute: Callable[[Any], Any], operands: tuple = (),
                formula: Optional[str] = "?") -> Any:
        recording = ag.is_grad_enabled() and (self.requires_grad or builtins_any(
            isinstance(o, T) and o.requires_grad for o in operands))
        if not recording:
            with ag.no_grad():
                new = compute(self)
            B.inplace_(self, _fit(self, new, False))
            return self
        if self.is_leaf and self.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        info = views.get(self)
        if info is not None:
            if info.multi is not None:
                fn, i = info.multi
                raise RuntimeError(
                    f"Output {i} of {fn}() is a view and is being modified in place. This view "
                    f"is one of several views returned by {fn}(), which do not allow their "
                    "outputs to be modified in place while autograd records. Replace the "
                    "in-place operation by an out-of-place one, or clone() the view first.")
            if info.base.is_leaf and info.base.requires_grad:
                raise RuntimeError("a view of a leaf Variable that requires grad is being used "
                                   "in an in-place operation.")
        copy = formula == "?" or refuse(self, formula)
        new = _fit(self, compute(F["clone"](self) if copy else self), True)
        if info is None:
            B.inplace_(self, new)
            refresh_views(B, views, self)
            return self
        base_new = scatter_into_base(B, F, info, new)  # Note [In-place on views]
        B.inplace_(info.base, base_new)
        refresh_views(B, views, info.base)
        return self

    def _fit(self: Any, new: Any, recording: bool) -> Any:
        if tuple(new.shape) != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the "
                               f"broadcast shape {list(new.shape)}")
        if new.dtype != self.dtype:
            with ag.set_grad_enabled(recording):
                new = F["cast"](new, self.dtype)
        return new

    def _inplace_binary(name: str, formula: str) -> Callable[..., Any]:
        fn = F[name]

        def method(self: Any, other: Any, *args: Any, **kwargs: Any) -> Any:
            return inplace(self, lambda x: fn(x, other, *args, **kwargs), (other,), formula)

        method.__name__ = f"{name}_"
        return method

    for name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum"):
        put(f"{name}_", _inplace_binary(name, name))
    for op, name in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("truediv", "div"),
                     ("pow", "pow")):
        put(f"__i{op}__", _inplace_binary(name, name))

    def _inplace_unary(name: str) -> Callable[..., Any]:
        fn = F[name]

        def method(self: Any) -> Any:
            return inplace(self, fn, (), name)

        method.__name__ = f"{name}_"
        return method

    for name in UNARY_INPLACE:
        put(f"{name}_", _inplace_unary(name))
    put("clamp_", lambda self, min=None, max=None: inplace(
        self, lambda x: F["clamp"](x, min, max), (min, max), "clamp"))
    put("clip_", T.clamp_)

    def copy_(self: Any, src: Any) -> Any:
        src = as_tensor(src, self)

        def compute(x: Any) -> Any:
            s = F["cast"](src, self.dtype)
            return F["expand"](s, tuple(self.shape))

        return inplace(self, compute, (src,), None)

    put("copy_", copy_)
    put("zero_", lambda self: inplace(self, lambda x: facts["zeros_like"](x), (), None))
    put("fill_", lambda self, value: inplace(
        self, lambda x: F["expand"](as_tensor(value, x), tuple(x.shape)), (value,), None))
    setitem = indexing.make_setitem(B, F, inplace)
    put("__setitem__", setitem)

    # -- copying and pickling (leaves only, as PyTorch) ------------------------------------
    def __deepcopy__(self: Any, memo: Dict[int, Any]) -> Any:
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment")
        t = B.from_numpy(np.array(self.detach(), copy=True))
        if self.requires_grad:
            t.requires_grad_(True)
        if self.grad is not None:
            t.grad = B.from_numpy(np.array(self.grad.detach(), copy=True))
        memo[id(self)] = t
        return t

    put("__deepcopy__", __deepcopy__)
    put("__reduce_ex__", lambda self, protocol: (
        _rebuild, (B.name, np.array(self.detach(), copy=True), builtins_bool(self.requires_grad))))


builtins_any, builtins_bool = any, bool

# x.NAME_() for these unary formulas; whether it may run while recording is the translator's
# verdict (translator/inplace.py, Note [In-place variants]).
UNARY_INPLACE = ("neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin",
                 "cos", "tan", "tanh", "sigmoid", "relu", "abs", "sign", "erf")
def _rebuild(engine: str, array: np.ndarray, requires_grad: bool) -> Any:
    """Unpickle a tensor: ``engine`` is the module name of the engine that pickled it."""
    t = backend_named(engine).from_numpy(array)
    return t.requires_grad_(True) if requires_grad else t


def _repr(t: Any) -> str:
    a = np.asarray(t.detach() if t.requires_grad else t)
    body = np.array2string(a, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3,
                           precision=4)
    extras = []
    if a.dtype.name not in ("float32", "int64", "bool"):
        extras.append(f"dtype={a.dtype.name}")
    if a.size == 0 and a.ndim != 1:
        extras.insert(0, f"size={tuple(a.shape)}")
    if t.grad_fn is not None:
        extras.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        extras.append("requires_grad=True")
    return "tensor(" + ", ".join([body] + extras) + ")"
