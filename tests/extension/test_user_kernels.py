"""A package's own kernels (issue 12 item 5): a kernel declared beside the formulas
(fixtures/softclip/softclip_kernels.py: the declaration table and the numpy body;
softclip_kernels.cpp: the C++ body) is callable as ``kernel.NAME`` from the package's formulas
on both engines, each body checked against the declaration, and the engines agree.

The compiled cases build an extension (tens of seconds): marked slow; they need an installed
transgrad (``pip install .``).
"""

import importlib.util
import inspect
import os

import numpy as np
import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "softclip")
FORMULAS = os.path.join(FIXTURES, "softclip.py")
KERNELS = os.path.join(FIXTURES, "softclip_kernels.py")
NAME = "tg_test_user_kernels"

_built = {}


@pytest.fixture(scope="module")
def build_root(tmp_path_factory):
    yield str(tmp_path_factory.mktemp("extensions"))
    from transgrad import _op_registry, lang

    lang.forget_namespace(NAME)
    _op_registry.unregister_namespace("compiled", NAME)
    _built.clear()


def _extension(engine_name, build_root):
    """The user's extension on ``engine_name``, built (or imported) once per module."""
    if engine_name not in _built:
        if engine_name == "compiled":
            if importlib.util.find_spec("transgrad._build_config") is None:
                pytest.skip("transgrad.extension needs an installed transgrad (pip install .)")
            import transgrad.extension as jit

            _built["compiled"] = jit.load(NAME, [FORMULAS], kernels=KERNELS,
                                          build_directory=os.path.join(build_root, NAME))
        else:
            import transgrad.reference.extension as jit

            _built["reference"] = jit.load(NAME, [FORMULAS], kernels=KERNELS)
    return _built[engine_name]


@pytest.fixture(params=["reference", "compiled"])
def ext_engine(request, build_root):
    tg = request.getfixturevalue("ref" if request.param == "reference" else "compiled")
    return tg, _extension(request.param, build_root)


def sample(shape, seed=0):
    return np.random.default_rng(seed).uniform(-3, 3, size=shape)


def test_numpy_bodies_match_their_declarations():
    """Each numpy body takes the declared parameters and returns the declared results."""
    from transgrad.translator.user_kernels import read_declarations

    table = read_declarations(KERNELS)
    assert list(table) == ["softclip"]
    spec = importlib.util.spec_from_file_location("softclip_kernels_under_test", KERNELS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name, sig in table.items():
        body = getattr(module, name)
        assert list(inspect.signature(body).parameters) == [p.name for p in sig.params]
        args = [sample((2, 3)) if p.type == "Tensor" else 1.5 for p in sig.params]
        out = body(*args)
        results = out if isinstance(out, tuple) else (out,)
        assert len(results) == sig.num_outputs
        assert all(isinstance(r, np.ndarray) and r.shape == (2, 3) for r in results)


@pytest.mark.slow
def test_values_and_engines_agree(ref, compiled, build_root):
    a = sample((4, 5), seed=1)
    out = {}
    for key, tg in (("reference", ref), ("compiled", compiled)):
        ext = _extension(key, build_root)
        for dtype in (np.float64, np.float32):
            x = tg.tensor(a.astype(dtype))
            y = ext.softclip(x, 1.5)
            assert y.dtype == x.dtype
            out[key, dtype] = y.numpy()
        np.testing.assert_allclose(out[key, np.float64], 1.5 * np.tanh(a / 1.5), rtol=1e-14)
        np.testing.assert_allclose(ext.softclip(tg.tensor(a)).numpy(), 2.0 * np.tanh(a / 2.0),
                                   rtol=1e-14)
    np.testing.assert_allclose(out["reference", np.float64], out["compiled", np.float64],
                               rtol=1e-14)
    np.testing.assert_allclose(out["reference", np.float32], out["compiled", np.float32],
                               rtol=1e-6)


@pytest.mark.slow
def test_gradcheck_and_gradgradcheck(ext_engine):
    tg, ext = ext_engine
    x = tg.tensor(sample((3, 4)), requires_grad=True)
    assert tg.autograd.gradcheck(lambda t: ext.softclip(t, 1.5), (x,))
    assert tg.autograd.gradgradcheck(lambda t: ext.softclip(t, 1.5), (x,))
    assert tg.autograd.gradgradcheck(ext.softclip, (x,))


@pytest.mark.slow
def test_a_bad_argument_is_the_kernels_error(ext_engine):
    tg, ext = ext_engine
    with pytest.raises(ValueError, match="c must be positive"):
        ext.softclip(tg.tensor(sample((2,))), -1.0)


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_kernel_may_not_shadow_a_shipped_one(engine, tmp_path):
    kernels = _write(tmp_path, "shadow_kernels.py",
                     'KERNELS = """\nexp(Tensor x) -> Tensor\n"""\n\ndef exp(x):\n    return x\n')
    _write(tmp_path, "shadow_kernels.cpp", "")
    formulas = _write(tmp_path, "uses_exp.py", "")
    if engine.__name__ == "transgrad":
        if importlib.util.find_spec("transgrad._build_config") is None:
            pytest.skip("transgrad.extension needs an installed transgrad (pip install .)")
        import transgrad.extension as jit
    else:
        import transgrad.reference.extension as jit
    with pytest.raises(ValueError, match=r"shadow_kernels.py:2: kernel 'exp' is one of "
                                         r"transgrad's own"):
        jit.load("tg_test_shadow_kernel", [formulas], kernels=kernels,
                 build_directory=str(tmp_path / "build"))


def test_an_undeclared_kernel_is_the_translators_error(tmp_path):
    """Without the package's table the formula's kernel.softclip is unknown, at its line; the
    same file then translates with it (the front end's caches keep the two apart)."""
    from transgrad.translator.diagnostics import TranslatorError
    from transgrad.translator.emit_extension import emit_extension

    with open(FORMULAS, encoding="utf-8") as f:
        formulas = _write(tmp_path, "softclip.py", f.read())
    with pytest.raises(TranslatorError, match=r"softclip.py:11:14: error\[T301\]: unknown "
                                              r"kernel `kernel.softclip`"):
        emit_extension([formulas], "tg_test_no_kernels", "tg_test_no_kernels")
    files = emit_extension([formulas], "tg_test_no_kernels", "tg_test_no_kernels",
                           kernels=KERNELS)
    assert "Tensor softclip(const Tensor& x, double c);" in files["user_kernels.h"]
    assert '#include "user_kernels.h"' in files["ops.h"]
    assert "kernel::softclip(" in files["softclip.cpp"]


@pytest.mark.parametrize("body, message", [
    ("def softclip(x):\n    return x\n", r"takes \(x\); its declaration takes \(x, c\)"),
    ("def other(x, c):\n    return x\n", "defines no numpy body"),
])
def test_a_numpy_body_unlike_its_declaration_is_refused(tmp_path, body, message):
    import transgrad.reference.extension as jit

    kernels = _write(tmp_path, "bad_kernels.py",
                     f'KERNELS = """\nsoftclip(Tensor x, float c) -> Tensor\n"""\n\n{body}')
    with pytest.raises(ValueError, match=message):
        jit.load("tg_test_bad_body", [FORMULAS], kernels=kernels)


def test_a_wrong_result_count_is_a_clear_error(tmp_path):
    """A body returning a pair for a declared Tensor is a TypeError naming the kernel."""
    import transgrad.reference as ref
    from transgrad.reference.user_kernels import load_kernels

    kernels = _write(tmp_path, "pair_kernels.py",
                     'KERNELS = """\nsoftclip(Tensor x, float c) -> Tensor\n"""\n\n'
                     "def softclip(x, c):\n    return x, x\n")
    _, bodies = load_kernels(kernels)
    with pytest.raises(TypeError, match="kernel 'softclip' returned tuple; its declaration "
                                        "returns Tensor"):
        bodies["softclip"](ref.tensor(sample((2,))), 1.0)


def test_the_translators_command_line_takes_the_kernels(tmp_path):
    """What transgrad_add_extension(... KERNELS kernels.py ...) of the CMake package runs."""
    import subprocess
    import sys

    out = tmp_path / "generated"
    cmd = [sys.executable, "-m", "transgrad.translator.emit_extension", "--name", "uk_cli",
           "--out", str(out), "--kernels", KERNELS, FORMULAS]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr
    header = (out / "user_kernels.h").read_text()
    assert 'visibility("hidden"))) Tensor softclip(const Tensor& x, double c);' in header
    done = subprocess.run(cmd[:-3] + [FORMULAS], capture_output=True, text=True,
                          cwd=str(tmp_path))
    assert done.returncode == 1 and "unknown kernel `kernel.softclip`" in done.stderr


def test_two_files_declaring_one_kernel_on_the_reference_engine(tmp_path, build_root):
    """The reference engine runs kernels by name: a second file's softclip is refused, naming
    both files (the compiled extensions keep theirs apart: hidden symbols)."""
    import transgrad.reference.extension as jit

    _extension("reference", build_root)
    other = _write(tmp_path, "other_kernels.py",
                   'KERNELS = """\nsoftclip(Tensor x, float c) -> Tensor\n"""\n\n'
                   "def softclip(x, c):\n    return x\n")
    with pytest.raises(ValueError, match=r"kernel 'softclip' of .*other_kernels.py is declared "
                                         r"already by .*softclip_kernels.py"):
        jit.load("tg_test_other_kernels", [FORMULAS], kernels=other)


@pytest.mark.slow
def test_a_cpp_body_unlike_its_declaration_does_not_link(tmp_path, compiled):
    """The declarations are hidden in the extension, so a body of other parameters (an
    overload, not the declared kernel) leaves the declared one undefined: the link fails and
    the RuntimeError shows it, naming the kernel."""
    if importlib.util.find_spec("transgrad._build_config") is None:
        pytest.skip("transgrad.extension needs an installed transgrad (pip install .)")
    import transgrad.extension as jit

    with open(KERNELS, encoding="utf-8") as f:
        kernels = _write(tmp_path, "float_kernels.py", f.read())
    _write(tmp_path, "float_kernels.cpp", '#include "user_kernels.h"\n'
           "namespace tg::kernel {\n"
           "Tensor softclip(const Tensor& x, float c) { return x; }\n"
           "}  // namespace tg::kernel\n")
    undefined = r"undefined reference to `tg::kernel::softclip\(tg::Tensor const&, double\)"
    with pytest.raises(RuntimeError, match=r"(?s)Error building extension.*" + undefined):
        jit.load("tg_test_float_kernels", [FORMULAS], kernels=kernels,
                 build_directory=str(tmp_path / "build"))
