"""Imported formulas against torch's own ATen op (``torch.ops.aten.NAME.OVERLOAD``), the op the
yaml entry is the derivative of: value, VJP and VJP-of-VJP in float64 on the formula's samples.

``compare_module(path_of_module, module_name, torch)`` -> {formula: None or what differs}. Used by
tests/translator/test_import_yaml.py (on the excerpt) and runnable on a full import:
``python tests/translator/imported_vs_torch.py build/imported/imported.py``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "formulas"))
from formula_samples import make_call

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


def _side(call, lib_grad, to_np, tensor, seed):
    out = call()
    outs = list(out) if isinstance(out, tuple) else [out]
    values = [to_np(o) for o in outs]
    leaves = call.leaves()
    diff = [o for o in outs if o.requires_grad]
    rng = np.random.default_rng(seed)
    cots = [rng.standard_normal(tuple(o.shape)) for o in diff]
    grads = lib_grad(diff, leaves, [tensor(c) for c in cots], True)
    vjp = [None if g is None else to_np(g) for g in grads]
    ws = [rng.standard_normal(tuple(leaf.shape)) for leaf in leaves]
    live = [(g, w) for g, w in zip(grads, ws) if g is not None and g.requires_grad]
    vjp2 = [np.zeros(tuple(leaf.shape)) for leaf in leaves]
    if live:
        total = None
        for g, w in live:
            term = (g * tensor(w)).sum()
            total = term if total is None else total + term
        try:
            gg = lib_grad([total], leaves, None, False)
        except (NotImplementedError, RuntimeError) as e:  # torch's own gap: first order only
            if "not implemented" not in str(e):
                raise
            return values, vjp, None
        vjp2 = [np.zeros(tuple(leaf.shape)) if g is None else to_np(g) for g, leaf in zip(gg, leaves)]
    return values, vjp, vjp2


def _close(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if (x is None) != (y is None):
            return False
        if x is not None and (np.shape(x) != np.shape(y) or not np.allclose(
                np.asarray(x, np.float64), np.asarray(y, np.float64), rtol=1e-7, atol=1e-9)):
            return False
    return True


def compare(formula: str, entry: str, ref, torch) -> str | None:
    from transgrad.lang import REGISTRY

    base, _, overload = entry.partition(".")
    aten = getattr(getattr(torch.ops.aten, base), overload or "default")

    def ref_grad(outs, leaves, cots, create):
        return ref.autograd.grad(outs, leaves, cots, create_graph=create, allow_unused=True)

    def torch_grad(outs, leaves, cots, create):
        return torch.autograd.grad(outs, leaves, cots, create_graph=create, allow_unused=True)

    for i in range(len(REGISTRY[formula].samples)):
        ours = make_call(formula, i, lambda a, r: ref.tensor(a, requires_grad=r),
                         REGISTRY[formula])
        theirs = make_call(formula, i, lambda a, r: torch.tensor(a, requires_grad=r), aten)
        seed = i + 1
        a = _side(ours, ref_grad, lambda t: np.asarray(t.detach().numpy()),
                  lambda x: ref.tensor(x), seed)
        b = _side(theirs, torch_grad, lambda t: t.detach().numpy(force=True),
                  lambda x: torch.tensor(x), seed)
        for label, x, y in zip(("value", "VJP", "VJP-of-VJP"), a, b):
            if y is None:  # torch has no second derivative here: nothing to compare with
                continue
            if label == "VJP":  # torch answers None where a formula returns zeros: same thing
                x = [np.zeros_like(v) if v is None and w is not None else v for v, w in zip(x, y)]
                y = [np.zeros_like(w) if w is None and v is not None else w for v, w in zip(x, y)]
            if not _close(x, y):
                return f"sample {i}: {label} differs"
    return None


def compare_module(path: str, module_name: str, torch) -> dict[str, str | None]:
    import transgrad.reference as ref

    load(path, module_name)
    out = {}
    for formula, entry in entries(path).items():
        try:
            out[formula] = compare(formula, entry, ref, torch)
        except Exception as e:  # noqa: BLE001 - a measurement: report, do not stop
            out[formula] = f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
    return out


if __name__ == "__main__":
    import torch

    results = compare_module(sys.argv[1], "imported_full", torch)
    for name, diff in results.items():
        if diff:
            print(f"{name}: {diff}")
    ok = sum(d is None for d in results.values())
    print(f"{ok} of {len(results)} imported formulas match torch (value, VJP, VJP-of-VJP)")
