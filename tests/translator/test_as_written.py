"""Formulas written as people do (issue #12 item 6): ``return kernel.exp(x), backward`` without
an intermediate name, a Python number as an operand of an elementwise binary kernel
(``kernel.add(x, 1.0)``, ``kernel.mul(x, c)``), torch's defaults of reductions (``kernel.sum(x)``
sums every dim, ``keepdim=False``), and the empty reduction dims that mean the opposite of torch
(T309).

The fixture module (data/as_written.py) runs on the reference engine with gradcheck and
gradgradcheck, and is translated (in the shipped formulas' context) into C++ that compiles
against the core's headers; the registry is restored afterwards.
"""

import importlib
import importlib.util
import os

import numpy as np
import pytest

from translator.backend import load_modules, translate, write_files
from translator.diagnostics import TranslatorError
from translator.frontend import load_module

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(HERE, "data", "as_written.py")


@pytest.fixture
def as_written(ref):
    from transgrad import lang

    lang.load_builtin_formulas()
    spec = importlib.util.spec_from_file_location("as_written", FIXTURE)
    mod = importlib.util.module_from_spec(spec)
    try:
        with lang.namespace("as_written"):  # its own op namespace, forgotten afterwards
            spec.loader.exec_module(mod)
        yield mod
    finally:
        lang.forget_namespace("as_written")


def test_a_returned_kernel_call_is_an_output_named_result():
    f = {f.name: f for f in load_module(FIXTURE, ROOT).formulas}
    assert f["aw_exp"].outputs == ("result",)
    assert f["aw_pair"].outputs == ("result", "result1")  # `result` is taken: a fresh name
    assert [c.name for c in f["aw_exp"].backward.captures] == ["x"]


def test_returned_kernel_calls_gradcheck_on_the_reference_engine(as_written, ref):
    x = ref.tensor(np.random.default_rng(0).uniform(-1, 1, (3, 4)), requires_grad=True)
    np.testing.assert_allclose(as_written.aw_exp(x).detach().numpy(), np.exp(x.detach().numpy()))
    neg, e = as_written.aw_pair(x)
    np.testing.assert_allclose(neg.detach().numpy(), -x.detach().numpy())
    np.testing.assert_allclose(e.detach().numpy(), np.exp(x.detach().numpy()))
    for fn in (as_written.aw_exp, as_written.aw_pair):
        assert ref.autograd.gradcheck(fn, (x,))
        assert ref.autograd.gradgradcheck(fn, (x,))


def test_numbers_as_kernel_operands_on_the_reference_engine(as_written, ref):
    a = np.random.default_rng(1).uniform(-1, 1, (2, 3))
    for dtype in ("float32", "float64"):
        x = ref.tensor(a.astype(dtype), requires_grad=True)
        y = as_written.aw_affine(x, 0.5)
        assert str(y.dtype).endswith(dtype)  # the number never promotes a float32 tensor
        np.testing.assert_allclose(y.detach().numpy(), a * 0.5 + 1.0, rtol=1e-6)
        z = as_written.aw_rsub(x)
        assert str(z.dtype).endswith(dtype)
        np.testing.assert_allclose(z.detach().numpy(), 2 - a, rtol=1e-6)
    x = ref.tensor(a, requires_grad=True)
    for fn in (lambda t: as_written.aw_affine(t, -1.5), as_written.aw_rsub):
        assert ref.autograd.gradcheck(fn, (x,))
        assert ref.autograd.gradgradcheck(fn, (x,))


def test_numbers_as_kernel_operands_match_torch(as_written, ref):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(2).uniform(-1, 1, (4,)).astype("float32")
    got = as_written.aw_affine(ref.tensor(a), 3.0).detach().numpy()
    want = torch.add(torch.mul(torch.from_numpy(a), 3.0), 1.0)
    assert got.dtype == np.float32 and str(want.dtype) == "torch.float32"
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)


def test_reductions_default_as_torch_on_the_reference_engine(as_written, ref):
    a = np.random.default_rng(3).uniform(-1, 1, (2, 3))
    x = ref.tensor(a, requires_grad=True)
    total, rows = as_written.aw_total(x), as_written.aw_rows(x)
    assert total.shape == () and rows.shape == (2,)
    np.testing.assert_allclose(total.detach().numpy(), a.sum())
    np.testing.assert_allclose(rows.detach().numpy(), a.sum(1))
    for fn in (as_written.aw_total, as_written.aw_rows):
        assert ref.autograd.gradcheck(fn, (x,))
        assert ref.autograd.gradgradcheck(fn, (x,))
    k = importlib.import_module("transgrad.reference.kernels")
    for name in ("sum", "amax", "amin", "prod"):
        np.testing.assert_allclose(getattr(k, name)(x).numpy(), getattr(np, name)(a))


def test_reductions_default_as_torch_match_torch(ref):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).uniform(-1, 1, (2, 3, 4))
    k, t = importlib.import_module("transgrad.reference.kernels"), torch.from_numpy(a)
    for name in ("sum", "amax", "amin", "prod"):
        fn = getattr(torch, name)
        np.testing.assert_allclose(getattr(k, name)(ref.tensor(a)).numpy(), fn(t).numpy())
        dims = (1,) if name == "prod" else (0, 2)  # torch.prod takes one dim
        np.testing.assert_allclose(getattr(k, name)(ref.tensor(a), dims).numpy(),
                                   fn(t, *dims if name == "prod" else (dims,)).numpy())


def test_returned_kernel_calls_translate_to_cpp_that_compiles(tmp_path):
    from translator.frontend import shipped_modules

    _, files = translate(load_modules([FIXTURE], ROOT) + shipped_modules())
    cpp = files["as_written.cpp"]
    assert "result = kernel::exp(x);" in cpp
    assert "result1 = kernel::exp(x);" in cpp
    assert "std::make_tuple(result, result1)" in cpp
    # Note [Numbers as kernel operands]: the number is a 0-d tensor like the other operand
    assert "kernel::mul(x, kernel::scalar_like(x, c))" in cpp
    assert "kernel::add(y, kernel::scalar_like(y, 1.0))" in cpp
    assert "kernel::sub(kernel::scalar_like(x, 2), x)" in cpp
    # Note [Kernel defaults]: the translator supplies torch's defaults to the C++ kernel
    assert "kernel::sum(x, py::range(x.dim()).to_vector(), false)" in cpp
    assert "kernel::sum(x, Shape{1}, false)" in cpp
    import shutil
    import subprocess

    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    out = tmp_path / "gen"
    write_files(files, str(out))
    proc = subprocess.run([cxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           f"-I{os.path.join(ROOT, 'csrc')}", f"-I{out}",
                           str(out / "as_written.cpp")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _codes(tmp_path, forward, params="x: Tensor", grad="grad"):
    """The diagnostic codes of a one-formula module: ``forward`` binds ``result``."""
    lines = [f"@formula\ndef f({params}) -> Tensor:", *("    " + ln for ln in
             forward.splitlines()), "    def backward(grad):", f"        return {grad}",
             "    return result, backward", ""]
    path = tmp_path / "m.py"
    path.write_text("from transgrad.lang import Shape, Tensor, formula, kernel, ops\n\n"
                    + "\n".join(lines))
    try:
        load_module(str(path), str(tmp_path))
    except TranslatorError as e:
        return [d.code for d in e.diagnostics]
    return []


@pytest.mark.parametrize("kernel", ["sum", "amax", "amin", "logsumexp", "prod"])
@pytest.mark.parametrize("empty", ["()", "[]"])
def test_a_literal_empty_reduction_dims_is_refused(tmp_path, kernel, empty):
    assert _codes(tmp_path, f"result = kernel.{kernel}(x, {empty}, False)") == ["T309"]


def test_computed_dims_keep_the_kernel_meaning(tmp_path):
    assert _codes(tmp_path, "dims = tuple(range(x.ndim))\nresult = kernel.sum(x, dims, False)\n"
                  "t = kernel.permute(x, ())") == []


@pytest.mark.parametrize("call", [
    "kernel.add(kernel.exp(x), 1.0)",  # the other operand is no variable: T305 as before
    "kernel.where(kernel.gt(x, 0.0), x, 0.0)",  # not an elementwise binary kernel
    "kernel.add(1.0, 2.0)",  # no tensor at all
    "kernel.add(x, s)",  # a shape is no number
    "kernel.mul(x, x.shape)",
    "kernel.mul(x.shape, x)",
])
def test_a_number_elsewhere_is_still_t305(tmp_path, call):
    assert set(_codes(tmp_path, f"result = {call}", "x: Tensor, s: Shape")) == {"T305"}


def test_dims_default_needs_the_tensor_named_by_a_variable(tmp_path):
    assert _codes(tmp_path, "result = kernel.sum(kernel.exp(x))") == ["T302"]
    path = tmp_path / "m.py"
    with pytest.raises(TranslatorError) as e:
        load_module(str(path), str(tmp_path))
    (d,) = e.value.diagnostics
    assert "the default `dims=all` is supplied only when the first argument is a variable" in (
        d.message)
    assert d.hint.startswith("bind the tensor to a name first")


def test_a_local_number_stands_for_a_tensor_operand(tmp_path):
    assert _codes(tmp_path, "c = 2.0 * scale + x.ndim\nresult = kernel.mul(x, c)",
                  "x: Tensor, scale: float", "grad * c") == []


def test_a_returned_expression_other_than_a_kernel_call_is_still_t107(tmp_path):
    path = tmp_path / "r.py"
    path.write_text("from transgrad.lang import Tensor, formula, kernel, ops\n\n"
                    "@formula\ndef f(x: Tensor) -> Tensor:\n    def backward(grad):\n"
                    "        return grad\n    return x * 2.0, backward\n")
    with pytest.raises(TranslatorError) as e:
        load_module(str(path), str(tmp_path))
    assert [d.code for d in e.value.diagnostics] == ["T107"]
