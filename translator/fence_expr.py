"""Fence, expressions: the check of one expression of a formula or helper (part of ``fence``).

Input: an expression, the module's top-level names (``kinds.ModuleInfo``) and a ``Ctx`` (the
kinds of the function's names, the names it may read, whether it is a backward). Output:
diagnostics through the fence's ``report``: unknown names, formulas called directly,
unsupported forms and attributes, ``kernel.*`` calls against ``signatures.KERNELS`` (existence,
arity, keywords, tensor vs non-tensor arguments, inside a backward), builtins outside
``BUILTINS``, and tests on tensor data (T307).
"""

from __future__ import annotations

import builtins
import difflib
import math
from collections.abc import Callable

import libcst as cst

from .kinds import MUTABLE, TENSOR, KindEnv, ModuleInfo
from .signatures import NUMBER_OPERAND_KERNELS, KernelParam
from .subset import BUILTINS, EXCEPTIONS, LANG_NAMES, METADATA, TENSOR_TYPES
from .syntax import child_nodes, dotted_name
from .user_kernels import kernel_names, kernel_signature


class Ctx:
    def __init__(
        self, env: KindEnv, known: set[str], local: set[str], in_backward: bool, once: bool
    ):
        self.env, self.known, self.local = env, known, local
        self.in_backward, self.once = in_backward, once


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
        if self.ctx.env.kind_of(test) & TENSOR:
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
                of = " of a tensor" if self.ctx.env.kind_of(a.value) & TENSOR else ""
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
        numbered = number_operand(kname, c, self.ctx.env)
        for p in params:
            if p.name in bound and bound[p.name] is not numbered:
                self._check_arg(kname, p, bound[p.name].value)

    def _check_arg(self, kname: str, p: KernelParam, value: cst.BaseExpression) -> None:
        env = self.ctx.env
        kind = env.kind_of(value)
        param = f"{p.type} {p.name}"
        if p.type == "Dims" and kname in EMPTY_DIMS_REFUSED and _empty_display(value):
            self.report("kernel_empty_dims", value, kernel=kname)
        if p.type in TENSOR_TYPES:
            if not kind & TENSOR and _definitely_scalar(value, env):
                self.report("kernel_want_tensor", value, kernel=kname, param=param)
        elif kind & TENSOR:
            self.report("kernel_want_value", value, kernel=kname, param=param)

    def visit_Lambda(self, n: cst.Lambda) -> bool:
        return False  # captures (T208)

    def visit_NamedExpr(self, n: cst.NamedExpr) -> bool:
        self.check(n.value)  # the walrus itself: captures (T210)
        return False

    def _comprehension(self, node: cst.ListComp | cst.GeneratorExp) -> bool:
        env = self.ctx.env.child()
        checker = ExprChecker(
            self.info,
            self.report,
            Ctx(env, self.ctx.known, self.ctx.local, self.ctx.in_backward, self.ctx.once),
        )
        for_in: cst.CompFor | None = node.for_in
        while for_in is not None:
            checker.check(for_in.iter)
            env.bind_target(for_in.target, env.kind_of(for_in.iter) & ~MUTABLE)
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


def number_operand(kname: str, c: cst.Call, env: KindEnv) -> cst.Arg | None:
    """The argument of ``c`` that Note [Numbers as kernel operands] lets be a number: of a
    kernel of NUMBER_OPERAND_KERNELS called with two positional arguments, one not a tensor
    while the other is a tensor named by a variable; else None."""
    if kname not in NUMBER_OPERAND_KERNELS or len(c.args) != 2 or any(
            a.keyword or a.star for a in c.args):
        return None
    kind_of = env.kind_of
    for number, other in ((c.args[1], c.args[0]), (c.args[0], c.args[1])):
        if (isinstance(other.value, cst.Name) and kind_of(other.value) & TENSOR
                and not kind_of(number.value) & TENSOR and not _never_number(number.value, env)):
            return number
    return None


def _never_number(e: cst.BaseExpression, env: KindEnv) -> bool:
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
        return env.param_type(e.value) not in ("", "int", "float", "bool", "Scalar")
    return False


def defaulted(p: KernelParam, first: cst.BaseExpression | None) -> bool:
    """Whether the translator supplies ``p`` when it is left out (Note [Kernel defaults]):
    ``dims=all`` reads the first argument twice, so it must be a variable."""
    return p.default is not None and (p.default != "all" or isinstance(first, cst.Name))


def _param_text(p: KernelParam) -> str:
    return f"{p.type} {p.name}" + (f"={p.default}" if p.default else "")


def _empty_display(e: cst.BaseExpression) -> bool:
    return isinstance(e, (cst.Tuple, cst.List)) and not e.elements


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
