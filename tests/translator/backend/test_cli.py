"""``python -m translator emit`` and ``show``: files written only when changed; a formula's
Python beside its C++; rejections on stderr with exit status 1."""

import os

from backend_util import FIXTURES, ROOT

from translator.cli import main


def test_emit_writes_every_file_then_nothing(tmp_path, capsys):
    out = tmp_path / "gen"
    argv = ["emit", *FIXTURES, "--out", str(out), "--root", ROOT, "-v"]
    assert main(argv) == 0
    written = sorted(os.listdir(out))
    assert written == sorted(["basic.h", "basic.cpp", "multi.h", "multi.cpp", "ops.h",
                              "bindings.cpp", "_C.pyi", "_formula_facts.py"])
    capsys.readouterr()
    assert main(argv) == 0
    assert "wrote" not in capsys.readouterr().err


def test_show_puts_python_beside_cpp(capsys):
    assert main(["show", "exp", *FIXTURES, "--root", ROOT, "--width", "160"]) == 0
    text = capsys.readouterr().out
    assert "def exp(x: Tensor) -> Tensor:" in text
    assert "struct ExpBackward final : Node {" in text
    assert "return {grad * result};" in text


def test_show_unknown_name_is_a_usage_error(capsys):
    assert main(["show", "no_such_formula", *FIXTURES, "--root", ROOT]) == 2


def test_emit_reports_rejections(tmp_path, capsys):
    bad = tmp_path / "bad.py"
    bad.write_text("from transgrad.lang import Tensor, formula, ops\n\n\n"
                   "@formula\ndef f(x: Tensor) -> Tensor:\n    return ops.nope(x)\n")
    assert main(["emit", str(bad), "--out", str(tmp_path / "gen"), "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "bad.py:6:12: error[T403]" in err
    assert not (tmp_path / "gen").exists()
