"""A checked-in generated file is current: compare it with freshly generated text, fail with the
diff and the command that regenerates it (``UPDATE_SNAPSHOTS=1`` writes it instead)."""

import difflib
import os
from pathlib import Path


def check_current(path: Path, text: str, command: str) -> None:
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        path.write_text(text)
    current = path.read_text() if path.exists() else ""
    diff = "".join(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                        str(path), "generated"))
    assert not diff, f"{path.name} is stale:\n{diff}\nregenerate it with:\n  {command}"
