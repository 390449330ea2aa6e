"""Imported formulas against torch's own ATen op (``torch.ops.aten.NAME.OVERLOAD``), the op the
yaml entry is the derivative of: value, VJP and VJP-of-VJP in float64 on the formula's samples,
through the coverage tool's comparison (``transgrad.coverage.compare_calls``).

``compare_module(path, module_name, torch)`` -> {formula: None or what differs}. Used by
tests/translator/test_import_yaml.py (on the excerpt) and runnable on a full import:
``python tests/translator/imported_vs_torch.py build/imported/imported.py``.
"""

from __future__ import annotations

import importlib.util
import re
import sys
import zlib

_ENTRY = re.compile(r"^# derivatives\.yaml: ([\w.]+)\(.*\n(?:@.*\n)+def (\w+)\(", re.MULTILINE)


def load(path: str, module_name: str):
    spec = importlib.util.spec_from_file_location(module_name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def entries(path: str) -> dict[str, str]:
    """formula name -> yaml entry, from the comment each imported formula carries."""
    with open(path, encoding="utf-8") as f:
        return {m.group(2): m.group(1) for m in _ENTRY.finditer(f.read())}


def compare(formula: str, entry: str, ref, torch, namespace: str) -> str | None:
    from transgrad.coverage import _arrays, _rng, compare_calls
    from transgrad.lang import formulas_in

    fdef = formulas_in(namespace)[formula]
    base, _, overload = entry.partition(".")
    aten = getattr(getattr(torch.ops.aten, base), overload or "default")
    for i, c in enumerate(fdef.samples):
        args, kwargs = _arrays(c, _rng(formula, i))
        seed = zlib.crc32(f"{formula}/{i}".encode())
        diff = compare_calls(ref, fdef, torch, aten, args, kwargs, seed)
        if diff is not None:
            return f"sample {i}: {diff}"
    return None


def compare_module(path: str, module_name: str, torch) -> dict[str, str | None]:
    import transgrad.reference as ref

    load(path, module_name)
    return {formula: compare(formula, entry, ref, torch, module_name)
            for formula, entry in entries(path).items()}


if __name__ == "__main__":
    import torch

    results = compare_module(sys.argv[1], "imported_full", torch)
    for name, diff in results.items():
        if diff:
            print(f"{name}: {diff}")
    ok = sum(d is None for d in results.values())
    print(f"{ok} of {len(results)} imported formulas match torch (value, VJP, VJP-of-VJP)")
