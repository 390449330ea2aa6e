"""DLPack exchange, both engines: ``Tensor.__dlpack__`` / ``__dlpack_device__`` and the
``from_dlpack`` factory (bound per engine in factories.py).

Input: a transgrad tensor (export), or any object with ``__dlpack__`` (torch, numpy, JAX, ...;
import). Output: a DLPack capsule, or a tensor of the calling engine sharing the producer's memory.

Note [DLPack through numpy]
~~~~~~~~~~~~~~~~~~~~~~~~~~~
Both engines already expose a tensor as a zero-copy numpy array whose base keeps the tensor's
storage alive (the compiled engine: a capsule holding the storage; the reference engine: the
array itself), and wrap a numpy array without copying (``from_numpy``, which marks a read-only
array's storage read-only). numpy implements DLPack 1.0 (versioned capsules with the read-only
flag, the consumer's deleter releasing the array), so both directions go through it: no capsule
code of our own, the same behaviour on both engines. The limits are numpy's: bfloat16 has no
numpy DLPack code (a BufferError/TypeError saying so), and a read-only tensor is exported only to
consumers asking for DLPack >= 1.0 (older ones cannot be told it is read-only: BufferError).
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from transgrad._dtypes import bfloat16

_KDLCPU = 1  # DLDeviceType of the CPU


def _array(t: Any) -> np.ndarray:
    """The tensor's memory as a numpy array (zero-copy; keeps the storage alive)."""
    if t.dtype == bfloat16:
        raise BufferError("DLPack export of bfloat16 tensors is not supported (numpy has no "
                          "DLPack code for it); export t.float() or share t.numpy() instead")
    return np.asarray(t.detach())


def __dlpack__(self: Any, *, stream: Any = None, max_version: Optional[Tuple[int, int]] = None,
               dl_device: Any = None, copy: Optional[bool] = None) -> Any:
    """A DLPack capsule of this tensor's memory (torch's signature). As torch: a tensor that
    requires grad is refused (its consumer would bypass autograd)."""
    if self.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and stream != -1:
        raise BufferError(f"stream={stream!r}: transgrad tensors live on the CPU, which has no "
                          "streams (pass stream=None)")
    if dl_device is not None and tuple(dl_device) != (_KDLCPU, 0):
        raise BufferError(f"dl_device={dl_device!r}: transgrad tensors live on the CPU (1, 0)")
    kwargs: dict = {"copy": copy}
    if max_version is not None:
        kwargs["max_version"] = max_version
    return _array(self).__dlpack__(**kwargs)


def __dlpack_device__(self: Any) -> Tuple[int, int]:
    return (_KDLCPU, 0)


def array_from_dlpack(obj: Any) -> np.ndarray:
    """The memory of a DLPack producer as a numpy array (zero-copy)."""
    if not hasattr(obj, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ (a tensor or array of "
                        f"a DLPack library), got {type(obj).__name__}")
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (_KDLCPU, 0)
    if tuple(device)[0] != _KDLCPU:
        raise RuntimeError(f"from_dlpack: the producer's memory is on DLPack device {device}; "
                           "transgrad runs on the CPU: move it to the CPU first")
    try:
        return np.from_dlpack(obj)
    except (RuntimeError, BufferError, TypeError) as e:
        raise type(e)(f"from_dlpack: {e} (transgrad takes the DLPack dtypes numpy reads: bool, "
                      "(u)int8-64, float16-64, complex; not bfloat16)") from None
