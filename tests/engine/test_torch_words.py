"""Error texts of autograd that programs match on are torch's words, on both engines (issue 11:
PyTorch's own autograd tests match them with assertRaisesRegex): the grad_outputs shape
mismatch, functional's v size and strict-mode messages, a Function without forward/backward or
called the legacy way, mark_dirty on a tensor that is not returned, the saved-tensor version
check, and in-place changes of a view made under no_grad. transgrad's extra context (the
formula, its file:line) comes after torch's words. Each case is compared with torch's own
message where torch is installed."""

import re

import numpy as np
import pytest


def _message(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def _torch_message(make):
    torch = pytest.importorskip("torch")
    torch.set_default_dtype(torch.float64)
    try:
        return _message(lambda: make(torch))
    finally:
        torch.set_default_dtype(torch.float32)


def _grad_output_mismatch(tg):
    x = tg.ones(2, 2, dtype=tg.float64, requires_grad=True)
    y = x * 2
    tg.autograd.grad([y], [x], grad_outputs=[tg.ones(2, dtype=tg.float64)])


def test_grad_output_shape_mismatch_prints_sizes_as_torch(engine):
    kind, text = _message(lambda: _grad_output_mismatch(engine))
    assert kind is RuntimeError
    assert text == ("Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and "
                    "output[0] has a shape of torch.Size([2, 2]).")
    assert (kind, text) == _torch_message(_grad_output_mismatch)


@pytest.mark.parametrize("fn_name", ["vjp", "jvp"])
def test_functional_v_size_message_is_torchs(engine, fn_name):
    def run(lib):
        fn = getattr(lib.autograd.functional, fn_name)
        inp = lib.ones(4, dtype=lib.float64)
        v = lib.ones(3 if fn_name == "vjp" else 4, dtype=lib.float64)
        fn(lambda a: 3 * a.narrow(0, 0, 3), inp, v[:2])
    kind, text = _message(lambda: run(engine))
    assert kind is RuntimeError and text.startswith("v has invalid size: should be torch.Size([")
    assert (kind, text) == _torch_message(run)


_STRICT_CASES = {
    "detached": lambda a: a.detach().sum(),                                  # no grad at all
    "unconnected": lambda a: a.detach().requires_grad_().clone().sum(),     # not from the input
    "linear": lambda a: (3 * a).sum(),                                      # jacobian constant
}


@pytest.mark.parametrize("fn_name", ["hessian", "vhp", "hvp"])
@pytest.mark.parametrize("case", list(_STRICT_CASES))
def test_second_order_strict_messages_are_torchs(engine, fn_name, case):
    def run(lib):
        fn = getattr(lib.autograd.functional, fn_name)
        inp = lib.ones(4, dtype=lib.float64)
        args = (inp,) if fn_name == "hessian" else (inp, lib.ones(4, dtype=lib.float64))
        fn(_STRICT_CASES[case], *args, strict=True)
    kind, text = _message(lambda: run(engine))
    assert kind is RuntimeError
    expected_start = {"detached": "Output 0 of the user-provided function does not require",
                      "linear": "While computing the hessian, found that the jacobian"}
    if case in expected_start:
        assert text.startswith(expected_start[case])
    assert (kind, text) == _torch_message(run)


def test_function_without_forward_or_backward_and_the_legacy_call(engine):
    tg = engine

    class NoForward(tg.autograd.Function):
        @staticmethod
        def backward(ctx, g):
            return g

    class NoBackward(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

    x = tg.ones(2, dtype=tg.float64, requires_grad=True)
    with pytest.raises(NotImplementedError,
                       match="You must implement the forward function for custom"):
        NoForward.apply(x)
    out = NoBackward.apply(x).sum()
    with pytest.raises(NotImplementedError, match="You must implement either the backward or "
                       "vjp method for your custom autograd.Function"):
        out.backward()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward "
                       "method is deprecated"):
        NoBackward()(x)


def _dirty_not_returned(lib):
    class AddInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            a.add_(b)
            ctx.mark_dirty(a)
            return a.clone(), a + b   # the dirty input itself is not returned

        @staticmethod
        def backward(ctx, ga, gab):
            return ga + gab, ga + 2 * gab

    a = lib.ones(2, dtype=lib.float64, requires_grad=True)
    b = lib.ones(2, dtype=lib.float64, requires_grad=True)
    AddInPlace.apply(a.clone(), b)


def test_mark_dirty_of_a_tensor_not_returned_raises(engine):
    kind, text = _message(lambda: _dirty_not_returned(engine))
    assert kind is RuntimeError
    assert text.startswith("Some elements marked as dirty during the forward method were not "
                           "returned as output.")
    torch_kind, torch_text = _torch_message(_dirty_not_returned)
    assert kind is torch_kind and text.startswith(torch_text[:80])


def _modified_saved(lib):
    a = lib.ones(5, dtype=lib.float64, requires_grad=True)
    d1 = a + 1
    d2 = d1 ** 2
    d1 += 1
    lib.autograd.grad(d2.sum(), a)


def test_saved_tensor_modified_in_place_message_starts_with_torchs_words(engine):
    kind, text = _message(lambda: _modified_saved(engine))
    head = ("one of the variables needed for gradient computation has been modified by an "
            "inplace operation: [torch.DoubleTensor [5]], which is output 0 of ")
    tail = ", is at version 1; expected version 0 instead."
    assert kind is RuntimeError and text.startswith(head) and tail in text
    assert "PowBackward0" in text  # transgrad's context: the node that needed it
    # the in-place node's name is the node naming's business (torch 2.13 prints "Add")
    torch_kind, torch_text = _torch_message(_modified_saved)
    assert torch_kind is kind and torch_text.startswith(head) and tail in torch_text


def _leaf_version_message(lib):
    x = lib.ones(5, dtype=lib.float64, requires_grad=True)
    y = lib.ones(5, dtype=lib.float64, requires_grad=True)
    z = (x * y).sum()
    with lib.no_grad():
        x.mul_(2)
    z.backward()


def test_saved_leaf_modified_in_place_names_no_node(engine):
    kind, text = _message(lambda: _leaf_version_message(engine))
    assert re.match(r"one of the variables needed for gradient computation has been modified "
                    r"by an inplace operation: \[torch\.DoubleTensor \[5\]\] is at version 1; "
                    r"expected version 0 instead\.", text), text
    assert _torch_message(_leaf_version_message)[1].startswith(text[:150])


def _no_grad_view(lib):
    inp = lib.ones(2, dtype=lib.float64, requires_grad=True)
    with lib.no_grad():
        view = inp[:]
    view.zero_()


def test_inplace_on_a_view_made_under_no_grad_is_torchs_error(engine):
    kind, text = _message(lambda: _no_grad_view(engine))
    assert kind is RuntimeError
    assert text.startswith("A view was created in no_grad mode and is being modified inplace "
                           "with grad mode enabled.")
    assert (kind, text) == _torch_message(_no_grad_view)


def test_views_made_under_no_grad_of_a_base_without_grad_stay_writable(engine):
    tg = engine
    base = tg.zeros(3, dtype=tg.float64)
    with tg.no_grad():
        view = base[1:]
    view.add_(1.0)   # nothing requires grad: no ambiguity, allowed as torch
    np.testing.assert_array_equal(np.asarray(base), [0.0, 1.0, 1.0])
