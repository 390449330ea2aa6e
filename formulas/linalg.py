"""Linear algebra: ``matmul_nd`` (operands of >= 2 dims, batch dims broadcast, through BLAS) and
``matmul``, the composite that gives 1-D operands PyTorch's meaning on top of it; inverse, det,
slogdet and solve through LAPACK (csrc/kernels/lapack.cpp).

matmul_nd's gradients have the broadcast batch shape; the engine sums them down to each input's
shape, so the formula never undoes broadcasting.
"""

from transgrad.lang import I, Optional, T, Tensor, case, formula, kernel, ops, samples


@samples(case(T(3, 4), T(4, 5)), case(T(2, 3, 4), T(4, 2)), case(T(2, 1, 3, 4), T(5, 4, 2)))
@formula
def matmul_nd(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.matmul(x, other)

    def backward(grad):
        return (ops.matmul_nd(grad, ops.transpose(other, -1, -2)),
                ops.matmul_nd(ops.transpose(x, -1, -2), grad))

    return result, backward


# Note [Products named as torch's]
# torch records a node per product kind: BmmBackward0 for a batch of matrices, MvBackward0 for
# a matrix times a vector, DotBackward0 for two vectors (MmBackward0 for matrices: matmul_nd).
# They are formulas of their own so the graph names them as torch's; each backward is made of the
# same products, so a double backward stays within them.
@samples(case(T(2, 3, 4), T(2, 4, 5)), case(T(1, 2, 2), T(1, 2, 3)))
@formula
def bmm(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.matmul(x, other)

    def backward(grad):
        return ops.bmm(grad, ops.transpose(other, 1, 2)), ops.bmm(ops.transpose(x, 1, 2), grad)

    return result, backward


@samples(case(T(3, 4), T(4)), case(T(1, 2), T(2)))
@formula
def mv(x: Tensor, vec: Tensor) -> Tensor:
    result = kernel.squeeze(kernel.matmul(x, kernel.unsqueeze(vec, 1)), (1,))

    def backward(grad):
        return ops.unsqueeze(grad, 1) * ops.unsqueeze(vec, 0), ops.mv(ops.t(x), grad)

    return result, backward


@samples(case(T(4), T(4)), case(T(1), T(1)))
@formula
def dot(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.reshape(kernel.matmul(kernel.unsqueeze(x, 0), kernel.unsqueeze(other, 1)), ())

    def backward(grad):
        return grad * other, grad * x

    return result, backward


@samples(case(T(3, 4), T(4, 5)), case(T(4), T(4)), case(T(4), T(2, 4, 3)),
         case(T(2, 3, 4), T(4)), case(T(3, 4), T(4)))
@formula
def matmul(x: Tensor, other: Tensor) -> Tensor:
    # Vectors (Note [Products named as torch's]): a matrix times a vector is mv, two vectors dot.
    if x.ndim == 1 and other.ndim == 1:
        return ops.dot(x, other)
    if x.ndim == 2 and other.ndim == 1:
        return ops.mv(x, other)
    # A 1-D x is a row (dim -2 added, then removed); a 1-D other is a column (dim -1).
    row = ops.unsqueeze(x, 0) if x.ndim == 1 else x
    col = ops.unsqueeze(other, -1) if other.ndim == 1 else other
    added = ((-2,) if x.ndim == 1 else ()) + ((-1,) if other.ndim == 1 else ())
    product = ops.matmul_nd(row, col)
    return ops.squeeze(product, added) if len(added) > 0 else product  # no node for nothing


# ---------------------------------------------------------------------------------------------
# Through LAPACK (issue 15): inverse, det, slogdet, solve, with torch's gradients, at singular
# matrices too (Note [det at singular matrices]).


@samples(T(3, 3), T(2, 4, 4), T(1, 1, low=0.5, high=2.0))
@formula
def inverse(x: Tensor) -> Tensor:
    """torch.linalg.inv: the inverse of each square matrix (batch dims allowed)."""
    result = kernel.inverse(x)

    def backward(grad):
        inv_t = ops.transpose(result, -1, -2)
        return -ops.matmul_nd(ops.matmul_nd(inv_t, grad), inv_t)

    return result, backward


# Note [det at singular matrices]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# det's gradient is the cofactor matrix, det(x) x^-T where x is invertible. torch (its
# linalg_det_backward, when the graph is recorded) takes it as such where |det| >= 100 eps and,
# below, through the SVD x = U diag(s) Vh: det(U) det(Vh) U diag(prod_{j != i} s_j) Vh, which
# stays right at a singular x (rank n - 1: one nonzero column of products). det_backward computes
# both and picks per matrix: the inverse runs on x where x is regular and on I elsewhere, the SVD
# on x where it is singular and on diag(1..n) elsewhere (distinct singular values: the SVD's own
# backward stays finite), so the branch not taken gets a zero gradient and no inf/nan. The
# threshold depends on the dtype: the API passes 100 * eps as ``singular_below``, or 0 when no
# matrix of the batch is below it (it looks at the values first), and then the backward is the
# inverse alone: the SVD costs ~30x the inverse (8 x 64 x 64: 32 ms against 0.3). One difference
# remains: torch's first-order backward without create_graph perturbs a zero pivot of the LU by
# eps instead (0 at an exactly singular x); a formula's backward cannot see the grad mode, so
# ours is the recorded one (torch's with create_graph) in both cases. slogdet's gradient x^-T
# is torch's linalg.solve(x^T, diag(g)), which raises at an exactly singular x as torch's does
# with create_graph (without, torch's gives inf/nan).


@samples(T(3, 3), T(2, 4, 4), T(1, 1), case(T(3, 3, zeros=((0,),)), 1e-8),
         case(T(2, 3, 3), 0.0))
@formula
def det(x: Tensor, singular_below: float = 2.220446049250313e-14) -> Tensor:
    """torch.linalg.det; the gradient is the cofactor matrix ``grad * det(x) * inverse(x)^T``,
    through the SVD where ``|det| < singular_below`` (Note [det at singular matrices])."""
    result = kernel.det(x)

    def backward(grad):
        return ops.det_backward(grad, result, x, singular_below)

    return result, backward


@samples(case(T(), T(), T(3, 3), 1e-14), case(T(2), T(2, low=-1e-3, high=1e-3), T(2, 4, 4),
                                                  1e-2), case(T(2), T(2), T(2, 3, 3), 0.0),
         case(T(), T(low=-1e-9, high=1e-9), T(3, 3, zeros=((0,),)), 1e-3))
@formula
def det_backward(grad: Tensor, value: Tensor, x: Tensor, singular_below: float) -> Tensor:
    """The VJP of det at x, whose det is ``value`` (Note [det at singular matrices]): the
    cofactor matrix times grad, through the inverse where ``|det| >= singular_below``, through
    the SVD below."""
    scale = ops.unsqueeze(ops.unsqueeze(grad * value, -1), -1)
    if singular_below <= 0.0:  # no matrix of the batch is singular: the inverse alone
        return scale * ops.transpose(ops.inverse(x), -1, -2)
    ones = ops.ones_like(ops.select(x, -1, 0))  # (..., n)
    singular = ops.unsqueeze(ops.unsqueeze(ops.abs(value) < singular_below, -1), -1)
    regular = scale * ops.transpose(ops.inverse(ops.where(singular, ops.diag_embed(ones), x)),
                                    -1, -2)
    spread = ops.diag_embed(ops.cumsum(ones, -1))
    u, s, vh = ops.svd(ops.where(singular, x, spread), False)
    # prod_{j != i} s_j: the products of the singular values before i and after i
    before = ops.cumprod(ops.cat([ops.slice(ones, -1, 0, 1), ops.slice(s, -1, 0, -1)], -1), -1)
    after = ops.flip(ops.cumprod(ops.cat([ops.slice(ones, -1, 0, 1),
                                          ops.flip(ops.slice(s, -1, 1, None), (-1,))], -1), -1),
                     (-1,))
    sign = ops.det(u) * ops.det(vh)
    others = ops.unsqueeze(grad * sign, -1) * before * after
    cofactor = ops.matmul_nd(u * ops.unsqueeze(others, -2), vh)
    return ops.where(singular, cofactor, regular)


@samples(T(3, 3), T(2, 4, 4))
@formula(differentiable_outputs=("logabsdet",))
def slogdet(x: Tensor) -> (Tensor, Tensor):
    """torch.linalg.slogdet: (sign, log |det|); only log |det| is differentiable, with gradient
    ``grad * inverse(x)^T`` (torch's linalg.solve: raises at an exactly singular x). A singular
    matrix gives (0, -inf)."""
    sign, logabsdet = kernel.slogdet(x)

    def backward(grad):
        return ops.solve_matrix(ops.transpose(x, -1, -2), ops.diag_embed(
            ops.unsqueeze(grad, -1) * ops.ones_like(ops.select(x, -1, 0))))

    return (sign, logabsdet), backward


@samples(case(T(3, 3), T(3, 2)), case(T(2, 4, 4), T(4, 1)), case(T(3, 3), T(2, 3, 5)))
@formula
def solve_matrix(a: Tensor, b: Tensor) -> Tensor:
    """``X`` with ``a @ X = b`` for b of shape (..., n, k), batch dims broadcast."""
    result = kernel.solve(a, b)

    def backward(grad):
        grad_b = ops.solve_matrix(ops.transpose(a, -1, -2), grad)
        return -ops.matmul_nd(grad_b, ops.transpose(result, -1, -2)), grad_b

    return result, backward


@samples(case(T(3, 3), T(3)), case(T(2, 4, 4), T(2, 4)), case(T(3, 3), T(3, 2)))
@formula
def solve(a: Tensor, b: Tensor) -> Tensor:
    """torch.linalg.solve(A, B): B is a vector when 1-D, or when it has A's shape without its
    last dim (as torch); otherwise a batch of matrices."""
    batch_of_vectors = b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]
    vector = b.ndim == 1 or batch_of_vectors
    if vector:
        return ops.squeeze(ops.solve_matrix(a, ops.unsqueeze(b, -1)), (-1,))
    return ops.solve_matrix(a, b)


# ---------------------------------------------------------------------------------------------
# Factorisations through LAPACK (issue 15): cholesky, triangular solves, eigh, qr, svd, with
# torch's gradient formulas. Where the VJP is unique (qr, the solves) any correct formula gives
# torch's numbers; where torch picks among several (cholesky's symmetric gradient, the projection
# of a triangular solve's gradient onto the triangle it reads, cholesky_solve's unprojected one,
# the gauge of eigenvectors and singular vectors), the formula picks torch's.
#
# Note [Hermitian inputs in samples]: cholesky and eigh read one triangle of their input, while
# torch's gradient (and ours) is symmetric; finite differences see one triangle only. Their
# gradchecks run on a symmetrised (cholesky: positive-definite) input, as torch's OpInfo tests
# do: tests/formulas/test_formula_gradcheck.py HERMITIAN_INPUT.


@samples(case(T(3, 3, low=0.5, high=2.0), T(3, 2), True),
         case(T(2, 4, 4, low=0.5, high=2.0), T(3, 4), False, False, True),
         case(T(3, 3, low=0.5, high=2.0), T(2, 2, 3), True, False))
@formula
def solve_triangular(a: Tensor, b: Tensor, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """torch.linalg.solve_triangular: X with ``a X = b`` (``left=False``: ``X a = b``), reading
    only the ``upper`` (or lower) triangle of a (its diagonal taken as ones if
    ``unitriangular``); batch dims broadcast."""
    if left:
        result = kernel.solve_triangular(a, b, upper, unitriangular)
    else:  # X a = b  <=>  a^T X^T = b^T
        result = kernel.transpose(kernel.solve_triangular(
            kernel.transpose(a, -1, -2), kernel.transpose(b, -1, -2), not upper, unitriangular),
            -1, -2)

    def backward(grad):
        grad_b = ops.solve_triangular(ops.transpose(a, -1, -2), grad, not upper, left,
                                      unitriangular)
        if left:
            grad_a = -ops.matmul_nd(grad_b, ops.transpose(result, -1, -2))
        else:
            grad_a = -ops.matmul_nd(ops.transpose(result, -1, -2), grad_b)
        # the gradient of the triangle a is read from (the diagonal is not read if unit)
        skip = 1 if unitriangular else 0
        grad_a = ops.triu(grad_a, skip) if upper else ops.tril(grad_a, -skip)
        return grad_a, grad_b

    return result, backward


@samples(case(T(3, 3)), case(T(2, 4, 4), True), case(T(1, 1, low=0.5, high=2.0)))
@formula
def cholesky(x: Tensor, upper: bool = False) -> Tensor:
    """torch.linalg.cholesky: L lower with ``x = L L^T`` (``upper``: U with ``x = U^T U``),
    reading that triangle of x; raises torch's error when x is not positive-definite."""
    result = kernel.cholesky(x, upper)

    def backward(grad):
        lower = ops.transpose(result, -1, -2) if upper else result
        grad_lower = ops.transpose(grad, -1, -2) if upper else grad
        # phi(L^T gL): the lower triangle with a halved diagonal, made symmetric
        m = ops.tril(ops.matmul_nd(ops.transpose(lower, -1, -2), grad_lower))
        m = 0.5 * (m + ops.transpose(ops.tril(m, -1), -1, -2))
        # L^-T m L^-1
        m = ops.solve_triangular(ops.transpose(lower, -1, -2), m, True)
        return ops.solve_triangular(lower, m, False, False)

    return result, backward


@samples(case(T(3, 2), T(3, 3, low=0.5, high=2.0)),
         case(T(2, 4, 1), T(4, 4, low=0.5, high=2.0), True))
@formula
def cholesky_solve(b: Tensor, factor: Tensor, upper: bool = False) -> Tensor:
    """torch.cholesky_solve: X with ``A X = b`` for ``A = factor factor^T`` (``upper``:
    ``factor^T factor``), factor triangular; batch dims broadcast. torch's gradient for the
    factor is not projected onto its triangle."""
    factor_t = kernel.transpose(factor, -1, -2)
    if upper:
        result = kernel.solve_triangular(factor, kernel.solve_triangular(factor_t, b, False, False),
                                         True, False)
    else:
        result = kernel.solve_triangular(factor_t, kernel.solve_triangular(factor, b, False, False),
                                         True, False)

    def backward(grad):
        grad_b = ops.cholesky_solve(grad, factor, upper)
        common = ops.matmul_nd(grad_b, ops.transpose(result, -1, -2))
        common = common + ops.transpose(common, -1, -2)
        if upper:
            return grad_b, -ops.matmul_nd(factor, common)
        return grad_b, -ops.matmul_nd(common, factor)

    return result, backward


@samples(case(T(3, 3, low=0.5, high=2.0)), case(T(2, 4, 4, low=0.5, high=2.0), True))
@formula
def cholesky_inverse(factor: Tensor, upper: bool = False) -> Tensor:
    """torch.cholesky_inverse: the inverse of ``factor factor^T`` (``upper``: ``factor^T
    factor``) from its triangular factor."""
    # the factor's triangle only (as torch's potri); the gradient is torch's, not projected
    inv = kernel.inverse(kernel.triu(factor, 0) if upper else kernel.tril(factor, 0))
    inv_t = kernel.transpose(inv, -1, -2)
    result = kernel.matmul(inv, inv_t) if upper else kernel.matmul(inv_t, inv)

    def backward(grad):
        common = ops.matmul_nd(result, ops.matmul_nd(grad + ops.transpose(grad, -1, -2), result))
        if upper:
            return -ops.matmul_nd(factor, common)
        return -ops.matmul_nd(common, factor)

    return result, backward


@samples(case(T(3, 3)), case(T(2, 4, 4), True))
@formula
def eigh(x: Tensor, upper: bool = False) -> (Tensor, Tensor):
    """torch.linalg.eigh: (eigenvalues ascending, eigenvectors as columns) of the symmetric
    matrix whose lower (``upper``: upper) triangle x holds. The gradient is torch's: the
    eigenvector term projected onto the skew-symmetric part of V^T gV (gauge invariant), divided
    by the eigenvalue gaps (inf/nan at repeated eigenvalues, as torch)."""
    eigenvalues, eigenvectors = kernel.eigh(x, upper)

    def backward(grad_values, grad_vectors):
        v = eigenvectors
        vt = ops.transpose(v, -1, -2)
        if grad_vectors is None:
            inner = ops.diag_embed(grad_values)
        else:
            vtgv = ops.matmul_nd(vt, grad_vectors)
            skew = 0.5 * (vtgv - ops.transpose(vtgv, -1, -2))
            # gaps[i, j] = lambda_j - lambda_i, with a unit diagonal (skew's diagonal is zero)
            gaps = ops.unsqueeze(eigenvalues, -2) - ops.unsqueeze(eigenvalues, -1)
            inner = skew / (gaps + ops.diag_embed(ops.ones_like(eigenvalues)))
            if grad_values is not None:
                inner = inner + ops.diag_embed(grad_values)
        return ops.matmul_nd(v, ops.matmul_nd(inner, vt))

    return (eigenvalues, eigenvectors), backward


@samples(case(T(4, 3)), case(T(2, 3, 3), True), case(T(3, 5)))
@formula
def qr(x: Tensor, complete: bool = False) -> (Tensor, Tensor):
    """torch.linalg.qr (mode ``reduced``, or ``complete``): x = Q R, Q with orthonormal
    columns, R upper triangular (LAPACK's signs). Not differentiable when complete and x has
    more rows than columns (torch's error)."""
    q, r = kernel.qr(x, complete)

    def backward(grad_q, grad_r):
        m = x.shape[-2]
        n = x.shape[-1]
        if complete and m > n:
            what = "The QR decomposition is not differentiable"
            raise RuntimeError(f"{what} when mode='complete' and nrows > ncols.")
        if m < n:
            # x = [x1 x2]: Q R1 = x1 (square), R2 = Q^T x2; x1's part by the square formula
            r1 = ops.slice(r, -1, 0, m)
            x2 = ops.slice(x, -1, m, None)
            grad_r1 = None if grad_r is None else ops.slice(grad_r, -1, 0, m)
            grad_r2 = None if grad_r is None else ops.slice(grad_r, -1, m, None)
            if grad_r2 is not None:
                from_r2 = ops.matmul_nd(x2, ops.transpose(grad_r2, -1, -2))
                grad_q = from_r2 if grad_q is None else grad_q + from_r2
            grad_x1 = ops.qr_square_backward(q, r1, grad_q, grad_r1)
            grad_x2 = (ops.zeros_like(x2) if grad_r2 is None else ops.matmul_nd(q, grad_r2))
            return ops.cat([grad_x1, grad_x2], -1)
        return ops.qr_square_backward(q, r, grad_q, grad_r)

    return (q, r), backward


@samples(case(T(4, 3), T(3, 3, low=0.5, high=2.0), T(4, 3), T(3, 3)),
         case(T(3, 3), T(3, 3, low=0.5, high=2.0), T(3, 3), T(3, 3)))
@formula
def qr_square_backward(q: Tensor, r: Tensor, grad_q: Optional[Tensor],
                       grad_r: Optional[Tensor]) -> Tensor:
    """The VJP of a reduced QR with at least as many rows as columns:
    ``(gQ + Q copyltu(triu(gR R^T - Q^T gQ))) R^-T``, copyltu(M) = M + triu(M, 1)^T."""
    m = None
    if grad_r is not None:
        m = ops.matmul_nd(grad_r, ops.transpose(r, -1, -2))
    if grad_q is not None:
        from_q = ops.matmul_nd(ops.transpose(q, -1, -2), grad_q)
        m = -from_q if m is None else m - from_q
    sym = ops.triu(m) + ops.transpose(ops.triu(m, 1), -1, -2)
    ga = ops.matmul_nd(q, sym)
    if grad_q is not None:
        ga = ga + grad_q
    return ops.solve_triangular(ops.transpose(r, -1, -2), ga, False, False)


@samples(case(T(4, 3)), case(T(2, 3, 3)), case(T(3, 5)), case(T(3, 3), True))
@formula
def svd(x: Tensor, full_matrices: bool = False) -> (Tensor, Tensor, Tensor):
    """torch.linalg.svd: (U, S, Vh) with x = U diag(S) Vh, S descending. torch's gradient:
    the singular-vector terms through the skew-symmetric parts of U^T gU and V^T gV (gauge
    invariant), divided by the gaps of the squared singular values (inf/nan at repeated ones,
    as torch); with ``full_matrices`` the columns beyond min(m, n) get no gradient."""
    u, vh = kernel.svd(x, full_matrices)
    s = kernel.svdvals(x)

    def backward(grad_u, grad_s, grad_vh):
        m = x.shape[-2]
        n = x.shape[-1]
        k = min(m, n)
        uk = ops.slice(u, -1, 0, k) if full_matrices else u
        vhk = ops.slice(vh, -2, 0, k) if full_matrices else vh
        if full_matrices and grad_u is not None:
            grad_u = ops.slice(grad_u, -1, 0, k)
        if full_matrices and grad_vh is not None:
            grad_vh = ops.slice(grad_vh, -2, 0, k)
        if grad_u is None and grad_vh is None:
            return ops.matmul_nd(uk * ops.unsqueeze(grad_s, -2), vhk)
        return ops.svd_backward(uk, s, vhk, grad_u, grad_s, grad_vh)

    return (u, s, vh), backward


@samples(case(T(4, 3), T(3, low=0.5, high=2.0), T(3, 3), T(4, 3), T(3), T(3, 3)),
         case(T(3, 3), T(3, low=0.5, high=2.0), T(3, 5), T(3, 3), None, T(3, 5)),
         case(T(3, 3), T(3, low=0.5, high=2.0), T(3, 3), None, T(3), T(3, 3)))
@formula
def svd_backward(u: Tensor, s: Tensor, vh: Tensor, grad_u: Optional[Tensor],
                 grad_s: Optional[Tensor], grad_vh: Optional[Tensor]) -> Tensor:
    """torch's VJP of a reduced SVD (u: m x k, s: k, vh: k x n) for gU or gVh given:
    ``U [skew(U^T gU) S + S skew(V^T gV)] / E + diag(gS)] Vh`` with E the gaps of s^2, plus the
    terms of the columns outside U's (m > n) or rows outside Vh's (m < n) span."""
    m = u.shape[-2]
    n = vh.shape[-1]
    v = ops.transpose(vh, -1, -2)
    grad_v = None if grad_vh is None else ops.transpose(grad_vh, -1, -2)
    s2 = s * s
    gaps = ops.unsqueeze(s2, -2) - ops.unsqueeze(s2, -1) + ops.diag_embed(ops.ones_like(s))
    row = ops.unsqueeze(s, -2)
    col = ops.unsqueeze(s, -1)
    inner = None
    if grad_u is not None:
        utgu = ops.matmul_nd(ops.transpose(u, -1, -2), grad_u)
        inner = (utgu - ops.transpose(utgu, -1, -2)) * row
    if grad_v is not None:
        vtgv = ops.matmul_nd(vh, grad_v)
        term = col * (vtgv - ops.transpose(vtgv, -1, -2))
        inner = term if inner is None else inner + term
    inner = inner / gaps
    if grad_s is not None:
        inner = inner + ops.diag_embed(grad_s)
    if m > n and grad_u is not None:
        gu_sinv = grad_u / row
        ga = ops.matmul_nd(u, inner) + gu_sinv - ops.matmul_nd(
            u, ops.matmul_nd(ops.transpose(u, -1, -2), gu_sinv))
        return ops.matmul_nd(ga, vh)
    if m < n and grad_v is not None:
        gv_sinv_t = ops.transpose(grad_v / row, -1, -2)
        ga = ops.matmul_nd(inner, vh) + gv_sinv_t - ops.matmul_nd(ops.matmul_nd(gv_sinv_t, v), vh)
        return ops.matmul_nd(u, ga)
    return ops.matmul_nd(u, ops.matmul_nd(inner, vh))


@samples(T(3, 3, low=-1.0, high=1.0), T(2, 4, 4, low=-1.0, high=1.0), T(2, 2, low=-3.0, high=3.0))
@formula
def matrix_exp(x: Tensor) -> Tensor:
    """torch.linalg.matrix_exp: the exponential of each square matrix. The gradient is torch's:
    the upper right block of the exponential of [[x^T, grad], [0, x^T]]."""
    result = kernel.matrix_exp(x)

    def backward(grad):
        n = x.shape[-1]
        xt = ops.transpose(x, -1, -2)
        block = ops.cat([ops.cat([xt, grad], -1), ops.cat([ops.zeros_like(xt), xt], -1)], -2)
        return ops.slice(ops.slice(ops.matrix_exp(block), -2, 0, n), -1, n, None)

    return result, backward


# ---------------------------------------------------------------------------------------------
# LU with partial pivoting through LAPACK (issue 15): lu_factor (packed factors and pivots),
# lu_unpack (P, L, U from them), lu (the composite of the two), lu_solve. A = P L U with L unit
# lower (m x k) and U upper (k x n), k = min(m, n). The VJPs are unique where A's leading k x k
# block is invertible, so each is derived once here (Note [LU gradients]) and gives torch's
# numbers; at an exactly zero pivot they divide by it (inf/nan), as torch's.
#
# Note [LU gradients]
# ~~~~~~~~~~~~~~~~~~~
# With A' = P^T A: dA' = dL U + L dU. Square: M = L^-1 dA' U^-1 splits into dL = L tril(M, -1)
# and dU = triu(M) U, so gA' = L^-T [tril(L^T gL, -1) + triu(gU U^T)] U^-T. Wide (m < n,
# U = [U1 U2]): dU2 = L^-1 (dA'2 - dL U2) moves -gU2 U2^T into L's term and gives gA'2 =
# L^-T gU2. Tall (m > n, L = [L1; L2]): dL2 = (dA'2 - L2 dU) U^-1 moves -L2^T gL2 into U's term
# and gives gA'2 = gL2 U^-T. lu_solve's LU gradient is A's (the solve's) pulled back the same way
# without the triangular solves: gL = tril(P^T gA U^T, -1), gU = triu(L^T P^T gA).


@samples(case(T(3, 3)), case(T(2, 4, 3)), case(T(3, 5)))
@formula(differentiable_outputs=("lu_data",))
def lu_factor(x: Tensor) -> (Tensor, Tensor):
    """torch.linalg.lu_factor: (LU, pivots), L below the diagonal of LU (its unit diagonal
    implied) and U on and above, with LAPACK's 1-based int32 pivots (getrf). An exactly zero
    pivot is not an error here (torch's lu_factor_ex reports it in info)."""
    lu_data, pivots = kernel.lu_factor(x)

    def backward(grad):
        k = min(lu_data.shape[-2], lu_data.shape[-1])
        p, lower, upper = ops.lu_unpack(lu_data, pivots)
        return ops.lu_backward(ops.slice(grad, -1, 0, k), ops.slice(grad, -2, 0, k), p, lower,
                               upper)

    return (lu_data, pivots), backward


@samples(case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32")),
         case(T(2, 4, 3, low=0.5, high=2.0), I(2, 3, low=1, high=5, dtype="int32")),
         case(T(3, 5, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32")))
@formula(differentiable_outputs=("lower", "upper"))
def lu_unpack(lu_data: Tensor, pivots: Tensor) -> (Tensor, Tensor, Tensor):
    """torch.lu_unpack: (P, L, U) with A = P L U from lu_factor's packed factors and pivots;
    L is m x k with a unit diagonal, U is k x n (k = min(m, n)). P has no gradient."""
    m = lu_data.shape[-2]
    n = lu_data.shape[-1]
    k = min(m, n)
    p = kernel.lu_permutation(pivots, lu_data)
    below = kernel.tril(kernel.slice(lu_data, -1, 0, k, 1), -1)
    lower = kernel.diagonal_scatter(below, kernel.ones_like(kernel.diagonal(below, 0, -2, -1)), 0,
                                    -2, -1)
    upper = kernel.triu(kernel.slice(lu_data, -2, 0, k, 1), 0)

    def backward(grad_lower, grad_upper):
        # L's strict lower triangle and U's upper one, each where it sits in LU
        if grad_lower is None:
            from_lower = None
        elif m > n:
            from_lower = ops.tril(grad_lower, -1)
        else:
            from_lower = ops.pad(ops.tril(grad_lower, -1), (0, n - m), 0.0)
        if grad_upper is None:
            from_upper = None
        elif m > n:
            from_upper = ops.pad(ops.triu(grad_upper), (0, 0, 0, m - n), 0.0)
        else:
            from_upper = ops.triu(grad_upper)
        if from_lower is None:
            return from_upper, None
        if from_upper is None:
            return from_lower, None
        return from_lower + from_upper, None

    return (p, lower, upper), backward


@samples(case(T(3, 3)), case(T(2, 4, 3)), case(T(3, 5)))
@formula
def lu(x: Tensor) -> (Tensor, Tensor, Tensor):
    """torch.linalg.lu: (P, L, U) with x = P L U (partial pivoting); P has no gradient."""
    packed, pivots = ops.lu_factor(x)
    return ops.lu_unpack(packed, pivots)


@samples(case(T(3, 3), T(3, 3), T(3, 3, low=-1.0, high=1.0), T(3, 3),
              T(3, 3, low=0.5, high=2.0)),
         case(None, T(3, 5), T(3, 3, low=-1.0, high=1.0), T(3, 3), T(3, 5, low=0.5, high=2.0)),
         case(T(4, 3), None, T(4, 4, low=-1.0, high=1.0), T(4, 3), T(3, 3, low=0.5, high=2.0)))
@formula
def lu_backward(grad_lower: Optional[Tensor], grad_upper: Optional[Tensor], p: Tensor,
                lower: Tensor, upper: Tensor) -> Tensor:
    """The VJP of A = P L U (Note [LU gradients]): gL's strict lower triangle and gU's upper one
    are read; L's unit diagonal and upper part, U's lower part, are not."""
    m = lower.shape[-2]
    n = upper.shape[-1]
    k = lower.shape[-1]
    gl = ops.zeros_like(lower) if grad_lower is None else ops.tril(grad_lower, -1)
    gu = ops.zeros_like(upper) if grad_upper is None else ops.triu(grad_upper)
    if m <= n:  # L square; U = [U1 U2]
        u1 = ops.slice(upper, -1, 0, k)
        inner = ops.matmul_nd(ops.transpose(lower, -1, -2), gl)
        if m < n:
            inner = inner - ops.matmul_nd(ops.slice(gu, -1, k, None),
                                          ops.transpose(ops.slice(upper, -1, k, None), -1, -2))
        inner = ops.tril(inner, -1) + ops.triu(
            ops.matmul_nd(ops.slice(gu, -1, 0, k), ops.transpose(u1, -1, -2)))
        ga = ops.solve_triangular(ops.transpose(u1, -1, -2), inner, False, False)
        if m < n:
            ga = ops.cat([ga, ops.slice(gu, -1, k, None)], -1)
        ga = ops.solve_triangular(ops.transpose(lower, -1, -2), ga, True, True, True)
    else:  # U square; L = [L1; L2]
        l1 = ops.slice(lower, -2, 0, k)
        l2 = ops.slice(lower, -2, k, None)
        gl2 = ops.slice(gl, -2, k, None)
        inner = ops.tril(ops.matmul_nd(ops.transpose(l1, -1, -2), ops.slice(gl, -2, 0, k)), -1)
        inner = inner + ops.triu(ops.matmul_nd(gu, ops.transpose(upper, -1, -2))
                                 - ops.matmul_nd(ops.transpose(l2, -1, -2), gl2))
        ga = ops.solve_triangular(ops.transpose(l1, -1, -2), inner, True, True, True)
        ga = ops.cat([ga, gl2], -2)
        ga = ops.solve_triangular(ops.transpose(upper, -1, -2), ga, False, False)
    return ops.matmul_nd(p, ga)


@samples(case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32"), T(3, 2)),
         case(T(2, 3, 3, low=0.5, high=2.0), I(2, 3, low=1, high=4, dtype="int32"), T(4, 3),
              False, True),
         case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32"), T(2, 3, 1), True,
              True),
         case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32"), T(2, 3), False))
@formula
def lu_solve(lu_data: Tensor, pivots: Tensor, b: Tensor, left: bool = True,
             adjoint: bool = False) -> Tensor:
    """torch.linalg.lu_solve: X with ``A X = b`` for A = P L U given by lu_factor (``adjoint``:
    ``A^T X = b``; ``left=False``: ``X A = b``, or ``X A^T = b``); batch dims broadcast."""
    if left:
        result = kernel.lu_solve(lu_data, pivots, b, adjoint)
    else:  # X op(A) = b  <=>  op(A)^T X^T = b^T
        result = kernel.transpose(kernel.lu_solve(lu_data, pivots, kernel.transpose(b, -1, -2),
                                                  not adjoint), -1, -2)

    def backward(grad):
        grad_b = ops.lu_solve(lu_data, pivots, grad, left, not adjoint)
        # the gradient of op(A), then of A, then of its factors (Note [LU gradients])
        if left:
            grad_op = -ops.matmul_nd(grad_b, ops.transpose(result, -1, -2))
        else:
            grad_op = -ops.matmul_nd(ops.transpose(result, -1, -2), grad_b)
        grad_a = ops.transpose(grad_op, -1, -2) if adjoint else grad_op
        p, lower, upper = ops.lu_unpack(lu_data, pivots)
        pt_ga = ops.matmul_nd(ops.transpose(p, -1, -2), grad_a)
        grad_lu = (ops.tril(ops.matmul_nd(pt_ga, ops.transpose(upper, -1, -2)), -1)
                   + ops.triu(ops.matmul_nd(ops.transpose(lower, -1, -2), pt_ga)))
        return grad_lu, None, grad_b

    return result, backward
