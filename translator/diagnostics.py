"""Diagnostics: the translator's errors, rendered like a compiler's.

Stage: shared by every front-end stage. Input: a code, a ``Loc``, a message, a hint and the
source line. Output: text such as::

    formulas/unary.py:21:16: error[T201]: backward captures `t`, a tensor intermediate ...
        return grad * t
                      ^
    hint: recompute it in backward from inputs/outputs, or return it as a (hidden) output

Invariants: codes are stable (tests, docs and users refer to them); every stage collects all
of a module's errors before failing; ``TranslatorError`` renders them sorted by position.

The codes and their meanings: ``diagnostic_codes``. The front end's messages: ``messages``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from .diagnostic_codes import CODES
from .model import Loc


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

