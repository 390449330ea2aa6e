"""In-place verdicts: may ``x.NAME_()`` run in place while autograd records, on ``x`` or on a
copy? (Note [In-place ops] in methods.py; the rule is Note [In-place variants] in
translator/inplace.py.)

Input: a formula name. Output: a ``Verdict`` (kind, reason), or None when nothing is known
(then the API runs the op on a copy, the safe answer).

Note [Verdicts as data]
~~~~~~~~~~~~~~~~~~~~~~~
The verdicts are a translator analysis of the formulas. The build runs it once and ships the
result as ``transgrad/_formula_facts.py`` (``INPLACE = {"exp": ("safe", "<reason>"), ...}``):
the compiled engine reads that module and never imports the translator (or libcst) for a
formula it lists. Where no facts are shipped (a source checkout without a build), or for the
reference engine (whose formulas may be a user's, loaded in Python), the verdict comes from the
translator at first use, as before. ``VerdictTable`` takes the facts as an argument, so a test
can give it any mapping.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from typing import Dict, Mapping, Optional, Tuple

Facts = Mapping[str, Tuple[str, str]]  # formula -> (kind, reason)
KINDS = ("none", "composite", "safe", "copy", "unsafe")


@dataclasses.dataclass(frozen=True)
class Verdict:
    """As ``translator.inplace.InplaceVerdict``: the same kinds, the same two questions."""

    name: str
    kind: str
    reason: str

    @property
    def allowed(self) -> bool:
        """Whether ``x.NAME_()`` may run while autograd records."""
        return self.kind in ("safe", "copy", "composite")

    @property
    def needs_copy(self) -> bool:
        return self.kind in ("copy", "composite")


def shipped_facts(module: str = "transgrad._formula_facts") -> Optional[Facts]:
    """The verdicts the build shipped (None in a checkout without a build)."""
    try:
        facts = importlib.import_module(module)
    except ImportError:
        return None
    return facts.INPLACE


def translator_verdict(formula: str) -> Optional[Verdict]:
    """The translator's verdict for a registered formula (imports libcst); None without one."""
    try:
        from transgrad import lang
        from transgrad.translator.frontend import formula_model
        from transgrad.translator.inplace import check_inplace

        lang.load_builtin_formulas()
        fdef = lang.REGISTRY.get(formula)
        if fdef is None:
            return None
        v = check_inplace(formula_model(fdef.fn))
    except Exception:  # no translator (or libcst) at hand: the safe answer is a copy
        return None
    return Verdict(v.name, v.kind, v.reason)


class VerdictTable:
    """``table(formula)``: the shipped fact when there is one, else the translator's (cached)."""

    def __init__(self, facts: Optional[Facts]) -> None:
        self._facts: Facts = facts or {}
        self._cache: Dict[str, Optional[Verdict]] = {}
        self._lock = threading.Lock()

    def __call__(self, formula: str) -> Optional[Verdict]:
        try:
            return self._cache[formula]
        except KeyError:
            pass
        fact = self._facts.get(formula)
        if fact is not None:
            kind, reason = fact
            if kind not in KINDS:
                raise ValueError(f"transgrad._formula_facts: unknown in-place kind {kind!r} "
                                 f"for {formula!r} (expected one of {', '.join(KINDS)})")
            verdict: Optional[Verdict] = Verdict(formula, kind, reason)
        else:
            verdict = translator_verdict(formula)
        with self._lock:
            return self._cache.setdefault(formula, verdict)
