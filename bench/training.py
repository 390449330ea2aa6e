"""Model training steps of issue 14 as rows of the bench table: CNN, TLM, LSTM (a whole step:
zero_grad, forward, backward, optimizer step) and OPT (an Adam step alone over a 1M-parameter
model), each library against torch, one intra-op thread.

Input: the loaded libraries and the sizes profile. Output: a results dict as measure.run_timed
returns it (rows of raw per-repeat samples, a check, paired ratios in report.py). The models are
bench/cnn_step.py's and bench/models.py's (imported, not copied); every engine starts from
torch's weights, and before timing its first loss (OPT: its parameters after one step) is
compared with torch's, so a fast wrong step shows as a mismatch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cnn_step
import measure
import models
import numpy as np
import workloads as wl
from libs import Lib

KEYS = ("CNN", "TLM", "LSTM", "OPT")
DESCS = {
    "CNN": "CNN step (2x conv3x3+BN+ReLU+maxpool, head), batch 8 of 1x28x28, SGD; 1 thread",
    "TLM": "transformer LM step (2 layers, d 128, 4 heads, seq 64, batch 8), AdamW; 1 thread",
    "LSTM": "nn.LSTM step (seq 32, batch 16, in 64, hidden 128), SGD; 1 thread",
    "OPT": "Adam step alone, 1.05M parameters (4x Linear 512x512); 1 thread",
}
OPT_LAYERS = 4  # Linear(512, 512) each: 4 * (512 * 512 + 512) = 1,050,624 parameters


def _cnn(lib: Any, state: dict[str, np.ndarray] | None) -> tuple[Any, Callable[[], Any]]:
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((8, 1, 28, 28)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, 8).astype(np.int64))
    model = cnn_step.build(lib, state)
    return model, cnn_step.make_step(lib, model, x, y)


def _model_step(make: Callable[[Any], tuple[Any, Callable[[], Any], Any]]) -> Callable:
    """A (model, loss, optimizer) maker of models.py as (model, step) with given weights."""
    def build(lib: Any, state: dict[str, np.ndarray] | None) -> tuple[Any, Callable[[], Any]]:
        model, loss, opt = make(lib)
        if state is not None:
            model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})

        def step() -> Any:
            opt.zero_grad()
            out = loss()
            out.backward()
            opt.step()
            return out

        return model, step
    return build


def _opt(lib: Any, state: dict[str, np.ndarray] | None) -> tuple[Any, Callable[[], Any]]:
    """The parameters get fixed gradients once; the step is ``opt.step()`` only."""
    nn = lib.nn
    model = nn.Sequential(*[nn.Linear(512, 512) for _ in range(OPT_LAYERS)])
    if state is not None:
        model.load_state_dict({k: lib.tensor(v) for k, v in state.items()})
    rng = np.random.default_rng(3)
    for p in model.parameters():
        p.grad = lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)

    def step() -> Any:
        opt.step()
        return model[0].weight  # the check compares the parameters after one step

    return model, step


BUILDERS: dict[str, Callable[[Any, dict[str, np.ndarray] | None], tuple[Any, Callable]]] = {
    "CNN": _cnn, "TLM": _model_step(models.tlm_model), "LSTM": _model_step(models.lstm_model),
    "OPT": _opt,
}


def _check(key: str, got: Any, want: Any) -> str:
    a, b = np.asarray(got.detach().numpy(), np.float64), np.asarray(want.detach().numpy(),
                                                                     np.float64)
    err = float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-30))
    return "ok" if err <= (1e-6 if key == "OPT" else 1e-4) else f"rel. err {err:.1e}"


def _single_thread(lib: Lib) -> None:
    for mod in (lib.m, getattr(lib.m, "_C", None)):
        for name in ("set_num_threads", "_set_num_threads"):
            f = getattr(mod, name, None)
            if f is not None:
                f(1)
                return


def run_training(key: str, libs: list[Lib], sz: wl.Sizes) -> dict[str, Any]:
    res: dict[str, Any] = {"desc": DESCS[key], "rows": {}, "notes": [], "unit": "ms/step"}
    torch = next((lib for lib in libs if lib.name == "torch" and not lib.skip), None)
    state = None
    want = None
    if torch is not None:
        _single_thread(torch)
        torch.m.manual_seed(0)
        model, step = BUILDERS[key](torch.m, None)
        state = {k: v.detach().numpy().copy() for k, v in model.state_dict().items()}
        want = BUILDERS[key](torch.m, state)[1]()
    steps: dict[str, Callable[[], Any]] = {}
    inner: dict[str, int] = {}
    for lib in libs:
        if not lib.is_engine and not lib.skip:
            continue  # the numpy floor has no model step
        row = res["rows"][lib.name] = measure.new_row(lib)
        if lib.name == "reference" and key != "OPT":
            row["skip"] = "pure Python engine: model steps not timed (seconds per step)"
        if row.get("skip"):
            continue
        try:
            _single_thread(lib)
            if state is None:
                lib.m.manual_seed(0)
            _, step = BUILDERS[key](lib.m, state)
            first = step()
            row["check"] = "oracle" if lib.name == "torch" else (
                _check(key, first, want) if want is not None else "unchecked (no torch)")
            _, steps[lib.name] = BUILDERS[key](lib.m, state)  # fresh: the check stepped once
            inner[lib.name] = measure.calibrate(steps[lib.name], sz.min_sample_s)
            row["inner"], row["time_s"], row["metric"] = inner[lib.name], [], []
            row["size"] = None
        except Exception as e:  # noqa: BLE001 - one library failing must not stop the run
            row["error"] = f"failed: {measure.err_text(e)}"
    order = list(steps)
    for r in range(sz.repeats):
        for name in measure.rotated(order, r):
            if "error" in res["rows"][name]:
                continue
            try:
                t = measure.time_sample(steps[name], inner[name])
            except Exception as e:  # noqa: BLE001 - a late failure drops this library only
                res["rows"][name]["error"] = f"failed in repeat {r}: {measure.err_text(e)}"
                continue
            res["rows"][name]["time_s"].append(t)
            res["rows"][name]["metric"].append(t * 1e3)
    if key == "OPT":
        res["notes"].append("optimizer step only: gradients set once, Adam(lr=1e-3) default "
                            "path (torch: its CPU default, foreach=False)")
    return res
