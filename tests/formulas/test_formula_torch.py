"""Formulas against their PyTorch twins on the same sample inputs: value, first-order gradient
(a vector-Jacobian product) and second-order gradient (the VJP of that VJP), in float64.
Skipped when torch is not installed.
"""

import numpy as np
import pytest
from formula_samples import engine_call, is_floating, make_call, shipped_formulas

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _all_dims(x, dims):
    return tuple(range(x.dim())) if dims is None else tuple(dims)


def _slice(x, dim, start, stop, step=1):
    return x[(slice(None),) * (dim % x.dim()) + (slice(start, stop, step),)]


def _squeeze(x, dims=None):
    return torch.squeeze(x) if dims is None else torch.squeeze(x, tuple(dims))


def _prod(x, dims=None, keepdim=False):
    if dims is None:
        return torch.prod(x).reshape((1,) * x.dim() if keepdim else ())
    for d in sorted((d % x.dim() for d in dims), reverse=True):
        x = torch.prod(x, d, keepdim=True)
    return x if keepdim else x.squeeze(tuple(d % x.dim() for d in dims))


# Twins of the formulas of issue 15 (formulas/special.py, blas.py, scan.py, indexing.py, ...)
TWINS_ADDED = {
    "masked_fill_tensor": torch.masked_fill,
    **{n: getattr(torch, n)
       for n in ["addmm", "baddbmm", "addbmm", "addmv", "addr", "trace", "dist"]},
    **{n: getattr(torch, n) for n in [
        "sinh", "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "atan2", "hypot", "exp2",
        "erfc", "erfinv", "lgamma", "digamma", "polygamma", "logit", "xlogy", "sgn", "nan_to_num",
        "logaddexp", "lerp", "addcmul", "addcdiv", "trunc", "fmod", "remainder"]},
    "lerp_tensor": torch.lerp,
    "prod": _prod,
    "cumprod": torch.cumprod,
    "logcumsumexp": torch.logcumsumexp,
    "cummax": lambda x, dim: tuple(torch.cummax(x, dim)),
    "cummin": lambda x, dim: tuple(torch.cummin(x, dim)),
    "kthvalue": lambda x, k, dim=-1, keepdim=False: tuple(torch.kthvalue(x, k, dim, keepdim)),
    "median_dim": lambda x, dim, keepdim=False: tuple(torch.median(x, dim, keepdim)),
    "median": torch.median,
    "aminmax": lambda x, dim=None, keepdim=False: tuple(torch.aminmax(x, dim=dim, keepdim=keepdim)),
    "nansum": lambda x, dims=None, keepdim=False: torch.nansum(x, _all_dims(x, dims), keepdim),
    "var_mean": lambda x, dims=None, correction=1, keepdim=False: tuple(
        torch.var_mean(x, dims, correction=correction, keepdim=keepdim)),
    **{n: getattr(torch, n) for n in ["take", "index_fill", "index_copy", "diag_embed"]},
    "unfold": lambda x, dimension, size, step: x.unfold(dimension, size, step),
    "rot90": lambda x, k=1, dims=(0, 1): torch.rot90(x, k, dims),
    "block_diag": lambda tensors: torch.block_diag(*tensors),
    **{n: getattr(torch, n) for n in ["scatter", "masked_select", "masked_scatter"]},
    "scatter_value": torch.scatter,
    # torch.cdist/pdist have no double backward: their twins are torch's vector_norm of the same
    # differences (test_formula_edges.py compares values and first order with cdist/pdist)
    "cdist": lambda x1, x2, p=2.0: torch.linalg.vector_norm(
        x1.unsqueeze(-2) - x2.unsqueeze(-3), ord=p, dim=-1),
    "pdist": lambda x, p=2.0: torch.linalg.vector_norm(
        (x.unsqueeze(1) - x.unsqueeze(0))[tuple(torch.triu_indices(len(x), len(x), 1))],
        ord=p, dim=-1),
    "inverse": torch.linalg.inv,
    # (torch's own threshold for the SVD path is 100 eps: the samples' singular matrix is exact)
    "det": lambda x, singular_below=None: torch.linalg.det(x),
    "slogdet": lambda x: tuple(torch.linalg.slogdet(x)),
    # LU: torch's pivots are int32 (the samples' I(..., dtype="int32"))
    "lu_factor": lambda x: tuple(torch.linalg.lu_factor(x)),
    "lu_unpack": lambda lu, pivots: tuple(torch.lu_unpack(lu, pivots)),
    "lu": lambda x: tuple(torch.linalg.lu(x)),
    "lu_solve": lambda lu, pivots, b, left=True, adjoint=False: torch.linalg.lu_solve(
        lu, pivots, b, left=left, adjoint=adjoint),
    "solve_matrix": torch.linalg.solve,
    "solve": torch.linalg.solve,
    "solve_triangular": lambda a, b, upper, left=True, unitriangular=False:
        torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular),
    "cholesky_solve": torch.cholesky_solve,
    "cholesky_inverse": torch.cholesky_inverse,
    "matrix_exp": torch.linalg.matrix_exp,
    "qr": lambda x, complete=False: tuple(
        torch.linalg.qr(x, "complete" if complete else "reduced")),
    "scatter_reduce_sum": lambda x, dim, index, src, include_self=True: torch.scatter_reduce(
        x, dim, index, src, "sum", include_self=include_self),
    "scatter_reduce_mean": lambda x, dim, index, src, include_self=True: torch.scatter_reduce(
        x, dim, index, src, "mean", include_self=include_self),
    "std_mean": lambda x, dims=None, correction=1, keepdim=False: tuple(
        torch.std_mean(x, dims, correction=correction, keepdim=keepdim)),
    "div_trunc": lambda x, other: torch.div(x, other, rounding_mode="trunc"),
    "div_floor": lambda x, other: torch.div(x, other, rounding_mode="floor"),
}

# name -> the torch function taking the formula's arguments
TWINS = {
    **{n: getattr(torch, n) for n in [
        "neg", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tan",
        "tanh", "sigmoid", "relu", "abs", "sign", "erf", "clamp", "add", "sub", "mul", "div", "pow",
        "maximum", "minimum", "where", "eq", "ne", "lt", "le", "gt", "ge", "logical_not",
        "logsumexp", "softmax", "log_softmax", "reshape", "permute", "transpose", "unsqueeze",
        "cat", "stack", "select", "index_select", "gather", "index_add", "scatter_add",
        "slice_scatter", "select_scatter", "matmul", "zeros_like", "ones_like",
    ]},
    "pow_scalar": torch.pow,
    "cast": lambda x, dtype: x.to(getattr(torch, dtype)),
    "sum": lambda x, dims=None, keepdim=False: torch.sum(x, _all_dims(x, dims), keepdim),
    "mean": lambda x, dims=None, keepdim=False: torch.mean(x, _all_dims(x, dims), keepdim),
    "amax": lambda x, dims=None, keepdim=False: torch.amax(x, _all_dims(x, dims), keepdim),
    "amin": lambda x, dims=None, keepdim=False: torch.amin(x, _all_dims(x, dims), keepdim),
    "sum_to": lambda x, shape: x.sum_to_size(shape) if len(shape) == x.dim() else
    x.sum(tuple(range(x.dim() - len(shape)))).sum_to_size(shape),
    "max_dim": lambda x, dim, keepdim=False: tuple(torch.max(x, dim, keepdim)),
    "min_dim": lambda x, dim, keepdim=False: tuple(torch.min(x, dim, keepdim)),
    "expand": lambda x, shape: x.expand(shape),
    "squeeze": _squeeze,
    "contiguous": lambda x: x.contiguous(),
    # `order` only lays the copy out (a permuted dense layout): the values are torch.clone's
    "clone": lambda x, order=None: torch.clone(x),
    "slice": _slice,
    "matmul_nd": torch.matmul,
    "bmm": torch.bmm, "mv": torch.mv, "dot": torch.dot,
    "rsub": torch.rsub, "rsub_scalar": torch.rsub,
    "threshold_backward": torch.ops.aten.threshold_backward,
    "tanh_backward": torch.ops.aten.tanh_backward,
    "sigmoid_backward": torch.ops.aten.sigmoid_backward,
    "repeat": lambda x, repeats: x.repeat(repeats),
    "softmax_backward_data": lambda g, out, dim: torch.ops.aten._softmax_backward_data(
        g, out, dim, out.dtype),
    "log_softmax_backward_data": lambda g, out, dim: torch.ops.aten._log_softmax_backward_data(
        g, out, dim, out.dtype),
    "zeros": lambda shape, dtype: torch.zeros(shape, dtype=getattr(torch, dtype)),
    **TWINS_ADDED,
}

FORMULAS = shipped_formulas()
NAMES = sorted(n for n in FORMULAS if n in TWINS)


def torch_call(name, i):
    def to_tensor(a, requires):
        return torch.tensor(a, requires_grad=requires)

    return make_call(name, i, to_tensor, TWINS[name])


def _np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy(force=True)  # force: torch's ZeroTensor (abs's second order)
    return t if isinstance(t, np.ndarray) else np.asarray(t.detach().numpy())


def _outs(out):
    return list(out) if isinstance(out, tuple) else [out]


def _vjp(grad_fn, outs, leaves, vs, create_graph):
    outs_vs = [(o, v) for o, v in zip(outs, vs) if o.requires_grad]
    if not outs_vs:
        return [None] * len(leaves)
    return list(grad_fn([o for o, _ in outs_vs], leaves, [v for _, v in outs_vs],
                        create_graph=create_graph, allow_unused=True))


def _assert_close(ours, theirs, what):
    # zip would stop at the shorter list: a missing or extra output must fail, not be skipped
    assert len(ours) == len(theirs), f"{what}: {len(ours)} outputs, torch has {len(theirs)}"
    for k, (a, b) in enumerate(zip(ours, theirs)):
        a = np.zeros_like(_np(b)) if a is None and b is not None else a
        b = np.zeros_like(_np(a)) if b is None and a is not None else b
        if a is None:
            continue
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-7, atol=1e-9, err_msg=f"{what} {k}")


@pytest.mark.parametrize("name", NAMES)
def test_matches_torch(engine, name):
    ref = engine
    for i in range(len(FORMULAS[name].samples)):
        ours, theirs = engine_call(ref, name, i), torch_call(name, i)
        o_out, t_out = _outs(ours()), _outs(theirs())
        _assert_close(o_out, t_out, f"{name} sample {i}: value")
        if not ours.slots:
            continue
        o_out = [o for o in o_out if is_floating(o)]
        t_out = [o for o in t_out if o.is_floating_point()]
        rng = np.random.default_rng(i)
        vs = [rng.standard_normal(o.shape) for o in t_out]
        o_v = [ref.tensor(v, requires_grad=True) for v in vs]
        t_v = [torch.tensor(v, requires_grad=True) for v in vs]
        o_leaves, t_leaves = ours.leaves(), theirs.leaves()
        o_g = _vjp(ref.autograd.grad, o_out, o_leaves, o_v, True)
        t_g = _vjp(torch.autograd.grad, t_out, t_leaves, t_v, True)
        _assert_close(o_g, t_g, f"{name} sample {i}: grad")
        ws = [rng.standard_normal(tuple(g.shape)) for g in t_g if g is not None]
        o_g2 = _vjp(ref.autograd.grad, [g for g in o_g if g is not None], o_leaves + o_v,
                    [ref.tensor(w) for w in ws], False)
        t_g2 = _vjp(torch.autograd.grad, [g for g in t_g if g is not None], t_leaves + t_v,
                    [torch.tensor(w) for w in ws], False)
        _assert_close(o_g2, t_g2, f"{name} sample {i}: grad of grad")
