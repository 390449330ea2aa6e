"""``transgrad.nn.parameter.Parameter``: the compiled engine's Parameter (torch's module path).

A subclass of ``transgrad.Tensor`` (Note [Parameter construction] in ``transgrad/_nn/
parameter.py``); ``transgrad.reference.nn.parameter`` holds the reference engine's twin.
"""

from __future__ import annotations

from typing import Any

import transgrad as _tg
from transgrad._nn.parameter import ParameterMixin


class Parameter(ParameterMixin, _tg.Tensor):
    """A tensor that a Module registers as a parameter: a leaf with requires_grad=True,
    sharing data with the tensor it was made from."""

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        _tg.Tensor.__init__(self, _tg.zeros(0) if data is None else data, requires_grad)


__all__ = ["Parameter"]
