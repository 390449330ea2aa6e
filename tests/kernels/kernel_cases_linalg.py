"""Cases for the factorisation kernels (issue 15: cholesky, solve_triangular, eigh, qr, svd,
svdvals, matrix_exp), registered into test_compiled_kernels.py's table by ``add_cases(case, rand,
variants)``: the compiled kernel (LAPACK of the scipy-openblas32 wheel) against the numpy one.
Eigenvectors and singular vectors are compared as computed: both sides run LAPACK's algorithms
on well-separated spectra, whose sign conventions agree. Errors (not positive-definite) are
checked in tests/formulas/test_formula_edges.py.
"""

import numpy as np


def add_cases(case, rand, variants):
    for dt in (np.float32, np.float64):
        for shape in [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0)]:
            a = rand(shape, dt)
            n = shape[-1]
            spd = (a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=dt)).astype(dt)
            for v in variants(spd)[:2]:
                for upper in (False, True):
                    case("cholesky", v, upper, rtol=1e-4)
            tri = (a + 3 * np.eye(n, dtype=dt)).astype(dt)
            for upper in (False, True):
                for unit in (False, True):
                    case("solve_triangular", tri, rand(shape[:-1] + (2,), dt), upper, unit,
                         rtol=1e-4)
            case("solve_triangular", tri, rand((3,) + shape[-2:-1] + (1,), np.float64), True,
                 False, rtol=1e-4)
            for v in variants(a)[:2]:
                case("matrix_exp", v, rtol=1e-4)
                case("matrix_exp", (8 * v).astype(dt), rtol=1e-4)
        for shape in [(4, 3), (3, 5), (2, 3, 3), (0, 3), (3, 0)]:
            a = rand(shape, dt)
            for v in variants(a)[:2]:
                case("qr", v, False, rtol=1e-4)
                case("qr", v, True, rtol=1e-4)
                case("svdvals", v, rtol=1e-4)
    spd = np.diag([1.0, 2.0, 4.0, 7.0]) + 0.1 * np.ones((4, 4))
    case("eigh", spd, False, rtol=1e-4)
    case("eigh", spd, True, rtol=1e-4)
    case("svd", spd[:, :3] + np.diag([0.0, 1.0, 3.0, 0.0])[:, :3], False, rtol=1e-4)
