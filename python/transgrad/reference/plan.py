"""What ``apply_formula`` needs to know about a formula, computed once per formula: a ``Plan``.

Input: a ``FormulaDef``. Output: its signature and Tensor parameters, whether it is a composite,
its output names, which captured tensors its backward reads only the metadata of (from the
translator front end when available), and its node name and source location for messages.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import textwrap
from typing import Any, Callable, Dict, FrozenSet, Optional, Tuple

from transgrad import lang, node_names


@dataclasses.dataclass(frozen=True)
class Plan:
    """What apply_formula needs to know about a formula, computed once per formula."""

    name: str
    node_name: str                          # "SinBackward0" (torch's name: node_naming)
    location: str                           # "formulas/unary.py:12"
    signature: inspect.Signature
    tensor_params: Tuple[Tuple[str, bool], ...]  # (name, is_sequence) of each Tensor parameter
    composite: bool
    output_names: Optional[Tuple[str, ...]]  # names in the final return, when known
    metadata_only: FrozenSet[str]            # captured tensors the backward reads only metadata of
    bound_at: Dict[str, str]                 # captured name -> "path:line" where it was bound
    param_names: Tuple[str, ...]             # for the fast argument binding of apply_formula
    defaults: Tuple[Any, ...]                # default of each parameter (_NO_DEFAULT if none)
    simple: bool                             # only positional-or-keyword parameters
    name_when_none: Optional[Tuple[str, str]] = None  # (parameter, node name when it is None)
    # Note [Saves for one gradient]: captured name -> the gradient entries that read it, and
    # the formula recompiled so that the backward computes only the entries needed
    conditional: Dict[str, Tuple[int, ...]] = dataclasses.field(default_factory=dict)
    masked_fn: Optional[Callable[..., Any]] = None


_plans: Dict[Any, Plan] = {}


def plan_of(fdef: Any) -> Plan:
    plan = _plans.get(fdef.fn)
    if plan is None:
        plan = _plans[fdef.fn] = _make_plan(fdef)
    return plan


def _make_plan(fdef: Any) -> Plan:
    fn = fdef.fn
    sig = inspect.signature(fn)
    tensor_params = []
    for p in sig.parameters.values():
        ann = p.annotation if isinstance(p.annotation, str) else repr(p.annotation)
        if "Tensor" in ann:
            tensor_params.append((p.name, "Sequence" in ann))
    composite = not any(inspect.iscode(c) and c.co_name == "backward"
                        for c in fn.__code__.co_consts)
    line = lang.def_line(fn)
    output_names: Optional[Tuple[str, ...]] = None
    metadata_only: FrozenSet[str] = frozenset()
    bound_at: Dict[str, str] = {}
    shipped = _shipped_plan(fdef)
    model = None if shipped is not None else _frontend_model(fn)
    if shipped is not None:
        line, output_names, metadata, bound = shipped
        metadata_only, bound_at = frozenset(metadata), dict(bound)
    elif model is not None:
        line = model.loc.line
        output_names = tuple(model.outputs) or None
        if model.backward is not None:
            metadata_only = frozenset(c.name for c in model.backward.captures if c.metadata_only)
            bound_at = {c.name: f"{c.bound_at.path}:{c.bound_at.line}"
                        for c in model.backward.captures}
    if output_names is None and not composite:
        output_names = _return_names(fn)
    params = list(sig.parameters.values())
    simple = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
    defaults = tuple(_NO_DEFAULT if p.default is p.empty else p.default for p in params)
    naming = node_names.node_naming()
    conditional, masked_fn = ({}, None) if composite else _conditional_saves(
        fn, len(tensor_params), any(seq for _, seq in tensor_params), metadata_only)
    return Plan(fdef.name, naming.node_class_name(fdef.name),
                f"{_repo_path(fn.__code__.co_filename)}:{line}", sig, tuple(tensor_params),
                composite, output_names, metadata_only, bound_at, tuple(p.name for p in params),
                defaults, simple, naming.node_name_when_none(fdef.name), conditional, masked_fn)


# Note [Saves for one gradient]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# As the compiled nodes (translator/emit_cpp.py's note of this name): when the backward is one
# ``return`` of one gradient per Tensor parameter, a captured tensor read only by some entries
# is kept only when one of their parameters requires grad, and those entries are computed only
# when needed. The Python backward evaluates its whole return tuple, so the formula is compiled
# a second time from its source with each such entry ``e`` written ``(e if NEED[i] else
# None)``, NEED a cell of the formula's closure that the node fills with which edges exist; the
# lines and file stay the formula's, so tracebacks and anomaly traces point to its source.
NEED_CELL = "_tg_need_grads"


def _conditional_saves(fn: Callable[..., Any], n_tensors: int, has_sequence: bool,
                       metadata_only: FrozenSet[str]
                       ) -> Tuple[Dict[str, Tuple[int, ...]], Optional[Callable[..., Any]]]:
    if n_tensors < 2 or has_sequence or fn.__code__.co_freevars:
        return {}, None
    try:
        lines, start = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return {}, None
    top = tree.body[0] if tree.body else None
    if not isinstance(top, ast.FunctionDef):
        return {}, None
    bws = [s for s in top.body if isinstance(s, ast.FunctionDef) and s.name == "backward"]
    if len(bws) != 1:
        return {}, None
    body = bws[0].body
    ret = body[0] if len(body) == 1 else None
    if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple)
            and len(ret.value.elts) == n_tensors):
        return {}, None
    code = next((c for c in fn.__code__.co_consts
                 if inspect.iscode(c) and c.co_name == "backward"), None)
    if code is None:
        return {}, None
    reads = [{n.id for n in ast.walk(e) if isinstance(n, ast.Name)} for e in ret.value.elts]
    conditional: Dict[str, Tuple[int, ...]] = {}
    for name in code.co_freevars:
        entries = tuple(i for i, r in enumerate(reads) if name in r)
        if 0 < len(entries) < n_tensors and name not in metadata_only:
            conditional[name] = entries
    if not conditional:
        return {}, None
    guarded = {i for entries in conditional.values() for i in entries}
    need = ast.Name(NEED_CELL, ast.Load())
    ret.value.elts = [
        ast.IfExp(ast.Subscript(need, ast.Constant(i), ast.Load()), e, ast.Constant(None))
        if i in guarded else e for i, e in enumerate(ret.value.elts)]
    top.body.insert(0, ast.Assign([ast.Name(NEED_CELL, ast.Store())], ast.Constant(None)))
    top.decorator_list = []
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, start - 1)
    namespace: Dict[str, Any] = {}
    exec(compile(tree, fn.__code__.co_filename, "exec"), fn.__globals__, namespace)
    return conditional, namespace[top.name]


_NO_DEFAULT = object()


# Note [Shipped formulas run without the translator]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# The build checks the shipped formulas and writes what a plan reads of their models into
# ``transgrad/_formula_facts.py`` (PLANS, translator/emit_facts.py). With that file present the
# reference engine neither checks nor models a shipped formula at run time: its first op does
# not import libcst (0.5 s), and no thread parses Python source while the program runs. The
# second matters at exit: CPython ends a daemon thread that wants the GIL after finalization
# began by unwinding it, and a frame of libcst's native (Rust) parser on that thread's stack
# turns the unwind into an abort (tests/engine/test_exit_with_daemon_threads.py). A checkout
# without a build has no facts and models each formula as before; a user's formulas are always
# checked and modelled, at import, through the translator.


def shipped_facts(name: str) -> Optional[Any]:
    """``transgrad._formula_facts``'s table ``name`` (None in a checkout without a build)."""
    try:
        from transgrad import _formula_facts  # type: ignore[attr-defined]
    except ImportError:
        return None
    return getattr(_formula_facts, name, None)


def _shipped_plan(fdef: Any) -> Optional[Tuple[Any, ...]]:
    """The build's PLANS entry of a shipped formula (None for a user's, or without a build)."""
    if getattr(fdef, "namespace", None) != lang.SHIPPED:
        return None
    plans = shipped_facts("PLANS")
    return None if plans is None else plans.get(fdef.name)


def _frontend_model(fn: Callable[..., Any]) -> Any:
    """The translator front end's model of ``fn`` (captures, outputs), if available."""
    try:
        from transgrad.translator.frontend import formula_model
    except ImportError:
        return None
    try:
        return formula_model(fn)
    except Exception:  # the checker reports problems itself at import; here it is only a hint
        return None


def _return_names(fn: Callable[..., Any]) -> Optional[Tuple[str, ...]]:
    """Names of the outputs in ``return (a, b), backward`` (None when not plain names)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return None
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.FunctionDef) else []
    ret = body[-1] if body else None
    if not (isinstance(ret, ast.Return) and isinstance(ret.value, ast.Tuple)
            and len(ret.value.elts) == 2):
        return None
    outs = ret.value.elts[0]
    elts = outs.elts if isinstance(outs, ast.Tuple) else [outs]
    names = tuple(e.id for e in elts if isinstance(e, ast.Name))
    return names if len(names) == len(elts) else None


def _repo_path(filename: str) -> str:
    """A repository-relative path: ``formulas/unary.py`` (else relative to the cwd)."""
    parts = filename.replace(os.sep, "/").split("/")
    for anchor in ("formulas", "tests", "translator"):
        if anchor in parts[:-1]:
            i = len(parts) - 1 - parts[::-1].index(anchor)
            return "/".join(parts[i:])
    try:
        return os.path.relpath(filename)
    except ValueError:
        return filename
