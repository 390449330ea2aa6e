"""``_formula_facts.py`` (issue #10): the in-place verdicts shipped as data equal what
``translator/inplace.py`` decides over the shipped formulas, and the file is reproducible."""

import glob
import os

from backend_util import ROOT

from translator.backend import load_modules, translate
from translator.inplace import check_inplace

MODULES = sorted(p for p in glob.glob(os.path.join(ROOT, "formulas", "*.py"))
                 if not p.endswith("__init__.py"))


def test_emitted_inplace_verdicts_equal_check_inplace():
    modules = load_modules(MODULES, ROOT)
    text = translate(modules)[1]["_formula_facts.py"]
    namespace: dict = {}
    exec(compile(text, "_formula_facts.py", "exec"), namespace)  # noqa: S102 - generated here
    expected = {f.name: (v.kind, v.reason) for m in modules for f in m.formulas
                for v in [check_inplace(f)]}
    assert namespace["INPLACE"] == expected
    assert list(namespace["INPLACE"]) == sorted(expected)
    assert {"safe", "copy", "unsafe", "composite"} <= {k for k, _ in expected.values()}


def test_facts_are_byte_reproducible():
    first = translate(load_modules(MODULES, ROOT))[1]["_formula_facts.py"]
    second = translate(load_modules(list(reversed(MODULES)), ROOT))[1]["_formula_facts.py"]
    assert first == second


def test_signatures_read_back_equal_the_shipped_modules():
    # the table lowering reads of the shipped formulas (Note [Signatures as data]) survives the
    # trip through the facts file: each op's parameters, defaults and call type, each helper
    from translator.source.lower_env import Signatures

    modules = load_modules(MODULES, ROOT)
    namespace: dict = {}
    exec(compile(translate(modules)[1]["_formula_facts.py"], "f", "exec"), namespace)  # noqa: S102
    read = Signatures.of_facts(namespace["SIGNATURES"], namespace["HELPERS"])
    assert read == Signatures.of(modules)
    assert read.ops["mul"].returns.kind == "Tensor" and len(read.ops) > 150
    assert any(p.has_default and p.default is not None for o in read.ops.values()
               for p in o.params)


def test_installed_signatures_come_from_the_facts_without_libcst():
    # installed, ``shipped_signatures`` reads the build's table beside the formulas: a user's
    # module is lowered against it with no shipped module parsed (no libcst imported)
    import subprocess
    import sys

    code = ("import sys, transgrad.translator.shipped as s\n"
            "sig = s.shipped_signatures()\n"
            "print(len(sig.ops), sig.ops['mul'].path, 'libcst' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd="/").stdout.split()
    assert out[1:] == ["formulas/binary.py", "False"]
    from translator.source.lower_env import Signatures

    assert int(out[0]) == len(Signatures.of(load_modules(MODULES, ROOT)).ops)


def test_a_module_lowered_alone_resolves_shipped_ops(tmp_path):
    # ``grad * peak`` is ``ops.mul``, a shipped formula: against the module's own table it is
    # T411, against the shipped table (what the reference engine lowers a user's module with)
    # it lowers
    import textwrap

    from translator.shipped import shipped_signatures
    from translator.source.lower import lower_module, refusals
    from translator.source.lower_env import Signatures
    from translator.source.parse import parse_module

    (tmp_path / "pyproject.toml").write_text("")
    path = tmp_path / "user.py"
    path.write_text(textwrap.dedent("""
        from transgrad.lang import Tensor, formula, kernel


        @formula
        def scaled(x: Tensor, k: float) -> Tensor:
            result = kernel.mul(x, x)

            def backward(grad):
                return grad * k

            return result, backward
    """))
    mod = parse_module(str(path), str(tmp_path))
    alone = refusals(lower_module(mod, Signatures.of([mod])))
    assert [d.code for d in alone] == ["T411"]
    assert refusals(lower_module(mod, shipped_signatures().merged([mod]))) == []
