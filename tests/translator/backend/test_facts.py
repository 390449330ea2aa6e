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
