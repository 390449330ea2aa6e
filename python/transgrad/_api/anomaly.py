"""Anomaly mode, both engines: where a node was made, as the text an error message ends with.

Input: the Python stack at the moment a node is made (``capture_frames`` for the reference
engine; the compiled engine walks the frames in C++, csrc/python/anomaly.cpp). Output:
``format_frames(frames)``, the lines of a traceback ("most recent call last"), with each frame's
source line. Frames of transgrad's own Python code at the innermost end (the API method that
called the op, the reference engine's formula runner) are dropped: the last frame shown is the
user's (or a composite formula's) line that made the node. Nothing here runs unless
``detect_anomaly()`` is on.
"""

from __future__ import annotations

import linecache
import os
import sys
from typing import List, Sequence, Tuple

Frame = Tuple[str, int, str]  # (file, line, function), outermost first

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_FORMULAS = _PACKAGE + "formulas" + os.sep


def _internal(path: str) -> bool:
    path = os.path.abspath(path)
    return path.startswith(_PACKAGE) and not path.startswith(_FORMULAS)


def capture_frames() -> List[Frame]:
    """The calling thread's Python stack, outermost first."""
    frames: List[Frame] = []
    f = sys._getframe(1)
    while f is not None:
        frames.append((f.f_code.co_filename, f.f_lineno, f.f_code.co_name))
        f = f.f_back  # type: ignore[assignment]
    frames.reverse()
    return frames


def format_frames(frames: Sequence[Frame]) -> str:
    """A traceback of ``frames`` without transgrad's innermost frames."""
    frames = list(frames)
    while len(frames) > 1 and _internal(frames[-1][0]):
        frames.pop()
    out = []
    for path, line, name in frames:
        out.append(f'  File "{path}", line {line}, in {name}\n')
        src = linecache.getline(path, line).strip()
        if src:
            out.append(f"    {src}\n")
    return "".join(out)
