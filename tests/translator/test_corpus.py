"""The rejection corpus (one file per diagnostic code, each with its rendered snapshot) and the
acceptance corpus (valid formulas, with the expected classification of every capture).

Snapshots: ``corpus/reject/<code>_<what>.txt`` holds the full rendered output. After an
intended change of a message, regenerate them with

    UPDATE_SNAPSHOTS=1 PYTHONPATH=python:. python -m pytest tests/translator -q
"""

import difflib
import os
import re
from pathlib import Path

import pytest

from translator.backend import check_modules
from translator.diagnostic_codes import CODES
from translator.diagnostics import TranslatorError, render_all
from translator.frontend import load_module, shipped_modules
from translator.model import CaptureKind

CORPUS = Path(__file__).parent / "corpus"
REJECT = sorted((CORPUS / "reject").glob("*.py"))
ACCEPT = sorted((CORPUS / "accept").glob("*.py"))
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
UPDATE_COMMAND = "UPDATE_SNAPSHOTS=1 PYTHONPATH=python:. python -m pytest tests/translator -q"


def diagnostics_of(path: Path):
    """Front-end diagnostics; when there are none, the back end's (T4xx) in the context of the
    shipped formulas, as `python -m translator check` reports them."""
    try:
        module = load_module(str(path))
    except TranslatorError as e:
        return list(e.diagnostics)
    return check_modules([module], shipped_modules())


@pytest.mark.parametrize("path", REJECT, ids=lambda p: p.stem)
def test_rejected_with_expected_message(path):
    diags = diagnostics_of(path)
    assert diags, f"{path.name} must be rejected, but the translator accepted it"
    code = path.stem.split("_")[0].upper()
    assert {d.code for d in diags} == {code}, render_all(diags)
    text = render_all(diags) + "\n"
    snapshot = path.with_suffix(".txt")
    if UPDATE:
        snapshot.write_text(text)
    expected = snapshot.read_text() if snapshot.exists() else ""
    if text != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(True), text.splitlines(True), str(snapshot), "rendered now"
            )
        )
        pytest.fail(
            f"rendered diagnostics differ from {snapshot.name}:\n{diff}\n"
            f"if the change is intended, update the snapshots with:\n  {UPDATE_COMMAND}",
            pytrace=False,
        )


def test_rejection_corpus_covers_every_code():
    covered = {p.stem.split("_")[0].upper() for p in REJECT}
    # Reachable only in a program without the shipped formulas (an operator whose op is not
    # defined) or after the front end already refused the type (T306): covered by
    # tests/translator/backend/test_lower.py instead.
    unit_tested_only = {"T411", "T413"}
    assert set(CODES) - covered - unit_tested_only == set(), (
        "every diagnostic code needs a corpus/reject file")
    assert len(REJECT) >= 15


def test_capture_messages_name_variable_place_reason_and_fixes():
    for path in REJECT:
        code = path.stem.split("_")[0].upper()
        if code not in ("T201", "T202", "T203", "T204", "T205", "T209", "T211", "T212"):
            continue
        (d,) = diagnostics_of(path)
        var = d.source_line[d.loc.col - 1 : d.loc.col - 1 + d.width]
        assert f"`{var}`" in d.message, d.message
        assert re.search(r"bound on line \d+", d.message), d.message
        assert "backward" in d.message
        assert "recompute" in d.hint or "own name" in d.hint or "new name" in d.hint, d.hint


_CAPTURES = re.compile(r"^# (captures: (.*)|composite)$")


def expected_captures(path: Path):
    """formula def line -> expected {name: (kind, type or None, metadata or None)} / None."""
    lines = path.read_text().splitlines()
    out = {}
    for i, line in enumerate(lines):
        if not line.startswith("def "):
            continue
        j = i - 1
        while j >= 0 and lines[j].startswith("@"):
            j -= 1
        m = _CAPTURES.match(lines[j]) if j >= 0 else None
        if m is None:
            continue
        if m.group(1) == "composite":
            out[i + 1] = None
            continue
        spec = {}
        for item in m.group(2).split() if m.group(2) != "none" else []:
            name, kind, *rest = item.split(":")
            meta = next((r[5:] for r in rest if r.startswith("meta=")), None)
            typ = next((r for r in rest if not r.startswith("meta=")), None)
            spec[name] = (kind, typ, tuple(meta.split(",")) if meta else None)
        out[i + 1] = spec
    return out


@pytest.mark.parametrize("path", ACCEPT, ids=lambda p: p.stem)
def test_accepted_with_expected_captures(path):
    diags = diagnostics_of(path)
    assert not diags, render_all(diags)
    mod = load_module(str(path))
    expected = expected_captures(path)
    assert set(expected) == {f.loc.line for f in mod.formulas}, (
        "every formula of the acceptance corpus needs a `# captures:` (or `# composite`) line"
    )
    for f in mod.formulas:
        spec = expected[f.loc.line]
        if spec is None:
            assert f.composite, f"{f.name} should be a composite"
            continue
        assert not f.composite
        got = {c.name: c for c in f.backward.captures}
        assert set(got) == set(spec), f"{f.name}: captures {sorted(got)}, expected {sorted(spec)}"
        for name, (kind, typ, meta) in spec.items():
            c = got[name]
            assert c.kind is CaptureKind(kind), f"{f.name}.{name}: {c.kind}"
            if typ is not None:
                assert c.type == typ, f"{f.name}.{name}: type {c.type!r}, expected {typ!r}"
            assert c.metadata_only == (meta is not None), f"{f.name}.{name}: metadata_only"
            if meta is not None:
                assert c.metadata == meta, f"{f.name}.{name}: {c.metadata}"


def test_acceptance_corpus_exercises_every_capture_kind():
    kinds = set()
    metadata_only = False
    for path in ACCEPT:
        for f in load_module(str(path)).formulas:
            for c in f.backward.captures if f.backward else ():
                kinds.add(c.kind)
                metadata_only |= c.metadata_only
    assert kinds == set(CaptureKind) and metadata_only
