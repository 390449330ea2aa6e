"""torch's ``out=`` on every shared name (issue 10): which names take it, its values and dtypes
against torch's, tuples of tensors for several results, and torch's refusals, on both engines
(Note [out= is a copy into the given tensor], Note [out= of several results] in
transgrad/_api/out_args.py)."""

import ast
import inspect
import pathlib
import re
import warnings

import numpy as np
import pytest

from tests.conftest import load_engine


def _torch_out_names(torch):
    """The names of torch, torch.linalg and torch.special that take ``out=``, read from the
    installed torch: a Python function's signature; a builtin of torch's namespace by its
    overloads in torch/_C/_VariableFunctions.pyi; a linalg/special builtin by its documented
    signature (the docstring's first paragraph)."""
    stub = pathlib.Path(torch.__file__).parent / "_C" / "_VariableFunctions.pyi"
    overloads = set()
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.FunctionDef) and any(
                a.arg == "out" for a in node.args.args + node.args.kwonlyargs):
            overloads.add(node.name)
    names = set()
    for prefix, module in (("", torch), ("linalg.", torch.linalg),
                           ("special.", torch.special)):
        for name in dir(module):
            f = getattr(module, name)
            if name.startswith("_") or isinstance(f, type) or not callable(f):
                continue
            try:
                takes = "out" in inspect.signature(f).parameters
            except (TypeError, ValueError):  # a builtin
                if prefix == "":
                    takes = name in overloads
                else:
                    head = (f.__doc__ or "").strip().split("\n\n")[0]
                    takes = re.search(r"\bout=None", head) is not None
            if takes:
                names.add(prefix + name)
    return names


def _resolve(module, path):
    for part in path.split("."):
        module = getattr(module, part, None)
        if module is None:
            return None
    return module


@pytest.mark.parametrize("engine_name", ["reference", "compiled"])
def test_every_shared_name_torch_gives_out_takes_it(engine_name):
    torch = pytest.importorskip("torch")
    m = load_engine(engine_name)
    names = _torch_out_names(torch)
    assert {"sin", "max", "cumsum", "linalg.eigh", "special.xlogy"} <= names  # the reader works
    missing = set()
    for path in sorted(names):
        ours = _resolve(m, path)
        if ours is None or isinstance(ours, type) or not callable(ours):
            continue  # not a transgrad name
        if "out" not in inspect.signature(ours).parameters:
            missing.add(path)
        else:
            p = inspect.signature(ours).parameters["out"]
            assert p.kind is p.KEYWORD_ONLY and p.default is None, path
    assert not missing, sorted(missing)


# ---- values and dtypes against torch -----------------------------------------------------------

_R = np.random.default_rng(0)
A = {
    "u": _R.uniform(0.1, 0.9, (3, 4)),  # inside every domain (acos, atanh, logit, erfinv, ...)
    "v": _R.uniform(0.1, 0.9, (3, 4)),
    "g": _R.uniform(1.1, 3.0, (3, 4)),  # acosh, polygamma
    "n": _R.standard_normal((3, 4)),
    "m": _R.standard_normal((4, 5)),
    "s": _R.standard_normal((3, 3)),
    "b": _R.standard_normal((2, 3, 3)),
    "c": _R.standard_normal((2, 3, 4)),
    "w": _R.standard_normal(4),
    "w3": _R.standard_normal(3),
    "i": np.array([[1, 4, 6], [9, 12, 15]]),
    "j": np.array([[3, 8, 9], [6, 8, 10]]),
    "ix": np.array([2, 0, 1]),
    "sorted": np.array([0.0, 0.25, 0.5, 0.75, 1.0]),
}
A["spd"] = A["s"] @ A["s"].T + 3 * np.eye(3)
A["tri"] = np.triu(A["s"]) + 3 * np.eye(3)

# name -> (args, kwargs): strings are arrays of A, made tensors of the library under test
UNARY_U = ("acos", "arccos", "asin", "arcsin", "atan", "arctan", "atanh", "arctanh", "asinh",
           "arcsinh", "cosh", "sinh", "deg2rad", "rad2deg", "digamma", "erfc", "erfinv", "exp2",
           "frac", "lgamma", "logit", "sgn", "i0", "sinc", "signbit", "isneginf", "isposinf",
           "conj_physical", "nan_to_num", "special.entr", "special.erfcx", "special.i0e",
           "special.i1", "special.i1e", "special.log_ndtr", "special.ndtri", "special.digamma",
           "special.erfc", "special.erfinv", "special.exp2", "special.gammaln", "special.logit",
           "special.psi", "special.i0", "sin", "exp", "neg", "sqrt")
BINARY_UV = ("atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "xlogy", "copysign",
             "fmax", "fmin", "nextafter", "float_power", "special.xlog1py", "special.xlogy",
             "mul", "add", "maximum")
CASES = {
    **{n: (("u",), {}) for n in UNARY_U},
    **{n: (("u", "v"), {}) for n in BINARY_UV},
    "acosh": (("g",), {}), "arccosh": (("g",), {}),
    "polygamma": ((1, "g"), {}), "special.polygamma": ((1, "g"), {}),
    "hardshrink": (("n", 0.5), {}),
    "clamp_min": (("n", 0.1), {}), "clamp_max": (("n", 0.1), {}),
    "lerp": (("u", "v", 0.3), {}),
    "addcmul": (("u", "v", "u"), {"value": 2.0}), "addcdiv": (("u", "v", "u"), {"value": 2.0}),
    "heaviside": (("n", "v"), {}),
    "gcd": (("i", "j"), {}), "lcm": (("i", "j"), {}),
    "ldexp": (("u", "i34"), {}),
    "cumsum": (("n", 1), {}), "cumprod": (("n", 0), {}), "logcumsumexp": (("n", 1), {}),
    "prod": (("n", 1), {}), "nansum": (("n", 1), {}), "nanmean": (("n", 0), {}),
    "std": (("n", 1), {}), "var": (("n", 0), {}), "norm": (("n",), {}),
    "quantile": (("n", 0.3), {"dim": 1}), "nanquantile": (("n", 0.3), {"dim": 1}),
    "softmax": (("n", 1), {}), "log_softmax": (("n", 0), {}),
    "logical_xor": (("n", "v"), {}),
    "addmm": (("n3x5", "n", "m"), {}),
    "addmv": (("w3", "n", "w"), {}), "addr": (("n", "w3", "w"), {}),
    "addbmm": (("s", "b", "b"), {}), "baddbmm": (("b", "b", "b"), {}),
    "mv": (("n", "w"), {}), "ger": (("w3", "w"), {}), "inner": (("n", "n"), {}),
    "vdot": (("w", "w"), {}), "kron": (("s", "u"), {}), "tensordot": (("c", "m"), {"dims": 1}),
    "cross": (("s", "s2"), {"dim": 1}), "linalg.cross": (("s", "s2"), {}),
    "diag": (("s",), {}), "diff": (("n",), {}), "tril": (("n",), {}), "triu": (("n", 1), {}),
    "take_along_dim": (("n", "idx34"), {"dim": 1}),
    "hstack": ((["n", "u"],), {}), "vstack": ((["n", "u"],), {}), "dstack": ((["n", "u"],), {}),
    "column_stack": ((["n", "u"],), {}), "row_stack": ((["n", "u"],), {}),
    "cat": ((["n", "u"],), {}), "stack": ((["n", "u"],), {}),
    "matrix_power": (("s", 3), {}), "inverse": (("spd",), {}), "linalg.inv": (("spd",), {}),
    "linalg.det": (("spd",), {}), "linalg.solve": (("spd", "s"), {}),
    "cholesky": (("spd",), {}), "linalg.cholesky": (("spd",), {}),
    "cholesky_inverse": (("tri",), {}), "cholesky_solve": (("s", "tri"), {}),
    "linalg.solve_triangular": (("tri", "s"), {"upper": True}),
    "linalg.eigvalsh": (("spd",), {}), "linalg.svdvals": (("s",), {}),
    "linalg.pinv": (("n",), {}), "linalg.vector_norm": (("n",), {}),
    "index_select": (("n", 0, "ix"), {}), "masked_select": (("n", "mask"), {}),
    "take": (("n", "ix"), {}), "index_add": (("n", 1, "ix", "s"), {}),
    "index_copy": (("n", 1, "ix", "s"), {}),
    "searchsorted": (("sorted", "u"), {}), "bucketize": (("u", "sorted"), {}),
    "isin": (("i", "j"), {}),
    "histc": (("n",), {"bins": 4}), "nonzero": (("mask",), {}),
    "renorm": (("n", 2, 0, 1.0), {}), "mvlgamma": (("g", 2), {}),
    "special.multigammaln": (("g", 2), {}),
    "narrow_copy": (("n", 1, 1, 2), {}), "msort": (("n",), {}),
    "argsort": (("n",), {"stable": True, "dim": 1}),
    "special.chebyshev_polynomial_t": (("u", 3), {}),
    "special.hermite_polynomial_h": (("u", 3), {}),
    "special.legendre_polynomial_p": (("u", 3), {}),
    "special.shifted_chebyshev_polynomial_w": (("u", 3), {}),
}
A["n3x5"] = _R.standard_normal((3, 5))
A["i34"] = _R.integers(-2, 3, (3, 4))
A["idx34"] = _R.integers(0, 4, (3, 4))
A["s2"] = _R.standard_normal((3, 3))
A["mask"] = A["n"] > 0

# several results: out= is a tuple
TUPLE_CASES = {
    "max": (("n", 1), {}), "min": (("n", 0), {}), "sort": (("n",), {"dim": 1}),
    "topk": (("n", 2), {}), "kthvalue": (("n", 2), {}), "median": (("n", 1), {}),
    "nanmedian": (("n", 1), {}), "mode": (("i",), {}), "cummax": (("n", 1), {}),
    "cummin": (("n", 0), {}), "aminmax": (("n",), {"dim": 1}), "frexp": (("n",), {}),
    "slogdet": (("s",), {}), "linalg.slogdet": (("s",), {}),
    "linalg.eigh": (("spd",), {}), "linalg.qr": (("m",), {}), "qr": (("m",), {}),
    "linalg.svd": (("s",), {}), "svd": (("s",), {}),
    "linalg.lu_factor": (("s",), {}), "linalg.lu": (("s",), {}),
    "linalg.cholesky_ex": (("spd",), {}), "triangular_solve": (("s", "tri"), {}),
}
# torch's factorizations are unique up to signs (a column's): compared through products
_SIGNED = {"linalg.eigh", "linalg.qr", "qr", "linalg.svd", "svd"}


def _make(lib, args, kwargs):
    def one(a):
        if isinstance(a, str):
            return lib(A[a])
        if isinstance(a, list):
            return [one(x) for x in a]
        return a
    return [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}


def _np(t):
    return np.asarray(t.detach().numpy() if hasattr(t, "detach") else t)


def _libs(engine):
    torch = pytest.importorskip("torch")

    def theirs(a):
        return torch.from_numpy(np.array(a))

    def ours(a):
        return engine.from_numpy(np.array(a))
    return torch, theirs, ours


@pytest.mark.parametrize("path", sorted(CASES))
def test_out_values_and_dtypes_as_torchs(engine, path):
    torch, theirs, ours = _libs(engine)
    f_t, f_o = _resolve(torch, path), _resolve(engine, path)
    args, kwargs = CASES[path]
    expected = f_t(*_make(theirs, args, kwargs)[0], **_make(theirs, args, kwargs)[1])
    out_t = torch.empty(0, dtype=expected.dtype)
    r_t = f_t(*_make(theirs, args, kwargs)[0], **_make(theirs, args, kwargs)[1], out=out_t)
    assert r_t is out_t
    dtype = getattr(engine, str(expected.dtype).replace("torch.", ""))
    out_o = engine.empty(0, dtype=dtype)
    a_o, k_o = _make(ours, args, kwargs)
    r_o = f_o(*a_o, **k_o, out=out_o)
    assert r_o is out_o
    assert str(out_o.dtype) == str(out_t.dtype)
    assert tuple(out_o.shape) == tuple(out_t.shape)
    np.testing.assert_allclose(_np(out_o), _np(out_t), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("path", sorted(TUPLE_CASES))
def test_out_tuple_as_torchs(engine, path):
    torch, theirs, ours = _libs(engine)
    f_t, f_o = _resolve(torch, path), _resolve(engine, path)
    args, kwargs = TUPLE_CASES[path]
    a_t, k_t = _make(theirs, args, kwargs)
    expected = f_t(*a_t, **k_t)
    outs_t = tuple(torch.empty(0, dtype=e.dtype) for e in expected)
    r_t = f_t(*a_t, **k_t, out=outs_t)
    outs_o = tuple(engine.empty(0, dtype=getattr(engine, str(e.dtype).replace("torch.", "")))
                   for e in expected)
    a_o, k_o = _make(ours, args, kwargs)
    r_o = f_o(*a_o, **k_o, out=outs_o)
    assert type(r_o).__name__ == type(r_t).__name__  # torch.return_types.max_out, ...
    assert len(r_o) == len(outs_o) and all(a is b for a, b in zip(r_o, outs_o))
    if hasattr(r_t, "_fields") or hasattr(type(r_t), "n_fields"):
        fields = [f for f in dir(type(r_t)) if isinstance(getattr(type(r_t), f), property)
                  or f in getattr(r_t, "_fields", ())]
        for name in fields:
            if hasattr(r_o, name):
                assert getattr(r_o, name) is outs_o[[
                    i for i, t in enumerate(r_t) if t is getattr(r_t, name)][0]]
    for o, t in zip(outs_o, outs_t):
        assert str(o.dtype) == str(t.dtype)
        assert tuple(o.shape) == tuple(t.shape)
    if path in _SIGNED:
        want = f_o(*a_o, **k_o)  # out= holds what the call without it returns
        for o, w in zip(outs_o, want):
            np.testing.assert_allclose(_np(o), _np(w), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.abs(_np(outs_o[1] if path == "linalg.eigh"
                                              else outs_o[-1])),
                                   np.abs(_np(outs_t[1] if path == "linalg.eigh"
                                              else outs_t[-1])), rtol=1e-6, atol=1e-8)
    else:
        for o, t in zip(outs_o, outs_t):
            np.testing.assert_allclose(_np(o), _np(t), rtol=1e-6, atol=1e-8)


# ---- torch's refusals, in torch's words ---------------------------------------------------------

def _torch_error(fn):
    try:
        fn()
    except (RuntimeError, TypeError) as e:
        return type(e), str(e)
    raise AssertionError("torch accepted it")


def test_refusals_in_torchs_words(engine):
    torch = pytest.importorskip("torch")
    x_t = torch.from_numpy(A["n"].copy())
    x_o = engine.from_numpy(A["n"].copy())
    # grad mode and an input requiring grad
    kind, words = _torch_error(lambda: torch.cumsum(x_t.clone().requires_grad_(), 0,
                                                    out=torch.empty(0, dtype=torch.float64)))
    with pytest.raises(kind) as e:
        engine.cumsum(x_o.clone().requires_grad_(), 0, out=engine.empty(0, dtype=engine.float64))
    assert str(e.value) == words
    # a result that cannot be cast into out
    kind, words = _torch_error(lambda: torch.atan2(x_t, x_t, out=torch.empty(0, dtype=torch.int64)))
    with pytest.raises(kind) as e:
        engine.atan2(x_o, x_o, out=engine.empty(0, dtype=engine.int64))
    assert str(e.value) == words
    # an index out of its own dtype (several results: exact dtypes)
    kind, words = _torch_error(lambda: torch.sort(x_t, out=(torch.empty(0, dtype=torch.float64),
                                                           torch.empty(0))))
    with pytest.raises(kind) as e:
        engine.sort(x_o, out=(engine.empty(0, dtype=engine.float64), engine.empty(0)))
    assert str(e.value) == words
    # a tensor where a tuple is wanted, a tuple where a tensor is
    with pytest.raises(TypeError, match=r"sin\(\): argument 'out' must be Tensor, not tuple"):
        engine.sin(x_o, out=(engine.empty(0),))
    _torch_error(lambda: torch.sin(x_t, out=(torch.empty(0),)))
    with pytest.raises(TypeError, match="argument 'out' must be tuple of Tensors"):
        engine.max(x_o, 0, out=engine.empty(0))
    kind, words = _torch_error(lambda: torch.max(x_t, 0, out=(torch.empty(0),)))
    with pytest.raises(kind) as e:
        engine.max(x_o, 0, out=(engine.empty(0, dtype=engine.float64),))
    assert str(e.value) == words


def test_resize_warning_and_no_warning_for_empty(engine):
    torch = pytest.importorskip("torch")
    x_t, x_o = torch.from_numpy(A["n"].copy()), engine.from_numpy(A["n"].copy())
    with warnings.catch_warnings(record=True) as w_t:
        warnings.simplefilter("always")
        torch.cumsum(x_t, 1, out=torch.empty(5, dtype=torch.float64))
        torch.max(x_t, 1, out=(torch.empty(2, dtype=torch.float64),
                               torch.empty(2, dtype=torch.int64)))
    with warnings.catch_warnings(record=True) as w_o:
        warnings.simplefilter("always")
        out = engine.empty(5, dtype=engine.float64)
        engine.cumsum(x_o, 1, out=out)
        engine.max(x_o, 1, out=(engine.empty(2, dtype=engine.float64),
                                engine.empty(2, dtype=engine.int64)))
    # torch's words, less the note on where in its C++ it was raised
    assert [str(w.message) for w in w_o] == [
        re.sub(r" \(Triggered internally at .*\)$", "", str(w.message)) for w in w_t]
    assert all(w.filename == __file__ for w in w_o)  # pointed at the caller, as torch's
    assert tuple(out.shape) == (3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.cumsum(x_o, 1, out=engine.empty(0, dtype=engine.float64))


def test_out_under_no_grad_of_a_graph_input(engine):
    x = engine.from_numpy(A["u"].copy()).requires_grad_()
    out = engine.empty(0, dtype=engine.float64)
    with engine.no_grad():
        r = engine.atan2(x, x, out=out)
    assert r is out and not out.requires_grad
    np.testing.assert_allclose(_np(out), np.arctan2(A["u"], A["u"]))


def test_out_may_alias_an_input(engine):
    x = engine.from_numpy(A["n"].copy())
    engine.cumsum(x, 1, out=x)
    np.testing.assert_allclose(_np(x), np.cumsum(A["n"], 1))


# ---- factories: the values made in out's dtype --------------------------------------------------

FACTORIES = {
    "zeros": ((2, 3), {}), "ones": ((2, 3), {}), "empty": ((2, 3), {}),
    "full": (((2, 3), 7), {}), "eye": ((3,), {}), "arange": ((1, 7, 2), {}),
    "linspace": ((0, 1, 5), {}), "logspace": ((0, 1, 5), {}),
    "rand": ((2, 3), {}), "randn": ((2, 3), {}), "randint": ((0, 5, (2, 3)), {}),
    "randperm": ((6,), {}), "normal": ((0.0, 1.0, (2, 3)), {}),
}


@pytest.mark.parametrize("dtype", ["float64", "int64"])
@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_out_as_torchs(engine, name, dtype):
    torch = pytest.importorskip("torch")
    args, kwargs = FACTORIES[name]
    out_t = torch.empty(4, dtype=getattr(torch, dtype))
    torch.manual_seed(0)
    engine.manual_seed(0)
    try:
        with warnings.catch_warnings(record=True) as w_t:
            warnings.simplefilter("always")
            r_t = getattr(torch, name)(*args, **kwargs, out=out_t)
    except (RuntimeError, NotImplementedError):  # rand/randn/normal of int64: torch refuses
        return
    assert r_t is out_t
    out_o = engine.empty(4, dtype=getattr(engine, dtype))
    with warnings.catch_warnings(record=True) as w_o:
        warnings.simplefilter("always")
        r_o = getattr(engine, name)(*args, **kwargs, out=out_o)
    assert r_o is out_o
    assert str(out_o.dtype) == str(out_t.dtype) and tuple(out_o.shape) == tuple(out_t.shape)
    assert len(w_o) == len(w_t)  # resized without a word, but arange's warning
    if name not in ("empty", "randint", "randperm"):  # the draws of these are torch's too
        np.testing.assert_allclose(_np(out_o), _np(out_t), rtol=1e-6)


def test_factory_out_refusals_in_torchs_words(engine):
    torch = pytest.importorskip("torch")
    for name, args in (("zeros", (2,)), ("arange", (3,)), ("empty", (2,))):
        kind, words = _torch_error(lambda name=name, args=args: getattr(torch, name)(
            *args, out=torch.empty(0, requires_grad=True)))
        with pytest.raises(kind) as e:
            getattr(engine, name)(*args, out=engine.empty(0, requires_grad=True))
        assert str(e.value) == words
    kind, words = _torch_error(lambda: torch.zeros(2, dtype=torch.float64, out=torch.empty(0)))
    with pytest.raises(kind) as e:
        engine.zeros(2, dtype=engine.float64, out=engine.empty(0))
    assert str(e.value) == words
