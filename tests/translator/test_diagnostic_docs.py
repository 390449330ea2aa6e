"""docs/DIAGNOSTICS.md is generated from the one registry of codes
(``translator.diagnostic_codes.REGISTRY``); a stale page fails with its diff."""

import difflib
import os
from pathlib import Path

from translator.diagnostic_codes import CODES, REGISTRY, render_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "DIAGNOSTICS.md"
UPDATE_COMMAND = "UPDATE_SNAPSHOTS=1 PYTHONPATH=python:. python -m pytest tests/translator -q"


def test_docs_table_is_generated_from_the_registry():
    text = render_table()
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        DOC.write_text(text)
    current = DOC.read_text() if DOC.exists() else ""
    diff = "".join(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                        str(DOC), "generated"))
    assert not diff, f"{DOC.name} is stale:\n{diff}\nregenerate it with:\n  {UPDATE_COMMAND}"


def test_every_code_is_in_the_table_once():
    rows = [line for line in render_table().splitlines() if line.startswith("| T")]
    assert [r.split("|")[1].strip() for r in rows] == list(REGISTRY) == list(CODES)
    assert all(c.title and c.meaning for c in REGISTRY.values())
