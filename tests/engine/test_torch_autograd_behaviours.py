"""Autograd behaviours torch's own test_autograd.py relies on (issue 11), on both engines, each
compared with torch where it is installed: final callbacks of the running backward
(``Variable._execution_engine.queue_callback``), deep re-entrant backward, anomaly mode's
warnings ("Error detected in ..." with the forward traces of the node and of the node whose
backward made it), ``.grad`` adopting the incoming gradient when nothing else holds it, writes
into an expanded gradient, ``leaky_relu_``/``rrelu_`` and the unsafe splits, the legacy
constructor's default dtype, ``Node.register_hook`` accepting any object."""

import gc
import warnings
import weakref

import numpy as np
import pytest


def f64(tg, a, requires_grad=True):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def engines(engine):
    """The engine under test, and torch when installed (the same code runs on both)."""
    out = [engine]
    try:
        import torch

        out.append(torch)
    except ImportError:
        pass
    return out


# ---- final callbacks ------------------------------------------------------------------------


def callback_counts(tg, depths):
    """How often the callbacks queued by an outer and an inner (re-entrant) backward ran."""
    counter = {"inner": 0, "outer": 0}
    order = []
    eng = tg.autograd.Variable._execution_engine

    class Inner(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if 1 in depths:
                eng.queue_callback(lambda: counter.__setitem__("inner", counter["inner"] + 1))
            return g

    class Outer(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if 0 in depths:
                def outer_done():
                    order.append("outer")
                    counter["outer"] += 1
                    eng.queue_callback(lambda: order.append("queued by a callback"))
                eng.queue_callback(outer_done)
            t = g.detach().requires_grad_()
            with tg.enable_grad():
                Inner.apply(t).sum().backward()
            order.append("inner backward returned")
            return g

    x = tg.ones(3, requires_grad=True)
    tg.autograd.backward([Outer.apply(x).sum()])
    return counter["outer"], counter["inner"], order


@pytest.mark.parametrize("depths", [[0], [1], [0, 1]])
def test_queue_callback_runs_at_the_end_of_its_own_backward(engine, depths):
    for tg in engines(engine):
        outer, inner, order = callback_counts(tg, depths)
        assert (outer, inner) == (int(0 in depths), int(1 in depths)), tg.__name__
        if 0 in depths:  # after the nested backward, and a callback may queue another
            assert order == ["inner backward returned", "outer", "queued by a callback"]


def test_queue_callback_outside_backward_raises_torch_error(engine):
    for tg in engines(engine):
        with pytest.raises(RuntimeError, match="Final callbacks can only be installed during "
                                               "backward pass"):
            tg.autograd.Variable._execution_engine.queue_callback(lambda: None)


# ---- deep re-entrant backward ---------------------------------------------------------------


def deep_reentrant_grad(tg):
    """600 nested backwards, each run from the backward of the level above."""
    class Deep(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with tg.enable_grad():
                ctx.x = x.detach().requires_grad_() - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            if ctx.x < 0:
                return g
            with tg.enable_grad():
                Deep.apply(ctx.x).sum().backward()
            return g * 2

    v = tg.tensor(600.0, requires_grad=True)
    Deep.apply(v).sum().backward()
    return float(v.grad)


def test_deep_reentrant_backward_does_not_exhaust_the_stack(engine):
    results = [deep_reentrant_grad(tg) for tg in engines(engine)]
    assert results[0] == 2.0
    assert len(set(results)) == 1


def test_reentrant_backward_on_another_thread_keeps_saved_tensor_hooks(engine):
    """Past the depth where the nested backward moves to a new thread, a forward run in that
    backward still sees the caller's saved-tensor hooks (torch keeps its thread-local state)."""
    tg = engine
    packed = []

    class Deep(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.depth = int(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            if ctx.depth > 0:
                with tg.enable_grad():
                    t = tg.tensor(float(ctx.depth - 1), dtype=tg.float64, requires_grad=True)
                    (Deep.apply(t) * t).sum().backward()  # mul saves t: packed
            return g

    with tg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        Deep.apply(tg.tensor(80.0, dtype=tg.float64, requires_grad=True)).backward()
    assert len(packed) == 80 * 2


# ---- anomaly mode ---------------------------------------------------------------------------


def nan_function(tg):
    class MyFunc(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            gi = g.clone().expand(4)
            gi[0] = 0  # one element of an expanded gradient: writable, as torch's
            gi[0] /= 0
            return gi
    return MyFunc


def test_anomaly_warns_error_detected_with_the_forward_trace(engine):
    for tg in engines(engine):
        MyFunc = nan_function(tg)
        x = tg.rand(4, requires_grad=True, dtype=tg.float64)
        out = MyFunc.apply(x)  # made with anomaly mode off
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="Function 'MyFuncBackward' returned nan "
                                                   "values in its 0th output."):
                with tg.autograd.detect_anomaly():
                    out.backward()
        msgs = [str(m.message) for m in w]
        assert msgs[0].startswith("Anomaly Detection has been enabled"), tg.__name__
        assert any(m.startswith("Error detected in MyFuncBackward. No forward pass information "
                                "available.") for m in msgs), (tg.__name__, msgs)

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="returned nan values"):
                with tg.autograd.detect_anomaly():
                    out = MyFunc.apply(x)  # MARK-made-here
                    out.backward()
        errors = [str(m.message) for m in w if "Error detected in" in str(m.message)]
        assert len(errors) == 1, (tg.__name__, errors)
        assert errors[0].startswith("Error detected in MyFuncBackward. Traceback of forward call "
                                    "that caused the error:")
        assert "MARK-made-here" in errors[0]


def test_anomaly_warns_once_for_an_inplace_error(engine):
    for tg in engines(engine):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="modified by an inplace operation"):
                with tg.autograd.detect_anomaly():
                    a = tg.randn(5, requires_grad=True)
                    d1 = a + 1
                    d2 = d1 ** 2
                    d1 += 1
                    tg.autograd.grad(d2.sum(), a)
        assert len(w) == 2, (tg.__name__, [str(m.message)[:80] for m in w])
        assert "Anomaly Detection has been enabled" in str(w[0].message)
        assert str(w[1].message).startswith("Error detected in PowBackward0. Traceback of "
                                            "forward call that caused the error:")


def test_anomaly_warning_names_the_node_whose_backward_made_the_failing_one(engine):
    for tg in engines(engine):
        class Inner(tg.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2.0

            @staticmethod
            def backward(ctx, g):
                g = g.clone()
                g[0] = 0
                g[0] /= 0
                return g

        class Outer(tg.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a)
                return a * 1

            @staticmethod
            def backward(ctx, g):
                (a,) = ctx.saved_tensors
                return Inner.apply(g * a)  # MARK-inner-made

        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with pytest.raises(RuntimeError, match="Function 'InnerBackward' returned nan"):
                with tg.autograd.detect_anomaly():
                    x = tg.rand(3, requires_grad=True, dtype=tg.float64)
                    out = Outer.apply(x)  # MARK-outer-made
                    (gi,) = tg.autograd.grad(out.sum(), x, create_graph=True)
                    gi.sum().backward()
        msgs = [str(m.message) for m in w]
        at = next(i for i, m in enumerate(msgs) if "Error detected in" in m)
        assert msgs[at].startswith("Error detected in InnerBackward.")
        assert "MARK-inner-made" in msgs[at]
        # one warning more, as torch's, for the node whose backward made InnerBackward
        assert msgs[at + 1].startswith("\n\nPrevious calculation was induced by OuterBackward. "
                                       "Traceback of forward call that induced the previous "
                                       "calculation:"), (tg.__name__, msgs)
        assert "MARK-outer-made" in msgs[at + 1]


# ---- .grad adopts the incoming gradient -----------------------------------------------------


def adoption_case(tg):
    class Twice(tg.autograd.Function):
        ptr = None

        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            Twice.ptr = g.data_ptr()
            return g, g

    class Expanded(tg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.shape = a.shape
            return tg.ones(1, dtype=a.dtype)

        @staticmethod
        def backward(ctx, g):
            return tg.ones(1, dtype=g.dtype).expand(ctx.shape)

    a = tg.randn(5, 6, requires_grad=True, dtype=tg.float64)
    b = tg.randn(5, 6, requires_grad=True, dtype=tg.float64)
    Expanded.apply(Twice.apply(a, b)).backward()
    # an expanded gradient is never adopted: .grad is a dense copy
    assert a.grad.data_ptr() != Twice.ptr and b.grad.data_ptr() != Twice.ptr
    a.grad = b.grad = None
    Twice.apply(a, b)[1][0].backward()
    pa, pb = a.grad.data_ptr(), b.grad.data_ptr()
    assert pa != pb, tg.__name__
    assert Twice.ptr in (pa, pb), tg.__name__  # the last holder adopts it
    a.grad.add_(1)  # and accumulating into one never changes the other
    assert float(b.grad.sum()) == 1.0


def test_grad_adopts_the_buffer_nothing_else_holds(engine):
    for tg in engines(engine):
        adoption_case(tg)


def test_grad_is_a_copy_when_a_hook_keeps_the_gradient(ref):
    tg = ref
    kept = []
    x = tg.randn(3, requires_grad=True)
    x.register_hook(lambda g: kept.append(g))
    (x * 3).sum().backward()
    assert x.grad.data_ptr() != kept[-1].data_ptr()
    x.grad.add_(1)
    np.testing.assert_allclose(kept[-1].numpy(), [3.0, 3.0, 3.0])


def test_whole_writes_into_an_expanded_tensor_are_refused(engine):
    tg = engine
    x = tg.ones(1).expand(3)
    for write in (lambda: x.add_(1), lambda: x.zero_()):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor "
                                               "refers to a single memory location"):
            write()
    y = tg.ones(1).clone().expand(3)
    y[0] = 5
    np.testing.assert_array_equal(y.numpy(), [5.0, 5.0, 5.0])


# ---- leaky_relu_, rrelu_, unsafe splits -----------------------------------------------------


def test_leaky_relu_inplace_with_negative_slope_refuses_backward(engine):
    for tg in engines(engine):
        F = tg.nn.functional
        a = f64(tg, [-1.0, 1.0])
        b = F.leaky_relu_(a.clone(), -2)
        np.testing.assert_allclose(b.detach().numpy(), [2.0, 1.0])
        with pytest.raises(RuntimeError, match="call out-of-place version"):
            b.backward(tg.ones(2, dtype=tg.float64))
        b = F.rrelu_(a.clone(), -5.0, 1.0)  # evaluation: slope (lower + upper) / 2 = -2
        with pytest.raises(RuntimeError, match="call out-of-place version"):
            b.backward(tg.ones(2, dtype=tg.float64))
        a = f64(tg, [-2.0, 0.0, 2.0])
        F.leaky_relu_(a.clone(), 0.0).backward(tg.ones(3, dtype=tg.float64))
        np.testing.assert_allclose(a.grad.numpy(), [0.0, 0.0, 1.0])
        a.grad = None
        F.leaky_relu_(a.clone(), 0.5).backward(tg.ones(3, dtype=tg.float64))
        np.testing.assert_allclose(a.grad.numpy(), [0.5, 0.5, 1.0])


def test_rrelu_training_draws_slopes_within_bounds(engine):
    tg = engine
    x = f64(tg, -np.ones(1000))
    y = tg.nn.functional.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and slopes.std() > 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes)  # d(x * slope)/dx


@pytest.mark.parametrize("split", [lambda t: t.unsafe_split(1),
                                   lambda t: t.unsafe_split_with_sizes((1, 1, 1)),
                                   lambda t: t.unsafe_chunk(3)])
def test_unsafe_split_pieces_may_change_in_place(engine, split):
    grads = []
    for tg in engines(engine):
        a = tg.tensor(np.arange(9.0).reshape(3, 3), requires_grad=True)
        s1, s2, s3 = split(a + a)
        s1.mul_(s2)
        (s1.sum() + s3.sum()).backward()
        grads.append(a.grad.numpy().copy())
    # s1 * s2 + s3: d/da = 2 * (2 a[1]) in row 0, 2 * (2 a[0]) in row 1, 2 in row 2
    a = np.arange(9.0).reshape(3, 3)
    np.testing.assert_allclose(grads[0], np.stack([4 * a[1], 4 * a[0], 2 * np.ones(3)]))
    for g in grads[1:]:
        np.testing.assert_allclose(grads[0], g)


def test_safe_split_pieces_still_refuse_in_place(engine):
    tg = engine
    a = tg.randn(3, 3, requires_grad=True)
    s1, s2, s3 = (a + a).split(1)
    with pytest.raises(RuntimeError, match="This view is the output of a function that returns "
                                           "multiple views"):
        s1.mul_(s2)


# ---- legacy constructor, Node.register_hook ---------------------------------------------------


def test_legacy_constructor_follows_the_default_dtype(engine):
    for tg in engines(engine):
        prev = tg.get_default_dtype()
        tg.set_default_dtype(tg.float64)
        try:
            assert tg.Tensor(1, 10).dtype == tg.float64
            assert tg.Tensor([1.0]).dtype == tg.float64
            assert tg.FloatTensor(2).dtype == tg.float32
        finally:
            tg.set_default_dtype(prev)
        assert tg.Tensor(2).dtype == tg.float32


def node_hook_deallocations(tg):
    dealloc = [0]

    class Inc:
        def __del__(self):
            dealloc[0] += 1

    def run():
        root = tg.randn(3, 3, requires_grad=True)
        c = root.clone()
        c.grad_fn.register_hook(Inc())
        v = c.view(9)
        tg.nn.functional.relu(v, inplace=True)

    run()
    gc.collect()
    return dealloc[0]


def test_node_hook_may_be_any_object_and_dies_with_the_graph(engine):
    for tg in engines(engine):
        assert node_hook_deallocations(tg) == 1, tg.__name__


def test_custom_function_node_class_is_named_after_the_function(engine):
    for tg in engines(engine):
        class MyFn(tg.autograd.Function):
            @staticmethod
            def forward(ctx, inp, inplace):
                v = inp.clone()[:3]
                if inplace:
                    v += 2
                return v

            @staticmethod
            def backward(ctx, g):
                return g, None

        base = tg.rand(10, requires_grad=True)
        for inplace in (False, True):
            fn = MyFn.apply(base, inplace).grad_fn
            assert type(fn).__name__ == "MyFnBackward", (tg.__name__, type(fn))
            assert fn.name() == "MyFnBackward"
        leaf = type(MyFn.apply(base, False).grad_fn.next_functions[0][0])
        assert leaf.__name__ == "AccumulateGrad", tg.__name__


# ---- saves for one gradient (Note [Saves for one gradient]) ----------------------------------


def test_mul_saves_an_input_only_for_the_other_gradient(engine):
    for tg in engines(engine):
        mu = tg.ones(1, requires_grad=True, dtype=tg.float64)
        x = tg.empty(1, dtype=tg.float64)
        loss = 0
        for i in range(3):
            x.detach_()
            x.copy_(mu + i)
            ft = tg.tensor([float(i)], dtype=tg.float64)
            loss += (x * ft).sum()  # x changes in place later: only ft is saved
        loss.backward()
        assert float(mu.grad) == 3.0, tg.__name__

        # when x's change matters (ft needs its gradient, which reads x), it is still an error
        a = tg.ones(2, requires_grad=True, dtype=tg.float64)
        b = tg.full((2,), 2.0, requires_grad=True, dtype=tg.float64)
        y = a * 1
        z = y * b
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def dividend_kept(tg):
    """Whether ``y / 2`` keeps ``y`` (a non-leaf with retain_grad) alive; checks the grad."""
    x = tg.ones(5, 5, requires_grad=True)
    refs = []

    def run():
        y = x * 2
        y.retain_grad()
        refs.append(weakref.ref(y))
        return y / 2

    z = run()
    gc.collect()
    kept = refs[0]() is not None
    z.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((5, 5)))
    return kept


def test_division_by_a_number_does_not_keep_the_dividend(engine):
    for tg in engines(engine):
        assert not dividend_kept(tg), tg.__name__


@pytest.mark.parametrize("needs", [(True, False), (False, True), (True, True)])
def test_gradients_with_conditional_saves_are_right(engine, needs):
    tg = engine
    rng = np.random.default_rng(0)
    for op in (lambda a, b: a * b, lambda a, b: a / b, lambda a, b: tg.atan2(a, b)):
        a = f64(tg, rng.uniform(0.5, 2.0, (3, 4)), requires_grad=needs[0])
        b = f64(tg, rng.uniform(0.5, 2.0, (4,)), requires_grad=needs[1])
        assert tg.autograd.gradcheck(op, (a, b))
        assert tg.autograd.gradgradcheck(op, (a, b))
