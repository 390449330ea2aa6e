"""The checked-in table of torch's node names (``translator/torch_node_names.py``) is what
``python -m transgrad.node_names`` generates from the installed torch, and the generator's
naming rule is torchgen's (Note [Torch's node names] in python/transgrad/node_names.py).
Skipped without torch; the names themselves are compared with torch's on a battery of ops in
tests/engine/test_torch_node_names.py."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = os.path.join(ROOT, "translator", "torch_node_names.py")


def test_table_is_current():
    pytest.importorskip("torch")
    from transgrad import node_names

    text = node_names.render(*node_names.node_name_table(node_names.load_entries()))
    with open(TABLE, encoding="utf-8") as f:
        assert f.read() == text, ("translator/torch_node_names.py is stale: run `python -m "
                                  "transgrad.node_names --out translator/torch_node_names.py`")


def test_rule_is_torchgens():
    pytest.importorskip("torch")
    torchgen = pytest.importorskip("torchgen.packaged.autograd.load_derivatives")
    import torchgen as tgen
    from transgrad import node_names

    base = os.path.join(os.path.dirname(tgen.__file__), "packaged")
    infos, _ = torchgen.load_derivatives(
        os.path.join(base, "autograd", "derivatives.yaml"),
        os.path.join(base, "ATen", "native", "native_functions.yaml"),
        os.path.join(base, "ATen", "native", "tags.yaml"))
    theirs = {}
    for schema, by_key in infos.items():
        info = by_key.get("Default")
        if info is not None and info.op is not None:
            theirs[str(schema.name)] = info.op
    ours = node_names.entry_node_names(node_names.load_entries())
    assert ours == {k: v for k, v in theirs.items() if k in ours}
    assert sorted(set(theirs) - set(ours)) == [] or all(
        "_copy" in k or k.endswith("_") for k in set(theirs) - set(ours))
    assert ours["sum"] == "SumBackward0" and ours["sum.dim_IntList"] == "SumBackward1"
    assert ours["addmm"] == "AddmmBackward0" and ours["mean.dim"] == "MeanBackward1"


def test_rule_by_hand():
    from transgrad import node_names

    entries = [{"name": "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                "self": "grad", "other": "grad * alpha"},
               {"name": "argmax(Tensor self, int? dim=None) -> Tensor",
                "output_differentiability": [False]},
               {"name": "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
                "self": "grad", "result": "self_t"},
               {"name": "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim,"
                        " ScalarType input_dtype) -> Tensor",
                "grad_output": "grad", "output": "non_differentiable"},
               {"name": "native_layer_norm_forward(Tensor input) -> Tensor", "input": "grad"}]
    assert node_names.entry_node_names(entries) == {
        "add.Tensor": "AddBackward0", "add.Scalar": "AddBackward1",
        "_log_softmax_backward_data": "LogSoftmaxBackwardDataBackward0",
        "native_layer_norm_forward": "NativeLayerNormBackward0"}
