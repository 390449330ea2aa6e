"""Fence: the supported subset of Python for formula modules (DESIGN §2).

Stage 3 of the front end, after ``lower``. Input: a parsed ``Module`` and the type lowering
gave each of its expressions. Output: a list of diagnostics (T1xx subset and structure, T2xx
smuggled captures, T3xx kernels and types); empty when the module is in the subset.

Checked here: module-level statements and imports; decorators and formula options; parameter
kinds and type annotations; the shape of a formula (one top-level ``def backward`` with one
parameter per differentiable + hidden output, a final ``return outputs, backward``, options
naming real outputs); statements of forward, backward and helpers; their expressions
(``ExprChecker``, the last section): names, tensor attributes, ``kernel.*`` calls against
``signatures.KERNELS`` (existence, arity, keywords, tensor vs non-tensor arguments) and
``kernel.*`` inside a backward unless ``once_differentiable``; branches on tensor data.
Also the ways to smuggle a capture past the capture rule's reading of the source (closures,
walrus, nonlocal, default arguments of backward: T206-T208, T210); the rule itself is
``captures``.

Note [The fence reads lowering's types]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
What the fence asks of values (is this test on tensor data: T307; is this kernel argument a
tensor where the kernel wants a value, or surely not one where it wants a tensor: T305; which
operand of an elementwise kernel is a number standing for a tensor: Note [Numbers as kernel
operands]; is this unsupported attribute read "of a tensor": T308's words) is answered by the
types ``lower`` gave each expression (``lower_module(..., types)``), so a formula is typed
once. Lowering runs first and types what it refuses (Notes [Total lowering] and [Typing is
total] in lower.py); what it could not type the fence treats as no tensor, as the source-level
inference it replaces (``kinds.py``, 225 lines) treated names it did not know. The capture
rule's over-approximation (a value that may be a tensor is one) is the rule's own. The change
left every verdict and message of tools/translator_oracle.py as it was.

The subset accepted (what the back end must lower), Note [Accepted subset]:
* statements: assignments to names and tuples of names (also annotated and augmented),
  ``if``/``elif``/``else``, ``for`` (no ``else``) with ``break``/``continue``, ``pass``,
  ``return``, ``raise ValueError|IndexError|TypeError|RuntimeError(message)`` (f-strings are
  allowed in the message only), docstrings; ``def backward`` at the top of a formula;
* expressions: names, int/float/bool/str/None literals, tuples and lists (lists are never
  captured: T209), subscripts and slices, arithmetic, comparisons (chained), ``and``/``or``/
  ``not`` and conditional expressions on non-tensors, list comprehensions and generator
  expressions, calls to ``kernel.*`` (checked), ``ops.*``, ``@helper`` functions, ``math.*``
  and the builtins in ``subset.BUILTINS``; tensor metadata ``.shape .ndim .dtype .numel``.

Invariants: never raises on a module ``parse`` accepted; reports every problem it finds.
"""

from __future__ import annotations

import builtins
import dataclasses
import difflib
import math
from collections.abc import Callable, Mapping, Sequence

import libcst as cst

from .. import ir
from ..diagnostics import Diagnostic, make_diagnostic
from ..messages import format_message
from ..model import Formula, Module, Param
from ..signatures import NUMBER_OPERAND_KERNELS, KernelParam
from ..subset import BUILTINS, EXCEPTIONS, LANG_NAMES, METADATA, OPTIONS, PARAM_TYPES, TENSOR_TYPES
from ..user_kernels import kernel_names, kernel_signature
from .literals import INT64_MAX, INT64_MIN, MAX_REPEAT, TOO_LARGE, is_constant, literal_value
from .parse import annotation_spelling, decorator_name
from .syntax import child_nodes, dotted_name, find, walk

_NESTED = (cst.FunctionDef, cst.Lambda)  # a return below one is not the formula's
_UNSUPPORTED_STMT = {
    cst.While: "`while` loops",
    cst.Try: "`try`",
    cst.With: "`with`",
    cst.ClassDef: "class definitions",
    cst.Assert: "`assert`",
    cst.Del: "`del`",
    cst.Import: "imports inside functions",
    cst.ImportFrom: "imports inside functions",
}


# -- what the module defines at the top level -------------------------------------------------


@dataclasses.dataclass
class ModuleInfo:
    """Names defined at module level, and facts about helpers (transitively)."""

    lang: set[str]  # names imported from transgrad.lang
    modules: set[str]  # ``math`` when imported
    helpers: dict[str, str]  # helper name -> return annotation spelling
    constants: set[str]
    formulas: set[str]
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
    uses = {h for h, c in calls.items() if any(n.startswith("kernel.") for n in c)}
    for _ in range(len(helpers)):  # propagate through helpers calling helpers
        uses |= {h for h, c in calls.items() if c & uses}
    return ModuleInfo(
        lang,
        modules,
        helpers,
        {c.name for c in mod.constants},
        {f.name for f in mod.formulas},
        uses,
    )


def _called_names(node: cst.CSTNode) -> set[str]:
    return {dotted_name(n.func) or "" for n in walk(node) if isinstance(n, cst.Call)}


def check_fence(mod: Module, types: Mapping[cst.CSTNode, ir.Type]) -> list[Diagnostic]:
    """Every subset/structure/kernel diagnostic of ``mod``, in no particular order; ``types``:
    lowering's type of each expression (Note [The fence reads lowering's types])."""
    fence = _Fence(mod, types)
    fence.run()
    return fence.diags


class _Fence:
    def __init__(self, mod: Module, types: Mapping[cst.CSTNode, ir.Type]):
        self.mod = mod
        self.info: ModuleInfo = gather_module_info(mod)
        self.types = types
        self.diags: list[Diagnostic] = []

    def report(self, key: str, node: cst.CSTNode, /, **fields: object) -> None:
        """Diagnose ``node`` with ``messages.MESSAGES[key]``, underlining the whole node."""
        code, message, hint = format_message(key, **fields)
        r = self.mod.positions.get(node)
        width = r.end.column - r.start.column if r and r.start.line == r.end.line else 1
        loc = self.mod.loc_of(node)
        self.diags.append(make_diagnostic(code, loc, message, hint, self.mod.source, width))

    def point(self, key: str, node: cst.CSTNode, /, **fields: object) -> None:
        """Diagnose ``node`` with ``messages.MESSAGES[key]``, pointing at its start."""
        code, message, hint = format_message(key, **fields)
        loc = self.mod.loc_of(node)
        self.diags.append(make_diagnostic(code, loc, message, hint, self.mod.source))

    def _check_smuggling(self) -> None:
        """T206-T208, T210: the ways to smuggle a capture past the capture rule's reading of
        the source (scopes.capture_facts), anywhere in a formula or helper."""
        functions = [(f.name, f.node, f.backward is not None) for f in self.mod.formulas]
        functions += [(h.name, h.node, False) for h in self.mod.helpers]
        kinds = (cst.Nonlocal, cst.Global, cst.Lambda, cst.FunctionDef, cst.NamedExpr)
        for name, fn, has_backward in functions:
            top = set(fn.body.body) if has_backward else set()
            for node in find(fn.body, kinds):
                if isinstance(node, (cst.Nonlocal, cst.Global)):
                    keyword = "nonlocal" if isinstance(node, cst.Nonlocal) else "global"
                    self.point("nonlocal", node, keyword=keyword, name=name)
                elif isinstance(node, cst.Lambda):
                    self.point("lambda", node, name=name)
                elif isinstance(node, cst.NamedExpr):
                    self.point("walrus", node, name=name)
                elif node.name.value == "backward" and node in top:
                    for p in (*node.params.params, *node.params.posonly_params):
                        if p.default is not None:
                            self.point("default_argument", p, name=name, param=p.name.value)
                elif node.name.value != "backward":
                    self.point("nested_function", node.name, function=node.name.value,
                               name=name)

    def report_too_large(self, node: cst.CSTNode) -> None:
        self.report("too_large", node, what="constant", lo=INT64_MIN, hi=INT64_MAX,
                    items=MAX_REPEAT)

    # -- module level -------------------------------------------------------------------------

    def run(self) -> None:
        constants = {c.name for c in self.mod.constants}
        for stmt in self.mod.tree.body:
            if isinstance(stmt, cst.FunctionDef):
                self._check_decorators(stmt)
            elif isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._check_module_small(small, constants)
            else:
                self.report("module_block", stmt)
        for f in self.mod.formulas:
            self._check_formula(f)
        self._check_smuggling()
        for h in self.mod.helpers:
            self._check_params(h.node, h.name)
            self._check_returns(h.node, h.returns, helper=True)
            known, local = self._known(h.node)
            self._check_block(h.node.body.body, self._ctx(h.params, known, local, False, False))

    def _check_module_small(self, small: cst.BaseSmallStatement, constants: set[str]) -> None:
        if isinstance(small, cst.ImportFrom):
            module = dotted_name(small.module) if small.module else None
            if module == "__future__":
                return
            if module != "transgrad.lang" or isinstance(small.names, cst.ImportStar):
                self.report("import_from", small, module=module)
                return
            for alias in small.names:
                if alias.asname is not None or dotted_name(alias.name) not in LANG_NAMES:
                    exports = ", ".join(sorted(LANG_NAMES))
                    self.report("import_name", alias, name=dotted_name(alias.name), exports=exports)
        elif isinstance(small, cst.Import):
            for alias in small.names:
                if dotted_name(alias.name) != "math" or alias.asname is not None:
                    self.report("import_module", alias, name=dotted_name(alias.name))
        elif isinstance(small, (cst.Assign, cst.AnnAssign)):
            target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
            name = target.value if isinstance(target, cst.Name) else None
            if name not in constants and name != "__all__":
                env = {c.name: c.value for c in self.mod.constants}
                if small.value is not None and literal_value(small.value, env) is TOO_LARGE:
                    self.report_too_large(small.value)
                else:
                    self.report("module_assign", small)
        elif not (
            isinstance(small, cst.Expr)
            and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        ):
            self.report("module_small", small)

    def _check_decorators(self, fn: cst.FunctionDef) -> None:
        name = fn.name.value
        decorators = [decorator_name(d) for d in fn.decorators]
        if fn.asynchronous is not None:
            self.report("async", fn.asynchronous, name=name)
        for dup in {
            d for d in decorators if decorators.count(d) > 1 and d in ("formula", "helper")
        }:
            self.report("decorator_twice", fn.name, decorator=dup, name=name)
        if "formula" not in decorators and "helper" not in decorators:
            self.report("module_function", fn.name, name=name)
        if "formula" in decorators and "helper" in decorators:
            self.report("formula_and_helper", fn.name, name=name)
        for dec, dname in zip(fn.decorators, decorators):
            if dname not in ("formula", "helper", "samples"):
                self.report("decorator", dec.decorator, decorator=dname or "...")
            elif dname == "formula" and isinstance(dec.decorator, cst.Call):
                self._check_options(dec.decorator)
            elif dname == "helper" and isinstance(dec.decorator, cst.Call):
                self.report("helper_args", dec.decorator)

    def _check_options(self, call: cst.Call) -> None:
        for arg in call.args:
            key = arg.keyword.value if arg.keyword else None
            if key not in OPTIONS:
                options = ", ".join(OPTIONS)
                self.report(
                    "option_unknown", arg, key=key or "positional argument", options=options
                )
                continue
            value = literal_value(arg.value, {})
            ok = is_constant(value) and isinstance(value, OPTIONS[key])
            if ok and isinstance(value, tuple):
                ok = all(isinstance(v, str) for v in value)
            if not ok:
                names = OPTIONS[key][0] is tuple
                what, example = (
                    ("tuple of output names", '("values",)') if names else ("bool", "True")
                )
                self.report("option_value", arg.value, key=key, what=what, example=example)

    # -- signatures ---------------------------------------------------------------------------

    def _check_params(self, fn: cst.FunctionDef, name: str, annotations: bool = True) -> None:
        p = fn.params
        for bad in (*p.posonly_params, *p.kwonly_params):
            self.report("param_kind", bad, param=bad.name.value, name=name)
        for star in (p.star_arg, p.star_kwarg):
            if isinstance(star, cst.Param):
                self.report("param_variadic", star, param=star.name.value, name=name)
        types = ", ".join(sorted(PARAM_TYPES))
        for param in (*p.posonly_params, *p.params, *p.kwonly_params) if annotations else ():
            node = param.annotation.annotation if param.annotation else None
            ann = annotation_spelling(node)
            if node is None or not ann:
                self.report("param_untyped", param.name, param=param.name.value, name=name,
                            types=types)  # fmt: skip
            elif ann not in PARAM_TYPES:
                self.report("param_type", node, type=ann, param=param.name.value, types=types)
        env = {c.name: c.value for c in self.mod.constants}
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if param.default is not None and literal_value(param.default, env) is TOO_LARGE:
                self.report_too_large(param.default)

    def _check_returns(self, fn: cst.FunctionDef, returns: str, helper: bool) -> None:
        node = fn.returns.annotation if fn.returns else fn.name
        parts = returns[1:-1].split(", ") if returns.startswith("(") else [returns]
        allowed = PARAM_TYPES if helper else {"Tensor"}
        if not returns:
            self.report("return_untyped", node, name=fn.name.value)
        elif not all(p in allowed for p in parts):
            key = "return_type_helper" if helper else "return_type_formula"
            self.report(key, node, type=returns, name=fn.name.value)

    # -- formula structure --------------------------------------------------------------------

    def _check_formula(self, f: Formula) -> None:
        fn = f.node
        self._check_params(fn, f.name)
        self._check_returns(fn, f.returns, helper=False)
        body = list(fn.body.body)
        tops = [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "backward"]
        for extra in tops[1:]:
            self.report("backward_twice", extra.name, name=f.name)
        for nested in find(fn.body, cst.FunctionDef):
            if nested.name.value == "backward" and nested not in tops:
                self.report("backward_nested", nested.name, name=f.name)
        known, local = self._known(fn)
        once = f.options.once_differentiable
        if f.backward is None:  # composite
            if not find(fn.body, cst.Return, _NESTED):
                self.report("no_return", fn.name, name=f.name)
            self._check_block(body, self._ctx(f.params, known, local, False, once))
            return
        last = body[-1]
        if not f.outputs:
            self.report("final_return", last, name=f.name)
        if len(set(f.outputs)) != len(f.outputs):
            self.report("outputs_twice", last, name=f.name, outputs=", ".join(f.outputs))
        bw = tops[0]
        forward = [s for s in body if s is not bw and s is not last]
        for s in forward:
            for ret in () if isinstance(s, _NESTED) else find(s, cst.Return, _NESTED):
                self.report("forward_return", ret, name=f.name)
        self._check_block(
            [s for s in body if s is not bw], self._ctx(f.params, known, local, False, once), True
        )
        self._check_outputs(f, bw)
        self._check_params(bw, "backward", annotations=False)
        self._check_block(bw.body.body, self._ctx(f.params, known, local, True, once))

    def _check_outputs(self, f: Formula, bw: cst.FunctionDef) -> None:
        dec = next(d for d in f.node.decorators if decorator_name(d) == "formula")
        opts, outputs = f.options, ", ".join(f.outputs)
        seen: set[str] = set()
        named_non_output = False
        for key, names in (
            ("differentiable_outputs", opts.differentiable_outputs or ()),
            ("hidden_outputs", opts.hidden_outputs),
        ):
            for n in names:
                if f.outputs and n not in f.outputs:
                    named_non_output = True
                    self.report("option_not_output", dec, key=key, name=f.name, output=n,
                                outputs=outputs)  # fmt: skip
                elif n in seen:
                    self.report("option_output_twice", dec, output=n, name=f.name)
                seen.add(n)
        slots = f.grad_slots
        n_diff = len(slots) - len([o for o in slots if o in opts.hidden_outputs])
        expected = [f"grad_{d}" if i else "grad" for i, d in enumerate(slots[:n_diff])]
        expected += [f"grad_{h}" for h in slots[n_diff:]]
        grads = [p for p in bw.params.params if p.default is None]  # defaults: T206
        if f.outputs and not named_non_output and len(grads) != len(expected):
            self.report("backward_arity", bw.name, name=f.name, got=len(grads),
                        expected=len(expected), outputs=", ".join(slots) or "none",
                        params=", ".join(expected))  # fmt: skip

    def _known(self, fn: cst.FunctionDef) -> tuple[set[str], set[str]]:
        """(names a function may read, names it binds), reporting bindings that shadow a
        module-level or reserved name (T113)."""
        info = self.info
        # builtins may be shadowed (PyTorch's ``clamp(x, min, max)``); the names the translator
        # resolves at module level may not
        reserved = info.lang | info.modules | set(info.helpers) | info.formulas
        bound = _bindings(fn)
        for node in bound:
            if node.value in reserved:
                self.report("shadowed", node, name=node.value, function=fn.name.value)
        local = {n.value for n in bound}
        names = local | info.lang | info.modules | set(info.helpers) | info.constants
        return names | BUILTINS | {"True", "False", "None"}, local

    # -- statements ---------------------------------------------------------------------------

    def _check_block(
        self, stmts: Sequence[cst.CSTNode], ctx: Ctx, final_return: bool = False
    ) -> None:
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    self._check_small(small, ctx, final_return and i == len(stmts) - 1)
            elif isinstance(stmt, cst.BaseSmallStatement):
                self._check_small(stmt, ctx, False)
            elif isinstance(stmt, cst.If):
                self._check_test(stmt.test, ctx)
                self._check_block(stmt.body.body, ctx)
                if isinstance(stmt.orelse, cst.If):
                    self._check_block([stmt.orelse], ctx)
                elif isinstance(stmt.orelse, cst.Else):
                    self._check_block(stmt.orelse.body.body, ctx)
            elif isinstance(stmt, cst.For):
                self._check_target(stmt.target)
                self._check_expr(stmt.iter, ctx)
                if stmt.orelse is not None:
                    self.report("for_else", stmt.orelse)
                self._check_block(stmt.body.body, ctx)
            elif not isinstance(stmt, cst.FunctionDef):  # backward: on its own; others: T208
                self.report("statement", stmt, what=_statement_name(stmt))

    def _check_small(self, small: cst.BaseSmallStatement, ctx: Ctx, is_final: bool) -> None:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                self._check_target(t.target)
            self._check_expr(small.value, ctx)
        elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
            self._check_target(small.target)
            if small.value is not None:
                self._check_expr(small.value, ctx)
        elif isinstance(small, cst.Return):
            if small.value is not None and not is_final:
                self._check_expr(small.value, ctx)
            elif small.value is not None and isinstance(small.value, cst.Tuple):
                self._check_expr(small.value.elements[0].value, ctx)
        elif isinstance(small, cst.Raise):
            exc = small.exc
            func = exc.func if isinstance(exc, cst.Call) else exc
            if not (isinstance(func, cst.Name) and func.value in EXCEPTIONS):
                self.report("raise", small)
            elif isinstance(exc, cst.Call):
                for a in exc.args:
                    if not isinstance(a.value, cst.FormattedString):
                        self._check_expr(a.value, ctx)
        elif isinstance(small, cst.Expr):
            if not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                self.report("expression_statement", small)
        elif not isinstance(small, (cst.Pass, cst.Break, cst.Continue, cst.Nonlocal, cst.Global)):
            self.report("statement", small, what=_statement_name(small))  # nonlocal: T207

    def _check_target(self, t: cst.BaseExpression) -> None:
        if isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._check_target(el.value)
        elif not isinstance(t, cst.Name):
            self.report("assign_target", t)

    def _ctx(self, params: Sequence[Param], known: set[str], local: set[str], in_backward: bool,
             once: bool) -> Ctx:
        return Ctx(self.types, {p.name: p.type for p in params}, known, local, in_backward, once)

    def _check_test(self, test: cst.BaseExpression, ctx: Ctx) -> None:
        checker = ExprChecker(self.info, self.report, ctx)
        checker.check(test)
        checker.tensor_test(test)

    def _check_expr(self, e: cst.BaseExpression, ctx: Ctx) -> None:
        ExprChecker(self.info, self.report, ctx).check(e)


def _statement_name(stmt: cst.CSTNode) -> str:
    what = next((v for k, v in _UNSUPPORTED_STMT.items() if isinstance(stmt, k)), None)
    return what or f"`{type(stmt).__name__}` statements"




def _bindings(fn: cst.FunctionDef) -> list[cst.Name]:
    """The name nodes of every binding inside ``fn`` (parameters, targets, loop variables,
    nested definitions), not counting ``fn``'s own name."""
    names: list[cst.Name] = []
    for n in walk(fn):
        if isinstance(n, cst.Param) or (isinstance(n, cst.FunctionDef) and n is not fn):
            names.append(n.name)
        elif isinstance(
            n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)
        ):
            names.extend(_name_nodes(n.target))
    return names


def _name_nodes(t: cst.BaseExpression) -> list[cst.Name]:
    if isinstance(t, cst.Name):
        return [t]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in _name_nodes(el.value)]
    if isinstance(t, cst.StarredElement):
        return _name_nodes(t.value)
    return []


# -- expressions: the check of one expression of a formula or helper ----------------------------
# Input: an expression, the module's top-level names (``ModuleInfo``) and a ``Ctx`` (lowering's
# types, the function's parameters, the names it may read, whether it is a backward). Output:
# diagnostics through the fence's ``report``: unknown names, formulas called directly,
# unsupported forms and attributes, ``kernel.*`` calls against ``signatures.KERNELS``
# (existence, arity, keywords, tensor vs non-tensor arguments, inside a backward), builtins
# outside ``BUILTINS``, and tests on tensor data (T307).


class Ctx:
    def __init__(self, types: Mapping[cst.CSTNode, ir.Type], params: dict[str, str],
                 known: set[str], local: set[str], in_backward: bool, once: bool):
        self.types, self.params, self.known, self.local = types, params, known, local
        self.in_backward, self.once = in_backward, once

    def tensor(self, e: cst.BaseExpression) -> bool:
        """Whether lowering typed ``e`` as a tensor or a value holding tensors."""
        t = self.types.get(e)
        return t is not None and ir.holds_tensors(t)

    def typed(self, e: cst.BaseExpression) -> bool:
        return e in self.types


class ExprChecker:
    """Checks one expression: names, attributes, calls (kernels!), unsupported forms.

    ``visit_<NodeType>`` methods run before the node's children; returning False skips them.
    """

    def __init__(self, info: ModuleInfo, report: Callable[..., None], ctx: Ctx):
        self.info, self.report, self.ctx = info, report, ctx

    def check(self, node: cst.CSTNode) -> None:
        bad = _UNSUPPORTED_EXPR.get(type(node))
        if bad is not None:
            self.report("expression", node, what=bad)
            return
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None and method(node) is False:
            return
        for child in child_nodes(node):
            self.check(child)

    def tensor_test(self, test: cst.BaseExpression) -> None:
        if self.ctx.tensor(test):
            self.report("tensor_test", test)

    def visit_Name(self, n: cst.Name) -> None:
        # a formula named like a builtin (``sum``, ``abs``) is what the name means in Python
        if n.value in self.info.formulas and n.value not in self.ctx.local:
            self.report("formula_call", n, name=n.value)
        elif n.value not in self.ctx.known:
            self.report("unknown_name", n, name=n.value)

    def visit_Arg(self, a: cst.Arg) -> bool:
        if a.star:
            self.report("star_arg", a)
        self.check(a.value)
        return False

    def visit_Attribute(self, a: cst.Attribute) -> bool:
        base, attr = dotted_name(a.value), a.attr.value
        if base == "kernel":
            self.report("kernel_uncalled", a, kernel=attr)
        elif base == "math":
            if not hasattr(math, attr):
                self.report("math_missing", a, attr=attr)
        else:
            if base != "ops" and attr not in METADATA:
                of = " of a tensor" if self.ctx.tensor(a.value) else ""
                self.report("attribute", a.attr, attr=attr, of=of)
            self.check(a.value)
        return False

    def visit_Call(self, c: cst.Call) -> bool:
        name = dotted_name(c.func) or ""
        info, ctx = self.info, self.ctx
        if name.startswith("kernel.") and isinstance(c.func, cst.Attribute):
            self._kernel_call(c, c.func.attr.value)
        elif not isinstance(c.func, cst.Name):
            self.check(c.func)
        elif name in info.helpers:
            if ctx.in_backward and not ctx.once and name in info.uses_kernels:
                self.report("helper_kernel_backward", c.func, name=name)
        elif name in EXCEPTIONS or (name in LANG_NAMES and name not in ("kernel", "ops")):
            self.report("not_callable", c.func, name=name)
        elif name not in BUILTINS and hasattr(builtins, name) and name not in ctx.known:
            self.report("builtin", c.func, name=name, builtins=", ".join(sorted(BUILTINS)))
        else:
            self.check(c.func)
        for a in c.args:
            self.check(a)
        return False

    def _kernel_call(self, c: cst.Call, kname: str) -> None:
        sig = kernel_signature(kname)
        if sig is None:
            close = difflib.get_close_matches(kname, kernel_names(), n=1)
            suggestion = f"; did you mean `kernel.{close[0]}`?" if close else ""
            self.report("kernel_unknown", c.func, kernel=kname, suggestion=suggestion)
            return
        if self.ctx.in_backward and not self.ctx.once:
            self.report("kernel_in_backward", c.func, kernel=kname)
        params = sig.params
        signature = f"kernel.{kname}({', '.join(_param_text(p) for p in params)})"
        facts = {"kernel": kname, "signature": signature}
        positional = [a for a in c.args if a.keyword is None and not a.star]
        if len(positional) > len(params):
            self.report("kernel_too_many", c, expected=len(params), got=len(positional), **facts)
        bound = {p.name: a for p, a in zip(params, positional)}
        names = {p.name for p in params}
        unknown = False
        for a in c.args:
            k = a.keyword.value if a.keyword else None
            if a.keyword is None or k is None:
                continue
            if k not in names:
                unknown = True
                self.report("kernel_keyword", a.keyword, keyword=k, **facts)
            elif k in bound:
                self.report("kernel_keyword_twice", a.keyword, keyword=k, **facts)
            else:
                bound[k] = a
        first = positional[0].value if positional else None
        missing = ", ".join(f"`{p.name}`" for p in params
                            if p.name not in bound and not defaulted(p, first))
        if missing and len(positional) <= len(params) and not unknown:
            keywords = any(a.keyword for a in c.args)
            key = "kernel_missing_keyword" if keywords else "kernel_missing"
            if any(p.default == "all" and p.name not in bound for p in params):
                key = "kernel_default_all"  # Note [Kernel defaults]: x must be a variable
            self.report(key, c, missing=missing, **facts)
        numbered = number_operand(kname, c, self.ctx)
        for p in params:
            if p.name in bound and bound[p.name] is not numbered:
                self._check_arg(kname, p, bound[p.name].value)

    def _check_arg(self, kname: str, p: KernelParam, value: cst.BaseExpression) -> None:
        ctx = self.ctx
        param = f"{p.type} {p.name}"
        if p.type == "Dims" and kname in EMPTY_DIMS_REFUSED and _empty_display(value):
            self.report("kernel_empty_dims", value, kernel=kname)
        if p.type in TENSOR_TYPES:
            if not ctx.tensor(value) and _definitely_scalar(value, ctx):
                self.report("kernel_want_tensor", value, kernel=kname, param=param)
        elif ctx.tensor(value):
            self.report("kernel_want_value", value, kernel=kname, param=param)

    def visit_Lambda(self, n: cst.Lambda) -> bool:
        return False  # captures (T208)

    def visit_NamedExpr(self, n: cst.NamedExpr) -> bool:
        self.check(n.value)  # the walrus itself: captures (T210)
        return False

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp) -> bool:
        checker = ExprChecker(self.info, self.report, self.ctx)
        for_in: cst.CompFor | None = node.for_in
        while for_in is not None:
            checker.check(for_in.iter)
            for cond in for_in.ifs:
                checker.check(cond)
            for_in = for_in.inner_for_in
        checker.check(node.elt)
        return False

    def visit_ListComp(self, n: cst.ListComp) -> bool:
        return self._comprehension(n)

    def visit_GeneratorExp(self, n: cst.GeneratorExp) -> bool:
        return self._comprehension(n)

    def visit_BooleanOperation(self, n: cst.BooleanOperation) -> None:
        for side in (n.left, n.right):
            self.tensor_test(side)

    def visit_UnaryOperation(self, n: cst.UnaryOperation) -> None:
        if isinstance(n.operator, cst.Not):
            self.tensor_test(n.expression)

    def visit_IfExp(self, n: cst.IfExp) -> None:
        self.tensor_test(n.test)


_UNSUPPORTED_EXPR = {
    cst.Dict: "dict displays",
    cst.Set: "set displays",
    cst.DictComp: "dict comprehensions",
    cst.SetComp: "set comprehensions",
    cst.FormattedString: "f-strings",
    cst.Await: "`await` expressions",
    cst.Yield: "`yield` expressions",
    cst.StarredElement: "starred elements",
    cst.Ellipsis: "`...`",
}


# Note [Empty reduction dims]: the reduction kernels reduce exactly over ``dims``, so an empty
# tuple reduces nothing (sum_to relies on it); torch's ``sum(x, dim=[])`` reduces every
# dimension (checked on torch 2.13: ``torch.sum(x, dim=[])`` is the sum of all elements). A
# formula spelling an empty literal would read as torch and mean the opposite: T309 refuses it.
# A computed empty tuple keeps the kernel's meaning.
EMPTY_DIMS_REFUSED = frozenset({"sum", "amax", "amin", "logsumexp", "prod"})


def number_operand(kname: str, c: cst.Call, ctx: Ctx) -> cst.Arg | None:
    """The argument of ``c`` that Note [Numbers as kernel operands] lets be a number: of a
    kernel of NUMBER_OPERAND_KERNELS called with two positional arguments, one not a tensor
    while the other is a tensor named by a variable; else None."""
    if kname not in NUMBER_OPERAND_KERNELS or len(c.args) != 2 or any(
            a.keyword or a.star for a in c.args):
        return None
    for number, other in ((c.args[1], c.args[0]), (c.args[0], c.args[1])):
        if (isinstance(other.value, cst.Name) and ctx.tensor(other.value)
                and not ctx.tensor(number.value) and not _never_number(number.value, ctx)):
            return number
    return None


def _never_number(e: cst.BaseExpression, ctx: Ctx) -> bool:
    """True when ``e`` is surely a shape, dims, dtype, string or container: such a value is
    not a number standing for a tensor (T305 as before)."""
    if isinstance(e, (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.SimpleString,
                      cst.ConcatenatedString, cst.FormattedString)):
        return True
    if isinstance(e, cst.Attribute):
        return e.attr.value in ("shape", "dtype")
    if isinstance(e, cst.Call):
        return dotted_name(e.func) in ("tuple", "list")
    if isinstance(e, cst.Name):
        return ctx.params.get(e.value, "") not in ("", "int", "float", "bool", "Scalar")
    return False


def defaulted(p: KernelParam, first: cst.BaseExpression | None) -> bool:
    """Whether the translator supplies ``p`` when it is left out (Note [Kernel defaults]):
    ``dims=all`` reads the first argument twice, so it must be a variable."""
    return p.default is not None and (p.default != "all" or isinstance(first, cst.Name))


def _param_text(p: KernelParam) -> str:
    return f"{p.type} {p.name}" + (f"={p.default}" if p.default else "")


def _empty_display(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Tuple, cst.List)) and not e.elements


def _definitely_scalar(e: cst.BaseExpression, ctx: Ctx) -> bool:
    """True when ``e`` is surely not a tensor (a literal, metadata, or a known non-tensor)."""
    if isinstance(e, (cst.Integer, cst.Float, cst.Tuple, cst.Comparison)):
        return True
    if isinstance(e, cst.Name):
        return e.value in ("True", "False") or ctx.typed(e)
    if isinstance(e, cst.Attribute):
        return e.attr.value in METADATA
    if isinstance(e, cst.UnaryOperation):
        return _definitely_scalar(e.expression, ctx)
    if isinstance(e, cst.BinaryOperation):
        return _definitely_scalar(e.left, ctx) and _definitely_scalar(e.right, ctx)
    if isinstance(e, cst.Call):
        return dotted_name(e.func) in ("len", "int", "float", "min", "max") and all(
            _definitely_scalar(a.value, ctx) for a in e.args
        )
    return False
