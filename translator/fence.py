"""Fence: the supported subset of Python for formula modules (DESIGN §2).

Stage 2 of the front end. Input: a parsed ``Module``. Output: a list of diagnostics
(T1xx subset and structure, T3xx kernels and types); empty when the module is in the subset.

Checked here: module-level statements and imports; decorators and formula options; parameter
kinds and type annotations; the shape of a formula (one top-level ``def backward`` with one
parameter per differentiable + hidden output, a final ``return outputs, backward``, options
naming real outputs); statements and expressions of forward, backward and helpers; names;
tensor attributes; ``kernel.*`` calls against ``signatures.KERNELS`` (existence, arity,
keywords, tensor vs non-tensor arguments) and ``kernel.*`` inside a backward unless
``once_differentiable``; branches on tensor data. Capture-rule matters (closures, walrus,
nonlocal, default arguments of backward) are left to ``captures``.

Invariants: never raises on a module ``parse`` accepted; reports every problem it finds.
"""

from __future__ import annotations

import builtins
import difflib
import math
from collections.abc import Sequence

import libcst as cst

from .captures import (
    METADATA,
    MUTABLE,
    TENSOR,
    TENSOR_TYPES,
    KindEnv,
    ModuleInfo,
    gather_module_info,
    param_types,
)
from .diagnostics import Diagnostic, make_diagnostic
from .model import Formula, Module
from .parse import (
    annotation_spelling,
    child_nodes,
    decorator_name,
    dotted_name,
    is_constant,
    literal_value,
    walk,
)
from .signatures import KERNELS

LANG_NAMES = frozenset(
    {
        "formula",
        "helper",
        "samples",
        "case",
        "T",
        "I",
        "B",
        "Tensor",
        "Optional",
        "Sequence",
        "Scalar",
        "Shape",
        "Dims",
        "DType",
        "kernel",
        "ops",
    }
)
_BASE_TYPES = ("Tensor", "int", "float", "bool", "Scalar", "Shape", "Dims", "DType")
PARAM_TYPES = (
    frozenset(_BASE_TYPES) | {f"Optional[{t}]" for t in _BASE_TYPES} | {"Sequence[Tensor]"}
)
BUILTINS = frozenset(
    {
        "len",
        "range",
        "min",
        "max",
        "abs",
        "tuple",
        "list",
        "int",
        "float",
        "bool",
        "enumerate",
        "zip",
        "reversed",
        "sum",
        "sorted",
        "all",
        "any",
        "round",
    }
)
EXCEPTIONS = frozenset({"ValueError", "IndexError", "TypeError", "RuntimeError"})
OPTIONS = {
    "differentiable_outputs": (tuple, str),
    "hidden_outputs": (tuple, str),
    "once_differentiable": (bool,),
    "materialize_grads": (bool,),
}
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


def check_fence(mod: Module) -> list[Diagnostic]:
    """Every subset/structure/kernel diagnostic of ``mod``, in no particular order."""
    fence = _Fence(mod)
    fence.run()
    return fence.diags


class _Fence:
    def __init__(self, mod: Module):
        self.mod = mod
        self.info: ModuleInfo = gather_module_info(mod)
        self.diags: list[Diagnostic] = []

    def error(self, code: str, node: cst.CSTNode, message: str, hint: str) -> None:
        width = 1
        r = self.mod.positions.get(node)
        if r is not None and r.start.line == r.end.line:
            width = r.end.column - r.start.column
        self.diags.append(
            make_diagnostic(code, self.mod.loc_of(node), message, hint, self.mod.source, width)
        )

    # -- module level -------------------------------------------------------------------------

    def run(self) -> None:
        constants = {c.name for c in self.mod.constants}
        for stmt in self.mod.tree.body:
            if isinstance(stmt, cst.FunctionDef):
                self._check_decorators(stmt)
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                self.error(
                    "T102",
                    stmt,
                    "unsupported module-level statement: a formula module "
                    "holds only imports, @formula/@helper functions and numeric constants",
                    "move this logic into a formula or a @helper function",
                )
                continue
            for small in stmt.body:
                self._check_module_small(small, constants)
        for f in self.mod.formulas:
            self._check_formula(f)
        for h in self.mod.helpers:
            self._check_params(h.node, h.name)
            self._check_returns(h.node, h.returns, helper=True)
            env = KindEnv(self.info, param_types(h.params))
            self._check_block(h.node.body.body, _Ctx(env, self._known(h.node), False, False))

    def _check_module_small(self, small: cst.BaseSmallStatement, constants: set[str]) -> None:
        if isinstance(small, cst.ImportFrom):
            module = dotted_name(small.module) if small.module else None
            if module == "__future__":
                return
            if module != "transgrad.lang" or isinstance(small.names, cst.ImportStar):
                self.error(
                    "T101",
                    small,
                    f"unsupported import from `{module}`: formula modules "
                    "import only from transgrad.lang (and `import math`)",
                    "write `from transgrad.lang import formula, Tensor, kernel, ops, ...`",
                )
                return
            for alias in small.names:
                if alias.name.value not in LANG_NAMES or alias.asname is not None:  # type: ignore[union-attr]
                    self.error(
                        "T101",
                        alias,
                        f"`{dotted_name(alias.name)}` is not importable "
                        "here (or is renamed): transgrad.lang exports "
                        + ", ".join(sorted(LANG_NAMES)),
                        "import one of those names as is",
                    )
        elif isinstance(small, cst.Import):
            for alias in small.names:
                if dotted_name(alias.name) != "math" or alias.asname is not None:
                    self.error(
                        "T101",
                        alias,
                        f"unsupported import `{dotted_name(alias.name)}`: "
                        "only `import math` is allowed besides transgrad.lang",
                        "use kernel.* / ops.* instead of other libraries",
                    )
        elif isinstance(small, (cst.Assign, cst.AnnAssign)):
            target = small.targets[0].target if isinstance(small, cst.Assign) else small.target
            name = target.value if isinstance(target, cst.Name) else None
            if name not in constants and name != "__all__":
                self.error(
                    "T102",
                    small,
                    "unsupported module-level assignment: only numeric "
                    "or bool constants (literals, arithmetic, math.*) are allowed",
                    "make it a constant expression, or compute it inside a formula",
                )
        elif not (
            isinstance(small, cst.Expr)
            and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
        ):
            self.error(
                "T102",
                small,
                "unsupported module-level statement: a formula module "
                "holds only imports, @formula/@helper functions and numeric constants",
                "remove it or move it into a formula or a @helper function",
            )

    def _check_decorators(self, fn: cst.FunctionDef) -> None:
        names = [decorator_name(d) for d in fn.decorators]
        if fn.asynchronous is not None:
            self.error(
                "T103",
                fn.asynchronous,
                f"`async def {fn.name.value}` is not supported",
                "write a plain `def`",
            )
        for dup in {n for n in names if names.count(n) > 1 and n in ("formula", "helper")}:
            self.error(
                "T106",
                fn.name,
                f"`@{dup}` is applied more than once to `{fn.name.value}`",
                f"keep a single `@{dup}`",
            )
        if "formula" not in names and "helper" not in names:
            self.error(
                "T102",
                fn.name,
                f"module-level function `{fn.name.value}` is neither @formula nor @helper",
                "decorate it with @helper (or @formula)",
            )
        if "formula" in names and "helper" in names:
            self.error(
                "T106",
                fn.name,
                f"`{fn.name.value}` is both @formula and @helper",
                "keep one of the two decorators",
            )
        for dec, name in zip(fn.decorators, names):
            if name not in ("formula", "helper", "samples"):
                self.error(
                    "T106",
                    dec.decorator,
                    f"unsupported decorator `@{name or '...'}`",
                    "formulas take @formula(...), @helper and @samples(...) only",
                )
            elif name == "formula" and isinstance(dec.decorator, cst.Call):
                self._check_options(dec.decorator)
            elif name == "helper" and isinstance(dec.decorator, cst.Call):
                self.error("T106", dec.decorator, "@helper takes no arguments", "write `@helper`")

    def _check_options(self, call: cst.Call) -> None:
        for arg in call.args:
            key = arg.keyword.value if arg.keyword else None
            if key not in OPTIONS:
                self.error(
                    "T106",
                    arg,
                    f"unknown formula option `{key or 'positional argument'}`",
                    "options are keywords: " + ", ".join(OPTIONS),
                )
                continue
            value = literal_value(arg.value, {})
            ok = is_constant(value) and isinstance(value, OPTIONS[key])
            if ok and isinstance(value, tuple):
                ok = all(isinstance(v, str) for v in value)
            if not ok:
                self.error(
                    "T106",
                    arg.value,
                    f"option `{key}` must be a literal "
                    + ("tuple of output names" if OPTIONS[key][0] is tuple else "bool"),
                    f"write e.g. `{key}="
                    + ('("values",)`' if OPTIONS[key][0] is tuple else "True`"),
                )

    # -- signatures ---------------------------------------------------------------------------

    def _check_params(self, fn: cst.FunctionDef, name: str, annotations: bool = True) -> None:
        p = fn.params
        for bad in (*p.posonly_params, *p.kwonly_params):
            self.error(
                "T111",
                bad,
                f"keyword-only/positional-only parameter `{bad.name.value}` in `{name}`",
                "use plain positional-or-keyword parameters",
            )
        for star in (p.star_arg, p.star_kwarg):
            if isinstance(star, cst.Param):
                self.error(
                    "T111",
                    star,
                    f"variadic parameter `{star.name.value}` in `{name}`",
                    "use a `Sequence[Tensor]` parameter for a variable number of tensors",
                )
        for param in (*p.posonly_params, *p.params, *p.kwonly_params):
            if not annotations:
                break
            ann = annotation_spelling(param.annotation.annotation if param.annotation else None)
            if not ann:
                self.error(
                    "T306",
                    param.name,
                    f"parameter `{param.name.value}` of `{name}` has no type annotation",
                    "annotate it: " + ", ".join(sorted(PARAM_TYPES)),
                )
            elif ann not in PARAM_TYPES:
                self.error(
                    "T306",
                    param.annotation.annotation if param.annotation else param,
                    f"unsupported parameter type `{ann}` for `{param.name.value}`",
                    "use one of: " + ", ".join(sorted(PARAM_TYPES)),
                )

    def _check_returns(self, fn: cst.FunctionDef, returns: str, helper: bool) -> None:
        node = fn.returns.annotation if fn.returns else fn.name
        parts = returns[1:-1].split(", ") if returns.startswith("(") else [returns]
        allowed = PARAM_TYPES if helper else {"Tensor"}
        if not returns:
            self.error(
                "T306",
                node,
                f"`{fn.name.value}` has no return annotation",
                "annotate it, e.g. `-> Tensor` or `-> tuple[Tensor, Tensor]`",
            )
        elif not all(p in allowed for p in parts):
            self.error(
                "T306",
                node,
                f"unsupported return type `{returns}` for `{fn.name.value}`",
                ("a helper returns one of the parameter types or a tuple of them")
                if helper
                else "a formula returns `Tensor` or `tuple[Tensor, ...]`",
            )

    # -- formula structure --------------------------------------------------------------------

    def _check_formula(self, f: Formula) -> None:
        fn = f.node
        self._check_params(fn, f.name)
        self._check_returns(fn, f.returns, helper=False)
        body = list(fn.body.body)
        tops = [s for s in body if isinstance(s, cst.FunctionDef) and s.name.value == "backward"]
        for extra in tops[1:]:
            self.error(
                "T108",
                extra.name,
                f"`{f.name}` defines `backward` more than once",
                "keep a single `def backward`",
            )
        for nested in _nested_functions(fn.body):
            if nested.name.value == "backward" and nested not in tops:
                self.error(
                    "T108",
                    nested.name,
                    f"`def backward` of `{f.name}` must be at the "
                    "top level of the formula body, not inside a branch or loop",
                    "define backward once, unconditionally; branch inside it instead",
                )
        env = KindEnv(self.info, param_types(f.params))
        known = self._known(fn)
        once = f.options.once_differentiable
        if f.backward is None:  # composite
            if not _find_returns(fn.body):
                self.error(
                    "T107",
                    fn.name,
                    f"formula `{f.name}` returns nothing",
                    "a composite returns an expression of ops; a formula with a "
                    "backward ends with `return outputs, backward`",
                )
            self._check_block(body, _Ctx(env, known, False, once))
            return
        last = body[-1]
        if not f.outputs:
            self.error(
                "T107",
                last,
                f"formula `{f.name}` must end with `return outputs, backward`",
                "write `return result, backward` (or `return (a, b), "
                "backward` for several outputs)",
            )
        if len(set(f.outputs)) != len(f.outputs):
            self.error(
                "T107",
                last,
                f"formula `{f.name}` returns the same name twice "
                f"({', '.join(f.outputs)}): each output is a distinct tensor",
                "return distinct names (copy with kernel.clone if needed)",
            )
        bw = tops[0]
        forward = [s for s in body if s is not bw and s is not last]
        nested = (cst.FunctionDef, cst.Lambda)
        for ret in (r for s in forward if not isinstance(s, nested) for r in _find_returns(s)):
            self.error(
                "T107",
                ret,
                f"`return` in the forward of `{f.name}`: a formula with a "
                "backward returns once, at the end",
                "compute the outputs, then `return outputs, backward` as the last statement",
            )
        self._check_block(
            [s for s in body if s is not bw], _Ctx(env, known, False, once), final_return=True
        )
        self._check_outputs(f, bw)
        self._check_params(bw, "backward", annotations=False)
        bw_env = env.child()
        for name in f.backward.params:
            bw_env.set(name, TENSOR)
        self._check_block(bw.body.body, _Ctx(bw_env, known, True, once))

    def _check_outputs(self, f: Formula, bw: cst.FunctionDef) -> None:
        dec = next(d for d in f.node.decorators if decorator_name(d) == "formula")
        opts = f.options
        seen: set[str] = set()
        for key, names in (
            ("differentiable_outputs", opts.differentiable_outputs or ()),
            ("hidden_outputs", opts.hidden_outputs),
        ):
            for n in names:
                if f.outputs and n not in f.outputs:
                    self.error(
                        "T110",
                        dec,
                        f"`{key}` of `{f.name}` names `{n}`, which is not "
                        f"an output (outputs: {', '.join(f.outputs)})",
                        "name outputs exactly as they appear in the final return",
                    )
                elif n in seen:
                    self.error(
                        "T110",
                        dec,
                        f"`{n}` is listed twice among the differentiable "
                        f"and hidden outputs of `{f.name}`",
                        "a hidden output is differentiable already: list it once",
                    )
                seen.add(n)
        hidden = opts.hidden_outputs
        diff = opts.differentiable_outputs
        if diff is None:
            diff = tuple(o for o in f.outputs if o not in hidden)
        expected = [f"grad_{d}" if i else "grad" for i, d in enumerate(diff)]
        expected += [f"grad_{h}" for h in hidden]
        grads = [p for p in bw.params.params if p.default is None]  # defaults: T206
        if f.outputs and len(grads) != len(expected):
            self.error(
                "T109",
                bw.name,
                f"backward of `{f.name}` takes "
                f"{len(grads)} parameter(s) but gets one grad per "
                f"differentiable and hidden output: {len(expected)} "
                f"({', '.join(list(diff) + list(hidden)) or 'none'})",
                f"write `def backward({', '.join(expected)}):`",
            )

    def _known(self, fn: cst.FunctionDef) -> set[str]:
        names = set(_bound_names(fn)) | self.info.lang | self.info.modules
        return (
            names
            | set(self.info.helpers)
            | self.info.constants
            | BUILTINS
            | {"True", "False", "None"}
        )

    # -- statements ---------------------------------------------------------------------------

    def _check_block(
        self, stmts: Sequence[cst.CSTNode], ctx: _Ctx, final_return: bool = False
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
                ctx.env.bind_target(stmt.target, ctx.env.kind_of(stmt.iter) & ~MUTABLE)
                if stmt.orelse is not None:
                    self.error(
                        "T103",
                        stmt.orelse,
                        "`for ... else` is not supported",
                        "use a flag variable",
                    )
                self._check_block(stmt.body.body, ctx)
            elif isinstance(stmt, cst.FunctionDef):
                continue  # backward is checked on its own; other closures: captures (T208)
            else:
                what = next(
                    (v for k, v in _UNSUPPORTED_STMT.items() if isinstance(stmt, k)),
                    f"`{type(stmt).__name__}` statements",
                )
                self.error(
                    "T103",
                    stmt,
                    f"{what} are not supported in formulas",
                    "use assignments, `if`/`else` and `for` loops over ranges",
                )

    def _check_small(self, small: cst.BaseSmallStatement, ctx: _Ctx, is_final: bool) -> None:
        if isinstance(small, cst.Assign):
            for t in small.targets:
                self._check_target(t.target)
            self._check_expr(small.value, ctx)
        elif isinstance(small, cst.AnnAssign):
            self._check_target(small.target)
            if small.value is not None:
                self._check_expr(small.value, ctx)
        elif isinstance(small, cst.AugAssign):
            self._check_target(small.target)
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
                self.error(
                    "T103",
                    small,
                    "only `raise ValueError/IndexError/TypeError/"
                    "RuntimeError(message)` is supported",
                    "raise one of those exceptions with a message",
                )
            elif isinstance(exc, cst.Call):
                for a in exc.args:
                    if not isinstance(a.value, cst.FormattedString):
                        self._check_expr(a.value, ctx)
        elif isinstance(small, cst.Expr):
            if not isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)):
                self.error(
                    "T103",
                    small,
                    "an expression statement has no effect in a formula "
                    "(kernels and ops never mutate their arguments)",
                    "assign the result to a name, or remove the statement",
                )
        elif isinstance(small, (cst.Pass, cst.Break, cst.Continue, cst.Nonlocal, cst.Global)):
            pass  # nonlocal/global: captures (T207)
        else:
            what = next(
                (v for k, v in _UNSUPPORTED_STMT.items() if isinstance(small, k)),
                f"`{type(small).__name__}` statements",
            )
            self.error(
                "T103",
                small,
                f"{what} are not supported in formulas",
                "use assignments, `if`/`else` and `for` loops over ranges",
            )
        ctx.env.bind_statement(small)

    def _check_target(self, t: cst.BaseExpression) -> None:
        if isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._check_target(el.value)
        elif not isinstance(t, cst.Name):
            self.error(
                "T103",
                t,
                "assignment to an item, slice or attribute is not supported: "
                "values in formulas are immutable",
                "build a new tuple (e.g. `shape = shape[:d] + (1,) + shape[d + 1:]`)",
            )

    def _check_test(self, test: cst.BaseExpression, ctx: _Ctx) -> None:
        self._check_expr(test, ctx)
        self._tensor_test(test, ctx)

    def _tensor_test(self, test: cst.BaseExpression, ctx: _Ctx) -> None:
        if ctx.env.kind_of(test) & TENSOR:
            self.error(
                "T307",
                test,
                "branch on tensor data: the condition is a tensor, whose "
                "truth value depends on its elements",
                "branch on parameters or metadata (shape, ndim, dtype, `is None`); for "
                "elementwise choice use ops.where / kernel.where",
            )

    def _check_expr(self, e: cst.BaseExpression, ctx: _Ctx) -> None:
        _ExprChecker(self, ctx).check(e)


class _Ctx:
    def __init__(self, env: KindEnv, known: set[str], in_backward: bool, once: bool):
        self.env, self.known, self.in_backward, self.once = env, known, in_backward, once


class _ExprChecker:
    """Checks one expression: names, attributes, calls (kernels!), unsupported forms.

    ``visit_<NodeType>`` methods run before the node's children; returning False skips them.
    """

    def __init__(self, fence: _Fence, ctx: _Ctx):
        self.fence, self.ctx = fence, ctx
        self.error = fence.error

    def check(self, node: cst.CSTNode) -> None:
        bad = _UNSUPPORTED_EXPR.get(type(node))
        if bad is not None:
            self.error(
                "T104",
                node,
                f"{bad} are not supported in formulas",
                "use tuples, ints, floats, bools and tensors (ops.* / kernel.*)",
            )
            return
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None and method(node) is False:
            return
        for child in child_nodes(node):
            self.check(child)

    def _sub(self, env: KindEnv) -> _ExprChecker:
        return _ExprChecker(
            self.fence, _Ctx(env, self.ctx.known, self.ctx.in_backward, self.ctx.once)
        )

    def visit_Name(self, n: cst.Name) -> None:
        if n.value in self.ctx.known:
            return
        if n.value in self.fence.info.formulas:
            self.error(
                "T105",
                n,
                f"formula `{n.value}` called directly",
                f"call other formulas through ops: `ops.{n.value}(...)`",
            )
        else:
            self.error(
                "T105",
                n,
                f"unknown name `{n.value}`: not a parameter, a local, a name "
                "from transgrad.lang, a @helper or a module constant",
                "define it, import it from transgrad.lang, or pass it as a parameter",
            )

    def visit_Arg(self, a: cst.Arg) -> bool:
        if a.star:
            self.error(
                "T104",
                a,
                "`*`/`**` arguments are not supported",
                "pass arguments one by one (a Sequence[Tensor] parameter takes a list or tuple)",
            )
        self.check(a.value)
        return False

    def visit_Attribute(self, a: cst.Attribute) -> bool:
        base, attr = dotted_name(a.value), a.attr.value
        if base == "kernel":
            self.error(
                "T104", a, f"`kernel.{attr}` must be called directly", f"write `kernel.{attr}(...)`"
            )
        elif base == "math":
            if not hasattr(math, attr):
                self.error("T105", a, f"`math.{attr}` does not exist", "see the math module")
        elif base != "ops" and attr not in METADATA:
            is_tensor = self.ctx.env.kind_of(a.value) & TENSOR
            self.error(
                "T308",
                a.attr,
                f"unsupported attribute `.{attr}`" + (" of a tensor" if is_tensor else ""),
                "formulas read only shape, ndim, dtype and numel of a tensor; use ops.* "
                "or kernel.* for anything else",
            )
            self.check(a.value)
        else:
            self.check(a.value)
        return False

    def visit_Call(self, c: cst.Call) -> bool:
        name = dotted_name(c.func) or ""
        info = self.fence.info
        if name.startswith("kernel.") and isinstance(c.func, cst.Attribute):
            self._kernel_call(c, c.func.attr.value)
        elif isinstance(c.func, cst.Name):
            if (
                name in info.helpers
                and self.ctx.in_backward
                and not self.ctx.once
                and (name in info.uses_kernels)
            ):
                self.error(
                    "T304",
                    c.func,
                    f"helper `{name}` calls kernel.* and is used in a "
                    "backward: kernels record no history, so double backward through "
                    "it would be wrong",
                    "use ops.* in the helper, or mark the formula "
                    "@formula(once_differentiable=True)",
                )
            elif name in EXCEPTIONS or (name in LANG_NAMES and name not in ("kernel", "ops")):
                self.error(
                    "T112",
                    c.func,
                    f"`{name}(...)` cannot be called in a formula",
                    "call ops.*, kernel.*, @helper functions or allowed builtins",
                )
            elif (
                name not in BUILTINS
                and name not in info.helpers
                and hasattr(builtins, name)
                and name not in self.ctx.known
            ):
                self.error(
                    "T112",
                    c.func,
                    f"builtin `{name}` is not supported in formulas",
                    "allowed builtins: " + ", ".join(sorted(BUILTINS)),
                )
                for a in c.args:
                    self.check(a)
                return False
            else:
                self.check(c.func)
        else:
            self.check(c.func)
        for a in c.args:
            self.check(a)
        return False

    def _kernel_call(self, c: cst.Call, kname: str) -> None:
        sig = KERNELS.get(kname)
        if sig is None:
            close = difflib.get_close_matches(kname, KERNELS, n=1)
            self.error(
                "T301",
                c.func,
                f"unknown kernel `kernel.{kname}`"
                + (f"; did you mean `kernel.{close[0]}`?" if close else ""),
                "kernels are declared in translator/signatures.py; for a differentiable "
                "op use ops.*",
            )
            return
        if self.ctx.in_backward and not self.ctx.once:
            self.error(
                "T304",
                c.func,
                f"`kernel.{kname}` in a backward: kernels record no "
                "history, so a double backward through this formula would be wrong",
                f"use `ops.{kname}(...)` (differentiable), or mark the formula "
                "@formula(once_differentiable=True)",
            )
        params = sig.params
        spelled = f"kernel.{kname}({', '.join(f'{p.type} {p.name}' for p in params)})"
        positional = [a for a in c.args if a.keyword is None and not a.star]
        bound = {}
        if len(positional) > len(params):
            self.error(
                "T302",
                c,
                f"`kernel.{kname}` takes {len(params)} argument(s), got {len(positional)}",
                f"the signature is {spelled}",
            )
        for p, a in zip(params, positional):
            bound[p.name] = a
        names = {p.name for p in params}
        unknown = False
        for a in c.args:
            if a.keyword is None:
                continue
            k = a.keyword.value
            if k not in names:
                unknown = True
                self.error(
                    "T303",
                    a.keyword,
                    f"`kernel.{kname}` has no parameter `{k}`",
                    f"the signature is {spelled}",
                )
            elif k in bound:
                self.error(
                    "T303",
                    a.keyword,
                    f"argument `{k}` of `kernel.{kname}` given twice",
                    f"the signature is {spelled}",
                )
            else:
                bound[k] = a
        missing = [p.name for p in params if p.name not in bound]
        if missing and len(positional) <= len(params) and not unknown:
            code = "T303" if any(a.keyword for a in c.args) else "T302"
            self.error(
                code,
                c,
                f"`kernel.{kname}` is missing argument(s) " + ", ".join(f"`{m}`" for m in missing),
                f"the signature is {spelled}",
            )
        for p in params:
            if p.name in bound:
                self._check_arg(kname, p, bound[p.name].value)

    def _check_arg(self, kname: str, p, value: cst.BaseExpression) -> None:
        env = self.ctx.env
        kind = env.kind_of(value)
        if p.type in TENSOR_TYPES:
            if not kind & TENSOR and _definitely_scalar(value, env):
                self.error(
                    "T305",
                    value,
                    f"`kernel.{kname}` expects a tensor for `{p.type} "
                    f"{p.name}`, got a non-tensor value",
                    "wrap a number as a tensor with `kernel.scalar_like(x, value)` (or "
                    "use a kernel taking a number, e.g. kernel.pow_scalar)",
                )
        elif kind & TENSOR:
            self.error(
                "T305",
                value,
                f"`kernel.{kname}` expects `{p.type} {p.name}`, got a tensor",
                "pass a Python value (read metadata with .shape/.ndim/.dtype), "
                "or use a kernel that takes a tensor there",
            )

    def visit_Lambda(self, n: cst.Lambda) -> bool:
        return False  # captures (T208)

    def visit_NamedExpr(self, n: cst.NamedExpr) -> bool:
        self.check(n.value)  # the walrus itself: captures (T210)
        return False

    def _comprehension(self, node, parts) -> bool:
        env = self.ctx.env.child()
        checker = self._sub(env)
        for_in = node.for_in
        while for_in is not None:
            checker.check(for_in.iter)
            env.bind_target(for_in.target, env.kind_of(for_in.iter) & ~MUTABLE)
            for cond in for_in.ifs:
                checker.check(cond)
            for_in = for_in.inner_for_in
        for part in parts:
            checker.check(part)
        return False

    def visit_ListComp(self, n: cst.ListComp) -> bool:
        return self._comprehension(n, [n.elt])

    def visit_GeneratorExp(self, n: cst.GeneratorExp) -> bool:
        return self._comprehension(n, [n.elt])

    def visit_BooleanOperation(self, n: cst.BooleanOperation) -> None:
        for side in (n.left, n.right):
            if self.ctx.env.kind_of(side) & TENSOR:
                self.fence._tensor_test(side, self.ctx)

    def visit_UnaryOperation(self, n: cst.UnaryOperation) -> None:
        if isinstance(n.operator, cst.Not) and self.ctx.env.kind_of(n.expression) & TENSOR:
            self.fence._tensor_test(n.expression, self.ctx)

    def visit_IfExp(self, n: cst.IfExp) -> None:
        if self.ctx.env.kind_of(n.test) & TENSOR:
            self.fence._tensor_test(n.test, self.ctx)


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


def _definitely_scalar(e: cst.BaseExpression, env: KindEnv) -> bool:
    """True when ``e`` is surely not a tensor (a literal, metadata, or a known non-tensor)."""
    if isinstance(e, (cst.Integer, cst.Float, cst.Tuple, cst.Comparison)):
        return True
    if isinstance(e, cst.Name):
        return e.value in ("True", "False") or env.knows(e.value)
    if isinstance(e, cst.Attribute):
        return e.attr.value in METADATA
    if isinstance(e, cst.UnaryOperation):
        return _definitely_scalar(e.expression, env)
    if isinstance(e, cst.BinaryOperation):
        return _definitely_scalar(e.left, env) and _definitely_scalar(e.right, env)
    if isinstance(e, cst.Call):
        return dotted_name(e.func) in ("len", "int", "float", "min", "max") and all(
            _definitely_scalar(a.value, env) for a in e.args
        )
    return False


def _nested_functions(node: cst.CSTNode) -> list[cst.FunctionDef]:
    return [n for n in walk(node) if isinstance(n, cst.FunctionDef)]


def _find_returns(block: cst.CSTNode) -> list[cst.Return]:
    return [n for n in walk(block, (cst.FunctionDef, cst.Lambda)) if isinstance(n, cst.Return)]


def _bound_names(fn: cst.FunctionDef) -> set[str]:
    """Every name a function binds anywhere inside it (parameters, targets, loop variables)."""
    names: set[str] = set()
    for n in walk(fn):
        if isinstance(n, (cst.Param, cst.FunctionDef)):
            names.add(n.name.value)
        elif isinstance(
            n, (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)
        ):
            names.update(_names_in(n.target))
    return names


def _names_in(t: cst.BaseExpression) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for el in t.elements for n in _names_in(el.value)]
    return []
