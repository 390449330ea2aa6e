"""Pytrees for ``transgrad.func``: nested tuples, lists, dicts (and namedtuples, OrderedDicts)
flattened into leaves and rebuilt, as ``torch.utils._pytree`` does for the transforms.

Internal. Input: any Python value; output: ``(leaves, spec)`` with ``tree_unflatten(leaves,
spec)`` rebuilding a value of the same structure. Invariants, as torch's: a dict's children are
taken in key insertion order; ``None`` is a node with no children (it has no leaves, so a
transform passes it through); anything that is not a container is one leaf.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, List, Tuple


class TreeSpec:
    """The structure of a pytree: a node kind, its context (keys, a namedtuple class) and the
    specs of its children; a leaf is ``TreeSpec("leaf")``."""

    __slots__ = ("kind", "context", "children", "num_leaves")

    def __init__(self, kind: str, context: Any = None,
                 children: Tuple["TreeSpec", ...] = ()) -> None:
        self.kind, self.context, self.children = kind, context, children
        self.num_leaves: int = 1 if kind == "leaf" else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        return self.kind == "leaf"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TreeSpec) and self.kind == other.kind
                and self.context == other.context and self.children == other.children)

    def __hash__(self) -> int:
        return hash((self.kind, self.num_leaves))

    def __repr__(self) -> str:  # torch's TreeSpec repr (one line)
        if self.kind == "leaf":
            return "*"
        kind = {"none": "NoneType", "odict": "OrderedDict", "namedtuple": "namedtuple"}.get(
            self.kind, self.kind)
        return f"TreeSpec({kind}, {self.context!r}, [{', '.join(map(repr, self.children))}])"

    def pprint(self) -> str:
        """torch's ``treespec_pprint``: the structure with ``*`` for each leaf."""
        kids = [c.pprint() for c in self.children]
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        if self.kind in ("tuple", "namedtuple"):
            return f"({kids[0]},)" if len(kids) == 1 else f"({', '.join(kids)})"
        if self.kind == "list":
            return f"[{', '.join(kids)}]"
        return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, kids)) + "}"


LEAF = TreeSpec("leaf")


def _is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(x: Any) -> Tuple[str, Any, List[Any]] | None:
    """``(kind, context, children)`` of a container node, None for a leaf."""
    if x is None:
        return "none", None, []
    if _is_namedtuple(x):
        return "namedtuple", type(x), list(x)
    if isinstance(x, tuple):
        return "tuple", None, list(x)
    if isinstance(x, list):
        return "list", None, list(x)
    if isinstance(x, OrderedDict):
        return "odict", list(x.keys()), list(x.values())
    if isinstance(x, dict):
        return "dict", list(x.keys()), list(x.values())
    return None


def tree_flatten(tree: Any) -> Tuple[List[Any], TreeSpec]:
    leaves: List[Any] = []

    def go(x: Any) -> TreeSpec:
        node = _children(x)
        if node is None:
            leaves.append(x)
            return LEAF
        kind, context, kids = node
        return TreeSpec(kind, context, tuple(go(k) for k in kids))

    return leaves, go(tree)


def tree_leaves(tree: Any) -> List[Any]:
    return tree_flatten(tree)[0]


def tree_unflatten(leaves: List[Any], spec: TreeSpec) -> Any:
    it = iter(leaves)

    def build(s: TreeSpec) -> Any:
        if s.kind == "leaf":
            return next(it)
        kids = [build(c) for c in s.children]
        if s.kind == "none":
            return None
        if s.kind == "tuple":
            return tuple(kids)
        if s.kind == "namedtuple":
            return s.context(*kids)
        if s.kind == "list":
            return kids
        if s.kind == "odict":
            return OrderedDict(zip(s.context, kids))
        return dict(zip(s.context, kids))

    if len(leaves) != spec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the "
                         f"spec refers to a pytree that holds {spec.num_leaves} items ({spec}).")
    return build(spec)


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix: Any, tree: Any, is_leaf_value: Callable[[Any], bool]) -> List[Any]:
    """One value of ``prefix`` per leaf of ``tree``: ``prefix`` is ``tree``'s structure cut
    short, each of its leaves (``is_leaf_value``: an int or None for vmap's dims) standing for a
    whole subtree. Raises ValueError when the structures disagree."""
    out: List[Any] = []

    def go(p: Any, t: Any) -> None:
        if is_leaf_value(p):
            out.extend([p] * len(tree_leaves(t)))
            return
        pn, tn = _children(p), _children(t)
        if pn is None or tn is None or pn[0] != tn[0] or len(pn[2]) != len(tn[2]) \
                or pn[1] != tn[1]:
            raise ValueError("prefix does not match the structure of the tree")
        for a, b in zip(pn[2], tn[2]):
            go(a, b)

    go(prefix, tree)
    return out
