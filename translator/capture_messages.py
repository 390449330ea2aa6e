"""Capture messages: the sentence and hint of each capture-rule rejection (T2xx).

Used by ``captures``. Note [Capture messages]: each names the variable, where it was bound, why
double backward would be wrong, and the fixes (recompute in backward, or return it as a
(hidden) output; for a non-tensor value: bind it once, under its own name).
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import Loc


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
    metadata: Sequence[str] = (),
) -> tuple[str, str]:
    """The sentence and hint of a capture-rule rejection (T201-T205, T209, T211, T212).
    ``metadata``: the attributes backward reads, when it reads only metadata of the tensor."""
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
    if metadata and code in ("T201", "T211"):
        reads = " and ".join(f"`{name}.{a}`" for a in metadata)
        saved = ", ".join(f"`{name}_{a} = {name}.{a}`" for a in metadata)
        them = "them" if len(metadata) > 1 else "it"
        recompute = (
            f"backward reads only {reads}: compute {them} in the forward ({saved}) and "
            f"capture {'those non-tensor values' if len(metadata) > 1 else 'that value'} instead"
        )
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

