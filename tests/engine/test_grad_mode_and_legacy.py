"""Grad-mode decorators (generators, bare and direct forms, set_grad_enabled), custom
Function forms (setup_context with defaults, bare None from backward), materialize_grads under
create_graph, and the legacy names (Variable, InplaceFunction, set_multithreading_enabled), on
both engines, as torch 2.13 behaves."""

import pytest


def _leaf(tg):
    return tg.ones(3, dtype=tg.float64, requires_grad=True)


# ---- grad mode -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["no_grad", "enable_grad"])
def test_mode_decorates_generator_each_resume(engine, mode):
    tg = engine
    x = _leaf(tg)
    deco = getattr(tg, mode)
    want = mode == "enable_grad"
    seen = []

    @deco()
    def gen():
        seen.append(tg.is_grad_enabled())
        got = yield x * 2
        seen.append(tg.is_grad_enabled())
        yield x * got

    outer = not want
    with tg.set_grad_enabled(outer):
        it = gen()
        a = next(it)
        assert tg.is_grad_enabled() is outer  # suspended: the caller's mode is back
        b = it.send(3.0)
        assert tg.is_grad_enabled() is outer
        with pytest.raises(StopIteration):
            next(it)
    assert seen == [want, want]
    assert a.requires_grad is want and b.requires_grad is want


def test_generator_close_and_throw_run_under_mode(engine):
    tg = engine
    seen = []

    @tg.no_grad()
    def gen():
        try:
            yield 1
        except ValueError:
            seen.append(("throw", tg.is_grad_enabled()))
            yield 2
        finally:
            seen.append(("finally", tg.is_grad_enabled()))

    it = gen()
    next(it)
    assert it.throw(ValueError("x")) == 2
    it.close()
    assert seen == [("throw", False), ("finally", False)]
    assert tg.is_grad_enabled()


def test_generator_return_value_passes_through(engine):
    tg = engine

    @tg.no_grad
    def gen():
        yield 1
        return "done"

    it = gen()
    next(it)
    with pytest.raises(StopIteration) as info:
        next(it)
    assert info.value.value == "done"


def test_bare_and_direct_decorators(engine):
    tg = engine
    x = _leaf(tg)

    @tg.enable_grad
    def on():
        return x * 2

    @tg.no_grad
    def off():
        return x * 2

    direct = tg.no_grad(lambda: x * 2)
    with tg.no_grad():
        assert on().requires_grad
    assert not off().requires_grad
    assert not direct().requires_grad
    assert on.__name__ == "on" and off.__name__ == "off"
    with pytest.raises(TypeError):
        tg.no_grad(3)


def test_set_grad_enabled_call_context_decorator(engine):
    tg = engine
    x = _leaf(tg)
    assert tg.is_grad_enabled()
    tg.set_grad_enabled(False)  # a plain call switches at once
    try:
        assert not tg.is_grad_enabled()
        assert not (x * 2).requires_grad
    finally:
        tg.set_grad_enabled(True)
    assert tg.is_grad_enabled()
    with tg.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert tg.is_grad_enabled()

    @tg.set_grad_enabled(False)
    def f():
        return x * 2

    assert tg.is_grad_enabled()  # decorating does not change the mode
    assert not f().requires_grad
    assert tg.is_grad_enabled()

    @tg.set_grad_enabled(False)
    def gen():
        yield x * 2

    assert not next(gen()).requires_grad


def test_grad_mode_torch_agrees():
    torch = pytest.importorskip("torch")
    x = torch.ones(2, requires_grad=True)

    @torch.no_grad()
    def gen():
        yield x * 2

    assert not next(gen()).requires_grad
    assert not torch.no_grad(lambda: x * 2)().requires_grad

    @torch.enable_grad
    def on():
        return x * 2

    with torch.no_grad():
        assert on().requires_grad


# ---- custom Functions ------------------------------------------------------------------------

def test_setup_context_with_defaults(engine):
    tg = engine
    seen = []

    class Scale(tg.autograd.Function):
        @staticmethod
        def forward(x, k=3.0):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append((len(inputs), inputs[1], tuple(output.shape)))
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = _leaf(tg)
    Scale.apply(x).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]
    x.grad = None
    Scale.apply(x, 2.0).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    x.grad = None
    Scale.apply(x, k=5.0).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0, 5.0]
    assert seen == [(2, 3.0, (3,)), (2, 2.0, (3,)), (2, 5.0, (3,))]
    assert tg.autograd.gradcheck(lambda t: Scale.apply(t, 1.5), (x,))


def test_setup_context_saves_tensors(engine):
    tg = engine

    class Square(tg.autograd.Function):
        @staticmethod
        def forward(x):
            return x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = tg.tensor([1.0, 2.0, -3.0], dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(Square.apply, (x,))
    assert tg.autograd.gradgradcheck(Square.apply, (x,))


@pytest.mark.parametrize("how", ["none", "nothing"])
def test_backward_returning_bare_none(engine, how):
    tg = engine

    class Stop(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            if how == "none":
                return

    x = _leaf(tg)
    y = x * 1
    (Stop.apply(x) + y).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]  # only through y


def test_backward_bare_none_with_two_inputs_is_refused(engine):
    tg = engine

    class Two(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x * y

        @staticmethod
        def backward(ctx, g):
            return

    x, y = _leaf(tg), _leaf(tg)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Two.apply(x, y).sum().backward()


def test_inplace_function(engine):
    tg = engine
    from importlib import import_module

    fn_mod = import_module(tg.autograd.__name__ + ".function")
    assert issubclass(fn_mod.InplaceFunction, tg.autograd.Function)
    assert fn_mod.Function is tg.autograd.Function
    assert fn_mod.InplaceFunction().inplace is False
    assert fn_mod.InplaceFunction(inplace=True).inplace is True

    class Double(fn_mod.InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = _leaf(tg)
    Double.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


# ---- materialize_grads -----------------------------------------------------------------------

def test_materialize_grads_requires_grad_under_create_graph(engine):
    tg = engine
    x = _leaf(tg)
    z = tg.ones(3, dtype=tg.float64, requires_grad=True)
    y = (x * x).sum()
    gx, gz = tg.autograd.grad(y, [x, z], create_graph=True, materialize_grads=True)
    assert gz.tolist() == [0.0, 0.0, 0.0] and gz.requires_grad
    # the next grad() works through the zeros (d/dz of sum(0 * z) is zero, not an error)
    (h,) = tg.autograd.grad((gx + gz).sum(), [x], allow_unused=True)
    assert h.tolist() == [2.0, 2.0, 2.0]
    y = (x * x).sum()
    _, gz = tg.autograd.grad(y, [x, z], materialize_grads=True)
    assert not gz.requires_grad  # without create_graph: plain zeros, as torch
    with pytest.raises(ValueError, match="Expected allow_unused to be True"):
        tg.autograd.grad((x * x).sum(), [x, z], materialize_grads=True, allow_unused=False)


def test_function_materialized_grads_feed_second_grad(engine):
    tg = engine

    class Pair(tg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            (x,) = ctx.saved_tensors
            assert g2 is not None and g2.tolist() == [0.0, 0.0, 0.0]
            return g1 * 2 * x + g2 * 3

    x = _leaf(tg)
    a, _ = Pair.apply(x)
    (g,) = tg.autograd.grad(a.sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 2.0, 2.0] and g.requires_grad
    (h,) = tg.autograd.grad(g.sum(), x)
    assert h.tolist() == [2.0, 2.0, 2.0]


# ---- legacy names ----------------------------------------------------------------------------

def test_variable(engine):
    tg = engine
    x = _leaf(tg)
    v = tg.autograd.Variable(x)
    assert v is not x and not v.requires_grad and v.is_leaf
    assert v._shares_storage(x)
    assert isinstance(x, tg.autograd.Variable)
    assert not isinstance(3, tg.autograd.Variable)
    w = tg.autograd.Variable(tg.ones(2), requires_grad=True)
    assert w.requires_grad and w.is_leaf
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]
    assert tuple(tg.autograd.Variable().shape) == (0,)
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        tg.autograd.Variable([1, 2])


def test_set_multithreading_enabled(engine):
    tg = engine
    ag = tg.autograd
    assert ag.is_multithreading_enabled()
    ag.set_multithreading_enabled(False)
    try:
        assert not ag.is_multithreading_enabled()
        x = _leaf(tg)
        (x * x).sum().backward()  # backward still runs (on this thread, as always)
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    finally:
        ag.set_multithreading_enabled(True)
    with ag.set_multithreading_enabled(False):
        assert not ag.is_multithreading_enabled()
    assert ag.is_multithreading_enabled()


# ---- Tensor.new and the data setter ----------------------------------------------------------

def test_tensor_new(engine):
    tg = engine
    x = tg.ones(2, dtype=tg.float64, requires_grad=True)
    a = x.new(2, 3)
    assert tuple(a.shape) == (2, 3) and a.dtype == x.dtype and not a.requires_grad
    assert tuple(x.new(x.size()).shape) == (2,)
    assert tuple(x.new().shape) == (0,) and x.new().dtype == x.dtype
    b = x.new([1, 2])
    assert b.tolist() == [1.0, 2.0] and b.dtype == tg.float64
    src = tg.ones(3, dtype=tg.float64)
    c = x.new(src)
    c[0] = 7.0  # an alias, as torch's
    assert src.tolist() == [7.0, 1.0, 1.0]
    with pytest.raises(TypeError, match="new\\(\\): data must be a sequence"):
        x.new(2.5)
    with pytest.raises(TypeError):
        x.new(tg.ones(3, dtype=tg.int64))


def test_tensor_new_torch_agrees():
    torch = pytest.importorskip("torch")
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    assert x.new(2, 3).shape == (2, 3) and not x.new(2, 3).requires_grad
    assert x.new(x.size()).shape == (2,) and x.new().shape == (0,)
    assert x.new([1, 2]).tolist() == [1.0, 2.0] and x.new([1, 2]).dtype == torch.float64
    with pytest.raises(TypeError, match="data must be a sequence"):
        x.new(2.5)


def test_data_setter_keeps_identity(engine):
    tg = engine
    x = tg.ones(2, dtype=tg.float64, requires_grad=True)
    ident = id(x)
    y = tg.zeros(3, dtype=tg.float64)
    x.data = y
    assert id(x) == ident and x.requires_grad and x.is_leaf
    assert x.tolist() == [0.0, 0.0, 0.0]
    y[0] = 5.0  # x holds y's storage
    assert x.tolist()[0] == 5.0
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
        x.data = [1.0]
    with pytest.raises(RuntimeError, match="must be floating point or complex dtype"):
        x.data = tg.zeros(2, dtype=tg.int64)


def test_data_setter_torch_agrees():
    torch = pytest.importorskip("torch")
    x = torch.ones(2, dtype=torch.float64, requires_grad=True)
    ident, y = id(x), torch.zeros(3, dtype=torch.float64)
    x.data = y
    y[0] = 5.0
    assert id(x) == ident and x.requires_grad and x.tolist() == [5.0, 0.0, 0.0]
    with pytest.raises(RuntimeError, match="must be floating point or complex dtype"):
        x.data = torch.zeros(2, dtype=torch.int64)


# ---- anomaly mode wording --------------------------------------------------------------------

def test_anomaly_nan_message_is_torchs_sentence(engine):
    tg = engine
    x = tg.tensor([0.0, 1.0], dtype=tg.float64, requires_grad=True)
    with tg.autograd.detect_anomaly():
        y = (x.sqrt() * 0.0).sum()  # d sqrt at 0 is inf: 0 * inf = nan
        with pytest.raises(RuntimeError, match=r"^Function '\w+' returned nan values in its "
                                               r"0th output\. \(function \w+ \("):
            y.backward()


def test_anomaly_nan_message_torch_agrees():
    torch = pytest.importorskip("torch")
    x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
    with torch.autograd.detect_anomaly():
        y = (x.sqrt() * 0.0).sum()
        with pytest.raises(RuntimeError, match=r"^Function '\w+' returned nan values in its "
                                               r"0th output\."):
            y.backward()
