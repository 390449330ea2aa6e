"""torch's dtype rules where transgrad once had its own (issue 13), on both engines, against
torch: a floating op on an integer or bool tensor computes in the default dtype (every unary
formula of the registry, Note [Integers in floating kernels]); the matrix products, the writes
of a source into a tensor (index_add, scatter, index_put, ...) and cross/cdist/solve/lerp refuse
mixed dtypes with torch's words (Note [Ops that refuse mixed dtypes]); cat/stack/where promote
by result_type over all inputs; masked_fill converts a number to the input's dtype."""

import inspect
import warnings

import numpy as np
import pytest
from transgrad import lang
from transgrad._op_registry import SHIPPED

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "bool"]


def _unary_formulas():
    """The shipped formulas taking one tensor (every other parameter has a default)."""
    lang.load_builtin_formulas()
    names = []
    for name, f in sorted(lang.formulas_in(SHIPPED).items()):
        params = list(inspect.signature(f.fn).parameters.values())
        required = [p for p in params if p.default is p.empty]
        annotation = str(params[0].annotation) if params else ""
        if (len(required) == 1 and required[0] is params[0] and "Tensor" in annotation
                and "Sequence" not in annotation and "Optional" not in annotation):
            names.append(name)
    return names


UNARY = _unary_formulas()


def _public(m, name):
    """The op's public function in torch's namespaces (``m`` is torch or an engine)."""
    for ns in (m, m.nn.functional, m.linalg, m.special):
        if hasattr(ns, name):
            return getattr(ns, name)
    return None


# Where torch refuses an integer/bool input and transgrad computes a result: wider than torch,
# never a different dtype. Kept here so that closing one fails (strict).
ACCEPTS_WHERE_TORCH_REFUSES = {
    ("abs", "bool"), ("relu", "bool"), ("trace", "bool"), ("trunc", "bool"),
    ("median", "bool"), ("softshrink", "int8"), ("softshrink", "int16"),
    ("softshrink", "int32"), ("softshrink", "int64"), ("softshrink", "uint8"),
    *((name, d) for name in ("elu", "gelu", "hardshrink", "leaky_relu", "logsigmoid", "silu",
                             "softplus")
      for d in INT_DTYPES),
    *(("pdist", d) for d in INT_DTYPES if d != "bool"),
}


def _first(r):
    return r[0] if isinstance(r, tuple) else r


def test_the_unary_list_is_the_registry():
    assert len(UNARY) > 50 and {"sqrt", "exp", "sin", "sigmoid", "log", "tanh"} <= set(UNARY)


@pytest.mark.parametrize("dtype", INT_DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_unary_ops_on_integers_as_torch(engine, name, dtype):
    torch = pytest.importorskip("torch")
    ours_fn, theirs_fn = _public(engine, name), _public(torch, name)
    if ours_fn is None or theirs_fn is None:
        pytest.skip(f"{name}: no public twin in torch's namespaces")
    values = [[2, 1], [1, 3]] if dtype != "bool" else [[True, False], [True, True]]
    x = engine.tensor(values, dtype=getattr(engine, dtype))
    tx = torch.tensor(values, dtype=getattr(torch, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = _first(theirs_fn(tx))
        except (RuntimeError, TypeError, ValueError, NotImplementedError, IndexError):
            theirs = None
        if theirs is None:
            if (name, dtype) in ACCEPTS_WHERE_TORCH_REFUSES:
                ours_fn(x)  # raising now: the entry is stale, remove it
                pytest.xfail("transgrad accepts what torch refuses")
            with pytest.raises((RuntimeError, TypeError, ValueError, NotImplementedError,
                                IndexError)):
                ours_fn(x)
            return
        ours = _first(ours_fn(x))
    assert str(ours.dtype) == str(theirs.dtype), (name, dtype)
    np.testing.assert_allclose(np.asarray(ours).astype(np.float64),
                               theirs.double().numpy(), rtol=1e-6, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name", ["sqrt", "exp", "sin", "sigmoid", "log", "tanh", "erf",
                                  "rsqrt", "logsumexp", "logit", "digamma"])
def test_integers_follow_set_default_dtype(engine, name):
    x = engine.arange(1, 5)
    call = {"logsumexp": lambda t: engine.logsumexp(t, 0)}.get(name, getattr(engine, name))
    assert call(x).dtype == engine.float32
    old = engine.get_default_dtype()
    engine.set_default_dtype(engine.float64)
    try:
        assert call(x).dtype == engine.float64
        assert (x / x).dtype == engine.float64 and (x * 0.5).dtype == engine.float64
    finally:
        engine.set_default_dtype(old)
    assert call(x).dtype == engine.float32


def test_integer_true_division_and_mean_as_torch(engine):
    torch = pytest.importorskip("torch")
    for m in (torch, engine):
        x = m.arange(4)
        assert str((x / m.arange(1, 5)).dtype) == "torch.float32"
        assert str(m.sqrt(x).dtype) == "torch.float32"
        assert str((x ** 0.5).dtype) == "torch.float32" and str((x ** 2).dtype) == "torch.int64"
        with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype\. Input "
                                               r"dtype must be either a floating point or "
                                               r"complex dtype\. Got: Long"):
            x.mean()


def _operands(m):
    """float32 and float64 matrices and vectors, an int64 matrix, nn.functional."""
    return (m.ones(2, 2), m.ones(2, 2, dtype=m.float64), m.ones(2), m.ones(2, dtype=m.float64),
            m.ones(2, 2, dtype=m.int64), m.nn.functional)


# each case: (m, a, b, v32, v64, i, F) -> the call on torch or an engine
PRODUCTS = {
    "mm": lambda m, a, b, v32, v64, i, F: m.mm(a, b),
    "mm_int": lambda m, a, b, v32, v64, i, F: m.mm(a, i),
    "mm_half": lambda m, a, b, v32, v64, i, F: m.mm(a, m.ones(2, 2, dtype=m.float16)),
    "matmul": lambda m, a, b, v32, v64, i, F: m.matmul(a, b),
    "2d@1d": lambda m, a, b, v32, v64, i, F: a @ v64,
    "1d@1d": lambda m, a, b, v32, v64, i, F: v32 @ v64,
    "1d@2d": lambda m, a, b, v32, v64, i, F: v32 @ b,
    "3d@3d": lambda m, a, b, v32, v64, i, F: a[None] @ b[None],
    "3d@2d": lambda m, a, b, v32, v64, i, F: a[None] @ b,
    "3d@1d": lambda m, a, b, v32, v64, i, F: a[None] @ v64,
    "2d@3d": lambda m, a, b, v32, v64, i, F: a @ b[None],
    "1d@3d": lambda m, a, b, v32, v64, i, F: v32 @ b[None],
    "4d@4d": lambda m, a, b, v32, v64, i, F: a[None, None] @ b[None, None],
    "bmm": lambda m, a, b, v32, v64, i, F: m.bmm(a[None], b[None]),
    "bmm_rev": lambda m, a, b, v32, v64, i, F: m.bmm(b[None], a[None]),
    "mv": lambda m, a, b, v32, v64, i, F: m.mv(a, v64),
    "mv_rev": lambda m, a, b, v32, v64, i, F: m.mv(b, v32),
    "dot": lambda m, a, b, v32, v64, i, F: m.dot(v32, v64),
    "vdot": lambda m, a, b, v32, v64, i, F: m.vdot(v32, v64),
    "inner": lambda m, a, b, v32, v64, i, F: m.inner(v32, v64),
    "tensordot": lambda m, a, b, v32, v64, i, F: m.tensordot(a, b, 1),
    "einsum": lambda m, a, b, v32, v64, i, F: m.einsum("ij,jk->ik", a, b),
    "einsum_rev": lambda m, a, b, v32, v64, i, F: m.einsum("ij,jk->ik", b, a),
    "linear": lambda m, a, b, v32, v64, i, F: F.linear(a, b),
    "linear_x64": lambda m, a, b, v32, v64, i, F: F.linear(b, a),
    "linear_bias": lambda m, a, b, v32, v64, i, F: F.linear(a, a, v64),
    "linear_x64_bias": lambda m, a, b, v32, v64, i, F: F.linear(b, a, v32),
    "linear_3d": lambda m, a, b, v32, v64, i, F: F.linear(b[None], a, v32),
    "linear_3d_nobias": lambda m, a, b, v32, v64, i, F: F.linear(b[None], a),
    "addmm": lambda m, a, b, v32, v64, i, F: m.addmm(a, a, b),
    "addmm_self": lambda m, a, b, v32, v64, i, F: m.addmm(b, a, a),
    "addmm_mat1": lambda m, a, b, v32, v64, i, F: m.addmm(a, b, a),
    "addbmm": lambda m, a, b, v32, v64, i, F: m.addbmm(a, a[None], b[None]),
    "addbmm_self": lambda m, a, b, v32, v64, i, F: m.addbmm(b, a[None], a[None]),
    "addbmm_b1": lambda m, a, b, v32, v64, i, F: m.addbmm(a, b[None], a[None]),
    "baddbmm": lambda m, a, b, v32, v64, i, F: m.baddbmm(a[None], a[None], b[None]),
    "baddbmm_self": lambda m, a, b, v32, v64, i, F: m.baddbmm(b[None], a[None], a[None]),
    "addmv": lambda m, a, b, v32, v64, i, F: m.addmv(v32, a, v64),
    "addmv_mat": lambda m, a, b, v32, v64, i, F: m.addmv(v32, b, v32),
    "addmv_self": lambda m, a, b, v32, v64, i, F: m.addmv(v64, a, v32),
}


@pytest.mark.parametrize("case", sorted(PRODUCTS))
def test_products_refuse_mixed_dtypes_as_torch(engine, case):
    _refused_as_torch(engine, lambda m: PRODUCTS[case](m, *_operands(m)))


def _refused_as_torch(engine, call):
    """``call(torch)`` and ``call(engine)`` raise RuntimeError with the same message."""
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(engine)
    assert str(ours.value) == str(theirs.value)


def test_products_of_one_dtype_still_run(engine):
    for d in (engine.float32, engine.float64):
        a = engine.ones(2, 2, dtype=d)
        assert (a @ a).dtype == d and engine.nn.functional.linear(a, a, a[0]).dtype == d
        assert engine.addmm(a, a, a).dtype == d and engine.mv(a, a[0]).dtype == d


# each case: (m, d1, d2) -> the call on torch or an engine
PROMOTING = {
    "cat": lambda m, d1, d2: m.cat([m.ones(2, dtype=d1), m.ones(3, dtype=d2)]),
    "cat_empty": lambda m, d1, d2: m.cat([m.ones(2, dtype=d1), m.ones(0, dtype=d2)]),
    "stack": lambda m, d1, d2: m.stack([m.ones(2, dtype=d1), m.ones(2, dtype=d2)]),
    "where": lambda m, d1, d2: m.where(m.tensor([True, False]), m.ones(2, dtype=d1),
                                       m.ones(2, dtype=d2)),
    "where_0d": lambda m, d1, d2: m.where(m.tensor([True, False]), m.ones(2, dtype=d1),
                                          m.ones((), dtype=d2)),
    "where_number": lambda m, d1, d2: m.where(m.tensor([True, False]), m.ones(2, dtype=d1), 1.5),
}


DTYPE_PAIRS = [("int32", "float32"), ("uint8", "int8"), ("bool", "float16"),
               ("bfloat16", "float16"), ("float32", "float64"), ("int64", "bool"),
               ("int16", "float64")]


@pytest.mark.parametrize("d1,d2", DTYPE_PAIRS)
@pytest.mark.parametrize("op", sorted(PROMOTING))
def test_cat_stack_where_promote_as_torch(engine, op, d1, d2):
    torch = pytest.importorskip("torch")
    theirs = PROMOTING[op](torch, getattr(torch, d1), getattr(torch, d2))
    ours = PROMOTING[op](engine, getattr(engine, d1), getattr(engine, d2))
    assert str(ours.dtype) == str(theirs.dtype)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32"])
@pytest.mark.parametrize("value", [1.5, -1.7, True, 2, -1, 300])
def test_masked_fill_number_converts_to_the_input_dtype_as_torch(engine, dtype, value):
    """A Python number is converted to the input's dtype (truncated, or an overflow error),
    never promoting an integer tensor to float."""
    torch = pytest.importorskip("torch")
    results = []
    for m in (torch, engine):
        x = m.tensor([0, 5, 0], dtype=getattr(m, dtype))
        mask = m.tensor([True, False, True])
        try:
            r = x.masked_fill(mask, value)
            results.append((str(r.dtype), np.asarray(r).tolist()))
        except RuntimeError as e:
            results.append(str(e))
    assert results[1] == results[0]


# each case: m -> a write of a float64 source into a float32 tensor (refused by torch)
WRITES = {
    "index_add": lambda m: m.zeros(3).index_add(0, m.tensor([0]), m.ones(1, dtype=m.float64)),
    "index_add_alpha": lambda m: m.zeros(3).index_add(0, m.tensor([0]),
                                                      m.ones(1, dtype=m.float64), alpha=2),
    "index_copy": lambda m: m.zeros(3).index_copy(0, m.tensor([0]), m.ones(1, dtype=m.float64)),
    "scatter": lambda m: m.zeros(3).scatter(0, m.tensor([0]), m.ones(1, dtype=m.float64)),
    "scatter_add": lambda m: m.zeros(3).scatter_add(0, m.tensor([0]),
                                                    m.ones(1, dtype=m.float64)),
    "scatter_add_int": lambda m: m.zeros(3, dtype=m.int64).scatter_add(0, m.tensor([0]),
                                                                       m.ones(1)),
    "scatter_reduce": lambda m: m.zeros(3).scatter_reduce(0, m.tensor([0]),
                                                          m.ones(1, dtype=m.float64), "sum"),
    "index_put": lambda m: m.zeros(3).index_put((m.tensor([0]),), m.ones(1, dtype=m.float64)),
    "index_put_long": lambda m: m.zeros(3).index_put((m.tensor([0]),), m.tensor([1])),
    "masked_scatter": lambda m: m.zeros(3).masked_scatter(m.tensor([True, False, True]),
                                                          m.ones(3, dtype=m.float64)),
}


@pytest.mark.parametrize("case", sorted(WRITES))
def test_writes_refuse_another_source_dtype_as_torch(engine, case):
    _refused_as_torch(engine, WRITES[case])


def test_writes_of_one_dtype_still_run(engine):
    x, i = engine.zeros(3), engine.tensor([0, 2])
    assert engine.allclose(x.index_add(0, i, engine.ones(2)), engine.tensor([1.0, 0.0, 1.0]))
    assert engine.allclose(x.scatter(0, i, engine.ones(2)), engine.tensor([1.0, 0.0, 1.0]))
    assert x.scatter(0, i, 2).dtype == engine.float32  # a number value is not a source tensor


# each case: m -> an op of float32 and float64 operands that torch computes in one dtype
ONE_DTYPE = {
    "linalg.cross": lambda m: m.linalg.cross(m.ones(2, 3), m.ones(2, 3, dtype=m.float64)),
    "linalg.cross_rev": lambda m: m.linalg.cross(m.ones(2, 3, dtype=m.float64), m.ones(2, 3)),
    "cross": lambda m: m.cross(m.ones(2, 3), m.ones(2, 3, dtype=m.float64), dim=1),
    "cdist": lambda m: m.cdist(m.ones(2, 3), m.ones(2, 3, dtype=m.float64)),
    "solve": lambda m: m.linalg.solve(m.eye(2), m.ones(2, 2, dtype=m.float64)),
    "solve_vector": lambda m: m.linalg.solve(m.eye(2, dtype=m.float64), m.ones(2)),
    "lerp": lambda m: m.lerp(m.ones(3), m.ones(3, dtype=m.float64), 0.5),
    "lerp_weight": lambda m: m.lerp(m.ones(3), m.ones(3), m.ones(3, dtype=m.float64)),
}


@pytest.mark.parametrize("case", sorted(ONE_DTYPE))
def test_one_dtype_ops_refuse_mixed_dtypes_as_torch(engine, case):
    _refused_as_torch(engine, ONE_DTYPE[case])


# each case: m, a (int64 (2, 2)), b (int64 (3, 2, 2)) -> a fused product with fractional
# coefficients, which torch truncates for an integral result (the dtype stays int64)
COEFFICIENTS = {
    "addmm": lambda m, a, b: m.addmm(a, a, a, beta=1.9, alpha=2.7),
    "addbmm": lambda m, a, b: m.addbmm(a, b, b, beta=0.6, alpha=1.2),
    "baddbmm": lambda m, a, b: m.baddbmm(b, b, b, beta=2.5, alpha=0.4),
    "addmv": lambda m, a, b: m.addmv(a[0], a, a[1], beta=-1.5, alpha=3.2),
    "addcmul": lambda m, a, b: m.addcmul(a, a, a, value=1.7),
}


@pytest.mark.parametrize("case", sorted(COEFFICIENTS))
def test_integral_products_truncate_their_coefficients_as_torch(engine, case):
    torch = pytest.importorskip("torch")
    a = np.array([[1, -2], [3, 4]], dtype=np.int64)
    b = np.arange(12, dtype=np.int64).reshape(3, 2, 2) - 5
    want = COEFFICIENTS[case](torch, torch.tensor(a), torch.tensor(b))
    got = COEFFICIENTS[case](engine, engine.tensor(a), engine.tensor(b))
    assert want.dtype == torch.int64 and got.dtype == engine.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_an_integer_tensor_to_negative_integer_tensor_powers_as_torch(engine):
    """C's integer pow, as torch's: 1 and -1 keep their powers, other bases give 0 (a number
    exponent is refused: tests/hostile/test_found.py)."""
    torch = pytest.importorskip("torch")
    base = np.array([[-3], [-2], [-1], [0], [1], [2], [3]], dtype=np.int64)
    exp = np.array([-3, -2, -1, 0, 1, 2], dtype=np.int64)
    want = torch.tensor(base) ** torch.tensor(exp)
    got = engine.tensor(base) ** engine.tensor(exp)
    assert got.dtype == engine.int64
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(engine.pow(3, engine.tensor(exp)).numpy(),
                                  torch.pow(3, torch.tensor(exp)).numpy())
