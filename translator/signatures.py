"""Kernel declarations: the one list both kernel implementations are written from.

Input: the text table below. Output: ``KERNELS``, a dict name -> ``KernelSig``.
The translator type-checks ``kernel.NAME(...)`` calls against it; the numpy kernels
(``transgrad.reference.kernels``) and the C++ kernels (``csrc/kernels/kernels.h``) each
implement exactly these names and parameters, and a test checks all three agree.

Conventions every implementation follows (Note [Kernel conventions]):
* kernels never record autograd history and never mutate their inputs;
* elementwise binary kernels broadcast and promote dtypes (bool < int64 < float32 < float64);
* dims may be negative (wrapped by the kernel); an out-of-range dim, a bad shape or a dtype the
  kernel does not support raises a ValueError/IndexError whose message names both shapes;
* shape/view kernels (reshape when strides allow, expand, permute, transpose, unsqueeze, squeeze,
  slice, select, diagonal) return views that share storage with their input;
* reductions reduce exactly over ``dims``: an empty tuple reduces nothing;
* floating kernels (exp, sqrt, sin, sigmoid, logsumexp, ...) compute an integer or bool input in
  the default dtype (Note [Integers in floating kernels]).

Note [Integers in floating kernels]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
torch's ``sqrt(arange(4))`` is float32: an integer or bool input of a floating op is computed in
the default dtype (``get_default_dtype()``), not widened to float64, and float64 after
``set_default_dtype(float64)``. The kernels of both engines read the default dtype themselves
(``default_dtype()`` in C++, ``kernel_support._DEFAULT_DTYPE`` in Python), as true division of
integers already did, so every formula and composite over them follows without a cast of its
own. A half default dtype is computed in float32 and rounded, as a half input is.

Note [Kernel defaults]: a trailing parameter may have torch's default, ``dims=all`` (every
dimension of the first argument, as ``torch.sum(x)``) or ``keepdim=False``, so that
``kernel.sum(x)`` is written as in torch. The numpy kernels take the same defaults (``dims=None``
for all); the C++ kernels take every argument and the translator supplies the defaults, ``all``
as ``range(x.ndim)`` (so only when the first argument is a variable: it is read twice).
"""

from __future__ import annotations

import dataclasses
import re

# Types: Tensor, Optional[Tensor], Sequence[Tensor], int, float, bool, Scalar, Shape, Dims, DType,
# Optional[int], Optional[float]. Returns: Tensor, (Tensor, Tensor), (Tensor, Tensor, Tensor), int,
# float.
_TABLE = """
# elementwise unary (floating; abs/neg/sign also on int64)
neg(Tensor x) -> Tensor
exp(Tensor x) -> Tensor
log(Tensor x) -> Tensor
log1p(Tensor x) -> Tensor
expm1(Tensor x) -> Tensor
sqrt(Tensor x) -> Tensor
rsqrt(Tensor x) -> Tensor
reciprocal(Tensor x) -> Tensor
sin(Tensor x) -> Tensor
cos(Tensor x) -> Tensor
tan(Tensor x) -> Tensor
tanh(Tensor x) -> Tensor
sigmoid(Tensor x) -> Tensor
relu(Tensor x) -> Tensor
abs(Tensor x) -> Tensor
sign(Tensor x) -> Tensor
erf(Tensor x) -> Tensor
pow_scalar(Tensor x, float exponent) -> Tensor
clamp(Tensor x, Optional[float] min, Optional[float] max) -> Tensor
cast(Tensor x, DType dtype) -> Tensor

# elementwise binary, broadcasting
add(Tensor a, Tensor b) -> Tensor
sub(Tensor a, Tensor b) -> Tensor
mul(Tensor a, Tensor b) -> Tensor
div(Tensor a, Tensor b) -> Tensor
pow(Tensor a, Tensor b) -> Tensor
maximum(Tensor a, Tensor b) -> Tensor
minimum(Tensor a, Tensor b) -> Tensor
eq(Tensor a, Tensor b) -> Tensor
ne(Tensor a, Tensor b) -> Tensor
lt(Tensor a, Tensor b) -> Tensor
le(Tensor a, Tensor b) -> Tensor
gt(Tensor a, Tensor b) -> Tensor
ge(Tensor a, Tensor b) -> Tensor
logical_not(Tensor x) -> Tensor
where(Tensor cond, Tensor a, Tensor b) -> Tensor

# creation
full(Shape shape, float value, DType dtype) -> Tensor
zeros_like(Tensor x) -> Tensor
ones_like(Tensor x) -> Tensor
scalar_like(Tensor x, float value) -> Tensor

# reductions
sum(Tensor x, Dims dims=all, bool keepdim=False) -> Tensor
amax(Tensor x, Dims dims=all, bool keepdim=False) -> Tensor
amin(Tensor x, Dims dims=all, bool keepdim=False) -> Tensor
max_dim(Tensor x, int dim, bool keepdim) -> (Tensor, Tensor)
min_dim(Tensor x, int dim, bool keepdim) -> (Tensor, Tensor)
logsumexp(Tensor x, Dims dims, bool keepdim) -> Tensor
softmax(Tensor x, int dim) -> Tensor
# softmax(scores * scale + mask) over the last dim, mask broadcast to scores (Note
# [attention_softmax in one pass] in csrc/kernels/reduce.cpp)
attention_softmax(Tensor scores, float scale, Optional[Tensor] mask) -> Tensor
log_softmax(Tensor x, int dim) -> Tensor
sum_to(Tensor x, Shape shape) -> Tensor

# shape and views
reshape(Tensor x, Shape shape) -> Tensor
expand(Tensor x, Shape shape) -> Tensor
permute(Tensor x, Dims dims) -> Tensor
transpose(Tensor x, int dim0, int dim1) -> Tensor
unsqueeze(Tensor x, int dim) -> Tensor
squeeze(Tensor x, Dims dims) -> Tensor
slice(Tensor x, int dim, Optional[int] start, Optional[int] stop, int step) -> Tensor
select(Tensor x, int dim, int index) -> Tensor
contiguous(Tensor x) -> Tensor
clone(Tensor x) -> Tensor
cat(Sequence[Tensor] tensors, int dim) -> Tensor
stack(Sequence[Tensor] tensors, int dim) -> Tensor

# indexing (index tensors are int64; a negative entry is out of range, as in torch: only Python
# indexing wraps them, in index/index_put; out of range raises IndexError)
index_select(Tensor x, int dim, Tensor index) -> Tensor
index_add(Tensor x, int dim, Tensor index, Tensor source) -> Tensor
gather(Tensor x, int dim, Tensor index) -> Tensor
scatter_add(Tensor x, int dim, Tensor index, Tensor source) -> Tensor
index(Tensor x, Dims dims, Sequence[Tensor] indices) -> Tensor
index_put(Tensor x, Dims dims, Sequence[Tensor] indices, Tensor values, bool accumulate) -> Tensor
slice_scatter(Tensor x, Tensor source, int dim, Optional[int] start, Optional[int] stop, int step) -> Tensor
select_scatter(Tensor x, Tensor source, int dim, int index) -> Tensor

# linear algebra (>= 2-D operands, batch dims broadcast; through BLAS)
matmul(Tensor a, Tensor b) -> Tensor
# x (M, K) @ weight (N, K)^T + bias (N,) as one gemm accumulating into the bias rows (Note
# [linear's bias in the gemm] in csrc/kernels/linalg.cpp); other shapes as matmul and add.
linear_gemm(Tensor x, Tensor weight, Optional[Tensor] bias) -> Tensor

# reading data (forward only: the capture rule rejects saving what it returns)
item(Tensor x) -> float

# neural-network ops (csrc/kernels/kernels_nn.h; reference/kernels_nn.py). Images are
# (N, C, H, W); kernel_size/stride/padding/dilation are (h, w) pairs. im2col gives
# (N, C*kh*kw, oh*ow) with rows ordered (c, i, j) as torch's unfold; col2im sums it back
# (its adjoint); max_pool2d's indices are flat into H*W; pads are torch's (last dim first,
# negative crops); sort/topk break ties by the lower index.
im2col(Tensor x, Shape kernel_size, Shape stride, Shape padding, Shape dilation) -> Tensor
col2im(Tensor cols, Shape input_size, Shape kernel_size, Shape stride, Shape padding, Shape dilation) -> Tensor
max_pool2d(Tensor x, Shape kernel_size, Shape stride, Shape padding, Shape dilation) -> (Tensor, Tensor)
adaptive_pool_weights(Tensor x, int in_size, int out_size) -> Tensor
cumsum(Tensor x, int dim) -> Tensor
flip(Tensor x, Dims dims) -> Tensor
tril(Tensor x, int diagonal) -> Tensor
triu(Tensor x, int diagonal) -> Tensor
pad(Tensor x, Shape pads, float value) -> Tensor
sort(Tensor x, int dim, bool descending) -> (Tensor, Tensor)
topk(Tensor x, int k, int dim, bool largest) -> (Tensor, Tensor)
# batch normalisation (csrc/kernels/norm.cpp; reference/kernels_nn.py; Note [Fused batch_norm]
# in formulas/norm.py): x is (N, C, ...), statistics per channel C over the M values of every
# other dim, as (C,) tensors of x's dtype. batch_norm_stats -> (mean, biased variance);
# channel_affine -> x * scale[c] + shift[c]; batch_norm_backward -> (grad_x, sums), sums (2, C) =
# (sum grad, sum grad * xhat) with xhat = (x - mean) rstd, and grad_x = weight rstd (grad -
# sums[0] / M - xhat sums[1] / M) (weight None: 1).
batch_norm_stats(Tensor x) -> (Tensor, Tensor)
channel_affine(Tensor x, Tensor scale, Tensor shift) -> Tensor
batch_norm_backward(Tensor grad, Tensor x, Tensor mean, Tensor rstd, Optional[Tensor] weight) -> (Tensor, Tensor)
# recurrent cells (csrc/kernels/rnn.cpp; reference/kernels_rnn.py): gates (N, 4H) are
# pre-activation, in torch's order (i, f, g, o); c is (N, H), of the gates' dtype. lstm_cell ->
# (h, c_new); lstm_cell_backward recomputes the activations -> (grad_gates, grad_c_prev).
lstm_cell(Tensor gates, Tensor c) -> (Tensor, Tensor)
lstm_cell_backward(Tensor gates, Tensor c, Tensor gh, Tensor gc) -> (Tensor, Tensor)
# gru_cell: gi = x @ w_ih.T + b_ih and gh = h @ w_hh.T + b_hh (N, 3H), in torch's order (r, z, n),
# and h (N, H) -> the new h: n + z (h - n), n = tanh(gi_n + r gh_n).
gru_cell(Tensor gi, Tensor gh, Tensor h) -> Tensor
# gru_cell_backward: its gradients for the grad of the new h -> (grad_gi, grad_gh, grad_h).
gru_cell_backward(Tensor gi, Tensor gh, Tensor h, Tensor grad) -> (Tensor, Tensor, Tensor)
# A whole LSTM layer in one direction (Note [The LSTM layer runs in one kernel] in formulas/rnn.py):
# x (T, N, I), h0 and c0 (N, H), w_ih (4H, I), w_hh (4H, H), bias (4H) or None (b_ih + b_hh);
# reverse runs the steps from T - 1 down to 0. lstm_layer -> (hs, cs, gates): every step's h and c
# (T, N, H) and pre-activation gates (T, N, 4H). lstm_layer_bptt: backpropagation through time
# from the grads of hs, cs and gates (each None for zeros) -> (grad_gates (T, N, 4H), grad_c
# (T, N, H): step t's grad of the cell state it started from).
lstm_layer(Tensor x, Tensor h0, Tensor c0, Tensor w_ih, Tensor w_hh, Optional[Tensor] bias, bool reverse) -> (Tensor, Tensor, Tensor)
lstm_layer_bptt(Tensor gates, Tensor cs, Tensor c0, Tensor w_hh, Optional[Tensor] grad_hs, Optional[Tensor] grad_cs, Optional[Tensor] grad_gates, bool reverse) -> (Tensor, Tensor)
# lstm_layer_weight_grads: from grad_gates (T, N, 4H), the layer's x (T, N, I), hs (T, N, H) and h0
# (N, H) -> (grad_w_ih (4H, I), grad_w_hh (4H, H), grad_bias (4H)), each summed over the steps.
lstm_layer_weight_grads(Tensor d_gates, Tensor x, Tensor hs, Tensor h0, bool reverse) -> (Tensor, Tensor, Tensor)

# ==== views for autograd (issue 4; csrc/kernels/kernels_views.h). diagonal is a view as torch's:
# dim1 and dim2 are removed and the diagonal is the last dim; diagonal_scatter copies x.
diagonal(Tensor x, int offset, int dim1, int dim2) -> Tensor
diagonal_scatter(Tensor x, Tensor source, int offset, int dim1, int dim2) -> Tensor
# as_strided (issue 11): a view of x's storage with that geometry (strides and offset in
# elements), bounds-checked against the storage with torch's errors; strided_positions: the int64
# storage positions a geometry reads (shape `size`), which as_strided's backward scatters through.
as_strided(Tensor x, Shape size, Shape stride, int storage_offset) -> Tensor
strided_positions(Shape size, Shape stride, int storage_offset) -> Tensor

# ==== torch's derivative table, the entries users reach first (issue 15;
# csrc/kernels/kernels_special.h, reference/kernels_special.py). Elementwise and floating (int64/
# bool compute in float64) unless said: torch's values at the edges (erfinv(+-1) = +-inf,
# lgamma/digamma at poles as torch). fmod/remainder/floor_divide/trunc_divide keep int64
# (an int64 division by zero raises); remainder has the divisor's sign, floor_divide is Python's //.
sinh(Tensor x) -> Tensor
cosh(Tensor x) -> Tensor
asinh(Tensor x) -> Tensor
acosh(Tensor x) -> Tensor
atanh(Tensor x) -> Tensor
asin(Tensor x) -> Tensor
acos(Tensor x) -> Tensor
atan(Tensor x) -> Tensor
exp2(Tensor x) -> Tensor
erfc(Tensor x) -> Tensor
erfinv(Tensor x) -> Tensor
lgamma(Tensor x) -> Tensor
digamma(Tensor x) -> Tensor
polygamma(int n, Tensor x) -> Tensor
trunc(Tensor x) -> Tensor
nan_to_num(Tensor x, float nan, Optional[float] posinf, Optional[float] neginf) -> Tensor
atan2(Tensor a, Tensor b) -> Tensor
hypot(Tensor a, Tensor b) -> Tensor
fmod(Tensor a, Tensor b) -> Tensor
remainder(Tensor a, Tensor b) -> Tensor
floor_divide(Tensor a, Tensor b) -> Tensor
trunc_divide(Tensor a, Tensor b) -> Tensor
# products and scans (int64 kept by prod/cummax/cummin; cumprod/logcumsumexp are floating)
prod(Tensor x, Dims dims=all, bool keepdim=False) -> Tensor
cumprod(Tensor x, int dim) -> Tensor
logcumsumexp(Tensor x, int dim) -> Tensor
cummax(Tensor x, int dim) -> (Tensor, Tensor)
cummin(Tensor x, int dim) -> (Tensor, Tensor)
# scatter copies (the later write wins) and masked copies (mask: bool; masked_select broadcasts
# x and mask and returns the selected elements in row-major order; masked_scatter fills x's
# masked positions, in order, from the first elements of source)
scatter(Tensor x, int dim, Tensor index, Tensor source) -> Tensor
masked_select(Tensor x, Tensor mask) -> Tensor
masked_scatter(Tensor x, Tensor mask, Tensor source) -> Tensor
# dense linear algebra through LAPACK (square matrices with batch dims; solve broadcasts the
# batch dims of a and b, b is (..., n, k); singular matrices make inverse and solve raise)
det(Tensor x) -> Tensor
slogdet(Tensor x) -> (Tensor, Tensor)
inverse(Tensor x) -> Tensor
solve(Tensor a, Tensor b) -> Tensor
# factorisations through LAPACK (issue 15, linalg): batch dims allowed. cholesky reads one
# triangle (upper: A = U^H U) and raises torch's error when not positive-definite;
# solve_triangular solves A X = B (left; batch dims broadcast), reading A's triangle only;
# eigh: (eigenvalues ascending, eigenvectors as columns); qr: (Q, R) reduced or complete;
# svd: (U, Vh), the singular values from svdvals (descending)
cholesky(Tensor x, bool upper) -> Tensor
solve_triangular(Tensor a, Tensor b, bool upper, bool unitriangular) -> Tensor
eigh(Tensor x, bool upper) -> (Tensor, Tensor)
qr(Tensor x, bool complete) -> (Tensor, Tensor)
svd(Tensor x, bool full_matrices) -> (Tensor, Tensor)
svdvals(Tensor x) -> Tensor
# matrix_exp: the exponential of each square matrix (scaling and squaring, Taylor)
matrix_exp(Tensor x) -> Tensor
# LU with partial pivoting (getrf): lu_factor -> (the packed factors, x's dtype: L below the
# diagonal (unit diagonal implied), U on and above; LAPACK's 1-based int32 pivots, (..., min(m, n)));
# an exactly zero pivot is no error. lu_solve: X with A X = b (adjoint: A^T X = b) for the square
# A = P L U so given, batch dims broadcast. lu_permutation: P (..., m, m) in lu's dtype.
lu_factor(Tensor x) -> (Tensor, Tensor)
lu_solve(Tensor lu, Tensor pivots, Tensor b, bool adjoint) -> Tensor
lu_permutation(Tensor pivots, Tensor lu) -> Tensor
"""  # noqa: E501 - the table is one declaration per line

_PARAM_TYPES = frozenset({
    "Tensor", "Optional[Tensor]", "Sequence[Tensor]", "int", "float", "bool", "Scalar",
    "Shape", "Dims", "DType", "Optional[int]", "Optional[float]",
})
_RETURN_TYPES = frozenset({"Tensor", "(Tensor, Tensor)", "(Tensor, Tensor, Tensor)", "int",
                           "float"})


@dataclasses.dataclass(frozen=True)
class KernelParam:
    name: str
    type: str
    default: str | None = None  # Note [Kernel defaults]: "all" (Dims), "False", "True"


@dataclasses.dataclass(frozen=True)
class KernelSig:
    name: str
    params: tuple[KernelParam, ...]
    returns: str  # "Tensor", "(Tensor, Tensor)", "(Tensor, Tensor, Tensor)", "int" or "float"
    line: int     # line of this declaration in this file

    @property
    def num_outputs(self) -> int:
        return self.returns.count("Tensor") if self.returns.startswith("(") else 1


_LINE = re.compile(r"^(\w+)\((.*)\)\s*->\s*(.+)$")
_PARAM = re.compile(r"^(.+?)\s+(\w+)(?:\s*=\s*(\w+))?$")
_DEFAULTS = {"Dims": ("all",), "bool": ("False", "True")}


def _parse(table: str, first_line: int, source: str = "signatures.py") -> dict[str, KernelSig]:
    sigs: dict[str, KernelSig] = {}
    for offset, raw in enumerate(table.splitlines()):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        m = _LINE.match(text)
        if m is None:
            raise ValueError(f"{source}:{first_line + offset}: cannot parse {text!r}")
        name, params_text, returns = m.group(1), m.group(2), m.group(3).strip()
        params: list = []
        for p in filter(None, (s.strip() for s in _split_params(params_text))):
            pm = _PARAM.match(p)
            if pm is None or pm.group(1) not in _PARAM_TYPES:
                raise ValueError(f"{source}:{first_line + offset}: bad parameter {p!r}")
            default = pm.group(3)
            if default is not None and default not in _DEFAULTS.get(pm.group(1), ()):
                raise ValueError(f"{source}:{first_line + offset}: bad default {p!r}")
            if default is None and params and params[-1].default is not None:
                raise ValueError(f"{source}:{first_line + offset}: {p!r} needs a default")
            params.append(KernelParam(pm.group(2), pm.group(1), default))
        if returns not in _RETURN_TYPES:
            raise ValueError(f"{source}:{first_line + offset}: bad return type {returns!r}")
        if name in sigs:
            raise ValueError(f"{source}:{first_line + offset}: kernel {name} declared twice")
        sigs[name] = KernelSig(name, tuple(params), returns, first_line + offset)
    return sigs


def _split_params(text: str) -> list:
    """Split on commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def _table_line() -> int:
    """The line of ``_TABLE = \"\"\"`` in this file, so declarations know their own lines."""
    with open(__file__, encoding="utf-8") as f:
        return next(i for i, text in enumerate(f, 1) if text.startswith('_TABLE = """'))


KERNELS: dict[str, KernelSig] = _parse(_TABLE, first_line=_table_line())

# Note [Numbers as kernel operands]: formulas are written as people write torch, so one operand
# of an elementwise binary kernel may be a Python number, ``kernel.add(x, 1.0)`` or
# ``kernel.mul(x, c)`` with ``c`` a float parameter. It means ``kernel.scalar_like(x, number)``:
# a wrapped number, the lowest tier of type promotion (so it never promotes a float32 tensor),
# of the other operand's compute dtype when that is floating, which is what the ``x + 1.0``
# operator means (docs/ARCHITECTURE.md; Note [Type promotion] in transgrad/_dtypes.py). The
# compiled engine gets that call from lowering; the numpy kernels wrap a number the same way.
# The other operand must be a tensor named by a variable (the front end refuses anything else
# with T305), so the wrapping repeats a name, never a computation.
NUMBER_OPERAND_KERNELS = frozenset({
    "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge",
})
