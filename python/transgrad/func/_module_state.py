"""``torch.func.functional_call`` and ``stack_module_state``: a module run with parameters and
buffers of the caller's, and the states of several copies of a module stacked for ``vmap``.

Engine-neutral: modules of either engine (their ``_parameters`` / ``_buffers`` dicts, which
``Module.__getattr__`` reads, are swapped for the call and restored after it, even when the
call raises).
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Tuple

from transgrad._api import functions

__all__ = ["functional_call", "stack_module_state"]


def _merge(dicts: Any) -> Dict[str, Any]:
    if isinstance(dicts, dict):
        return dict(dicts)
    merged: Dict[str, Any] = {}
    repeated: List[str] = []
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                repeated.append(k)
            merged[k] = v
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                         "call is ambiguous")
    return merged


def _tied_groups(module: Any) -> List[List[str]]:
    """Names that share one tensor object (tied weights), in registration order."""
    by_id: Dict[int, List[str]] = {}
    named = list(module.named_parameters(remove_duplicate=False))
    named += list(module.named_buffers(remove_duplicate=False))
    for name, t in named:
        by_id.setdefault(id(t), []).append(name)
    return [names for names in by_id.values() if len(names) > 1]


def _with_ties(module: Any, given: Dict[str, Any]) -> Dict[str, Any]:
    out = dict(given)
    for names in _tied_groups(module):
        present = [n for n in names if n in given]
        if not present:
            continue
        values = {id(given[n]) for n in present}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(present)}, "
                             "which are tied. Consider using tie_weights=False")
        for n in names:
            out[n] = given[present[0]]
    return out


class _Swapped:
    """The entries of the module's dicts replaced by the call's tensors, restored on exit."""

    def __init__(self, module: Any, values: Dict[str, Any]) -> None:
        self.module, self.values = module, values
        self.undo: List[Tuple[Any, str, str, Any]] = []  # (owner, store, name, old)

    def __enter__(self) -> "_Swapped":
        for path, value in self.values.items():
            prefix, _, attr = path.rpartition(".")
            owner = self.module.get_submodule(prefix) if prefix else self.module
            for store in ("_parameters", "_buffers"):
                d = owner.__dict__[store]
                if attr in d:
                    self.undo.append((owner, store, attr, d[attr]))
                    d[attr] = value
                    break
            else:  # not a parameter nor a buffer: a plain attribute for the call (torch's too)
                self.undo.append((owner, "", attr, owner.__dict__.get(attr, _MISSING)))
                object.__setattr__(owner, attr, value)
        return self

    def __exit__(self, *exc: Any) -> None:
        for owner, store, attr, old in reversed(self.undo):
            if store:
                owner.__dict__[store][attr] = old
            elif old is _MISSING:
                owner.__dict__.pop(attr, None)
            else:
                object.__setattr__(owner, attr, old)


_MISSING = object()


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = None,
                    kwargs: Dict[str, Any] | None = None, *, tie_weights: bool = True,
                    strict: bool = False) -> Any:
    """``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameter_and_buffer_dicts`` (a dict, or a tuple/list of dicts with no key twice) in place
    of the module's own, which are restored afterwards. ``tie_weights``: a tensor given for one
    of several tied names is used for all of them. ``strict``: every parameter and buffer must be
    given and nothing else (torch's error otherwise). ``args`` that is not a tuple is one
    argument."""
    given = _merge(parameter_and_buffer_dicts)
    if strict:
        own = [n for n, _ in module.named_parameters(remove_duplicate=False)]
        own += [n for n, _ in module.named_buffers(remove_duplicate=False)]
        own_set = set(own)
        if tie_weights:
            tied = {n for names in _tied_groups(module) if any(m in given for m in names)
                    for n in names}
        else:
            tied = set()
        missing = sorted(n for n in own_set if n not in given and n not in tied)
        unexpected = sorted(k for k in given if k not in own_set)
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected)
                             + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(lines))
    values = _with_ties(module, given) if tie_weights else given
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _Swapped(module, values):
        return module(*args, **(kwargs or {}))


def stack_module_state(models: Sequence[Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """``(params, buffers)``: each parameter (and buffer) of ``models``, which are copies of one
    module class in one training mode, stacked along a new dim 0, for
    ``vmap(lambda p, b, x: functional_call(model, (p, b), x))``. The stacked parameters are new
    leaves (requiring grad as the models' do); the buffers carry no history."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(kind: str) -> Dict[str, Any]:
        per_model = [dict(getattr(m, kind)()) for m in models]
        out = {}
        for name in per_model[0]:
            ts = [d[name] for d in per_model]
            flags = {t.requires_grad for t in ts}
            if len(flags) > 1:
                raise RuntimeError(f"Expected {name} from each model to have the same "
                                   ".requires_grad")
            leaf = functions.stack([t.detach() for t in ts], 0)
            out[name] = leaf.requires_grad_(True) if flags == {True} else leaf
        return out

    return stacked("named_parameters"), stacked("named_buffers")
