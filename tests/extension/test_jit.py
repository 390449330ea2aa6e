"""JIT formula extensions (issue 12, items 1, 3, 4): ``transgrad.extension.load`` and
``transgrad.reference.extension.load`` on the same user files give the same ops, which pass
gradcheck/gradgradcheck and share graphs, hooks, anomaly mode and threads with transgrad's own
ops; the build is cached, checked by the translator first, and version-checked.

The compiled cases build an extension (tens of seconds): they are marked slow and compiled.
They need an installed transgrad (``pip install .``): headers, libtransgrad.so, _build_config.
"""

import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
# the user's two formulas: those of the example package (one with a non-tensor parameter and
# integer arithmetic on shapes)
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__)))), "examples", "formula_package")
USER_OPS = os.path.join(EXAMPLE, "src", "formula_example", "activations.py")
SHADOW_OPS = os.path.join(FIXTURES, "shadow_ops.py")
BAD = os.path.join(FIXTURES, "bad_capture.py")
NAME = "tg_test_ext"


def _needs_install(tg):
    if importlib.util.find_spec("transgrad._build_config") is None:
        pytest.skip("transgrad.extension needs an installed transgrad (pip install .)")
    return tg


_built = {}


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    yield str(tmp_path_factory.mktemp("extensions"))
    from transgrad import _op_registry, lang

    lang.forget_namespace(NAME)  # leave no ops registered behind
    _op_registry.unregister_namespace("compiled", NAME)
    _built.clear()


@pytest.fixture(params=["reference", "compiled"])
def ext_engine(request, build_root):
    """(engine, extension module) for both engines, the compiled one built once per module."""
    tg = request.getfixturevalue("ref" if request.param == "reference" else "compiled")
    if request.param not in _built:
        if request.param == "compiled":
            _needs_install(tg)
            import transgrad.extension as jit

            _built["compiled"] = jit.load(NAME, [USER_OPS, SHADOW_OPS],
                                          build_directory=os.path.join(build_root, NAME))
        else:
            import transgrad.reference.extension as jit

            _built["reference"] = jit.load(NAME, [USER_OPS, SHADOW_OPS])
    return tg, _built[request.param]


pytestmark = pytest.mark.slow


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def sample(shape, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape)


def test_ops_are_the_module_attributes(ext_engine):
    tg, ext = ext_engine
    assert callable(ext.softsign) and callable(ext.scaled_square)
    assert ext.__transgrad_namespace__ == NAME


def test_values(ext_engine):
    tg, ext = ext_engine
    a = sample((3, 5))
    x = f64(tg, a, requires_grad=False)
    np.testing.assert_allclose(ext.softsign(x).numpy(), a / (1 + np.abs(a)), rtol=1e-14)
    # the non-tensor parameter and integer arithmetic on shapes: 5 // 2 + 1 = 3, 5 // 4 + 1 = 2
    np.testing.assert_allclose(ext.scaled_square(x).numpy(), a * a * 3, rtol=1e-14)
    np.testing.assert_allclose(ext.scaled_square(x, 4).numpy(), a * a * 2, rtol=1e-14)
    np.testing.assert_allclose(ext.scaled_square(x, groups=-2).numpy(), a * a * -2, rtol=1e-14)


@pytest.mark.parametrize("op", ["softsign", "scaled_square"])
def test_gradcheck_and_gradgradcheck(ext_engine, op):
    tg, ext = ext_engine
    fn = getattr(ext, op)
    x = f64(tg, sample((3, 4)))
    assert tg.autograd.gradcheck(fn, (x,))
    assert tg.autograd.gradgradcheck(fn, (x,))
    if op == "scaled_square":
        assert tg.autograd.gradgradcheck(lambda t: fn(t, 3), (x,))


def test_one_graph_with_shipped_ops(ext_engine):
    tg, ext = ext_engine
    a = sample((2, 3), seed=1)
    x = f64(tg, a)
    y = tg.tanh(ext.softsign(x))
    assert y.grad_fn.name() == "TanhBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "SoftsignBackward0"
    y.sum().backward()
    s = a / (1 + np.abs(a))
    np.testing.assert_allclose(x.grad.numpy(), (1 - np.tanh(s) ** 2) / (1 + np.abs(a)) ** 2,
                               rtol=1e-12)
    # double backward across the boundary, both directions
    composed = lambda t: ext.scaled_square(tg.sin(ext.softsign(t)) * 2.0, 2)  # noqa: E731
    assert tg.autograd.gradgradcheck(composed, (f64(tg, a),))


def test_in_place_checks_across_the_boundary(ext_engine):
    """One version counter for both sides: a shipped in-place op on a tensor the user's node
    saved is caught at backward, and a user's output can be modified in place by a shipped op
    when the user's backward does not read it."""
    tg, ext = ext_engine
    x = f64(tg, sample((2, 4), seed=3))
    h = x * 1.0  # a non-leaf the user's scaled_square saves (its backward reads x)
    y = ext.scaled_square(h, 2)
    h.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    z = ext.softsign(x * 1.0)  # softsign's backward reads its input, not its output
    z.exp_()  # the shipped exp_ on the user's output: exp's backward reads exp's output only
    z.sum().backward()
    a = np.asarray(x.detach())
    s = a / (1 + np.abs(a))
    np.testing.assert_allclose(x.grad.numpy(), np.exp(s) / (1 + np.abs(a)) ** 2, rtol=1e-12)


def test_engines_agree(ref, compiled):
    comp = _needs_install(compiled)
    mods = {}
    for name, tg in (("reference", ref), ("compiled", comp)):
        if name not in _built:
            pytest.skip("built by the parametrised tests first")
        mods[name] = (tg, _built[name])
    results = []
    for tg, ext in mods.values():
        x = f64(tg, sample((4, 6), seed=2))
        y = (ext.scaled_square(ext.softsign(x), 3) * tg.cos(x)).sum()
        (g,) = tg.autograd.grad(y, x, create_graph=True)
        (gg,) = tg.autograd.grad(g.sum(), x)
        results.append((y.item(), g.detach().numpy(), gg.numpy()))
    (y0, g0, gg0), (y1, g1, gg1) = results
    assert y0 == pytest.approx(y1, rel=1e-13)
    np.testing.assert_allclose(g0, g1, rtol=1e-12)
    np.testing.assert_allclose(gg0, gg1, rtol=1e-12)


def test_hooks_on_extension_outputs(ext_engine):
    tg, ext = ext_engine
    a = sample((3,), seed=3)
    grads = []
    for scale in (1.0, 3.0):
        x = f64(tg, a)
        h = ext.softsign(x)
        seen = []
        h.register_hook(lambda g, s=scale, seen=seen: (seen.append(g.numpy().copy()), g * s)[1])
        tg.exp(h).sum().backward()
        assert len(seen) == 1
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], 3.0 * grads[0], rtol=1e-14)


def test_anomaly_mode_names_the_users_formula(ext_engine):
    tg, ext = ext_engine
    with tg.autograd.detect_anomaly():
        x = f64(tg, [1.0, float("nan"), -1.0])  # d softsign at nan is nan
        y = ext.softsign(x)  # MARK-user-forward
        with pytest.raises(RuntimeError) as info:
            y.sum().backward()
    msg = "\n".join([str(info.value)] + list(getattr(info.value, "__notes__", ())))
    assert "SoftsignBackward0" in msg and "returned nan values" in msg
    assert "src/formula_example/activations.py:9" in msg  # the formula's file and def line
    assert "MARK-user-forward" in msg  # the forward traceback reaches the user's call


def test_backward_from_two_threads(ext_engine):
    tg, ext = ext_engine
    a = sample((64,), seed=5)
    x = f64(tg, a)
    errors = []

    def work():
        try:
            for _ in range(20):
                y = tg.tanh(ext.scaled_square(ext.softsign(x), 4)).sum()
                y.backward()
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    x1 = f64(tg, a)
    tg.tanh(ext.scaled_square(ext.softsign(x1), 4)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 40 * x1.grad.numpy(), rtol=1e-12)


def test_a_users_op_named_like_a_shipped_one_stays_apart(ext_engine):
    tg, ext = ext_engine
    a = sample((3, 4), seed=6)
    x = f64(tg, a)
    np.testing.assert_allclose(ext.tanh(x).detach().numpy(), 2 * np.tanh(a), rtol=1e-14)
    np.testing.assert_allclose(tg.tanh(x).detach().numpy(), np.tanh(a), rtol=1e-14)
    tg.tanh(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 - np.tanh(a) ** 2, rtol=1e-12)
    assert tg.autograd.gradgradcheck(ext.tanh, (f64(tg, a),))


def test_ops_are_in_the_registry_namespace(ext_engine):
    tg, ext = ext_engine
    assert getattr(tg.ops, NAME).softsign is ext.softsign
    assert getattr(tg.ops, NAME).tanh is ext.tanh
    assert tg.ops.tanh is not ext.tanh  # the shipped op stays tg.ops.tanh


def test_two_files_claiming_one_namespace_and_name(ext_engine, tmp_path):
    tg, ext = ext_engine
    other = tmp_path / "activations.py"
    shutil.copy(USER_OPS, other)  # the same ops, from another file, in the same namespace
    if tg.__name__ == "transgrad":
        import transgrad.extension as jit

        kwargs = {"build_directory": str(tmp_path / "b")}
    else:
        import transgrad.reference.extension as jit

        kwargs = {}
    with pytest.raises(RuntimeError) as info:
        jit.load(NAME, [str(other)], **kwargs)
    msg = str(info.value)
    assert f"({NAME}::" in msg and str(other) in msg and "formula_example/activations.py" in msg
    assert getattr(tg.ops, NAME).softsign is ext.softsign  # the first owner keeps it


def test_a_formula_error_is_the_translators_at_the_users_line(engine, tmp_path):
    tg = engine
    from transgrad.translator.diagnostics import TranslatorError

    if tg.__name__ == "transgrad":
        _needs_install(tg)
        import transgrad.extension as jit

        build = tmp_path / "bad"
        with pytest.raises(TranslatorError) as info:
            jit.load("tg_test_bad", [BAD], build_directory=str(build))
        assert not (build / "objects").exists()  # no compiler ran
    else:
        import transgrad.reference.extension as jit

        with pytest.raises(TranslatorError) as info:
            jit.load("tg_test_bad", [BAD])
    msg = str(info.value)
    assert "bad_capture.py:13:" in msg and "error[T2" in msg and "`y`" in msg


@pytest.mark.compiled
def test_compiler_errors_are_shown(tmp_path, compiled):
    tg = _needs_install(compiled)
    import transgrad.extension as jit

    with pytest.raises(RuntimeError) as info:
        jit.load("tg_test_cc_error", [USER_OPS], build_directory=str(tmp_path / "b"),
                 extra_cflags=["-include", "/nonexistent/tg_missing_header.h"])
    msg = str(info.value)
    assert msg.startswith("Error building extension 'tg_test_cc_error'")
    assert "tg_missing_header.h" in msg
    del tg


@pytest.mark.compiled
def test_cache_dir_is_private(tmp_path, monkeypatch, compiled):
    _needs_install(compiled)
    import transgrad.extension as jit

    monkeypatch.setenv("TRANSGRAD_EXTENSIONS_DIR", str(tmp_path / "cache"))
    d = jit.extensions_dir()
    assert d == str(tmp_path / "cache")
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o700


@pytest.mark.compiled
def test_cached_load_and_a_one_formula_edit(tmp_path, compiled):
    """A fresh process loads the cached library without translating or compiling; after an
    edit of one formula only that module's .cpp is compiled again."""
    _needs_install(compiled)
    src = tmp_path / "edited_ops.py"
    shutil.copy(USER_OPS, src)
    build = tmp_path / "build"
    script = ("import sys, transgrad.extension as jit\n"
              f"m = jit.load('tg_test_edit', [{str(src)!r}], build_directory={str(build)!r}, "
              "verbose=True)\n"
              "import transgrad as tg, numpy as np\n"
              "print('VALUE', m.scaled_square(tg.tensor(np.ones(4)), 2).numpy()[0])\n")

    def run():
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                             timeout=600)
        assert out.returncode == 0, out.stderr
        return out.stdout + out.stderr

    first = run()
    assert "VALUE 3.0" in first and "bindings.cpp: " in first
    cached = run()
    assert "loading cached" in cached and "-c " not in cached and "VALUE 3.0" in cached
    # the code line only (the docstring says it too, and reaches the bindings' help text)
    src.write_text(src.read_text().replace("\n    k = x.shape[-1] // groups + 1\n",
                                           "\n    k = x.shape[-1] // groups + 2\n"))
    edited = run()
    assert "VALUE 4.0" in edited
    assert "edited_ops.cpp: " in edited  # recompiled
    assert "bindings.cpp unchanged" in edited and "extension_init.cpp unchanged" in edited


@pytest.mark.compiled
def test_an_extension_built_against_another_version_refuses_to_load(tmp_path, compiled):
    tg = _needs_install(compiled)
    import transgrad.extension as jit
    from transgrad import _build_config

    with pytest.raises(ImportError) as info:
        jit.load("tg_test_version", [USER_OPS], build_directory=str(tmp_path / "v"),
                 extra_cflags=['-DTG_BUILT_AGAINST_VERSION="0.0.1-fake"'])
    msg = str(info.value)
    assert "built against transgrad 0.0.1-fake" in msg
    assert f"transgrad {_build_config.VERSION} is installed" in msg
    assert tg._C.__version__ == _build_config.VERSION
