"""The translator's oracle: everything it produces for the code in this repository, on disk.

Stage: a check around the whole translator (issue #10, item 3). Input: the repository (the
shipped formulas, ``formulas/imported``, ``examples/formula_package``, the back-end fixtures and
the accept/reject corpus of tests/translator). Output: a directory holding the generated C++,
bindings, stubs and facts of each set, the capture facts the reference engine reads (outputs,
captures with kind/type/bound_at/metadata), the in-place verdicts, and the diagnostics of every
rejected corpus module. Refactoring the translator must leave this directory byte-identical:

    python tools/translator_oracle.py /tmp/before   # on the old commit
    python tools/translator_oracle.py /tmp/after    # on the new one
    diff -r /tmp/before /tmp/after

Run from the repository root (it imports ``translator`` from the checkout).
"""

from __future__ import annotations

import glob
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
sys.path.insert(1, os.path.join(ROOT, "python"))

from translator.backend import load_modules, translate, write_files  # noqa: E402
from translator.diagnostics import TranslatorError  # noqa: E402
from translator.emit_extension import emit_extension  # noqa: E402
from translator.frontend import load_module  # noqa: E402
from translator.inplace import check_inplace  # noqa: E402


def _facts(modules) -> str:
    """The front end's model as the reference engine reads it, one formula per block."""
    lines = []
    for m in modules:
        for f in m.formulas:
            v = check_inplace(f)
            lines.append(f"{m.path}:{f.loc.line} {f.name} outputs={f.outputs!r}")
            lines.append(f"  inplace={v.kind!r} {v.reason!r}")
            caps = f.backward.captures if f.backward is not None else ()
            for c in caps:
                lines.append(f"  capture {c.name} {c.kind.value} {c.type} at={c.bound_at} "
                             f"metadata_only={c.metadata_only} {c.metadata!r}")
    return "\n".join(lines) + "\n"


def _emit_set(name: str, paths: list[str], out: str, context=()) -> None:
    d = os.path.join(out, name)
    modules = load_modules(paths, ROOT)
    _, files = translate(modules, list(context))
    files["facts.txt"] = _facts(modules)
    write_files(files, d)


def main(out: str) -> int:
    os.chdir(ROOT)
    shipped = sorted(p for p in glob.glob("formulas/*.py") if not p.endswith("__init__.py"))
    _emit_set("shipped", shipped, out)
    context = load_modules(shipped, ROOT)
    _emit_set("imported", sorted(glob.glob("formulas/imported/*.py")), out, context)
    for fx in sorted(glob.glob("tests/translator/backend/fixtures/*.py")):
        _emit_set("fixture_" + os.path.basename(fx)[:-3], [fx], out, context)
    for acc in sorted(glob.glob("tests/translator/corpus/accept/*.py")):
        try:
            _emit_set("accept_" + os.path.basename(acc)[:-3], [acc], out, context)
        except TranslatorError as e:  # record it: a change here is a change too
            write_files({"error.txt": str(e)},
                        os.path.join(out, "accept_" + os.path.basename(acc)[:-3]))
    pkg = sorted(glob.glob("examples/formula_package/src/formula_example/*.py"))
    pkg = [p for p in pkg if not p.endswith("__init__.py")]
    files = emit_extension(pkg, "formula_example", "formula_example", root=ROOT)
    files["facts.txt"] = _facts([load_module(p, ROOT) for p in pkg])
    write_files(files, os.path.join(out, "formula_package"))
    rejected = {}
    for rej in sorted(glob.glob("tests/translator/corpus/reject/*.py")):
        try:
            _, files = translate(load_modules([rej], ROOT), context)
            text = "ACCEPTED\n"
        except TranslatorError as e:
            text = "\n".join(f"{d.loc} {d.code} {d.message}" for d in e.diagnostics) + "\n" + str(e)
        rejected[os.path.basename(rej)[:-3] + ".txt"] = text + "\n"
    write_files(rejected, os.path.join(out, "rejected"))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python tools/translator_oracle.py OUT_DIR", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(main(sys.argv[1]))
