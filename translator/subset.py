"""Subset: the names the supported subset of Python gives a meaning to (Note [Accepted subset]
in fence.py).

Data only, read by ``fence`` (what a formula module may import, call, annotate and set),
``lower`` (the exceptions a formula may raise, the metadata attributes), ``scopes`` and
``captures`` (which parameter types are tensors, which reads are metadata).
"""

from __future__ import annotations

# fmt: off
LANG_NAMES = frozenset((
    "formula", "helper", "samples", "case", "T", "I", "B", "Tensor", "Optional", "Sequence",
    "Scalar", "Shape", "Dims", "DType", "kernel", "ops",
))
_BASE_TYPES = ("Tensor", "int", "float", "bool", "Scalar", "Shape", "Dims", "DType")
PARAM_TYPES = (
    frozenset(_BASE_TYPES) | {f"Optional[{t}]" for t in _BASE_TYPES} | {"Sequence[Tensor]"}
)
BUILTINS = frozenset((
    "len", "range", "min", "max", "abs", "tuple", "list", "int", "float", "bool", "enumerate",
    "zip", "reversed", "sum", "sorted", "all", "any", "round",
))
# fmt: on
EXCEPTIONS = frozenset({"ValueError", "IndexError", "TypeError", "RuntimeError"})
OPTIONS = {
    "differentiable_outputs": (tuple, str),
    "hidden_outputs": (tuple, str),
    "once_differentiable": (bool,),
    "materialize_grads": (bool,),
    "inplace_saves_copy": (bool,),
}
METADATA = frozenset({"shape", "ndim", "dtype", "numel"})
TENSOR_TYPES = frozenset({"Tensor", "Optional[Tensor]", "Sequence[Tensor]"})
