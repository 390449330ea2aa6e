"""Packed sequences, engine-neutral (torch.nn.utils.rnn): ``PackedSequence``,
``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``, ``pack_sequence``,
``unpack_sequence``, ``unpad_sequence``.

Input -> output: padded batches (T, B, *) or (B, T, *) and their lengths <-> a
``PackedSequence`` whose ``data`` holds, time step after time step, the rows of the sequences
still running at that step (``batch_sizes[t]`` of them, non-increasing), sorted by decreasing
length (``sorted_indices`` maps sorted -> original, ``unsorted_indices`` back).

Invariant: packing and unpacking are differentiable: each is one ``index_select`` of the
flattened input (Note [Packing is one gather]), so gradients flow to the padded input and
``data`` of both engines alike. ``batch_sizes``, ``sorted_indices`` and ``unsorted_indices`` are
int64 tensors of the input's engine, as torch keeps them (on the CPU).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from transgrad._backend import Backend, backend_of

# Note [Packing is one gather]
# Packing picks, for each time step t and each of the first batch_sizes[t] (sorted) sequences,
# one row of the padded input: flattened to (T * B, *), that is one index_select with an int64
# index computed in numpy from the lengths. Unpacking is the inverse gather from ``data`` with
# one extra row of ``padding_value`` appended, which every padded position points to. One
# differentiable op each way, instead of T slices and a cat.


class PackedSequence(NamedTuple):
    """A batch of variable-length sequences packed time step after time step (see the module
    docstring); made by ``pack_padded_sequence`` / ``pack_sequence``, read by the recurrent
    layers and ``pad_packed_sequence``."""

    data: Any
    batch_sizes: Any
    sorted_indices: Any = None
    unsorted_indices: Any = None

    def _replace_data(self, data: Any) -> PackedSequence:
        return PackedSequence(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        return self._replace_data(self.data.to(*args, **kwargs))

    def double(self) -> PackedSequence:
        return self._replace_data(self.data.double())

    def float(self) -> PackedSequence:
        return self._replace_data(self.data.float())

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False


def _int64(E: Backend, values: Any) -> Any:
    return E.module.tensor(np.asarray(values, dtype=np.int64))


def _lengths_array(lengths: Any) -> np.ndarray:
    if hasattr(lengths, "detach"):
        lengths = np.asarray(lengths.detach())
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def _invert(perm: np.ndarray) -> np.ndarray:
    inv = np.empty_like(perm)
    inv[perm] = np.arange(perm.size, dtype=perm.dtype)
    return inv


def pack_padded_sequence(input: Any, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (T, B, *) (``batch_first``: (B, T, *)) of sequences of the given
    ``lengths``; with ``enforce_sorted`` the lengths must be non-increasing, else the batch is
    sorted first and the permutation kept in the result."""
    E = backend_of(input)
    lens = _lengths_array(lengths)
    if enforce_sorted:
        if lens.size > 1 and np.any(np.diff(lens) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.")
        order = None
    else:
        order = np.argsort(-lens, kind="stable").astype(np.int64)
        lens = lens[order]
    if input.ndim < 2:
        raise ValueError(f"pack_padded_sequence: expected an input of at least 2 dims "
                         f"(T, B, *), got shape {tuple(input.shape)}")
    if batch_first:
        input = input.transpose(0, 1)
    T, B = int(input.shape[0]), int(input.shape[1])
    if lens.size != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{lens.size} (batch_size={B})")
    if B and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if B and lens[0] > T:
        raise RuntimeError(f"pack_padded_sequence: a length {int(lens[0])} exceeds the "
                           f"padded length {T}")
    steps = int(lens[0]) if B else 0
    batch_sizes = np.array([(lens > t).sum() for t in range(steps)], dtype=np.int64)
    cols = np.arange(B, dtype=np.int64) if order is None else order
    rows = [t * B + cols[:bs] for t, bs in enumerate(batch_sizes)]
    index = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    flat = input.reshape((T * B,) + tuple(input.shape[2:]))
    data = flat.index_select(0, _int64(E, index))
    if order is None:
        return PackedSequence(data, _int64(E, batch_sizes))
    return PackedSequence(data, _int64(E, batch_sizes), _int64(E, order),
                          _int64(E, _invert(order)))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Any, Any]:
    """The padded batch (T, B, *) (``batch_first``: (B, T, *)) of a ``PackedSequence``, in the
    original batch order, and the lengths (an int64 tensor)."""
    data = sequence.data
    E = backend_of(data)
    sizes = _lengths_array(sequence.batch_sizes)
    steps = int(sizes.size)
    B = int(sizes[0]) if steps else 0
    T = steps
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                f"Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}")
        T = int(total_length)
    # position (t, b) of the sorted batch reads data row offsets[t] + b, or the padding row
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    pad_row = int(data.shape[0])
    index = np.full((T, B), pad_row, dtype=np.int64)
    for t in range(steps):
        index[t, : sizes[t]] = offsets[t] + np.arange(sizes[t])
    lengths = (sizes[None, :] > np.arange(B)[:, None]).sum(axis=1).astype(np.int64)
    if sequence.unsorted_indices is not None:
        unsorted = _lengths_array(sequence.unsorted_indices)
        index = index[:, unsorted]
        lengths = lengths[unsorted]
    feat = tuple(data.shape[1:])
    pad = E.module.full((1,) + feat, padding_value, dtype=data.dtype)
    source = E.module.cat([data, pad], 0)
    out = source.index_select(0, _int64(E, index.reshape(-1))).reshape((T, B) + feat)
    if batch_first:
        out = out.transpose(0, 1)
    return out, _int64(E, lengths)


def pad_sequence(sequences: Sequence[Any], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Any:
    """Stack sequences of shapes (L_i, *) into (T, B, *) (``batch_first``: (B, T, *)), T the
    longest L_i, padding with ``padding_value`` on ``padding_side``."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    E = backend_of(sequences[0])
    T = max(int(s.shape[0]) for s in sequences)
    padded = []
    for s in sequences:
        n = T - int(s.shape[0])
        if n:
            pad = E.module.full((n,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = E.module.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        padded.append(s)
    return E.module.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences: Sequence[Any], enforce_sorted: bool = True) -> PackedSequence:
    """``pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=...)``."""
    lengths = [int(s.shape[0]) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: Any, lengths: Any,
                   batch_first: bool = False) -> list[Any]:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [padded_sequences[i, : int(n)] for i, n in enumerate(_lengths_array(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Any]:
    """The sequences of a ``PackedSequence``, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
