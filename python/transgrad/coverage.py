"""Coverage of PyTorch's derivative table, measured: ``python -m transgrad.coverage``.

Stage: a measuring tool over the public API (both engines) with torch as the oracle. Input: the
installed torch (its ``derivatives.yaml`` and torch itself). Output: one line per entry of the
table, a summary of counts, and optionally a JSON file:

* verified: transgrad computes the entry, and value, VJP and VJP-of-VJP match torch in float64 on
  every case of ``TWINS`` on every engine checked;
* covered (mismatch: what): transgrad computes it, but a check failed or it raised;
* not covered (reason): no transgrad function, an in-place variant, a backward op, no mapping;
* out of scope: sparse, nested, quantized, backend-specific, ``_foreach``, complex-only (the
  importer's families: ``translator/import_yaml.py`` ``OUT_OF_SCOPE``).

``TWINS`` is the mapping from a yaml entry to the call that exercises it, as data: the function's
path (the same on ``transgrad``/``transgrad.reference`` and ``torch``, which share names; a leading
``.`` is a Tensor method; ``nn.functional.X`` the functional API), and the cases, each a
``case(...)`` of ``T``/``I``/``B`` tensor specs and plain values. Where transgrad's signature
differs from torch's, the difference is spelled in the case (never adapted silently); where
torch's public function records another node than the entry's, the twin's ``oracle`` calls the
entry's ATen op on torch's side (``torch.ops.aten``) with the same arguments. The summary also
counts the entries verified with a VJP and a VJP-of-VJP compared (Note [Strict count]). torch
stays optional: without it the tool says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import sys
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from transgrad.lang import B, I, T, case

RTOL, ATOL = 1e-7, 1e-9  # float64 throughout


@dataclasses.dataclass(frozen=True)
class Twin:
    """How a yaml entry is exercised: ``call`` on both libraries, on each of ``cases``."""

    call: str
    cases: tuple[case, ...]
    # "spd": every square float input made symmetric positive definite (a a^T + n I), for
    # the factorisations whose domain it is (cholesky, eigh)
    domain: str = ""
    # an in-place entry (``.exp_``, ``nn.functional.elu`` with inplace=True): the call runs on
    # a clone of its first argument, as both libraries refuse a leaf that requires grad
    inplace: bool = False
    # torch's side, where its public function records another node than the entry's (conv2d
    # records ``convolution``, not the algorithm it picks): ``oracle(torch, *args, **kwargs)``
    # calls the entry's ATen op on the case's arguments, given in the transgrad call's form
    oracle: Callable[..., Any] | None = None
    # why torch's VJP-of-VJP is not the oracle for this entry (torch's own gradgradcheck fails
    # on it): only value and VJP are compared, and the entry does not count as strict
    first_order_only: str = ""


def _conv_oracle(op: str, n: int, params: str) -> Callable[..., Any]:
    """``torch.ops.aten.<op>`` (a convolution algorithm) called with a functional conv call's
    arguments: ``params`` names its arguments after (input, weight), in its order."""

    def call(torch: Any, x: Any, w: Any, b: Any = None, stride: Any = 1, padding: Any = 0,
             dilation: Any = 1, groups: int = 1, output_padding: Any = 0) -> Any:
        def spread(v: Any) -> list[int]:
            return list(v) if isinstance(v, (tuple, list)) else [v] * n

        given = {"kernel_size": list(w.shape[2:]), "bias": b, "stride": spread(stride),
                 "padding": spread(padding), "dilation": spread(dilation),
                 "output_padding": spread(output_padding), "groups": groups,
                 "transposed": False, "flags": (False, False, True, True)}
        args = [given[p] for p in params.split()]
        flat = [e for a in args for e in (a if isinstance(a, tuple) else (a,))]
        return getattr(torch.ops.aten, op)(x, w, *flat)

    return call


def _batch_norm_oracle(op: str, params: str) -> Callable[..., Any]:
    """``torch.ops.aten.<op>`` (a form of batch norm) called with ``F.batch_norm``'s arguments;
    its normalised output only (the saved statistics are the op's, not the function's)."""

    def call(torch: Any, x: Any, running_mean: Any, running_var: Any, weight: Any = None,
             bias: Any = None, training: bool = False, momentum: float = 0.1,
             eps: float = 1e-5) -> Any:
        given = {"weight": weight, "bias": bias, "running_mean": running_mean,
                 "running_var": running_var, "training": training, "momentum": momentum,
                 "eps": eps}
        overload = torch.ops.aten
        for part in op.split("."):
            overload = getattr(overload, part)
        return overload(x, *[given[p] for p in params.split()])[0]

    return call


def _aten(op: str) -> Callable[..., Any]:
    """``torch.ops.aten.<op>`` called with the transgrad call's arguments as they are."""
    return lambda torch, *args, **kwargs: getattr(torch.ops.aten, op)(*args, **kwargs)


def _unsafe_index_oracle(torch: Any, x: Any, index: Any) -> Any:
    """``torch.ops.aten._unsafe_index`` with ``x[index]``'s arguments."""
    return torch.ops.aten._unsafe_index(x, [index])


def _rms_norm_oracle(torch: Any, x: Any, shape: Any, weight: Any = None,
                     eps: float | None = None) -> Any:
    """``torch.ops.aten._fused_rms_norm`` with ``F.rms_norm``'s arguments: its output only."""
    return torch.ops.aten._fused_rms_norm(x, list(shape), weight, eps)[0]


def _unary(low: float = -2.0, high: float = 2.0) -> tuple[case, ...]:
    return (case(T(3, 4, low=low, high=high)), case(T(2, 3, 5, low=low, high=high)),
            case(T(low=low, high=high)))


def _binary(low: float = -2.0, high: float = 2.0) -> tuple[case, ...]:
    return (case(T(3, 4, low=low, high=high), T(3, 4, low=low, high=high)),
            case(T(3, 4, low=low, high=high), T(4, low=low, high=high)),
            case(T(2, 1, 4, low=low, high=high), T(3, 1, low=low, high=high)))


def _dims() -> tuple[case, ...]:
    return (case(T(3, 4)), case(T(2, 3, 4), 1), case(T(2, 3, 4), (0, 2), keepdim=True),
            case(T(2, 3, 4), -1, keepdim=True))


def _dim() -> tuple[case, ...]:
    return (case(T(3, 4), 1), case(T(2, 3, 4), -2, True), case(T(5), 0))


_POS = (0.5, 2.0)
_UNARY = {
    "abs": (), "neg": (), "exp": (), "expm1": (), "sin": (), "cos": (), "tan": (-1.0, 1.0),
    "tanh": (), "sigmoid": (), "relu": (), "sign": (), "sgn": (), "erf": (), "erfc": (),
    "erfinv": (-0.9, 0.9), "sinh": (), "cosh": (), "asinh": (), "acosh": (1.5, 3.0),
    "atanh": (-0.8, 0.8), "asin": (-0.9, 0.9), "acos": (-0.9, 0.9), "atan": (), "exp2": (),
    "log": _POS, "log2": _POS, "log10": _POS, "log1p": (-0.5, 2.0), "sqrt": _POS,
    "rsqrt": _POS, "reciprocal": _POS, "lgamma": (0.5, 3.0), "digamma": (0.5, 3.0),
    "deg2rad": (), "rad2deg": (), "logit": (0.1, 0.9), "trunc": (),
    "floor": (), "ceil": (), "round": (), "frac": (), "clone": (), "nan_to_num": (),
}
_FUNCTIONAL = {
    "hardsigmoid": "hardsigmoid", "silu": "silu", "mish": "mish", "elu": "elu", "celu": "celu",
    "gelu": "gelu", "leaky_relu": "leaky_relu", "softplus": "softplus", "hardtanh": "hardtanh",
    "hardshrink": "hardshrink", "softshrink": "softshrink", "log_sigmoid_forward": "logsigmoid",
    "hardswish": "hardswish",
}
_BINARY = {
    "add.Tensor": ("add", ()), "sub.Tensor": ("sub", ()), "mul.Tensor": ("mul", ()),
    "div.Tensor": ("div", _POS), "pow.Tensor_Tensor": ("pow", _POS), "maximum": ("maximum", ()),
    "minimum": ("minimum", ()), "fmax": ("fmax", ()), "fmin": ("fmin", ()),
    "atan2": ("atan2", _POS), "hypot": ("hypot", _POS), "xlogy.Tensor": ("xlogy", _POS),
    "copysign.Tensor": ("copysign", _POS), "logaddexp": ("logaddexp", ()),
    "logaddexp2": ("logaddexp2", ()),
}

_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h",
                "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p")
lo = -2.0  # the polynomials' cases draw x from [-2, 2]: outside [-1, 1] too

TWINS: dict[str, Twin] = {
    **{n: Twin(n, _unary(*lim)) for n, lim in _UNARY.items()},
    **{n: Twin("nn.functional." + f, _unary()) for n, f in _FUNCTIONAL.items()},
    **{n: Twin(f, _binary(*lim)) for n, (f, lim) in _BINARY.items()},
    "lerp.Tensor": Twin("lerp", (case(T(3, 4), T(3, 4), T(3, 4)), case(T(3, 4), T(4), T(3, 1)))),
    "lerp.Scalar": Twin("lerp", (case(T(3, 4), T(3, 4), 0.3), case(T(3, 4), T(4), 0.7))),
    "add.Scalar": Twin("add", (case(T(3, 4), 2.5), case(T(3, 4), 2.5, alpha=2.0))),
    "sub.Scalar": Twin("sub", (case(T(3, 4), 2.5),)),
    "mul.Scalar": Twin("mul", (case(T(3, 4), 2.5),)),
    "div.Scalar": Twin("div", (case(T(3, 4), 2.5),)),
    "rsub.Tensor": Twin("rsub", (case(T(3, 4), T(4)), case(T(3, 4), T(3, 4), alpha=2.0))),
    "pow.Tensor_Scalar": Twin("pow", (case(T(3, 4, low=0.5, high=2.0), 2.5),
                                      case(T(3, 4), 2), case(T(3, 4), 3.0))),
    "pow.Scalar": Twin("pow", (case(2.0, T(3, 4)),)),
    "addcmul": Twin("addcmul", (case(T(3, 4), T(3, 4), T(4)), case(T(3, 4), T(4), T(3, 1),
                                                                   value=0.5))),
    "addcdiv": Twin("addcdiv", (case(T(3, 4), T(3, 4), T(4, low=0.5, high=2.0), value=0.5),)),
    "where.self": Twin("where", (case(B(3, 4), T(3, 4), T(3, 4)), case(B(3, 4), T(4), T(3, 1)))),
    "clamp": Twin("clamp", (case(T(3, 4), -0.5, 0.5), case(T(3, 4), min=-0.3),
                            case(T(3, 4), max=0.7))),
    "clamp_min": Twin("clamp_min", (case(T(3, 4), 0.1),)),
    "clamp_max": Twin("clamp_max", (case(T(3, 4), 0.1),)),
    "masked_fill.Scalar": Twin("masked_fill", (case(T(3, 4), B(3, 4), 0.5),
                                               case(T(3, 4), B(4), -1.0))),
    "masked_fill.Tensor": Twin("masked_fill", (case(T(3, 4), B(3, 4), T()),)),
    # reductions
    "sum": Twin("sum", (case(T(3, 4)), case(T(5)))),
    "sum.dim_IntList": Twin("sum", _dims()[1:]),
    "nansum": Twin("nansum", _dims()),
    "mean": Twin("mean", (case(T(3, 4)), case(T(5)))),
    "mean.dim": Twin("mean", _dims()[1:]),
    "amax": Twin("amax", _dims()[1:]),
    "amin": Twin("amin", _dims()[1:]),
    "logsumexp": Twin("logsumexp", _dims()[1:]),
    "prod": Twin("prod", (case(T(3, 4)),)),
    "prod.dim_int": Twin("prod", _dim()),
    "cumsum": Twin("cumsum", _dim()[::2]),
    "cumprod": Twin("cumprod", _dim()[::2]),
    "logcumsumexp": Twin("logcumsumexp", _dim()[::2]),
    "cummax": Twin("cummax", _dim()[::2]),
    "cummin": Twin("cummin", _dim()[::2]),
    "max.dim": Twin("max", _dim()),
    "min.dim": Twin("min", _dim()),
    "max": Twin("max", (case(T(3, 4)),)),
    "min": Twin("min", (case(T(3, 4)),)),
    "median": Twin("median", (case(T(3, 5)),)),
    "median.dim": Twin("median", _dim()),
    "kthvalue": Twin("kthvalue", (case(T(3, 4), 2, 1),)),
    "mode": Twin("mode", (case(T(3, 4), 1), case(T(3, 6, levels=3), 1),
                          case(T(2, 5, 3, levels=2), 1, True), case(T(4, 3, levels=3)))),
    # torch's third positional argument of var/std is ``unbiased``, not ``keepdim``
    "var.correction": Twin("var", _dims() + (case(T(2, 3, 4), -1, False),)),
    "std.correction": Twin("std", _dims() + (case(T(2, 3, 4), -1, False),)),
    "var_mean.correction": Twin("var_mean", _dims()),
    "std_mean.correction": Twin("std_mean", _dims()),
    "aminmax": Twin("aminmax", (case(T(3, 4), dim=1),)),
    "norm.ScalarOpt_dim": Twin("norm", (case(T(3, 4), 2, 1), case(T(2, 3, 4), 2, (0, 2), True))),
    "linalg_vector_norm": Twin("linalg.vector_norm", (
        case(T(3, 4)), case(T(3, 4), 2, 1), case(T(2, 3, 4), 3.0, (0, 2), True),
        case(T(3, 4), float("inf"), 1), case(T(3, 4), 1, keepdim=True), case(T(3, 4), 0.5, 0))),
    "_softmax": Twin("softmax", (case(T(3, 4), 1), case(T(2, 3, 4), -2), case(T(5), 0))),
    "_log_softmax": Twin("log_softmax", (case(T(3, 4), 1), case(T(2, 3, 4), -2), case(T(5), 0))),
    "sort": Twin("sort", (case(T(3, 4), 1), case(T(3, 4), 0, True))),
    "topk": Twin("topk", (case(T(3, 5), 2), case(T(3, 5), 2, 0, False))),
    # shapes and views
    "expand": Twin(".expand", (case(T(3, 1), 2, 3, 4), case(T(4), 3, 4))),
    "permute": Twin("permute", (case(T(2, 3, 4), (2, 0, 1)),)),
    "transpose.int": Twin("transpose", (case(T(2, 3, 4), 0, 2), case(T(3, 4), -1, 0))),
    "t": Twin("t", (case(T(3, 4)), case(T(4)))),
    "unsqueeze": Twin("unsqueeze", (case(T(3, 4), 1), case(T(3, 4), -1))),
    "squeeze": Twin("squeeze", (case(T(3, 1, 4)),)),
    "squeeze.dim": Twin("squeeze", (case(T(3, 1, 4), 1), case(T(3, 4), 0))),
    "view": Twin(".view", (case(T(3, 4), 2, 6), case(T(3, 4), -1))),
    "_reshape_alias": Twin("reshape", (case(T(3, 4), (2, 6)),)),
    "flip": Twin("flip", (case(T(3, 4), (0, 1)), case(T(2, 3, 4), (1,)))),
    "roll": Twin("roll", (case(T(3, 4), 1, 1), case(T(3, 4), (1, -1), (0, 1)))),
    "rot90": Twin("rot90", (case(T(3, 4)), case(T(3, 4), 3, (1, 0)))),
    "tril": Twin("tril", (case(T(4, 4)), case(T(3, 4), 1))),
    "triu": Twin("triu", (case(T(4, 4)), case(T(3, 4), -1))),
    "diagonal": Twin("diagonal", (case(T(3, 4)), case(T(2, 3, 4), 1, 1, 2))),
    "trace": Twin("trace", (case(T(3, 4)),)),
    "repeat": Twin(".repeat", (case(T(3, 4), 2, 1), case(T(3), 2, 2))),
    "unfold": Twin(".unfold", (case(T(3, 6), 1, 2, 2),)),
    "cat": Twin("cat", (case([T(3, 4), T(2, 4)]), case([T(3, 4), T(3, 2)], 1))),
    "stack": Twin("stack", (case([T(3, 4), T(3, 4)]), case([T(3, 4), T(3, 4)], 1))),
    "split.Tensor": Twin("split", (case(T(5, 4), 2), case(T(3, 4), 3, 1))),
    "unbind.int": Twin("unbind", (case(T(3, 4)), case(T(3, 4), 1))),
    "select.int": Twin("select", (case(T(3, 4), 1, 2), case(T(3, 4), 0, -1))),
    "index_select": Twin("index_select", (case(T(3, 4), 1, I(5, high=4)),)),
    "gather": Twin("gather", (case(T(3, 4), 1, I(3, 2, high=4)),)),
    "scatter_add": Twin("scatter_add", (case(T(3, 4), 1, I(3, 2, high=4), T(3, 2)),)),
    "index_add": Twin("index_add", (case(T(3, 4), 0, I(5, high=3), T(5, 4)),)),
    "select_scatter": Twin("select_scatter", (case(T(3, 4), T(3), 1, 2),)),
    "slice_scatter": Twin("slice_scatter", (case(T(5, 4), T(2, 4), 0, 1, 4, 2),)),
    "diagonal_scatter": Twin("diagonal_scatter", (case(T(3, 4), T(3)),)),
    "constant_pad_nd": Twin("nn.functional.pad", (case(T(3, 4), (1, 2)),
                                                  case(T(2, 3, 4), (1, 0, 0, 2), value=0.5))),
    # linear algebra
    "mm": Twin("mm", (case(T(3, 4), T(4, 2)),)),
    "bmm": Twin("bmm", (case(T(2, 3, 4), T(2, 4, 5)),)),
    "mv": Twin("mv", (case(T(3, 4), T(4)),)),
    "dot": Twin("dot", (case(T(4), T(4)),)),
    "matmul": Twin("matmul", (case(T(3, 4), T(4, 2)), case(T(2, 3, 4), T(4)),
                              case(T(4), T(2, 4, 3)), case(T(2, 1, 3, 4), T(5, 4, 2)))),
    "addmm": Twin("addmm", (case(T(3, 2), T(3, 4), T(4, 2)),
                            case(T(2), T(3, 4), T(4, 2), beta=0.5, alpha=2.0))),
    "addmv": Twin("addmv", (case(T(3), T(3, 4), T(4), beta=0.5, alpha=2.0),)),
    "addr": Twin("addr", (case(T(3, 4), T(3), T(4), beta=0.5, alpha=2.0),)),
    "addbmm": Twin("addbmm", (case(T(3, 5), T(2, 3, 4), T(2, 4, 5)),)),
    "baddbmm": Twin("baddbmm", (case(T(2, 3, 5), T(2, 3, 4), T(2, 4, 5), alpha=2.0),)),
    "linalg_cross": Twin("linalg.cross", (case(T(4, 3), T(4, 3)), case(T(2, 4, 3), T(1, 4, 3)),
                                          case(T(3, 4), T(3, 1), dim=0))),
    "index.Tensor": Twin(".__getitem__", (case(T(5, 4), I(3, high=5)),)),
    "slice.Tensor": Twin("narrow", (case(T(5, 4), 0, 1, 3), case(T(3, 6), -1, 2, 2))),
    "split_with_sizes": Twin("split", (case(T(5, 4), [2, 3]), case(T(3, 5), [1, 4], 1))),
    "chunk": Twin("chunk", (case(T(6, 4), 3), case(T(3, 5), 2, 1))),
    "squeeze.dims": Twin("squeeze", (case(T(3, 1, 4, 1), (1, 3)),)),
    "clamp.Tensor": Twin("clamp", (case(T(3, 4), T(3, 4, low=-2.0, high=-0.5),
                                        T(4, low=0.5, high=2.0)),)),
    "div.Tensor_mode": Twin("div", (case(T(3, 4), T(4, low=0.5, high=2.0), rounding_mode="floor"),
                                    case(T(3, 4), T(3, 4, low=0.5, high=2.0),
                                         rounding_mode="trunc"))),
    "div.Scalar_mode": Twin("div", (case(T(3, 4), 0.7, rounding_mode="floor"),)),
    "remainder.Tensor": Twin("remainder", (case(T(3, 4), T(4, low=0.5, high=2.0)),)),
    "remainder.Scalar": Twin("remainder", (case(T(3, 4), 0.7),)),
    "round.decimals": Twin("round", (case(T(3, 4), decimals=1),)),
    "sort.stable": Twin("sort", (case(T(3, 4), stable=True, dim=1),)),
    "norm.Scalar": Twin("norm", (case(T(3, 4)), case(T(3, 4), 1))),
    "isnan": Twin("isnan", (case(T(3, 4)),)),
    **{f"{op}.Tensor": Twin(op, _binary()) for op in ("eq", "ne", "lt", "le", "gt", "ge")},
    **{f"{op}.Scalar": Twin(op, (case(T(3, 4), 0.5),)) for op in ("eq", "ne", "lt", "le", "gt",
                                                                  "ge")},
    "any": Twin("any", (case(B(3, 4)),)),
    "any.dim": Twin("any", (case(B(3, 4), 1),)),
    "all": Twin("all", (case(B(3, 4)),)),
    "all.dim": Twin("all", (case(B(3, 4), 1),)),
    "polygamma": Twin("polygamma", (case(1, T(3, 4, low=0.5, high=3.0)),
                                     case(2, T(5, low=0.5, high=3.0)))),
    "fmod.Tensor": Twin("fmod", (case(T(3, 4), T(4, low=0.5, high=2.0)),)),
    "fmod.Scalar": Twin("fmod", (case(T(3, 4), 0.7),)),
    "scatter.src": Twin("scatter", (case(T(3, 4), 1, I(3, 2, high=4), T(3, 2)),)),
    "scatter.value": Twin("scatter", (case(T(3, 4), 1, I(3, 2, high=4), 0.5),)),
    "index_copy": Twin("index_copy", (case(T(5, 4), 0, I(2, high=5, distinct=True), T(2, 4)),
                                      case(T(3, 5), 1, I(4, high=5, distinct=True), T(3, 4)))),
    "index_fill.int_Scalar": Twin("index_fill", (case(T(5, 4), 0, I(2, high=5), 0.5),)),
    "masked_select": Twin("masked_select", (case(T(3, 4), B(3, 4)), case(T(3, 4), B(4)))),
    "masked_scatter": Twin("masked_scatter", (case(T(3, 4), B(3, 4), T(12)),)),
    "take": Twin("take", (case(T(3, 4), I(5, high=12)),)),
    "diag_embed": Twin("diag_embed", (case(T(2, 3)), case(T(2, 3), 1))),
    "_cdist_forward": Twin("cdist", (case(T(3, 4), T(5, 4)), case(T(2, 3, 4), T(2, 5, 4)))),
    "_pdist_forward": Twin("pdist", (case(T(5, 3)),)),
    "dist": Twin("dist", (case(T(3, 4), T(4)), case(T(3, 4), T(3, 4), 3))),
    "_embedding_bag": Twin("nn.functional.embedding_bag",
                           (case(I(6, high=5), T(5, 3), I(2, high=1)),)),
    "grid_sampler_2d": Twin("nn.functional.grid_sample", (
        case(T(1, 2, 4, 4), T(1, 3, 3, 2, low=-0.9, high=0.9), align_corners=False),
        case(T(2, 1, 3, 5), T(2, 2, 3, 2, low=-1.4, high=1.4), align_corners=True),
        case(T(1, 2, 4, 3), T(1, 3, 2, 2, low=-1.4, high=1.4), padding_mode="border",
             align_corners=False),
        case(T(1, 1, 4, 5), T(1, 3, 3, 2, low=-1.8, high=1.8), padding_mode="reflection",
             align_corners=False),
        case(T(1, 1, 5, 4), T(1, 2, 3, 2, low=-1.8, high=1.8), padding_mode="reflection",
             align_corners=True),
        case(T(1, 2, 4, 4), T(1, 3, 3, 2, low=-1.2, high=1.2, requires_grad=False),
             mode="nearest", align_corners=False))),
    "grid_sampler_3d": Twin("nn.functional.grid_sample", (
        case(T(1, 2, 3, 4, 3), T(1, 2, 3, 2, 3, low=-0.9, high=0.9), align_corners=False),
        case(T(1, 1, 3, 3, 4), T(1, 2, 2, 2, 3, low=-1.4, high=1.4), padding_mode="border",
             align_corners=True),
        case(T(1, 1, 4, 3, 3), T(1, 2, 2, 2, 3, low=-1.8, high=1.8),
             padding_mode="reflection", align_corners=False))),
    "affine_grid_generator": Twin("nn.functional.affine_grid", (
        case(T(2, 2, 3), (2, 1, 4, 5), align_corners=False),
        case(T(1, 2, 3), (1, 3, 3, 2), align_corners=True),
        case(T(2, 3, 4), (2, 1, 2, 3, 4), align_corners=False))),
    # singular matrices (a zero row): torch's gradient there goes through the SVD
    "_linalg_det": Twin("linalg.det", (case(T(3, 3)), case(T(2, 4, 4)),
                                       case(T(3, 3, zeros=((1,),))),
                                       case(T(2, 3, 3, zeros=((0, 2),))))),
    "_linalg_slogdet": Twin("linalg.slogdet", (case(T(3, 3)),)),
    "linalg_inv_ex": Twin("linalg.inv", (case(T(3, 3)),), "spd"),
    "_linalg_solve_ex": Twin("linalg.solve", (case(T(3, 3), T(3, 2)),), "spd"),
    # LU (formulas/linalg.py): LAPACK's 1-based int32 pivots as lu_factor gives them
    "linalg_lu": Twin("linalg.lu", (case(T(3, 3)), case(T(2, 4, 3)), case(T(3, 5)))),
    "linalg_lu_factor_ex": Twin("linalg.lu_factor_ex", (case(T(3, 3)), case(T(2, 4, 3)),
                                                        case(T(3, 5)))),
    "lu_unpack": Twin("lu_unpack", (
        case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32")),
        case(T(2, 4, 3, low=0.5, high=2.0), I(2, 3, low=1, high=5, dtype="int32")),
        case(T(3, 5, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32")))),
    "linalg_lu_solve": Twin("linalg.lu_solve", (
        case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32"), T(3, 2)),
        case(T(2, 3, 3, low=0.5, high=2.0), I(2, 3, low=1, high=4, dtype="int32"), T(4, 3),
             left=False, adjoint=True),
        case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32"), T(2, 3, 1),
             adjoint=True),
        case(T(3, 3, low=0.5, high=2.0), I(3, low=1, high=4, dtype="int32"), T(2, 3),
             left=False))),
    # the factorisations (issue 15, linalg): formulas/linalg.py; the singular vectors and
    # eigenvectors are compared through gauge-invariant functions (svdvals, eigvalsh, pinv)
    "linalg_cholesky_ex": Twin("linalg.cholesky", (case(T(3, 3)), case(T(2, 4, 4)),
                                                   case(T(3, 3), upper=True)), "spd"),
    "cholesky": Twin("cholesky", (case(T(3, 3)), case(T(2, 4, 4), True)), "spd"),
    "cholesky_solve": Twin("cholesky_solve", (
        case(T(3, 2), T(3, 3, low=0.5, high=2.0)),
        case(T(2, 4, 1), T(4, 4, low=0.5, high=2.0), True))),
    "cholesky_inverse": Twin("cholesky_inverse", (
        case(T(3, 3, low=0.5, high=2.0)), case(T(2, 4, 4, low=0.5, high=2.0), True))),
    "linalg_solve_triangular": Twin("linalg.solve_triangular", (
        case(T(3, 3, low=0.5, high=2.0), T(3, 2), upper=True),
        case(T(2, 4, 4, low=0.5, high=2.0), T(3, 4), upper=False, left=False),
        case(T(3, 3, low=0.5, high=2.0), T(2, 3, 4), upper=False, unitriangular=True))),
    "triangular_solve": Twin("triangular_solve", (
        case(T(3, 2), T(3, 3, low=0.5, high=2.0)),
        case(T(2, 3, 2), T(3, 3, low=0.5, high=2.0), False, True),
        case(T(3, 4), T(3, 3, low=0.5, high=2.0), True, False, True))),
    "_linalg_eigh": Twin("linalg.eigvalsh", (case(T(3, 3)), case(T(2, 4, 4), UPLO="U")), "spd"),
    "_linalg_svd": Twin("linalg.svdvals", (case(T(4, 3)), case(T(3, 5)), case(T(2, 4, 4)))),
    "linalg_qr": Twin("linalg.qr", (case(T(4, 3)), case(T(3, 5)), case(T(2, 3, 3)),
                                    case(T(3, 4), mode="complete"))),
    "linalg_pinv.atol_rtol_tensor": Twin("linalg.pinv", (case(T(4, 3)), case(T(2, 3, 5)))),
    "linalg_matrix_exp": Twin("linalg.matrix_exp", (case(T(3, 3)), case(T(2, 4, 4, low=-1.0,
                                                                          high=1.0)))),
    # neural-network ops (functional API)
    "one_hot": Twin("nn.functional.one_hot", (case(I(5, high=3), 3),)),
    "native_batch_norm": Twin("nn.functional.batch_norm", (
        case(T(4, 3), T(3, requires_grad=False), T(3, low=0.5, high=2.0, requires_grad=False),
             T(3), T(3), True),)),
    "max_pool2d": Twin("nn.functional.max_pool2d", (case(T(1, 2, 4, 4), 2),)),
    "mse_loss": Twin("nn.functional.mse_loss", (case(T(3, 4), T(3, 4)),)),
    "binary_cross_entropy_with_logits": Twin("nn.functional.binary_cross_entropy_with_logits",
                                             (case(T(3, 4), T(3, 4, low=0.0, high=1.0)),)),
    "nll_loss_forward": Twin("nn.functional.nll_loss", (case(T(5, 3), I(5, high=3)),)),
    "embedding": Twin("nn.functional.embedding", (case(I(2, 3, high=5), T(5, 4)),)),
    "linear": Twin("nn.functional.linear", (case(T(3, 4), T(2, 4), T(2)),)),
    "native_layer_norm": Twin("nn.functional.layer_norm", (case(T(3, 4), (4,), T(4), T(4)),)),
    "convolution": Twin("nn.functional.conv2d", (case(T(1, 2, 5, 5), T(3, 2, 3, 3), T(3)),)),
    "max_pool2d_with_indices": Twin("nn.functional.max_pool2d", (case(T(1, 2, 4, 4), 2),)),
    "avg_pool2d": Twin("nn.functional.avg_pool2d", (
        case(T(1, 2, 4, 4), 2), case(T(1, 2, 5, 5), 2, ceil_mode=True),
        case(T(2, 5, 6), 3, 2, 1, ceil_mode=True, count_include_pad=False))),
    "_adaptive_avg_pool2d": Twin("nn.functional.adaptive_avg_pool2d", (case(T(1, 2, 5, 5), 2),)),
    # (at exactly 0 torch's second derivative is NaN, ours -pi^2/3: tests/api/test_composites)
    "sinc": Twin("sinc", _unary() + (case(T(3, 4, low=-1e-3, high=1e-3)),)),
    # overloads of functions covered above
    "any.dims": Twin("any", (case(B(3, 4), (0, 1)), case(B(2, 3, 4), (0, 2), True))),
    "all.dims": Twin("all", (case(B(3, 4), (0, 1)), case(B(2, 3, 4), (0, 2), True))),
    "clamp_min.Tensor": Twin("clamp_min", (case(T(3, 4), T(4)), case(T(3, 4), T(3, 4)))),
    "clamp_max.Tensor": Twin("clamp_max", (case(T(3, 4), T(4)), case(T(3, 4), T(3, 4)))),
    "block_diag": Twin("block_diag", (case(T(2, 3), T(1, 2)), case(T(2, 2), T(3), T()))),
    "index_fill.int_Tensor": Twin("index_fill", (case(T(5, 4), 0, I(2, high=5), T()),
                                                 case(T(3, 5), 1, I(3, high=5), T()))),
    "xlogy.Scalar_Self": Twin("xlogy", (case(2.5, T(3, 4, low=0.5, high=2.0)),)),
    "xlogy.Scalar_Other": Twin("xlogy", (case(T(3, 4), 2.5),)),
    "norm.ScalarOpt_dtype": Twin("norm", (case(T(3, 4), 2, dtype="float64"),
                                          case(T(3, 4), 3.0, dtype="float64"))),
    "norm.ScalarOpt_dim_dtype": Twin("norm", (case(T(3, 4), 2, 1, dtype="float64"),
                                              case(T(2, 3, 4), 1, (0, 2), True,
                                                   dtype="float64"))),
    "rsub.Scalar": Twin("rsub", (case(T(3, 4), 2.5), case(T(3, 4), 2.5, alpha=2.0))),
    # ties (levels) only with include_self: torch's amax/amin backward counts an excluded
    # self that equals the result among the ties (its src gradient is then not the whole
    # grad); ours shares it among the src elements only (Note [scatter_reduce kernels])
    "scatter_reduce.two": Twin("scatter_reduce", tuple(
        case(T(3, 4, **z), 1, I(3, 5, high=4), T(3, 5, **z), r, include_self=inc)
        for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)
        for z in ({}, {"levels": 3}, {"zeros": ((0, 1), (1, 1))})
        if inc or "levels" not in z) + tuple(
        case(T(5, 4), 0, I(2, 4, high=5), T(2, 4), r, include_self=inc)
        for r in ("prod", "amax") for inc in (True, False))),
    "index_reduce": Twin("index_reduce", tuple(
        case(T(5, 3), 0, I(4, high=5), T(4, 3), r, include_self=inc)
        for r in ("prod", "mean", "amax", "amin") for inc in (True, False))),
    # special functions by branches (Note [Special functions by branches] in _api/composites.py)
    **{n: Twin(call, (case(T(3, 4, low=-3.0, high=3.0)), case(T(2, 5, low=-30.0, high=30.0)),
                      case(T(4, low=14.0, high=16.0)), case(T(4, low=-16.0, high=-14.0))))
       for n, call in (("i0", "i0"), ("special_i0e", "special.i0e"), ("special_i1", "special.i1"),
                       ("special_i1e", "special.i1e"))},
    "special_log_ndtr": Twin("special.log_ndtr", (
        case(T(3, 4, low=-3.0, high=3.0)), case(T(5, low=-30.0, high=-15.0)),
        case(T(5, low=-1.5, high=-0.5)), case(T(2, 3, low=2.0, high=9.0)))),
    "special_erfcx": Twin("special.erfcx", (
        case(T(3, 4, low=-3.0, high=3.0)), case(T(5, low=5.0, high=40.0)),
        case(T(5, low=-6.0, high=-2.0)))),
    # orthogonal polynomials (values only: non_differentiable in torch's table)
    **{f"special_{p}{o}": Twin(f"special.{p}", c) for p in _POLYNOMIALS for o, c in (
        ("", (case(T(3, 4, requires_grad=False, low=lo), I(3, 4, high=9)),
              case(T(2, 1, 5, low=lo), I(3, 1, high=12)))),
        (".x_scalar", (case(0.3, I(3, 4, high=9)),)),
        (".n_scalar", (case(T(3, 4, low=lo), 5), case(T(4, low=lo), 0))))},
    # compositions of existing functions (_api/composites.py)
    "copysign.Scalar": Twin("copysign", (case(T(3, 4), -1.5), case(T(3, 4), 0.0))),
    "ldexp.Tensor": Twin("ldexp", (case(T(3, 4), T(3, 4)), case(T(3, 4), T(4)))),
    "special_xlog1py": Twin("special.xlog1py", (case(T(3, 4), T(3, 4, low=-0.5, high=2.0)),
                                                case(T(3, 4), T(4, low=-0.5, high=2.0)))),
    "special_xlog1py.self_scalar": Twin("special.xlog1py",
                                        (case(2.5, T(3, 4, low=-0.5, high=2.0)),)),
    "special_xlog1py.other_scalar": Twin("special.xlog1py", (case(T(3, 4), 1.5),)),
    "special_entr": Twin("special.entr", (case(T(3, 4, low=0.1, high=2.0)),)),
    "special_ndtri": Twin("special.ndtri", (case(T(3, 4, low=0.05, high=0.95)),
                                            case(T(5, low=1e-3, high=1e-2)))),
    # nn.Bilinear's op (torch's F.bilinear records _trilinear under a view)
    "_trilinear": Twin("nn.functional.bilinear", (
        case(T(3, 4), T(3, 5), T(2, 4, 5), T(2)), case(T(2, 3, 4), T(2, 3, 2), T(3, 4, 2)))),
    # nn.utils.weight_norm's reparametrisation (dim 0 and the last: torch's fused op on CPU)
    "_weight_norm_interface": Twin("_weight_norm", (
        case(T(4, 3), T(4, 1, low=0.5, high=2.0), 0), case(T(2, 3, 4), T(1, 1, 4), 2),
        case(T(3, 2, 2), T(3, 1, 1), 0)),
        first_order_only="torch's second derivative holds the norms constant (torch's "
                         "gradgradcheck of _weight_norm fails; ours passes)"),
    "mvlgamma": Twin("mvlgamma", (case(T(3, 4, low=1.5, high=4.0), 3),
                                  case(T(5, low=0.5, high=4.0), 1))),
    "vdot": Twin("vdot", (case(T(4), T(4)),)),
    "nextafter": Twin("nextafter", (case(T(3, 4), T(3, 4)), case(T(3, 4, levels=3),
                                                                  T(4, levels=3)))),
    "frexp.Tensor": Twin("frexp", (case(T(3, 4, low=-40.0, high=40.0, zeros=((0, 0),))),)),
    "conv_tbc": Twin("conv_tbc", (case(T(6, 2, 3), T(3, 3, 4), T(4)),
                                  case(T(5, 1, 2), T(2, 2, 3), T(3), 1))),
    "count_nonzero": Twin("count_nonzero", (case(T(3, 4, zeros=((0, 1), (2, 2)))),
                                            case(T(3, 4, zeros=((0, 1),)), 1))),
    "count_nonzero.dim_IntList": Twin("count_nonzero",
                                      (case(T(2, 3, 4, zeros=((0, 1, 2),)), (0, 2)),)),
    "fill.Scalar": Twin("fill", (case(T(3, 4), 0.5),)),
    "fill.Tensor": Twin("fill", (case(T(3, 4), T()),)),
    "renorm": Twin("renorm", (case(T(3, 4), 2, 0, 1.0), case(T(2, 3, 4), 1, 1, 2.0),
                              case(T(3, 4), 3.0, -1, 0.5))),
    "nanmedian": Twin("nanmedian", (case(T(3, 5)), case(T(4)))),
    "nanmedian.dim": Twin("nanmedian", (case(T(3, 5), 1), case(T(2, 3, 4), -1, True),
                                        case(T(4, 3), 0))),
    "put": Twin("put", (case(T(3, 4), I(5, high=12, distinct=True), T(5)),
                        case(T(3, 4), I(6, high=12), T(6), accumulate=True))),
    "index_put": Twin("index_put", (case(T(5, 4), [I(3, high=5, distinct=True)], T(3, 4)),
                                    case(T(5, 4), [I(6, high=5)], T(4), accumulate=True))),
    "narrow_copy": Twin("narrow_copy", (case(T(5, 4), 0, 1, 3), case(T(3, 6), -1, 2, 2))),
    "unsafe_split.Tensor": Twin("unsafe_split", (case(T(5, 4), 2), case(T(3, 4), 3, 1))),
    "unsafe_split_with_sizes": Twin("unsafe_split_with_sizes", (case(T(5, 4), [2, 3]),
                                                                case(T(3, 5), [1, 4], 1))),
    "pixel_shuffle": Twin("pixel_shuffle", (case(T(1, 8, 2, 3), 2), case(T(2, 1, 9, 2, 2), 3))),
    "pixel_unshuffle": Twin("pixel_unshuffle", (case(T(1, 2, 4, 6), 2),)),
    "channel_shuffle": Twin("channel_shuffle", (case(T(2, 6, 3), 3), case(T(1, 4, 2, 2), 2))),
    # counting (values only: torch has no gradient)
    "_unique2": Twin("unique", (case(T(3, 4, levels=4), return_inverse=True, return_counts=True),
                                case(T(5, levels=3)))),
    "unique_dim": Twin("unique", (case(T(5, 3, levels=2), dim=0, return_inverse=True,
                                       return_counts=True),
                                  case(T(2, 6, levels=2), dim=1))),
    "unique_consecutive": Twin("unique_consecutive", (
        case(T(12, levels=2), return_inverse=True, return_counts=True), case(T(3, 4, levels=2)))),
    "unique_dim_consecutive": Twin("unique_consecutive", (
        case(T(6, 2, levels=2), return_inverse=True, return_counts=True, dim=0),)),
    "nonzero": Twin("nonzero", (case(T(3, 4, zeros=((0, 1), (2, 2)))), case(T(2, 3, 2, levels=3)),
                                case(T(5, levels=2), as_tuple=True), case(T()))),
    "histc": Twin("histc", (case(T(20), 5, -1.0, 1.0), case(T(3, 4)), case(T(10), bins=4))),
    # in-place entries (on a clone of the first argument)
    "polygamma_": Twin(".polygamma_", (case(T(3, 4, low=0.5, high=3.0), 1),), inplace=True),
    **{f"{n}_": Twin(f".{n}_", (case(T(3, 4, low=lo, high=hi)),), inplace=True)
       for n, lo, hi in (("acosh", 1.5, 3.0), ("asinh", -2.0, 2.0), ("atanh", -0.8, 0.8))},
    "fill_.Scalar": Twin(".fill_", (case(T(3, 4), 0.5),), inplace=True),
    "fill_.Tensor": Twin(".fill_", (case(T(3, 4), T()),), inplace=True),
    "zero_": Twin(".zero_", (case(T(3, 4)),), inplace=True),
    **{f"{op}_.Tensor": Twin(f".{op}_", (case(T(3, 4), T(3, 4)), case(T(3, 4), T(4))),
                             inplace=True) for op in ("eq", "ne", "lt", "le", "gt", "ge")},
    **{f"{op}_.Scalar": Twin(f".{op}_", (case(T(3, 4), 0.1),), inplace=True)
       for op in ("eq", "ne", "lt", "le", "gt", "ge")},
    "elu_": Twin("nn.functional.elu", (case(T(3, 4), inplace=True),), inplace=True),
    "celu_": Twin("nn.functional.celu", (case(T(3, 4), inplace=True),), inplace=True),
    "leaky_relu_": Twin("nn.functional.leaky_relu", (case(T(3, 4), 0.2, inplace=True),),
                        inplace=True),
    "threshold_": Twin("nn.functional.threshold", (case(T(3, 4), 0.1, -1.0, inplace=True),),
                       inplace=True),
    # the functional API over the layers' ops (each entry's ATen op is what torch's functional
    # call dispatches to on CPU for these cases)
    "threshold": Twin("nn.functional.threshold", (case(T(3, 4), 0.1, -1.0),
                                                  case(T(2, 3, 4), -0.5, 2.0))),
    "glu": Twin("nn.functional.glu", (case(T(3, 4)), case(T(2, 6, 3), 1))),
    "_prelu_kernel": Twin("nn.functional.prelu", (case(T(2, 3, 4), T(3)), case(T(3, 4), T(1)))),
    "smooth_l1_loss": Twin("nn.functional.smooth_l1_loss", (
        case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), reduction="sum", beta=0.5),
        case(T(5), T(5), reduction="none", beta=2.0))),
    "huber_loss": Twin("nn.functional.huber_loss", (
        case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), reduction="sum", delta=0.5),
        case(T(5), T(5), reduction="none", delta=2.0))),
    "multi_margin_loss": Twin("nn.functional.multi_margin_loss", (
        case(T(4, 5), I(4, high=5)), case(T(3, 4), I(3, high=4), 2, 0.7, reduction="sum"),
        case(T(3, 4), I(3, high=4), weight=T(4, requires_grad=False, low=0.5, high=2.0),
             reduction="none"))),
    "multilabel_margin_loss_forward": Twin("nn.functional.multilabel_margin_loss", (
        case(T(3, 4), I(3, 4, high=4)), case(T(2, 5), I(2, 5, high=5), reduction="none"))),
    "soft_margin_loss": Twin("nn.functional.soft_margin_loss", (
        case(T(3, 4), T(3, 4, requires_grad=False)),
        case(T(5), T(5, requires_grad=False), reduction="none"))),
    "binary_cross_entropy": Twin("nn.functional.binary_cross_entropy", (
        case(T(3, 4, low=0.05, high=0.95), T(3, 4, low=0.0, high=1.0)),
        case(T(5, low=0.05, high=0.95), T(5, low=0.0, high=1.0),
             T(5, requires_grad=False, low=0.5, high=2.0), reduction="sum"),
        case(T(2, 3, low=0.05, high=0.95), T(2, 3, low=0.0, high=1.0), reduction="none"))),
    "nll_loss2d_forward": Twin("nn.functional.nll_loss", (
        case(T(2, 3, 2, 2), I(2, 2, 2, high=3)),
        case(T(2, 3, 3, 2), I(2, 3, 2, high=3), T(3, requires_grad=False, low=0.5, high=2.0),
             reduction="sum"))),
    **{f"{kind}_pad{d}d": Twin("nn.functional.pad", cs) for kind, mode in (
        ("reflection", "reflect"), ("replication", "replicate")) for d, cs in (
        (1, (case(T(2, 3, 5), (2, 1), mode=mode), case(T(3, 4), (0, 3), mode=mode))),
        (2, (case(T(1, 2, 4, 5), (1, 2, 2, 1), mode=mode), case(T(2, 3, 4), (1, 0, 0, 2),
                                                                 mode=mode))),
        (3, (case(T(1, 2, 3, 4, 4), (1, 1, 2, 0, 1, 2), mode=mode),)))},
    **{f"upsample_{mode}{d}d": Twin("nn.functional.interpolate", cs) for mode, d, cs in (
        ("nearest", 1, (case(T(1, 2, 5), size=8), case(T(2, 1, 4), scale_factor=2))),
        ("nearest", 2, (case(T(1, 2, 3, 4), size=(5, 7)), case(T(1, 1, 3, 3), scale_factor=2))),
        ("nearest", 3, (case(T(1, 1, 2, 3, 3), size=(3, 4, 5)),)),
        ("linear", 1, (case(T(1, 2, 5), size=8, mode="linear"),
                       case(T(2, 1, 4), scale_factor=2, mode="linear", align_corners=True))),
        ("bilinear", 2, (case(T(1, 2, 3, 4), size=(5, 7), mode="bilinear"),
                         case(T(1, 1, 3, 3), scale_factor=2, mode="bilinear",
                              align_corners=True))),
        ("trilinear", 3, (case(T(1, 1, 2, 3, 3), size=(3, 4, 5), mode="trilinear"),
                          case(T(1, 1, 2, 2, 3), scale_factor=2, mode="trilinear",
                               align_corners=True))))},
    **{f"_upsample_nearest_exact{d}d": Twin("nn.functional.interpolate", cs) for d, cs in (
        (1, (case(T(1, 2, 5), size=8, mode="nearest-exact"),
             case(T(2, 1, 7), size=3, mode="nearest-exact"))),
        (2, (case(T(1, 2, 3, 4), size=(5, 7), mode="nearest-exact"),
             case(T(1, 1, 5, 6), scale_factor=0.5, mode="nearest-exact"))),
        (3, (case(T(1, 1, 2, 3, 3), size=(3, 4, 5), mode="nearest-exact"),)))},
    "upsample_bicubic2d": Twin("nn.functional.interpolate", (
        case(T(1, 2, 3, 4), size=(5, 7), mode="bicubic"),
        case(T(1, 1, 4, 3), scale_factor=2, mode="bicubic", align_corners=True),
        case(T(2, 1, 6, 5), size=(4, 3), mode="bicubic"))),
    **{f"_upsample_{mode}2d_aa": Twin("nn.functional.interpolate", (
        case(T(1, 2, 7, 9), size=(3, 4), mode=mode, antialias=True),
        case(T(1, 1, 3, 4), size=(5, 7), mode=mode, antialias=True),
        case(T(1, 1, 8, 6), scale_factor=0.5, mode=mode, antialias=True, align_corners=True)))
       for mode in ("bilinear", "bicubic")},
    "adaptive_max_pool2d": Twin("nn.functional.adaptive_max_pool2d", (
        case(T(1, 2, 5, 7), (2, 3), return_indices=True), case(T(2, 4, 4), 3))),
    "max_pool3d_with_indices": Twin("nn.functional.max_pool3d", (
        case(T(1, 2, 4, 4, 4), 2, return_indices=True),
        case(T(2, 3, 5, 4), (2, 3, 2), stride=1, padding=1, return_indices=True))),
    # 3-D pooling, average pooling's options, unpooling (composites in _nn/functional.py)
    "avg_pool3d": Twin("nn.functional.avg_pool3d", (
        case(T(1, 2, 4, 4, 4), 2), case(T(2, 3, 5, 4), (2, 3, 2), stride=1, padding=1),
        case(T(1, 2, 5, 4, 5), 2, padding=1, count_include_pad=False, ceil_mode=True),
        case(T(1, 1, 4, 5, 4), (3, 2, 2), (2, 2, 1), divisor_override=5))),
    "_adaptive_avg_pool3d": Twin("nn.functional.adaptive_avg_pool3d", (
        case(T(1, 2, 5, 4, 6), (2, 3, 4)), case(T(2, 4, 4, 3), 2),
        case(T(1, 1, 3, 5, 4), (None, 2, 3)))),
    "adaptive_max_pool3d": Twin("nn.functional.adaptive_max_pool3d", (
        case(T(1, 2, 5, 4, 6), (2, 3, 4), return_indices=True), case(T(2, 4, 4, 3), 2))),
    "max_unpool2d": Twin("nn.functional.max_unpool2d", (
        case(T(1, 2, 2, 2), I(1, 2, 2, 2, high=16, distinct=True), 2),
        case(T(2, 3, 3), I(2, 3, 3, high=25, distinct=True), 3, 2, 1, output_size=(5, 5)))),
    "max_unpool3d": Twin("nn.functional.max_unpool3d", (
        case(T(1, 1, 2, 2, 2), I(1, 1, 2, 2, 2, high=64, distinct=True), 2),)),
    "im2col": Twin("nn.functional.unfold", (case(T(1, 2, 5, 5), 2),
                                            case(T(2, 4, 5), 3, padding=1, stride=2),
                                            case(T(1, 1, 6, 5), (2, 3), dilation=2))),
    "col2im": Twin("nn.functional.fold", (case(T(1, 8, 12), (4, 5), 2),
                                          case(T(2, 9, 9), (5, 5), 3, padding=1, stride=2))),
    "native_group_norm": Twin("nn.functional.group_norm", (
        case(T(2, 4, 3), 2, T(4), T(4)), case(T(2, 6, 2, 2), 3), case(T(3, 4), 4, eps=1e-3))),
    # (torch's CPU _fused_rms_norm is a composite: its own formula runs on other devices only)
    "_fused_rms_norm": Twin("nn.functional.rms_norm", (
        case(T(3, 4), (4,), T(4)), case(T(2, 3, 4), (3, 4), eps=1e-3)), oracle=_rms_norm_oracle),
    # convolutions: on torch's side the entry's algorithm itself (torch's conv2d records
    # ``convolution``, which calls the algorithm without recording it)
    "_convolution": Twin("nn.functional.conv1d", (
        case(T(2, 3, 6), T(4, 3, 2), T(4)), case(T(1, 3, 7), T(2, 3, 3), stride=2)),
        oracle=_conv_oracle("_convolution", 1, "bias stride padding dilation transposed "
                                               "output_padding groups flags")),
    "_slow_conv2d_forward": Twin("nn.functional.conv2d", (
        case(T(1, 2, 5, 5), T(3, 2, 3, 3), T(3), stride=2, padding=1),),
        oracle=_conv_oracle("_slow_conv2d_forward", 2, "kernel_size bias stride padding")),
    "slow_conv_dilated2d": Twin("nn.functional.conv2d", (
        case(T(1, 2, 6, 6), T(3, 2, 2, 2), T(3), dilation=2),),
        oracle=_conv_oracle("slow_conv_dilated2d", 2,
                            "kernel_size bias stride padding dilation")),
    "slow_conv_transpose2d": Twin("nn.functional.conv_transpose2d", (
        case(T(1, 2, 3, 3), T(2, 3, 2, 2), T(3), stride=2),
        case(T(1, 2, 3, 3), T(2, 2, 3, 2), padding=1, output_padding=(1, 0), stride=2)),
        oracle=_conv_oracle("slow_conv_transpose2d", 2,
                            "kernel_size bias stride padding output_padding dilation")),
    "slow_conv_transpose3d": Twin("nn.functional.conv_transpose3d", (
        case(T(1, 2, 2, 3, 3), T(2, 3, 2, 2, 2), T(3), stride=2),
        case(T(1, 2, 3, 2, 3), T(2, 2, 2, 3, 2), padding=1, output_padding=(1, 0, 1), stride=2),
        case(T(1, 1, 3, 3, 2), T(1, 2, 2, 2, 2), dilation=2, stride=(1, 2, 1))),
        oracle=_conv_oracle("slow_conv_transpose3d", 3,
                            "kernel_size bias stride padding output_padding dilation")),
    "slow_conv3d_forward": Twin("nn.functional.conv3d", (
        case(T(1, 2, 3, 4, 4), T(3, 2, 2, 2, 2), T(3)),
        case(T(1, 2, 3, 4, 3), T(2, 2, 2, 2, 2), stride=(1, 2, 1), padding=1)),
        oracle=_conv_oracle("slow_conv3d_forward", 3, "kernel_size bias stride padding")),
    "slow_conv_dilated3d": Twin("nn.functional.conv3d", (
        case(T(1, 2, 4, 4, 4), T(3, 2, 2, 2, 2), T(3), dilation=2),),
        oracle=_conv_oracle("slow_conv_dilated3d", 3,
                            "kernel_size bias stride padding dilation")),
    "_euclidean_dist": Twin("cdist", (
        case(T(3, 4), T(5, 4), compute_mode="use_mm_for_euclid_dist"),
        case(T(2, 3, 2), T(2, 4, 2), compute_mode="use_mm_for_euclid_dist"))),
    "_to_copy": Twin(".to", (case(T(3, 4), dtype="float64", copy=True),
                             case(T(3, 4), dtype="float32"))),
    "_scaled_dot_product_flash_attention_for_cpu": Twin(
        "nn.functional.scaled_dot_product_attention", (case(T(2, 3, 4, 5), T(2, 3, 4, 5),
                                                            T(2, 3, 4, 5)),)),
    "_pack_padded_sequence": Twin("nn.utils.rnn.pack_padded_sequence", (
        case(T(5, 3, 2), [3, 5, 2], enforce_sorted=False),
        case(T(3, 4), [4, 2, 1], batch_first=True, enforce_sorted=False))),
    # internal ops of the same function as a public one, called as ops on torch's side
    "_unsafe_view": Twin("reshape", (case(T(3, 4), (2, 6)), case(T(2, 3, 2), (-1,))),
                         oracle=_aten("_unsafe_view")),
    "_reshape_copy": Twin("reshape", (case(T(3, 4), (2, 6)), case(T(2, 3, 2), (3, -1))),
                          oracle=_aten("_reshape_copy")),
    "_lazy_clone": Twin("clone", (case(T(3, 4)),), oracle=_aten("_lazy_clone")),
    "_neg_view": Twin("neg", (case(T(3, 4)), case(T(2, 3, 2))), oracle=_aten("_neg_view")),
    "_safe_softmax": Twin("softmax", (case(T(3, 4), 1), case(T(2, 3, 4), 0)),
                          oracle=_aten("_safe_softmax")),
    "_unsafe_index.Tensor": Twin(".__getitem__", (case(T(5, 4), I(3, high=5)),
                                                  case(T(4, 3), I(2, 3, high=4))),
                                 oracle=_unsafe_index_oracle),
    "_unsafe_index_put": Twin("index_put", (
        case(T(5, 4), [I(3, high=5, distinct=True)], T(3, 4)),
        case(T(5, 4), [I(6, high=5)], T(4), accumulate=True)), oracle=_aten("_unsafe_index_put")),
    "_index_put_impl_": Twin(".index_put_", (
        case(T(5, 4), [I(3, high=5, distinct=True)], T(3, 4)),
        case(T(5, 4), [I(6, high=5)], T(4), accumulate=True)), inplace=True,
        oracle=_aten("_index_put_impl_")),
    # batch norm's ATen forms, each called on torch's side (F.batch_norm records
    # native_batch_norm): with running statistics, without, and in evaluation
    **{n: Twin("nn.functional.batch_norm", (case(
        T(4, 3, 2), None if no_stats else T(3, requires_grad=False),
        None if no_stats else T(3, low=0.5, high=2.0, requires_grad=False),
        T(3), T(3), training, eps=1e-3),), oracle=_batch_norm_oracle(n, params))
       for n, no_stats, training, params in (
        ("_native_batch_norm_legit", False, True,
         "weight bias running_mean running_var training momentum eps"),
        ("_native_batch_norm_legit.no_stats", True, True, "weight bias training momentum eps"),
        ("_native_batch_norm_legit_no_training", False, False,
         "weight bias running_mean running_var momentum eps"),
        ("_batch_norm_with_update", False, True,
         "weight bias running_mean running_var momentum eps"),
        ("_batch_norm_no_update", False, False,
         "weight bias running_mean running_var momentum eps"))},
}


# In-place entries that cannot be verified against torch, with the reason (classify says which)
RANDOM = frozenset(("bernoulli_", "cauchy_", "exponential_", "geometric_", "log_normal_",
                    "normal_", "random_", "uniform_", "bernoulli", "normal", "poisson",
                    "multinomial", "_standard_gamma", "native_dropout", "_fused_dropout",
                    "rrelu_with_noise", "rrelu_with_noise_", "rrelu_with_noise_functional"))
SHAPE_INPLACE = frozenset(("squeeze_", "unsqueeze_", "t_", "transpose_", "as_strided_"))


# ---------------------------------------------------------------------------------------------
# Running one case on one engine and on torch


def _resolve(root: Any, path: str) -> Any:
    """``root.a.b.c``, importing submodules on the way (``transgrad.nn.functional``)."""
    obj = root
    for part in path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            if not hasattr(obj, "__path__"):
                raise
            try:
                obj = importlib.import_module(f"{obj.__name__}.{part}")
            except ImportError:
                raise AttributeError(f"{obj.__name__} has no {part}") from None
    return obj


def _rng(entry: str, index: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(entry.encode()), index])


def _arrays(c: case, rng: np.random.Generator, domain: str = "") -> tuple[list, dict]:
    """The case's values with every tensor spec drawn as a numpy array (specs kept beside)."""

    def draw(v: Any) -> Any:
        if isinstance(v, T):
            if v.levels:  # ties on purpose (mode, median): values from a small grid
                a = np.linspace(v.low, v.high, v.levels)[rng.integers(0, v.levels, v.shape)]
            else:
                a = rng.uniform(v.low, v.high, v.shape)
            for z in v.zeros:
                a[z] = 0.0
            if domain == "spd" and a.ndim >= 2 and a.shape[-1] == a.shape[-2]:
                a = a @ np.swapaxes(a, -1, -2) + a.shape[-1] * np.eye(a.shape[-1])
            return (v, a)
        if isinstance(v, I):
            if v.distinct:
                n = int(np.prod(v.shape))
                drawn = v.low + rng.permutation(v.high - v.low)[:n].reshape(v.shape)
            else:
                drawn = rng.integers(v.low, v.high, v.shape)
            return (v, drawn.astype(v.dtype))
        if isinstance(v, B):
            return (v, rng.random(v.shape) > 0.5)
        if isinstance(v, list):
            return [draw(e) for e in v]
        return v

    return [draw(a) for a in c.args], {k: draw(v) for k, v in c.kwargs.items()}


class _Lib:
    """One side of the comparison: transgrad (an engine) or torch."""

    def __init__(self, module: Any, is_torch: bool):
        self.m, self.is_torch = module, is_torch

    def tensor(self, a: np.ndarray, requires: bool) -> Any:
        return self.m.tensor(a, requires_grad=requires)

    def build(self, args: list, kwargs: dict) -> tuple[list, dict, list]:
        leaves: list = []

        def make(v: Any) -> Any:
            if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], (T, I, B)):
                requires = isinstance(v[0], T) and v[0].requires_grad
                t = self.tensor(v[1], requires)
                if requires:
                    leaves.append(t)
                return t
            if isinstance(v, list):
                return [make(e) for e in v]
            return v

        def keyword(k: str, v: Any) -> Any:  # dtype="float64": the library's own dtype
            return getattr(self.m, v) if k == "dtype" and isinstance(v, str) else make(v)

        return [make(a) for a in args], {k: keyword(k, v) for k, v in kwargs.items()}, leaves

    def call(self, path: str, args: list, kwargs: dict) -> Any:
        if path.startswith("."):
            return getattr(args[0], path[1:])(*args[1:], **kwargs)
        return _resolve(self.m, path)(*args, **kwargs)

    def numpy(self, t: Any) -> np.ndarray:
        if self.is_torch:  # force: torch may answer a ZeroTensor (abs's second derivative)
            return t.detach().numpy(force=True)
        return np.array(t.detach().numpy() if hasattr(t, "detach") else t)

    def grad(self, outs: list, leaves: list, cots: list) -> list:
        auto = self.m.autograd
        return list(auto.grad(outs, leaves, cots, create_graph=True, allow_unused=True))


def _outputs(out: Any) -> list:
    if isinstance(out, (tuple, list)):
        return list(out)
    return [out]


def _is_float(lib: _Lib, t: Any) -> bool:
    return np.dtype(str(t.dtype).replace("torch.", "")).kind == "f"


def _run(lib: _Lib, fn: Any, args: list, kwargs: dict, cot_rng_seed: int,
         inplace: bool = False) -> dict:
    """Value, VJP and VJP-of-VJP of ``fn`` (a path for ``lib.call``, or a callable) on one case
    on one library, as numpy arrays (``inplace``: on a clone of the first argument)."""
    targs, tkwargs, leaves = lib.build(args, kwargs)
    if inplace:
        targs[0] = targs[0].clone()
    outs = _outputs(lib.call(fn, targs, tkwargs) if isinstance(fn, str) else fn(*targs, **tkwargs))
    values = [lib.numpy(o) for o in outs]
    rng = np.random.default_rng(cot_rng_seed)
    diff = [o for o in outs if _is_float(lib, o) and o.requires_grad]
    cots_np = [rng.standard_normal(tuple(o.shape)) for o in diff]
    # "vjp2" is a note instead of arrays when torch has no second derivative
    result: dict[str, list[np.ndarray] | str | None] = {
        "value": values, "vjp": None, "vjp2": None}
    if not diff or not leaves:
        return result
    try:
        grads = lib.grad(diff, leaves, [lib.tensor(c, False) for c in cots_np])
    except (NotImplementedError, RuntimeError) as e:
        # the table's ``not_implemented(...)`` (acosh_, igamma's input): the value is the check
        if not lib.is_torch or "not implemented" not in str(e):
            raise
        result["vjp"] = result["vjp2"] = "torch has no derivative (value only)"
        return result
    result["vjp"] = [np.zeros(tuple(l.shape)) if g is None else lib.numpy(g)
                     for g, l in zip(grads, leaves)]
    ws = [rng.standard_normal(tuple(l.shape)) for l in leaves]
    live = [(g, w) for g, w in zip(grads, ws) if g is not None and g.requires_grad]
    if not live:
        result["vjp2"] = [np.zeros(tuple(l.shape)) for l in leaves]
        return result
    total = None
    for g, w in live:
        term = (g * lib.tensor(w, False)).sum()
        total = term if total is None else total + term
    auto = lib.m.autograd
    try:
        gg = auto.grad([total], leaves, allow_unused=True)
    except (NotImplementedError, RuntimeError) as e:
        if not lib.is_torch or "not implemented" not in str(e):
            raise
        result["vjp2"] = "torch has no second derivative: first order only"
        return result
    result["vjp2"] = [np.zeros(tuple(l.shape)) if g is None else lib.numpy(g)
                      for g, l in zip(gg, leaves)]
    return result


def _compare(name: str, ours: list | None, theirs: list | None) -> str | None:
    if ours is None and theirs is None:
        return None
    if ours is None or theirs is None:
        return f"{name}: " + ("the output does not require grad (torch: a zero gradient)"
                              if ours is None else "torch records no gradient")
    if len(ours) != len(theirs):
        return f"{name}: {len(ours)} outputs, torch {len(theirs)}"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return f"{name}[{i}]: shape {a.shape}, torch {b.shape}"
        if not np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=RTOL, atol=ATOL,
                           equal_nan=True):
            err = np.nanmax(np.abs(a.astype(np.float64) - b.astype(np.float64)))
            return f"{name}[{i}]: max error {err:.3g}"
    return None


def compare_calls(engine: Any, ours: Any, torch: Any, theirs: Any, args: list, kwargs: dict,
                  seed: int, notes: list[str] | None = None, inplace: bool = False,
                  compared: set[str] | None = None, first_order_only: str = "") -> str | None:
    """One case (``args``/``kwargs`` as ``_arrays`` draws them) through ``ours`` on ``engine``
    and ``theirs`` on torch (each a path or a callable): None when value, VJP and VJP-of-VJP
    match; else what differs. Torch's own missing derivatives go to ``notes``; the labels of
    the checks that compared arrays (torch's side had a gradient) go to ``compared``."""
    try:
        want = _run(_Lib(torch, True), theirs, args, kwargs, seed, inplace)
    except Exception as e:  # noqa: BLE001 - the table's case is wrong for torch: report it
        return f"torch raises {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    try:
        got = _run(_Lib(engine, False), ours, args, kwargs, seed, inplace)
    except Exception as e:  # noqa: BLE001 - any failure of transgrad's is the finding
        return f"raises {type(e).__name__}: {str(e).splitlines()[0][:120]}"
    for key, label in (("value", "value"), ("vjp", "VJP"), ("vjp2", "VJP-of-VJP")):
        if key == "vjp2" and first_order_only:
            want[key] = first_order_only
        if isinstance(want[key], str):
            if notes is not None and want[key] not in notes:
                notes.append(want[key])
            continue
        diff = _compare(label, got[key], want[key])
        if diff is not None:
            return diff
        if compared is not None and want[key] is not None:
            compared.add(label)
    return None


def _bound(oracle: Callable[..., Any], torch: Any) -> Callable[..., Any]:
    return lambda *args, **kwargs: oracle(torch, *args, **kwargs)


def check_twin(entry: str, twin: Twin, engine: Any, torch: Any, notes: list[str] | None = None,
               compared: set[str] | None = None) -> str | None:
    """None when every case matches torch on ``engine``; else what differs (first failure).
    ``compared`` collects the checks that compared arrays on some case (``compare_calls``)."""
    for i, c in enumerate(twin.cases):
        args, kwargs = _arrays(c, _rng(entry, i), twin.domain)
        seed = zlib.crc32(f"{entry}/{i}".encode())
        theirs = twin.call if twin.oracle is None else _bound(twin.oracle, torch)
        diff = compare_calls(engine, twin.call, torch, theirs, args, kwargs, seed, notes,
                             twin.inplace, compared, twin.first_order_only)
        if diff is not None:
            return f"case {i}: {diff}"
    return None


# ---------------------------------------------------------------------------------------------
# Classifying every entry


# Note [Strict count]
# "verified" includes entries whose check is the value alone: torch's table has no derivative
# (non_differentiable outputs, not_implemented) or only a first one. The strict count is of the
# verified entries where some case compared both a VJP and a VJP-of-VJP with torch's arrays
# (a zero second derivative compared as zeros counts: it is a check that can fail).


@dataclasses.dataclass(frozen=True)
class Row:
    entry: str
    status: str  # verified | covered | not covered | out of scope
    detail: str = ""
    # verified with a VJP and a VJP-of-VJP compared to torch's on some case (Note [Strict count])
    second_order: bool = False


def _engines(which: str) -> list[tuple[str, Any]]:
    out = []
    if which in ("both", "reference"):
        out.append(("reference", importlib.import_module("transgrad.reference")))
    if which in ("both", "compiled"):
        import transgrad

        if transgrad._C is None:
            raise SystemExit(f"the compiled engine is not built ({transgrad._C_error}); "
                             "use --engine reference")
        out.append(("compiled", transgrad))
    return out


def _has(engine: Any, path: str) -> bool:
    if path.startswith("."):
        return hasattr(engine.Tensor, path[1:])
    try:
        _resolve(engine, path)
        return True
    except AttributeError:
        return False


def classify(entry: str, engines: Sequence[tuple[str, Any]], torch: Any) -> Row:
    from transgrad.translator.import_yaml import out_of_scope

    family = out_of_scope(entry)
    if family is not None:
        return Row(entry, "out of scope", family)
    base = entry.partition(".")[0]
    twin = TWINS.get(entry)
    if twin is None:
        if base in RANDOM:
            return Row(entry, "not covered", "random: its values come from torch's generator, "
                       "which transgrad does not reproduce")
        if base in SHAPE_INPLACE:
            return Row(entry, "not covered", "in-place change of a tensor's shape or strides: "
                       "the engines' in-place writes keep a tensor's sizes (Note [In-place ops])")
        if base.endswith("_") and not base.startswith("_"):
            return Row(entry, "not covered", "in-place variant (derived from the out-of-place)")
        if base.endswith("_backward") or "_backward_" in base:
            return Row(entry, "not covered", "a backward op (reached by double backward)")
        if any(_has(e, base) for _, e in engines):
            return Row(entry, "not covered", f"transgrad has `{base}`; no case in TWINS yet")
        return Row(entry, "not covered", f"no transgrad function `{base}`")
    missing = [n for n, e in engines if not _has(e, twin.call)]
    if missing:
        return Row(entry, "not covered", f"no transgrad `{twin.call}` ({', '.join(missing)})")
    problems: list[str] = []
    notes: list[str] = []
    compared: set[str] = set()
    for name, engine in engines:
        diff = check_twin(entry, twin, engine, torch, notes, compared)
        if diff is not None:
            problems.append(f"{name}: {diff}")
    if problems:
        return Row(entry, "covered", "mismatch: " + "; ".join(problems))
    return Row(entry, "verified", f"{len(twin.cases)} case(s) on {len(engines)} engine(s)"
               + "".join(f" ({n})" for n in notes),
               second_order={"VJP", "VJP-of-VJP"} <= compared)


def summary(rows: Sequence[Row]) -> str:
    """A table of counts: each status, split by the kind of its reason."""
    kinds: dict[tuple[str, str], int] = {}
    for r in rows:
        if r.status == "verified":
            kind = ""
        elif r.status == "covered":
            kind = "raises" if " raises " in r.detail else "differs"
        elif r.status == "out of scope":
            kind = r.detail
        else:
            kind = r.detail.split("`")[0].strip().rstrip(":")
        kinds[(r.status, kind)] = kinds.get((r.status, kind), 0) + 1
    width = max((len(s) + len(k) for s, k in kinds), default=10) + 3
    lines = [f"{(s + (': ' + k if k else '')):<{width}} {n:>4}"
             for (s, k), n in sorted(kinds.items())]
    strict = sum(r.second_order for r in rows)
    return "\n".join(lines + [f"{'verified first and second order (VJP, VJP-of-VJP)':<{width}} "
                              f"{strict:>4}"])


def derivatives_yaml() -> str:
    import torchgen

    return os.path.join(os.path.dirname(torchgen.__file__), "packaged", "autograd",
                        "derivatives.yaml")


def entry_names(path: str) -> list[str]:
    from transgrad.translator.import_yaml import load_yaml

    return [str(e["name"]).partition("(")[0] for e in load_yaml(path)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m transgrad.coverage",
        description="Every entry of the installed torch's derivatives.yaml: verified against "
                    "torch (value, VJP, VJP-of-VJP, float64), covered with a mismatch, not "
                    "covered, or out of scope.")
    parser.add_argument("--engine", choices=("both", "reference", "compiled"), default="both")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="yaml entries (or base names)")
    parser.add_argument("--json", metavar="OUT", help="also write the rows as JSON")
    parser.add_argument("-q", "--quiet", action="store_true", help="the summary only")
    args = parser.parse_args(argv)
    try:
        import torch
    except ImportError:
        print("transgrad.coverage needs torch (the oracle, and its derivatives.yaml), which is "
              "not installed: pip install torch", file=sys.stderr)
        return 2
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)  # restored below: main() runs inside tests too
    engines = _engines(args.engine)
    ours = [(e, e.get_default_dtype()) for _, e in engines]
    for e, _ in ours:  # float64 on both sides (a number operand takes the default dtype)
        e.set_default_dtype(np.float64)
    try:
        names = entry_names(derivatives_yaml())
        if args.only:
            names = [n for n in names if n in args.only or n.partition(".")[0] in args.only]
        rows = [classify(n, engines, torch) for n in names]
        if not args.quiet:
            width = max((len(r.entry) for r in rows), default=5)
            for r in rows:
                print(f"{r.entry:<{width}}  {r.status:<12}  {r.detail}")
        counts = {s: sum(r.status == s for r in rows)
                  for s in ("verified", "covered", "not covered", "out of scope")}
        counts["verified first and second order"] = sum(r.second_order for r in rows)
        print("\n" + summary(rows))
        print("\n" + "  ".join(f"{s}: {n}" for s, n in counts.items())
              + f"  (of {len(rows)} entries; engines: {', '.join(n for n, _ in engines)})")
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"counts": counts, "rows": [dataclasses.asdict(r) for r in rows]}, f,
                          indent=1)
    finally:
        torch.set_default_dtype(previous)
        for e, d in ours:
            e.set_default_dtype(d)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
