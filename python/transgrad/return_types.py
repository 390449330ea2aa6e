"""``transgrad.return_types``: the named results of ops that return several tensors, as
``torch.return_types``.

Input: the tensors an op returns (``max(x, dim)``, ``sort``, ``linalg.slogdet``, ...). Output: a
tuple subclass named as torch's (``transgrad.return_types.max``), whose fields are torch's and
which prints as torch's (``torch.return_types.max(\\nvalues=tensor(...),\\nindices=...)``).

Invariants: a result is a tuple (indexing, unpacking, ``len``, ``==`` with a tuple as before),
its fields are read by name too; one class per torch name, shared by both engines, made from
``_make`` (Note [Torch's structseq]).

Note [Torch's structseq]
~~~~~~~~~~~~~~~~~~~~~~~~
torch's return types are CPython structseqs (``os.stat_result``'s kind), not namedtuples: the
class is built as ``torch.return_types.max((values, indices))`` from one sequence of exactly
``n_fields`` items, it has ``n_fields`` and ``n_sequence_fields`` but no ``_fields``,
``_asdict`` or ``_replace``, and its repr puts each field on a line of its own. The classes
below are tuple subclasses with those three behaviours, so code that inspects a result as torch
documents it (names, printing, pickling by module and name) finds the same thing. ``slogdet``
and ``linalg.slogdet`` return different classes in torch (``slogdet``, ``linalg_slogdet``) and
so do ours; the function computing them is one.
"""

from __future__ import annotations

from typing import Any, Iterable, Tuple


class _StructSeq(tuple):
    """The common base of the return types (Note [Torch's structseq])."""

    __slots__ = ()
    n_fields: int = 0
    n_sequence_fields: int = 0
    _names: Tuple[str, ...] = ()

    def __new__(cls, sequence: Iterable[Any], dict: Any = None) -> Any:  # noqa: A002 (torch's)
        items = tuple(sequence)
        if len(items) != cls.n_fields:
            raise TypeError(f"torch.return_types.{cls.__name__}() takes a {cls.n_fields}-sequence "
                            f"({len(items)}-sequence given)")
        return super().__new__(cls, items)

    def __repr__(self) -> str:
        body = ",\n".join(f"{name}={value!r}" for name, value in zip(self._names, self))
        return f"torch.return_types.{type(self).__name__}(\n{body})"

    __str__ = __repr__

    def __reduce__(self) -> Any:
        return (type(self), (tuple(self),))


def _field(i: int) -> property:
    return property(lambda self: tuple.__getitem__(self, i))


def _make(name: str, fields: Tuple[str, ...]) -> type:
    namespace: dict = {"__slots__": (), "__module__": __name__, "__qualname__": name,
                       "n_fields": len(fields), "n_sequence_fields": len(fields),
                       "_names": fields}
    namespace.update({f: _field(i) for i, f in enumerate(fields)})
    return type(name, (_StructSeq,), namespace)


max = _make("max", ("values", "indices"))  # noqa: A001 (torch's names)
min = _make("min", ("values", "indices"))  # noqa: A001
sort = _make("sort", ("values", "indices"))
topk = _make("topk", ("values", "indices"))
kthvalue = _make("kthvalue", ("values", "indices"))
mode = _make("mode", ("values", "indices"))
median = _make("median", ("values", "indices"))
nanmedian = _make("nanmedian", ("values", "indices"))
cummax = _make("cummax", ("values", "indices"))
cummin = _make("cummin", ("values", "indices"))
aminmax = _make("aminmax", ("min", "max"))
frexp = _make("frexp", ("mantissa", "exponent"))
slogdet = _make("slogdet", ("sign", "logabsdet"))
linalg_slogdet = _make("linalg_slogdet", ("sign", "logabsdet"))
linalg_eigh = _make("linalg_eigh", ("eigenvalues", "eigenvectors"))
linalg_qr = _make("linalg_qr", ("Q", "R"))
qr = _make("qr", ("Q", "R"))
linalg_svd = _make("linalg_svd", ("U", "S", "Vh"))
svd = _make("svd", ("U", "S", "V"))
linalg_cholesky_ex = _make("linalg_cholesky_ex", ("L", "info"))
triangular_solve = _make("triangular_solve", ("solution", "cloned_coefficient"))
linalg_lu = _make("linalg_lu", ("P", "L", "U"))
lu_unpack = _make("lu_unpack", ("P", "L", "U"))
linalg_lu_factor = _make("linalg_lu_factor", ("LU", "pivots"))
linalg_lu_factor_ex = _make("linalg_lu_factor_ex", ("LU", "pivots", "info"))

__all__ = sorted(name for name, value in list(globals().items())
                 if isinstance(value, type) and issubclass(value, _StructSeq)
                 and value is not _StructSeq)
