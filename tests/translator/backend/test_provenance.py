"""Provenance on the IR (Note [Provenance] in translator/provenance.py): a scalar read out of
tensor data (ITEM) and a list (MUTABLE) are told apart on the IR, where the capture rule reads
them; and lowering types what it refuses (Note [Typing is total] in translator/source/lower.py)."""

import textwrap

from translator import ir
from translator.diagnostics import TranslatorError
from translator.frontend import find_root
from translator.provenance import forward_provenance, forward_types
from translator.source.lower import lower_module, lower_program, refusals
from translator.source.lower_env import Signatures
from translator.source.parse import parse_module
from translator.source.scopes import capture_facts

ITEM, MUTABLE = ir.ITEM, ir.MUTABLE

SOURCE = """
from transgrad.lang import Tensor, formula, helper, kernel


@helper
def peak_of(x: Tensor) -> float:
    return kernel.item(kernel.amax(x, (0,), False))


@helper
def twice(x: Tensor) -> float:
    return peak_of(x) * 2.0


@formula
def f(x: Tensor, k: int) -> Tensor:
    a = kernel.item(kernel.amax(x, (0,), False))
    b = a + 1.0
    c = x.ndim * 1.0
    d = [1, 2]
    e = tuple(d)
    g = [i for i in range(k)]
    h = d[0]
    m = twice(x)
    if b > 0:
        n = 1
    else:
        n = 2
    p = 0
    for j in range(k):
        p = p + j
    q = b if k > 0 else 0.0
    r = -a
    s = len(x.shape)
    u, v = a, k
    result = kernel.mul(x, x)

    def backward(grad):
        return grad

    return result, backward
"""

EXPECTED = {"a": ITEM, "b": ITEM, "c": 0, "d": MUTABLE, "e": 0, "g": MUTABLE, "h": 0,
            "m": ITEM, "n": ITEM, "p": 0, "j": 0, "q": ITEM, "r": ITEM, "s": 0, "u": ITEM,
            "v": 0}


def test_provenance_on_the_ir(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "prov.py"
    path.write_text(textwrap.dedent(SOURCE))
    mod = parse_module(str(path), find_root(str(path)))
    (lowered,), diags = lower_program([mod])
    assert diags == [] and refusals(lowered) == []
    (fn,) = lowered.functions
    flags = forward_provenance(lowered, fn)
    ours = {n: flags[n] & (ITEM | MUTABLE) for n in EXPECTED}
    assert ours == EXPECTED
    # the flags sit on the expressions too, and are no part of their value
    d = next(s for s in fn.body if isinstance(s, ir.Assign) and s.targets == ("d",))
    assert isinstance(d.value, ir.MakeTuple) and d.value.prov == MUTABLE
    assert d.value == ir.MakeTuple(d.value.loc, d.value.type, d.value.elems)


def _every_module():
    """Every shipped, imported, fixture and corpus module (rejected ones parsed, not fenced),
    each with its IR lowered alone against the shipped signatures (Note [Signatures as
    data])."""
    import glob
    import os

    from translator.backend import load_modules

    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

    def files(pattern):
        return sorted(p for p in glob.glob(os.path.join(root, pattern))
                      if not p.endswith("__init__.py"))

    shipped = load_modules(files("formulas/*.py"), root)
    modules = list(shipped)
    for p in (files("formulas/imported/*.py") + files("tests/translator/backend/fixtures/*.py")
              + files("tests/translator/corpus/accept/*.py")
              + files("tests/translator/corpus/reject/*.py")):
        try:
            modules.append(parse_module(p, root))
        except TranslatorError:  # not Python (T100)
            pass
    for mod in modules:
        yield mod, lower_module(mod, Signatures.of([*(m for m in shipped if m is not mod), mod]))


def test_a_refused_statement_keeps_its_values_type_and_provenance(tmp_path):
    # ``e = e2 = kernel.exp(x)`` is refused (T401: chained assignment), but the capture rule
    # still judges ``e`` (T201 in the front end): the refusal keeps the value lowering knew
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "chained.py"
    path.write_text(textwrap.dedent("""
        from transgrad.lang import Tensor, formula, kernel


        @formula
        def f(x: Tensor) -> Tensor:
            e = e2 = kernel.exp(x)
            a = b = kernel.item(kernel.amax(x, (0,), False))
            d = [1, 2]
            p, q = d
            result = kernel.mul(x, x)

            def backward(grad):
                return grad

            return result, backward
    """))
    mod = parse_module(str(path), find_root(str(path)))
    low = lower_module(mod, Signatures.of([mod]))
    assert [d.code for d in refusals(low)] == ["T401", "T401", "T402"]
    (fn,) = low.functions
    chained, item, unpack = [s for s in fn.body if isinstance(s, ir.Refused)]
    assert chained.assigns == ("e", "e2") and chained.value.type == ir.TENSOR
    assert item.value.type == ir.FLOAT and item.value.prov & ITEM
    assert unpack.value is not None and unpack.assigns == ("p", "q")
    flags = forward_provenance(low, fn)
    assert flags["a"] & ITEM and flags["b"] & ITEM and not flags["e"] & (ITEM | MUTABLE)


# The names whose binding statements lowering left untyped (Note [Typing is total] in
# lower.py): each value is an error in Python too (an unknown kernel, a builtin outside the
# subset, a shadowed ``ops``, a lambda), in a module the fence rejects.
_NO_IR_VALUE = {
    ("t112_unsupported_builtin.py", "power_of_two", "exponent"),
    ("t113_shadowed_name.py", "exp", "ops"),
    ("t208_lambda.py", "double_exp", "result"),
    ("t301_unknown_kernel.py", "exp10", "result"),
}


def test_every_captured_name_has_an_ir_type():
    # the capture rule reads a captured local's type and provenance off the IR: over every
    # shipped, imported, fixture and corpus formula (a function lowering refused as a whole:
    # what was lowered of it), only a value that is a Python error too has no type
    import os

    checked, missing = 0, set()
    for mod, low in _every_module():
        lowered = {f.name: f for f in low.functions}
        refused = {r.loc.line: r for r in low.refused}
        for f in mod.formulas:
            if f.backward is None or not f.outputs:
                continue
            fn = lowered.get(f.name) or refused[f.loc.line]
            facts = capture_facts(mod, f)
            types = forward_types(fn)
            params = {p.name for p in f.params}
            for n in facts.reads:
                if n in params or n not in facts.bindings:
                    continue
                checked += 1
                if n not in types:
                    missing.add((os.path.basename(mod.path), f.name, n))
    assert missing == _NO_IR_VALUE
    assert checked >= 150, checked


TYPING_SOURCE = """
from transgrad.lang import Sequence, Tensor, formula, kernel, ops


@formula
def f(x: Tensor, xs: Sequence[Tensor], k: int) -> Tensor:
    a = x[0]
    b = x[0] * 2.0
    c = len(x)
    d = min(x)
    e = ops.mul(x, x, 3)
    g = x // 2
    h = tuple(x)
    m = sum(xs)
    n = -x[1:]
    p = len(x) + kernel.item(x)
    q = a * 2.0
    result = kernel.mul(x, x)

    def backward(grad):
        return grad * a * b * c * d * e * g * m * n * p * q, None

    return result, backward
"""


def test_lowering_types_what_it_refuses_to_emit(tmp_path):
    # Note [Typing is total]: each value below is one the fence accepts and C++ cannot compute;
    # its statement is refused with the diagnostic it always had, and its names still get
    # Python's type (and their provenance), which the capture rule reads
    from translator.shipped import shipped_signatures
    from translator.source.fence import check_fence

    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "typing.py"
    path.write_text(textwrap.dedent(TYPING_SOURCE))
    mod = parse_module(str(path), find_root(str(path)))
    types: dict = {}
    low = lower_module(mod, shipped_signatures().merged([mod]), types)
    assert check_fence(mod, types) == []
    assert [(d.code, d.loc.line) for d in refusals(low)] == [
        ("T401", 7), ("T401", 8), ("T402", 9), ("T402", 10), ("T404", 11), ("T401", 12),
        ("T402", 13), ("T402", 14), ("T401", 15), ("T402", 16)]
    (fn,) = low.functions
    types = {n: str(t) for n, t in forward_types(fn).items()}
    assert types == {"a": "Tensor", "b": "Tensor", "c": "int", "d": "Tensor", "e": "Tensor",
                     "g": "Tensor", "h": "TensorList", "m": "Tensor", "n": "Tensor",
                     "p": "float", "q": "Tensor", "result": "Tensor"}
    # ``len(x)`` is refused first, yet ``kernel.item`` further on still marks ``p`` ITEM
    assert forward_provenance(low, fn)["p"] & ITEM
    # ``q`` reads ``a``, whose statement was refused: silently (no second diagnostic), typed
    assert types["q"] == "Tensor" and not any(d.loc.line == 17 for d in refusals(low))
