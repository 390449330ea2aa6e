"""See the backward graph: ``transgrad.autograd.graph.to_dot(output)`` (both engines).

Stage: introspection, after a forward. Input: a tensor (or tensors, or a node) whose backward
graph to draw. Output: Graphviz DOT text: one box per node with its formula's ``file:line``,
what it saved (inputs and outputs with their shapes, metadata-only saves marked ``shape only``,
attributes by type), its hidden outputs, whether hooks are registered; one box per leaf
(``AccumulateGrad``); one ellipse per output tensor; edges in the direction gradients flow.
``to_svg`` / ``render`` run it through the ``graphviz`` package (optional) and its ``dot``.

Invariants: engine-neutral (nodes are read through what both engines expose: ``name()``,
``location``, ``next_functions``, the forward input/output metadata, hooks), so one program
draws the same text on both engines. What a node saved comes from its formula's capture
analysis (the translator, as the reference engine and the build use it), and the shapes from
the node's recorded forward metadata; a node of no known formula (an extension's, a
``Function``) shows its name and location only.
"""

from __future__ import annotations

import os
import shutil
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["to_dot", "to_svg", "render"]

Meta = Optional[Tuple[Tuple[int, ...], str]]  # (shape, dtype name) of a forward tensor


def _roots(output: Any) -> List[Any]:
    items = output if isinstance(output, (list, tuple)) else [output]
    return list(items)


def _shape(meta: Meta) -> str:
    return "[" + ", ".join(str(s) for s in meta[0]) + "]" if meta is not None else "[?]"


def _dtype_name(dtype: Any) -> str:
    return str(dtype).replace("transgrad.", "").replace("torch.", "")


def _meta_list(node: Any, which: str) -> List[Meta]:
    """The forward inputs ("input") or outputs ("output") a node recorded, on either engine."""
    raw = getattr(node, f"_{which}_metadata", None)  # compiled: ((shape, dtype), ...)
    if raw is None:
        raw = getattr(node, f"{which}_meta", None) or ()  # reference FormulaNode
    return [None if m is None else (tuple(int(s) for s in m[0]), _dtype_name(m[1]))
            for m in raw]


def _has_hooks(node: Any) -> bool:
    flag = getattr(node, "_has_hooks", None)
    if flag is not None:  # compiled
        return bool(flag)
    if type(node).__name__ == "AccumulateGrad":
        var = node.variable
        return bool(getattr(var, "_hooks", None) or getattr(var, "_post_acc_hooks", None))
    pre = getattr(node, "_pre_hooks", None)
    return bool((pre and any(pre.values())) or getattr(node, "_node_pre_hooks", None)
                or getattr(node, "_node_post_hooks", None))


_by_node_name: Dict[str, Any] = {}


def _formula_of(node: Any) -> Any:
    """The FormulaDef a node is the backward of (None when it is no known formula's)."""
    fdef = getattr(node, "fdef", None)  # a reference FormulaNode knows it
    if fdef is not None:
        return fdef
    # imported here, on first use: `import transgrad` does not load the formula language
    from transgrad import lang, node_names

    if not _by_node_name:
        lang.load_builtin_formulas()
        naming = node_names.node_naming()
        for n, d in lang.REGISTRY.items():
            _by_node_name[naming.node_class_name(n)] = d
            alternative = naming.node_name_when_none(n)
            if alternative is not None:
                _by_node_name[alternative[1]] = d
    fdef = _by_node_name.get(node.name())
    if fdef is None:
        return None
    # the same name from elsewhere (an extension's TanhBackward0) is not the shipped formula
    path, _, line = fdef.source.rpartition(":")
    where = str(getattr(node, "location", "") or "")
    return fdef if where.endswith(f"{os.path.basename(path)}:{line}") else None


def _model(fdef: Any) -> Any:
    try:
        from transgrad.translator.frontend import formula_model
    except ImportError:
        return None
    try:
        return formula_model(fdef.fn)
    except Exception:  # no source at hand: draw without the saved values
        return None


def _saved_lines(node: Any, compiled: bool) -> List[str]:
    """What the node saved and its hidden outputs, one line each."""
    fdef = _formula_of(node)
    model = _model(fdef) if fdef is not None else None
    if model is None or model.backward is None:
        return []
    inputs, outputs = _meta_list(node, "input"), _meta_list(node, "output")
    tensor_params = [p for p in model.params if "Tensor" in p.type]
    edge_of: Dict[str, int] = {}
    if not any("Sequence" in p.type for p in tensor_params):  # one edge per Tensor parameter
        edge_of = {p.name: i for i, p in enumerate(tensor_params)}
    opts = model.options
    if compiled:
        slots = list(model.grad_slots)
    else:  # the reference engine numbers the slots in return order
        slots = [o for o in model.outputs if o in opts.hidden_outputs
                 or opts.differentiable_outputs is None or o in opts.differentiable_outputs]

    def meta_of(name: str) -> Meta:
        if name in edge_of and edge_of[name] < len(inputs):
            return inputs[edge_of[name]]
        if name in slots and slots.index(name) < len(outputs):
            return outputs[slots.index(name)]
        return None

    lines = []
    for c in model.backward.captures:
        kind = c.kind.value
        if kind == "attribute":
            lines.append(f"{c.name}: {c.type}")
            continue
        meta = meta_of(c.name)
        if meta is None and c.name in edge_of and edge_of[c.name] < len(inputs):
            lines.append(f"{c.name}: None")  # an Optional[Tensor] given as None
            continue
        what = "shape only" if c.metadata_only else f"saved {kind}"
        dtype = f" {meta[1]}" if meta is not None and not c.metadata_only else ""
        lines.append(f"{c.name}: {what} {_shape(meta)}{dtype}")
    hidden = [h for h in model.outputs if h in opts.hidden_outputs]
    if hidden:
        lines.append("hidden outputs: " + ", ".join(f"{h} {_shape(meta_of(h))}" for h in hidden))
    return lines


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l") + '\\l"'


def to_dot(output: Any, name: str = "backward") -> str:
    """The backward graph of ``output`` (a tensor, a sequence of tensors, or a ``grad_fn``)
    as Graphviz DOT text. Nodes of formulas show their ``file:line``, what they saved (with
    shapes; ``shape only`` where the formula keeps only metadata), hidden outputs and hooks."""
    lines = [f"digraph {name} {{", '  node [shape=box, fontname="monospace", fontsize=10];']
    ids: Dict[int, str] = {}
    keep: List[Any] = []  # holds every node, so that id() stays unique while we walk
    todo: List[Any] = []

    def visit(node: Any) -> str:
        key = id(node)
        if key not in ids:
            ids[key] = f"n{len(ids)}"
            keep.append(node)
            todo.append(node)
        return ids[key]

    for k, root in enumerate(_roots(output)):
        node = root if not hasattr(root, "grad_fn") else root.grad_fn
        if hasattr(root, "grad_fn"):
            label = f"output {k}: {_shape((tuple(root.shape), ''))} {_dtype_name(root.dtype)}"
            if node is None:  # a leaf, or a tensor that does not require grad: no graph
                label += " (leaf)" if getattr(root, "requires_grad", False) else " (no grad)"
            lines.append(f"  out{k} [shape=ellipse, label={_quote(label)}];")
            if node is not None:
                lines.append(f"  out{k} -> {visit(node)};")
        elif node is not None:
            visit(node)
    while todo:
        node = todo.pop(0)
        me = ids[id(node)]
        compiled = hasattr(node, "_input_metadata")
        if node.name() == "AccumulateGrad":
            var = node.variable
            text = ["AccumulateGrad", f"leaf {_shape((tuple(var.shape), ''))} "
                                       f"{_dtype_name(var.dtype)}"]
        else:
            text = [node.name()]
            if getattr(node, "location", None):
                text.append(str(node.location))
            text += _saved_lines(node, compiled)
        if _has_hooks(node):
            text.append("hooks")
        style = ", style=filled, fillcolor=lightblue" if node.name() == "AccumulateGrad" else ""
        lines.append(f"  {me} [label={_quote(chr(10).join(text))}{style}];")
        nexts = node.next_functions
        for i, (nxt, _nr) in enumerate(nexts):
            if nxt is None:
                continue
            edge = f" [label=\"{i}\"]" if len(nexts) > 1 else ""
            lines.append(f"  {me} -> {visit(nxt)}{edge};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _graphviz() -> Any:
    try:
        import graphviz
    except ImportError:
        raise ImportError("to_svg/render need the graphviz package: pip install graphviz "
                          "(and the Graphviz program `dot`); to_dot needs neither") from None
    if shutil.which("dot") is None:
        raise RuntimeError("to_svg/render need the Graphviz program `dot` on PATH (e.g. "
                           "apt-get install graphviz); to_dot gives the DOT text without it")
    return graphviz


def to_svg(output: Any) -> str:
    """The backward graph of ``output`` as SVG text (needs the ``graphviz`` package and
    ``dot``)."""
    graphviz = _graphviz()
    return graphviz.Source(to_dot(output)).pipe(format="svg").decode("utf-8")


def render(output: Any, path: str, format: str = "svg") -> str:
    """Write the backward graph of ``output`` to ``path`` + ``.`` + ``format``; returns the
    file written (needs the ``graphviz`` package and ``dot``)."""
    graphviz = _graphviz()
    return str(graphviz.Source(to_dot(output)).render(outfile=f"{path}.{format}",
                                                      format=format, cleanup=True))
