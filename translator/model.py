"""The translator's data model: what the front end learns about a formula module.

Produced by ``parse.parse_module`` (structure) and completed by ``captures.collect_captures``
(what each backward reads from outside itself). Consumed by the reference engine (through
``frontend``) and by the back end's ``lower`` stage, which is the only back-end stage that
looks at the libcst nodes kept here; emitters see only the IR.

Invariants: every entity carries a ``Loc`` with a repo-relative path; the model is immutable
(frozen dataclasses; later stages use ``dataclasses.replace``).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: importing the model (and diagnostics) stays cheap
    import libcst as cst


@dataclasses.dataclass(frozen=True)
class Loc:
    path: str  # repo-relative, e.g. "formulas/unary.py"
    line: int  # 1-based
    col: int  # 1-based

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    type: str  # normalised spelling, e.g. "Tensor", "Optional[Dims]"
    default: cst.BaseExpression | None = dataclasses.field(repr=False)  # None: no default
    default_value: Any  # the default as a Python value (literals only)
    loc: Loc


@dataclasses.dataclass(frozen=True)
class Options:
    differentiable_outputs: tuple[str, ...] | None = None
    hidden_outputs: tuple[str, ...] = ()
    once_differentiable: bool = False
    materialize_grads: bool = False
    inplace_saves_copy: bool = False  # the in-place variant saves a copy of the input (inplace.py)


class CaptureKind(enum.Enum):
    INPUT = "input"  # a Tensor / Optional[Tensor] / Sequence[Tensor] parameter: saved input
    ATTRIBUTE = "attribute"  # a non-tensor parameter or a non-tensor forward value: saved attribute
    OUTPUT = "output"  # a name in the final return: saved output (no reference cycle)


@dataclasses.dataclass(frozen=True)
class Capture:
    name: str
    kind: CaptureKind
    type: str  # best-known type spelling ("Tensor", "int", "Shape", ...)
    bound_at: Loc  # where the captured name was bound (parameter or assignment)
    metadata_only: bool  # a tensor the backward reads only through shape/ndim/dtype/numel
    metadata: tuple[str, ...] = ()  # which metadata attributes are read, when metadata_only


@dataclasses.dataclass(frozen=True)
class Backward:
    params: tuple[str, ...]  # one grad per differentiable (and hidden) output
    body: cst.IndentedBlock = dataclasses.field(repr=False)
    loc: Loc
    captures: tuple[Capture, ...] = ()  # filled by collect_captures


@dataclasses.dataclass(frozen=True)
class Formula:
    name: str
    loc: Loc
    params: tuple[Param, ...]
    returns: str  # the return annotation spelling, e.g. "Tensor"
    options: Options
    node: cst.FunctionDef = dataclasses.field(repr=False)
    # Statements of the forward, in order, excluding ``def backward`` and the final return.
    forward: tuple[cst.BaseStatement, ...] = dataclasses.field(repr=False)
    # Differentiable formula: the backward closure and the names returned as outputs, in order.
    backward: Backward | None
    outputs: tuple[str, ...]  # () for a composite
    # Composite formula (no backward): the expression returned (autograd records inner ops).
    result: cst.BaseExpression | None = dataclasses.field(default=None, repr=False)
    doc: str | None = None  # the formula's docstring (excluded from ``forward``)

    @property
    def composite(self) -> bool:
        return self.backward is None

    @property
    def visible_outputs(self) -> tuple[str, ...]:
        """The outputs the caller sees (all but the hidden ones), in return order."""
        return tuple(o for o in self.outputs if o not in self.options.hidden_outputs)

    @property
    def grad_slots(self) -> tuple[str, ...]:
        """The outputs ``backward`` takes a grad for, in its parameter order: the
        differentiable visible outputs (all by default), then the hidden ones, each in return
        order. The one definition the fence, lowering and the node's slots share."""
        opts, visible = self.options, self.visible_outputs
        diff = visible if opts.differentiable_outputs is None else tuple(
            o for o in visible if o in opts.differentiable_outputs)
        return diff + tuple(o for o in self.outputs if o in opts.hidden_outputs)


@dataclasses.dataclass(frozen=True)
class Helper:
    name: str
    loc: Loc
    params: tuple[Param, ...]
    returns: str
    node: cst.FunctionDef = dataclasses.field(repr=False)
    doc: str | None = None


@dataclasses.dataclass(frozen=True)
class Constant:
    name: str
    value: Any  # int, float or bool
    loc: Loc


@dataclasses.dataclass(frozen=True)
class Module:
    path: str  # repo-relative path of the .py file
    name: str  # module stem, e.g. "unary"
    source: str = dataclasses.field(repr=False)
    tree: cst.Module = dataclasses.field(repr=False)
    positions: Mapping[cst.CSTNode, Any] = dataclasses.field(repr=False)  # CodeRange per node
    formulas: tuple[Formula, ...]
    helpers: tuple[Helper, ...]
    constants: tuple[Constant, ...]
    # the front end's IR of this module (an ``ir.Module``, node members attached) and the
    # ``Signatures`` it was lowered against; the back end emits that IR (Note [One analysis] in
    # frontend.py). Typed loosely: the model sits below the IR in the import order.
    lowered: Any = dataclasses.field(default=None, repr=False, compare=False)
    lowered_against: Any = dataclasses.field(default=None, repr=False, compare=False)

    def loc_of(self, node: cst.CSTNode) -> Loc:
        r = self.positions[node]
        return Loc(self.path, r.start.line, r.start.column + 1)
