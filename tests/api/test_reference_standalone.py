"""The reference engine is plain Python: it imports and runs with ``transgrad._C`` absent, as the
pure-Python tier of CONTRIBUTING and the stub generator rely on (a subprocess, so the block on
``transgrad._C`` does not leak into other tests)."""

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_reference_engine_runs_without_the_compiled_module():
    script = textwrap.dedent("""
        import sys
        sys.modules["transgrad._C"] = None  # an import of it raises ImportError
        import transgrad.reference as tg
        x = tg.tensor([1.0, -2.0, 3.0], dtype=tg.float64, requires_grad=True)
        layer = tg.nn.Linear(3, 2, dtype=tg.float64)  # one dtype: torch refuses float32 @ float64
        y = tg.nn.functional.relu(layer(x)).sum() + (x * x).sum()
        y.backward()
        w = layer.weight.detach().numpy()
        active = (w @ [1.0, -2.0, 3.0] + layer.bias.detach().numpy() > 0).astype(float)
        expected = 2 * x.detach().numpy() + w.T @ active
        assert abs(x.grad.numpy() - expected).max() < 1e-6, (x.grad, expected)
        assert layer.weight.grad is not None
        print("ok", type(layer.weight).__module__)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env={"PYTHONPATH": f"{ROOT / 'python'}:{ROOT}", "PATH": ""}, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok transgrad.reference")
