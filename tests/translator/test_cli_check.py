"""``python -m translator check``: exit status 0 when clean, 1 on errors, 2 on misuse."""

import os
import subprocess
import sys
from pathlib import Path

from translator.cli import collect_paths, main

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path(__file__).parent / "corpus"


def run(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "python"), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-m", "translator", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_clean_directory_exits_0():
    r = run("check", str(CORPUS / "accept"))
    assert r.returncode == 0, r.stderr
    assert "0 errors" in r.stderr


def test_rejected_file_exits_1_with_diagnostics_on_stderr():
    r = run("check", str(CORPUS / "reject" / "t201_tensor_intermediate.py"))
    assert r.returncode == 1
    assert "error[T201]" in r.stderr and "hint:" in r.stderr and r.stdout == ""


def test_all_errors_of_all_files_are_reported(capsys):
    status = main(["check", str(CORPUS / "reject")])
    err = capsys.readouterr().err
    assert status == 1
    for path in (CORPUS / "reject").glob("*.py"):
        assert f"error[{path.stem.split('_')[0].upper()}]" in err


def test_misuse_exits_2(capsys):
    assert main(["check", "no/such/file.py"]) == 2
    assert main([]) == 2
    assert "check" in capsys.readouterr().err


def test_module_entry_point_runs():
    r = run("check", "--help")
    assert r.returncode == 0 and "PATH" in r.stdout


def test_collect_paths_skips_init(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "b.py").write_text("")
    (tmp_path / "a.py").write_text("")
    assert [Path(p).name for p in collect_paths([str(tmp_path)])] == ["a.py", "b.py"]


def test_default_and_module_names_mean_shipped_formulas(capsys):
    if not any((ROOT / "formulas").glob("[a-z]*.py")):
        return
    assert main(["check"]) == 0
    name = min(p.stem for p in (ROOT / "formulas").glob("[a-z]*.py"))
    assert main(["check", name]) == 0
    assert "checked 1 module(s)" in capsys.readouterr().err
    formula = next(l[4:].split("(")[0] for l in (ROOT / "formulas" / f"{name}.py").read_text()
                   .splitlines() if l.startswith("def "))  # fmt: skip
    assert main(["check", formula]) == 0
    assert "checked 1 module(s)" in capsys.readouterr().err


def test_summary_counts_only_formulas_without_errors(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "two.py"
    path.write_text(
        "from transgrad.lang import Tensor, formula, kernel, ops\n\n\n"
        "@formula\ndef good(x: Tensor) -> Tensor:\n    return ops.exp(x)\n\n\n"
        "@formula\ndef bad(x: Tensor) -> Tensor:\n    return ops.no_such_op(x)\n"
    )
    assert main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "error[T403]" in err
    assert "checked 1 module(s), 1 clean formula(s): 1 error" in err
