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
                              "bindings.cpp", "_C.pyi", "_formula_facts.py", "kernel_decls.h",
                              "kernel_bindings.cpp"])
    capsys.readouterr()
    assert main(argv) == 0
    assert "wrote" not in capsys.readouterr().err


def test_show_puts_python_beside_cpp(capsys):
    assert main(["show", "exp", *FIXTURES, "--root", ROOT, "--width", "160"]) == 0
    text = capsys.readouterr().out
    assert "def exp(x: Tensor) -> Tensor:" in text
    assert "struct ExpBackward0 final : Node {" in text
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


USER_MODULE = """\
from transgrad.lang import Tensor, formula, kernel, ops


@formula
def scaled_sin(x: Tensor, k: float = 2.0) -> Tensor:
    result = kernel.sin(x) * k
    def backward(grad):
        return grad * ops.cos(x) * k
    return result, backward
"""


def test_show_finds_the_shipped_formulas_from_any_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # no ./formulas here
    assert main(["show", "sin", "--stacked"]) == 0
    text = capsys.readouterr().out
    assert "def sin(x: Tensor) -> Tensor:" in text and "struct SinBackward0 final : Node {" in text


def test_show_and_emit_a_users_module_in_the_context_of_the_shipped_formulas(tmp_path, capsys):
    user = tmp_path / "mine.py"
    user.write_text(USER_MODULE)  # `*` and ops.cos are shipped formulas
    assert main(["show", "scaled_sin", str(user), "--root", str(tmp_path), "--stacked"]) == 0
    assert "struct ScaledSinBackward0 final : Node {" in capsys.readouterr().out
    out = tmp_path / "gen"
    assert main(["emit", str(user), "--out", str(out), "--root", str(tmp_path)]) == 0
    # only the user's module is emitted; ops.h declares the shipped formulas it calls too
    assert sorted(os.listdir(out)) == ["_C.pyi", "_formula_facts.py", "bindings.cpp",
                                       "kernel_bindings.cpp", "kernel_decls.h", "mine.cpp",
                                       "mine.h", "ops.h"]
    assert '#include "unary.h"' in (out / "ops.h").read_text()
    facts = (out / "_formula_facts.py").read_text()
    assert "'scaled_sin': ('unsafe'" in facts and "'sin'" not in facts


def test_the_cli_names_itself_as_invoked():
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    r = subprocess.run([sys.executable, "-m", "translator", "--help"], cwd=ROOT, env=env,
                       capture_output=True, text=True, check=False)
    assert r.stdout.startswith("usage: python -m translator ")
    from translator.cli import build_parser

    assert build_parser().prog == "python -m translator"  # installed: transgrad.translator
