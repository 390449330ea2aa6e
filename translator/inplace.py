"""In-place variants: may ``x.NAME_(...)`` be derived from formula ``NAME``? (front end)

Stage: an analysis over the checked front-end model (after ``collect_captures``). Input: a
``model.Formula``. Output: an ``InplaceVerdict`` (kind, reason). Used by both engines'
API layer (``transgrad._api``, which builds ``x.exp_()`` and friends from it) and by the CLI
(``check --inplace``, ``show NAME``).

Note [In-place variants]
~~~~~~~~~~~~~~~~~~~~~~~~
``x.f_(args)`` computes ``f(x, args)`` and writes the result into ``x``'s storage; ``x`` takes
the node of ``f`` as its history. That is only correct when the backward of ``f`` does not read
the *value* of ``x`` (its first Tensor parameter), which the write destroys. The verdict, from
the captures of the backward:

* ``safe``: the backward reads only the output (``exp``, ``relu``, ``sigmoid``, ``tanh``), only
  metadata of ``x`` (``reshape``), or nothing of ``x`` (``neg``, ``add``). The variant writes
  the result into ``x`` directly.
* ``copy``: the backward reads ``x``, and the formula asks for a copy with
  ``@formula(inplace_saves_copy=True)`` (``mul``, ``div``, ``clamp``): the variant runs on a
  copy of ``x`` (made only while autograd records), which the node saves instead of ``x``.
* ``unsafe``: the backward reads ``x`` and the formula does not ask for a copy (``sin``,
  ``log``): the in-place variant is refused while autograd records (the saved ``x`` would be
  overwritten) with this reason; under ``no_grad`` it runs (nothing is saved).
* ``composite``: no backward of its own; the ops it records may save ``x``: run on a copy.
* ``none``: no in-place variant (the first parameter is not a Tensor, or several outputs).
"""

from __future__ import annotations

import dataclasses

from .model import CaptureKind, Formula


@dataclasses.dataclass(frozen=True)
class InplaceVerdict:
    name: str  # the formula
    kind: str  # "safe" | "copy" | "unsafe" | "composite" | "none"
    reason: str  # one sentence, for messages and the CLI

    @property
    def allowed(self) -> bool:
        """Whether ``x.NAME_()`` may run while autograd records."""
        return self.kind in ("safe", "copy", "composite")

    @property
    def needs_copy(self) -> bool:
        return self.kind in ("copy", "composite")


def check_inplace(f: Formula) -> InplaceVerdict:
    """The in-place verdict of formula ``f`` (Note [In-place variants])."""
    first = f.params[0] if f.params else None
    if first is None or first.type != "Tensor" or f.returns != "Tensor":
        return InplaceVerdict(f.name, "none", "no in-place variant: the formula does not map "
                              "a first Tensor parameter to one Tensor output")
    x = first.name
    if f.backward is None:
        return InplaceVerdict(f.name, "composite", f"a composite: the ops it records may save "
                              f"`{x}`, so {f.name}_ runs on a copy of `{x}`")
    where = f"{f.backward.loc.path}:{f.backward.loc.line}"
    read = next((c for c in f.backward.captures
                 if c.name == x and c.kind == CaptureKind.INPUT), None)
    reads_output = any(c.kind == CaptureKind.OUTPUT for c in f.backward.captures)
    if read is None or read.metadata_only:
        what = ("only the output" if reads_output and read is None
                else f"only the metadata of `{x}`" if read is not None
                else f"nothing of `{x}`")
        return InplaceVerdict(f.name, "safe", f"its backward ({where}) reads {what}")
    if f.options.inplace_saves_copy:
        return InplaceVerdict(f.name, "copy", f"its backward ({where}) reads `{x}`; the formula "
                              f"asks for a copy (inplace_saves_copy=True), so {f.name}_ saves a "
                              f"copy of `{x}`")
    return InplaceVerdict(f.name, "unsafe", f"its backward ({where}) reads `{x}`, which "
                          f"{f.name}_ would overwrite")
