"""The name of a formula's backward node, as torch names the node it records for that op.

Input: a formula name. Output: the C++ node class name, which is also what ``grad_fn.name()``
returns on both engines (``mul`` -> ``MulBackward0``, ``reshape`` -> ``ViewBackward0``; from the
generated table ``torch_node_names.py``, Note [Torch's node names] in
``python/transgrad/node_names.py``); a formula torch has no entry for is ``<Camel>Backward0``.
Used by the back end (``ir.Function.node_name``) and by the reference engine (its plans), which
imports this module as ``transgrad.translator.node_naming`` (or ``translator.node_naming`` in a
checkout).
"""

from __future__ import annotations

from .torch_node_names import NODE_NAMES, NODE_NAMES_WHEN_NONE


def node_class_name(formula: str) -> str:
    """``mul`` -> ``MulBackward0``; ``log_softmax_grad`` (no torch entry) ->
    ``LogSoftmaxGradBackward0``. Not injective (``foo_bar`` and ``fooBar`` meet):
    ``lower_env.Program`` refuses a collision."""
    name = NODE_NAMES.get(formula)
    if name is None:
        name = "".join(p[:1].upper() + p[1:] for p in formula.split("_")) + "Backward0"
    return name


def node_name_when_none(formula: str) -> tuple[str, str] | None:
    """(parameter, node name) when the node torch records depends on that optional argument
    being None: ``sum(x)`` is ``SumBackward0``, ``sum(x, dims)`` ``SumBackward1``."""
    return NODE_NAMES_WHEN_NONE.get(formula)
