"""The imported formulas checked in (formulas/imported/torch_derivatives.py, written by
``python -m transgrad.translator import-yaml ... --prefix yaml_ --module torch_derivatives``):
the importer run again over the installed torch's derivatives.yaml for the same entries writes
the same module, but for lines a reviewer marked ``# hand edit``; and every imported formula
matches torch's ATen op of its entry (value, VJP, VJP-of-VJP, float64) on the reference engine.
torch-optional: the table ships inside the torch wheel.

The module lives beside the shipped formulas, not among them (formulas/*.py is what the build
compiles): moving it into formulas/ makes its 137 formulas part of transgrad._C.
"""

import difflib
import os
import re
import sys

import pytest

from translator.import_yaml import default_native, import_entries, load_yaml

pytest.importorskip("yaml")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKED_IN = os.path.join(ROOT, "formulas", "imported", "torch_derivatives.py")
PREFIX = "yaml_"
HAND_EDIT = "# hand edit"
_ENTRY = re.compile(r"^# derivatives\.yaml: ([\w.]+)\(", re.MULTILINE)


def _checked_in() -> str:
    with open(CHECKED_IN, encoding="utf-8") as f:
        return f.read()


def _yaml_path(torch) -> str:
    import torchgen

    return os.path.join(os.path.dirname(torchgen.__file__), "packaged", "autograd",
                        "derivatives.yaml")


def unmarked_differences(checked_in: str, generated: str) -> list[str]:
    """The differences between the two sources that touch a checked-in line without the
    ``# hand edit`` marker (as unified-diff lines)."""
    ours, theirs = checked_in.splitlines(), generated.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, ours, theirs,
                                                        autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag != "insert" and all(HAND_EDIT in line for line in ours[i1:i2]):
            continue
        out += [f"-{line}" for line in ours[i1:i2]] + [f"+{line}" for line in theirs[j1:j2]]
    return out


def test_each_formula_names_its_entry():
    text = _checked_in()
    entries = _ENTRY.findall(text)
    assert len(entries) == len(set(entries)) == 137
    assert len(re.findall(r"^def yaml_\w+\(", text, re.MULTILINE)) == len(entries)


def test_the_importer_writes_the_checked_in_module():
    torch = pytest.importorskip("torch")
    path = _yaml_path(torch)
    entries = _ENTRY.findall(_checked_in())
    source, outcomes = import_entries(load_yaml(path), entries, PREFIX,
                                      native=default_native(path))
    assert {o.entry for o in outcomes if o.formula} == set(entries)
    assert unmarked_differences(_checked_in(), source) == []


def test_a_hand_edit_must_be_marked():
    base = "a = 1\nb = 2\n"
    assert unmarked_differences(base, base) == []
    assert unmarked_differences("a = 1\nb = 3\n", base) == ["-b = 3", "+b = 2"]
    assert unmarked_differences("a = 1\nb = 3  # hand edit: why\n", base) == []


def test_every_imported_formula_matches_torchs_aten_op():
    torch = pytest.importorskip("torch")
    sys.path.insert(0, os.path.dirname(__file__))
    try:
        import imported_vs_torch
    finally:
        sys.path.pop(0)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        results = imported_vs_torch.compare_module(CHECKED_IN, "torch_derivatives", torch)
    finally:
        torch.set_default_dtype(previous)
    assert len(results) == 137
    assert {name: diff for name, diff in results.items() if diff} == {}
