"""The reference engine's special functions without scipy (scipy is not a dependency).

kernels_special.py uses scipy's vectorised functions when scipy imports, else scalar ports of
the C++ series (digamma by recurrence + asymptotic series, polygamma through the Hurwitz zeta
function, erfinv by Halley steps). A subprocess hides scipy (``sys.modules['scipy'] = None``, so
every ``import scipy...`` raises ImportError) and evaluates the functions and digamma's
gradient; the values are checked against closed forms and, where scipy is installed here,
against scipy itself.
"""

import json
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

POINTS = [0.5, 1.0, 2.0, 3.25, 9.5, 10.5, 100.0, 1e6, -0.5, -2.75, 1e-8, 0.0, -0.0, -3.0,
          float("inf"), float("-inf"), float("nan")]

SCRIPT = textwrap.dedent("""
    import json, sys
    sys.modules["scipy"] = None  # every `import scipy...` now raises ImportError
    import transgrad.reference as tg
    from transgrad.reference import kernels_special
    assert "scipy" not in getattr(kernels_special._np_digamma, "__module__", ""), "scipy in use"
    pts = json.loads(sys.argv[1])
    x = tg.tensor(pts, dtype=tg.float64, requires_grad=True)
    y = tg.digamma(x)
    y.sum().backward()
    out = {"digamma": y.tolist(), "grad": x.grad.tolist(),
           "lgamma": tg.lgamma(x).tolist(),
           "erfinv": tg.erfinv(tg.tensor([-1.0, -0.5, 0.0, 0.3, 0.9, 1.0, 2.0],
                                            dtype=tg.float64)).tolist(),
           "f32": tg.digamma(tg.tensor([0.5, 1.0], dtype=tg.float32)).tolist()}
    for n in (1, 2, 3):
        out[f"polygamma{n}"] = tg.polygamma(n, x.detach()).tolist()
    print(json.dumps(out))
""")


def _run_without_scipy():
    proc = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(POINTS)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def values():
    return _run_without_scipy()


EULER = 0.5772156649015329


def test_closed_forms(values):
    d = dict(zip(POINTS, values["digamma"]))
    assert d[1.0] == pytest.approx(-EULER, rel=1e-14)
    assert d[0.5] == pytest.approx(-EULER - 2 * math.log(2), rel=1e-14)
    assert d[2.0] == pytest.approx(1 - EULER, rel=1e-14)
    # psi(x + 1) = psi(x) + 1/x
    assert d[-0.5] == pytest.approx(-EULER - 2 * math.log(2) + 2, rel=1e-14)
    assert d[1e6] == pytest.approx(math.log(1e6) - 0.5e-6, rel=1e-14)
    zero, negzero = POINTS.index(0.0), len(POINTS) - POINTS[::-1].index(0.0) - 1  # 0.0 == -0.0
    assert values["digamma"][zero] == -math.inf  # torch: digamma(+-0) = -+inf
    assert values["digamma"][negzero] == math.inf
    assert math.isnan(d[-3.0]) and math.isnan(values["digamma"][-1])
    assert d[float("inf")] == math.inf
    t = dict(zip(POINTS, values["polygamma1"]))
    assert t[1.0] == pytest.approx(math.pi ** 2 / 6, rel=1e-13)
    assert t[0.5] == pytest.approx(math.pi ** 2 / 2, rel=1e-13)
    assert t[-3.0] == math.inf and t[float("inf")] == 0.0
    p2 = dict(zip(POINTS, values["polygamma2"]))
    assert p2[1.0] == pytest.approx(-2 * 1.2020569031595942, rel=1e-13)  # -2 zeta(3)
    assert p2[-3.0] == -math.inf
    p3 = dict(zip(POINTS, values["polygamma3"]))
    assert p3[1.0] == pytest.approx(math.pi ** 4 / 15, rel=1e-13)  # 6 zeta(4)
    # digamma's gradient is trigamma
    np.testing.assert_array_equal(np.array(values["grad"]), np.array(values["polygamma1"]))
    assert values["f32"] == pytest.approx([-EULER - 2 * math.log(2), -EULER], rel=1e-6)
    e = values["erfinv"]
    assert e[0] == -math.inf and e[2] == 0.0 and e[5] == math.inf and math.isnan(e[6])
    assert math.erf(e[1]) == pytest.approx(-0.5, rel=1e-15)
    assert math.erf(e[4]) == pytest.approx(0.9, rel=1e-15)


def test_recurrence(values):
    # psi(x + 1) - psi(x) = 1/x and psi'(x + 1) - psi'(x) = -1/x^2, checked inside the run
    script = SCRIPT.replace('print(json.dumps(out))', textwrap.dedent("""
        import numpy as np
        xs = np.linspace(-7.9, 25.3, 301)
        a = tg.digamma(tg.tensor(xs)).numpy(); b = tg.digamma(tg.tensor(xs + 1)).numpy()
        t = tg.polygamma(1, tg.tensor(xs)).numpy(); u = tg.polygamma(1, tg.tensor(xs + 1)).numpy()
        print(json.dumps([float(np.max(np.abs((b - a) * xs - 1))),
                          float(np.max(np.abs((u - t) * xs ** 2 + 1)))]))
    """))
    proc = subprocess.run([sys.executable, "-c", script, json.dumps(POINTS)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    err_psi, err_tri = json.loads(proc.stdout.strip().splitlines()[-1])
    assert err_psi < 1e-9 and err_tri < 1e-8


def test_same_as_scipy(values):
    special = pytest.importorskip("scipy.special")
    xs = np.array(POINTS)
    finite = np.isfinite(xs) & ~((xs <= 0) & (xs == np.floor(xs)))
    np.testing.assert_allclose(np.array(values["digamma"])[finite], special.psi(xs[finite]),
                               rtol=1e-12)
    for n in (1, 2, 3):
        np.testing.assert_allclose(np.array(values[f"polygamma{n}"])[finite],
                                   special.polygamma(n, xs[finite]), rtol=1e-11)
