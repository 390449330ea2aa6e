"""Library adapters for the benchmarks: one object per library, loaded by name.

Input: a library name (``compiled``, ``reference``, ``numpy``, ``torch``). Output: a ``Lib``
whose ``m`` is the PyTorch-style API module (DESIGN §4) the workloads are written against, or
``None`` for numpy, whose workloads are the hand-written ones in ``numpy_floor``. The adapter
is thin on purpose: it only bridges names that differ (``no_grad``, ``log_softmax``) and how a
numpy array becomes a leaf, so that the same workload code runs on every engine.

Invariant: loading never raises; a library that cannot be loaded comes back with ``skip`` set
to a sentence saying why, and the harness prints it as a note.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ALL_LIBS = ("compiled", "reference", "numpy", "torch")
LABELS = {
    "compiled": "transgrad",
    "reference": "transgrad.reference",
    "numpy": "numpy (hand-written)",
    "torch": "torch",
}


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def ensure_transgrad_importable() -> None:
    """Use an installed transgrad if there is one, else the checkout's ``python/`` directory."""
    try:
        import transgrad  # noqa: F401
    except ImportError:
        sys.path.insert(0, os.path.join(REPO, "python"))


@dataclass
class Lib:
    name: str
    m: Any = None  # API module (torch, transgrad, transgrad.reference)
    skip: str | None = None  # why this library is not measured
    notes: list[str] = field(default_factory=list)
    version: str = ""

    @property
    def label(self) -> str:
        return LABELS[self.name]

    @property
    def is_engine(self) -> bool:
        return self.m is not None

    # -- the thin adapter -----------------------------------------------------------------
    def leaf(self, a: np.ndarray) -> Any:
        """A leaf that requires grad, sharing memory with ``a`` (no copy on the timed path)."""
        return self.m.from_numpy(a).requires_grad_()

    def const(self, a: np.ndarray) -> Any:
        return self.m.from_numpy(a)

    def grad(self, outputs: Any, inputs: list[Any], create_graph: bool = False) -> Any:
        return self.m.autograd.grad(outputs, inputs, create_graph=create_graph)

    def no_grad(self) -> Any:
        ng = getattr(self.m, "no_grad", None) or self.m.autograd.no_grad
        return ng()

    def log_softmax(self, z: Any, dim: int) -> Any:
        f = getattr(self.m, "log_softmax", None)
        if f is not None:
            return f(z, dim=dim)
        return z - self.m.logsumexp(z, dim=dim, keepdim=True)

    def _threads_api(self) -> tuple[Any, Any] | None:
        """(get, set) of the library's intra-op thread count, if it has one."""
        for mod, get, set_ in (
            (self.m, "get_num_threads", "set_num_threads"),
            (getattr(self.m, "_C", None), "_get_num_threads", "_set_num_threads"),
        ):
            if mod is not None and hasattr(mod, get) and hasattr(mod, set_):
                return getattr(mod, get), getattr(mod, set_)
        return None

    def intra_op_threads(self) -> int | None:
        api = self._threads_api() if self.m is not None else None
        return api[0]() if api else None

    def set_intra_op_threads(self, n: int | None) -> None:
        api = self._threads_api() if self.m is not None else None
        if api and n is not None:
            api[1](n)

    def to_numpy(self, t: Any) -> np.ndarray:
        if isinstance(t, np.ndarray):
            return t
        if hasattr(t, "detach"):
            t = t.detach()
        return np.array(t.numpy() if hasattr(t, "numpy") else t, copy=True)


def _load_compiled() -> Lib:
    ensure_transgrad_importable()
    try:
        import transgrad
    except Exception as e:  # noqa: BLE001 - any failure is a skip, reported as such
        return Lib("compiled", skip=f"import transgrad failed: {e}")
    if getattr(transgrad, "_C", None) is None:
        err = getattr(transgrad, "_C_error", "transgrad._C missing")
        return Lib("compiled", skip=f"transgrad._C is not built ({err}); `pip install .` builds it")
    return Lib("compiled", m=transgrad, version=getattr(transgrad, "__version__", ""))


def _load_reference() -> Lib:
    ensure_transgrad_importable()
    try:
        import transgrad.reference as ref

        ref.from_numpy  # noqa: B018 - the API must be there, not just the package
    except Exception as e:  # noqa: BLE001
        return Lib("reference", skip=f"transgrad.reference not usable: {type(e).__name__}: {e}")
    return Lib("reference", m=ref)


def _load_torch() -> Lib:
    try:
        import torch
    except ImportError:
        return Lib("torch", skip="torch is not installed")
    n = cores()
    torch.set_num_threads(n)
    return Lib(
        "torch",
        m=torch,
        version=torch.__version__,
        notes=[f"torch.set_num_threads({n}) (the machine's cores)"],
    )


def load(name: str) -> Lib:
    if name == "numpy":
        return Lib("numpy", version=np.__version__)
    loaders: dict[str, Callable[[], Lib]] = {
        "compiled": _load_compiled,
        "reference": _load_reference,
        "torch": _load_torch,
    }
    if name not in loaders:
        raise SystemExit(f"unknown library {name!r}; choose from {', '.join(ALL_LIBS)}")
    return loaders[name]()


# ---------------------------------------------------------------------------------------------
# What the table header says about the machine: BLAS per library and the environment.

ENV_VARS = (
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
)


def _blas_owner(path: str) -> str:
    p = path.replace("\\", "/")
    if "scipy_openblas32" in p or "/transgrad/" in p:
        return "transgrad"
    if "numpy" in p:
        return "numpy"
    if "torch" in p:
        return "torch"
    return "other"


def blas_info() -> dict[str, list[str]]:
    """BLAS/OpenMP libraries loaded in this process, by the library that brought them."""
    out: dict[str, list[str]] = {}
    try:
        import threadpoolctl

        for d in threadpoolctl.threadpool_info():
            desc = (
                f"{d.get('internal_api')} {d.get('version') or ''} "
                f"({d.get('architecture') or d.get('user_api')}, "
                f"{d.get('num_threads')} threads) {os.path.basename(d.get('filepath', ''))}"
            )
            out.setdefault(_blas_owner(d.get("filepath", "")), []).append(desc.strip())
    except ImportError:
        try:
            cfg = np.show_config(mode="dicts")
            blas = cfg["Build Dependencies"]["blas"]
            out["numpy"] = [
                f"{blas.get('name')} {blas.get('version')} (numpy.show_config; install "
                + "threadpoolctl for the loaded libraries)"
            ]
        except Exception:  # noqa: BLE001 - old numpy: say we do not know
            out["numpy"] = ["unknown (no threadpoolctl; numpy.show_config unavailable)"]
    return out


def env_info() -> dict[str, str]:
    return {k: os.environ.get(k, "(unset)") for k in ENV_VARS}


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


class CpuMeter:
    """How busy the machine was with other processes between two snapshots (Linux /proc/stat).

    others = (CPU time all processes used - CPU time this process and its waited-for children
    used) / (wall time * cores). Benchmarks on a shared machine are only as good as this is low.
    """

    def __init__(self) -> None:
        self.start = self._snap()

    @staticmethod
    def _snap() -> tuple[float, float, float] | None:
        try:
            with open("/proc/stat") as f:
                vals = [int(v) for v in f.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        busy = (sum(vals) - vals[3] - vals[4]) / os.sysconf("SC_CLK_TCK")  # minus idle, iowait
        t = os.times()
        own = t.user + t.system + t.children_user + t.children_system
        return busy, own, time.monotonic()

    def others(self) -> float | None:
        end = self._snap()
        if self.start is None or end is None or end[2] <= self.start[2]:
            return None
        busy = (end[0] - self.start[0]) - (end[1] - self.start[1])
        return max(busy, 0.0) / ((end[2] - self.start[2]) * cores())
