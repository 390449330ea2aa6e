"""transgrad.func (torch.func) on both engines: values and gradients against torch and closed
forms, nesting to third order, pytrees, vmap's loop semantics, functional_call, and torch's
errors word for word."""

import numpy as np
import pytest

A = np.array([0.3, -1.2, 2.0])
B = np.array([[0.5, -0.25, 1.5], [2.0, 0.1, -0.7]])


def f64(tg, a, requires_grad=False):
    return tg.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def npy(t):
    return t.detach().numpy()


def _np_tree(tree):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_np_tree(x) for x in tree)
    if isinstance(tree, dict):
        return {k: _np_tree(v) for k, v in tree.items()}
    return tree.detach().numpy() if hasattr(tree, "detach") else tree


def assert_trees_close(a, b, rtol=1e-10, atol=1e-12):
    a, b = _np_tree(a), _np_tree(b)
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_trees_close(x, y, rtol, atol)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_trees_close(a[k], b[k], rtol, atol)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
        assert np.shape(a) == np.shape(b)


def on(lib, a):
    """A float64 tensor of ``lib`` (transgrad's engine or torch)."""
    return lib.from_numpy(np.array(a, dtype=np.float64))


# ---------------------------------------------------------------------------------------------
# grad and grad_and_value


def _f(m, x):
    return (m.sin(x) * x ** 2).sum()


def _g(m, x, y):
    return (m.exp(x[:2]) * y[0, :2]).sum() + (x * x).sum() * y[1, 1]


def _grads(lib):
    F = lib.func
    return dict(
        g=F.grad(lambda x: _f(lib, x))(on(lib, A)),
        gg=F.grad(lambda x: F.grad(lambda x: _f(lib, x))(x).sum())(on(lib, A)),
        two=F.grad(lambda x, y: _g(lib, x, y), argnums=(0, 1))(on(lib, A), on(lib, B)),
        second=F.grad(lambda x, y: _g(lib, x, y), argnums=1)(on(lib, A), on(lib, B)),
        neg=F.grad(lambda x, y: _g(lib, x, y), argnums=-1)(on(lib, A), on(lib, B)),
        gv=F.grad_and_value(lambda x: _f(lib, x))(on(lib, A)),
        aux=F.grad(lambda x: (_f(lib, x), x.cos()), has_aux=True)(on(lib, A)),
        gva=F.grad_and_value(lambda x: (_f(lib, x), {"c": x * 2}), has_aux=True)(on(lib, A)),
        unused=F.grad(lambda x, y: (x * 2).sum(), argnums=1)(on(lib, A), on(lib, A)),
    )


def test_grad_against_torch(engine):
    torch = pytest.importorskip("torch")
    mine, theirs = _grads(engine), _grads(torch)
    for k in mine:
        assert_trees_close(mine[k], theirs[k])
    assert not mine["g"].requires_grad and mine["g"].grad_fn is None


def test_grad_of_pytrees_against_torch(engine):
    torch = pytest.importorskip("torch")

    def loss(lib, params, x):
        h = lib.tanh(x @ params["w"][0] + params["b"])
        return (h * params["w"][1]).sum()

    def run(lib):
        params = {"w": [on(lib, B.T), on(lib, [1.0, -2.0])], "b": on(lib, [0.1, 0.2])}
        return lib.func.grad(lambda p, x: loss(lib, p, x))(params, on(lib, B))

    res = [run(engine), run(torch)]
    assert_trees_close(*res)
    assert list(res[0]) == ["w", "b"] and isinstance(res[0]["w"], list)


def test_nested_grad_to_third_order(engine):
    tg = engine
    grad = tg.func.grad
    s = f64(tg, 0.7)
    f = lambda t: t.sin() * t ** 3  # noqa: E731
    d1 = lambda t: np.cos(t) * t ** 3 + 3 * np.sin(t) * t ** 2  # noqa: E731
    d2 = lambda t: -np.sin(t) * t ** 3 + 6 * np.cos(t) * t ** 2 + 6 * np.sin(t) * t  # noqa: E731
    d3 = (lambda t: -np.cos(t) * t ** 3 - 9 * np.sin(t) * t ** 2  # noqa: E731
          + 18 * np.cos(t) * t + 6 * np.sin(t))
    np.testing.assert_allclose(npy(grad(f)(s)), d1(0.7), rtol=1e-12)
    np.testing.assert_allclose(npy(grad(grad(f))(s)), d2(0.7), rtol=1e-12)
    g3 = grad(grad(grad(f)))(s)
    np.testing.assert_allclose(npy(g3), d3(0.7), rtol=1e-12)
    assert g3.grad_fn is None


def test_grad_results_are_differentiable_gradcheck(engine):
    """The results keep a graph when the input requires grad outside the transform (torch's
    outer level): gradcheck and gradgradcheck of functions built from the transforms."""
    tg = engine
    grad, vjp, jvp = tg.func.grad, tg.func.vjp, tg.func.jvp
    x = f64(tg, A, requires_grad=True)
    v = f64(tg, [1.0, -0.5, 2.0])
    assert tg.autograd.gradcheck(lambda t: grad(lambda u: (u.sin() * u).sum())(t), (x,))
    assert tg.autograd.gradgradcheck(lambda t: grad(lambda u: (u.exp() * u).sum())(t), (x,))
    assert tg.autograd.gradcheck(lambda t: vjp(lambda u: u.tanh() * u, t)[1](v)[0], (x,))
    assert tg.autograd.gradgradcheck(lambda t: jvp(lambda u: u.sin() * u, (t,), (v,))[1], (x,))
    assert tg.autograd.gradcheck(lambda t: tg.func.jacrev(lambda u: u.sin() * u.sum())(t), (x,))


def test_closure_over_a_parameter_keeps_history(engine):
    tg = engine
    w = f64(tg, [2.0, -1.0, 0.5], requires_grad=True)
    g = tg.func.grad(lambda x: (x * x * w).sum())(f64(tg, A))
    np.testing.assert_allclose(npy(g), 2 * A * [2.0, -1.0, 0.5])
    g.sum().backward()
    np.testing.assert_allclose(npy(w.grad), 2 * A)


# ---------------------------------------------------------------------------------------------
# vjp, jvp, jacrev, jacfwd, hessian


def test_vjp_jvp_against_torch(engine):
    torch = pytest.importorskip("torch")
    def run(lib):
        x, y = on(lib, A), on(lib, B)
        f = lambda x, y: (x.sin() * y, {"s": (x * x).sum()})  # noqa: E731
        out, fn = lib.func.vjp(f, x, y)
        ct = (on(lib, B * 2), {"s": on(lib, 1.5)})
        out2, fn2, aux = lib.func.vjp(lambda x: (x.exp(), x * 3), x, has_aux=True)
        jout, jv = lib.func.jvp(f, (x, y), (on(lib, [1.0, 2.0, 3.0]), on(lib, B)))
        jout3 = lib.func.jvp(lambda x: (x.cos(), x.sum()), (x,), (on(lib, A),), has_aux=True)
        return (out, fn(ct), fn(ct), out2, fn2(on(lib, A)), aux, jout, jv, jout3)

    res = [run(engine), run(torch)]
    assert_trees_close(*res)


def test_jvp_of_a_linear_and_a_constant_function(engine):
    tg = engine
    x, v = f64(tg, A), f64(tg, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(npy(tg.func.jvp(lambda t: t * 3, (x,), (v,))[1]), 3 * npy(v))
    out, jv = tg.func.jvp(lambda t: f64(tg, B), (x,), (v,))
    np.testing.assert_allclose(npy(jv), np.zeros_like(B))


def test_jacobians_and_hessian_against_torch(engine):
    torch = pytest.importorskip("torch")
    def run(lib):
        F = lib.func
        x, y = on(lib, A), on(lib, B)
        f = lambda x, y: (x.sin() @ y.T, (x * x).sum())  # noqa: E731
        h = lambda x, y: (x.sin() @ y.T).sum() * x.prod()  # noqa: E731
        return (F.jacrev(f)(x, y), F.jacfwd(f, argnums=(0, 1))(x, y),
                    F.jacrev(lambda x: (x.exp(), x.sum()), has_aux=True)(x),
                    F.jacfwd(lambda x: {"a": x.tanh()})(x),
                    F.hessian(h)(x, y), F.hessian(h, argnums=(0, 1))(x, y),
                    F.jacfwd(F.jacrev(F.jacrev(lambda x: (x ** 4).sum())))(x))

    res = [run(engine), run(torch)]
    assert_trees_close(*res)


# ---------------------------------------------------------------------------------------------
# vmap


def test_vmap_against_torch(engine):
    torch = pytest.importorskip("torch")
    X = np.arange(24.0).reshape(2, 3, 4) / 10
    def run(lib):
        F = lib.func
        x = on(lib, X)
        w = on(lib, np.eye(4) * 0.5)
        return (
            F.vmap(lambda t: t.sum(0))(x),
            F.vmap(lambda t: t @ w, in_dims=1)(x),
            F.vmap(lambda t, u: t * u, in_dims=(2, None))(x, on(lib, X[:, :, 0])),
            F.vmap(lambda t: (t, t.sum()), out_dims=(1, 0))(x),
            F.vmap(lambda d: d["a"] + d["b"], in_dims=({"a": 0, "b": None},))(
                {"a": x, "b": on(lib, X[0])}),
            F.vmap(F.vmap(lambda t: t.exp().sum()))(x),
            F.vmap(lambda t, k: t * k, in_dims=(0, None))(x, 2.0),
            F.vmap(lambda t: t * 2, in_dims=-1, out_dims=-1)(x),
            F.vmap(F.grad(lambda t: (t.sin() * t).sum()))(x),
            F.vmap(F.jacrev(lambda t: t.cos() * t.sum()))(x),
            F.vmap(lambda t: t.sum(), chunk_size=1)(x),
        )

    res = [run(engine), run(torch)]
    assert_trees_close(*res)


def test_vmap_is_differentiable(engine):
    tg = engine
    x = f64(tg, B, requires_grad=True)
    assert tg.autograd.gradcheck(tg.func.vmap(lambda r: r.sin() * r.sum()), (x,))
    assert tg.autograd.gradgradcheck(tg.func.vmap(lambda r: r.exp() * r[0]), (x,))


def test_vmap_randomness_modes(engine):
    tg = engine
    x = tg.zeros(3, 2)
    with pytest.raises(RuntimeError, match="called random operation while in randomness error"):
        tg.func.vmap(lambda r: r + tg.rand(2))(x)
    same = tg.func.vmap(lambda r: r + tg.rand(2), randomness="same")(x)
    np.testing.assert_array_equal(npy(same[0]), npy(same[1]))
    diff = tg.func.vmap(lambda r: r + tg.rand(2), randomness="different")(x)
    assert not np.array_equal(npy(diff[0]), npy(diff[1]))
    tg.manual_seed(3)
    expected = npy(tg.rand(3, 2))
    tg.manual_seed(3)
    np.testing.assert_array_equal(
        npy(tg.func.vmap(lambda r: r + tg.rand(2), randomness="different")(x)), expected)


# ---------------------------------------------------------------------------------------------
# functional_call and stack_module_state


def _same_linear(lib, seed_weights):
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 2)).double()
    with lib.no_grad():
        for p, v in zip(m.parameters(), seed_weights):
            p.copy_(on(lib, v))
    return m


def test_functional_call_against_torch(engine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(s) for s in ((4, 3), (4,), (2, 4), (2,))]
    other = [rng.standard_normal(s) for s in ((4, 3), (4,), (2, 4), (2,))]
    X = rng.standard_normal((5, 3))
    def run(lib):
        m = _same_linear(lib, weights)
        names = [n for n, _ in m.named_parameters()]
        new = {n: on(lib, v).requires_grad_() for n, v in zip(names, other)}
        out = lib.func.functional_call(m, new, (on(lib, X),))
        out.sum().backward()
        part = lib.func.functional_call(m, ({"0.weight": on(lib, other[0])},
                                            {"2.bias": on(lib, other[3])}), on(lib, X))
        after = m(on(lib, X))  # the module's own parameters are back
        g = lib.func.grad(lambda p, x: lib.func.functional_call(m, p, (x,)).pow(2).sum())(
            {n: on(lib, v) for n, v in zip(names, other)}, on(lib, X))
        return (out, [new[n].grad for n in names], part, after, g)

    res = [run(engine), run(torch)]
    assert_trees_close(*res)


def test_functional_call_ties_and_strict_against_torch(engine):
    torch = pytest.importorskip("torch")

    def build(lib):
        class Tied(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Linear(2, 2).double()
                self.b = lib.nn.Linear(2, 2).double()
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.b(self.a(x))

        m = Tied()
        with lib.no_grad():
            m.a.weight.copy_(on(lib, [[1.0, 2.0], [3.0, 4.0]]))
            m.a.bias.copy_(on(lib, [0.5, -0.5]))
            m.b.bias.copy_(on(lib, [1.0, 1.0]))
        return m

    def run(lib):
        m = build(lib)
        W, x = on(lib, [[0.0, 1.0], [1.0, 0.0]]), on(lib, [1.0, 2.0])
        F = lib.func
        return (F.functional_call(m, {"a.weight": W}, x),
                    F.functional_call(m, {"a.weight": W}, x, tie_weights=False),
                    F.functional_call(m, {"a.weight": W, "a.bias": on(lib, [0.0, 0.0]),
                                          "b.bias": on(lib, [0.0, 0.0])}, x, strict=True))

    res = [run(engine), run(torch)]
    assert_trees_close(*res)


def test_ensemble_with_stack_module_state_and_vmap(engine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    sets = [[rng.standard_normal(s) for s in ((4, 3), (4,), (2, 4), (2,))] for _ in range(3)]
    X = rng.standard_normal((5, 3))
    def run(lib):
        models = [_same_linear(lib, w) for w in sets]
        params, buffers = lib.func.stack_module_state(models)
        base = models[0]

        def call(p, b, x):
            return lib.func.functional_call(base, (p, b), (x,))

        out = lib.func.vmap(call, in_dims=(0, 0, None))(params, buffers, on(lib, X))
        out.pow(2).sum().backward()
        return (out, {k: v.grad for k, v in params.items()},
                    [params[k].is_leaf and params[k].requires_grad for k in params])

    res = [run(engine), run(torch)]
    assert_trees_close(*res)


# ---------------------------------------------------------------------------------------------
# Errors: torch's type and words


def _errors(lib):
    F, x = lib.func, lib.ones(3)
    lin = lib.nn.Linear(2, 2)
    return [
        lambda: F.grad(lambda t: t * 2)(x),
        lambda: F.grad(lambda t: t.sum(), argnums=2)(x),
        lambda: F.grad(lambda t: (t.sum(), 1))(x),
        lambda: F.grad(lambda t: t.sum(), has_aux=True)(x),
        lambda: F.grad(lambda t: 3)(x),
        lambda: F.grad(lambda t: t.sum())(3.0),
        lambda: F.grad(lambda t: t.sum(), argnums=())(x),
        lambda: F.grad(lambda t: t.sum(), argnums=1.0)(x),
        lambda: F.grad(lambda t, u: t.sum(), argnums=(0, 0))(x, x),
        lambda: F.grad(lambda t: t.sum())(),
        lambda: F.vjp(lambda t: 3, x),
        lambda: F.vjp(lambda t: (t, t), x)[1](x),
        lambda: F.vjp(lambda t: t, x)[1](lib.ones(2)),
        lambda: F.vjp(lambda t: t, x, has_aux=True),
        lambda: F.jvp(lambda t: t, x, x),
        lambda: F.jvp(lambda t: t, (x,), [x]),
        lambda: F.jvp(lambda t: 3, (x,), (x,)),
        lambda: F.jvp(lambda t: t, (x,), (lib.ones(2),)),
        lambda: F.jacrev(lambda t: 3)(x),
        lambda: F.jacrev(lambda t: t, argnums=1)(x),
        lambda: F.jacfwd(lambda t: t, randomness="foo")(x),
        lambda: F.vmap(lambda t: t, randomness="foo")(x),
        lambda: F.vmap(lambda t: t.sum(), in_dims=1)(x),
        lambda: F.vmap(lambda t, u: t + u)(x, lib.ones(4)),
        lambda: F.vmap(lambda t: t)(3.0),
        lambda: F.vmap(lambda t: 3)(x),
        lambda: F.vmap(lambda t: t, in_dims=(0, 0))(x),
        lambda: F.vmap(lambda t: t, in_dims="a")(x),
        lambda: F.vmap(lambda t: t, in_dims=[0])(x),
        lambda: F.vmap(lambda t: t, in_dims=(None,))(x),
        lambda: F.vmap(lambda t: t, out_dims=2)(x),
        lambda: F.vmap(lambda t: (t, t), out_dims=(0, 0, 0))(x),
        lambda: F.vmap(lambda t: t)(lib.ones(())),
        lambda: F.vmap(lambda t: t)(),
        lambda: F.vmap(lambda t: t, chunk_size=0)(x),
        lambda: F.stack_module_state([]),
        lambda: F.stack_module_state([lin, lib.nn.Linear(2, 2).eval()]),
        lambda: F.functional_call(lin, {"foo": x}, (lib.ones(2),), strict=True),
        lambda: F.functional_call(lin, {"weight": lib.ones(2, 2)}, (lib.ones(2),), strict=True),
        lambda: F.functional_call(lin, ({"weight": lib.ones(2, 2)}, {"weight": lib.ones(2, 2)}),
                                  (lib.ones(2),)),
    ]


def _outcome(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001  (any error: compared with torch's)
        return type(e).__name__, " ".join(str(e).replace("torch.", "").split())
    return None


def test_errors_are_torchs(engine):
    torch = pytest.importorskip("torch")
    mine, theirs = _errors(engine), _errors(torch)
    for i, (a, b) in enumerate(zip(mine, theirs)):
        got, want = _outcome(a), _outcome(b)
        assert want is not None, i
        assert got is not None and got[0] == want[0], (i, got, want)
        assert got[1].startswith(want[1]), (i, got, want)


def test_torch_vmap_is_func_vmap(engine):
    assert engine.vmap is engine.func.vmap


def test_asarray_against_torch(engine):
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        a = np.arange(3.0)
        t = lib.asarray(a)
        a[0] = 5.0  # shares memory
        assert t.tolist() == [5.0, 1.0, 2.0] and str(t.dtype).endswith("float64")
        c = lib.asarray(a, copy=True)
        a[1] = 7.0
        assert c.tolist() == [5.0, 1.0, 2.0]
        assert str(lib.asarray([1, 2]).dtype).endswith("int64")
        x = lib.ones(2)
        assert lib.asarray(x) is x
        assert lib.asarray(a, dtype=lib.float32, requires_grad=True).requires_grad
        with pytest.raises(ValueError, match="can't alias tensor with dtype 'Double' into dtype "
                                             "'Float'"):
            lib.asarray(a, dtype=lib.float32, copy=False)
