"""Argument checks shared by the optimizers, with torch's exception types and words.

Input: a constructor's arguments. Output: nothing, or the ``ValueError`` torch raises for the
same arguments (``Invalid learning rate: -1.0``), so code that catches torch's errors catches
ours. Only checks live here; the update rules are in each optimizer's module.
"""

from __future__ import annotations

from typing import Any

# torch's words for each option in "Invalid <label>: <value>"
_LABELS = {"lr": "learning rate", "eps": "epsilon value"}


def check_nonnegative(**options: float) -> None:
    """``ValueError`` for the first option below zero (or NaN), in the order given."""
    for name, value in options.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {_LABELS.get(name, name + ' value')}: {value}")


def check_betas(betas: Any) -> None:
    """Each beta in [0, 1), as torch's Adam family."""
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def check_cpu_only(name: str, capturable: bool = False, differentiable: bool = False) -> None:
    """The options transgrad does not implement, refused by name rather than ignored.

    ``foreach``/``fused`` choose between implementations with the same result and are
    accepted as no-ops; ``capturable`` (CUDA graphs) and ``differentiable`` (autograd through
    the step) would change what the step means, so they raise.
    """
    if capturable:
        raise ValueError(f"{name}: capturable=True is for CUDA graph capture; transgrad runs "
                         f"on the CPU, where torch also refuses it")
    if differentiable:
        raise NotImplementedError(f"{name}: differentiable=True (autograd through the "
                                  f"optimizer step) is not supported by transgrad")


def check_fused_foreach(fused: Any, foreach: Any) -> None:
    """torch's refusal of both implementations at once (both run one kernel here)."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
