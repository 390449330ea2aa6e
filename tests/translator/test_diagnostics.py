"""Rendering of diagnostics: compiler-style location, source line, caret, hint; ordering."""

import pytest

from translator.diagnostic_codes import CODES
from translator.diagnostics import Diagnostic, TranslatorError, make_diagnostic, render_all
from translator.model import Loc


def test_render_compiler_style():
    d = Diagnostic(
        "T201",
        Loc("formulas/unary.py", 21, 16),
        "captures `t`",
        "recompute it",
        "        return grad * t",
        width=1,
    )
    assert d.render() == (
        "formulas/unary.py:21:16: error[T201]: captures `t`\n"
        "        return grad * t\n"
        "               ^\n"
        "hint: recompute it"
    )


def test_caret_width_tabs_and_notes():
    d = Diagnostic(
        "T105", Loc("m.py", 2, 3), "msg", "fix", "\tx = abc", width=3, notes=("bound here",)
    )
    lines = d.render().splitlines()
    assert lines[2] == "\t ^~~" and lines[3] == "note: bound here"


def test_make_diagnostic_takes_the_source_line_and_checks_the_code():
    src = "a = 1\nb = oops\n"
    d = make_diagnostic("T105", Loc("m.py", 2, 5), "unknown name", "define it", src, width=4)
    assert d.source_line == "b = oops" and d.render().splitlines()[2] == "    ^~~~"
    with pytest.raises(ValueError):
        make_diagnostic("T999", Loc("m.py", 1, 1), "", "", src)


def test_translator_error_sorts_and_renders_all():
    a = Diagnostic("T201", Loc("m.py", 9, 1), "second", "h")
    b = Diagnostic("T105", Loc("m.py", 3, 7), "first", "h")
    err = TranslatorError([a, b, a])
    assert [d.message for d in err.diagnostics] == ["first", "second"]  # sorted, deduplicated
    text = str(err)
    assert text.index("first") < text.index("second") and text.rstrip().endswith("2 errors")
    assert render_all([]) == ""


def test_codes_are_documented_in_the_registry():
    from translator.diagnostic_codes import REGISTRY

    assert len(CODES) >= 15
    assert all(REGISTRY[code].meaning for code in CODES)  # docs/DIAGNOSTICS.md renders them


def test_message_table_codes_and_fields():
    import re
    import string

    from translator.messages import MESSAGES, format_message

    for key, (code, message, hint) in MESSAGES.items():
        assert code in CODES, key
        fields = {
            f for text in (message, hint) for _, f, _, _ in string.Formatter().parse(text) if f
        }
        got = format_message(key, **{f: f"<{f}>" for f in fields})
        assert got[0] == code and "{" not in got[1] + got[2], key
        assert not re.search(r"\s$", got[1]), key
