"""Diagnostics: the translator's errors, rendered like a compiler's.

Stage: shared by every front-end stage. Input: a code, a ``Loc``, a message, a hint and the
source line. Output: text such as::

    formulas/unary.py:21:16: error[T201]: backward captures `t`, a tensor intermediate ...
        return grad * t
                      ^
    hint: recompute it in backward from inputs/outputs, or return it as a (hidden) output

Invariants: codes are stable (tests, docs and users refer to them); every stage collects all
of a module's errors before failing; ``TranslatorError`` renders them sorted by position.

Codes (Note [Diagnostic codes]; add new codes at the end of a family, never renumber):

======  =====================================================================================
code    meaning
======  =====================================================================================
T100    the file is not valid Python (syntax error)
T101    unsupported import (only ``from transgrad.lang import ...`` and ``import math``)
T102    unsupported module-level statement (imports, formulas, helpers, numeric constants)
T103    unsupported statement inside a formula or helper (loops, try, with, class, ...)
T104    unsupported expression (lambda outside backward, f-string, set/dict, await, ...)
T105    unknown name (not a parameter, local, ``transgrad.lang`` name, helper or constant)
T106    unsupported decorator or formula option (value must be a literal)
T107    formula structure: the final statement must be ``return outputs, backward`` (or an
        expression, for a composite) and ``backward`` must be defined before it
T108    more than one ``def backward``, a nested function other than ``backward``, or a
        ``def backward`` nested inside a branch
T109    backward parameters do not match the differentiable + hidden outputs
T110    ``differentiable_outputs`` / ``hidden_outputs`` name something that is not an output
T111    unsupported parameter kind (``*args``, ``**kwargs``, keyword-only, positional-only)
T112    unsupported call (a builtin or function outside the formula language)
T201    backward captures a tensor intermediate of the forward
T202    backward captures a parameter that the forward re-binds
T203    backward captures a name bound more than once in the forward
T204    backward captures a name re-bound after ``def backward``
T205    backward captures a scalar read out of tensor data (``kernel.item``)
T206    capture smuggled through a default argument of backward
T207    ``nonlocal`` / ``global`` in a formula
T208    lambda or nested closure inside a formula or backward
T209    backward reads a mutable container (list, dict, set) built in the forward
T210    assignment expression (walrus ``:=``) in a formula
T211    backward captures a tensor bound by tuple unpacking
T212    backward captures a loop or comprehension variable
T301    unknown kernel (not declared in translator/signatures.py)
T302    wrong number of arguments to a kernel
T303    unknown, duplicate or missing keyword argument to a kernel
T304    ``kernel.*`` inside a backward without ``once_differentiable=True``
T305    a tensor passed where a kernel expects a non-tensor, or the reverse
T306    missing or unsupported parameter / return type annotation
T307    branch or boolean test on tensor data (``if t:``, ``t and ...``)
T308    unsupported tensor attribute (only ``shape``, ``ndim``, ``dtype``, ``numel``)
======  =====================================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from .model import Loc

CODES = {
    "T100": "syntax error",
    "T101": "unsupported import",
    "T102": "unsupported module-level statement",
    "T103": "unsupported statement",
    "T104": "unsupported expression",
    "T105": "unknown name",
    "T106": "unsupported decorator or option",
    "T107": "formula structure",
    "T108": "nested function",
    "T109": "backward parameters",
    "T110": "outputs named in options",
    "T111": "unsupported parameter kind",
    "T112": "unsupported call",
    "T201": "captured tensor intermediate",
    "T202": "captured re-bound parameter",
    "T203": "captured name bound more than once",
    "T204": "captured name re-bound after backward",
    "T205": "captured scalar read from tensor data",
    "T206": "capture through default argument",
    "T207": "nonlocal/global",
    "T208": "lambda or nested closure",
    "T209": "captured mutable container",
    "T210": "assignment expression",
    "T211": "captured tensor from tuple unpacking",
    "T212": "captured loop variable",
    "T301": "unknown kernel",
    "T302": "kernel arity",
    "T303": "kernel keyword arguments",
    "T304": "kernel in backward",
    "T305": "kernel argument type",
    "T306": "parameter type",
    "T307": "branch on tensor data",
    "T308": "unsupported tensor attribute",
}


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    code: str  # a key of CODES
    loc: Loc
    message: str
    hint: str
    source_line: str = ""  # the text of line ``loc.line`` (no newline)
    width: int = 1  # columns to underline (``^~~~``), when the node fits on the line
    notes: tuple[str, ...] = ()  # extra ``note:`` lines, e.g. where a name was bound

    def render(self) -> str:
        """``path:line:col: error[CODE]: message``, the source line, a caret, notes, the hint."""
        lines = [f"{self.loc}: error[{self.code}]: {self.message}"]
        if self.source_line:
            src = self.source_line.rstrip()
            lines.append(src)
            prefix = "".join(c if c == "\t" else " " for c in src[: self.loc.col - 1])
            room = max(1, len(src) - (self.loc.col - 1))
            lines.append(prefix + "^" + "~" * (min(self.width, room) - 1))
        lines.extend(f"note: {n}" for n in self.notes)
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.loc.path, self.loc.line, self.loc.col, self.code)


def sort_diagnostics(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Sorted by position, duplicates (same code and position) removed."""
    seen, out = set(), []
    for d in sorted(diags, key=lambda d: d.sort_key):
        key = (d.sort_key, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def render_all(diags: Sequence[Diagnostic]) -> str:
    """All diagnostics, sorted, separated by blank lines, with an ``N error(s)`` summary."""
    ds = sort_diagnostics(diags)
    body = "\n\n".join(d.render() for d in ds)
    n = len(ds)
    return f"{body}\n\n{n} error{'s' if n != 1 else ''}" if ds else ""


class TranslatorError(Exception):
    """A formula module was rejected; carries every diagnostic of the module."""

    def __init__(self, diagnostics: Sequence[Diagnostic]):
        self.diagnostics: tuple[Diagnostic, ...] = tuple(sort_diagnostics(diagnostics))
        super().__init__(render_all(self.diagnostics))

    def __str__(self) -> str:
        return "\n" + render_all(self.diagnostics)


def make_diagnostic(
    code: str,
    loc: Loc,
    message: str,
    hint: str,
    source: str = "",
    width: int = 1,
    notes: Sequence[str] = (),
) -> Diagnostic:
    """Build a diagnostic, taking the source line for ``loc`` out of the module's ``source``."""
    if code not in CODES:
        raise ValueError(f"unknown diagnostic code {code}")
    lines = source.splitlines()
    line = lines[loc.line - 1] if 0 < loc.line <= len(lines) else ""
    return Diagnostic(code, loc, message, hint, line, max(1, width), tuple(notes))


# ---------------------------------------------------------------------------------------------
# The capture rule's messages (Note [Capture messages]): each names the variable, where it was
# bound, why double backward would be wrong, and the fixes (recompute in backward, or return it
# as a (hidden) output; for a non-tensor value: bind it once, under its own name).


def _where(loc: Loc, at: Loc) -> str:
    return f"line {loc.line}" if loc.path == at.path else str(loc)


def capture_message(
    code: str,
    name: str,
    formula: str,
    bound: Loc,
    at: Loc,
    tensor: bool = True,
    others: Sequence[Loc] = (),
) -> tuple[str, str]:
    """The sentence and hint of a capture-rule rejection (T201-T205, T209, T211, T212)."""
    where = f"bound on {_where(bound, at)}"
    again = "".join(f", again on {_where(o, at)}" for o in others)
    recompute = (
        f"recompute `{name}` inside backward from the inputs/outputs with ops.*, or "
        f'return it as an output (`@formula(hidden_outputs=("{name}",))`, '
        f"`return (..., {name}), backward`, and a grad parameter for it)"
    )
    no_graph = (
        "the forward records no history, so this tensor has no grad_fn: a double "
        "backward would treat it as a constant and silently drop the gradient "
        "flowing through it"
    )
    once = "compute the value backward needs once, under its own name, before `def backward`"
    subject = f"backward of `{formula}` captures `{name}`"
    if code == "T201":
        msg = f"{subject}, a tensor intermediate of the forward ({where}); {no_graph}"
        return msg, recompute
    if code == "T211":
        msg = f"{subject}, a tensor bound by tuple unpacking in the forward ({where}); {no_graph}"
        return msg, recompute
    if code == "T202":
        if tensor:
            why = (
                "backward would differentiate through the re-bound tensor and double "
                "backward would never reach the input"
            )
            fix = f"either recompute it in backward from `{name}`, or return it as a hidden output"
        else:
            why = "the saved attribute would not be the value the caller passed"
            fix = "capture that name instead"
        msg = (
            f"backward of `{formula}` captures parameter `{name}`, which the forward "
            f"re-binds ({where}); the closure sees the re-bound value, not the input: {why}"
        )
        return msg, f"give the forward value a new name (e.g. `{name}_new = ...`) and {fix}"
    if code == "T203":
        msg = (
            f"{subject}, which the forward binds more than once ({where}{again}); a closure "
            "reads only the last binding, so backward would not see the value the forward "
            "computed with"
        )
        msg += f", and {no_graph}" if tensor else ""
        return msg, f"{once}; " + (recompute if tensor else "give each value its own name")
    if code == "T204":
        msg = (
            f"{subject}, which is re-bound after `def backward` ({where}{again}); closures "
            "bind late, so backward would see the later value, not the one the forward "
            "computed with"
        )
        hint = f"do not re-bind `{name}` after `def backward`: {once}"
        return msg, hint + (f"; or {recompute}" if tensor else "")
    if code == "T205":
        msg = (
            f"{subject}, a scalar read out of tensor data with kernel.item ({where}); to "
            "autograd it is a constant, so double backward would miss the gradient flowing "
            "through the data it came from"
        )
        return msg, f"keep it a tensor: {recompute}"
    if code == "T209":
        msg = (
            f"backward of `{formula}` reads `{name}`, a mutable container built in the "
            f"forward ({where}); it may change after `def backward`, and tensors inside it "
            "escape the capture rule (no grad_fn: wrong double backward)"
        )
        return msg, f"build a tuple of non-tensor values instead; for tensors, {recompute}"
    if code == "T212":
        msg = (
            f"{subject}, a loop variable ({where}); closures bind late, so backward would "
            "see only its last value"
        )
        msg += f", and {no_graph}" if tensor else ""
        return msg, once + (f"; or {recompute}" if tensor else " (e.g. a tuple built by the loop)")
    raise ValueError(f"{code} is not a capture-rule code")
