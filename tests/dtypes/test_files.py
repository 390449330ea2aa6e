"""tg.save / tg.load of the new dtypes (safetensors I8/I16/I32/U8/F16/BF16), both engines, and a
round trip with safetensors.torch (optional)."""

import ml_dtypes
import numpy as np
import pytest

NAMES = {"uint8": "U8", "int8": "I8", "int16": "I16", "int32": "I32", "float16": "F16",
         "bfloat16": "BF16"}


def _state(engine):
    return {name: engine.tensor([[1, 2, 3], [4, 5, 100]], dtype=getattr(engine, name))
            for name in NAMES}


def test_save_load_round_trip(engine, tmp_path):
    state = _state(engine)
    engine.save(state, tmp_path / "s.pt")
    back = engine.load(tmp_path / "s.pt")
    for name, t in state.items():
        assert back[name].dtype == t.dtype
        assert np.array_equal(np.asarray(back[name]), np.asarray(t))


def test_file_dtypes_are_safetensors_names(engine, tmp_path):
    import json

    engine.save(_state(engine), tmp_path / "s.pt")
    raw = (tmp_path / "s.pt").read_bytes()
    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    assert {k: v["dtype"] for k, v in header.items() if k != "__metadata__"} == NAMES


def test_round_trip_with_safetensors_torch(engine, tmp_path):
    torch = pytest.importorskip("torch")
    st = pytest.importorskip("safetensors.torch")
    engine.save(_state(engine), tmp_path / "ours.safetensors")
    theirs = st.load_file(str(tmp_path / "ours.safetensors"))
    for name in NAMES:
        assert theirs[name].dtype == getattr(torch, name)
        assert theirs[name].double().tolist() == [[1, 2, 3], [4, 5, 100]]
    st.save_file({name: t.clone() for name, t in theirs.items()}, str(tmp_path / "t.safetensors"))
    back = engine.load(tmp_path / "t.safetensors")
    for name in NAMES:
        assert back[name].dtype == getattr(engine, name)
        assert np.asarray(back[name]).astype(np.float64).tolist() == [[1, 2, 3], [4, 5, 100]]


def test_bfloat16_bits_survive(engine, tmp_path):
    bits = np.arange(0, 2 ** 16, 97, dtype=np.uint16)
    t = engine.from_numpy(bits.view(ml_dtypes.bfloat16).copy())
    engine.save({"b": t}, tmp_path / "b.pt")
    back = np.asarray(engine.load(tmp_path / "b.pt")["b"])
    assert np.array_equal(back.view(np.uint16), bits)
