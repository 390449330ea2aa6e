"""Crafted, truncated and foreign files: load raises a clear ValueError and runs no code."""

import io
import json
import struct

import numpy as np
import pytest


def _file(header, body=b""):
    raw = json.dumps(header).encode()
    return struct.pack("<Q", len(raw)) + raw + body


def _valid(tg, ser):
    buf = io.BytesIO()
    ser.save({"w": tg.ones(2, 3), "meta": {"epoch": 3, "names": ["a", "b"]}}, buf)
    return buf.getvalue()


def _load(ser, raw):
    return ser.load(io.BytesIO(raw))


F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
CASES = {
    "empty": (b"", "shorter than the 8-byte header length"),
    "five bytes": (b"\x01\x02\x03\x04\x05", "shorter than the 8-byte header length"),
    "header past end": (struct.pack("<Q", 500) + b"{}", "runs past the end of the file"),
    "huge header length": (struct.pack("<Q", 2**63) + b"{}", "larger than the limit"),
    "not utf-8": (struct.pack("<Q", 2) + b"\xff\xfe", "the header is not JSON"),
    "not json": (struct.pack("<Q", 3) + b"{x}", "the header is not JSON"),
    "json list": (_file([1, 2]), "the header is a JSON list, not an object"),
    "entry not object": (_file({"a": 3}), "the entry of tensor 'a' is not an object"),
    "bf16 short": (_file({"a": dict(F32, dtype="BF16", data_offsets=[0, 2])}, b"\0" * 2),
                   "dtype BF16 needs 4 bytes, its data_offsets span 2"),
    "unknown dtype": (_file({"a": dict(F32, dtype="Q7")}, b"\0" * 8), "dtype 'Q7'"),
    "negative shape": (_file({"a": dict(F32, shape=[-2])}, b"\0" * 8), "has shape \\[-2\\]"),
    "shape not list": (_file({"a": dict(F32, shape="2")}, b"\0" * 8), "has shape '2'"),
    "offsets past end": (_file({"a": dict(F32, data_offsets=[0, 8])}, b"\0" * 4),
                         "ends at byte 8 of the data, past its end"),
    "reversed offsets": (_file({"a": dict(F32, data_offsets=[8, 0])}, b"\0" * 8),
                         "data_offsets \\[8, 0\\]"),
    "size mismatch": (_file({"a": dict(F32, shape=[3])}, b"\0" * 8), "needs 12 bytes"),
    "huge shape": (_file({"a": dict(F32, shape=[2**40, 2**40])}, b"\0" * 8), "needs"),
    "metadata not strings": (_file({"__metadata__": {"k": 1}}), "__metadata__ must be"),
    "bad structure json": (_file({"__metadata__": {"transgrad.structure": "{"}}),
                           "metadata is not JSON"),
    "structure version": (_file({"__metadata__": {"transgrad.structure": '{"version": 9, '
                                                                         '"root": 1}'}}),
                          "not a version-1 structure"),
    "unknown node": (_file({"__metadata__": {"transgrad.structure": json.dumps(
        {"version": 1, "root": {"pickle": "cos\nsystem"}})}}), "unknown structure node"),
    "missing tensor": (_file({"__metadata__": {"transgrad.structure": json.dumps(
        {"version": 1, "root": {"tensor": "nope"}})}}), "the file does not hold"),
    "bad dict item": (_file({"__metadata__": {"transgrad.structure": json.dumps(
        {"version": 1, "root": {"dict": [[1]]}})}}), "not a \\[key, value\\] pair"),
    "unhashable key": (_file({"__metadata__": {"transgrad.structure": json.dumps(
        {"version": 1, "root": {"dict": [[{"list": []}, 1]]}})}}), "a dict key is a list"),
    "deep nesting": (_file({"__metadata__": {"transgrad.structure": json.dumps(
        {"version": 1, "root": 1}).replace("1}", '{"list": [' * 300 + "1" + "]}" * 300 + "}")}}),
        "nested more than"),
    "json bomb": (_file({"__metadata__": {"transgrad.structure": '{"version": 1, "root": '
                                                                  + "[" * 100000 + "]" * 100000
                                                                  + "}"}}), "not JSON"),
    "torch pickle zip": (b"PK\x03\x04" + b"\0" * 100, "looks like a file written by torch.save"),
    "raw pickle": (b"\x80\x04\x95" + b"\0" * 20, "never unpickles"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_file_is_a_clear_error(ser, name):
    raw, message = CASES[name]
    with pytest.raises(ValueError, match=message):
        _load(ser, raw)


def test_overlapping_tensors_are_an_error_not_a_crash(ser):
    raw = _file({"a": F32, "b": F32}, b"\0" * 8)
    with pytest.raises(ValueError, match="not a valid transgrad/safetensors file"):
        _load(ser, raw)


def test_dtype_the_engine_does_not_hold(tg, ser):
    import safetensors.numpy

    raw = safetensors.numpy.save({"half": np.ones(2, np.float16)})
    try:
        tg.from_numpy(np.ones(2, np.float16))
    except TypeError:
        with pytest.raises(ValueError, match="tensor 'half' has dtype float16, which"):
            _load(ser, raw)
    else:  # the engine holds float16 (issue 13 item 5): it must load exactly
        assert _load(ser, raw)["half"].dtype == np.float16


def test_every_truncation_is_a_clear_error(tg, ser):
    raw = _valid(tg, ser)
    for n in range(len(raw)):
        with pytest.raises(ValueError):
            _load(ser, raw[:n])


def test_random_corruption_never_escapes_as_anything_but_valueerror(tg, ser):
    raw = bytearray(_valid(tg, ser))
    rng = np.random.default_rng(0)
    outcomes = {"loaded": 0, "refused": 0}
    for _ in range(400):
        bad = bytearray(raw)
        for pos in rng.integers(0, len(bad), size=rng.integers(1, 4)):
            bad[pos] = int(rng.integers(256))
        try:
            _load(ser, bytes(bad))
            outcomes["loaded"] += 1  # a flip in the tensor data (or whitespace) is still valid
        except ValueError:
            outcomes["refused"] += 1
    assert outcomes["refused"] > 50


def test_loading_never_unpickles(tg, ser, monkeypatch):
    import pickle

    def boom(*a, **k):
        raise AssertionError("load must not unpickle")

    monkeypatch.setattr(pickle, "loads", boom)
    monkeypatch.setattr(pickle, "load", boom)
    monkeypatch.setattr(pickle, "Unpickler", boom)
    assert _load(ser, _valid(tg, ser))["meta"] == {"epoch": 3, "names": ["a", "b"]}
