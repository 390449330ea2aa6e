"""Torch's node names for transgrad's formulas: ``python -m transgrad.node_names --out
translator/torch_node_names.py``.

Stage: a generator beside the coverage tool (needs torch installed for its ``derivatives.yaml``;
the output is checked in, so neither the build nor the engines need torch). Input: the installed
torch's ``derivatives.yaml``, the shipped formulas (their names) and ``coverage.TWINS`` (which
yaml entry each public call exercises). Output: ``translator/torch_node_names.py``, two tables:
formula -> the name of the node torch records for it (``mul`` -> ``MulBackward0``, ``reshape``
-> ``ViewBackward0``), and the formulas whose torch node depends on an optional argument being
None (``sum(x)`` records ``SumBackward0``, ``sum(x, dim)`` ``SumBackward1``).
``tests/translator/test_node_name_table.py`` regenerates the file and compares (skipped without
torch), and checks the naming rule against torchgen's own loader.

Note [Torch's node names]
~~~~~~~~~~~~~~~~~~~~~~~~~
torchgen (``load_derivatives.py``) names the node of a derivatives.yaml entry from the entry's
base name (``sum`` for ``sum.dim_IntList``): CamelCase of its ``_``-separated parts (each
``str.title()``d) + ``Backward`` (``ForwardBackward`` shortened to ``Backward``), then the
number of entries with that prefix seen before it in the file, counting only entries with at
least one input that has a derivative formula (not ``non_differentiable``; a key naming an
output is a forward derivative and does not count). A formula maps to an entry by ``ENTRY``
below where stated, else through ``TWINS``: the entry whose public call has the formula's name
(one candidate), else the entry named exactly like the formula; a formula without an entry is
``<Camel>Backward0``. Two formulas may not get one name (the C++ classes are named by it): the
generator refuses.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import sys
from typing import Any

# formula -> yaml entry, where TWINS has no single answer or torch's public function records
# another entry's node (x.reshape / x.view -> view; x.t() on transgrad runs transpose; matmul_nd
# is torch's mm for matrices, the common case, bmm for batches; F.linear records torch's addmm
# or mm itself, its formula linear is what other shapes fall back to)
ENTRY: dict[str, str] = {
    "add": "add.Tensor", "sub": "sub.Tensor", "mul": "mul.Tensor", "div": "div.Tensor",
    "pow": "pow.Tensor_Tensor", "pow_scalar": "pow.Tensor_Scalar", "reshape": "view",
    "sum": "sum.dim_IntList", "mean": "mean.dim", "prod": "prod.dim_int",
    "transpose": "transpose.int", "squeeze": "squeeze.dim", "select": "select.int",
    "slice": "slice.Tensor", "where": "where.self", "masked_fill": "masked_fill.Scalar",
    "masked_fill_tensor": "masked_fill.Tensor", "max_dim": "max.dim", "min_dim": "min.dim",
    "median_dim": "median.dim", "eq": "eq.Tensor", "ne": "ne.Tensor", "lt": "lt.Tensor",
    "le": "le.Tensor", "gt": "gt.Tensor", "ge": "ge.Tensor", "cast": "_to_copy",
    "matmul_nd": "mm", "div_trunc": "div.Tensor_mode", "div_floor": "div.Tensor_mode",
    "lerp": "lerp.Scalar", "lerp_tensor": "lerp.Tensor", "fmod": "fmod.Tensor",
    "remainder": "remainder.Tensor", "xlogy": "xlogy.Tensor", "cat": "cat",
    "scatter": "scatter.src", "scatter_value": "scatter.value",
    "var_mean": "var_mean.correction", "std_mean": "std_mean.correction",
    "index_select": "index_select", "polygamma": "polygamma",
    "index_tensor": "index.Tensor", "index_put": "index_put",
    "rsub": "rsub.Tensor", "rsub_scalar": "rsub.Scalar",
    "softmax_backward_data": "_softmax_backward_data",
    "log_softmax_backward_data": "_log_softmax_backward_data",
    "logsigmoid": "log_sigmoid_forward", "conv2d": "convolution",
}

# formula -> (its optional parameter, the entry torch records when that argument is None)
WHEN_NONE: dict[str, tuple[str, str]] = {
    "sum": ("dims", "sum"), "mean": ("dims", "mean"), "prod": ("dims", "prod"),
    "squeeze": ("dims", "squeeze"),
}

# Formulas left to ``<Camel>Backward0`` although an entry matches their name, because another
# formula has that entry's name (torch has one node where transgrad has two formulas)
OWN_NAME = {"div_trunc", "div_floor"}


def _camel(name: str) -> str:
    return "".join(p.title() for p in name.split("_"))


def _prefix(base: str) -> str:
    return (_camel(base) + "Backward").replace("ForwardBackward", "Backward")


def _arg_names(schema: str) -> set[str]:
    """The input names of ``name(Type a, Type b=1, *, Type c) -> ...``."""
    inside = schema[schema.index("(") + 1:schema.rindex(") ->")]
    parts = _translator("import_yaml").split_top(inside)
    return {p.split("=")[0].split()[-1] for p in parts if p and p != "*"}


def entry_node_names(entries: list[dict]) -> dict[str, str]:
    """yaml entry (``sum.dim_IntList``) -> torch's node name (``SumBackward1``), for every
    entry that has a node (Note [Torch's node names])."""
    counter: collections.Counter[str] = collections.Counter()
    out = {}
    for raw in entries:
        schema = raw["name"]
        defn = raw.get("dispatch", {}).get("Default", raw)
        args = _arg_names(schema)
        has_derivative = any(
            k.split(",")[0].strip() in args and str(v).strip().lower() != "non_differentiable"
            for k, v in defn.items() if k not in ("name", "output_differentiability", "dispatch"))
        if not has_derivative:
            continue
        full = schema[:schema.index("(")]
        prefix = _prefix(full.split(".")[0])
        out[full] = f"{prefix}{counter[prefix]}"
        counter[prefix] += 1
    return out


def _translator(module: str) -> Any:
    """``transgrad.translator.<module>`` installed, else a checkout's ``translator.<module>``
    (``PYTHONPATH=python:.``)."""
    try:
        return importlib.import_module("transgrad.translator." + module)
    except ImportError:
        return importlib.import_module("translator." + module)


def node_naming() -> Any:
    """The translator's ``node_naming`` (the table and the rule): the reference engine and
    ``graph_dot`` name nodes with it, as the C++ classes are named."""
    return _translator("node_naming")


def formula_names() -> list[str]:
    """The shipped formulas that have a backward (each becomes a node)."""
    modules = _translator("frontend").shipped_modules()
    return sorted(f.name for m in modules for f in m.formulas if f.backward is not None)


def _call_base(call: str) -> str:
    return call.lstrip(".").rsplit(".", 1)[-1]


def node_name_table(entries: list[dict]) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """formula -> torch's node name; formula -> (parameter, node name when it is None)."""
    from transgrad.coverage import TWINS

    names = entry_node_names(entries)
    by_call: dict[str, list[str]] = collections.defaultdict(list)
    for twinned, twin in TWINS.items():
        if twinned in names:
            by_call[_call_base(twin.call)].append(twinned)
    table: dict[str, str] = {}
    for f in formula_names():
        entry: str | None = ENTRY.get(f)
        if entry is None and f not in OWN_NAME:
            candidates = by_call.get(f, [])
            entry = candidates[0] if len(candidates) == 1 else f if f in names else None
        known = entry is not None and entry in names and f not in OWN_NAME
        table[f] = names[entry] if known and entry is not None else f"{_camel(f)}Backward0"
    seen: dict[str, str] = {}
    for f, n in table.items():
        if n in seen:
            raise SystemExit(f"formulas `{seen[n]}` and `{f}` would both be named {n}: give one "
                             "of them another entry in ENTRY, or list it in OWN_NAME")
        seen[n] = f
    when_none = {f: (param, names[e]) for f, (param, e) in WHEN_NONE.items() if f in table}
    return table, when_none


def render(table: dict[str, str], when_none: dict[str, tuple[str, str]]) -> str:
    lines = ['"""Torch\'s node name of each shipped formula. Generated by ``python -m '
             'transgrad.node_names', '--out translator/torch_node_names.py`` from the installed '
             "torch's derivatives.yaml; do not edit", '(Note [Torch\'s node names] in '
             'python/transgrad/node_names.py)."""', "", "from __future__ import annotations",
             "", "# formula -> the node torch records", "NODE_NAMES: dict[str, str] = {"]
    lines += [f'    "{f}": "{n}",' for f, n in sorted(table.items())]
    lines += ["}", "", "# formula -> (optional parameter, the node torch records when it is None)",
              "NODE_NAMES_WHEN_NONE: dict[str, tuple[str, str]] = {"]
    lines += [f'    "{f}": ("{p}", "{n}"),' for f, (p, n) in sorted(when_none.items())]
    return "\n".join(lines + ["}", ""])


def load_entries() -> list[dict]:
    """The installed torch's derivatives.yaml (ImportError without torch)."""
    from transgrad.coverage import derivatives_yaml

    return _translator("import_yaml").load_yaml(derivatives_yaml())


def main(argv: Any = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="write here (default: stdout)")
    args = parser.parse_args(argv)
    try:
        text = render(*node_name_table(load_entries()))
    except ImportError as e:  # torch missing
        print(f"transgrad.node_names needs torch's derivatives.yaml: {e}", file=sys.stderr)
        return 2
    if args.out:
        old = open(args.out, encoding="utf-8").read() if os.path.exists(args.out) else None
        if old != text:
            with open(args.out, "w", encoding="utf-8") as f:
                f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
