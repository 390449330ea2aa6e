"""Captures: THE CAPTURE RULE (DESIGN §2) — what each backward may read from its forward.

A pass of the front end over the IR. Input: a ``Module`` and its IR, lowered alone
(``frontend``). Output: the same module with ``Backward.captures`` filled (one ``Capture`` per
name the backward reads from the formula's scope, classified INPUT / ATTRIBUTE / OUTPUT, with
``metadata_only``), plus a diagnostic (T2xx) for every capture the rule rejects. It reads no
libcst: what the source says (which names the backward reads, and how, where and how many
times per execution path the forward binds each) comes as plain data from
``scopes.capture_facts``, and what each name holds from the IR (Note [The capture rule reads
the IR]). The ways to smuggle a capture past the rule (default arguments of backward T206,
``nonlocal``/``global`` T207, lambdas and nested functions T208, ``:=`` T210) are refused by
the fence.

Invariants: the analysis over-approximates tensor-ness (a value that may be a tensor is one),
so it can reject a valid formula but never accept a capture that breaks double backward.

Note [The capture rule reads the IR]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Whether a captured local is a tensor, a scalar read out of tensor data (ITEM: T205) or a list
(MUTABLE: T209), and the type an attribute capture is spelled with, come from the IR of the
module lowered alone against ``shipped_signatures().merged([mod])`` (lower_env.py, Note
[Signatures as data]): its type (``provenance.forward_types``; a tensor, a list of tensors or
a tuple holding one is a tensor) and its provenance (``provenance.forward_provenance``, Note
[Provenance]). This holds where the compiled back end refuses the code, because lowering is
total over what the fence accepts (lower.py, Notes [Total lowering] and [Typing is total]):
a refused statement keeps the value lowering typed through its refusal, and the reference
engine, which runs formulas the compiled engine refuses, gets the same verdict. A name whose
value is untyped (a Python error too: an unknown kernel, a builtin outside the subset) is
given no capture: its forward raises before a backward exists (and in the corpus its module
is rejected for that error: tests/translator/backend/test_provenance.py, ``_NO_IR_VALUE``);
the binding rules (T203/T204/T212) still judge it, worded as for a value that may be a tensor.
An ``ops.NAME`` lowering does not know is no such error: NAME may be a formula of another user
module, resolved by the reference engine at run time, so lowering types its call as a tensor
(Note [An op of another module] in lower.py).
The change from the source-level inference (``kinds``) left every verdict, message and
emitted line as it was (tools/translator_oracle.py), and only re-spelled 11 attribute types.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from . import ir
from .diagnostics import Diagnostic, make_diagnostic
from .messages import capture_message
from .model import Capture, CaptureKind, Formula, Loc, Module
from .provenance import forward_provenance, forward_types, helpers_reading_data
from .source.scopes import Read, capture_facts
from .subset import TENSOR_TYPES

# ---------------------------------------------------------------------------------------------
# The capture rule


def collect_captures(mod: Module, lowered: ir.Module) -> tuple[Module, list[Diagnostic]]:
    """Fill ``Backward.captures`` of every formula of ``mod`` (``lowered``: its IR, lowered
    alone); diagnose every capture the rule rejects."""
    diags: list[Diagnostic] = []
    functions = {f.name: f for f in lowered.functions}
    refused = {r.loc.line: r for r in lowered.refused}
    reading = helpers_reading_data(lowered.helpers)
    formulas = []
    for f in mod.formulas:
        if f.backward is None or not f.outputs:  # composite, or malformed (fence: T107)
            formulas.append(f)
            continue
        fn = functions.get(f.name) or refused.get(f.loc.line)
        facts = (forward_types(fn), forward_provenance(lowered, fn, reading)) if fn else ({}, {})
        captures = _FormulaCaptures(mod, f, diags, *facts).run()
        formulas.append(
            dataclasses.replace(f, backward=dataclasses.replace(f.backward, captures=captures))
        )
    return dataclasses.replace(mod, formulas=tuple(formulas)), diags


class _FormulaCaptures:
    def __init__(self, mod: Module, f: Formula, diags: list[Diagnostic],
                 types: dict[str, ir.Type], flags: dict[str, int]):
        self.mod, self.f, self.diags = mod, f, diags
        self.types, self.flags = types, flags  # of the forward's names, off the IR
        self.facts = capture_facts(mod, f)  # of its reads and bindings, off the source

    def run(self) -> tuple[Capture, ...]:
        reads = self.facts.reads
        out = []
        for name in sorted(reads, key=lambda n: _pos(reads[n][0].loc)):
            cap = self._classify(name, reads[name])
            if cap is None:
                continue
            if (
                cap.kind in (CaptureKind.INPUT, CaptureKind.OUTPUT)
                and cap.type in ("Tensor", "Optional[Tensor]")
                and all(r.metadata is not None for r in reads[name])
            ):
                attrs = tuple(sorted({r.metadata for r in reads[name] if r.metadata}))
                cap = dataclasses.replace(cap, metadata_only=True, metadata=attrs)
            out.append(cap)
        return tuple(out)

    def _classify(self, name: str, reads: list[Read]) -> Capture | None:
        f, at = self.f, reads[0].loc
        params = {p.name: p for p in f.params}
        binds = self.facts.bindings.get(name, [])
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
        t, flags = self.types.get(name), self.flags.get(name, 0)
        after = [b for b in binds if b.index > self.facts.backward_index]
        tensor = t is None or ir.holds_tensors(t)  # untyped: judged as a tensor may be
        if after and len(binds) > 1:
            self._reject("T204", at, name, bound, tensor, others=[after[0].loc])
        elif any(b.how == "loop" for b in binds):
            self._reject("T212", at, name, bound, tensor)
        elif self.facts.counts.get(name, 0) > 1:
            self._reject("T203", at, name, bound, tensor, others=[b.loc for b in binds[1:]])
        elif name in f.outputs:
            return Capture(name, CaptureKind.OUTPUT, "Tensor", bound, False)
        elif flags & ir.MUTABLE:
            self._reject("T209", at, name, bound)
        elif t is not None and tensor:
            code = "T211" if binds[0].how == "unpack" else "T201"
            only = all(r.metadata is not None for r in reads)
            attrs = sorted({r.metadata for r in reads if r.metadata}) if only else []
            self._reject(code, at, name, bound, metadata=attrs)
        elif flags & ir.ITEM:
            self._reject("T205", at, name, bound)
        elif t is not None:
            return Capture(name, CaptureKind.ATTRIBUTE, str(t), bound, False)
        # else its value is untyped, an error in Python too (Note [Typing is total] in
        # lower.py): the forward raises before a backward exists, and the module is rejected
        return None

    def _reject(
        self,
        code: str,
        at: Loc,
        name: str,
        bound: Loc,
        tensor: bool = True,
        others: Sequence[Loc] = (),
        metadata: Sequence[str] = (),
    ) -> None:
        message, hint = capture_message(
            code, name, self.f.name, bound, at, tensor, others, metadata
        )
        self.diags.append(
            make_diagnostic(code, at, message, hint, self.mod.source, width=len(name))
        )


# ---------------------------------------------------------------------------------------------
# Small analyses


def _pos(loc: Loc) -> tuple[int, int]:
    return (loc.line, loc.col)
