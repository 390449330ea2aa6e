"""The workloads of issue 6, written once against the PyTorch-style API.

Input: a ``Lib`` (libs.py) and a data dict of numpy arrays (``make_data``). Output: a ``step``
closure running forward + backward once and returning the gradients (library tensors), in the
same order as the numpy floor (numpy_floor.py) returns them. The same engine code runs on
torch, ``transgrad`` and ``transgrad.reference``; only ``Lib`` bridges names.

Sizes are fixed by the issue except where noted in ``Sizes`` (W2's chain length, the reference
engine's caps). Every size a run used is written into the JSON and the table header.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy_floor
from libs import Lib

Step = Callable[[], list[Any]]


@dataclass(frozen=True)
class Sizes:
    """Problem sizes. ``full`` is the issue's; ``quick`` and ``tiny`` shrink what is slow."""

    w1_ops: int = 1000
    w1_n: int = 4
    # Note [W2 chain length]: the issue says "the same chain" on 1e6 elements; 1000 ops would
    # keep ~4 GB of saved float32 tensors alive per library. GB/s does not depend on the chain
    # length once it is long enough to amortise the leaves and the sum, so W2 uses 30 ops.
    w2_ops: int = 30
    w2_n: int = 1_000_000
    w3_batch: int = 128
    w3_layers: tuple[int, ...] = (784, 512, 512, 10)
    w4_n: int = 1024
    w5_n: int = 1000
    w6_ops: int = 200_000
    w6_ref_ops: int = 20_000  # the reference engine is pure Python: capped, with a note
    w6_big_ops: int | None = 1_000_000  # transgrad (compiled) alone; None = skipped
    w7_n: int = 200_000
    w7_ops: int = 30
    w7_steps: int = 5  # steps per thread in one W7 sample
    ref_w2_n: int | None = None  # None: the reference engine runs W2 at full size
    repeats: int = 7
    min_sample_s: float = 0.05  # each sample loops the step until it lasts this long
    w6_repeats: int = 3
    build_repeats: int = 3


PROFILES: dict[str, Sizes] = {
    "full": Sizes(),
    "quick": Sizes(
        w2_ops=9,
        w6_ops=50_000,
        w6_ref_ops=5_000,
        w6_big_ops=None,
        w7_ops=9,
        w7_steps=3,
        repeats=3,
        min_sample_s=0.01,
        w6_repeats=1,
        build_repeats=1,
    ),
    "tiny": Sizes(
        w1_ops=30,
        w2_ops=6,
        w2_n=1000,
        w3_batch=8,
        w3_layers=(20, 16, 16, 10),
        w4_n=32,
        w5_n=50,
        w6_ops=300,
        w6_ref_ops=300,
        w6_big_ops=None,
        w7_n=1000,
        w7_ops=6,
        w7_steps=2,
        repeats=2,
        min_sample_s=0.0,
        w6_repeats=1,
        build_repeats=1,
    ),
}


# ---------------------------------------------------------------------------------------------
# Data: deterministic, float32 unless the workload says otherwise.


def chain_data(n: int, ops: int, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    f = np.float32
    return {
        "x": rng.uniform(-1, 1, n).astype(f),
        "w": rng.uniform(0.5, 1.0, n).astype(f),
        "b": rng.uniform(-0.1, 0.1, n).astype(f),
        "ops": ops,
    }


def mlp_data(batch: int, layers: tuple[int, ...], seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    f = np.float32
    params = []
    for fan_in, fan_out in itertools.pairwise(layers):
        s = 1.0 / np.sqrt(fan_in)
        params += [
            rng.uniform(-s, s, (fan_in, fan_out)).astype(f),
            rng.uniform(-s, s, fan_out).astype(f),
        ]
    labels = rng.integers(0, layers[-1], batch)
    return {
        "X": rng.standard_normal((batch, layers[0])).astype(f),
        "Y": np.eye(layers[-1], dtype=f)[labels],
        "params": params,
        "lr": 0.01,
    }


def make_data(key: str, sz: Sizes, lib: str = "") -> dict[str, Any]:
    if key == "W1":
        return chain_data(sz.w1_n, sz.w1_ops)
    if key == "W2":
        n = sz.ref_w2_n if (lib == "reference" and sz.ref_w2_n) else sz.w2_n
        return chain_data(n, sz.w2_ops)
    if key == "W3":
        return mlp_data(sz.w3_batch, sz.w3_layers)
    if key == "W4":
        rng = np.random.default_rng(0)
        n = sz.w4_n
        return {
            "A": rng.standard_normal((n, n)).astype(np.float32),
            "B": rng.standard_normal((n, n)).astype(np.float32),
        }
    if key == "W5":
        return {"x": np.random.default_rng(0).uniform(-2, 2, sz.w5_n)}  # float64
    raise KeyError(key)


# ---------------------------------------------------------------------------------------------
# The engine side: one function per workload, for torch, transgrad and transgrad.reference.


def chain(lib: Lib, d: dict[str, Any]) -> Step:
    """sin, mul by a leaf, add a leaf, repeated ``ops`` times; sum; backward."""
    m, xa, wa, ba, n_ops = lib.m, d["x"], d["w"], d["b"], d["ops"]

    def step() -> list[Any]:
        x, w, b = lib.leaf(xa), lib.leaf(wa), lib.leaf(ba)
        y = x
        for i in range(n_ops):
            k = i % 3
            if k == 0:
                y = m.sin(y)
            elif k == 1:
                y = y * w
            else:
                y = y + b
        y.sum().backward()
        return [x.grad, w.grad, b.grad]

    return step


def mlp(lib: Lib, d: dict[str, Any]) -> Step:
    """One SGD step of the tanh MLP; gradients by ``autograd.grad``, functional update."""
    m = lib.m
    X, Y, lr = lib.const(d["X"]), lib.const(d["Y"]), d["lr"]
    params = [lib.leaf(p.copy()) for p in d["params"]]
    inv_b = 1.0 / d["X"].shape[0]

    def step() -> list[Any]:
        W1, b1, W2, b2, W3, b3 = params
        h1 = m.tanh(X @ W1 + b1)
        h2 = m.tanh(h1 @ W2 + b2)
        z = h2 @ W3 + b3
        loss = -(lib.log_softmax(z, 1) * Y).sum() * inv_b
        grads = lib.grad(loss, params)
        with lib.no_grad():
            new = [p - g * lr for p, g in zip(params, grads)]
        params[:] = [p.requires_grad_() for p in new]
        return list(grads)

    return step


def matmul_sum(lib: Lib, d: dict[str, Any]) -> Step:
    def step() -> list[Any]:
        A, B = lib.leaf(d["A"]), lib.leaf(d["B"])
        (A @ B).sum().backward()
        return [A.grad, B.grad]

    return step


def double_backward(lib: Lib, d: dict[str, Any]) -> Step:
    m = lib.m

    def step() -> list[Any]:
        x = lib.leaf(d["x"])
        y = (m.tanh(x) ** 3).sum()
        (g,) = lib.grad(y, [x], create_graph=True)
        (gg,) = lib.grad(g.sum(), [x])
        return [g, gg]

    return step


# ---------------------------------------------------------------------------------------------
# The registry: what each workload measures and how its headline number is computed.


def chain_bytes(n: int, ops: int, itemsize: int = 4) -> int:
    """Bytes a fused implementation must move for the chain, forward and backward.

    Note [W2 byte count]: E = n * itemsize. Forward: sin reads 1 writes 1 (2E), mul and add
    read 2 write 1 (3E each), sum reads 1 (E). Backward: the sum's grad is written (E); sin
    reads grad and input, writes grad (3E); mul writes grad wrt input (3E: g, w -> g') and wrt
    w (3E: g, input -> g_w); add passes the grad through (0) and its grad wrt b is that same
    tensor (0); each further use of a leaf adds one accumulation (3E). A library that moves
    more than this (unfused backward, copies) shows a lower effective GB/s.
    """
    e = n * itemsize
    n_sin = len(range(0, ops, 3))
    n_mul = len(range(1, ops, 3))
    n_add = len(range(2, ops, 3))
    fwd = 2 * e * n_sin + 3 * e * (n_mul + n_add) + e
    bwd = e + 3 * e * n_sin + 6 * e * n_mul + 3 * e * (max(n_mul - 1, 0) + max(n_add - 1, 0))
    return fwd + bwd


@dataclass(frozen=True)
class Workload:
    key: str
    title: str
    engine: Callable[[Lib, dict[str, Any]], Step]
    floor: Callable[[dict[str, Any]], Step]
    rtol: float  # max |a - b| / max |b| allowed, per gradient

    def describe(self, sz: Sizes) -> str:
        return {
            "W1": f"{sz.w1_ops}-op chain (sin, *leaf, +leaf) on ({sz.w1_n},), fwd+bwd",
            "W2": f"{sz.w2_ops}-op chain on {sz.w2_n:,} float32, fwd+bwd",
            "W3": f"MLP {'-'.join(map(str, sz.w3_layers))} tanh, batch {sz.w3_batch}, "
            "softmax CE, SGD step",
            "W4": f"({sz.w4_n}x{sz.w4_n})@({sz.w4_n}x{sz.w4_n}) -> sum, backward (float32)",
            "W5": f"grad of grad of sum(tanh(x)**3), x of {sz.w5_n} (float64)",
        }[self.key]

    def metric(self, seconds: float, sz: Sizes, d: dict[str, Any]) -> tuple[float, str]:
        """The headline number for one timing: (value, unit)."""
        if self.key == "W1":
            return seconds / sz.w1_ops * 1e6, "µs/op"
        if self.key == "W2":
            x = d["x"]
            return chain_bytes(x.size, d["ops"], x.itemsize) / seconds / 1e9, "GB/s"
        return seconds * 1e3, "ms/step"


WORKLOADS: dict[str, Workload] = {
    "W1": Workload("W1", "per-op overhead", chain, numpy_floor.chain, 1e-3),
    "W2": Workload("W2", "elementwise bandwidth", chain, numpy_floor.chain, 1e-3),
    "W3": Workload("W3", "MLP training step", mlp, numpy_floor.mlp, 2e-3),
    "W4": Workload("W4", "matmul -> sum", matmul_sum, numpy_floor.matmul_sum, 1e-3),
    "W5": Workload("W5", "double backward", double_backward, numpy_floor.double_backward, 1e-9),
}

ALL_KEYS = ("W1", "W2", "W3", "W4", "W5", "W6", "W7", "CNN", "TLM", "LSTM", "OPT", "build",
            "startup", "extension")


@dataclass(frozen=True)
class Target:
    """A target of issue 6 for transgrad (compiled), as a bound on a paired ratio."""

    text: str
    baseline: str  # "torch" | "numpy" | "" (absolute)
    bound: float
    higher_is_better: bool = False  # compare a throughput / speedup instead of a time ratio


TARGETS: dict[str, Target] = {
    "W1": Target("≤ 0.2× torch", "torch", 0.2),
    "W2": Target("≥ 1.0× torch GB/s", "torch", 1.0, True),
    "W3": Target("≤ 0.9× torch", "torch", 0.9),
    "W4": Target("≤ 1.05× numpy", "numpy", 1.05),
    "W5": Target("≤ 0.5× torch", "torch", 0.5),
    "W6": Target("≤ 0.5× torch time, ≤ torch RSS", "torch", 0.5),
    "W6-1M": Target("completes", "", 0.0),
    "W7": Target("≥ 1.8× speedup", "", 1.8, True),
    # issue 14's model steps (bench/training.py)
    "CNN": Target("≤ 1.0× torch", "torch", 1.0),
    "TLM": Target("≤ 0.8× torch", "torch", 0.8),
    "LSTM": Target("≤ 0.8× torch", "torch", 0.8),
}


def replace(sz: Sizes, **kw: Any) -> Sizes:
    return dataclasses.replace(sz, **kw)
