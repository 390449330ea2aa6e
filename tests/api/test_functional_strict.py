"""autograd.functional errors and strict mode as torch's (2.13): one table of cases run on both
engines, and (when torch is installed) on torch, so the expected words are torch's."""

import numpy as np
import pytest


def _x(lib):
    return lib.tensor(np.array([1.0, 2.0]), requires_grad=False)


def _cases(lib):
    F = lib.autograd.functional
    x, y = _x(lib), _x(lib)
    return {
        "jacobian_strict_unused": (
            lambda: F.jacobian(lambda a, b: a * 2, (x, y), strict=True),
            RuntimeError, "Output 0 of the user-provided function is independent of input 1. "
                          "This is not allowed in strict mode."),
        "jacobian_strict_detached": (
            lambda: F.jacobian(lambda a: a.detach() * 2, x, strict=True),
            RuntimeError, "Output 0 of the user-provided function does not require gradients."),
        "jacobian_strict_vectorize": (
            lambda: F.jacobian(lambda a: a * 2, x, strict=True, vectorize=True),
            RuntimeError, "`strict=True` and `vectorized=True` are not supported together"),
        "jacobian_strict_create_graph": (
            lambda: F.jacobian(lambda a: a * 2, x, strict=True, create_graph=True),
            RuntimeError, "The jacobian of the user-provided function is independent of input "
                          "0. This is not allowed in strict mode when create_graph=True."),
        "vjp_strict_unused": (
            lambda: F.vjp(lambda a, b: a * 2, (x, y), _x(lib), strict=True),
            RuntimeError, "The output of the user-provided function is independent of input 1."),
        "jvp_strict_unused": (
            lambda: F.jvp(lambda a, b: a * 2, (x, y), (x, y), strict=True),
            RuntimeError, "The output of the user-provided function is independent of input 1."),
        "hessian_strict_linear": (
            lambda: F.hessian(lambda a: (a * 2).sum(), x, strict=True),
            RuntimeError, "While computing the hessian, found that the jacobian of the "
                          "user-provided function with respect to input 0 is independent of the "
                          "input. This is not allowed in strict mode."),
        "hessian_strict_unused": (
            lambda: F.hessian(lambda a, b: (a * a).sum(), (x, y), strict=True),
            RuntimeError, "with respect to input 1 is independent of the input"),
        "vhp_strict_linear": (
            lambda: F.vhp(lambda a: (a * 2).sum(), x, x, strict=True),
            RuntimeError, "jacobian of the user-provided function with respect to input 0"),
        "hvp_strict_linear": (
            lambda: F.hvp(lambda a: (a * 2).sum(), x, x, strict=True),
            RuntimeError, "jacobian of the user-provided function with respect to input 0"),
        "vhp_strict_create_graph": (
            lambda: F.vhp(lambda a: (a * a).sum(), x, x, strict=True, create_graph=True),
            RuntimeError, "The hessian of the user-provided function is independent of input 0. "
                          "This is not allowed in strict mode when create_graph=True."),
        "jacobian_list_input": (
            lambda: F.jacobian(lambda a: a, [1.0]),
            TypeError, "The inputs given to jacobian must be either a Tensor or a tuple of "
                       "Tensors but the given inputs has type <class 'list'>."),
        "vjp_float_input": (
            lambda: F.vjp(lambda a: a, 1.0),
            TypeError, "The inputs given to vjp must be either a Tensor or a tuple of Tensors "
                       "but the given inputs has type <class 'float'>."),
        "jacobian_tuple_with_float": (
            lambda: F.jacobian(lambda a, b: a, (x, 2.0)),
            TypeError, "but the value at index 1 has type <class 'float'>."),
        "jacobian_float_output": (
            lambda: F.jacobian(lambda a: 3.0, x),
            TypeError, "The outputs of the user-provided function given to jacobian must be "
                       "either a Tensor or a tuple of Tensors but the given outputs of the "
                       "user-provided function has type <class 'float'>."),
        "vjp_float_v": (
            lambda: F.vjp(lambda a: a, x, 1.0),
            TypeError, "The v given to vjp must be either a Tensor or a tuple of Tensors but "
                       "the given v has type <class 'float'>."),
        "vjp_v_wrong_size": (
            lambda: F.vjp(lambda a: a * 2, x, lib.ones(3, dtype=lib.float64)),
            RuntimeError, "v has invalid size: should be "),
        "vjp_v_none_nonscalar": (
            lambda: F.vjp(lambda a: a * 2, x),
            RuntimeError, "The vector v can only be None if the user-provided function returns "
                          "a single Tensor with a single element."),
        "jvp_v_none_nonscalar": (
            lambda: F.jvp(lambda a: a * 2, x),
            RuntimeError, "The vector v can only be None if the input to the user-provided "
                          "function is a single Tensor with a single element."),
        "hessian_nonscalar": (
            lambda: F.hessian(lambda a: a * 2, x),
            RuntimeError, "The Tensor returned by the function given to hessian should contain "
                          "a single element"),
        "vhp_tuple_output": (
            lambda: F.vhp(lambda a: (a, a), x, x),
            RuntimeError, "The function given to vhp should return a single Tensor"),
        "jacobian_bad_strategy": (
            lambda: F.jacobian(lambda a: a, x, strategy="sideways"),
            AssertionError, 'Expected strategy to be either "forward-mode" or "reverse-mode".'),
    }


NAMES = sorted(_cases(__import__("transgrad.reference", fromlist=["x"])))


@pytest.mark.parametrize("name", NAMES)
def test_functional_errors(engine, name):
    call, exc, words = _cases(engine)[name]
    with pytest.raises(exc) as info:
        call()
    assert words in str(info.value)


@pytest.mark.parametrize("name", NAMES)
def test_functional_errors_are_torchs(name):
    torch = pytest.importorskip("torch")
    call, exc, words = _cases(torch)[name]
    with pytest.raises(exc) as info:
        call()
    assert words in str(info.value)


def test_non_strict_gives_zeros_and_strict_passes_when_dependent(engine):
    tg = engine
    F = tg.autograd.functional
    x = _x(tg)
    Ja, Jb = F.jacobian(lambda a, b: a * 2, (x, x))
    assert Ja.tolist() == [[2.0, 0.0], [0.0, 2.0]] and Jb.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    J = F.jacobian(lambda a: a * a, x, strict=True)
    assert J.tolist() == [[2.0, 0.0], [0.0, 4.0]]
    H = F.hessian(lambda a: (a ** 3).sum(), x, strict=True)
    assert H.tolist() == [[6.0, 0.0], [0.0, 12.0]]
    _, hv = F.hvp(lambda a: (a ** 3).sum(), x, x, strict=True, create_graph=True)
    assert hv.tolist() == [6.0, 24.0]


@pytest.mark.parametrize("vectorize", [False, True])
def test_vectorize_and_create_graph(engine, vectorize):
    tg = engine
    F = tg.autograd.functional
    x = tg.tensor(np.array([1.0, 2.0]), requires_grad=True)
    H = F.hessian(lambda a: (a ** 3).sum(), x, create_graph=True, vectorize=vectorize)
    assert H.tolist() == [[6.0, 0.0], [0.0, 12.0]] and H.requires_grad
    (g,) = tg.autograd.grad(H.sum(), x)  # d/dx of sum(6 x) on the diagonal
    assert g.tolist() == [6.0, 6.0]
    J = F.jacobian(lambda a: a * a, x, vectorize=vectorize)
    assert not J.requires_grad and J.tolist() == [[2.0, 0.0], [0.0, 4.0]]
    Jf = F.jacobian(lambda a: a * a, x, vectorize=True, strategy="forward-mode")
    assert Jf.tolist() == J.tolist()
