"""Captures: THE CAPTURE RULE (DESIGN §2) — what each backward may read from its forward.

Stage 3 of the front end. Input: a ``Module`` that passed ``fence``. Output: the same module
with ``Backward.captures`` filled (one ``Capture`` per name the backward reads from the
formula's scope, classified INPUT / ATTRIBUTE / OUTPUT, with ``metadata_only``), plus a
diagnostic (T2xx) for every capture the rule rejects.

How (Note [Capture analysis]): libcst's ScopeProvider gives, for every name the backward (and
the comprehensions/lambdas nested in it) reads, the assignments it may refer to; those in the
formula's own scope are captures. What was bound there is learned by walking the forward in
order with a ``KindEnv``, which infers for every name whether its value may be a tensor
(kernel/ops calls, tensor parameters, arithmetic on tensors), a scalar read out of tensor data
(``kernel.item``, also through arithmetic) or a mutable container. Metadata (``.shape``,
``.ndim``, ``.dtype``, ``.numel``, ``len`` of a shape, arithmetic on those) is never a tensor.
Bindings are counted per execution path: ``if c: s = a`` / ``else: s = b`` binds ``s`` once,
a binding inside a loop body binds it many times.

Also reported here, anywhere in a formula or helper: the ways to smuggle a capture past this
analysis (default arguments of backward T206, ``nonlocal``/``global`` T207, lambdas and nested
functions T208, ``:=`` T210).

Invariants: the analysis over-approximates tensor-ness (a value that may be a tensor is one),
so it can reject a valid formula but never accept a capture that breaks double backward.

Note [Module size]: this module (kind inference + the rule) and ``fence`` exceed the ~400-line
budget; the natural split is a ``kinds.py`` holding ``ModuleInfo``/``KindEnv``/``_spell_type``
(used by both) and a ``fence_expr.py`` for the expression checker.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, ScopeProvider

from .capture_messages import capture_message
from .diagnostics import Diagnostic, make_diagnostic
from .messages import format_message
from .model import Capture, CaptureKind, Formula, Loc, Module
from .signatures import KERNELS
from .syntax import dotted_name, target_names, walk

TENSOR, ITEM, MUTABLE = 1, 2, 4  # kind flags; 0 = plain non-tensor value
METADATA = frozenset({"shape", "ndim", "dtype", "numel"})
TENSOR_TYPES = frozenset({"Tensor", "Optional[Tensor]", "Sequence[Tensor]"})
_NUMERIC_BUILTINS = frozenset({"min", "max", "abs", "int", "float", "bool", "sum", "round"})


# ---------------------------------------------------------------------------------------------
# What the module defines at the top level


@dataclasses.dataclass
class ModuleInfo:
    """Names defined at module level, and facts about helpers (transitively)."""

    lang: set[str]  # names imported from transgrad.lang
    modules: set[str]  # ``math`` when imported
    helpers: dict[str, str]  # helper name -> return annotation spelling
    constants: set[str]
    formulas: set[str]
    reads_data: set[str]  # helpers that (transitively) call kernel.item
    uses_kernels: set[str]  # helpers that (transitively) call kernel.*


def gather_module_info(mod: Module) -> ModuleInfo:
    lang: set[str] = set()
    modules: set[str] = set()
    for stmt in mod.tree.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    if dotted_name(small.module or cst.Name("_")) == "transgrad.lang":
                        for a in small.names:
                            bound = a.asname.name if a.asname else a.name
                            if isinstance(bound, cst.Name):
                                lang.add(bound.value)
                elif isinstance(small, cst.Import):
                    modules.update(
                        dotted_name(a.name) or "" for a in small.names if a.asname is None
                    )
    helpers = {h.name: h.returns for h in mod.helpers}
    calls = {h.name: _called_names(h.node) for h in mod.helpers}
    reads = {h for h, c in calls.items() if "kernel.item" in c}
    uses = {h for h, c in calls.items() if any(n.startswith("kernel.") for n in c)}
    for _ in range(len(helpers)):  # propagate through helpers calling helpers
        reads |= {h for h, c in calls.items() if c & reads}
        uses |= {h for h, c in calls.items() if c & uses}
    return ModuleInfo(
        lang,
        modules,
        helpers,
        {c.name for c in mod.constants},
        {f.name for f in mod.formulas},
        reads,
        uses,
    )


def _called_names(node: cst.CSTNode) -> set[str]:
    return {dotted_name(n.func) or "" for n in walk(node) if isinstance(n, cst.Call)}


# ---------------------------------------------------------------------------------------------
# Kind inference


class KindEnv:
    """Kind flags (TENSOR | ITEM | MUTABLE) of the names of one function body."""

    def __init__(
        self, info: ModuleInfo, param_types: dict[str, str], parent: KindEnv | None = None
    ):
        self.info = info
        self.parent = parent
        self.control = 0  # ITEM while binding under a branch or loop that depends on data
        self.kinds: dict[str, int] = {
            n: (TENSOR if t in TENSOR_TYPES else 0) for n, t in param_types.items()
        }

    def lookup(self, name: str) -> int:
        if name in self.kinds:
            return self.kinds[name]
        return self.parent.lookup(name) if self.parent else 0

    def knows(self, name: str) -> bool:
        """True when ``name`` is bound here or in a parent, with a known kind."""
        return name in self.kinds or (self.parent is not None and self.parent.knows(name))

    def child(self) -> KindEnv:
        return KindEnv(self.info, {}, self)

    def set(self, name: str, kind: int) -> None:
        """Bind ``name``; a name bound on several paths keeps the join of its kinds."""
        self.kinds[name] = self.kinds.get(name, 0) | kind | self.control

    def bind_target(
        self, target: cst.BaseExpression, kind: int, value: cst.BaseExpression | None = None
    ) -> None:
        if isinstance(target, cst.Name):
            self.set(target.value, kind)
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = None
            if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(
                target.elements
            ):
                values = [e.value for e in value.elements]
            for i, el in enumerate(target.elements):
                k = self.kind_of(values[i]) if values else kind & ~MUTABLE
                self.bind_target(el.value, k, values[i] if values else None)

    def bind_statement(self, small: cst.BaseSmallStatement) -> None:
        """Update the environment for one simple statement, in program order."""
        if isinstance(small, cst.Assign):
            k = self.kind_of(small.value)
            for t in small.targets:
                self.bind_target(t.target, k, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self.bind_target(small.target, self.kind_of(small.value), small.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            self.set(small.target.value, self.kind_of(small.value))

    def kind_of(self, e: cst.BaseExpression) -> int:
        if isinstance(e, cst.Name):
            return self.lookup(e.value)
        if isinstance(e, cst.Attribute):
            return 0 if e.attr.value in METADATA else self.kind_of(e.value)
        if isinstance(e, cst.Call):
            return self._call_kind(e)
        if isinstance(e, cst.Subscript):
            return self.kind_of(e.value) & ~MUTABLE
        if isinstance(e, cst.BinaryOperation):
            return self.kind_of(e.left) | self.kind_of(e.right)
        if isinstance(e, cst.UnaryOperation):
            return self.kind_of(e.expression) & ~MUTABLE
        if isinstance(e, cst.BooleanOperation):
            return self.kind_of(e.left) | self.kind_of(e.right)
        if isinstance(e, cst.Comparison):
            k = self.kind_of(e.left)
            for c in e.comparisons:
                k |= self.kind_of(c.comparator)
                if isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)):
                    k &= ~TENSOR
            return k & ~MUTABLE
        if isinstance(e, cst.IfExp):
            return self.kind_of(e.body) | self.kind_of(e.orelse) | (self.kind_of(e.test) & ITEM)
        if isinstance(e, cst.Tuple):
            return self._elements_kind(e.elements) & ~MUTABLE
        if isinstance(e, (cst.List, cst.Set)):
            return MUTABLE | self._elements_kind(e.elements)
        if isinstance(e, cst.Dict):
            return MUTABLE | self._elements_kind(
                [el for el in e.elements if isinstance(el, cst.DictElement)], attr="value"
            )
        if isinstance(e, (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            env = self.child()
            for_in: cst.CompFor | None = e.for_in
            while for_in is not None:
                env.bind_target(for_in.target, env.kind_of(for_in.iter) & ~MUTABLE)
                for_in = for_in.inner_for_in
            elt = e.value if isinstance(e, cst.DictComp) else e.elt  # type: ignore[union-attr]
            k = env.kind_of(elt)
            return k if isinstance(e, cst.GeneratorExp) else (k | MUTABLE)
        if isinstance(e, cst.NamedExpr):
            return self.kind_of(e.value)
        return 0

    def _elements_kind(self, elements: Sequence[cst.CSTNode], attr: str = "value") -> int:
        k = 0
        for el in elements:
            k |= self.kind_of(getattr(el, attr))
        return k

    def _call_kind(self, call: cst.Call) -> int:
        name = dotted_name(call.func) or ""
        args = 0
        for a in call.args:
            args |= self.kind_of(a.value)
        if name.startswith("kernel."):
            sig = KERNELS.get(name[7:])
            return ITEM if sig is not None and sig.returns in ("int", "float") else TENSOR
        if name.startswith("ops."):
            return TENSOR
        if name in self.info.helpers:
            k = TENSOR if "Tensor" in self.info.helpers[name] else 0
            return k | (args & ITEM) | (ITEM if name in self.info.reads_data else 0)
        if name in ("len", "range") or (
            isinstance(call.func, cst.Attribute) and call.func.attr.value in METADATA
        ):
            return args & ITEM
        if name in ("list", "dict", "set"):
            return MUTABLE | (args & ~MUTABLE)
        if name == "tuple":
            return args & ~MUTABLE
        if name in _NUMERIC_BUILTINS or name.startswith("math."):
            return args & ~MUTABLE
        return args & ~MUTABLE


def param_types(params: Sequence) -> dict[str, str]:
    return {p.name: p.type for p in params}


# ---------------------------------------------------------------------------------------------
# The capture rule


@dataclasses.dataclass
class _Binding:
    loc: Loc
    how: str  # "assign", "unpack", "aug", "loop", "walrus"
    index: int  # index of the enclosing top-level statement of the formula body
    value: cst.BaseExpression | None = None


def collect_captures(mod: Module) -> tuple[Module, list[Diagnostic]]:
    """Fill ``Backward.captures`` of every formula; diagnose every capture the rule rejects."""
    # Scope analysis of the formulas with a backward only (Note [Fast walk]): names of the
    # module's top level then resolve to nothing, which is all the rule needs to know of them.
    analysed = [f.node for f in mod.formulas if f.backward is not None and f.outputs]
    wrapper = MetadataWrapper(cst.Module(body=analysed), unsafe_skip_copy=True)
    scopes = wrapper.resolve(ScopeProvider) if analysed else {}
    info = gather_module_info(mod)
    all_scopes = {s for s in scopes.values() if s is not None}
    diags: list[Diagnostic] = _smuggled(mod)
    formulas = []
    for f in mod.formulas:
        if f.backward is None or not f.outputs:  # composite, or malformed (fence: T107)
            formulas.append(f)
            continue
        captures = _FormulaCaptures(mod, f, scopes, all_scopes, info, diags).run()
        formulas.append(
            dataclasses.replace(f, backward=dataclasses.replace(f.backward, captures=captures))
        )
    return dataclasses.replace(mod, formulas=tuple(formulas)), diags


def _smuggled(mod: Module) -> list[Diagnostic]:
    """T206-T208, T210: ways to smuggle a capture past the analysis, anywhere in a function."""
    out: list[Diagnostic] = []

    def report(key: str, node: cst.CSTNode, /, **fields: object) -> None:
        code, message, hint = format_message(key, **fields)
        out.append(make_diagnostic(code, mod.loc_of(node), message, hint, mod.source))

    functions = [(f.name, f.node, f.backward is not None) for f in mod.formulas]
    functions += [(h.name, h.node, False) for h in mod.helpers]
    kinds = (cst.Nonlocal, cst.Global, cst.Lambda, cst.FunctionDef, cst.NamedExpr)
    for name, fn, has_backward in functions:
        top = set(fn.body.body) if has_backward else set()
        for node in _find(fn.body, kinds):
            if isinstance(node, (cst.Nonlocal, cst.Global)):
                keyword = "nonlocal" if isinstance(node, cst.Nonlocal) else "global"
                report("nonlocal", node, keyword=keyword, name=name)
            elif isinstance(node, cst.Lambda):
                report("lambda", node, name=name)
            elif isinstance(node, cst.NamedExpr):
                report("walrus", node, name=name)
            elif node.name.value == "backward" and node in top:
                for p in (*node.params.params, *node.params.posonly_params):
                    if p.default is not None:
                        report("default_argument", p, name=name, param=p.name.value)
            elif node.name.value != "backward":
                report("nested_function", node.name, function=node.name.value, name=name)
    return out


class _FormulaCaptures:
    def __init__(
        self, mod: Module, f: Formula, scopes, all_scopes, info: ModuleInfo, diags: list[Diagnostic]
    ):
        self.mod, self.f, self.scopes, self.info, self.diags = mod, f, scopes, info, diags
        self.all_scopes = all_scopes
        body = list(f.node.body.body)
        self.bw_index = next(
            i
            for i, s in enumerate(body)
            if isinstance(s, cst.FunctionDef) and s.name.value == "backward"
        )
        self.bw_node: cst.FunctionDef = body[self.bw_index]  # type: ignore[assignment]
        self.body = body
        self.bindings: dict[str, list[_Binding]] = {}
        self.counts: dict[str, int] = {}

    def run(self) -> tuple[Capture, ...]:
        env = KindEnv(self.info, param_types(self.f.params))
        for i, stmt in enumerate(self.body):
            if i != self.bw_index:
                self._walk_bindings(stmt, i, env)
        self.counts = _path_counts(self.body, self.bw_index)
        accesses = self._captured_accesses()
        meta = self.meta = _metadata_reads(self.bw_node.body)
        out = []
        for name in sorted(accesses, key=lambda n: self._pos(accesses[n][0])):
            nodes = accesses[name]
            cap = self._classify(name, nodes, env)
            if cap is None:
                continue
            if (
                cap.kind in (CaptureKind.INPUT, CaptureKind.OUTPUT)
                and cap.type in ("Tensor", "Optional[Tensor]")
                and all(id(n) in meta for n in nodes)
            ):
                attrs = tuple(sorted({meta[id(n)] for n in nodes}))
                cap = dataclasses.replace(cap, metadata_only=True, metadata=attrs)
            out.append(cap)
        return tuple(out)

    # -- what the forward binds ---------------------------------------------------------------

    def _walk_bindings(self, stmt: cst.CSTNode, index: int, env: KindEnv) -> None:
        if isinstance(stmt, cst.BaseSmallStatement):
            self._record_small(stmt, index, env)
            env.bind_statement(stmt)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._record_small(small, index, env)
                env.bind_statement(small)
        elif isinstance(stmt, (cst.If, cst.For, cst.While)):
            # a value chosen by a branch (or loop) on data is data too: control dependence
            saved = env.control
            blocks: list[Sequence[cst.CSTNode]]
            if isinstance(stmt, cst.If):
                tests, blocks = _if_tests(stmt), list(_if_blocks(stmt))
            else:
                tests = [stmt.iter if isinstance(stmt, cst.For) else stmt.test]
                blocks = [stmt.body.body]
            env.control |= ITEM if any(env.kind_of(t) & ITEM for t in tests) else 0
            if isinstance(stmt, cst.For):
                env.bind_target(stmt.target, env.kind_of(stmt.iter) & ~MUTABLE)
                self._record_target(stmt.target, "loop", index, None)
            for block in blocks:
                for inner in block:
                    self._walk_bindings(inner, index, env)
            env.control = saved
        self._record_walrus(stmt, index)

    def _record_small(self, small: cst.CSTNode, index: int, env: KindEnv) -> None:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                self._record_target(t.target, "assign", index, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._record_target(small.target, "assign", index, small.value)
        elif isinstance(small, cst.AugAssign):
            self._record_target(small.target, "aug", index, small.value)

    def _record_target(self, t: cst.BaseExpression, how: str, index: int, value) -> None:
        if isinstance(t, cst.Name):
            self.bindings.setdefault(t.value, []).append(
                _Binding(self.mod.loc_of(t), how, index, value)
            )
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._record_target(el.value, "unpack" if how == "assign" else how, index, None)

    def _record_walrus(self, stmt: cst.CSTNode, index: int) -> None:
        for node in _find(stmt, cst.NamedExpr, skip=(cst.FunctionDef, cst.Lambda)):
            if isinstance(node.target, cst.Name):
                self.bindings.setdefault(node.target.value, []).append(
                    _Binding(self.mod.loc_of(node.target), "walrus", index, None)
                )

    # -- what the backward reads --------------------------------------------------------------

    def _captured_accesses(self) -> dict[str, list[cst.Name]]:
        first = self.bw_node.body.body[0]
        bw_scope = self.scopes[first]
        formula_scope = bw_scope.parent
        inner = [s for s in self.all_scopes if _within(s, bw_scope)]
        out: dict[str, list[cst.Name]] = {}
        for scope in inner:
            for access in scope.accesses:
                if not isinstance(access.node, cst.Name):
                    continue
                if any(r.scope is formula_scope for r in access.referents):
                    out.setdefault(access.node.value, []).append(access.node)
        for nodes in out.values():
            nodes.sort(key=self._pos)
        return out

    def _pos(self, node: cst.CSTNode) -> tuple[int, int]:
        loc = self.mod.loc_of(node)
        return (loc.line, loc.col)

    def _classify(self, name: str, nodes: list[cst.Name], env: KindEnv) -> Capture | None:
        f, at = self.f, nodes[0]
        params = {p.name: p for p in f.params}
        binds = self.bindings.get(name, [])
        if name == "backward" or any(b.how == "walrus" for b in binds):
            return None  # reported elsewhere (T208 recursion is not a capture; T210)
        if name in params:
            p = params[name]
            if binds:
                self._reject("T202", at, name, binds[0].loc, tensor=p.type in TENSOR_TYPES)
                return None
            kind = CaptureKind.INPUT if p.type in TENSOR_TYPES else CaptureKind.ATTRIBUTE
            return Capture(name, kind, p.type, p.loc, False)
        if not binds:
            return None
        bound = binds[0].loc
        flags = env.lookup(name)
        after = [b for b in binds if b.index > self.bw_index]
        tensor = bool(flags & TENSOR)
        if after and len(binds) > 1:
            self._reject("T204", at, name, bound, tensor, others=[after[0].loc])
        elif any(b.how == "loop" for b in binds):
            self._reject("T212", at, name, bound, tensor)
        elif self.counts.get(name, 0) > 1:
            self._reject("T203", at, name, bound, tensor, others=[b.loc for b in binds[1:]])
        elif name in f.outputs:
            return Capture(name, CaptureKind.OUTPUT, "Tensor", bound, False)
        elif flags & MUTABLE:
            self._reject("T209", at, name, bound)
        elif flags & TENSOR:
            code = "T211" if binds[0].how == "unpack" else "T201"
            only = all(id(n) in self.meta for n in nodes)
            attrs = sorted({self.meta[id(n)] for n in nodes}) if only else []
            self._reject(code, at, name, bound, metadata=attrs)
        elif flags & ITEM:
            self._reject("T205", at, name, bound)
        else:
            spelled = _spell_type(binds[0].value, params, self.info.helpers)
            return Capture(name, CaptureKind.ATTRIBUTE, spelled, bound, False)
        return None

    def _reject(
        self,
        code: str,
        node: cst.Name,
        name: str,
        bound: Loc,
        tensor: bool = True,
        others: Sequence[Loc] = (),
        metadata: Sequence[str] = (),
    ) -> None:
        at = self.mod.loc_of(node)
        message, hint = capture_message(
            code, name, self.f.name, bound, at, tensor, others, metadata
        )
        self.diags.append(
            make_diagnostic(code, at, message, hint, self.mod.source, width=len(name))
        )


# ---------------------------------------------------------------------------------------------
# Small analyses


def _if_blocks(stmt: cst.If) -> list[Sequence[cst.BaseStatement]]:
    blocks = [stmt.body.body]
    orelse = stmt.orelse
    if isinstance(orelse, cst.If):
        blocks.extend(_if_blocks(orelse))
    elif isinstance(orelse, cst.Else):
        blocks.append(orelse.body.body)
    return blocks  # type: ignore[return-value]


def _if_tests(stmt: cst.If) -> list[cst.BaseExpression]:
    tests = [stmt.test]
    if isinstance(stmt.orelse, cst.If):
        tests.extend(_if_tests(stmt.orelse))
    return tests


def _path_counts(body: Sequence[cst.CSTNode], skip: int) -> dict[str, int]:
    """For each name, the most times one execution path of ``body`` binds it (loops: many)."""

    def block(stmts: Sequence[cst.CSTNode]) -> dict[str, int]:
        total: dict[str, int] = {}
        for s in stmts:
            for n, c in stmt(s).items():
                total[n] = total.get(n, 0) + c
        return total

    def stmt(s: cst.CSTNode) -> dict[str, int]:
        if isinstance(s, cst.If):
            out: dict[str, int] = {}
            for b in _if_blocks(s):
                for n, c in block(b).items():
                    out[n] = max(out.get(n, 0), c)
            return out
        if isinstance(s, (cst.For, cst.While)):
            inner = block(s.body.body)
            if isinstance(s, cst.For):
                for n in target_names(s.target):
                    inner[n] = inner.get(n, 0) + 1
            return {n: 2 * c for n, c in inner.items()}
        out = {}
        if isinstance(s, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            for small in s.body if isinstance(s, cst.SimpleStatementLine) else [s]:
                targets = []
                if isinstance(small, cst.Assign):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    targets = [small.target]
                for t in targets:
                    for n in target_names(t):
                        out[n] = out.get(n, 0) + 1
        return out

    return block([s for i, s in enumerate(body) if i != skip])


def _within(scope, ancestor) -> bool:
    while scope is not None:
        if scope is ancestor:
            return True
        parent = getattr(scope, "parent", None)
        scope = None if parent is scope else parent
    return False


def _metadata_reads(node: cst.CSTNode) -> dict[int, str]:
    """id(Name) -> attribute, for every ``name.shape`` / ``.ndim`` / ``.dtype`` / ``.numel``."""
    out: dict[int, str] = {}
    for attr in _find(node, cst.Attribute):
        if isinstance(attr.value, cst.Name) and attr.attr.value in METADATA:
            out[id(attr.value)] = attr.attr.value
    return out


def _find(node: cst.CSTNode, kind, skip: tuple = ()) -> list:
    return [n for n in walk(node, skip) if isinstance(n, kind)]


def _spell_type(
    value: cst.BaseExpression | None, params: dict, helpers: dict[str, str] | None = None
) -> str:
    """Best-known type spelling of a non-tensor forward value ("" when unknown)."""
    e = value
    if e is None:
        return ""
    if isinstance(e, cst.Attribute):
        return {"shape": "Shape", "ndim": "int", "numel": "int", "dtype": "DType"}.get(
            e.attr.value, ""
        )
    if isinstance(e, cst.Integer):
        return "int"
    if isinstance(e, cst.Float):
        return "float"
    if isinstance(e, cst.Name):
        if e.value in ("True", "False"):
            return "bool"
        return params[e.value].type if e.value in params else ""
    if isinstance(e, (cst.Comparison, cst.BooleanOperation)) or (
        isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Not)
    ):
        return "bool"
    if isinstance(e, cst.Call):
        name = dotted_name(e.func) or ""
        if name == "len" or name == "int":
            return "int"
        if name == "float" or name.startswith("math."):
            return "float"
        if name == "tuple":
            return "Shape"
        if helpers and name in helpers:
            return helpers[name]
        if name in ("min", "max", "abs") and e.args:
            return _spell_type(e.args[0].value, params, helpers)
        return ""
    if isinstance(e, cst.Tuple):
        return "Shape"
    if isinstance(e, cst.Subscript):
        base = _spell_type(e.value, params, helpers)
        if base in ("Shape", "Dims"):
            sl = e.slice[0].slice if len(e.slice) == 1 else None
            return "int" if isinstance(sl, cst.Index) else base
        return ""
    if isinstance(e, cst.BinaryOperation):
        a, b = _spell_type(e.left, params, helpers), _spell_type(e.right, params, helpers)
        if isinstance(e.operator, cst.Divide):
            return "float"
        if "float" in (a, b):
            return "float"
        if a in ("Shape", "Dims") or b in ("Shape", "Dims"):
            return "Shape"
        return "int" if a == b == "int" else ""
    if isinstance(e, cst.UnaryOperation):
        return _spell_type(e.expression, params, helpers)
    if isinstance(e, cst.IfExp):
        return _spell_type(e.body, params, helpers) or _spell_type(e.orelse, params, helpers)
    return ""
