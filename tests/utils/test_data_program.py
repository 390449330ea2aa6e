"""A PyTorch-style training script, written once, run on torch, transgrad and
transgrad.reference: data through a DataLoader, a checkpoint saved and resumed mid-training.
Same initial weights and data -> the same loss curve."""

import importlib

import numpy as np
import pytest


def _lib(name):
    """(tensor module, nn, optim, utils.data, save, load) as a torch program imports them."""
    if name == "torch":
        torch = pytest.importorskip("torch")
        return torch, torch.nn, torch.optim, torch.utils.data, torch.save, torch.load
    tg = importlib.import_module(name)
    if name == "transgrad" and tg._C is None:
        pytest.skip("compiled engine not built")
    ser = importlib.import_module(f"{name}.serialization")
    return (tg, importlib.import_module(f"{name}.nn"), importlib.import_module(f"{name}.optim"),
            importlib.import_module(f"{name}.utils.data"), ser.save, ser.load)


def _program(lib, init, X, Y, ckpt_path):
    torch, nn, optim, data, save, load = lib

    def make():
        model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
        model.load_state_dict({k: torch.tensor(v) for k, v in init.items()})
        return model, optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    model, opt = make()
    loader = data.DataLoader(data.TensorDataset(torch.tensor(X), torch.tensor(Y)),
                             batch_size=16, drop_last=False)
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(4):
        for xb, yb in loader:
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        if epoch == 1:  # checkpoint, then resume from it in a fresh model and optimizer
            save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch},
                 ckpt_path)
            ckpt = load(ckpt_path, map_location="cpu", weights_only=True)
            model, opt = make()
            model.load_state_dict(ckpt["model"])
            opt.load_state_dict(ckpt["optimizer"])
            assert ckpt["epoch"] == 1
    return losses


def test_same_loss_curve_on_torch_and_both_engines(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((50, 3)).astype(np.float32)
    Y = (np.sin(X).sum(1, keepdims=True) + 0.1 * rng.standard_normal((50, 1))).astype(np.float32)
    init = {"0.weight": rng.standard_normal((8, 3)).astype(np.float32) * 0.5,
            "0.bias": np.zeros(8, np.float32),
            "2.weight": rng.standard_normal((1, 8)).astype(np.float32) * 0.5,
            "2.bias": np.zeros(1, np.float32)}
    curves = {}
    for name in ("torch", "transgrad", "transgrad.reference"):
        try:
            lib = _lib(name)
        except pytest.skip.Exception:
            continue
        curves[name] = _program(lib, init, X, Y, tmp_path / f"{name}.ckpt")
    assert len(curves["transgrad.reference"]) == 16  # 4 epochs x 4 batches
    assert curves["transgrad.reference"][-1] < curves["transgrad.reference"][0] / 2
    for name, curve in curves.items():
        np.testing.assert_allclose(curve, curves["transgrad.reference"], rtol=2e-4, atol=1e-6,
                                   err_msg=name)
