"""Running a formula: ``apply_formula(fdef, args, kwargs)`` and the node it creates.

Implements the formula execution model of docs/ARCHITECTURE.md: the forward runs with grad mode
disabled; when grad mode is on and a Tensor input requires grad, a ``FormulaNode`` is created
with one next edge per Tensor parameter (``Sequence[Tensor]`` expands); the backward closure's
captured cells are rewritten so the node keeps saved inputs (with versions), saved outputs
(without grad_fn: Note [Saved outputs]), metadata only, or plain attributes.

Note [Saved outputs]
~~~~~~~~~~~~~~~~~~~~
A backward that reads ``result`` closes over a cell holding the output tensor, whose grad_fn is
the node that holds the closure: a cycle. After the forward we replace the cell's contents by a
``SavedTensor`` (array + version, no grad_fn) and only while the backward runs do we put a fresh
tensor in the cell, re-linked to the node (so double backward flows through it); then we put
the SavedTensor back.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from transgrad._dtypes import is_floating_or_complex
from transgrad._errors import ArgumentError
from transgrad.reference.grad_mode import _set as _set_grad
from transgrad.reference.grad_mode import is_grad_enabled, no_grad
from transgrad.reference.grad_ops import grad_cast, grad_sum_to
from transgrad.reference.node import (
    Node,
    SavedTensor,
    TensorMeta,
    attach_delayed_error,
    gradient_edge,
)
from transgrad.reference.plan import _NO_DEFAULT, NEED_CELL, Plan, plan_of
from transgrad.reference.tensor import Tensor

_backward_lock = threading.RLock()  # cells are swapped while a backward runs: one at a time
_roles: Dict[Any, Tuple[List[int], List[int]]] = {}  # (fn, number of outputs) -> _output_roles


# ---------------------------------------------------------------------------------------------


def apply_formula(fdef: Any, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    """Call formula ``fdef`` with ``args``/``kwargs``, recording a node when needed."""
    plan = plan_of(fdef)
    if plan.composite:  # autograd records the ops inside
        try:
            return fdef.fn(*args, **kwargs)
        except ValueError as e:
            raise _argument_error(e) from e.__cause__
    values = _bind(plan, args, kwargs)
    inputs: List[Any] = []   # one entry per next edge
    counts: List[int] = []   # how many edges each Tensor parameter has
    for name, is_seq in plan.tensor_params:
        v = values[name]
        if is_seq:
            v = list(v)
            inputs.extend(v)
            counts.append(len(v))
        else:
            inputs.append(v)
            counts.append(-1)
    enabled = is_grad_enabled()
    requires = enabled and any(isinstance(t, Tensor) and t.requires_grad for t in inputs)
    _set_grad(False)
    try:
        out = (plan.masked_fn or fdef.fn)(**values)  # Note [Saves for one gradient]
    except ValueError as e:
        raise _argument_error(e) from e.__cause__
    finally:
        _set_grad(enabled)
    if not (isinstance(out, tuple) and len(out) == 2 and callable(out[1])):
        raise TypeError(f"formula {plan.name} ({plan.location}) must return "
                        "(outputs, backward)")
    result, backward = out
    if not requires and isinstance(result, Tensor):  # the common fast path: no node, one output
        return Tensor._view_of(result, result._data) if any(result is x for x in inputs) \
            else result
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    roles = _roles.get((fdef.fn, len(outputs)))
    if roles is None:
        roles = _roles[fdef.fn, len(outputs)] = _output_roles(fdef, plan, len(outputs))
    slots, visible = roles
    for k, t in enumerate(outputs):
        if any(t is x for x in inputs):  # an output must be a fresh tensor: alias the input
            outputs[k] = Tensor._view_of(t, t._data)
    if requires:
        name = plan.node_name
        if plan.name_when_none is not None and values[plan.name_when_none[0]] is None:
            name = plan.name_when_none[1]  # sum(x): SumBackward0, sum(x, dims): SumBackward1
        node = _node_class(name)(fdef, plan, inputs, counts, backward)
        node.attach(outputs, slots)
    shown = [outputs[k] for k in visible]
    return shown[0] if len(shown) == 1 else tuple(shown)


def _argument_error(e: ValueError) -> ValueError:
    """A formula's ``raise ValueError`` as the compiled engine raises it: its C++ lowering
    throws tg::ValueError, bound to ArgumentError (Note [Error classes] in _errors.py). Any
    other ValueError (ArgumentError itself, numpy's AxisError) is kept."""
    if type(e) is not ValueError:
        return e
    return ArgumentError(*e.args).with_traceback(e.__traceback__)


def _bind(plan: Plan, args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The arguments by parameter name, defaults filled in (a fast ``Signature.bind``)."""
    names = plan.param_names
    n = len(args)
    if plan.simple and n <= len(names) and all(k in names[n:] for k in kwargs):
        values = dict(zip(names, args))
        for name, default in zip(names[n:], plan.defaults[n:]):
            if name in kwargs:
                values[name] = kwargs[name]
            elif default is not _NO_DEFAULT:
                values[name] = default
            else:
                break  # a missing argument: let Signature.bind raise the usual TypeError
        else:
            return values
    try:
        bound = plan.signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{plan.name}(): {e} (formula at {plan.location})") from None
    bound.apply_defaults()
    return dict(bound.arguments)


def _output_roles(fdef: Any, plan: Plan, n: int) -> Tuple[List[int], List[int]]:
    """For each output: its grad slot in the node (-1: none); and the outputs the user sees."""
    opts = fdef.options
    names = plan.output_names
    if names is None or len(names) != n:
        if opts.differentiable_outputs is not None or opts.hidden_outputs:
            raise RuntimeError(f"formula {plan.name} ({plan.location}): cannot tell which "
                               "outputs are differentiable/hidden: return plain names")
        return list(range(n)), list(range(n))
    slots, visible, nr = [], [], 0
    for k, name in enumerate(names):
        hidden = name in opts.hidden_outputs
        if hidden or opts.differentiable_outputs is None or name in opts.differentiable_outputs:
            slots.append(nr)
            nr += 1
        else:
            slots.append(-1)
        if not hidden:
            visible.append(k)
    return slots, visible


class FormulaNode(Node):
    """The backward of one call of a formula."""

    __slots__ = ("fdef", "plan", "counts", "input_meta", "output_meta", "backward_fn", "saved")

    def __init__(self, fdef: Any, plan: Plan, inputs: List[Any], counts: List[int],
                 backward_fn: Callable[..., Any]) -> None:
        super().__init__([gradient_edge(t) if isinstance(t, Tensor) else None for t in inputs])
        self.fdef, self.plan, self.counts = fdef, plan, counts
        self.input_meta = [(t._data.shape, t.dtype) if e is not None else None
                           for t, e in zip(inputs, self.next_edges)]
        self.backward_fn = backward_fn
        self.output_meta: List[Any] = []
        self.saved: List[Tuple[Any, Any]] = []  # (cell, what it holds between backwards)

    @property
    def location(self) -> str:  # type: ignore[override]
        return self.plan.location

    def describe(self) -> str:
        return f"{type(self).__name__} (formula '{self.plan.name}' at {self.plan.location})"

    def attach(self, outputs: List[Any], slots: List[int]) -> None:
        """Give differentiable outputs their history; save what the backward captures."""
        n_slots = max(slots, default=-1) + 1
        self.n_outputs = n_slots
        self.output_meta = [None] * n_slots
        for t, slot in zip(outputs, slots):
            if slot < 0 or not isinstance(t, Tensor):
                continue
            self.output_meta[slot] = (t._data.shape, t.dtype)
            if is_floating_or_complex(t.dtype):
                t.grad_fn, t.output_nr = self, slot
        fn = self.backward_fn
        conditional = self.plan.conditional
        need = tuple(e is not None for e in self.next_edges)
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            if name == NEED_CELL:  # Note [Saves for one gradient]
                cell.cell_contents = need
                continue
            try:
                value = cell.cell_contents
            except ValueError:  # bound after backward was defined: the checker rejects this
                continue
            entries = conditional.get(name)
            if entries is not None and isinstance(value, Tensor) and not any(
                    need[i] for i in entries) and not any(value is o for o in outputs):
                cell.cell_contents = None  # read only by gradients nobody needs: not kept
                continue
            held = self._save(name, value, outputs)
            if held is not value:
                cell.cell_contents = held
                self.saved.append((cell, held))

    def _save(self, name: str, value: Any, outputs: List[Any]) -> Any:
        if isinstance(value, Tensor):
            if name in self.plan.metadata_only:  # the backward reads only shape/ndim/dtype/numel
                return TensorMeta(value)
            is_output = any(value is o for o in outputs)
            return SavedTensor(value, is_output, name, self.plan.bound_at.get(name, ""))
        if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in value):
            return _SavedList([self._save(name, v, outputs) for v in value], type(value))
        return value

    def __getattr__(self, attr: str) -> Any:
        """``_saved_<name>`` / ``_raw_saved_<name>``: a tensor the backward saved, by the
        formula's name for it (torch's node introspection; "self" also names the first
        parameter). The compiled nodes expose the same table (Note [Saved slots by name])."""
        raw = attr.startswith("_raw_saved_")
        if raw or attr.startswith("_saved_"):
            key = attr[len("_raw_saved_" if raw else "_saved_"):]
            found, held = self._saved_named(key)
            if found:
                if isinstance(held, SavedTensor):
                    return held if raw else held.unpack(self)
                if held is None:
                    return None
        raise AttributeError(f"'{self.name()}' object has no attribute '{attr}'")

    def _saved_named(self, key: str) -> Tuple[bool, Any]:
        """(True, SavedTensor or None) for a saved tensor (or an absent optional one) named
        ``key``; (False, None) when the backward saved no tensor under that name."""
        fn = self.backward_fn
        names = fn.__code__.co_freevars
        params = list(self.plan.signature.parameters)
        if key not in names and key == "self" and params:
            key = params[0]
        tensor_params = {n for n, seq in self.plan.tensor_params if not seq}
        for name, cell in zip(names, fn.__closure__ or ()):
            if name != key:
                continue
            try:
                value = cell.cell_contents
            except ValueError:
                return False, None
            if isinstance(value, SavedTensor):
                return True, value
            if value is None and name in tensor_params:
                return True, None
        return False, None

    def release_variables(self) -> None:
        for _, held in self.saved:
            for s in _saved_tensors(held):
                s.release()

    def apply(self, grads: List[Any]) -> List[Any]:
        n_edges = len(self.next_edges)
        if all(g is None for g in grads):
            return [None] * n_edges
        grads = list(grads)
        if self.fdef.options.materialize_grads:
            for i, g in enumerate(grads):
                if g is None and self.output_meta[i] is not None:
                    shape, dtype = self.output_meta[i]
                    grads[i] = Tensor._from_array(np.zeros(shape, dtype))
        once = self.fdef.options.once_differentiable
        with _backward_lock:
            for cell, held in self.saved:
                cell.cell_contents = _unpack(held, self)
            enabled = is_grad_enabled()
            try:
                if once:
                    with no_grad():
                        result = self.backward_fn(*grads)
                else:
                    result = self.backward_fn(*grads)
            finally:
                for cell, held in self.saved:
                    cell.cell_contents = held
        flat = self._flatten(result)
        if once and enabled:
            flat = attach_delayed_error(
                flat, f"{self.describe()} is once_differentiable: its backward cannot be "
                "differentiated (double backward). Remove once_differentiable from the formula "
                "and write its backward with ops.", list(grads) + _inputs_of(self))
        return validate_grads(self, flat, self.input_meta)

    def _flatten(self, result: Any) -> List[Any]:
        """The backward's result (one entry per Tensor parameter) as one grad per edge."""
        counts = self.counts
        if len(counts) == 1:  # one Tensor parameter: a bare value (a list for a Sequence)
            if counts[0] == -1 and isinstance(result, (tuple, list)) and len(result) == 1:
                result = result[0]
            entries = [result]
        elif isinstance(result, (tuple, list)) and len(result) == len(counts):
            entries = list(result)
        else:
            got = len(result) if isinstance(result, (tuple, list)) else 1
            names = ", ".join(n for n, _ in self.plan.tensor_params)
            raise RuntimeError(
                f"{self.describe()} returned {got} gradient(s), expected {len(counts)} (one per "
                f"Tensor parameter: {names})")
        flat: List[Any] = []
        for entry, count in zip(entries, counts):
            if count == -1:
                flat.append(entry)
            elif entry is None:
                flat.extend([None] * count)
            elif isinstance(entry, (tuple, list)) and len(entry) == count:
                flat.extend(entry)
            else:
                raise RuntimeError(f"{self.describe()} returned a gradient for a Sequence[Tensor] "
                                   f"parameter that is not a list of {count} entries")
        return flat


# Note [Node classes named as torch's]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's grad_fn is an instance of a class per node (``type(y.grad_fn).__name__ ==
# "MulBackward0"``), and ``name()`` is that class's name. The reference engine makes one empty
# FormulaNode subclass per node name on first use, so ``type``, ``repr`` and ``name()`` (Node's:
# the class name) all say torch's name; the compiled engine's nodes share one Python type.
_node_classes: Dict[str, type] = {}


def _node_class(name: str) -> Any:
    """The FormulaNode subclass called ``name`` (Note [Node classes named as torch's])."""
    cls = _node_classes.get(name)
    if cls is None:
        cls = _node_classes[name] = type(name, (FormulaNode,), {"__slots__": ()})
    return cls


class _SavedList(list):
    """A captured list/tuple of tensors, saved element by element."""

    def __init__(self, items: List[Any], kind: type) -> None:
        super().__init__(items)
        self.kind = kind


def _saved_tensors(held: Any) -> List[SavedTensor]:
    if isinstance(held, SavedTensor):
        return [held]
    if isinstance(held, _SavedList):
        return [s for h in held for s in _saved_tensors(h)]
    return []


def _unpack(held: Any, node: Node) -> Any:
    if isinstance(held, SavedTensor):
        return held.unpack(node)
    if isinstance(held, _SavedList):
        return held.kind(_unpack(h, node) for h in held)
    return held


def _inputs_of(node: FormulaNode) -> List[Any]:
    out = []
    for _, held in node.saved:
        for s in _saved_tensors(held):
            if not s._released and not s._is_output:
                out.append(s._tensor)
    return out


def validate_grads(node: Node, grads: List[Any], meta: List[Any]) -> List[Any]:
    """The gradient contract: count; dtype cast to the input's; shape equal or summed down."""
    if len(grads) != len(meta):
        raise RuntimeError(f"{node.describe()} returned {len(grads)} gradients, expected "
                           f"{len(meta)}")
    out: List[Any] = []
    for i, (g, m) in enumerate(zip(grads, meta)):
        if g is None or m is None:
            out.append(None)
            continue
        if not isinstance(g, Tensor):
            raise RuntimeError(f"{node.describe()} returned a {type(g).__name__} as gradient "
                               f"{i}; expected a Tensor or None")
        shape, dtype = m
        if g._data.shape != shape:
            if not _broadcasts_to(shape, g.shape):
                raise RuntimeError(
                    f"{node.describe()} returned an invalid gradient at index {i} - got shape "
                    f"{g._data.shape} but expected shape compatible with {shape} (the input's "
                    "shape)")
            g = grad_sum_to(g, shape)
        if g.dtype != dtype:
            g = grad_cast(g, dtype)
        out.append(g)
    return out


def _broadcasts_to(small: Tuple[int, ...], big: Tuple[int, ...]) -> bool:
    """Whether ``small`` broadcasts to ``big`` (so a grad of shape ``big`` sums down to it)."""
    if len(small) > len(big):
        return False
    for s, b in zip(reversed(small), reversed(big)):
        if s != b and s != 1:
            return False
    return True
