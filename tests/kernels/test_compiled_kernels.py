"""The compiled kernels (transgrad._C._kernels) against the numpy reference kernels.

Every kernel of translator/signatures.py runs on the same inputs in both implementations: all
dtypes, broadcasting pairs, 0-d and empty tensors, and non-contiguous inputs (transposed layout,
strided slices, negative strides, stride-0 expansions). Outputs must agree in dtype, shape and
value; where the reference raises, the compiled kernel raises the same exception type. Large
inputs exercise the multithreaded paths. Skipped when transgrad._C is not built.
"""

import math
import re

import numpy as np
import pytest
from kernel_cases_linalg import add_cases as add_linalg_cases
from kernel_cases_nn import add_cases as add_nn_cases
from kernel_cases_special import add_cases as add_special_cases
from transgrad.reference import kernels as K
from transgrad.translator.signatures import KERNELS

pytestmark = pytest.mark.compiled


@pytest.fixture
def C(compiled):  # the conftest fixture skips when transgrad._C is not built
    return compiled._C


@pytest.fixture
def ck(C):
    return C._kernels


rng = np.random.default_rng(1234)


def rand(shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) > 0.5
    if dtype == np.int64:
        return rng.integers(-5, 6, shape)
    return rng.standard_normal(shape).astype(dtype)


def variants(a):
    """``a`` and arrays with the same values in other memory layouts."""
    out = [a]
    if a.ndim >= 2:
        out.append(np.ascontiguousarray(np.swapaxes(a, -1, -2)).swapaxes(-1, -2))
    if a.ndim >= 1 and a.size:
        out.append(np.repeat(a, 2, axis=-1)[..., ::2])
        out.append(np.flip(np.flip(a, -1).copy(), -1))
    return out


def describe(a):
    if isinstance(a, np.ndarray):
        layout = "" if a.flags.c_contiguous else "-nc"
        return f"{a.dtype}{list(a.shape)}{layout}".replace(" ", "")
    if isinstance(a, list):
        return "[" + ",".join(describe(x) for x in a) + "]"
    return repr(a)


CASES = {}  # kernel name -> [(description, args, rtol)]


def case(name, *args, rtol=None):
    desc = f"{name}({', '.join(describe(a) for a in args)})"
    CASES.setdefault(name, []).append((desc, args, rtol))


DTYPES = [np.float32, np.float64, np.int64, np.bool_]

# --- elementwise unary, creation ---------------------------------------------------------------
UNARY = [
    "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
    "tanh", "sigmoid", "relu", "abs", "sign", "erf", "logical_not", "zeros_like", "ones_like",
    "contiguous", "clone",
]
for _name in UNARY:
    for _dt in DTYPES:
        for _s in [(), (5,), (3, 4), (2, 1, 3), (0, 3)]:
            _a = rand(_s, _dt)
            if _name in ("log", "sqrt", "rsqrt", "log1p") and _dt in (np.float32, np.float64):
                _a = np.abs(_a) + 0.1
            for _v in variants(_a):
                case(_name, _v)
_SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 1e30, -1e30, 100.0, -100.0,
                     1e-30, 88.0, -88.0, 710.0, -745.0])
for _name in ["exp", "sigmoid", "tanh", "log", "sign", "relu", "abs", "expm1", "erf", "log1p"]:
    case(_name, _SPECIAL)
    case(_name, _SPECIAL.astype(np.float32))
for _dt in DTYPES:
    _a = rand((3, 4), _dt)
    for _e in [2.0, 0.5, -1.0, 3.0, 1.7, 0.0, -0.5, -2.0]:
        case("pow_scalar", np.abs(_a) if _dt != np.bool_ else _a, _e)
    for _lo, _hi in [(None, None), (-0.5, None), (None, 0.7), (-0.5, 0.7), (1.0, -1.0)]:
        case("clamp", _a, _lo, _hi)
    for _to in ["float32", "float64", "int64", "bool"]:
        case("cast", _a.T, _to)
    case("scalar_like", _a, 2.5)
    case("full", (2, 3), 1.5, np.dtype(_dt).name)
for _dt in [np.float32, np.float64]:
    case("scalar_like", rand((2,), _dt), 2.0)
case("clamp", _SPECIAL, -1.0, 1.0)
case("full", (2, -1), 0.0, "float32")

# --- elementwise binary ------------------------------------------------------------------------
BINARY = [
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
]
PAIRS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (3, 4)), ((2, 3, 4), (3, 1)),
         ((5,), ()), ((0, 4), (4,)), ((3, 4), (2, 4))]
DTYPE_PAIRS = [(np.float32, np.float32), (np.float64, np.float32), (np.int64, np.float32),
               (np.int64, np.int64), (np.bool_, np.bool_), (np.bool_, np.float64)]
for _name in BINARY:
    for _da, _db in DTYPE_PAIRS:
        for _sa, _sb in PAIRS:
            _a, _b = rand(_sa, _da), rand(_sb, _db)
            if _name == "pow":
                _a = np.abs(_a) if _da != np.bool_ else _a
                _b = np.abs(_b) if _db == np.int64 else _b
            for _va in variants(_a)[:3]:
                case(_name, _va, variants(_b)[-1])
            case(_name, _a, _b)
    case(_name, np.broadcast_to(rand((1, 4), np.float64), (3, 4)), rand((3, 4), np.float64))
    case(_name, _SPECIAL, _SPECIAL[::-1].copy())
case("pow", np.array([2, 3]), np.array([-1, 2]))
for _sc, _sa, _sb in [((3, 4), (3, 4), (3, 4)), ((3, 1), (1, 4), ()), ((4,), (3, 4), (3, 1)),
                      ((2,), (3,), (3,))]:
    _c = rng.random(_sc) > 0.5
    case("where", _c, rand(_sa, np.float32), rand(_sb, np.float64))
    case("where", _c.T if _c.ndim == 2 else _c, rand(_sa, np.int64), rand(_sb, np.int64))
    case("where", rand(_sc, np.float64), rand(_sa, np.float64), rand(_sb, np.float64))

# --- reductions --------------------------------------------------------------------------------
for _s in [(), (5,), (3, 4), (2, 3, 4), (2, 0, 3), (4, 1, 5)]:
    for _dt in DTYPES:
        for _v in variants(rand(_s, _dt))[:3]:
            for _dims in [(), (0,), (-1,), (0, 1), (1,), (0, 2), (1, 2), (0, 1, 2), (5,), (0, 0)]:
                for _name in ["sum", "amax", "amin", "logsumexp"]:
                    case(_name, _v, _dims, _dims == (0,), rtol=1e-4)
            for _d in range(-len(_s) - 1, len(_s) + 1) if _s else [0, -1, 1]:
                case("max_dim", _v, _d, _d % 2 == 0)
                case("min_dim", _v, _d, _d % 2 == 1)
                case("softmax", _v, _d)
                case("log_softmax", _v, _d)
# attention_softmax: masks broadcast over leading dims, in other layouts, with -inf entries (a
# row all -inf gives nan), of another dtype, not broadcastable; non-float scores
_CAUSAL = np.triu(np.full((5, 7), -np.inf), 3)
_CAUSAL[4, :] = -np.inf
for _dt in [np.float32, np.float64]:
    _sc = rand((2, 3, 5, 7), _dt)
    for _vs in variants(_sc)[:3]:
        for _mask in [None, _CAUSAL.astype(_dt), rand((3, 1, 7), _dt), rand((2, 3, 5, 7), _dt)]:
            case("attention_softmax", _vs, 0.5, _mask, rtol=1e-5)
    for _vm in variants(_CAUSAL.astype(_dt))[:3]:
        case("attention_softmax", _sc, 1.0, _vm, rtol=1e-5)
    case("attention_softmax", _sc, 1.0, rand((5, 1), _dt), rtol=1e-5)
    case("attention_softmax", rand((4,), _dt), 2.0, None, rtol=1e-5)
    case("attention_softmax", _sc, 1.0, rand((4, 7), _dt))
case("attention_softmax", rand((2, 5, 7), np.float32), 0.5, _CAUSAL, rtol=1e-5)
case("attention_softmax", rand((2, 5, 7), np.int64), 0.5, None, rtol=1e-5)
_NANS = np.array([[1.0, np.nan, 3.0], [-np.inf, -np.inf, -np.inf], [np.inf, 1.0, 2.0]])
for _dt in [np.float64, np.float32]:
    for _name in ["amax", "amin", "logsumexp"]:
        case(_name, _NANS.astype(_dt), (1,), False)
    for _name in ["softmax", "log_softmax"]:
        case(_name, _NANS.astype(_dt), 1)
    case("max_dim", _NANS.astype(_dt), 1, False)
    case("min_dim", _NANS.astype(_dt), 0, True)
for _s, _t in [((3, 4), (4,)), ((3, 4), (1, 4)), ((3, 4), (3, 1)), ((2, 3, 4), (3, 1)),
               ((3, 4), ()), ((3, 4), (3, 4)), ((3, 4), (2, 4)), ((3,), (2, 3))]:
    for _dt in DTYPES:
        for _v in variants(rand(_s, _dt))[:3]:
            case("sum_to", _v, _t)

# --- shapes and views --------------------------------------------------------------------------
for _s in [(2, 3, 4), (6,), (), (0, 3)]:
    for _v in variants(rand(_s, np.float64)):
        for _shp in [(24,), (4, 6), (-1,), (2, -1, 2), (3, 8), (-1, -1), (1, 24, 1), (), (0, -1)]:
            case("reshape", _v, _shp)
        case("transpose", _v, 0, -1)
        case("transpose", _v, 0, 5)
        for _d in [-4, -1, 0, 1, 3]:
            case("unsqueeze", _v, _d)
        case("permute", _v, tuple(reversed(range(_v.ndim))))
        case("permute", _v, (0,) * _v.ndim)
        for _dims in [(), (0,), (-1,), (0, 0)]:
            case("squeeze", _v, _dims)
        for _d in [-3, -1, 0, 2, 3]:
            for _st, _sp, _step in [(None, None, 1), (1, None, 1), (None, -1, 2), (5, 1, 1),
                                    (0, 100, 3), (None, None, 0), (-100, 2, 1)]:
                case("slice", _v, _d, _st, _sp, _step)
            for _i in [0, -1, 3, 10]:
                case("select", _v, _d, _i)
case("squeeze", rand((1, 3, 1), np.float32), (0, 2))
for _shp in [(2, 3, 3), (3, 3), (-1, 3), (2, -1, 3), (3, 1), (0, 3, 3)]:
    case("expand", rand((3, 1), np.float64), _shp)
for _d in [0, 1, -1, 2]:
    for _da, _db in [(np.float32, np.float32), (np.float32, np.float64), (np.int64, np.bool_)]:
        _xs = [rand((2, 3), _da), rand((3, 2), _db).T, rand((2, 3), _da)]
        case("cat", _xs, _d)
        case("stack", _xs, _d)
    case("cat", [rand((2, 3), np.float64), rand((2, 5), np.float64)], _d)
case("cat", [rand((2, 0), np.float64), rand((2, 5), np.float64)], 1)
case("cat", [], 0)
case("cat", [np.array(1.0)], 0)
case("stack", [np.array(1.0), np.array(2.0)], 0)

# --- indexing ----------------------------------------------------------------------------------
for _dt in DTYPES:
    _x = rand((4, 5, 3), _dt)
    for _v in variants(_x)[:3]:
        for _d in [0, 1, -1, 3]:
            for _idx in [np.array([0, 2, -1]), np.array(2), np.array([], dtype=np.int64),
                         np.array([5]), np.array([[0]]), np.array([0.0])]:
                case("index_select", _v, _d, _idx)
                if _idx.dtype == np.int64 and _idx.ndim <= 1 and -4 < _d < 3:
                    _sh = list(_x.shape)
                    _sh[_d] = _idx.size
                    case("index_add", _v, _d, _idx, rand(tuple(_sh), _dt))
            _gi = rng.integers(-3, 3, (4, 2, 3) if _d == 1 else (2, 5, 3))
            case("gather", _v, _d, _gi)
            case("scatter_add", _v, _d, _gi, rand(_gi.shape, _dt))
            case("gather", _v, _d, np.full((2, 2, 2), 7))
        case("gather", _v, 0, np.zeros((2, 2), np.int64))
        case("slice_scatter", _v, rand((2, 5, 3), _dt), 0, 1, 3, 1)
        case("slice_scatter", _v, rand((4, 5, 2), _dt), 2, None, None, 2)
        case("slice_scatter", _v, rand((4, 5, 3), _dt), 2, None, None, 2)
        case("select_scatter", _v, rand((5, 3), _dt), 0, -1)
        case("select_scatter", _v, rand((4, 4), _dt), 2, 2)
case("gather", np.array(3.0), 0, np.array(0))
case("scatter_add", np.array(3.0), 0, np.array(0), np.array(2.0))
# a 0-d index or source counts as 1-D beside a 1-D x, and the reverse (torch's gather rule)
case("gather", rand((10,), np.float64), 0, np.array(4))
case("gather", np.array(3.0), 0, np.zeros(2, np.int64))
case("scatter_add", rand((10,), np.float64), 0, np.array(4), np.array(2.0))
case("gather", rand((10,), np.float64), 0, np.zeros((1, 1), np.int64))
# index / index_put (Note [Advanced indexing kernels]): adjacent and separated dims, broadcast
# indices, negative, repeated, out-of-range and empty entries, non-contiguous x and indices,
# every dtype; the result's shape beside each (None: refused)
_ADV = [
    ((0,), [np.array([0, 3, -1, 0])], (4, 5, 3)),
    ((1, 2), [np.array([[0], [4]]), np.array([2, -3, 0])], (4, 2, 3)),
    ((0, 2), [np.array([1, 1]), np.array([[0, 2]])], (1, 2, 5)),
    ((0, 1, 2), [np.array(3), np.array([-5, 4]), np.array([2])], (2,)),
    ((2,), [np.array([0, 1, 2, 0, 1, 2])[::2]], (4, 5, 3)),
    ((-2,), [np.array([1, 1, 1])], (4, 3, 3)),
    ((0,), [np.array([], dtype=np.int64)], (0, 5, 3)),
    ((1,), [np.array([5])], None), ((0,), [np.array([-5])], None),
    ((0, 1), [np.array([0, 1]), np.array([0, 1, 2])], None), ((0,), [np.array([0.0])], None),
    ((2, 0), [np.array([0]), np.array([0])], None), ((0, 1), [np.array([0])], None),
]
for _dt in DTYPES:
    _x = rand((4, 5, 3), _dt)
    for _v in variants(_x)[:3]:
        for _dims, _ix, _rs in _ADV:
            case("index", _v, _dims, _ix)
            for _acc in (False, True):
                case("index_put", _v, _dims, _ix, rand(_rs or (2,), _dt), _acc)
        case("index_put", _v, (0,), [np.array([1, 2])], rand((2, 5), _dt), False)  # wrong shape
case("index", rand((3,), np.float16), (0,), [np.array([2, 0])])

# --- matmul, item ------------------------------------------------------------------------------
for _dt in DTYPES:
    for _sa, _sb in [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                     ((2, 1, 3, 4), (5, 4, 2)), ((1, 4), (4, 1)), ((0, 4), (4, 3)),
                     ((3, 0), (0, 2)), ((3, 4), (3, 4)), ((4,), (4, 2)), ((2, 3, 4), (3, 4, 5))]:
        _a, _b = rand(_sa, _dt), rand(_sb, _dt)
        for _va in variants(_a)[:3]:
            for _vb in variants(_b)[:3]:
                case("matmul", _va, _vb, rtol=1e-4)
    case("matmul", np.broadcast_to(rand((3, 4), _dt), (2, 3, 4)), rand((2, 4, 5), _dt), rtol=1e-4)
    case("matmul", rand((6, 4), _dt)[::2], rand((4, 6), _dt)[:, ::2], rtol=1e-4)
case("matmul", rand((3, 4), np.float32), rand((4, 2), np.float64))
# linear_gemm: the one-gemm path (float, (N,) bias, M * N * K > 512) in every layout, and what
# goes through matmul and add (other dtypes and bias shapes, tiny products), and errors
for _dt in [np.float32, np.float64, np.int64]:
    for _m, _n, _k in [(40, 24, 16), (3, 5, 4), (1, 700, 3), (0, 6, 5)]:
        _x, _w = rand((_m, _k), _dt), rand((_n, _k), _dt)
        for _vx in variants(_x)[:3]:
            for _vw in variants(_w)[:3]:
                case("linear_gemm", _vx, _vw, None, rtol=1e-4)
                case("linear_gemm", _vx, _vw, rand((_n,), _dt), rtol=1e-4)
        case("linear_gemm", _x, _w, rand((_n,), _dt)[::-1], rtol=1e-4)
        case("linear_gemm", _x, _w, rand((1,), _dt), rtol=1e-4)
        case("linear_gemm", _x, _w, rand((_m, _n), _dt), rtol=1e-4)
case("linear_gemm", rand((40, 16), np.float32), rand((24, 16), np.float32),
     rand((24,), np.float64), rtol=1e-4)
case("linear_gemm", rand((40, 16), np.float32), rand((24, 16), np.float64), None, rtol=1e-4)
case("linear_gemm", rand((40, 16), np.float32), rand((24, 15), np.float32), None)
case("linear_gemm", rand((40, 16), np.float32), rand((24, 16), np.float32), rand((23,), np.float32))
for _v in [np.array(2.5), np.array([3]), np.array([[True]]), np.array([1.0, 2.0])]:
    case("item", _v)

add_nn_cases(case, rand, variants)  # kernel_cases_nn.py: the neural-network section
add_special_cases(case, rand, variants)  # kernel_cases_special.py: torch's table (issue 15)
add_linalg_cases(case, rand, variants)  # kernel_cases_linalg.py: the factorisations (issue 15)

# --- large inputs: the multithreaded paths -----------------------------------------------------
_big = rand((300, 700), np.float32)
for _name in ["exp", "sigmoid", "neg", "abs"]:
    case(_name, _big)
    case(_name, _big.T)
for _name in ["add", "mul", "maximum", "gt"]:
    case(_name, _big, _big[::-1].copy())
    case(_name, _big, rand((700,), np.float32))
    case(_name, _big.T, np.float32(2.0) * np.ones((), np.float32))
for _dims in [(0,), (1,), (0, 1)]:
    case("sum", _big, _dims, False, rtol=1e-4)
    case("amax", _big.astype(np.float64), _dims, True)
case("softmax", _big, -1, rtol=1e-4)
case("logsumexp", _big, (1,), False, rtol=1e-4)
case("max_dim", _big, 1, False)
case("where", _big > 0, _big, rand((300, 1), np.float32))
case("cast", _big, "float64")
case("index_select", _big, 1, rng.integers(0, 700, 500))


def _to_c(C, a):
    if isinstance(a, np.ndarray):
        return C.from_numpy(a)
    if isinstance(a, np.generic):
        return C.from_numpy(np.asarray(a))
    if isinstance(a, list):
        return [_to_c(C, x) for x in a]
    return a


# Note [Kernel precision]
# Each dtype is compared at its own precision: a kernel whose result is exact (a selection, a
# comparison, a copy) must match bit for bit; elementwise float math within a few ulps of its
# dtype; kernels that accumulate (cases made with rtol=, sums and products in another order)
# within that dtype's accumulation error, scaled by the result's magnitude. A float64 kernel is
# never held to float32's tolerance.
EXACT = {"amax", "amin", "max_dim", "min_dim", "maximum", "minimum", "where", "gather",
         "index_select", "index", "cast", "eq", "ne", "gt", "ge", "lt", "le", "neg", "abs", "full",
         "select_scatter", "slice_scatter", "sort", "topk", "flip", "roll", "clone",
         "contiguous", "expand", "permute", "reshape", "max_pool2d"}
ELEMENTWISE_TOL = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-13}
ACCUMULATING_TOL = {np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-10}


def _compare(name, expected, got, rtol, args=()):
    expected = K._arr(expected)
    got = np.asarray(got)
    assert (got.dtype, got.shape) == (expected.dtype, expected.shape), name
    if expected.dtype.kind != "f" or name in EXACT:
        np.testing.assert_array_equal(got, expected, err_msg=f"{name}: expected exactly")
        return
    # a float64 result computed from float32 operands (linear_gemm's float32 product plus a
    # float64 bias) is as precise as its least precise operand: each engine's float32 gemm
    # rounds in its own order
    inputs = [a.dtype for a in args if isinstance(a, np.ndarray) and a.dtype in ELEMENTWISE_TOL]
    precision = min([expected.dtype, *inputs], key=lambda d: d.itemsize)
    tol = (ACCUMULATING_TOL if rtol else ELEMENTWISE_TOL)[precision]
    finite = np.abs(expected[np.isfinite(expected)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * scale, equal_nan=True)


def _run_case(C, ck, name, args, rtol):
    try:
        expected = getattr(K, name)(*args)
    except (ValueError, IndexError, TypeError, RuntimeError) as e:  # torch's refusals included
        with pytest.raises(type(e)):
            getattr(ck, name)(*_to_c(C, list(args)))
        return
    got = getattr(ck, name)(*_to_c(C, list(args)))
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            _compare(name, e, g, rtol)
    elif isinstance(expected, float):
        assert got == expected or (math.isnan(got) and math.isnan(expected))
    else:
        _compare(name, expected, got, rtol, args)


@pytest.mark.parametrize("name", sorted(CASES))
def test_compiled_kernel_matches_reference(C, ck, name):
    failures = []
    for desc, args, rtol in CASES[name]:
        try:
            _run_case(C, ck, name, args, rtol)
        except (AssertionError, pytest.fail.Exception, Exception) as e:  # noqa: BLE001 - collected
            failures.append(f"{desc}: {type(e).__name__}: {str(e).strip()[:300]}")
    assert not failures, f"{len(failures)} of {len(CASES[name])} cases differ:\n" + "\n".join(
        failures[:10])


def _core_kernels():
    """The kernels declared before the neural-network section (which has its own tests), as
    the translator generates their C++ declarations from signatures.py."""
    from transgrad.translator.emit_kernels import emit_kernel_header

    text = emit_kernel_header().split("// neural-network ops")[0]
    names = set(re.findall(r"^(?:Tensor|double|std::tuple<Tensor(?:, Tensor)+>) (\w+)\(", text,
                           re.MULTILINE))
    return sorted(names & set(KERNELS))


def test_core_kernels_are_the_first_signatures():
    core = _core_kernels()
    assert core and set(core) == set(list(KERNELS)[: len(core)])


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_every_signature_is_bound(ck, name):
    assert callable(getattr(ck, name, None)), f"_C._kernels has no kernel {name}"


def test_every_core_kernel_is_covered():
    assert set(_core_kernels()) - set(CASES) == set()


def test_scalar_like_with_an_integral_double_gives_int64_for_integer_tensors(C, ck):
    # C++ receives a double: an integral value counts as an int, any other the default dtype
    # (the generated ops.h casts by the literal's C++ type; Note [Type promotion]).
    out = ck.scalar_like(C.from_numpy(np.arange(3)), 2.0)
    assert np.asarray(out).dtype == np.int64
    assert np.asarray(ck.scalar_like(C.from_numpy(np.arange(3)), 2.5)).dtype == np.float32
    half = C.from_numpy(np.ones(3, np.float16))
    assert np.asarray(ck.scalar_like(half, 1.1)).dtype == np.float32  # not rounded to half


def test_views_share_storage_and_version(C, ck):
    x = C.from_numpy(np.arange(24.0).reshape(2, 3, 4))
    for v in [ck.reshape(x, (6, 4)), ck.expand(ck.unsqueeze(x, 0), (2, 2, 3, 4)),
              ck.permute(x, (2, 0, 1)), ck.transpose(x, 0, 2), ck.squeeze(x, (0,)),
              ck.slice(x, 1, 1, None, 1), ck.select(x, 2, -1), ck.contiguous(x)]:
        assert v._shares_storage(x) and not v._is_same(x)
        before = x._version
        v._bump_version()
        assert x._version == before + 1
    assert not ck.clone(x)._shares_storage(x)
    assert not ck.reshape(ck.transpose(x, 0, 2), (24,))._shares_storage(x)  # needs a copy


def test_reshape_of_a_non_contiguous_view_stays_a_view_when_strides_allow(C, ck):
    base = np.arange(48.0).reshape(4, 3, 4)
    x = ck.slice(C.from_numpy(base), 0, None, None, 2)  # (2, 3, 4), strided in dim 0
    v = ck.reshape(x, (2, 12))
    assert v._shares_storage(x)
    np.testing.assert_array_equal(np.asarray(v), base[::2].reshape(2, 12))


def test_errors_are_torchs(C, ck):
    a, b = C.from_numpy(np.zeros((2, 3))), C.from_numpy(np.zeros((4,)))
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of "
                                           r"tensor b \(4\) at non-singleton dimension 1"):
        ck.add(a, b)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(2x3 and 4x1\)"):
        ck.matmul(a, ck.unsqueeze(b, 1))
    with pytest.raises(IndexError, match=r"\(2, 3\)"):
        ck.select(a, 1, 3)


def test_stable_sigmoid_softmax_logsumexp(C, ck):
    x = C.from_numpy(np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0]))
    np.testing.assert_allclose(np.asarray(ck.sigmoid(x)),
                               [0.0, 1.9287498479639178e-22, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(np.asarray(ck.softmax(x, 0)), [0, 0, 0, 0, 1.0])
    assert float(np.asarray(ck.logsumexp(x, (0,), False))) == 1000.0
    assert np.isfinite(np.asarray(ck.log_softmax(x, 0))).all()


def test_threads_give_the_same_results(C, ck):
    a = rng.standard_normal((1000, 300)).astype(np.float32)
    n = ck._get_num_threads()
    try:
        results = []
        for threads in (1, 2):
            ck._set_num_threads(threads)
            t = C.from_numpy(a)
            results.append([np.asarray(f(t)) for f in (
                lambda t: ck.exp(t), lambda t: ck.add(t, t), lambda t: ck.sum(t, (0, 1), False),
                lambda t: ck.sum(t, (1,), False), lambda t: ck.sum(t, (0,), False),
                lambda t: ck.softmax(t, 1))])
        for one, two in zip(*results):
            np.testing.assert_allclose(one, two, rtol=1e-5)
    finally:
        ck._set_num_threads(n)
