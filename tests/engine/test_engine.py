"""The autograd engine through the public API: backward/grad, retain/create graph, pruning,
accumulation, hooks, version counters, grad mode, and the DESIGN §6 errors with their messages."""

import gc
import re
import threading
import weakref

import numpy as np
import pytest


def f64(tg, data, requires_grad=True):
    return tg.tensor(data, dtype=tg.float64, requires_grad=requires_grad)


# ---------------------------------------------------------------------------------------------
# backward and grad


def test_backward_accumulates_into_leaves(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0, 3.0])
    y = (x.sin() * x).sum()
    y.backward()
    a = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.grad.detach().numpy(), np.cos(a) * a + np.sin(a))
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), np.cos(a) * a + np.sin(a) + 2)
    assert x.is_leaf and x.grad_fn is None and x.grad.grad_fn is None


def test_grad_returns_without_touching_dot_grad(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    w = f64(tg, [3.0, 4.0])
    (gx,) = tg.autograd.grad((x * w).sum(), x)
    np.testing.assert_allclose(gx.detach().numpy(), [3.0, 4.0])
    assert x.grad is None and w.grad is None


def test_grad_of_several_outputs_and_inputs(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    y = f64(tg, [3.0])
    a, b = (x * y).sum(), (x * x).sum()
    gx, gy = tg.autograd.grad([a, b], [x, y], [f64(tg, 1.0, False), f64(tg, 2.0, False)])
    np.testing.assert_allclose(gx.detach().numpy(), [3.0 + 4.0, 3.0 + 8.0])
    np.testing.assert_allclose(gy.detach().numpy(), [3.0])


def test_gradient_argument_for_non_scalar(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    (x * 3).backward(f64(tg, [1.0, 10.0], False))
    np.testing.assert_allclose(x.grad.detach().numpy(), [3.0, 30.0])


def test_grad_of_non_leaf_input(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    h = x * 2
    (g,) = tg.autograd.grad((h * h).sum(), h)
    np.testing.assert_allclose(g.detach().numpy(), [4.0, 8.0])


def test_allow_unused_and_error(engine):
    tg = engine
    x, z = f64(tg, [1.0]), f64(tg, [2.0])
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph. Set "
                                           "allow_unused=True"):
        tg.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = tg.autograd.grad(y, [x, z], allow_unused=True)
    assert gz is None
    np.testing.assert_allclose(gx.detach().numpy(), [2.0])


def test_backward_inputs_restricts_accumulation(engine):
    tg = engine
    x, w = f64(tg, [1.0, 2.0]), f64(tg, [3.0, 4.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None
    np.testing.assert_allclose(w.grad.detach().numpy(), [1.0, 2.0])


def test_grad_prunes_branches_not_leading_to_inputs(ref):
    tg = ref
    calls = []

    class Spy(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            calls.append(1)
            return g

    x, w = f64(tg, [1.0]), f64(tg, [2.0])
    y = (x * 2 + Spy.apply(w)).sum()
    tg.autograd.grad(y, x)
    assert calls == []  # the branch to w was never run
    y2 = (x * 2 + Spy.apply(w)).sum()
    y2.backward()
    assert calls == [1]


def test_diamond_runs_each_node_once_and_sums(engine):
    tg = engine
    x = f64(tg, [2.0])
    h = x * x           # used twice below
    y = (h * 3 + h.exp()).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [(3 + np.exp(4.0)) * 4.0])


def test_same_leaf_used_many_times(engine):
    tg = engine
    x = f64(tg, [1.5])
    y = x * x * x + x
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [3 * 1.5 ** 2 + 1])


# ---------------------------------------------------------------------------------------------
# retain_graph / create_graph


def test_second_backward_without_retain_graph_fails(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    y = x.sin().sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"
                       ) as info:
        y.backward()
    assert "SinBackward0" in str(info.value) or "SumBackward0" in str(info.value)
    assert "retain_graph=True" in str(info.value)


def test_retain_graph_allows_second_backward(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    y = x.sin().sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 2 * np.cos([1.0, 2.0]))


def test_create_graph_second_and_third_derivative(engine):
    tg = engine
    x = f64(tg, [0.5, 1.5])
    y = (x ** 3).sum()
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([0.5, 1.5]) ** 2)
    assert g.requires_grad
    (g2,) = tg.autograd.grad(g.sum(), x, create_graph=True)
    np.testing.assert_allclose(g2.detach().numpy(), 6 * np.array([0.5, 1.5]))
    (g3,) = tg.autograd.grad(g2.sum(), x)
    np.testing.assert_allclose(g3.detach().numpy(), [6.0, 6.0])


def test_backward_create_graph_grad_has_history(engine):
    tg = engine
    x = f64(tg, [2.0])
    (x.exp() * x).sum().backward(create_graph=True)
    assert x.grad.requires_grad
    gx = x.grad
    x.grad = None
    gx.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [np.exp(2.0) * (2.0 + 2.0)])


def test_double_backward_through_saved_output(ref):
    from formulas_for_tests import cube

    tg = ref
    x = f64(tg, [0.5, 2.0])
    (g,) = tg.autograd.grad(cube(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([0.5, 2.0]) ** 2)
    (g2,) = tg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.detach().numpy(), 6 * np.array([0.5, 2.0]))


def test_saved_output_makes_no_reference_cycle(ref):
    from checked_formulas import t_exp

    tg = ref
    gc.disable()
    try:
        x = f64(tg, [1.0])
        y = t_exp(x)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None  # freed by refcounting alone
        y = t_exp(x)
        node = weakref.ref(y.grad_fn)
        tg.autograd.grad(y.sum(), x, create_graph=True, retain_graph=True)  # unpacks `result`
        del y
        assert node() is None  # the cells hold SavedTensors again after the backward
    finally:
        gc.enable()


def test_metadata_only_capture_saves_no_tensor(ref):
    from checked_formulas import t_rowsum

    tg = ref
    x = f64(tg, np.ones((2, 3)))
    y = t_rowsum(x)
    cells = [c.cell_contents for c in y.grad_fn.backward_fn.__closure__]
    assert not any(isinstance(c, tg.Tensor) for c in cells)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), np.ones((2, 3)))


# ---------------------------------------------------------------------------------------------
# §6 errors


def test_non_scalar_backward_needs_gradient(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar "
                                           "outputs"):
        (x * 2).backward()


def test_backward_of_tensor_not_requiring_grad(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0], requires_grad=False)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and "
                                           "does not have a grad_fn"):
        x.sum().backward()


def test_grad_wrt_tensor_not_requiring_grad(engine):
    tg = engine
    x, z = f64(tg, [1.0]), f64(tg, [1.0], requires_grad=False)
    with pytest.raises(RuntimeError, match="(?i)one of the differentiated tensors.* does not "
                                           "require grad"):
        tg.autograd.grad((x * z).sum(), [z])


def test_gradient_shape_mismatch_names_both_shapes(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"Mismatch in shape: grad_output\[0\] has a shape "
                                           r"of torch\.Size\(\[3\]\) and output\[0\] has a "
                                           r"shape of torch\.Size\(\[2\]\)\.$"):  # torch's
        (x * 2).backward(f64(tg, [1.0, 2.0, 3.0], False))


def test_binary_op_shape_mismatch_in_torchs_words(engine):
    tg = engine
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        tg.ones(2, 3) + tg.ones(4)


def test_leaf_in_place_is_refused(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in "
                                           "an in-place operation"):
        x.add_(1.0)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x += 1.0
    with tg.no_grad():
        x -= 0.5  # optimizer-style update: allowed
    np.testing.assert_allclose(x.detach().numpy(), [0.5, 1.5])
    assert x.is_leaf and x.requires_grad


def test_in_place_change_of_saved_tensor_is_detected(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    y = x.sin().sum()
    with tg.no_grad():
        x.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.backward()
    msg = str(info.value)
    assert "SinBackward0" in msg and "version 1" in msg and "expected version 0" in msg
    if engine.__name__ == "transgrad.reference":
        assert "formulas/unary.py:" in msg and "'x'" in msg


def test_version_counter_shared_by_views(engine):
    tg = engine
    a = f64(tg, [1.0, 2.0, 3.0], requires_grad=False)
    w = f64(tg, [1.0, 1.0, 1.0])
    y = (w * a).sum()          # saves a
    view = a[0:2]
    assert view._version == a._version
    view.mul_(2.0)             # changes a's storage through the view
    assert a._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_in_place_on_non_leaf_records_history(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    h = x * 1.0
    h.mul_(3.0)
    h.exp_()
    h.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 3 * np.exp(3 * np.array([1.0, 2.0])))


def test_setitem_with_autograd(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0, 3.0])
    v = f64(tg, [10.0])
    h = x * 1.0
    h[1] = v * 2
    np.testing.assert_allclose(h.detach().numpy(), [1.0, 20.0, 3.0])
    (h * f64(tg, [1.0, 2.0, 3.0], False)).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [1.0, 0.0, 3.0])
    np.testing.assert_allclose(v.grad.detach().numpy(), [4.0])


def test_setitem_without_autograd_writes_storage(engine):
    tg = engine
    x = tg.zeros(2, 3)
    x[0, 1:] = 5.0
    x[1] = tg.tensor([1.0, 2.0, 3.0])
    np.testing.assert_allclose(x.detach().numpy(), [[0, 5, 5], [1, 2, 3]])
    assert x._version == 2


# ---------------------------------------------------------------------------------------------
# gradient contract (reference: needs the test formulas)


def test_wrong_gradient_count_names_formula_and_line(ref):
    from formulas_for_tests import wrong_count

    tg = ref
    x, w = f64(tg, [1.0]), f64(tg, [2.0])
    with pytest.raises(RuntimeError, match=r"WrongCountBackward0 \(formula 'wrong_count' at "
                                           r"tests/engine/formulas_for_tests.py:\d+\) returned 1 "
                                           r"gradient\(s\), expected 2 \(one per Tensor "
                                           r"parameter: x, other\)"):
        wrong_count(x, w).sum().backward()


def test_wrong_gradient_shape_names_formula_and_shapes(ref):
    from formulas_for_tests import wrong_shape

    tg = ref
    x = f64(tg, np.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"WrongShapeBackward0 \(formula 'wrong_shape' at "
                                           r"tests/engine/formulas_for_tests.py:\d+\) returned "
                                           r"an invalid gradient at index 0 - got shape \(3,\) "
                                           r"but expected shape compatible with \(2, 3\)"):
        wrong_shape(x).sum().backward()


def test_broadcast_gradients_are_summed_down(ref):
    from formulas_for_tests import not_summed

    tg = ref
    x = f64(tg, np.ones((2, 3)))
    b = f64(tg, [1.0, 2.0, 3.0])
    c = f64(tg, [[5.0], [6.0]])
    not_summed(not_summed(x, b), c).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), np.ones((2, 3)))
    np.testing.assert_allclose(b.grad.detach().numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(c.grad.detach().numpy(), [[3.0], [3.0]])


def test_gradient_dtype_is_cast_to_the_input(ref):
    from formulas_for_tests import int_grad

    tg = ref
    x = f64(tg, [1.0, 2.0])
    int_grad(x).sum().backward()
    assert x.grad.dtype == tg.float64
    np.testing.assert_allclose(x.grad.detach().numpy(), [2.0, 2.0])


def test_hidden_output_is_invisible_and_gets_a_grad_slot(ref):
    from formulas_for_tests import sum_sq_hidden

    tg = ref
    x = f64(tg, [1.0, 2.0])
    y = sum_sq_hidden(x)
    assert isinstance(y, tg.Tensor) and y.shape == ()
    y.backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [2.0, 4.0])
    assert tg.autograd.gradgradcheck(sum_sq_hidden, (f64(tg, [0.3, -1.2]),))


def test_materialize_grads_and_undefined_grads(ref):
    from formulas_for_tests import split2, split2_none

    tg = ref
    for fn in (split2, split2_none):
        x = f64(tg, [1.0, 2.0])
        a, b = fn(x)
        b.sum().backward()  # a's grad is undefined: None or zeros inside the backward
        np.testing.assert_allclose(x.grad.detach().numpy(), [3.0, 3.0])
        assert tg.autograd.gradcheck(fn, (f64(tg, [0.5, 1.5]),))


def test_sequence_and_optional_parameters(ref):
    from formulas_for_tests import weighted_sum

    tg = ref
    a, b, w = f64(tg, [1.0, 2.0]), f64(tg, [3.0, 4.0]), f64(tg, [2.0, 2.0], False)
    weighted_sum([a, b], w).sum().backward()
    np.testing.assert_allclose(a.grad.detach().numpy(), [2.0, 2.0])
    np.testing.assert_allclose(b.grad.detach().numpy(), [2.0, 2.0])
    y = weighted_sum([a, b])
    assert len(y.grad_fn.next_functions) == 3 and y.grad_fn.next_functions[2] == (None, 0)


def test_once_differentiable_formula(ref):
    from formulas_for_tests import sin_once

    tg = ref
    x = f64(tg, [0.5, 1.0])
    (g,) = tg.autograd.grad(sin_once(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.cos([0.5, 1.0]))
    with pytest.raises(RuntimeError, match="once_differentiable") as info:
        g.sum().backward()
    assert "SinOnceBackward0" in str(info.value)


def test_composite_formula_records_inner_ops(ref):
    from formulas_for_tests import softplus_composite

    tg = ref
    x = f64(tg, [0.0, 1.0])
    y = softplus_composite(x)
    assert y.grad_fn.name() == "Log1PBackward0"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), 1 / (1 + np.exp(-np.array([0.0, 1.0]))))


def test_backward_error_gets_a_note_naming_the_node(ref):
    from formulas_for_tests import split2_none

    tg = ref
    x = f64(tg, [1.0])
    a, b = split2_none(x)

    def bad_hook(g):
        raise ValueError("boom")

    b.register_hook(bad_hook)
    with pytest.raises(ValueError, match="boom"):
        b.sum().backward()


# ---------------------------------------------------------------------------------------------
# hooks and retain_grad


def test_leaf_hook_can_replace_grad(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.detach().numpy().copy()) or g * 10)
    (x * 3).sum().backward()
    np.testing.assert_allclose(seen[0], [3.0, 3.0])
    np.testing.assert_allclose(x.grad.detach().numpy(), [30.0, 30.0])
    handle.remove()
    x.grad = None
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [3.0, 3.0])


def test_non_leaf_hook_and_retain_grad(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    h = x * 2
    h.retain_grad()
    h.register_hook(lambda g: g + 1)
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.detach().numpy(), [5.0, 9.0])       # hook result is retained
    np.testing.assert_allclose(x.grad.detach().numpy(), [10.0, 18.0])     # and flows on
    assert h.retains_grad


def test_hook_on_tensor_not_requiring_grad_fails(engine):
    tg = engine
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't "
                                           "require gradient"):
        tg.zeros(2).register_hook(lambda g: g)


def test_requires_grad_rules(engine):
    tg = engine
    x = f64(tg, [1.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype "
                                           "can require gradients"):
        tg.tensor([1, 2]).requires_grad_()
    assert not (x > 0).requires_grad
    d = y.detach()
    assert not d.requires_grad and d.is_leaf
    assert np.shares_memory(d.detach().numpy(), y.detach().numpy())


# ---------------------------------------------------------------------------------------------
# grad mode


def test_no_grad_context_and_decorator(engine):
    tg = engine
    x = f64(tg, [1.0])
    with tg.no_grad():
        assert not (x * 2).requires_grad
        with tg.enable_grad():
            assert (x * 2).requires_grad

    @tg.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad
    assert (x * 2).requires_grad
    tg.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        tg.set_grad_enabled(True)
    with tg.set_grad_enabled(False):
        assert not tg.is_grad_enabled()
    assert tg.is_grad_enabled()


def test_grad_mode_is_thread_local(engine):
    tg = engine
    seen = []
    with tg.no_grad():
        t = threading.Thread(target=lambda: seen.append(tg.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


# ---------------------------------------------------------------------------------------------
# grad_fn inspection


def test_grad_fn_is_inspectable(engine):
    tg = engine
    x = f64(tg, [1.0])
    y = x.sin()
    assert y.grad_fn.name() == "SinBackward0"
    (fn, nr), = y.grad_fn.next_functions
    assert nr == 0 and fn.name() == "AccumulateGrad"
    assert re.fullmatch(r"formulas/unary\.py:\d+", y.grad_fn.location)
    z = y * x
    assert [f.name() for f, _ in z.grad_fn.next_functions] == ["SinBackward0", "AccumulateGrad"]
    assert z.grad_fn.next_functions[1][0] is y.grad_fn.next_functions[0][0]  # one per leaf


# ---------------------------------------------------------------------------------------------
# long graphs


@pytest.mark.slow
def test_100k_node_chain(engine):
    tg = engine
    x = f64(tg, 1.0)
    y = x
    for _ in range(100_000):
        y = y * 1.000001
    y.backward()
    np.testing.assert_allclose(x.grad.item(), 1.000001 ** 100_000, rtol=1e-9)
    del y  # freed without recursion (would overflow the C stack otherwise)


def test_threads_run_backward_concurrently(engine):
    tg = engine
    errors, results = [], []

    def work(seed):
        try:
            x = tg.tensor(np.full(3, float(seed)), requires_grad=True)
            for _ in range(20):
                y = (x.sin() * x).sum()
                y.backward()
            results.append((seed, x.grad.detach().numpy().copy()))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for seed, g in results:
        a = float(seed)
        np.testing.assert_allclose(g, np.full(3, 20 * (np.cos(a) * a + np.sin(a))))


def test_import_does_not_load_formulas():
    import subprocess
    import sys

    code = ("import sys, transgrad.reference as tg; "
            "assert not any(m.startswith('transgrad.formulas.') for m in sys.modules), "
            "sorted(m for m in sys.modules if 'formulas' in m); "
            "assert 'libcst' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_detect_anomaly_names_the_node_making_nan(engine):
    tg = engine
    x = f64(tg, [-1.0, 4.0])
    y = x.sqrt().sum()  # sqrt(-1) = nan, its gradient too
    with tg.autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="SqrtBackward0.*returned nan values"):
            y.backward(retain_graph=True)
    y.backward()  # outside detect_anomaly: no check
    assert np.isnan(x.grad.detach().numpy()[0])


def test_double_backward_through_a_hidden_output(ref):
    from formulas_for_tests import sum_exp_hidden

    tg = ref
    x = f64(tg, [0.2, -0.4])
    y = sum_exp_hidden(x)
    (g,) = tg.autograd.grad(y, x, create_graph=True)
    assert g.grad_fn is not None
    (g2,) = tg.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(g2.detach().numpy(), np.exp([0.2, -0.4]))
    assert tg.autograd.gradgradcheck(sum_exp_hidden, (f64(tg, [0.3, 0.1]),))


def test_dtype_and_shape_errors_of_ops(engine):
    tg = engine
    with pytest.raises(ValueError, match="bool"):
        tg.where(tg.tensor([1, 0]), tg.ones(2), tg.zeros(2))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(2x3 and 4x5\)"):
        tg.ones(2, 3) @ tg.ones(4, 5)
    with pytest.raises(RuntimeError, match=r"shape '\[4, 2\]' is invalid for input of size 6"):
        tg.ones(2, 3).reshape(4, 2)


def test_backward_inputs_with_a_non_leaf(engine):
    tg = engine
    x = f64(tg, [1.0, 2.0])
    h = x * 3
    (h * h).sum().backward(inputs=[h])
    np.testing.assert_allclose(h.grad.detach().numpy(), [6.0, 12.0])
    assert x.grad is None


def test_grad_materialize_grads(engine):
    tg = engine
    x, z = f64(tg, [1.0]), f64(tg, [2.0, 3.0])
    gx, gz = tg.autograd.grad((x * 2).sum(), [x, z], materialize_grads=True)
    np.testing.assert_allclose(gz.detach().numpy(), [0.0, 0.0])


def test_leaf_grads_never_alias(engine):
    tg = engine
    a, b = f64(tg, [1.0]), f64(tg, [1.0])
    (a + b).sum().backward()  # add's backward gives both inputs the same gradient object
    with tg.no_grad():
        a.grad.mul_(10)
    np.testing.assert_allclose(b.grad.detach().numpy(), [1.0])
    g = f64(tg, [5.0], requires_grad=False)
    c = f64(tg, [1.0])
    c.backward(g)  # a leaf as the root: its .grad must not be the caller's tensor
    with tg.no_grad():
        c.grad.zero_()
    np.testing.assert_allclose(g.detach().numpy(), [5.0])


def test_accumulation_with_create_graph_keeps_history(engine):
    tg = engine
    x = f64(tg, [2.0])
    (x * x).sum().backward(create_graph=True)
    (x * x * x).sum().backward(create_graph=True)
    np.testing.assert_allclose(x.grad.detach().numpy(), [2 * 2.0 + 3 * 4.0])
    (g2,) = tg.autograd.grad(x.grad.sum(), x)
    np.testing.assert_allclose(g2.detach().numpy(), [2.0 + 6 * 2.0])


def test_hooks_run_in_registration_order(engine):
    tg = engine
    x = f64(tg, [1.0])
    order = []
    x.register_hook(lambda g: order.append("a") or g * 2)
    x.register_hook(lambda g: order.append("b") or g + 1)
    (x * 1).sum().backward()
    assert order == ["a", "b"]
    np.testing.assert_allclose(x.grad.detach().numpy(), [3.0])


def test_in_place_on_views_from_indexing(engine):
    tg = engine
    a = np.arange(6.0).reshape(2, 3) + 1
    x = f64(tg, a)
    w = f64(tg, [10.0, 20.0])
    y = x * 1
    y[0].mul_(2)             # through a select view
    y[:, 1] += w             # augmented assignment on a slice view
    row = y[1]
    row[1:].exp_()           # a view of a view
    np.testing.assert_allclose(y.detach().numpy()[0], [2 * a[0, 0], 2 * a[0, 1] + 10,
                                                       2 * a[0, 2]])
    (y * f64(tg, np.arange(6.0).reshape(2, 3), False)).sum().backward()
    expected = np.array([[0.0, 2.0, 4.0],
                         [3.0, 4 * np.exp(a[1, 1] + 20), 5 * np.exp(a[1, 2])]])
    np.testing.assert_allclose(x.grad.detach().numpy(), expected)
    np.testing.assert_allclose(w.grad.detach().numpy(), [1.0, 4 * np.exp(a[1, 1] + 20)])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x[0].mul_(2)


def test_in_place_on_views_matches_torch(engine):
    torch = pytest.importorskip("torch")
    tg = engine
    a = np.random.default_rng(5).standard_normal((3, 4))

    def program(m, x):
        y = x.sin() * 1
        y[1].mul_(3)
        y[:, 2] += y[0, :3].sum() if m is tg else y[0, :3].sum()
        y[2, 1:3].exp_()
        return (y * y).sum()

    x, tx = f64(tg, a), torch.tensor(a, requires_grad=True)
    program(tg, x).backward()
    program(torch, tx).backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), tx.grad.detach().numpy(), rtol=1e-10)


def test_in_place_on_rows_while_iterating(engine):
    tg = engine
    x = f64(tg, [[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    for i, row in enumerate(y):
        row.mul_(i + 1)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), [[1.0, 1.0], [2.0, 2.0]])
