"""Node introspection as torch's, on both engines: ``grad_fn._saved_<name>`` gives the tensor a
formula's backward saved under that name ("self" also names the first parameter, as torch's
``_saved_self``), ``_raw_saved_<name>`` a SavedTensor whose ``register_hooks(pack, unpack)``
packs it now; after backward frees the graph both raise torch's error. The compiled nodes read a
table the emitter writes (Note [Saved slots by name] in csrc/autograd/node.h); the reference
engine reads the backward's captured cells."""

import numpy as np
import pytest

FREED = ("Trying to backward through the graph a second time (or directly access saved tensors "
         "after they have already been freed)")


def _x(tg, values=(0.5, -1.25, 2.0)):
    return tg.tensor(np.array(values), requires_grad=True)


def test_saved_inputs_by_name(engine):
    tg = engine
    x, w = _x(tg), _x(tg, (3.0, 4.0, -5.0))
    y = x * w
    fn = y.grad_fn
    np.testing.assert_array_equal(fn._saved_x.detach().numpy(), x.detach().numpy())
    # torch names the first parameter self
    np.testing.assert_array_equal(fn._saved_self.detach().numpy(), x.detach().numpy())
    np.testing.assert_array_equal(fn._saved_other.detach().numpy(), w.detach().numpy())
    assert fn._saved_self is x  # a saved input is the input itself (one object per tensor)
    with pytest.raises(AttributeError, match="has no attribute '_saved_nothing'"):
        _ = fn._saved_nothing
    with pytest.raises(AttributeError):
        _ = fn._not_saved_at_all


def test_saved_result_is_linked_to_its_node(engine):
    tg = engine
    x = _x(tg)
    y = x.exp()
    r = y.grad_fn._saved_result
    np.testing.assert_array_equal(r.detach().numpy(), np.exp(np.array([0.5, -1.25, 2.0])))
    assert r.grad_fn is y.grad_fn or r.grad_fn.name() == y.grad_fn.name()


def test_access_after_free_raises_torchs_error(engine):
    tg = engine
    x, w = _x(tg), _x(tg, (1.0, 2.0, 3.0))
    y = x * w
    y.sum().backward()
    with pytest.raises(RuntimeError, match=r"^Trying to backward through the graph a second") as e:
        _ = y.grad_fn._saved_self
    assert "Specify retain_graph=True" in str(e.value)
    with pytest.raises(RuntimeError, match="after it has been freed"):
        y.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
    z = x.exp()
    z.sum().backward(retain_graph=True)  # kept: still readable
    np.testing.assert_array_equal(z.grad_fn._saved_result.detach().numpy(),
                                  np.exp(x.detach().numpy()))
    z.sum().backward()
    with pytest.raises(RuntimeError, match=FREED.replace("(", r"\(").replace(")", r"\)")):
        _ = z.grad_fn._saved_result


def test_in_place_change_is_caught_on_access(engine):
    tg = engine
    x = _x(tg)
    a = x * 1.0
    y = a * a
    a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _ = y.grad_fn._saved_self


def test_raw_saved_register_hooks(engine):
    tg = engine
    x, w = _x(tg), _x(tg, (3.0, 4.0, -5.0))
    y = x * w
    log = []

    def pack(t):
        log.append("pack")
        return t * 2  # what unpack will see: the backward uses the doubled self

    def unpack(p):
        log.append("unpack")
        return p

    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(pack, unpack)
    assert log == ["pack"]
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        raw.register_hooks(pack, unpack)
    np.testing.assert_array_equal(y.grad_fn._saved_self.detach().numpy(), 2 * x.detach().numpy())
    y.sum().backward()
    assert log.count("unpack") >= 2
    # d(sum(x * w))/dw = x, read through unpack: doubled; dx = w, untouched
    np.testing.assert_array_equal(w.grad.numpy(), 2 * x.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), w.detach().numpy())


def test_raw_saved_output_hooks_keep_the_graph(engine):
    tg = engine
    x = _x(tg)
    y = x.exp()
    y.grad_fn._raw_saved_result.register_hooks(lambda t: t.numpy().copy(),
                                               lambda a: tg.from_numpy(a))
    (g,) = tg.autograd.grad(y.sum(), x)
    np.testing.assert_allclose(g.numpy(), np.exp(x.detach().numpy()), rtol=1e-15)


def test_matches_torch_names():
    torch = pytest.importorskip("torch")
    import transgrad as tg

    a = np.array([0.5, -2.0])
    for make in (lambda m: m.tensor(a, requires_grad=True),):
        t, g = make(torch), make(tg)
        for name in ("_saved_self", "_saved_other"):
            np.testing.assert_array_equal(getattr((t * (t + 1)).grad_fn, name).detach().numpy(),
                                          getattr((g * (g + 1)).grad_fn, name).detach().numpy())
        np.testing.assert_array_equal(t.exp().grad_fn._saved_result.detach().numpy(),
                                      g.exp().grad_fn._saved_result.detach().numpy())
