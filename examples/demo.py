"""transgrad in one run: a formula, its C++, both engines, gradcheck, then train an MLP.

    python examples/demo.py

1. shows the ``silu`` formula of formulas/nn.py and the C++ the translator makes of it;
2. runs it on the reference and the compiled engine, compares them, proves its first and
   second derivatives with gradcheck / gradgradcheck, and prints a backward graph (DOT);
3. trains an MLP on scikit-learn's digits with the compiled engine (the reference engine, with
   a note, when transgrad._C is not built).
"""

from __future__ import annotations

import os

# One BLAS / intra-op thread unless told otherwise: Note [Threads for small models] in
# mlp_digits.py.
if __name__ == "__main__":  # run as a script: imported (e.g. by tests), it changes nothing
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("TG_NUM_THREADS", "1")

import inspect
import subprocess
import sys
import textwrap

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FORMULA = "silu"


def title(text: str) -> None:
    print(f"\n== {text} " + "=" * max(0, 74 - len(text)))


def compiled_engine():
    try:
        import transgrad

        return transgrad if getattr(transgrad, "_C", None) is not None else None
    except ImportError:
        return None


def show_formula() -> None:
    title(f"1. the formula `{FORMULA}` (formulas/nn.py) and its generated C++")
    from transgrad.lang import REGISTRY, load_builtin_formulas

    load_builtin_formulas()
    source = textwrap.dedent(inspect.getsource(REGISTRY[FORMULA].fn)).rstrip()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.join(ROOT, "python"),
                                                      env.get("PYTHONPATH")]))
    try:
        out = subprocess.run([sys.executable, "-m", "transgrad.translator", "show", FORMULA],
                             capture_output=True, text=True, timeout=120, env=env, cwd=ROOT,
                             check=False)
        shown, why = out.returncode == 0, (out.stderr.strip().splitlines() or ["no output"])[-1]
    except (OSError, subprocess.TimeoutExpired) as e:
        shown, why = False, str(e)
    if shown:  # the formula and its C++, side by side
        print(out.stdout.rstrip())
    else:
        print(source)
        print(f"(`python -m transgrad.translator show {FORMULA}` is not available: {why})")


def run_both_engines() -> None:
    title("2. the same formula on both engines, gradcheck and gradgradcheck")
    import transgrad.reference as ref
    import transgrad.reference.nn.functional as RF

    engines = [("reference", ref, RF)]
    tg = compiled_engine()
    if tg is not None:
        import transgrad.nn.functional as CF

        engines.append(("compiled", tg, CF))
    else:
        print("(compiled engine not built: `pip install .` adds it; reference only below)")
    x0 = np.linspace(-3.0, 3.0, 7)
    values = {}
    for name, eng, F in engines:
        x = eng.tensor(x0, dtype=eng.float64, requires_grad=True)
        y = F.silu(x)
        (g,) = eng.autograd.grad(y.sum(), [x])
        values[name] = np.asarray(y.detach())
        ok1 = eng.autograd.gradcheck(F.silu, (x,))
        ok2 = eng.autograd.gradgradcheck(F.silu, (x,))
        print(f"{name:>9}: silu(x)  = {np.array2string(values[name], precision=4)}")
        print(f"{'':>9}  d/dx     = {np.array2string(np.asarray(g), precision=4)}")
        print(f"{'':>9}  gradcheck {'ok' if ok1 else 'FAILED'}, "
              f"gradgradcheck {'ok' if ok2 else 'FAILED'}")
    if len(values) == 2:
        diff = float(np.abs(values["reference"] - values["compiled"]).max())
        print(f"max |reference - compiled| = {diff:.1e}")
    # the backward graph of a small expression: each node with its formula's file:line and
    # what it saved (Graphviz DOT; tg.autograd.graph.to_svg renders it when `dot` is installed)
    name, eng, F = engines[-1]
    x = eng.tensor(x0[:3], dtype=eng.float64, requires_grad=True)
    print(f"\nthe backward graph of (silu(x) * x).sum(), {name} engine:")
    print(eng.autograd.graph.to_dot((F.silu(x) * x).sum()).rstrip())


def train_mlp() -> None:
    sys.path.insert(0, HERE)
    from mlp_digits import train

    engine = "compiled" if compiled_engine() is not None else "reference"
    title(f"3. an MLP on the digits dataset, {engine} engine")
    if engine == "reference":
        print("(transgrad._C is not built: training on the pure-Python reference engine; "
              "`pip install .` for the compiled one)")
    r = train(engine)
    print(f"test accuracy {100 * r['accuracy']:.1f}% on {r['test']} held-out images, "
          f"final batch loss {r['loss']:.4f}, {r['seconds']:.1f} s")


def main() -> int:
    show_formula()
    run_both_engines()
    try:
        train_mlp()
    except SystemExit as e:  # e.g. scikit-learn missing
        print(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
