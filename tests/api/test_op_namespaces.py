"""Op namespaces (issue #12 item 4): a user's formula lives in a namespace of its own
(``tg.reference.ops.<namespace>.<op>``, as ``torch.ops.mylib.op``), never replaces a shipped
op, and two files claiming one namespace and name are an error naming both, on both engines.
Every test leaves the registry as it found it (the ``registry`` fixture)."""

import importlib.util
import sys
import textwrap

import numpy as np
import pytest
from transgrad import _op_registry, lang

USER_TANH = textwrap.dedent('''
    from transgrad.lang import T, Tensor, formula, kernel, ops, samples


    @samples(T(3))
    @formula
    def tanh(x: Tensor) -> Tensor:
        result = kernel.tanh(x)

        def backward(grad):
            return grad * 100.0
        return result, backward


    @samples(T(3))
    @formula
    def twice_tanh(x: Tensor) -> Tensor:
        return ops.tanh(x) * 2.0
''')

OTHER_TANH = USER_TANH.replace("100.0", "7.0")  # another library's tanh, another gradient


class Registry:
    """Imports formula modules from files and forgets everything they registered afterwards."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.modules = []
        self.namespaces = set()

    def write(self, name, text):
        path = self.tmp_path / f"{name}.py"
        path.write_text(text)
        return path

    def load(self, module_name, text, namespace=None, file_name=None):
        path = self.write(file_name or module_name, text)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        self.modules.append(module_name)
        self.namespaces.add(namespace or module_name.split(".")[0])
        if namespace is None:
            spec.loader.exec_module(module)
        else:
            with lang.namespace(namespace):
                spec.loader.exec_module(module)
        return module

    def register(self, engine, namespace, name, fn, source):
        _op_registry.register_op(engine, namespace, name, fn, source)
        self.namespaces.add(namespace)

    def close(self):
        for name in self.modules:
            sys.modules.pop(name, None)
        for ns in self.namespaces:
            lang.forget_namespace(ns)
            _op_registry.unregister_namespace("compiled", ns)


@pytest.fixture
def registry(tmp_path):
    lang.load_builtin_formulas()
    before = {e: {ns: _op_registry.ops_in(e, ns) for ns in _op_registry.namespaces(e)}
              for e in _op_registry.ENGINES}
    r = Registry(tmp_path)
    yield r
    r.close()
    after = {e: {ns: _op_registry.ops_in(e, ns) for ns in _op_registry.namespaces(e)}
             for e in _op_registry.ENGINES}
    assert after == before, "a test left ops registered"


def _tanh_grad(tg, op):
    x = tg.tensor([0.5, -1.0, 2.0], dtype=tg.float64, requires_grad=True)
    op(x).sum().backward()
    return np.asarray(x.grad)


def test_a_user_tanh_never_replaces_the_shipped_one(registry, ref):
    shipped = ref.ops.tanh
    expected = 1 - np.tanh([0.5, -1.0, 2.0]) ** 2
    mod = registry.load("tg_user_ops", USER_TANH)
    assert ref.ops.tanh is shipped is ref.ops.transgrad.tanh is lang.REGISTRY["tanh"]
    np.testing.assert_allclose(_tanh_grad(ref, ref.tanh), expected)
    np.testing.assert_allclose(_tanh_grad(ref, lambda x: x.tanh()), expected)
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.tanh), expected)
    # the user's op: in the namespace of its module, with its own (deliberately wrong) gradient
    assert ref.ops.tg_user_ops.tanh is mod.tanh
    assert mod.tanh.namespace == "tg_user_ops" and mod.tanh.source.endswith("tg_user_ops.py:7")
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.tg_user_ops.tanh), [100.0] * 3)
    assert "tg_user_ops" in dir(ref.ops) and dir(ref.ops.tg_user_ops) == ["tanh", "twice_tanh"]


def test_ops_in_a_user_module_see_its_own_namespace_first(registry, ref):
    registry.load("tg_user_ops", USER_TANH)
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.tg_user_ops.twice_tanh), [200.0] * 3)
    # the shipped formulas keep seeing the shipped tanh (softsign-like composites, methods)
    assert lang.resolve_op("transgrad", "tanh") is lang.REGISTRY["tanh"]


def test_lang_namespace_chooses_the_namespace(registry, ref):
    mod = registry.load("tg_user_ops", USER_TANH, namespace="mylib")
    assert ref.ops.mylib.tanh is mod.tanh and mod.tanh.namespace == "mylib"
    with pytest.raises(AttributeError, match="tg_user_ops"):
        ref.ops.tg_user_ops  # noqa: B018
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.mylib.twice_tanh), [200.0] * 3)


def test_two_files_in_one_namespace_is_an_error_naming_both(registry, ref):
    first = registry.load("tg_user_a", USER_TANH, namespace="mylib")
    with pytest.raises(RuntimeError) as e:
        registry.load("tg_user_b", OTHER_TANH, namespace="mylib")
    message = str(e.value)
    assert "mylib::tanh" in message and "reference engine" in message
    assert "tg_user_a.py" in message and "tg_user_b.py" in message
    assert ref.ops.mylib.tanh is first.tanh  # the first owner keeps it
    # the same name in two namespaces is fine
    other = registry.load("tg_user_c", OTHER_TANH, namespace="otherlib")
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.otherlib.tanh), [7.0] * 3)
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.mylib.tanh), [100.0] * 3)
    assert other.tanh is not first.tanh


def test_reloading_the_same_file_is_allowed(registry, ref):
    registry.load("tg_user_ops", USER_TANH, namespace="mylib")
    again = registry.load("tg_user_ops", USER_TANH, namespace="mylib")
    assert ref.ops.mylib.tanh is again.tanh


def test_the_compiled_engine_refuses_a_second_owner(registry, compiled):
    registry.register("compiled", "mylib", "scale", lambda x: x * 2, "/ext/a/ops.py:3")
    assert compiled.ops.mylib.scale(compiled.tensor([1.0])).tolist() == [2.0]
    assert "mylib" in dir(compiled.ops) and dir(compiled.ops.mylib) == ["scale"]
    with pytest.raises(RuntimeError, match=r"mylib::scale.*compiled engine.*/ext/b/ops.py:9.*"
                                           r"/ext/a/ops.py:3"):
        registry.register("compiled", "mylib", "scale", lambda x: x * 3, "/ext/b/ops.py:9")
    registry.register("compiled", "mylib", "scale", lambda x: x * 4, "/ext/a/ops.py:5")  # reload
    assert compiled.ops.mylib.scale(compiled.tensor([1.0])).tolist() == [4.0]
    # an engine's namespaces are its own
    with pytest.raises(AttributeError):
        __import__("transgrad.reference", fromlist=["ops"]).ops.mylib  # noqa: B018


def test_reserved_and_bad_namespaces(registry, compiled, ref):
    with pytest.raises(ValueError, match="reserved"):
        with lang.namespace("transgrad"):
            pass
    for bad in ("my-lib", "class", "__x", ""):
        with pytest.raises(ValueError, match="identifier"):
            with lang.namespace(bad):
                pass
    with pytest.raises(RuntimeError, match="built into transgrad"):
        registry.register("compiled", "transgrad", "tanh", lambda x: x, "/ext/a.py:1")
    for engine in ("compiled", "reference"):
        with pytest.raises(RuntimeError, match="tg.ops.exp is the shipped op"):
            registry.register(engine, "exp", "f", lambda x: x, "/ext/a.py:1")
    with pytest.raises(ValueError, match="engine"):
        registry.register("gpu", "mylib", "f", lambda x: x, "/ext/a.py:1")
    assert compiled.ops.transgrad.tanh is compiled.ops.tanh
    with pytest.raises(AttributeError, match="no op or namespace 'nosuch'"):
        compiled.ops.nosuch  # noqa: B018


def test_default_namespace_of_a_module():
    assert lang.namespace_of_module("transgrad.formulas.unary") == "transgrad"
    assert lang.namespace_of_module("mylib.formulas.acts") == "mylib"
    assert lang.namespace_of_module("my_formulas") == "my_formulas"
    assert lang.namespace_of_module("__main__") == "main"
    with lang.namespace("mylib"):  # a user's module takes it; a shipped one stays shipped
        assert lang.namespace_of_module("my_formulas") == "mylib"
        assert lang.namespace_of_module("transgrad.formulas.unary") == "transgrad"


def test_two_modules_of_one_name_keep_their_own_ops(registry, ref):
    # two extensions may each have an ``ops.py``: ``ops.NAME`` inside each finds its own
    registry.load("tg_same_name", USER_TANH, namespace="liba", file_name="a_ops")
    registry.load("tg_same_name", USER_TANH.replace("100.0", "5.0"), namespace="libb",
                  file_name="b_ops")
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.liba.twice_tanh), [200.0] * 3)
    np.testing.assert_allclose(_tanh_grad(ref, ref.ops.libb.twice_tanh), [10.0] * 3)
