"""``transgrad.reference.nn.utils.rnn``: packed sequences, engine-neutral (the
same functions and ``PackedSequence`` class in both namespaces: ``transgrad._nn.packed``)."""

from transgrad._nn.packed import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

__all__ = ["PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence"]
