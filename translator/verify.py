"""Verify: ``ir.Module`` -> the same module, or a ``TranslatorError`` (IR validity rules).

Stage 2 of the back end, between ``lower`` and the emitters. Input and output: IR only. The
rules (each a diagnostic code, the T4xx codes of diagnostic_codes.py):

* R1 (T406) every local is assigned on every path before it is read (a local first assigned
  in one branch of an ``if``, or inside a loop body, is not assigned after it);
* R2 (T410) a helper, composite or backward returns (or raises) on every path;
* R3 (T407) every return of a backward has one entry per Tensor parameter, each a tensor, a
  list of tensors for a Sequence[Tensor] parameter, or None;
* R4 (T412) every output of a formula is assigned on every path of the forward, and every
  attribute the backward saves is assigned by the end of the forward;
* R5 (T402) expressions are consistently typed: tensor operators take tensors or numbers,
  conditions are bools, a local keeps one type.

Invariants: verification never changes the IR; all violations of a module are reported
together; the emitters may assume every rule holds.
"""

from __future__ import annotations

from collections.abc import Sequence

from . import ir
from .diagnostics import Diagnostic, TranslatorError
from .ir import transform


def verify_module(mod: ir.Module) -> ir.Module:
    # a module with an ir.Refused has T4xx and is never verified (Note [Total lowering])
    assert not mod.refused and not any(isinstance(s, ir.Refused) for s in ir.module_stmts(mod))
    errors: list[Diagnostic] = []
    for f in mod.helpers + mod.functions:
        errors.extend(verify_function(f))
    if errors:
        raise TranslatorError(errors)
    return mod


def verify_function(f: ir.Function) -> list[Diagnostic]:
    v = _Verifier()
    params = frozenset(p.name for p in f.params)
    end = v.block(f.body, params)
    if f.kind != "formula":
        if end is not None:
            v.err("T410", f.loc, f"`{f.name}` can reach its end without returning a value",
                  "return (or raise) on every path")
    else:
        assert f.backward is not None
        bw = f.backward
        outs = end or frozenset()
        for o in f.outputs:
            if end is not None and o.name not in outs:
                v.err("T412", f.loc, f"output `{o.name}` is not assigned on every path of the "
                      "forward", "assign it before the if, or in every branch")
        for sv in bw.saved:
            if end is not None and sv.name not in outs and sv.name not in params:
                v.err("T406", sv.loc or f.loc, f"the backward reads `{sv.name}`, which is not "
                      "assigned on every path of the forward", "assign it on every path")
        n_tensor = sum(p.type.is_tensor or p.type == ir.TENSOR_LIST for p in f.params)
        v.n_returns = n_tensor
        bend = v.block(bw.body, frozenset(bw.grads), backward=True)
        if bend is not None:
            v.err("T410", bw.loc, f"the backward of `{f.name}` can reach its end without "
                  "returning gradients", "return one gradient (or None) per tensor parameter")
    return v.errors


class _Verifier:
    def __init__(self):
        self.errors: list[Diagnostic] = []
        self.n_returns = 0

    def err(self, code: str, loc, message: str, hint: str) -> None:
        self.errors.append(Diagnostic(code, loc, message, hint, _source_line(loc)))

    def block(self, stmts: Sequence[ir.Stmt], defined: frozenset[str],
              backward: bool = False):
        """Names defined after ``stmts`` on every path, or None when every path exits."""
        for s in stmts:
            if isinstance(s, ir.Declare):
                continue
            if isinstance(s, ir.Assign):
                self.reads(s.value, defined)
                defined = defined | set(s.targets)
            elif isinstance(s, ir.If):
                self.reads(s.cond, defined)
                self.cond(s.cond)
                a = self.block(s.then, defined, backward)
                b = self.block(s.orelse, defined, backward)
                if a is None and b is None:
                    return None
                defined = a if b is None else b if a is None else a & b
            elif isinstance(s, ir.For):
                self.reads(s.iter, defined)
                self.block(s.body, defined | {s.var, *s.unpack}, backward)
            elif isinstance(s, ir.Return):
                for e in s.values:
                    self.reads(e, defined)
                if backward:
                    self.backward_return(s)
                return None
            elif isinstance(s, ir.Raise):
                if s.message is not None:
                    self.reads(s.message, defined)
                return None
        return defined

    def backward_return(self, s: ir.Return) -> None:
        if len(s.values) != self.n_returns:
            self.err("T407", s.loc, f"backward returns {len(s.values)} gradient(s) for "
                     f"{self.n_returns} tensor parameter(s)", "return one per tensor parameter")
        for e in s.values:
            if not (e.type.is_tensor or e.type in (ir.TENSOR_LIST, ir.NONE)):
                self.err("T407", e.loc, f"a gradient must be a tensor or None, not a {e.type}",
                         "return a tensor (or None for no gradient)")

    def cond(self, e: ir.Expr) -> None:
        if e.type != ir.BOOL:
            self.err("T402", e.loc, f"a condition of type {e.type}", "test a bool")

    def reads(self, e: ir.Expr, defined: frozenset[str]) -> None:
        scoped = _comprehension_vars(e)

        def visit(x):
            if isinstance(x, ir.Name) and x.name not in defined and x.name not in scoped:
                self.err("T406", x.loc, f"`{x.name}` may be read before it is assigned (it is "
                         "not assigned on every path that reaches here)",
                         "assign it before the if/loop, or in every branch")
            if isinstance(x, ir.TensorOp):
                for a in x.args:
                    if not (a.type.is_tensor or a.type.is_number):
                        self.err("T402", a.loc, f"a {a.type} operand of ops.{x.op}",
                                 "use a tensor or a number")
            return x

        transform(e, visit)


def _comprehension_vars(e: ir.Expr) -> list[str]:
    found: list[str] = []

    def visit(x):
        if isinstance(x, ir.Comprehension):
            found.extend((x.var, *x.unpack))
        return x

    transform(e, visit)
    return found


def _source_line(loc) -> str:
    try:
        with open(loc.path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        return lines[loc.line - 1] if 0 < loc.line <= len(lines) else ""
    except OSError:
        return ""
