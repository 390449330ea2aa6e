"""PyTorch's OpInfo samples run on transgrad: the machinery behind tests/api/test_opinfo.py.

Input: torch's OpInfo database (``torch.testing._internal.common_methods_invocations.op_db``),
read at run time and never copied. Output: for one OpInfo and one engine, the list of findings
(``Finding``: what was compared, on which sample, what differed). The test turns each
(op, kind) into a test case; ``python tests/api/opinfo_harness.py`` prints the whole table.

Each CPU sample is converted to transgrad tensors (values, dtype, shape; strides are not kept:
a view's layout is no part of what is compared) and the op is called through the public name
the OpInfo names: ``transgrad.NAME`` (dotted names through the namespaces: ``nn.functional.X``,
``linalg.X``, ``special.X``) or, where torch's OpInfo has only a method (``__radd__``), the
Tensor method. Compared with torch's own result on the same sample:

* ``values``: every output's dtype, shape and values, with ``torch.testing.assert_close``'s
  default tolerances for the dtype (torch's own test suite's), NaN equal to NaN;
* ``grads``: for float64 samples of an OpInfo that supports autograd, the gradient of
  ``sum(output * cotangent)`` with respect to every input that requires grad (a fixed random
  cotangent per sample), against torch's (an unused input counts as a zero gradient);
* ``errors``: each ``error_inputs`` sample raises torch's error class and a message that
  torch's ``error_regex`` matches.

A sample on which torch itself raises is skipped (no oracle). ``output_process_fn_grad`` (the
OpInfo's own selection of the differentiable outputs) is applied to both sides before the
gradient; it is torch's code, so it runs on transgrad's outputs only when it works there.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from typing import Any

import numpy as np
import torch
from torch.testing._internal.common_methods_invocations import op_db

# Importing torch's test utilities freezes torch.backends' global flags (its own suite's
# rule); the rest of this process's tests set them (prog_amp_train_loop: cudnn.allow_tf32).
if torch.backends.flags_frozen():
    torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True

# The dtypes sampled: the float ones always, the integer/bool ones where the OpInfo lists them.
DTYPES = ("float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool")


@dataclasses.dataclass(frozen=True)
class Finding:
    kind: str  # values | grads | errors
    sample: str  # "<dtype>#<index>": which sample
    what: str  # one line: what differed, or the exception raised

    def __str__(self) -> str:
        return f"{self.kind} {self.sample}: {self.what}"


def op_id(op: Any) -> str:
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


# OpInfos whose ``op`` is torch's function with its arguments reordered (a lambda in
# torch's database): the same reordering on transgrad's side.
REORDERED: dict[str, Any] = {
    "polygamma": lambda tg: lambda x, n, **k: tg.polygamma(n, x, **k),
    "special.polygamma": lambda tg: lambda x, n, **k: tg.special.polygamma(n, x, **k),
    "einsum": lambda tg: lambda tensors, equation: tg.einsum(equation, tensors),
    "where": lambda tg: lambda x, condition, other, **k: tg.where(condition, x, other, **k),
    "nn.functional.embedding":
        lambda tg: lambda w, idx, **k: tg.nn.functional.embedding(idx, w, **k),
    "nn.functional.embedding_bag":
        lambda tg: lambda w, idx, **k: tg.nn.functional.embedding_bag(idx, w, **k),
}


# OpInfo variants whose ``op`` is another call than the name says (a lambda in torch's
# database), by op_id.
VARIANTS: dict[str, Any] = {
    "normal.in_place": lambda tg: lambda x, *a, **k: x.normal_(*a, **k),
    "normal.number_mean": lambda tg: lambda std, mean, *a, **k: tg.normal(mean, std, *a, **k),
}


def resolve(tg: Any, op: Any) -> Any:
    """transgrad's callable for the OpInfo ``op``: ``fn(input, *args, **kwargs)``, or None."""
    name = op.name
    if op_id(op) == "linalg.pinv.singular":  # torch's op: pinv(a @ b.mT)
        return lambda a, b: tg.linalg.pinv(a @ b.mT)
    if name in REORDERED and getattr(op.op, "__name__", "") == "<lambda>":
        return REORDERED[name](tg)
    if op_id(op) in VARIANTS:
        return VARIANTS[op_id(op)](tg)
    if name.startswith("__"):
        # torch's op is the unbound method (torch.Tensor.__radd__(2, t) is its TypeError): the
        # same here, not getattr(x, name), which would find int.__radd__ for x = 2
        meth = getattr(tg.Tensor, name, None)
        return None if meth is None else (lambda x, *a, **k: getattr(tg.Tensor, name)(x, *a, **k))
    target: Any = tg
    for part in name.split("."):
        target = getattr(target, part, None)
        if target is None:
            break
    if target is not None and callable(target) and not isinstance(target, type):
        return target
    if "." not in name and op.method_variant is not None and hasattr(tg.Tensor, name):
        return lambda x, *a, **k: getattr(x, name)(*a, **k)
    return None


def covered_ops(tg: Any) -> list[Any]:
    """The OpInfos whose name transgrad has (as a function or a Tensor method)."""
    return [op for op in op_db if resolve(tg, op) is not None]


# The subset's dtypes (Note [OpInfo subset] in test_opinfo.py): one of each kind.
SUBSET_DTYPES = ("float32", "float64", "int64", "bool")


def _dtype_names(op: Any, limit: int | None) -> list[str]:
    supported = op.supported_dtypes("cpu")
    return [d for d in (DTYPES if limit is None else SUBSET_DTYPES)
            if getattr(torch, d) in supported]


# ----------------------------------------------------------------------------- conversion


def to_tg(tg: Any, v: Any) -> Any:
    """A sample's argument in transgrad's terms: tensors (with their requires_grad), dtypes,
    sizes, and containers of them; plain values as they are."""
    if isinstance(v, torch.Tensor):
        arr = v.detach().cpu().resolve_conj().resolve_neg().numpy()
        t = tg.tensor(np.array(arr), dtype=to_tg(tg, v.dtype))
        return t.requires_grad_() if v.requires_grad else t
    if isinstance(v, torch.dtype):
        return getattr(tg, str(v).removeprefix("torch."))
    if isinstance(v, torch.memory_format):
        return getattr(tg, str(v).removeprefix("torch."))
    if isinstance(v, torch.Size):
        return tuple(v)
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return type(v)(to_tg(tg, e) for e in v)
    if isinstance(v, dict):
        return {k: to_tg(tg, e) for k, e in v.items()}
    if isinstance(v, torch.device):
        return str(v)
    return v


def _leaves(v: Any) -> list[Any]:
    """The outputs of a call, flattened (tuples, named tuples, lists)."""
    if isinstance(v, (list, tuple)):
        return [e for x in v for e in _leaves(x)]
    return [v]


def _as_torch(t: Any) -> Any:
    if hasattr(t, "numpy") and hasattr(t, "dtype") and hasattr(t, "shape"):
        arr = t.detach().numpy()
        return torch.from_numpy(np.array(arr)).reshape(tuple(t.shape))
    return t


def _skipped(op: Any, s: Any) -> bool:
    """Samples with no counterpart here: complex ones (out of scope), and ``as_strided`` of a
    view (it addresses the view's storage, which a converted sample does not have)."""
    if op.name.startswith("as_strided"):
        x = s.input
        if x.storage_offset() != 0 or not x.is_contiguous() or \
                x.untyped_storage().nbytes() != x.numel() * x.element_size():
            return True
    return _has_complex(s)


def _has_complex(s: Any) -> bool:
    return any(isinstance(t, torch.Tensor) and t.is_complex() or isinstance(t, complex)
               for t in _leaves([s.input, *s.args, *s.kwargs.values()]))


def _short(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0][:160] if text else ''}"


def _compare(ours: Any, theirs: Any, compare_values: bool = True,
             indices: bool = True) -> str | None:
    """None where ``ours`` (transgrad's outputs) matches ``theirs`` (torch's), else what not."""
    a, b = _leaves(ours), _leaves(theirs)
    if len(a) != len(b):
        return f"{len(a)} outputs, torch {len(b)}"
    for i, (x, y) in enumerate(zip(a, b)):
        if isinstance(y, torch.Tensor):
            if not (hasattr(x, "shape") and hasattr(x, "dtype")):
                return f"output {i}: {type(x).__name__}, torch a Tensor"
            if str(x.dtype) != str(y.dtype):
                return f"output {i}: dtype {x.dtype}, torch {y.dtype}"
            if tuple(x.shape) != tuple(y.shape):
                return f"output {i}: shape {tuple(x.shape)}, torch {tuple(y.shape)}"
            if not compare_values or (not indices and y.dtype == torch.int64
                                      and (i > 0 or len(b) == 1)):
                continue
            try:
                torch.testing.assert_close(_as_torch(x), y.detach(), equal_nan=True,
                                           check_dtype=False)
            except AssertionError as e:
                msg = " ".join(str(e).split())
                return f"output {i}: values differ ({msg[:200]})"
        elif isinstance(y, (bool, int, float)):
            xv = x.item() if hasattr(x, "item") else x
            if type(xv) is not type(y) and not (isinstance(y, float) and isinstance(xv, float)):
                return f"output {i}: {type(xv).__name__} {xv!r}, torch {type(y).__name__} {y!r}"
            if not (xv == y or (isinstance(y, float) and math.isnan(y) and math.isnan(xv))):
                if not (isinstance(y, float) and math.isclose(xv, y, rel_tol=1e-6, abs_tol=1e-7)):
                    return f"output {i}: {xv!r}, torch {y!r}"
    return None


def _as_accurate_as_torch(op: Any, s: Any, ours: Any, theirs: Any, diff: str) -> str | None:
    """A float32 result that differs from torch's float32 one (summation order, a different
    algorithm) passes where it is as close to the float64 answer as torch's own float32
    result is, within twice torch's error plus the float32 tolerances; else ``diff`` stands."""

    def up(v: Any) -> Any:
        if isinstance(v, torch.Tensor) and v.dtype == torch.float32:
            return v.detach().double()
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return type(v)(up(e) for e in v)
        return v

    try:
        exact = op(up(s.input), *up(list(s.args)), **{k: up(v) for k, v in s.kwargs.items()})
    except Exception:
        return diff
    for x, y, z in zip(_leaves(ours), _leaves(theirs), _leaves(exact)):
        if not (isinstance(y, torch.Tensor) and isinstance(z, torch.Tensor)):
            continue
        a, b, c = _as_torch(x).double(), y.detach().double(), z.detach().double()
        if a.shape != c.shape:
            return diff
        bound = 2 * (b - c).abs() + 1e-5 + 1.3e-6 * c.abs()
        bad = ~(((a - c).abs() <= bound) | (a.isnan() & c.isnan()) | (a == c))
        if bool(bad.any()):
            return diff + f"; float64 error {float((a - c).abs()[bad].max()):.3g}, torch's "\
                f"{float((b - c).abs().max()):.3g}"
    return None


# Ops whose values are random or unspecified (``empty``): dtype and shape compared, not values.
RANDOM = {"normal", "normal.in_place", "bernoulli", "multinomial", "randn", "randn_like",
          "rand_like", "randint", "randint_like", "empty", "empty_like", "new_empty",
          "new_empty_strided", "empty_strided", "nn.functional.dropout", "nn.functional.dropout2d",
          "nn.functional.dropout3d", "nn.functional.alpha_dropout", "nn.functional.rrelu"}
# Random where a sample asks for dropout (``dropout_p > 0``, ``training=True``).
DROPOUT = {"nn.functional.scaled_dot_product_attention",
           "nn.functional.multi_head_attention_forward"}


# Ops returning the indices of values, which torch leaves unspecified among equal values (an
# unstable sort's order of ties): where the input has ties, the index outputs (int64 outputs
# after the first) are compared by dtype and shape only.
TIES = {"sort", "argsort", "topk", "kthvalue", "median", "nanmedian", "mode", "msort",
        "cummax", "cummin", "max", "min"}


def _has_ties(s: Any) -> bool:
    x = s.input
    if not isinstance(x, torch.Tensor):
        return False
    return x.numel() != torch.unique(x.detach()).numel()


def _random(op: Any, s: Any) -> bool:
    if op.name in RANDOM:
        return True
    if op.name not in DROPOUT:
        return False
    return bool(s.kwargs.get("training")) or bool(s.kwargs.get("dropout_p"))


# ----------------------------------------------------------------------------- running


_CACHE: dict[tuple, list[tuple[str, Any]]] = {}


def _samples(op: Any, dtype: str, requires_grad: bool,
             limit: int | None) -> list[tuple[str, Any]]:
    """The first ``limit`` samples (all for None), made once for both engines (the last
    OpInfo's only: the database's sample functions are the test's slowest part)."""
    key = (op_id(op), dtype, requires_grad, limit)
    if any(k[0] != key[0] for k in _CACHE):
        _CACHE.clear()  # one op's samples kept: the engines of one op run one after the other
    if key not in _CACHE:
        torch.manual_seed(0)  # the samples' values are torch's random draws: the same each run
        made = op.sample_inputs("cpu", getattr(torch, dtype), requires_grad=requires_grad)
        _CACHE[key] = [(f"{dtype}#{i}", s) for i, s in zip(range(limit or 10**9), made)]
    return _CACHE[key]


def _process(fn: Any, out: Any) -> Any:
    try:
        return fn(out)
    except Exception:
        return out


def _oracle(op: Any, s: Any) -> Any:
    """torch's result on the sample, or None where torch itself raises (no oracle)."""
    try:
        return op(s.input, *s.args, **s.kwargs)
    except Exception:
        return None


def _grad_check(tg: Any, call: Any, op: Any, s: Any, rng: Any) -> str | None:
    targs = [s.input, *s.args, *s.kwargs.values()]
    tinputs = [t for t in _leaves(targs) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not tinputs:
        return None
    # the OpInfo's gradcheck wrapper, as torch's own gradient tests use it: it makes the
    # input what the op's derivative assumes (hermitian for eigh, log-softmaxed for ctc_loss)
    wrapper = op.gradcheck_wrapper
    args = to_tg(tg, [s.input, list(s.args), dict(s.kwargs)])
    try:
        ours = wrapper(call, args[0], *args[1], **args[2])
    except TypeError:  # a wrapper that calls torch's functions: the op itself on both sides
        def wrapper(f: Any, *a: Any, **k: Any) -> Any:
            return f(*a, **k)

        args = to_tg(tg, [s.input, list(s.args), dict(s.kwargs)])
        ours = call(args[0], *args[1], **args[2])
    theirs = wrapper(op, s.input, *s.args, **s.kwargs)
    touts = [t for t in _leaves(_process(s.output_process_fn_grad, theirs))
             if isinstance(t, torch.Tensor) and t.requires_grad]
    if not touts:
        return None
    cots = [torch.from_numpy(rng.standard_normal(tuple(t.shape))) .to(t.dtype) for t in touts]
    tl = sum((t * c).sum() for t, c in zip(touts, cots))
    tgrads = torch.autograd.grad(tl, tinputs, allow_unused=True)
    inputs = [t for t in _leaves([args[0], *args[1], *args[2].values()])
              if isinstance(t, tg.Tensor) and t.requires_grad]
    outs = [t for t in _leaves(_process(s.output_process_fn_grad, ours))
            if isinstance(t, tg.Tensor) and t.requires_grad]
    if len(outs) != len(touts):
        return f"{len(outs)} differentiable outputs, torch {len(touts)}"
    loss = sum((t * tg.tensor(c.numpy())).sum() for t, c in zip(outs, cots))
    grads = tg.autograd.grad(loss, inputs, allow_unused=True)
    for i, (g, tgr) in enumerate(zip(grads, tgrads)):
        ref = torch.zeros_like(tinputs[i]) if tgr is None else tgr
        got = torch.zeros_like(ref) if g is None else _as_torch(g)
        if tuple(got.shape) != tuple(ref.shape):
            return f"grad {i}: shape {tuple(got.shape)}, torch {tuple(ref.shape)}"
        try:
            torch.testing.assert_close(got, ref.detach(), equal_nan=True, check_dtype=False)
        except AssertionError as e:
            return f"grad {i}: differs ({' '.join(str(e).split())[:200]})"
    return None


def run_values(tg: Any, op: Any, limit: int | None = None) -> list[Finding]:
    call = resolve(tg, op)
    found: list[Finding] = []
    for dtype in _dtype_names(op, limit):
        for where, s in _samples(op, dtype, False, limit):
            theirs = None if _skipped(op, s) else _oracle(op, s)
            if theirs is None:
                continue
            try:
                args = to_tg(tg, [s.input, list(s.args), dict(s.kwargs)])
                ours = call(args[0], *args[1], **args[2])
            except Exception as e:
                found.append(Finding("values", where, "raised " + _short(e)))
                continue
            diff = _compare(ours, theirs, compare_values=not _random(op, s),
                            indices=not (op.name in TIES and _has_ties(s)))
            if diff and dtype == "float32" and "values differ" in diff:
                diff = _as_accurate_as_torch(op, s, ours, theirs, diff)
            if diff:
                found.append(Finding("values", where, diff))
    return found


def run_grads(tg: Any, op: Any, limit: int | None = None) -> list[Finding]:
    if (not op.supports_autograd or op.name in RANDOM
            or torch.float64 not in op.supported_backward_dtypes("cpu")):
        return []
    call = resolve(tg, op)
    found: list[Finding] = []
    for n, (where, s) in enumerate(_samples(op, "float64", True, limit)):
        rng = np.random.default_rng(n)
        if _skipped(op, s) or _random(op, s) or _oracle(op, s) is None:
            continue
        try:
            diff = _grad_check(tg, call, op, s, rng)
        except Exception as e:
            diff = "raised " + _short(e)
        if diff:
            found.append(Finding("grads", where, diff))
    return found


def run_errors(tg: Any, op: Any, limit: int | None = None) -> list[Finding]:
    if op.error_inputs_func is None:
        return []
    call = resolve(tg, op)
    found: list[Finding] = []
    torch.manual_seed(0)
    for n, ei in enumerate(op.error_inputs("cpu")):
        if limit is not None and n >= limit:
            break
        s = ei.sample_input
        where = f"error#{n}"
        if "out" in s.kwargs or _has_complex(s):
            continue  # out= is tested in tests/api/test_out_args*.py; complex is out of scope
        try:
            op(s.input, *s.args, **s.kwargs)
            continue  # an error on another device (torch's CPU accepts it): no oracle here
        except Exception as e:
            expected: type[BaseException] = (type(e) if isinstance(e, ei.error_type)
                                             else ei.error_type)
        try:
            args = to_tg(tg, [s.input, list(s.args), dict(s.kwargs)])
            call(args[0], *args[1], **args[2])
        except Exception as e:
            if not isinstance(e, expected):
                found.append(Finding("errors", where, f"{_short(e)}; torch {expected.__name__}"
                                     f" /{ei.error_regex}/"))
            elif not re.search(ei.error_regex, str(e)):
                found.append(Finding("errors", where, f"message {_short(e)!r} does not match "
                                     f"torch's /{ei.error_regex}/"))
            continue
        found.append(Finding("errors", where, f"no error; torch {expected.__name__} "
                             f"/{ei.error_regex}/"))
    return found


RUNNERS = {"values": run_values, "grads": run_grads, "errors": run_errors}


def main() -> None:
    import json
    import sys

    import transgrad
    import transgrad.reference

    engines = {"reference": transgrad.reference, "compiled": transgrad}
    only = set(sys.argv[1:])
    limit = int(os.environ["OPINFO_LIMIT"]) if os.environ.get("OPINFO_LIMIT") else None
    report: dict[str, dict[str, list[str]]] = {}
    for op in covered_ops(transgrad.reference):
        if only and op_id(op) not in only:
            continue
        for ename, tg in engines.items():
            for kind, run in RUNNERS.items():
                try:
                    fs = run(tg, op, limit)
                except Exception as e:
                    fs = [Finding(kind, "setup", "raised " + _short(e))]
                if fs:
                    report.setdefault(op_id(op), {})[f"{ename}:{kind}"] = [str(f) for f in fs]
                    print(op_id(op), ename, kind, len(fs), fs[0], flush=True)
    out = os.environ.get("OPINFO_REPORT")
    if out:
        with open(out, "w") as f:
            json.dump(report, f, indent=1)
    out = os.environ.get("OPINFO_XFAIL")
    if out:  # the entries of test_opinfo.XFAIL that this run calls for, each with a reason
        with open(out, "w") as f:
            for name, found in sorted(report.items()):
                for kind in RUNNERS:
                    per = {e: found.get(f"{e}:{kind}") for e in engines}
                    if not any(per.values()):
                        continue
                    if all(per.values()):
                        keys = [f"{name}:{kind}"]
                    else:
                        keys = [f"{name}:{e}:{kind}" for e, v in per.items() if v]
                    first = next(v for v in per.values() if v)[0]
                    for key in keys:
                        f.write(f"    {key!r}: {category(first)!r},\n")


def category(finding: str) -> str:
    """A finding's category (the xfail reason's head, and the report's table)."""
    what = finding.split(": ", 1)[1]
    if "dtype" in what and ", torch " in what:
        head = "wrong dtype"
    elif what.startswith("raised"):
        head = "crash (a sample torch accepts)"
    elif what.startswith("no error"):
        head = "accepts what torch rejects"
    elif "does not match torch's" in what:
        head = "wrong error message"
    elif "; torch " in what:
        head = "wrong error class"
    elif finding.startswith("grads"):
        head = "wrong gradient"
    else:
        head = "wrong values"
    return f"{head}: {finding[:150]}"


if __name__ == "__main__":
    main()
