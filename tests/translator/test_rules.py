"""The fence and the capture rule on small snippets (before: source, after: codes/captures),
and a property test of tensor-ness inference through arbitrary arithmetic."""

import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from translator.frontend import analyse_module
from translator.model import CaptureKind
from translator.source.parse import parse_source

HEADER = (
    "import math\nfrom transgrad.lang import (Dims, Optional, Sequence, Shape, Tensor, "
    "formula, helper, kernel, ops)\n\n"
)


def analyse_diags(body: str):
    mod = parse_source(HEADER + textwrap.dedent(body), "formulas/snippet.py")
    return analyse_module(mod)


def analyse(body: str):
    mod, diags = analyse_diags(body)
    return mod, sorted(d.code for d in diags)


def single(
    forward: str,
    backward: str,
    params: str = "x: Tensor",
    outputs: str = "result",
    decorator: str = "@formula",
):
    """A one-output formula with the given forward lines and backward return expression."""
    fwd = textwrap.indent(textwrap.dedent(forward).strip(), "    ")
    return f"""
{decorator}
def f({params}) -> Tensor:
{fwd}

    def backward(grad):
        return {backward}

    return {outputs}, backward
"""


CASES = [
    # (id, source, expected codes)
    ("ops-intermediate", single("t = ops.exp(x)\nresult = kernel.exp(x)", "grad * t"), ["T201"]),
    ("tensor-arith", single("t = x * 2.0\nresult = kernel.exp(x)", "grad * t"), ["T201"]),
    ("alias-of-input", single("y = x\nresult = kernel.exp(x)", "grad * y"), ["T201"]),
    (
        "tuple-of-tensors",
        single("p = (x, kernel.exp(x))\nresult = kernel.exp(x)", "grad * p[1]"),
        ["T201"],
    ),
    (
        "tensor-on-one-branch",
        single(
            "if True:\n    s = kernel.exp(x)\nelse:\n    s = 2.0\nresult = kernel.exp(x)",
            "grad * s",
        ),
        ["T201"],
    ),
    (
        "branch-bound-scalar",
        single(
            "if dim > 0:\n    s = 2.0\nelse:\n    s = 3.0\nresult = kernel.exp(x)",
            "grad * s",
            params="x: Tensor, dim: int",
        ),
        [],
    ),
    (
        "loop-bound-twice",
        single("s = 0\nfor i in range(3):\n    s = s + i\nresult = kernel.exp(x)", "grad * s"),
        ["T203"],
    ),
    ("augassign-twice", single("n = x.ndim\nn += 1\nresult = kernel.exp(x)", "grad * n"), ["T203"]),
    (
        "item-through-arith",
        single(
            "s = int(kernel.item(kernel.amax(x, (0,), False)) * 2) + 1\nresult = kernel.exp(x)",
            "grad * s",
        ),
        ["T205"],
    ),
    (
        "item-through-condition",
        single(
            "s = 1.0 if kernel.item(kernel.amax(x, (0,), False)) > 0 else 2.0\n"
            "result = kernel.exp(x)",
            "grad * s",
        ),
        ["T205"],
    ),
    (
        "item-through-control-flow",
        single(
            "if kernel.item(kernel.amax(x, (0,), False)) > 0:\n    s = 1.0\nelse:\n    s = 2.0\n"
            "result = kernel.exp(x)",
            "grad * s",
        ),
        ["T205"],
    ),
    (
        "item-in-forward-only-is-fine",
        single(
            "s = kernel.item(kernel.amax(x, (0,), False))\n"
            "result = kernel.mul(x, kernel.scalar_like(x, s))",
            "grad * 2.0",
        ),
        [],
    ),
    (
        "rebound-nontensor-param",
        single(
            "dim = dim % x.ndim\nresult = kernel.softmax(x, dim)",
            "grad * dim",
            params="x: Tensor, dim: int",
        ),
        ["T202"],
    ),
    (
        "rebound-param-not-captured-is-fine",
        single(
            "dim = dim % x.ndim\nresult = kernel.softmax(x, dim)",
            "grad * 2.0",
            params="x: Tensor, dim: int",
        ),
        [],
    ),
    (
        "capture-in-backward-comprehension",
        single("t = kernel.exp(x)\nresult = kernel.exp(x)", "[grad * t for _ in range(1)][0]"),
        ["T201"],
    ),
    (
        "capture-through-list-comprehension-value",
        single("ts = [kernel.exp(x)]\nresult = kernel.exp(x)", "grad * ts[0]"),
        ["T209"],
    ),
    (
        "tuple-of-tensor-genexp",
        single(
            "ts = tuple(ops.exp(t) for t in xs)\nresult = kernel.cat(xs, 0)",
            "[grad, ts[0]]",
            params="xs: Sequence[Tensor]",
        ),
        ["T201"],
    ),
    (
        "sequence-loop-variable",
        single(
            "for t in xs:\n    pass\nresult = kernel.cat(xs, 0)",
            "[grad * t]",
            params="xs: Sequence[Tensor]",
        ),
        ["T212"],
    ),
    ("nested-def", single("def g(v):\n    return v\nresult = kernel.exp(x)", "grad"), ["T208"]),
    ("lambda-in-backward", single("result = kernel.exp(x)", "(lambda: grad * result)()"), ["T208"]),
    ("global", single("global G\nresult = kernel.exp(x)", "grad"), ["T207"]),
    ("kernel-in-backward", single("result = kernel.exp(x)", "kernel.neg(grad)"), ["T304"]),
    (
        "once-differentiable-allows-kernels",
        single(
            "result = kernel.exp(x)",
            "kernel.neg(grad)",
            decorator="@formula(once_differentiable=True)",
        ),
        [],
    ),
    ("tensor-as-shape", single("result = kernel.reshape(x, x)", "grad"), ["T305"]),
    ("tensor-truth-in-ifexp", single("result = kernel.exp(x) if x else x", "grad"), ["T307"]),
    (
        "is-none-on-tensor-is-fine",
        single(
            "result = kernel.exp(x) if w is None else kernel.mul(x, w)",
            "grad",
            params="x: Tensor, w: Optional[Tensor] = None",
        ),
        [],
    ),
    ("item-assign", single("s = (1, 2)\ns[0] = 3\nresult = kernel.exp(x)", "grad"), ["T103"]),
    ("method-on-list", single("s = []\ns.append(x)\nresult = kernel.exp(x)", "grad"), ["T103"]),
    ("method-on-tuple", single("s = x.shape.index(2)\nresult = kernel.exp(x)", "grad"), ["T308"]),
    (
        "formula-called-directly",
        """
@formula
def g(x: Tensor) -> Tensor:
    return ops.exp(x)

@formula
def h(x: Tensor) -> Tensor:
    return g(x)
""",
        ["T105"],
    ),
    (
        "helper-with-kernel-in-backward",
        """
@helper
def twice(t: Tensor) -> Tensor:
    return kernel.add(t, t)
"""
        + single("result = kernel.exp(x)", "twice(grad)"),
        ["T304"],
    ),
    (
        "helper-reading-data",
        """
@helper
def peak(t: Tensor) -> float:
    return kernel.item(kernel.amax(t, (0,), False))
"""
        + single("s = peak(x)\nresult = kernel.exp(x)", "grad * s"),
        ["T205"],
    ),
    (
        "hidden-outputs-need-grads",
        """
@formula(hidden_outputs=("e",))
def f(x: Tensor) -> tuple[Tensor, Tensor]:
    e = kernel.exp(x)
    result = kernel.mul(e, e)

    def backward(grad):
        return grad * 2.0 * e * e

    return (result, e), backward
""",
        ["T109"],
    ),
    (
        "hidden-output-not-returned",
        """
@formula(hidden_outputs=("e",))
def f(x: Tensor) -> Tensor:
    e = kernel.exp(x)
    result = kernel.mul(e, e)

    def backward(grad, grad_e):
        return grad * 2.0 * e * e

    return result, backward
""",
        ["T110", "T201"],
    ),
    (
        "backward-in-branch",
        """
@formula
def f(x: Tensor) -> Tensor:
    result = kernel.exp(x)
    if True:
        def backward(grad):
            return grad
    return result, backward
""",
        ["T108"],
    ),
    (
        "return-in-forward",
        """
@formula
def f(x: Tensor, flag: bool) -> Tensor:
    result = kernel.exp(x)
    if flag:
        return result

    def backward(grad):
        return grad

    return result, backward
""",
        ["T107"],
    ),
    (
        "formula-named-like-a-builtin",
        """
@formula
def abs(x: Tensor) -> Tensor:
    return ops.abs(x)

@helper
def wrap(d: int, n: int) -> int:
    return abs(d) % n
""",
        ["T105"],
    ),
    (
        "param-shadowing-a-builtin-is-fine",
        single("result = kernel.clamp(x, min, None)", "grad", params="x: Tensor, min: float"),
        [],
    ),
    (
        "local-shadowing-a-helper",
        """
@helper
def twice(n: int) -> int:
    return 2 * n
"""
        + single("twice = 3\nresult = kernel.exp(x)", "grad"),
        ["T113"],
    ),
    ("unsupported-type", "@formula\ndef f(x: Tensor, n: str) -> Tensor:\n    return x\n", ["T306"]),
    (
        "bad-option-value",
        "@formula(once_differentiable=1)\ndef f(x: Tensor) -> Tensor:\n    return x\n",
        ["T106"],
    ),
]


@pytest.mark.parametrize("source, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rule(source, expected):
    _, codes = analyse(source)
    assert codes == expected


def test_metadata_of_an_intermediate_suggests_saving_the_metadata():
    _, diags = analyse_diags(single("t = kernel.exp(x)\nresult = kernel.sum(t, (0,), False)",
                                    "ops.expand(grad, t.shape)"))  # fmt: skip
    (d,) = diags
    assert d.code == "T201" and "`t_shape = t.shape`" in d.hint


def test_capture_kinds_and_metadata():
    mod, codes = analyse(
        single(
            "n = x.shape[0] * 2 + len(x.shape)\nresult = kernel.exp(x)",
            "grad * n * other + ops.reshape(grad, x.shape) + ops.cast(result, result.dtype)"
            " + scale",
            params="x: Tensor, other: Tensor, scale: float",
        )
    )
    assert codes == []
    caps = {c.name: c for c in mod.formulas[0].backward.captures}
    assert caps["n"].kind is CaptureKind.ATTRIBUTE and caps["n"].type == "int"
    assert caps["n"].bound_at.line == 7
    assert caps["other"].kind is CaptureKind.INPUT and not caps["other"].metadata_only
    assert caps["x"].kind is CaptureKind.INPUT and caps["x"].metadata == ("shape",)
    assert caps["result"].kind is CaptureKind.OUTPUT and not caps["result"].metadata_only
    assert caps["scale"].kind is CaptureKind.ATTRIBUTE and caps["scale"].type == "float"
    # in order of first use in backward
    assert [c.name for c in mod.formulas[0].backward.captures] == [
        "n",
        "other",
        "x",
        "result",
        "scale",
    ]


# Property: the capture rule sees through any arithmetic. Built from metadata only, a captured
# value is an attribute; with a tensor anywhere in it, T201; with kernel.item (and no tensor), T205.
META = ["x.ndim", "x.shape[0]", "len(x.shape)", "x.numel", "dim", "2", "3.5", "math.pi"]
TENSOR = ["kernel.exp(x)", "ops.exp(x)", "x", "(x * 2.0)", "kernel.sum(x, (0,), False)"]
ITEM = ["kernel.item(kernel.amax(x, (0,), False))"]
COMBINE = [
    "({} + {})",
    "({} * {})",
    "({} - {})",
    "max({}, {})",
    "min({}, {})",
    "({} if dim > 0 else {})",
]


def expressions():
    leaf = st.sampled_from(
        [(m, 0) for m in META] + [(t, 1) for t in TENSOR] + [(i, 2) for i in ITEM]
    )

    def extend(children):
        binary = st.tuples(st.sampled_from(COMBINE), children, children).map(
            lambda t: (t[0].format(t[1][0], t[2][0]), t[1][1] | t[2][1])
        )
        unary = children.map(lambda c: (f"abs({c[0]})", c[1])) | children.map(
            lambda c: (f"(-{c[0]})", c[1])
        )
        return binary | unary

    return st.recursive(leaf, extend, max_leaves=6)


@settings(max_examples=60, deadline=None)
@given(expressions())
def test_capture_rule_sees_through_arithmetic(expr):
    text, taint = expr
    mod, codes = analyse(
        single(f"s = {text}\nresult = kernel.exp(x)", "grad * s", params="x: Tensor, dim: int")
    )
    if taint & 1:  # a tensor, even with data read out of another one
        assert codes == ["T201"], text
    elif taint & 2:
        assert codes == ["T205"], text
    else:
        assert codes == [], text
        (cap,) = [c for c in mod.formulas[0].backward.captures if c.name == "s"]
        assert cap.kind is CaptureKind.ATTRIBUTE
