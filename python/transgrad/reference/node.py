"""Autograd graph pieces: Node, AccumulateGrad, SavedTensor, and the error node of
once_differentiable.

A Node is one backward function of the graph. ``next_edges[i]`` is ``(node, input_nr)`` — where
the gradient of the i-th differentiable forward input goes — or ``None`` when that input does not
require grad. ``apply(grads)`` takes one gradient per output of the forward (``None`` when no one
produced it) and returns one per next edge. The engine (engine.py) decides when nodes run.

Invariants:
* A node never references the tensors it produced (SavedTensor keeps an output's array, not the
  output), so node -> output -> node cycles never exist and graphs are freed by refcounting.
* ``sequence_nr`` grows with creation order: the engine runs later nodes first.
* Long chains are freed by refcounting without deep C recursion: every link goes through a
  list or tuple, whose deallocation CPython's "trashcan" flattens.
"""

from __future__ import annotations

import itertools
import sys
import threading
import weakref
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from transgrad._api.anomaly import capture_frames, format_frames
from transgrad._api.legacy import CLASS_NAMES
from transgrad._dtypes import is_floating_or_complex
from transgrad.reference import saved_hooks
from transgrad.reference.grad_mode import _anomaly
from transgrad.reference.tensor import HookHandle, Tensor

Edge = Optional[Tuple["Node", int]]

_sequence = itertools.count()

RELEASED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward. (node: {node})")


class Node:
    """A backward function of the graph (see the module docstring)."""

    __slots__ = ("next_edges", "n_outputs", "sequence_nr", "_pre_hooks", "_retained",
                 "_node_pre_hooks", "_node_post_hooks", "anomaly_frames", "anomaly_parent",
                 "_metadata", "__weakref__")
    location: Optional[str] = None  # the formula's "path:line", when there is one

    def __init__(self, next_edges: List[Edge], n_outputs: int = 1) -> None:
        self.next_edges = next_edges
        self.n_outputs = n_outputs  # how many grads apply() takes (outputs of the forward)
        self.sequence_nr: float = next(_sequence)
        self._pre_hooks: Optional[Dict[int, List[Any]]] = None  # output_nr -> tensor hooks
        self._retained: Optional[Dict[int, Any]] = None         # output_nr -> weakref(tensor)
        self._node_pre_hooks: Optional[List[Any]] = None   # hook(grad_outputs)
        self._node_post_hooks: Optional[List[Any]] = None  # hook(grad_inputs, grad_outputs)
        # Under detect_anomaly(): the Python stack that made the node (transgrad._api.anomaly).
        self.anomaly_frames: Optional[List[Any]] = capture_frames() if _anomaly[0] else None
        # ... and the node whose backward made this one (Note [Anomaly mode] in node.h)
        self.anomaly_parent: Optional[Node] = (getattr(_evaluating, "node", None)
                                               if _anomaly[0] else None)
        self._metadata: Optional[Dict[Any, Any]] = None

    @property
    def metadata(self) -> Dict[Any, Any]:
        """A dict kept with the node for the user's own annotations (torch's Node.metadata)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        return type(self).__name__

    def describe(self) -> str:
        """The node's name and, for a formula, where it is defined (used in error messages)."""
        return self.name()

    @property
    def next_functions(self) -> Tuple[Tuple[Any, int], ...]:
        return tuple(e if e is not None else (None, 0) for e in self.next_edges)

    def apply(self, grads: List[Any]) -> List[Any]:
        raise NotImplementedError

    def __call__(self, *grads: Any) -> Any:
        """``grad_fn(*grad_outputs)``: the node's gradients for its inputs, as torch's (one
        argument per output of the forward; one result alone, else a tuple; None where an
        input gets no gradient)."""
        if len(grads) != self.n_outputs:
            raise TypeError(f"expected {self.n_outputs} arguments, got {len(grads)} instead")
        out = self.apply(list(grads))
        return out[0] if len(out) == 1 else tuple(out)

    def register_prehook(self, hook: Any) -> Any:
        """``hook(grad_outputs)`` runs before the node; may return new grad_outputs."""
        if self._node_pre_hooks is None:
            self._node_pre_hooks = []
        self._node_pre_hooks.append(hook)
        return HookHandle(self._node_pre_hooks, hook)

    def register_hook(self, hook: Any) -> Any:
        """``hook(grad_inputs, grad_outputs)`` runs after the node; may return new
        grad_inputs (the gradients of the forward inputs)."""
        if self._node_post_hooks is None:
            self._node_post_hooks = []
        self._node_post_hooks.append(hook)
        return HookHandle(self._node_post_hooks, hook)

    def release_variables(self) -> None:
        """Free saved tensors (after a backward without retain_graph)."""

    def _hooks_for(self, output_nr: int, create: bool = False) -> Optional[List[Any]]:
        """The hooks registered on this node's output ``output_nr`` (a tensor's register_hook)."""
        if self._pre_hooks is None:
            if not create:
                return None
            self._pre_hooks = {}
        hooks = self._pre_hooks.get(output_nr)
        if hooks is None and create:
            hooks = self._pre_hooks[output_nr] = []
        return hooks

    def _retain(self, output_nr: int, tensor: Tensor) -> None:
        if self._retained is None:
            self._retained = {}
        self._retained[output_nr] = weakref.ref(tensor)

    def forward_trace(self) -> str:
        """The end of an anomaly-mode error message: where the node was made."""
        if self.anomaly_frames is None:
            return (f"\n(no forward traceback: {self.name()} was made while detect_anomaly() was "
                    "off; run the forward inside detect_anomaly() to see where)")
        return (f"\nThe forward call that made {self.name()} (most recent call last):\n"
                + format_frames(self.anomaly_frames))

    def anomaly_warnings(self) -> List[str]:
        """The warnings of an error in this node under anomaly mode, torch's words: this node's
        forward trace, then one per node whose backward made the previous one (Note [Anomaly
        mode] in csrc/autograd/node.h)."""
        if self.anomaly_frames is None:
            return [f"Error detected in {self.name()}. No forward pass information available. "
                    "Enable detect anomaly during forward pass for more information."]
        out = [f"Error detected in {self.name()}. Traceback of forward call that caused the "
               f"error:\n{format_frames(self.anomaly_frames)}"]
        p = self.anomaly_parent
        while p is not None and p.anomaly_frames is not None:
            out.append(f"\n\nPrevious calculation was induced by {p.name()}. Traceback of "
                       "forward call that induced the previous calculation:\n"
                       f"{format_frames(p.anomaly_frames)}")
            p = p.anomaly_parent
        return out

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


# The node whose apply runs on this thread (the engine sets it): the anomaly parent of the
# nodes made meanwhile.
_evaluating = threading.local()


class AccumulateGrad(Node):
    """The sink of a leaf tensor: adds the incoming gradient into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__([])
        self.variable = variable
        self.sequence_nr = float("inf")  # leaves are accumulated as soon as they are ready

    def _hooks_for(self, output_nr: int, create: bool = False) -> Optional[List[Any]]:
        return self.variable._hooks

    def apply(self, grads: List[Any]) -> List[Any]:
        from transgrad.reference.grad_mode import is_grad_enabled

        grad = grads[0]
        if grad is None:
            return []
        var = self.variable
        if is_grad_enabled():  # create_graph: .grad keeps its history
            var._grad = grad if var._grad is None else var._grad + grad
        elif var._grad is None:
            # never alias another tensor, unless nothing else holds this one and it is laid
            # out as the leaf; a copy is laid out as the leaf when the leaf is dense, else
            # contiguous (Note [A leaf's gradient keeps its layout] in
            # csrc/autograd/accumulate_grad.cpp)
            adopt = (var._data.flags.c_contiguous and _adoptable(grad, var)
                     and sys.getrefcount(grad) <= _SOLE_REFS)
            var._grad = Tensor._from_array(grad._data if adopt
                                           else _laid_out_as(var._data, grad._data))
        elif var._grad.requires_grad or not var._grad._data.flags.writeable:
            var._grad = Tensor._from_array(var._grad._data + grad._data)
        else:
            np.add(var._grad._data, grad._data, out=var._grad._data)
            var._grad._bump_version()
        for hook in list(var._post_acc_hooks or ()):
            if hook(var) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        return []


def _laid_out_as(leaf: np.ndarray, g: np.ndarray) -> np.ndarray:
    """A copy of ``g`` with ``leaf``'s strides when ``leaf`` fills one block without overlap
    (contiguous, channels_last, any permutation), else C-contiguous."""
    if leaf.flags.c_contiguous or leaf.shape != g.shape or leaf.size == 0:
        return np.array(g, order="C", copy=True)
    order = sorted(range(leaf.ndim), key=lambda d: leaf.strides[d])
    expected = leaf.itemsize
    for d in order:
        if leaf.shape[d] == 1:
            continue
        if leaf.strides[d] != expected:
            return np.array(g, order="C", copy=True)
        expected *= leaf.shape[d]
    out = np.empty_like(leaf, dtype=g.dtype, order="K")
    out[...] = g
    return out


# Note [Adopting the incoming gradient]
# ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
# torch's AccumulateGrad takes the incoming gradient as ``.grad`` without a copy when nothing
# else holds it (its use count) and its layout is the leaf's; otherwise ``.grad`` is a copy,
# so that accumulating into ``.grad`` later never writes into a tensor someone else sees. Here
# "nothing else holds it" is Python's reference count: the engine drops its own references
# before the next node runs, so the grad is then held by the node's input list and apply's local
# (counted as _SOLE_REFS by the same calls on a fresh object); another node's buffer, a hook or
# a Function that kept it adds one. The array must own its memory (no view of a saved tensor or
# an expanded one), be contiguous, writable and of the leaf's shape and dtype.


def _adoptable(grad: Tensor, var: Tensor) -> bool:
    a = grad._data
    return (a.base is None and a.flags.c_contiguous and a.flags.writeable
            and a.shape == var._data.shape and a.dtype == var._data.dtype
            and sys.getrefcount(a) <= _SOLE_ARRAY_REFS and not grad.requires_grad)


def _probe_refs(grads: List[Any]) -> int:
    grad = grads[0]
    return sys.getrefcount(grad)  # the same references as AccumulateGrad.apply's check


def _probe_array_refs(t: Any) -> int:
    a = t._data
    return sys.getrefcount(a)  # the same references as _adoptable's check


class _Probe:
    _data: Any = None


def _calibrate() -> Tuple[int, int]:
    grads = [_Probe()]  # held by the list only, as the grads a node receives
    grads[0]._data = np.zeros(1)
    return _probe_refs(grads), _probe_array_refs(grads[0])


_SOLE_REFS, _SOLE_ARRAY_REFS = _calibrate()


def gradient_edge(t: Tensor) -> Edge:
    """Where a gradient for ``t`` must go: its grad_fn, its leaf accumulator, or nowhere."""
    if t.grad_fn is not None:
        return (t.grad_fn, t.output_nr)
    if t._requires_grad:
        return (grad_accumulator(t), 0)
    return None


def grad_accumulator(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad, shared by all uses of the leaf (cached weakly)."""
    acc = t._grad_acc() if t._grad_acc is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc = weakref.ref(acc)
    return acc


# torch's words (its missing space included), then what to do
DETACHED_MESSAGE = ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_().This is not supported, please use out-of-place `.detach()` "
                    "instead")


class SavedTensor:
    """A tensor saved for backward, with its version at save time.

    An input is kept as is. An output is kept as its array and version counter only, and
    re-linked to the owning node when unpacked (no node -> output -> node cycle).

    Note [Saved tensor hooks]
    ~~~~~~~~~~~~~~~~~~~~~~~~~
    Under ``autograd.graph.saved_tensors_hooks(pack, unpack)`` (``saved_hooks.current()``), the
    tensor itself is not kept: only ``pack(t)`` (an output is packed detached, as torch's),
    plus, for an input, its gradient edge (grad_fn or leaf accumulator) and for any, its
    version counter. ``unpack(packed)`` must give a Tensor; its data gets the saved tensor's
    history back, so a double backward through the unpacked tensor reaches the same graph.
    """

    __slots__ = ("_tensor", "_data", "_vc", "_version", "_output_nr", "_is_output", "name",
                 "where", "_released", "_packed", "_unpack", "_edge", "_requires_grad")

    def __init__(self, t: Tensor, is_output: bool, name: str = "", where: str = "") -> None:
        self._vc = t._vc
        self._version = t._vc.value
        self._is_output = is_output
        self._output_nr = t.output_nr if t.grad_fn is not None else -1
        self.name = name
        self.where = where  # "path:line" where the formula bound the saved name, if known
        self._released = False
        self._requires_grad = t.requires_grad  # an input's detach_() is caught on unpack
        hooks = saved_hooks.current()
        self._unpack = None if hooks is None else hooks[1]
        if hooks is not None:  # Note [Saved tensor hooks]
            self._packed = hooks[0](t.detach() if is_output else t)
            self._edge = None if is_output else gradient_edge(t)
            self._tensor = self._data = None
            return
        self._packed = self._edge = None
        self._tensor = None if is_output else t
        self._data = t._data if is_output else None

    def _modified_message(self, owner: Node) -> str:
        """torch's words first ("[torch.DoubleTensor [5]], which is output 0 of AddBackward0,
        is at version 1; expected version 0 instead."), then which saved tensor of which node,
        and where the formula bound it."""
        if self._is_output:
            arr, fn, nr = self._data, owner, self._output_nr
        else:
            t = self._tensor
            arr, fn, nr = t._data, t.grad_fn, t.output_nr  # type: ignore[union-attr]
        assert arr is not None  # not packed: the caller checks
        kind = CLASS_NAMES.get(np.dtype(arr.dtype).name, "Tensor")
        what = f"[torch.{kind} [{', '.join(str(n) for n in arr.shape)}]]"
        if fn is not None:
            what += f", which is output {max(nr, 0)} of {fn.name()},"
        saved = f"saved tensor '{self.name}'" if self.name else "a saved tensor"
        if self.where:
            saved += f" (bound at {self.where})"
        return ("one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {what} is at version {self._vc.value}; expected version "
                f"{self._version} instead. Hint: the in-place change happened after the forward "
                "saved it; make a copy (clone) before changing it, or change it out of place. "
                f"({saved} of {owner.describe()})")

    def unpack(self, owner: Node) -> Tensor:
        if self._released:
            raise RuntimeError(RELEASED_MESSAGE.format(node=owner.describe()))
        # packed tensors: pack decided what is kept, no version check (as torch's)
        if self._unpack is None and self._vc.value != self._version:
            raise RuntimeError(self._modified_message(owner))
        data = self._data
        if self._unpack is not None:
            got = self._unpack(self._packed)
            if not isinstance(got, Tensor):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but "
                                f"got result of type {type(got).__name__}")
            data = got._data
            if not self._is_output:  # the unpacked data with the saved input's history
                t = Tensor._from_array(data)
                t._vc = self._vc
                if self._edge is not None:
                    t.grad_fn, t.output_nr = self._edge
                return t
        elif not self._is_output:
            if self._requires_grad and not self._tensor.requires_grad:  # type: ignore[union-attr]
                raise RuntimeError(DETACHED_MESSAGE)
            return self._tensor  # type: ignore[return-value]
        t = Tensor._from_array(data)
        t._vc = self._vc
        if self._output_nr >= 0:
            t.grad_fn, t.output_nr = owner, self._output_nr
        return t

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        """``grad_fn._raw_saved_<name>.register_hooks(pack, unpack)``: pack the kept tensor now,
        as saved_tensors_hooks would have when it was saved (Note [Saved tensor hooks])."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): expected two callables (pack_hook, unpack_hook)")
        if self._released:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        if self._unpack is not None:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        if self._is_output:
            t = Tensor._from_array(self._data)
            t._vc = self._vc
        else:
            t = self._tensor  # type: ignore[assignment]
            self._edge = gradient_edge(t)
        self._packed = pack_hook(t)
        self._unpack = unpack_hook
        self._tensor = self._data = None

    @property
    def data(self) -> Any:
        """The saved tensor without its node (torch's SavedTensor.data)."""
        if self._released:
            raise RuntimeError(RELEASED_MESSAGE.format(node="a saved tensor"))
        if self._unpack is not None:
            return self._unpack(self._packed).detach()
        return Tensor._from_array(self._data) if self._is_output else self._tensor.detach()  # type: ignore[union-attr]

    def release(self) -> None:
        self._released = True
        self._tensor = self._data = self._packed = None


class TensorMeta:
    """What a backward that reads only a tensor's metadata keeps of it."""

    __slots__ = ("shape", "ndim", "dtype", "numel")

    def __init__(self, t: Tensor) -> None:
        self.shape, self.ndim, self.dtype = t.shape, t.ndim, t.dtype
        self.numel = int(t._data.size)


class DelayedError(Node):
    """Gives results of a once_differentiable backward a grad_fn that refuses to run."""

    __slots__ = ("message",)

    def __init__(self, message: str, next_edges: List[Edge]) -> None:
        super().__init__(next_edges)
        self.message = message

    def apply(self, grads: List[Any]) -> List[Any]:
        raise RuntimeError(self.message)


class Error(Node):
    """torch's ``Error`` node: the grad_fn of the results of a Function's once_differentiable
    backward (Note [once_differentiable as torch's] in transgrad/autograd/__init__.py). Its
    next edges lead to fresh leaves aliasing those results, one per result."""

    __slots__ = ("message",)

    def __init__(self, message: str, next_edges: List[Edge]) -> None:
        super().__init__(next_edges, len(next_edges))
        self.message = message

    def apply(self, grads: List[Any]) -> List[Any]:
        raise RuntimeError(self.message)


def attach_error_node(results: List[Any], message: str, grads: List[Any]) -> List[Any]:
    """torch's once_differentiable wrapper: when one of ``grads`` (what the backward received)
    requires grad, each result is given an ``Error`` grad_fn; otherwise unchanged."""
    if not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
        return results
    floating = [isinstance(r, Tensor) and is_floating_or_complex(r.dtype) for r in results]
    edges: List[Edge] = []
    for r, f in zip(results, floating):
        if f:
            leaf = Tensor._view_of(r, r._data)
            leaf._requires_grad = True
            edges.append((grad_accumulator(leaf), 0))
        else:
            edges.append(None)
    node = Error(message, edges)
    out = []
    for i, (r, f) in enumerate(zip(results, floating)):
        if f:
            r = Tensor._view_of(r, r._data)
            r.grad_fn, r.output_nr = node, i
        out.append(r)
    return out


def attach_delayed_error(outputs: List[Any], message: str, sources: List[Any]) -> List[Any]:
    """Under create_graph, mark the results of a once_differentiable backward: differentiating
    them raises ``message``. ``sources`` are the tensors the results depend on."""
    edges = [gradient_edge(s) for s in sources if isinstance(s, Tensor) and s.requires_grad]
    if not edges:
        return outputs
    node = DelayedError(message, edges)
    out = []
    for i, g in enumerate(outputs):
        if isinstance(g, Tensor) and is_floating_or_complex(g.dtype):
            g = Tensor._view_of(g, g._data)
            g.grad_fn, g.output_nr = node, i
        out.append(g)
    return out
