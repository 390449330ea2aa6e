"""save/load round trips (both engines), errors at save time, and torch interoperability."""

import collections
import io
import json
import math
import struct

import numpy as np
import pytest


def _np(t):
    return np.asarray(t.detach() if t.requires_grad else t)


def _roundtrip(ser, obj):
    buf = io.BytesIO()
    ser.save(obj, buf)
    buf.seek(0)
    return ser.load(buf)


def test_tensor_roundtrip_keeps_values_dtype_shape(tg, ser):
    for t in [tg.tensor([[1.5, -2.0], [3.0, 4.0]]), tg.tensor(3.25, dtype=tg.float64),
              tg.arange(5), tg.tensor([True, False]), tg.zeros(0, 3)]:
        back = _roundtrip(ser, t)
        assert type(back) is tg.Tensor and back.dtype == t.dtype and back.shape == t.shape
        np.testing.assert_array_equal(_np(back), _np(t))


def test_views_are_saved_by_value(tg, ser):
    base = tg.tensor(np.arange(12.0).reshape(3, 4))
    view = base.T[1:]
    obj = {"base": base, "view": view}
    back = _roundtrip(ser, obj)
    np.testing.assert_array_equal(_np(back["view"]), _np(view))
    back["base"].add_(1.0) if hasattr(back["base"], "add_") else None
    np.testing.assert_array_equal(_np(back["view"]), _np(view))  # independent copies


def test_requires_grad_and_nested_structure(tg, ser):
    w = tg.ones(2, 2, requires_grad=True)
    obj = {
        "epoch": 7, "loss": 0.125, "name": "run-1", "done": False, "none": None,
        "inf": math.inf, "ninf": -math.inf,
        "hist": [1.0, 2, (3, "x")], "tensors": (w, tg.zeros(3)),
        "od": collections.OrderedDict([("b", 1), ("a", tg.ones(1))]),
        "int_keys": {0: {"step": 3}, 1: {"step": 4}},
        "empty": {}, "empty_list": [],
    }
    back = _roundtrip(ser, obj)
    assert list(back) == list(obj)
    assert back["epoch"] == 7 and isinstance(back["epoch"], int)
    assert back["loss"] == 0.125 and back["name"] == "run-1" and back["done"] is False
    assert back["none"] is None and back["inf"] == math.inf and back["ninf"] == -math.inf
    assert back["hist"] == [1.0, 2, (3, "x")] and isinstance(back["hist"][2], tuple)
    assert isinstance(back["tensors"], tuple) and back["tensors"][0].requires_grad
    assert back["tensors"][0].is_leaf and not back["tensors"][1].requires_grad
    assert isinstance(back["od"], collections.OrderedDict) and list(back["od"]) == ["b", "a"]
    assert back["int_keys"] == {0: {"step": 3}, 1: {"step": 4}}
    assert back["empty"] == {} and back["empty_list"] == []
    assert math.isnan(_roundtrip(ser, {"x": float("nan")})["x"])


def _nn(tg):
    import importlib

    return (importlib.import_module(tg.__name__ + ".nn"),
            importlib.import_module(tg.__name__ + ".optim"))


def test_module_and_optimizer_state_dicts(tg, ser, tmp_path):
    nn, optim = _nn(tg)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = optim.Adam(model.parameters(), lr=1e-2)
    model(tg.ones(5, 3)).sum().backward()
    opt.step()
    path = tmp_path / "ckpt.pt"
    ser.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 1}, path)
    ckpt = ser.load(str(path), map_location="cpu", weights_only=True)
    model2 = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    model2.load_state_dict(ckpt["model"])
    for (k, a), (k2, b) in zip(model.state_dict().items(), model2.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(_np(a), _np(b))
    opt2 = optim.Adam(model2.parameters(), lr=1.0)
    opt2.load_state_dict(ckpt["opt"])
    assert opt2.param_groups[0]["lr"] == 1e-2
    assert opt2.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
    x = tg.ones(2, 3)
    opt.zero_grad()
    opt2.zero_grad()
    model(x).sum().backward()
    model2(x).sum().backward()
    opt.step()
    opt2.step()
    for a, b in zip(model.parameters(), model2.parameters()):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-6)


def test_parameters_stay_parameters(tg, ser):
    p = _nn(tg)[0].Parameter(tg.ones(2))
    back = _roundtrip(ser, {"p": p})["p"]
    assert type(back) is type(p) and back.requires_grad


def test_cross_engine_load(engine):
    import transgrad.reference as ref
    import transgrad.reference.serialization as rser

    buf = io.BytesIO()
    rser.save({"w": ref.ones(2)}, buf)
    buf.seek(0)
    import importlib

    ser = importlib.import_module({"transgrad": "transgrad.serialization",
                                   "transgrad.reference": "transgrad.reference.serialization"}
                                  [engine.__name__])
    assert type(ser.load(buf)["w"]) is engine.Tensor


@pytest.mark.parametrize("bad, path, what", [
    ({"opt": {"param_groups": [{"foo": lambda x: x}]}},
     r"obj\['opt'\]\['param_groups'\]\[0\]\['foo'\]", "a callable"),
    ([1, object()], r"obj\[1\]", "an object of type builtins.object"),
    ({"k": {1, 2}}, r"obj\['k'\]", "builtins.set"),
    ({(1, 2): 3}, r"obj", "key"),
])
def test_save_errors_name_the_path(ser, bad, path, what):
    with pytest.raises(TypeError, match=rf"cannot save {path}: .*{what}"):
        ser.save(bad, io.BytesIO())


def test_save_refuses_modules_cycles_and_unstorable_dtypes(tg, ser, tmp_path):
    with pytest.raises(TypeError, match=r"obj\['model'\]: it is a module or optimizer \(save "
                                        r"its state_dict\(\)\)"):
        ser.save({"model": _nn(tg)[0].Linear(2, 2)}, io.BytesIO())
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"obj\[0\]: the container contains itself"):
        ser.save(loop, io.BytesIO())
    try:
        z = tg.tensor(np.ones(2, np.complex128))
    except TypeError:  # this engine has no complex128 tensors
        z = None
    if z is not None:
        with pytest.raises(TypeError, match=r"obj\['z'\]: a tensor of dtype complex128"):
            ser.save({"z": z}, tmp_path / "z")
        assert not (tmp_path / "z").exists()  # nothing written when saving fails
    with pytest.raises(TypeError, match="f must be a path or a binary file object"):
        ser.save({}, 3)


def test_map_location(tg, ser):
    buf = io.BytesIO()
    ser.save({"a": tg.ones(1)}, buf)
    for ok in (None, "cpu", {"cuda:0": "cpu"}):
        buf.seek(0)
        assert ser.load(buf, map_location=ok)["a"].shape == (1,)
    for bad in ("cuda", "cuda:0", {"cpu": "cuda:1"}):
        buf.seek(0)
        with pytest.raises(RuntimeError, match="transgrad runs on the CPU only"):
            ser.load(buf, map_location=bad)
    buf.seek(0)
    with pytest.raises(TypeError, match="a callable map_location is not supported"):
        ser.load(buf, map_location=lambda s, loc: s)


def test_flat_state_dict_has_torchs_layout(tg, ser):
    """A flat dict of tensors is stored under its own keys (what safetensors.torch expects)."""
    import safetensors.numpy

    buf = io.BytesIO()
    ser.save({"layer.weight": tg.ones(2, 3), "layer.bias": tg.zeros(2)}, buf)
    arrays = safetensors.numpy.load(buf.getvalue())
    assert sorted(arrays) == ["layer.bias", "layer.weight"]
    assert arrays["layer.weight"].shape == (2, 3) and arrays["layer.weight"].dtype == np.float32
    buf.seek(0)
    assert list(ser.load(buf)) == ["layer.weight", "layer.bias"]  # our order, kept


def test_file_without_our_metadata_loads_as_a_flat_dict(tg, ser):
    import safetensors.numpy

    raw = safetensors.numpy.save({"b": np.arange(3), "a": np.ones((2, 2), np.float32)})
    out = ser.load(io.BytesIO(raw))
    assert set(out) == {"a", "b"} and all(type(t) is tg.Tensor for t in out.values())
    np.testing.assert_array_equal(_np(out["b"]), [0, 1, 2])


def test_torch_roundtrip_both_ways(tg, ser, tmp_path):
    torch = pytest.importorskip("torch")
    import safetensors.torch

    # transgrad -> safetensors -> torch
    nn = _nn(tg)[0]
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    ser.save(model.state_dict(), tmp_path / "tg.safetensors")
    sd = safetensors.torch.load_file(str(tmp_path / "tg.safetensors"))
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    tmodel.load_state_dict(sd)
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(tmodel(torch.from_numpy(x)).detach().numpy(),
                               _np(model(tg.tensor(x))), rtol=1e-5, atol=1e-6)
    # torch -> safetensors -> transgrad
    tmodel2 = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    safetensors.torch.save_file(tmodel2.state_dict(), str(tmp_path / "torch.safetensors"))
    loaded = ser.load(tmp_path / "torch.safetensors")
    model.load_state_dict(loaded)
    np.testing.assert_allclose(tmodel2(torch.from_numpy(x)).detach().numpy(),
                               _np(model(tg.tensor(x))), rtol=1e-5, atol=1e-6)
    # a file written by torch.save (a pickle) is refused with a pointer to safetensors
    torch.save(tmodel2.state_dict(), tmp_path / "pickled.pt")
    with pytest.raises(ValueError, match="looks like a file written by torch.save"):
        ser.load(tmp_path / "pickled.pt")


def test_structure_metadata_is_json_under_our_key(tg, ser):
    buf = io.BytesIO()
    ser.save({"a": [tg.ones(1), 2]}, buf)
    raw = buf.getvalue()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    doc = json.loads(header["__metadata__"][ser.STRUCTURE_KEY] if hasattr(ser, "STRUCTURE_KEY")
                     else header["__metadata__"]["transgrad.structure"])
    assert doc["version"] == 1 and "a.0" in header


def test_tensor_names_never_clash(tg, ser):
    import safetensors.numpy

    obj = {"a.b": tg.ones(1), "a": {"b": tg.zeros(1)}, 1: [tg.ones(2)], "1": {0: tg.zeros(2)}}
    buf = io.BytesIO()
    ser.save(obj, buf)
    assert len(safetensors.numpy.load(buf.getvalue())) == 4
    buf.seek(0)
    back = ser.load(buf)
    assert _np(back["a.b"]).tolist() == [1.0] and _np(back["a"]["b"]).tolist() == [0.0]
    assert _np(back[1][0]).tolist() == [1.0, 1.0] and _np(back["1"][0]).tolist() == [0.0, 0.0]
