"""Cases for the kernels of torch's derivative table (issue 15; the last section of
signatures.py), registered into test_compiled_kernels.py's table by ``add_cases(case, rand,
variants)``: every case runs the compiled kernel against the reference one (same values, dtype
and shape, or the same error; the RuntimeErrors, torch's words, are checked in
tests/formulas/test_formula_edges.py). The special functions are held to 1e-10 in float64 (the C++
series against scipy's), the others to the table's default.
"""

import numpy as np

EDGES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1e-30,
                  30.0, -30.0, 1e30, -3.5, 0.999999, -0.999999])
# name -> a function putting random data into the kernel's interesting domain
UNARY = {
    "sinh": lambda a: a, "cosh": lambda a: a, "asinh": lambda a: 3 * a,
    "acosh": lambda a: 1 + np.abs(a), "atanh": lambda a: np.tanh(a), "asin": lambda a: np.tanh(a),
    "acos": lambda a: np.tanh(a), "atan": lambda a: 3 * a, "exp2": lambda a: 4 * a,
    "erfc": lambda a: 2 * a, "erfinv": lambda a: np.tanh(a), "lgamma": lambda a: 3 * a,
    "digamma": lambda a: 3 * a, "trunc": lambda a: 3 * a,
}
SPECIAL = {"erfinv", "lgamma", "digamma"}
BINARY = ["atan2", "hypot", "fmod", "remainder", "floor_divide", "trunc_divide"]
PAIRS = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 3), (4, 1)), ((), (3,)), ((0, 2), (2,))]


def add_cases(case, rand, variants):
    for name, domain in UNARY.items():
        rtol = 1e-10 if name in SPECIAL else None
        for dt in (np.float32, np.float64):
            a = domain(rand((3, 5), dt)).astype(dt)
            for v in variants(a)[:3]:
                case(name, v, rtol=None if dt == np.float32 else rtol)
            case(name, EDGES.astype(dt), rtol=None if dt == np.float32 else rtol)
        case(name, rand((4,), np.int64))
        case(name, rand((0, 3), np.float64))
    for n in range(4):
        for dt in (np.float32, np.float64):
            case("polygamma", n, (3 * rand((2, 5), dt)).astype(dt),
                 rtol=None if dt == np.float32 else 1e-10)
        case("polygamma", n, EDGES, rtol=1e-10)
    for dt in (np.float32, np.float64, np.int64):
        x = EDGES.astype(dt) if dt != np.int64 else rand((5,), dt)
        case("nan_to_num", x, 0.0, None, None)
        case("nan_to_num", x, 1.5, 4.0, -4.0)
    for name in BINARY:
        for sa, sb in PAIRS:
            for da, db in [(np.float64, np.float64), (np.float32, np.float32),
                           (np.int64, np.float32), (np.int64, np.int64), (np.bool_, np.float64)]:
                b = rand(sb, db)
                if db == np.int64:
                    b = np.where(b == 0, 3, b)
                case(name, rand(sa, da), b)
        case(name, np.array([7.0, -7.0, 7.5, -0.5, 1e300, 0.0, np.inf, np.nan]),
             np.array([2.0, 2.0, -2.0, 3.0, 1e-300, 0.0, 2.0, 1.0]))
        case(name, rand((3, 4), np.float64), rand((2, 4), np.float64))  # not broadcastable
    for x in [rand((3, 4), np.float64), rand((2, 3, 4), np.float32), rand((5,), np.int64),
              rand((2, 0, 3), np.float64)]:
        for v in variants(x)[:2]:
            for d in range(-x.ndim, x.ndim):
                case("cumprod", v, d)
                case("logcumsumexp", v, d, rtol=1e-10 if v.dtype == np.float64 else None)
                case("cummax", v, d)
                case("cummin", v, d)
            for dims in [(), (0,), (-1,), tuple(range(x.ndim))]:
                for keepdim in (False, True):
                    case("prod", v, dims, keepdim)
        case("cumprod", x, x.ndim)  # out of range
    ties = np.array([[1.0, 3.0, 3.0, np.nan, 2.0, 3.0],
                     [-np.inf, -np.inf, 0.0, np.inf, np.inf, 1.0]])
    for name in ["cummax", "cummin", "logcumsumexp", "cumprod"]:
        case(name, ties, 1)
    case("prod", rand((), np.float64), (), False)
    case("prod", rand((3,), np.float64), (0, 0), False)  # repeated dim
    index = np.array([[2, 0, 1, 2]])
    for x in [rand((3, 4), np.float64), rand((3, 4), np.float32)]:
        case("scatter", x, 0, index, rand((2, 5), np.float64))
        case("scatter", x, 1, np.array([[3], [0], [-1]]), rand((3, 2), x.dtype))
        case("scatter", x, 0, np.array([[5, 0, 0, 0]]), rand((1, 4), x.dtype))  # out of range
        mask = rand((3, 4), np.bool_)
        case("masked_select", x, mask)
        case("masked_select", x, mask[:1])
        case("masked_select", x[:1], mask)
        case("masked_scatter", x, mask, rand((12,), np.float64))
        case("masked_scatter", x, mask[:, :1], rand((3, 5), x.dtype))
    for dt in (np.float32, np.float64):
        rtol = 1e-10 if dt == np.float64 else 1e-4
        for shape in [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0)]:
            a = rand(shape, dt) + (2 * np.eye(shape[-1], dtype=dt) if shape[-1] else 0)
            for v in variants(a)[:2]:
                for name in ["det", "slogdet", "inverse"]:
                    case(name, v, rtol=rtol)
        case("det", np.zeros((3, 3), dt))
        case("slogdet", np.array([[1.0, 2.0], [2.0, 4.0]], dt))
        a = rand((2, 3, 3), dt) + 3 * np.eye(3, dtype=dt)
        case("solve", a, rand((3, 2), dt), rtol=rtol)
        case("solve", a[0], rand((4, 3, 1), np.float64), rtol=rtol)
        case("solve", a, rand((2, 3, 0), dt))
