"""The typed IR: what ``lower`` makes of a formula module and what the emitters read.

Stage data between ``lower`` (model + libcst -> IR), ``verify`` (IR -> IR, checked) and the
emitters (IR -> C++ / bindings / stubs). It knows nothing of libcst and of C++ spelling.

Invariants: every node is a frozen dataclass carrying the ``Loc`` of the Python code it comes
from; every expression carries its ``Type``; names are Python names (the emitter maps them to
C++ names); Python semantics are explicit in the node kinds (``Num.op == "floordiv"`` means
Python's ``//``, never C++'s ``/``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .diagnostics import Diagnostic
from .model import Loc
from .node_naming import node_class_name, node_name_when_none  # noqa: F401 (re-exported)

# ---------------------------------------------------------------------------------------------
# Types


@dataclasses.dataclass(frozen=True)
class Type:
    """``kind`` is one of KINDS; ``Optional`` wraps ``arg``; ``Tuple`` lists ``elems``."""

    kind: str
    arg: Type | None = None
    elems: tuple[Type, ...] = ()

    def __str__(self) -> str:
        if self.kind == "Optional":
            return f"Optional[{self.arg}]"
        if self.kind == "Tuple":
            return "(" + ", ".join(str(e) for e in self.elems) + ")"
        return self.kind

    @property
    def is_tensor(self) -> bool:      # Tensor or Optional[Tensor]: both a tg::Tensor in C++
        return self.kind == "Tensor" or (self.kind == "Optional" and self.arg == TENSOR)

    @property
    def inner(self) -> Type:
        """The T of Optional[T]."""
        assert self.arg is not None, self
        return self.arg

    @property
    def is_number(self) -> bool:
        return self.kind in ("int", "float", "bool")

    @property
    def is_optional(self) -> bool:
        return self.kind == "Optional"


KINDS = ("Tensor", "TensorList", "int", "float", "bool", "Shape", "DType", "str", "None",
         "Optional", "Tuple", "Iter")  # Iter: enumerate()/zip(), iterated only; elems per item

TENSOR = Type("Tensor")
OPT_TENSOR = Type("Optional", TENSOR)
TENSOR_LIST = Type("TensorList")
INT = Type("int")
FLOAT = Type("float")
BOOL = Type("bool")
SHAPE = Type("Shape")
DTYPE = Type("DType")
STR = Type("str")
NONE = Type("None")


def optional(t: Type) -> Type:
    return t if t.kind in ("Optional", "None") else Type("Optional", t)


def tuple_of(*elems: Type) -> Type:
    return Type("Tuple", elems=tuple(elems))


# ---------------------------------------------------------------------------------------------
# Expressions


# Provenance flags of a value (Note [Provenance] in provenance.py), what the capture rule reads
ITEM = 2       # read out of tensor data (kernel.item), also through arithmetic, helpers, branches
MUTABLE = 4    # a list (a display, a list comprehension, list(...)), not a tuple
AS_TUPLE = 8   # lowering's mark on the value of ``tuple(x)``: not MUTABLE, whatever x is


@dataclasses.dataclass(frozen=True)
class Expr:
    loc: Loc
    type: Type
    # provenance flags (ITEM | MUTABLE), set by lowering (MUTABLE) and ``provenance``; not
    # part of the value: two expressions differing only here are equal
    prov: int = dataclasses.field(default=0, compare=False, kw_only=True)


@dataclasses.dataclass(frozen=True)
class Const(Expr):
    value: int | float | bool | str | None   # None: typed by context (Tensor() / nullopt)


@dataclasses.dataclass(frozen=True)
class DTypeConst(Expr):
    name: str                                   # "float32", "float64", "int64", "bool"


@dataclasses.dataclass(frozen=True)
class Name(Expr):
    """A local, a parameter or (in a backward) a capture."""

    name: str


@dataclasses.dataclass(frozen=True)
class ModuleConst(Expr):
    name: str                                   # a module-level numeric constant


@dataclasses.dataclass(frozen=True)
class Saved(Expr):
    """A capture read in a backward: ``what`` is "value" (input/output/attribute) or a metadata
    attribute ("shape", "ndim", "dtype", "numel", "defined") of a metadata-only tensor."""

    name: str
    what: str


@dataclasses.dataclass(frozen=True)
class Unwrap(Expr):
    """The value of an Optional known not to be None here (``*x`` in C++)."""

    value: Expr


@dataclasses.dataclass(frozen=True)
class Meta(Expr):
    """Tensor metadata: attr in shape, ndim, dtype, numel."""

    value: Expr
    attr: str


@dataclasses.dataclass(frozen=True)
class Num(Expr):
    """Python arithmetic on int/float/bool. op: add sub mul truediv floordiv mod pow."""

    op: str
    left: Expr
    right: Expr


@dataclasses.dataclass(frozen=True)
class Neg(Expr):
    value: Expr                                  # unary minus on a number (not a tensor)


@dataclasses.dataclass(frozen=True)
class Not(Expr):
    value: Expr


@dataclasses.dataclass(frozen=True)
class Compare(Expr):
    """``left op right`` on numbers, shapes or dtypes (result bool). op: lt le gt ge eq ne in
    notin."""

    op: str
    left: Expr
    right: Expr


@dataclasses.dataclass(frozen=True)
class IsNone(Expr):
    value: Expr
    negate: bool                                 # ``is not None``


@dataclasses.dataclass(frozen=True)
class BoolOp(Expr):
    """``and`` / ``or`` on bools (short-circuit; operands are bool)."""

    op: str
    values: tuple[Expr, ...]


@dataclasses.dataclass(frozen=True)
class IfExp(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclasses.dataclass(frozen=True)
class TensorOp(Expr):
    """An operator on tensors (ARCHITECTURE: operators and scalars): op is the ops name (add,
    sub, mul, div, matmul, neg, pow, pow_scalar, lt, ...). A number operand stays a number; the
    emitted code wraps it with the scalar rule."""

    op: str
    args: tuple[Expr, ...]


@dataclasses.dataclass(frozen=True)
class Call(Expr):
    """kind: "kernel" (tg::kernel), "op" (a formula or composite), "helper" (this module's
    @helper), "builtin" (runtime.h: len, min, max, abs, sum, prod, sorted, reversed, floor,
    ceil, math_sqrt, math_log, math_exp, to_int, ...), "math" (<cmath> function), "float"
    (a conversion to double), "range" (a range object)."""

    kind: str
    name: str
    args: tuple[Expr, ...]


@dataclasses.dataclass(frozen=True)
class MakeTuple(Expr):
    """A tuple/list literal: a Shape (ints), a TensorList, or a Tuple of mixed values."""

    elems: tuple[Expr, ...]


@dataclasses.dataclass(frozen=True)
class Index(Expr):
    """``value[index]``: a Shape/TensorList element (Python indexing), or a Tuple element
    (``index`` is then a Const int)."""

    value: Expr
    index: Expr


@dataclasses.dataclass(frozen=True)
class Slice(Expr):
    value: Expr
    start: Expr | None
    stop: Expr | None
    step: Expr | None


@dataclasses.dataclass(frozen=True)
class SeqOp(Expr):
    """Tuple arithmetic: op "concat" (``a + b``) or "repeat" (``a * n``)."""

    op: str
    left: Expr
    right: Expr


@dataclasses.dataclass(frozen=True)
class Comprehension(Expr):
    """``[elt for var in iter if cond]`` / ``tuple(...)``: a Shape or TensorList."""

    elt: Expr
    var: str
    var_type: Type
    iter: Expr
    conds: tuple[Expr, ...]
    unpack: tuple[str, ...] = ()                  # ``for i, d in enumerate(...)``: i, d
    unpack_types: tuple[Type, ...] = ()


@dataclasses.dataclass(frozen=True)
class FString(Expr):
    parts: tuple[str | Expr, ...]


# ---------------------------------------------------------------------------------------------
# Statements


@dataclasses.dataclass(frozen=True)
class Stmt:
    loc: Loc


@dataclasses.dataclass(frozen=True)
class Assign(Stmt):
    """``targets = value``; several targets unpack a Tuple value. ``declare`` names the targets
    whose C++ declaration is this statement (the others are declared earlier)."""

    targets: tuple[str, ...]
    value: Expr
    declare: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class Declare(Stmt):
    """A local declared ahead of the block that first assigns it (assigned in branches)."""

    name: str
    type: Type


@dataclasses.dataclass(frozen=True)
class If(Stmt):
    cond: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]


@dataclasses.dataclass(frozen=True)
class For(Stmt):
    var: str
    var_type: Type
    iter: Expr
    body: tuple[Stmt, ...]
    unpack: tuple[str, ...] = ()                  # ``for i, d in enumerate(...)``: i, d
    unpack_types: tuple[Type, ...] = ()


@dataclasses.dataclass(frozen=True)
class Return(Stmt):
    """A return. In a backward, ``values`` has one entry per Tensor parameter (Const None for
    no gradient; a TensorList for a Sequence[Tensor] parameter); elsewhere one value."""

    values: tuple[Expr, ...]


@dataclasses.dataclass(frozen=True)
class Raise(Stmt):
    error: str                                   # ValueError, IndexError, TypeError, RuntimeError
    message: Expr | None


@dataclasses.dataclass(frozen=True)
class Refused(Stmt):
    """A statement (or, in ``Module.refused``, a whole function) lowering refused, kept in
    place (Note [Total lowering] in lower.py). ``diagnostic`` is its T4xx, None for a statement
    that only read a name an earlier refusal binds; ``assigns`` the names it binds (poisoned);
    ``value`` the value they are bound to when lowering refused the statement but not its value
    (``a = b = v``, an unpacking or a re-binding that does not type): its type and provenance
    are what the capture rule reads of those names; ``body`` what was lowered of a refused
    function before the refusal."""

    diagnostic: Diagnostic | None
    assigns: tuple[str, ...] = ()
    body: tuple[Stmt, ...] = ()
    value: Expr | None = None


# ---------------------------------------------------------------------------------------------
# Functions and the module


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    type: Type
    default: Expr | None                       # a Const / MakeTuple of Consts / DTypeConst
    loc: Loc


@dataclasses.dataclass(frozen=True)
class SavedValue:
    """One member of a node: a capture of the backward, with its storage.

    storage: "input" / "output" (a SavedVariable, or a vector of them for a TensorList),
    "meta" (metadata of a tensor: ``attrs`` of shape/ndim/dtype/numel, plus "defined" for an
    Optional[Tensor]), "attribute" (a value of ``type``)."""

    name: str
    storage: str
    type: Type
    attrs: tuple[str, ...] = ()
    unwrap: bool = False                          # attribute narrowed from Optional in forward
    loc: Loc | None = None


@dataclasses.dataclass(frozen=True)
class Output:
    name: str
    slot: int | None                           # grad slot of the node; None: no history
    hidden: bool


@dataclasses.dataclass(frozen=True)
class BackwardFn:
    grads: tuple[str, ...]                        # one per slot
    saved: tuple[SavedValue, ...]                 # empty until ``saves.attach_saved``
    body: tuple[Stmt, ...]
    loc: Loc
    # the forward's locals as the backward sees them: (name, type, narrowed by the forward);
    # what ``saves`` reads to type the node's members
    forward: tuple[tuple[str, Type, bool], ...] = ()


@dataclasses.dataclass(frozen=True)
class Function:
    """A formula (``backward`` set), a composite (no backward) or a helper."""

    name: str
    kind: str                                     # "formula", "composite", "helper"
    params: tuple[Param, ...]
    returns: Type                                 # the public (visible) return type
    body: tuple[Stmt, ...]                        # forward statements (composite: ends in Return)
    loc: Loc
    outputs: tuple[Output, ...] = ()
    backward: BackwardFn | None = None
    once_differentiable: bool = False
    materialize_grads: bool = False
    doc: str | None = None

    @property
    def node_name(self) -> str:
        return node_class_name(self.name)


@dataclasses.dataclass(frozen=True)
class ConstDef:
    name: str
    type: Type
    value: int | float | bool
    loc: Loc


@dataclasses.dataclass(frozen=True)
class Module:
    name: str                                     # stem, e.g. "unary"
    path: str                                     # repo-relative source path
    constants: tuple[ConstDef, ...]
    helpers: tuple[Function, ...]
    functions: tuple[Function, ...]               # formulas and composites, in source order
    refused: tuple[Refused, ...] = ()             # helpers/formulas refused as a whole
    # the names lowering looked up in the program's signature table: the IR is the same
    # against any table agreeing on these (Note [One analysis] in frontend.py)
    signature_reads: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------
# Walking the IR


def walk_stmts(stmts: tuple[Stmt, ...]):
    """Every statement of ``stmts``, nested ones (and a refused function's body) included."""
    for st in stmts:
        yield st
        for child in (getattr(st, "then", ()), getattr(st, "orelse", ()), getattr(st, "body", ())):
            if isinstance(child, tuple):
                yield from walk_stmts(child)


def holds_tensors(t: Type) -> bool:
    """Whether a value of type ``t`` is or holds a tensor."""
    return t.is_tensor or t == TENSOR_LIST or any(holds_tensors(e) for e in t.elems)


def module_stmts(mod: Module):
    """Every statement of a module: each function's forward, then its backward."""
    for fn in (*mod.helpers, *mod.functions):
        yield from walk_stmts(fn.body)
        if fn.backward is not None:
            yield from walk_stmts(fn.backward.body)
    yield from walk_stmts(mod.refused)


def transform(node: Any, fn) -> Any:
    """Rebuild an IR tree bottom-up, applying ``fn`` to every expression."""
    if isinstance(node, tuple):
        return tuple(transform(n, fn) for n in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, (Type, Loc)):
        return node
    changes = {f.name: transform(getattr(node, f.name), fn) for f in dataclasses.fields(node)}
    new = dataclasses.replace(node, **changes)  # type: ignore[type-var]
    return fn(new) if isinstance(new, Expr) else new
