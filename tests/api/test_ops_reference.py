"""docs/OPS.md is generated from the shipped formulas (``transgrad.ops_reference``); a stale page
fails with its diff. And a formula's docstring reaches ``help()`` of its op on both engines."""

import inspect
import pydoc
from pathlib import Path

import pytest
from generated_page import check_current
from transgrad import lang

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "OPS.md"
API_HEADING = "# Public functions defined in Python"


def test_ops_page_is_current():
    pytest.importorskip("libcst")  # the in-place verdicts come from the translator
    from transgrad.ops_reference import COMMAND, render_ops_reference

    check_current(DOC, render_ops_reference(), COMMAND)


def test_every_shipped_formula_has_one_row_citing_its_def_line():
    from transgrad.ops_reference import first_paragraph, location

    lang.load_builtin_formulas()
    formulas_part = DOC.read_text().split(API_HEADING)[0]
    rows = [r for r in formulas_part.splitlines() if r.startswith("| `")]
    by_name = {r.split("`")[1]: r for r in rows}
    assert len(rows) == len(by_name) == len(lang.REGISTRY)
    for name, fdef in lang.REGISTRY.items():
        row = by_name[name]
        where = location(fdef)
        path, line = where.split(":")
        assert f"[{where}]" in row, name
        assert (ROOT / path).read_text().splitlines()[int(line) - 1].startswith(f"def {name}(")
        assert first_paragraph(fdef.fn.__doc__).replace("|", "\\|") in row, name


def test_every_public_function_of_the_api_has_a_row_citing_its_def_line():
    # the composites written in python/transgrad/_api/ (issue 15): each public op can be found
    from transgrad.ops_reference import api_functions, api_location

    pytest.importorskip("libcst")
    api_part = DOC.read_text().split(API_HEADING)[1]
    rows = [r for r in api_part.splitlines() if r.startswith("| `")]
    found = api_functions()
    assert len(rows) == len(found)
    for fn, names in found.items():
        where = api_location(fn)
        row = next(r for r in rows if f"[{where}]" in r)
        assert row.startswith(f"| `{fn.__name__}` | {', '.join(names)} |")
        path, line = where.split(":")
        assert (ROOT / path).read_text().splitlines()[int(line) - 1].startswith(
            f"def {fn.__name__}("), where
    cited = {n for names in found.values() for n in names}
    for name in ("tg.fmax", "tg.copysign", "tg.sinc", "tg.mode", "tg.scatter_reduce",
                 "linalg.lu_factor", "linalg.cross", "special.i0e"):
        assert name in cited, name


def test_signature_and_first_paragraph():
    from transgrad.ops_reference import first_paragraph, signature

    lang.load_builtin_formulas()
    assert signature(lang.REGISTRY["sum"]) == (
        "sum(x: Tensor, dims: Optional[Dims] = None, keepdim: bool = False) -> Tensor")
    assert signature(lang.REGISTRY["sort"]).endswith("-> (Tensor, Tensor)")
    assert first_paragraph("  One\n  two.\n\n  Three.") == "One two."
    assert first_paragraph(None) == ""


def _documented():
    lang.load_builtin_formulas()
    return sorted(n for n, d in lang.REGISTRY.items() if d.fn.__doc__)


def test_help_shows_the_formula_docstring(engine):
    names = _documented()
    assert len(names) > 50
    for name in names:
        doc = inspect.cleandoc(lang.REGISTRY[name].fn.__doc__)
        text = pydoc.render_doc(getattr(engine.ops, name), renderer=pydoc.plaintext)
        assert " ".join(doc.split()) in " ".join(text.split()), name
        assert f"{name}(" in text, name
