"""``autograd.graph.to_dot`` (issue #12 item 7): the backward graph as DOT text, the same on
both engines, with each node's formula file:line, saved values and their shapes (metadata-only
saves marked), hidden outputs and hooks."""

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _program(tg):
    tg.manual_seed(0)
    x = tg.randn(2, 3, requires_grad=True)
    w = tg.randn(3, requires_grad=True)
    h = tg.nn.functional.layer_norm(x * w, (3,)).tanh()
    y = h.sum(1)
    y.register_hook(lambda g: g)
    return y


def _labels(dot):
    return {m.group(1): m.group(2).split("\\l")[:-1]
            for m in re.finditer(r'^  (n\d+) \[label="(.*?)"', dot, re.M)}


def test_both_engines_draw_the_same_graph(ref, compiled):
    assert ref.autograd.graph.to_dot(_program(ref)) == compiled.autograd.graph.to_dot(
        _program(compiled))


def test_nodes_cite_their_formula_and_what_they_saved(engine):
    dot = engine.autograd.graph.to_dot(_program(engine))
    assert dot.startswith("digraph backward {") and dot.endswith("}\n")
    labels = _labels(dot)
    names = [lines[0] for lines in labels.values()]
    formulas = {"SumBackward1": "sum", "TanhBackward0": "tanh",  # torch's names
                "NativeLayerNormBackward0": "layer_norm", "MulBackward0": "mul"}
    assert names == [*formulas, "AccumulateGrad", "AccumulateGrad"]
    by_name = {lines[0]: lines for lines in labels.values()}
    for name, lines in by_name.items():
        if name == "AccumulateGrad":
            continue
        path, line = lines[1].split(":")  # the formula's def line
        formula = formulas[name]
        assert (ROOT / path).read_text().splitlines()[int(line) - 1].startswith(
            f"def {formula}("), lines
    assert "x: shape only [2, 3]" in by_name["SumBackward1"]  # sum keeps only x's shape
    assert "hooks" in by_name["SumBackward1"]
    assert "result: saved output [2, 3] float32" in by_name["TanhBackward0"]
    layer_norm = by_name["NativeLayerNormBackward0"]
    assert "x: saved input [2, 3] float32" in layer_norm
    assert "weight: None" in layer_norm
    assert "hidden outputs: mean [2, 1], rstd [2, 1]" in layer_norm
    assert {"other: saved input [3] float32", "x: saved input [2, 3] float32"} <= set(
        by_name["MulBackward0"])
    leaves = [lines[1] for lines in labels.values() if lines[0] == "AccumulateGrad"]
    assert leaves == ["leaf [2, 3] float32", "leaf [3] float32"]
    assert sum("hooks" in lines for lines in labels.values()) == 1
    # gradients flow from the output to the leaves; MulBackward0's two inputs are numbered
    assert 'out0 -> n0;' in dot and 'n3 -> n4 [label="0"];' in dot
    assert 'n3 -> n5 [label="1"];' in dot


def test_several_outputs_leaves_and_no_grad(engine):
    tg = engine
    x = tg.ones(2, requires_grad=True)
    dot = tg.autograd.graph.to_dot([x.exp(), x, tg.ones(1)])
    assert 'output 1: [2] float32 (leaf)' in dot and 'output 2: [1] float32 (no grad)' in dot
    assert dot.count("ExpBackward0") == 1 and dot.count("AccumulateGrad") == 1


def test_svg_needs_graphviz_and_dot(engine, monkeypatch):
    from transgrad._api import graph_dot

    y = engine.ones(2, requires_grad=True).exp()
    monkeypatch.setattr(graph_dot.shutil, "which", lambda _: None)
    pytest.importorskip("graphviz")
    with pytest.raises(RuntimeError, match="`dot` on PATH"):
        engine.autograd.graph.to_svg(y)
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        engine.autograd.graph.to_svg(y)


def test_svg_when_dot_is_installed(engine, tmp_path):
    import shutil

    pytest.importorskip("graphviz")
    if shutil.which("dot") is None:
        pytest.skip("the Graphviz program dot is not installed")
    y = engine.ones(2, requires_grad=True).exp()
    assert "<svg" in engine.autograd.graph.to_svg(y)
    out = engine.autograd.graph.render(y, str(tmp_path / "g"))
    assert Path(out).read_text().lstrip().startswith("<")
