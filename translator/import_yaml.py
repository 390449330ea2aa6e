"""The derivatives.yaml importer: PyTorch's derivative table -> formula modules of this project.

Stage: a one-off generator beside the translator (``python -m translator import-yaml``). Input:
the ``derivatives.yaml`` that ships in torch's wheel (``torchgen/packaged/autograd/``). Output:
one formula module (``--out DIR``, default ``build/imported``) holding every entry it translates
fully, each naming the yaml entry it came from, and a report of every other entry with the
reason (``--report``).

Per entry: the signature in its ``name`` gives the parameters (types, defaults); the forward
comes from ``FORWARDS`` (a table of formula-language expressions) or from a kernel of the same
name and arity (``translator/signatures.py``); each differentiable input's expression is parsed
(``cpp_expr_parse``) and rewritten (``import_rewrite``); the FunctionsManual helpers it calls
are copied from ``torch_helpers.py``. The candidate is then run through the same checks as
``python -m translator check`` (front end and back end): an entry whose formula breaks the
capture rule, or any other rule, is reported with the checker's own message, never written.

Invariants: output is deterministic (entries in yaml order); nothing here imports ``transgrad``
or ``torch``; pyyaml is needed only to read the yaml (a clear error when it is missing).

Note [What an imported backward reads]: the rewriter resolves a name only to a parameter of the
entry, one of its outputs, ``grad``, a constant or a helper; anything else (torch's
``grads[i]``, ``grad_input_mask``, a forward intermediate such as a ``buffer`` torch saves) is
``Untranslatable`` with the name. So an imported backward never reads a forward intermediate,
and the capture rule still has the last word: every candidate goes through the checker, and a
rejection is the entry's reason, in the checker's own words.
"""

from __future__ import annotations

import ast
import dataclasses
import keyword
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Sequence

from .cpp_expr_parse import CppSyntaxError, parse_cpp_expr
from .frontend import shipped_modules
from .import_rewrite import (
    BOOL,
    DTYPE,
    INT,
    SCALAR,
    SHAPE,
    TENSOR,
    Scope,
    Untranslatable,
    adapt_args,
    rewrite_expr,
)
from .import_rewrite import Param as SigParam
from .shipped import shipped_formulas
from .signatures import KERNELS

HELPERS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_helpers.py")

# Families out of this project's scope, by the entry's name (reported, never translated).
OUT_OF_SCOPE = (
    (re.compile(r"sparse|_csr|_csc|_bsr|_bsc|to_dense|coalesce|^_?values$|^_?indices$|"
                r"^(crow|col|ccol|row)_indices$"), "sparse"),
    (re.compile(r"nested|jagged"), "nested"),
    (re.compile(r"quantize|_quant|^q_|_fq_|fbgemm|int_repr|dequantize"), "quantized"),
    (re.compile(r"cudnn|miopen|mkldnn|mps|_nnpack|cufft|_cuda|onednn"), "backend-specific"),
    (re.compile(r"^_foreach"), "_foreach"),
    (re.compile(r"complex|^real$|^imag$|^angle$|view_as_real|polar|conj"), "complex-only"),
)

# Forwards of entries without a same-named kernel, in the formula language (params by their
# yaml names; ``wrap_dims`` and the other helpers of torch_helpers.py may be called).
FORWARDS = {
    "sgn": "kernel.sign(self)",
    "sinh": "(ops.exp(self) - ops.exp(-self)) * 0.5",
    "cosh": "(ops.exp(self) + ops.exp(-self)) * 0.5",
    "asinh": "ops.log(self + ops.sqrt(self * self + 1.0))",
    "acosh": "ops.log(self + ops.sqrt(self * self - 1.0))",
    "atanh": "(ops.log1p(self) - ops.log1p(-self)) * 0.5",
    "exp2": "ops.exp(self * math.log(2.0))",
    "log2": "ops.log(self) / math.log(2.0)",
    "log10": "ops.log(self) / math.log(10.0)",
    "add.Tensor": "self + other * alpha",
    "add.Scalar": "self + other * alpha",
    "sub.Scalar": "self - other * alpha",
    "mul.Scalar": "self * other",
    "div.Scalar": "self / other",
    "pow.Tensor_Scalar": "ops.pow_scalar(self, exponent)",
    "sub.Tensor": "self - other * alpha",
    "rsub.Tensor": "other - self * alpha",
    "clamp_min": "kernel.clamp(self, min, None)",
    "clamp_max": "kernel.clamp(self, None, max)",
    "clamp_min.Tensor": "ops.maximum(self, min)",
    "clamp_max.Tensor": "ops.minimum(self, max)",
    "addbmm": "self * beta + ops.sum(kernel.matmul(batch1, batch2), (0,)) * alpha",
    "hypot": "ops.sqrt(self * self + other * other)",
    "lerp.Scalar": "self + (end - self) * weight",
    "lerp.Tensor": "self + (end - self) * weight",
    "addcmul": "self + tensor1 * tensor2 * value",
    "addcdiv": "self + tensor1 / tensor2 * value",
    "sum": "ops.sum(self)",
    "sum.dim_IntList": "ops.sum(self, wrap_dims(dim, self.ndim), keepdim)",
    "mean": "ops.mean(self)",
    "mean.dim": "ops.mean(self, wrap_dims(dim, self.ndim), keepdim)",
    "amax": "ops.amax(self, wrap_dims(dim, self.ndim), keepdim)",
    "amin": "ops.amin(self, wrap_dims(dim, self.ndim), keepdim)",
    "logsumexp": "ops.logsumexp(self, dim, keepdim)",
    "_softmax": "ops.softmax(self, dim)",
    "_log_softmax": "ops.log_softmax(self, dim)",
    "max": "kernel.amax(self, wrap_dims(None, self.ndim), False)",
    "min": "kernel.amin(self, wrap_dims(None, self.ndim), False)",
    "max.dim": "kernel.max_dim(self, dim, keepdim)",
    "min.dim": "kernel.min_dim(self, dim, keepdim)",
    "topk": "kernel.topk(self, k, dim, largest)",  # the kernel always sorts: sorted=True
    "rsub.Scalar": "other - self * alpha",
    "view": "kernel.reshape(self, size)",
    "_reshape_alias": "kernel.reshape(self, size)",
    "_unsafe_view": "kernel.reshape(self, size)",
    "alias": "kernel.reshape(self, self.shape)",
    "index_add": "kernel.index_add(self, dim, index, source * alpha)",
    "mse_loss": "apply_loss_reduction((self - target) * (self - target), reduction)",
    "smooth_l1_loss": "apply_loss_reduction(ops.where(ops.abs(self - target) < beta, "
                      "(self - target) * (self - target) * (0.5 / beta), "
                      "ops.abs(self - target) - 0.5 * beta), reduction)",
    "huber_loss": "apply_loss_reduction(ops.where(ops.abs(self - target) <= delta, "
                  "(self - target) * (self - target) * 0.5, "
                  "(ops.abs(self - target) - 0.5 * delta) * delta), reduction)",
    "soft_margin_loss": "apply_loss_reduction(ops.log1p(ops.exp(-target * self)), reduction)",
    "hardswish": "self * kernel.clamp(self + 3.0, 0.0, 6.0) / 6.0",
    "var.correction": "at_var(self, dim, correction, keepdim)",
    "std.correction": "ops.sqrt(at_var(self, dim, correction, keepdim))",
    "mm": "kernel.matmul(self, mat2)",
    "bmm": "kernel.matmul(self, mat2)",
    "addmm": "self * beta + kernel.matmul(mat1, mat2) * alpha",
    "baddbmm": "self * beta + kernel.matmul(batch1, batch2) * alpha",
    "expand": "kernel.expand(self, size)",
    "leaky_relu": "ops.where(self > 0.0, self, self * negative_slope)",
    "hardtanh": "kernel.clamp(self, min_val, max_val)",
    "softplus": "ops.where(self * beta > threshold, self, ops.log1p(ops.exp(self * beta)) / beta)",
    "erfc": "1.0 - kernel.erf(self)",
    "deg2rad": "self * (math.pi / 180.0)",
    "rad2deg": "self * (180.0 / math.pi)",
    "logaddexp": "ops.maximum(self, other) + ops.log(ops.exp(self - ops.maximum(self, other)) "
                 "+ ops.exp(other - ops.maximum(self, other)))",
    "mv": "ops.matmul(self, vec)",
    "dot": "ops.matmul(self, tensor)",
    "addmv": "self * beta + ops.matmul(mat, vec) * alpha",
    "addr": "self * beta + ops.unsqueeze(vec1, 1) * vec2 * alpha",
    "t": "kernel.transpose(self, 0, 1)",
    "gather": "kernel.gather(self, dim, index)",
    "squeeze.dim": "kernel.squeeze(self, (dim,))",
    "trace": "ops.sum(kernel.diagonal(self, 0, 0, 1))",
    "constant_pad_nd": "kernel.pad(self, pad, value)",
    "masked_fill.Scalar": "ops.masked_fill(self, mask, value)",
    "masked_fill.Tensor": "ops.where(mask, ops.zeros_like(self) + value, self)",
    "hardsigmoid": "kernel.clamp(self / 6.0 + 0.5, 0.0, 1.0)",
    "elu": "ops.where(self > 0.0, self * scale, "
           "(ops.exp(self * input_scale) - 1.0) * (alpha * scale))",
    "celu": "ops.where(self > 0.0, self, (ops.exp(self / alpha) - 1.0) * alpha)",
    "threshold": "ops.where(self > threshold, self, ops.zeros_like(self) + value)",
    "hardshrink": "ops.where(ops.abs(self) > lambd, self, ops.zeros_like(self))",
    "softshrink": "self - kernel.clamp(self, -lambd, lambd)",
}

# Sample inputs: the domain of each tensor (by the entry's base name) and whole overrides.
DOMAINS = {
    "log": (0.5, 2.0), "log2": (0.5, 2.0), "log10": (0.5, 2.0), "log1p": (-0.5, 2.0),
    "sqrt": (0.5, 2.0), "rsqrt": (0.5, 2.0), "reciprocal": (0.5, 2.0), "pow": (0.5, 2.0),
    "acosh": (1.5, 3.0), "atanh": (-0.8, 0.8), "div": (0.5, 2.0), "hypot": (0.5, 2.0),
    "addcdiv": (0.5, 2.0),
}
SAMPLES = {
    "mm": "case(T(3, 4), T(4, 2))",
    "addmm": "case(T(3, 2), T(3, 4), T(4, 2), beta=0.5, alpha=2.0), case(T(2), T(3, 4), T(4, 2))",
    "bmm": "case(T(2, 3, 4), T(2, 4, 5))",
    "addbmm": "case(T(3, 5), T(2, 3, 4), T(2, 4, 5), beta=0.5, alpha=2.0)",
    "baddbmm": "case(T(2, 3, 5), T(2, 3, 4), T(2, 4, 5), beta=0.5, alpha=2.0)",
    "expand": "case(T(3, 1), (2, 3, 4))",
    "where.self": "case(B(3, 4), T(3, 4), T(4))",
    "transpose.int": "case(T(2, 3, 4), 0, 2)",
    "logsumexp": "case(T(3, 4), (1,)), case(T(2, 3, 4), (0, 2), True)",
    "sum.dim_IntList": "case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True)",
    "mean.dim": "case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True)",
    "amax": "case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True)",
    "amin": "case(T(2, 3, 4), (1,)), case(T(2, 3, 4), (0, -1), True)",
    "clamp": "case(T(3, 4), -0.5, 0.5), case(T(3, 4), min=-0.3)",
    "add.Tensor": "case(T(3, 4), T(4), alpha=2.0)",
    "sub.Tensor": "case(T(3, 4), T(4), alpha=2.0)",
    "mul.Tensor": "case(T(3, 4), T(4))",
    "_softmax": "case(T(3, 4), 1, False)",
    "_log_softmax": "case(T(3, 4), 1, False)",
    "gather": "case(T(3, 4), 1, I(3, 2, high=4))",
    "max.dim": "case(T(3, 4), 1), case(T(2, 3, 4), -2, True)",
    "view": "case(T(3, 4), (2, 6))",
    "_reshape_alias": "case(T(3, 4), (2, 6), (6, 1))",
    "_unsafe_view": "case(T(3, 4), (4, 3))",
    "index_add": "case(T(3, 4), 0, I(5, high=3), T(5, 4), alpha=2.0)",
    "mse_loss": "case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), 2), case(T(3, 4), T(3, 4), 0)",
    "smooth_l1_loss": "case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), 2, 0.5), "
                      "case(T(3, 4), T(3, 4), 0)",
    "huber_loss": "case(T(3, 4), T(3, 4)), case(T(3, 4), T(3, 4), 2, 0.5), "
                  "case(T(3, 4), T(3, 4), 0)",
    "soft_margin_loss": "case(T(3, 4), T(3, 4, requires_grad=False)), "
                        "case(T(3, 4), T(3, 4, requires_grad=False), 2)",
    "hardswish": "case(T(3, 4, low=-5.0, high=5.0))",
    "var": "case(T(3, 4)), case(T(2, 3, 4), (1,), correction=0.0), "
           "case(T(2, 3, 4), (0, -1), keepdim=True)",
    "std": "case(T(3, 4)), case(T(2, 3, 4), (1,), correction=0.0), "
           "case(T(2, 3, 4), (0, -1), keepdim=True)",
    "threshold_backward": "case(T(3, 4), T(3, 4), 0.1)",
    "_log_softmax_backward_data": 'case(T(3, 4), T(3, 4), 1, "float64")',
    "_softmax_backward_data": 'case(T(3, 4), T(3, 4), 1, "float64")',
    "min.dim": "case(T(3, 4), 1), case(T(2, 3, 4), -2, True)",
    "sort": "case(T(3, 4), 1), case(T(3, 4), 0, True)",
    "topk": "case(T(3, 5), 2), case(T(3, 5), 2, 0, False)",
    "select_scatter": "case(T(3, 4), T(3), 1, 2)",
    "diagonal_scatter": "case(T(3, 4), T(3), 0, 0, 1)",
    "slice_scatter": "case(T(5, 4), T(2, 4), 0, 1, 4, 2)",
    "im2col": "case(T(1, 2, 5, 5), (2, 2), (1, 1), (0, 0), (1, 1))",
    "col2im": "case(T(1, 8, 16), (5, 5), (2, 2), (1, 1), (0, 0), (1, 1))",
    "index_select": "case(T(3, 4), 1, I(5, high=4))",
    "scatter_add": "case(T(3, 4), 1, I(3, 2, high=4), T(3, 2))",
    "select.int": "case(T(3, 4), 1, 2)",
    "slice.Tensor": "case(T(5, 4), 0, 1, 4, 2)",
    "diagonal": "case(T(3, 4), 1, 0, 1)",
    "squeeze.dim": "case(T(3, 1, 4), 1)",
    "unsqueeze": "case(T(3, 4), 1)",
    "permute": "case(T(2, 3, 4), (2, 0, 1))",
    "mv": "case(T(3, 4), T(4))",
    "dot": "case(T(4), T(4))",
    "addmv": "case(T(3), T(3, 4), T(4), beta=0.5, alpha=2.0)",
    "addr": "case(T(3, 4), T(3), T(4), beta=0.5, alpha=2.0)",
    "t": "case(T(3, 4))",
    "trace": "case(T(3, 4))",
    "constant_pad_nd": "case(T(3, 4), (1, 2, 0, 1), 0.5)",
    "masked_fill.Scalar": "case(T(3, 4), B(3, 4), 0.5)",
    "masked_fill.Tensor": "case(T(3, 4), B(3, 4), T())",
    "cumsum": "case(T(3, 4), 1)",
    "flip": "case(T(3, 4), (0, 1))",
    "tril": "case(T(4, 4), 1)",
    "triu": "case(T(4, 4), -1)",
    "elu": "case(T(3, 4), 1.5, 1.0, 1.0)",
    "celu": "case(T(3, 4), 1.5)",
    "threshold": "case(T(3, 4), 0.1, 0.5)",
    "hardshrink": "case(T(3, 4), 0.5)",
    "softshrink": "case(T(3, 4), 0.5)",
    "leaky_relu": "case(T(3, 4), 0.1)",
}


@dataclasses.dataclass(frozen=True)
class Param:
    name: str       # as in the yaml
    py: str         # as in Python (keywords get a trailing underscore)
    yaml_type: str
    py_type: str
    kind: str       # import_rewrite's kind
    default: str | None  # Python source of the default


@dataclasses.dataclass(frozen=True)
class Entry:
    """One derivatives.yaml entry: its signature and its per-input expressions."""

    name: str              # "pow.Tensor_Scalar"
    base: str              # "pow"
    signature: str         # the full ``name:`` line
    params: tuple[Param, ...]
    returns: str
    grads: tuple[tuple[str, str], ...]  # (input names as written, expression)
    output_differentiability: tuple[bool, ...] | None = None

    @property
    def formula_name(self) -> str:
        overload = self.name.partition(".")[2]
        return self.base + ("_" + overload.lower() if overload else "")


@dataclasses.dataclass(frozen=True)
class Outcome:
    entry: str
    formula: str | None    # the formula's name when translated
    reason: str | None     # why not, when not


class Skip(Exception):
    """An entry the importer does not translate; the message is the reason."""


# ---------------------------------------------------------------------------------------------
# Reading the table


def load_yaml(path: str) -> list[dict]:
    try:
        import yaml
    except ImportError:
        raise SystemExit(
            "import-yaml needs pyyaml to read derivatives.yaml: pip install pyyaml") from None
    with open(path, encoding="utf-8") as f:
        try:
            data = yaml.load(f, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        except yaml.YAMLError as e:
            raise SystemExit(f"{path}: not valid yaml: {e}") from None
    if not isinstance(data, list):
        raise SystemExit(f"{path}: not a derivatives.yaml (a list of entries expected)")
    return data


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split on ``sep`` outside brackets and quotes."""
    out, depth, cur, quote = [], 0, "", False
    for ch in text:
        if ch == '"':
            quote = not quote
        if not quote:
            depth += ch in "([{"
            depth -= ch in ")]}"
        if ch == sep and depth == 0 and not quote:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return [s.strip() for s in out]


_SIG = re.compile(r"^([\w.]+)\((.*)\)\s*->\s*(.+)$")


def parse_entry(raw: dict) -> Entry:
    """An ``Entry`` from a yaml mapping; ``Skip`` for what the importer does not read."""
    sig = str(raw["name"])
    m = _SIG.match(sig)
    if m is None:
        raise Skip(f"cannot read the signature {sig!r}")
    name, args, returns = m.group(1), m.group(2), m.group(3).strip()
    params = []
    for arg in split_top(args):
        if not arg or arg == "*":
            continue
        params.append(_param(arg))
    items = raw.get("dispatch", {}).get("Default", raw) if "dispatch" in raw else raw
    grads = tuple((k, str(v)) for k, v in items.items()
                  if k not in ("name", "dispatch", "output_differentiability")
                  and not k.startswith("result"))
    diff = raw.get("output_differentiability")
    return Entry(name, name.partition(".")[0], sig, tuple(params), returns, grads,
                 tuple(bool(d) for d in diff) if isinstance(diff, list) else None)


def outputs_of(entry: Entry) -> tuple[list[str], list[str]]:
    """(output names, differentiable output names) of an entry; ``Skip`` for what the
    importer does not write. One output is ``result``; a named tuple keeps torch's names. An
    output called ``indices`` is an integer tensor (never differentiable), as in torch."""
    if entry.returns in ("Tensor", "Tensor(a)"):
        return ["result"], ["result"]
    m = re.fullmatch(r"\((.*)\)", entry.returns)
    fields = [f.split() for f in split_top(m.group(1))] if m else []
    if not fields or any(len(f) != 2 or f[0] != "Tensor" for f in fields):
        raise Skip(f"returns {entry.returns} (unnamed or non-tensor outputs)")
    names = [f[1] for f in fields]
    diff = entry.output_differentiability or tuple(n != "indices" for n in names)
    differentiable = [n for n, d in zip(names, diff) if d]
    if len(differentiable) != 1:
        raise Skip(f"returns {entry.returns} with {len(differentiable)} differentiable outputs "
                   "(one gradient per output is not imported yet)")
    return names, differentiable


_TYPES = {  # yaml type -> (Python annotation, kind)
    "Tensor": ("Tensor", TENSOR), "Tensor?": ("Optional[Tensor]", TENSOR),
    "Tensor[]": ("Sequence[Tensor]", TENSOR),
    "int": ("int", INT), "SymInt": ("int", INT), "int?": ("Optional[int]", INT),
    "SymInt?": ("Optional[int]", INT), "float": ("float", SCALAR),
    "float?": ("Optional[float]", SCALAR), "Scalar": ("Scalar", SCALAR),
    "Scalar?": ("Optional[float]", SCALAR), "bool": ("bool", BOOL),
    "ScalarType": ("DType", DTYPE),
}
# Keyword-only options that only choose an output dtype or layout: dropped from the formula.
_DROPPED = re.compile(r"^(ScalarType|MemoryFormat|Layout|Device)\?$")


def _param(arg: str) -> Param:
    decl, _, default = arg.partition("=")
    yaml_type, _, name = decl.strip().rpartition(" ")
    yaml_type = re.sub(r"\((\w+)\)", "", yaml_type)  # alias annotations: Tensor(a) -> Tensor
    if "!" in yaml_type:
        raise Skip("writes into an argument (in-place or out= variant)")
    py_name = name + "_" if keyword.iskeyword(name) else name
    if _DROPPED.match(yaml_type) and default.strip() == "None":
        return Param(name, py_name, yaml_type, "", "", None)
    list_type = re.match(r"^(int|SymInt)\[\d*\](\?)?$", yaml_type)
    if list_type:
        dims = "dim" in name
        py_type = "Dims" if dims else "Shape"
        py_type = f"Optional[{py_type}]" if list_type.group(2) else py_type
        kind = SHAPE
    elif yaml_type in _TYPES:
        py_type, kind = _TYPES[yaml_type]
    else:
        raise Skip(f"parameter {name!r} of type {yaml_type} has no formula-language type")
    return Param(name, py_name, yaml_type, py_type, kind,
                 _default(default.strip()) if default else None)


def _default(text: str) -> str:
    if text in ("True", "False", "None"):
        return text
    if text.startswith("[") and text.endswith("]"):
        inner = [t for t in split_top(text[1:-1]) if t]
        return "(" + "".join(t + ", " for t in inner).rstrip(" ") + ")"
    if text == "Mean":
        return "1"
    if re.fullmatch(r"-?\d+(\.\d*)?(e-?\d+)?", text):
        return text
    raise Skip(f"default {text!r} has no formula-language spelling")


# ---------------------------------------------------------------------------------------------
# Helpers (torch_helpers.py, read as text)


@dataclasses.dataclass(frozen=True)
class HelperSource:
    name: str
    source: str
    calls: frozenset[str]
    kind: str
    params: tuple[SigParam, ...] = ()


_KIND_OF_ANNOTATION = {"Tensor": TENSOR, "Dims": SHAPE, "Shape": SHAPE, "int": INT,
                       "float": SCALAR, "bool": BOOL}


def read_helpers(path: str = HELPERS_PATH) -> dict[str, HelperSource]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    tree = ast.parse(text)
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    names = {d.name for d in defs}
    out = {}
    for d in defs:
        start = d.decorator_list[0].lineno if d.decorator_list else d.lineno
        source = "\n".join(text.splitlines()[start - 1:d.end_lineno])
        calls = frozenset(n.id for n in ast.walk(d) if isinstance(n, ast.Name) and n.id in names)
        ret = ast.unparse(d.returns) if d.returns is not None else ""
        first_default = len(d.args.args) - len(d.args.defaults)
        params = tuple(SigParam(a.arg, "Tensor" in ast.unparse(a.annotation or ast.Name("")),
                                i >= first_default) for i, a in enumerate(d.args.args))
        out[d.name] = HelperSource(d.name, source, calls - {d.name},
                                   _KIND_OF_ANNOTATION.get(ret, TENSOR), params)
    return out


def helper_closure(names: Iterable[str], helpers: dict[str, HelperSource]) -> list[str]:
    """``names`` and every helper they call, in the order of torch_helpers.py."""
    todo, seen = list(names), set()
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(helpers[n].calls)
    return [n for n in helpers if n in seen]


def shipped_ops(formulas_dir: str) -> dict[str, tuple[SigParam, ...]]:
    """The ``@formula`` functions of the shipped modules and their parameters (read with
    ``ast``: the translator never imports ``transgrad``)."""
    out = {}
    for f in sorted(os.listdir(formulas_dir)) if os.path.isdir(formulas_dir) else ():
        if not f.endswith(".py") or f == "__init__.py":
            continue
        with open(os.path.join(formulas_dir, f), encoding="utf-8") as src:
            tree = ast.parse(src.read())
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and any(
                    "formula" in ast.unparse(d) for d in node.decorator_list):
                args = node.args.args
                first_default = len(args) - len(node.args.defaults)
                out[node.name] = tuple(
                    SigParam(a.arg, "Tensor" in ast.unparse(a.annotation or ast.Name("")),
                             i >= first_default) for i, a in enumerate(args))
    return out


def torch_signatures(raw_entries: Sequence[dict], native: str | None) -> dict:
    """torch function name -> the parameter lists of its overloads, from the entries' own
    signatures and, when given, native_functions.yaml (``func:`` lines)."""
    lines = [str(r.get("name", "")) for r in raw_entries]
    if native and os.path.isfile(native):
        lines += [str(r.get("func", "")) for r in load_yaml(native) if isinstance(r, dict)]
    out: dict[str, list] = {}
    for line in lines:
        m = _SIG.match(line)
        if m is None:
            continue
        params = []
        for arg in split_top(m.group(2)):
            if arg and arg != "*":
                decl, eq, _ = arg.partition("=")
                yaml_type, _, name = decl.strip().rpartition(" ")
                params.append(SigParam(name, yaml_type.startswith("Tensor"), bool(eq)))
        out.setdefault(m.group(1).partition(".")[0], []).append(tuple(params))
    return out


def default_native(derivatives: str) -> str | None:
    """native_functions.yaml where torch's wheel puts it, relative to derivatives.yaml."""
    here = os.path.dirname(os.path.abspath(derivatives))
    for rel in ("native/native_functions.yaml", "../ATen/native/native_functions.yaml"):
        path = os.path.normpath(os.path.join(here, rel))
        if os.path.isfile(path):
            return path
    return None


# ---------------------------------------------------------------------------------------------
# One entry -> one formula's source


def out_of_scope(entry_name: str) -> str | None:
    for pattern, family in OUT_OF_SCOPE:
        if pattern.search(entry_name.partition(".")[0]):
            return family
    return None


def _forward(entry: Entry, params: Sequence[Param], helpers: dict[str, HelperSource]) -> str:
    if entry.name in FORWARDS:
        return FORWARDS[entry.name]
    if entry.base in FORWARDS:
        return FORWARDS[entry.base]
    ours = [SigParam(p.name, p.kind == TENSOR) for p in params]
    helper = helpers.get("at_" + entry.base)
    if helper is not None:  # a backward op (tanh_backward, ...): its helper computes it
        adapted = adapt_args(ours, [p.py for p in params], helper.params)
        if adapted is not None:
            return f"at_{entry.base}({', '.join(adapted)})"
    sig = KERNELS.get(entry.base)
    if sig is not None:  # Note [Arguments by name] in import_rewrite.py
        adapted = adapt_args(ours, [p.py for p in params],
                             [SigParam(k.name, "Tensor" in k.type) for k in sig.params])
        if adapted is not None:
            return f"kernel.{entry.base}({', '.join(adapted)})"
    raise Skip(f"no kernel or forward table entry for {entry.base}")


def _samples(entry: Entry, params: Sequence[Param], differentiable: set[str]) -> str:
    if entry.name in SAMPLES:
        return SAMPLES[entry.name]
    if entry.base in SAMPLES:
        return SAMPLES[entry.base]
    low, high = DOMAINS.get(entry.base, (-2.0, 2.0))
    args = []
    for p in params:
        if p.default is not None:
            break
        if p.py_type == "Tensor":
            # an input torch gives no derivative for does not require grad (torch refuses it)
            frozen = "" if p.name in differentiable else ", requires_grad=False"
            args.append("B(3, 4)" if p.name in ("condition", "mask")
                        else f"T(3, 4, low={low}, high={high}{frozen})")
        elif p.kind == INT:
            args.append("1")
        elif p.kind == SHAPE:
            args.append("(1,)")
        elif p.kind == SCALAR:
            args.append("0.5")
        elif p.kind == BOOL:
            args.append("False")
        elif p.kind == DTYPE:
            args.append('"float64"')
        else:
            raise Skip(f"no sample value for parameter {p.name!r}")
    return "case(" + ", ".join(args) + ")"


@dataclasses.dataclass(frozen=True)
class Translated:
    name: str
    source: str
    helpers: frozenset[str]


def translate_entry(entry: Entry, helpers: dict[str, HelperSource], ops: dict,
                    torch_sigs: dict, prefix: str = "") -> Translated:
    """The formula source of ``entry``; ``Skip`` with the reason when it cannot be written."""
    outputs, differentiable = outputs_of(entry)
    params = [p for p in entry.params if p.py_type]
    tensors = [p for p in params if p.kind == TENSOR]
    if not tensors:
        raise Skip("no tensor input")
    if any(p.py_type == "Sequence[Tensor]" for p in tensors):
        raise Skip("a list of tensors as input")
    names = {p.name: p.kind for p in params}
    names.update({o: TENSOR for o in outputs}, grad=TENSOR)
    scope = Scope(names, {p.name: p.py for p in params},
                  {h.name: h.kind for h in helpers.values()}, ops, torch_sigs)
    grads: dict[str, str] = {}
    used: set[str] = set()
    for inputs, text in entry.grads:
        if text == "non_differentiable" or inputs in outputs:  # outputs: forward-mode formulas
            continue
        if "," in inputs:
            raise Skip(f"one formula for several inputs ({inputs})")
        if inputs not in names or names[inputs] != TENSOR:
            raise Skip(f"a formula for {inputs!r}, which is not a tensor parameter")
        try:
            rewritten = rewrite_expr(parse_cpp_expr(text), scope)
        except CppSyntaxError as e:
            raise Skip(f"{inputs}: cannot parse {text!r}: {e}") from None
        except Untranslatable as e:
            raise Skip(f"{inputs}: {e}") from None
        grads[inputs] = rewritten.src
        used |= rewritten.helpers
    if not grads:
        raise Skip("no differentiable input")
    forward = _forward(entry, params, helpers)
    used |= {h for h in helpers if re.search(rf"\b{h}\(", forward)}
    signature = ", ".join(
        f"{p.py}: {p.py_type}" + (f" = {p.default}" if p.default is not None else "")
        for p in params)
    returns = [grads.get(p.name, "None") for p in tensors]
    several = len(outputs) > 1
    lines = [
        f"# derivatives.yaml: {entry.signature}",
        f"@samples({_samples(entry, params, set(grads))})",
        f"@formula(differentiable_outputs=({differentiable[0]!r},))" if several else "@formula",
        f"def {prefix}{entry.formula_name}({signature}) -> "
        + ("(" + ", ".join("Tensor" for _ in outputs) + ")" if several else "Tensor") + ":",
        f"    {', '.join(outputs)} = {forward}",
        "",
        "    def backward(grad):",
    ]
    for p in tensors:
        if p.name in grads:
            expr = dict(entry.grads)[p.name]
            lines.append(f"        # {p.name}: {expr}")
    out = f"({', '.join(outputs)})" if several else outputs[0]
    lines += [f"        return {', '.join(returns)}", "", f"    return {out}, backward"]
    return Translated(prefix + entry.formula_name, "\n".join(lines) + "\n", frozenset(used))


# ---------------------------------------------------------------------------------------------
# A module: header, helpers, formulas; each candidate checked as `translator check` would


HEADER = '''\
"""Formulas imported from PyTorch's derivatives.yaml by ``python -m translator import-yaml``.

Each formula names the yaml entry it came from. Real dtypes only: ``.conj()`` and
``handle_r_to_c`` are the identity (Note [Real dtypes only] in translator/import_rewrite.py).
"""

import math

from transgrad.lang import (B, Dims, DType, I, Optional, Scalar, Sequence, Shape, T, Tensor,
                            case, formula, helper, kernel, ops, samples)
'''


def render_module(formulas: Sequence[Translated], helpers: dict[str, HelperSource]) -> str:
    needed = helper_closure(set().union(*(f.helpers for f in formulas)) if formulas else (),
                            helpers)
    parts = [HEADER]
    if needed:
        parts.append("# " + "-" * 93 + "\n# Helpers (from translator/torch_helpers.py)\n")
        parts.extend("\n" + helpers[n].source + "\n" for n in needed)
    parts.append("# " + "-" * 93 + "\n# Formulas\n")
    parts.extend("\n\n" + f.source for f in formulas)
    return "\n".join(p.rstrip("\n") + "\n" for p in parts)


def check_source(source: str, name: str = "imported.py") -> list[str]:
    """The rendered diagnostics of ``python -m translator check`` on ``source`` (empty: clean)."""
    from .diagnostics import TranslatorError
    from .frontend import load_module

    with tempfile.TemporaryDirectory() as tmp:
        open(os.path.join(tmp, "pyproject.toml"), "w").close()
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        try:
            module = load_module(path, tmp)
        except TranslatorError as e:
            return [d.message for d in e.diagnostics]
        try:
            from .backend import check_modules
        except ImportError:
            return []
        return [d.message for d in check_modules([module], shipped_modules())]


def import_entries(raw_entries: Sequence[dict], only: Sequence[str] | None = None,
                   prefix: str = "", formulas_dir: str | None = None, native: str | None = None,
                   check: bool = True) -> tuple[str, list[Outcome]]:
    """(module source, one outcome per entry considered)."""

    helpers = read_helpers()
    ops = shipped_ops(formulas_dir or shipped_formulas())
    torch_sigs = torch_signatures(raw_entries, native)
    outcomes: list[Outcome] = []
    accepted: list[Translated] = []
    for raw in raw_entries:
        name = str(raw.get("name", "")).partition("(")[0]
        if only and name not in only and name.partition(".")[0] not in only:
            continue
        family = out_of_scope(name)
        if family is not None:
            outcomes.append(Outcome(name, None, f"out of scope: {family}"))
            continue
        try:
            entry = parse_entry(raw)
            translated = translate_entry(entry, helpers, ops, torch_sigs, prefix)
        except Skip as e:
            outcomes.append(Outcome(name, None, str(e)))
            continue
        if check:
            try:
                errors = check_source(render_module([translated], helpers))
            except RecursionError:  # a translator bug, reported per entry (cpp_wrap.py)
                errors = ["the translator's back end recursed without end on this formula"]
            if errors:
                outcomes.append(Outcome(name, None, "translator check: " + errors[0]))
                continue
        accepted.append(translated)
        outcomes.append(Outcome(name, prefix + entry.formula_name, None))
    shadowing = _shadowing(accepted, helpers)
    if shadowing:
        accepted = [t for t in accepted if t.name not in shadowing]
        outcomes = [Outcome(o.entry, None, f"its name `{o.formula}` is also a parameter, local or "
                            "builtin read in the module (T113); import it with --prefix")
                    if o.formula in shadowing else o for o in outcomes]
    return render_module(accepted, helpers), outcomes


def _shadowing(formulas: Sequence[Translated], helpers: dict[str, HelperSource]) -> set[str]:
    """Formulas whose name some other code of the module reads or binds (``min``, ``t``,
    ``diagonal``): in one module they would shadow it. Checked per candidate they pass, so
    this is what putting them together adds."""
    out: set[str] = set()
    while True:
        kept = [f for f in formulas if f.name not in out]
        needed = helper_closure(set().union(*(f.helpers for f in kept)) if kept else (), helpers)
        names: dict[str, set[str]] = {}
        for owner, source in [(f.name, f.source) for f in kept] + [
                (n, helpers[n].source) for n in needed]:
            for node in ast.walk(ast.parse(source)):
                ident = node.id if isinstance(node, ast.Name) else (
                    node.arg if isinstance(node, ast.arg) else None)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
                        node.value.id == "ops"):
                    ident = node.attr  # ops.sum in one formula meets a formula named sum
                    # (in one module, the module's own formula is what ops.sum names)
                if ident is not None:
                    names.setdefault(ident, set()).add(owner)
        clash = {f.name for f in kept if names.get(f.name, set()) - {f.name}}
        if not clash:
            return out
        out |= clash


# The kinds of reasons the report counts (a reason's words before its names and details).
_REASON_KINDS = (
    "out of scope", "no translation for", "no differentiable input", "writes into an argument",
    "no kernel or forward table entry", "returns", "parameter", "one formula for several inputs",
    "torch marks this derivative not implemented", "translator check", "the arguments of",
    "its name", "a list of tensors", "string argument", "cannot parse", "no torch signature",
    "reads", "unknown name", "method", "a ternary", "default",
)


def render_report(outcomes: Sequence[Outcome]) -> str:
    width = max((len(o.entry) for o in outcomes), default=5)
    rows = [f"{'entry':<{width}}  result"]
    for o in outcomes:
        rows.append(f"{o.entry:<{width}}  " + (f"translated: {o.formula}" if o.formula
                                                  else f"not translated: {o.reason}"))
    done = sum(o.formula is not None for o in outcomes)
    kinds: dict[str, int] = {}
    for o in outcomes:
        if o.reason is not None:  # the kind of reason: its words before any name or detail
            text = re.sub(r"^\w+: ", "", o.reason)  # "self: no translation ..." -> the reason
            kind = next((k for k in _REASON_KINDS if text.startswith(k)), text.split(":")[0])
            kinds[kind] = kinds.get(kind, 0) + 1
    rows.append("")
    rows.extend(f"{n:>5}  not translated: {k}" for k, n in sorted(kinds.items(),
                                                                    key=lambda kv: -kv[1]))
    rows.append(f"{done} of {len(outcomes)} entries translated")
    return "\n".join(rows)


# ---------------------------------------------------------------------------------------------
# Command line


def register(subparsers) -> None:
    cmd = subparsers.add_parser(
        "import-yaml", help="translate PyTorch's derivatives.yaml into formula modules",
        description="Read derivatives.yaml and write the entries it translates fully as one "
                    "formula module in DIR; list the others with the reason (--report).")
    cmd.add_argument("path", metavar="PATH", help="derivatives.yaml")
    cmd.add_argument("--only", nargs="+", metavar="NAME",
                     help="entries to import (yaml names: pow.Tensor_Scalar, or a base name: pow)")
    cmd.add_argument("--native", metavar="PATH",
                     help="native_functions.yaml, for the signatures of the functions backward "
                          "expressions call (default: where torch's wheel puts it, if there)")
    cmd.add_argument("--out", default=os.path.join("build", "imported"), metavar="DIR")
    cmd.add_argument("--module", default="imported", help="the module's name (default imported)")
    cmd.add_argument("--prefix", default="", help="prefix of every formula name")
    cmd.add_argument("--report", action="store_true",
                     help="print one line per entry: translated, or the reason it is not")
    cmd.set_defaults(func=run_import_yaml)


def run_import_yaml(args) -> int:
    if not os.path.isfile(args.path):
        print(f"error: no such file: {args.path}", file=sys.stderr)
        return 2
    native = args.native or default_native(args.path)
    source, outcomes = import_entries(load_yaml(args.path), args.only, args.prefix, native=native)
    errors = check_source(source)  # what each candidate passed alone, the module passes whole
    if errors:
        print("error: the imported module fails `translator check`:\n" + "\n".join(errors),
              file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, args.module + ".py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    if args.report:
        print(render_report(outcomes))
    done = sum(o.formula is not None for o in outcomes)
    print(f"wrote {path}: {done} of {len(outcomes)} entries translated", file=sys.stderr)
    return 0
