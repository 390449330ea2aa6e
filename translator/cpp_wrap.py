"""Emit, line wrapping: generated C++ text -> lines within ``WIDTH`` columns (used by
``emit_cpp`` and ``emit_bindings``).

Long statements break at a top-level ``?:``, else after the commas of a call with arguments
aligned after its parenthesis (as clang-format's bin packing does), else at a string `` + ``;
breaking there never changes the C++. Comment and preprocessor lines are left as they are.
"""

from __future__ import annotations

import itertools

WIDTH = 100


def wrap_text(text: str) -> str:
    """Every line within ``WIDTH`` columns where a comma or ``?:`` allows a break."""
    return "\n".join(out for line in text.split("\n") for out in wrap_line(line))


def wrap_line(line: str, width: int = WIDTH) -> list[str]:
    stripped = line.lstrip()
    if len(line) <= width or stripped.startswith(("//", "#")):
        return [line]
    return _wrap(line, len(line) - len(stripped), width, len(line) - len(stripped))


def _scan(text: str, start: int):
    """(index, char, depth) of the characters of ``text`` from ``start``, outside literals."""
    depth, quote = 0, ""
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            quote = "" if ch == quote and text[i - 1] != "\\" else quote
            continue
        if ch in "\"'":
            quote = ch
            continue
        if ch in ")}]":
            depth -= 1
        yield i, ch, depth
        if ch in "({[":
            depth += 1


def _wrap(text: str, indent: int, width: int, start: int) -> list[str]:
    """Break ``text`` after ``start``: first at a top-level ``?:``, else after the commas of the
    first bracket that has several arguments; pieces still too long are broken again."""
    if len(text) <= width:
        return [text]
    marks = [(i, ch) for i, ch, d in _scan(text, start) if d == 0 and ch in "?:" and (
        text[i - 1:i + 2] in (" ? ", " : "))]
    if len(marks) >= 2 and marks[0][1] == "?" and marks[1][1] == ":":
        q, c = marks[0][0], marks[1][0]
        pad = " " * (indent + 4)
        out = _wrap(text[:q].rstrip(), indent, width, start)
        out += _wrap(pad + "? " + text[q + 2:c].strip(), indent + 4, width, indent + 6)
        return out + _wrap(pad + ": " + text[c + 2:].strip(), indent + 4, width, indent + 6)
    commas = [(i, d) for i, ch, d in _scan(text, start) if ch == ","]
    low = min((d for _, d in commas), default=0)
    # a comma that ends the text leaves nothing to break off (cutting there recursed forever)
    cuts = [i for i, d in commas if d == low and text[i + 1:].strip()]
    if low < 0 and cuts:  # the line continues a call opened above: break between its arguments
        return _pack_cuts(text, cuts, indent, width)
    for i, ch, _d in _scan(text, start):
        if ch in "({" and i < width and _matching(text, i) > 0 and len(
                _split_commas(text[i + 1:_matching(text, i)])) > 1:
            return _pack(text, i, indent, width)
    for i, ch, _d in _scan(text, start):  # one long argument: break it after its top-level `+`
        if ch in "({" and i < width and _matching(text, i) > 0 and len(
                _split_plus(text[i + 1:_matching(text, i)])) > 1:
            return _pack(text, i, indent, width, _split_plus, " +")
    return [text]


def _pack(text: str, open_at: int, indent: int, width: int, split=None,
          joint: str = ",") -> list[str]:
    close = _matching(text, open_at)
    args = (split or _split_commas)(text[open_at + 1:close])
    aligned = open_at + 1 <= 2 * width // 5
    col = open_at + 1 if aligned else indent + 4
    head, tail = text[:open_at + 1], text[close:]
    lines: list[str] = [] if aligned else [head]
    cur = head if aligned else " " * col
    for k, arg in enumerate(args):
        piece = arg.strip() + (joint if k < len(args) - 1 else tail)
        sep = "" if cur == head or cur.isspace() else " "
        if len(cur) + len(sep) + len(piece) <= width:
            cur += sep + piece
            continue
        if cur != head and not cur.isspace():
            lines.append(cur)
            cur, sep = " " * col, ""
        sub = _wrap(cur + sep + piece, col, width, len(cur) + len(sep))
        lines += sub[:-1]
        cur = sub[-1]
    return lines + [cur]


def _pack_cuts(text: str, cuts: list[int], indent: int, width: int) -> list[str]:
    """Fill lines with the pieces of ``text`` cut after ``cuts``; continuations indent by 4."""
    bounds = [0] + [c + 1 for c in cuts] + [len(text)]
    pieces = [text[a:b].strip() for a, b in itertools.pairwise(bounds)]
    pad = " " * (indent + 4)
    lines: list[str] = []
    cur = text[:bounds[1]].rstrip()
    for piece in pieces[1:]:
        if len(cur) + 1 + len(piece) <= width:
            cur += " " + piece
            continue
        lines += _wrap(cur, indent if not lines else indent + 4, width,
                       len(pad) if lines else indent)
        cur = pad + piece
    return lines + _wrap(cur, indent + 4 if lines else indent, width, len(pad) if lines else indent)


def _matching(text: str, i: int) -> int:
    depth, quote = 0, ""
    for j in range(i, len(text)):
        ch = text[j]
        if quote:
            quote = "" if ch == quote and text[j - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth == 0:
                return j
    return -1  # closed on a later line


def _split_commas(inner: str) -> list[str]:
    parts, depth, quote, start = [], 0, "", 0
    for j, ch in enumerate(inner):
        if quote:
            quote = "" if ch == quote and inner[j - 1] != "\\" else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "({[<" and not (ch == "<" and j and inner[j - 1] == " "):
            depth += ch != "<" or inner[j - 1].isalnum() or inner[j - 1] == ":"
        elif ch in ")}]>" and not (ch == ">" and j and inner[j - 1] in " -="):
            depth -= ch != ">" or depth > 0
        elif ch == "," and depth == 0:
            parts.append(inner[start:j])
            start = j + 1
    parts.append(inner[start:])
    return parts


def _split_plus(inner: str) -> list[str]:
    """``inner`` cut at its top-level `` + `` (string concatenation in generated messages)."""
    parts, start = [], 0
    for j, ch, d in _scan(inner, 0):
        if d == 0 and ch == "+" and inner[j - 1:j + 2] == " + ":
            parts.append(inner[start:j])
            start = j + 1
    parts.append(inner[start:])
    return parts
