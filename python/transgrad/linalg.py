"""``transgrad.linalg``: torch.linalg's names for the linear algebra both engines have.

Input: the engine-neutral functions of ``transgrad._api`` (each finds its engine from its
tensor, so this one module serves ``transgrad`` and ``transgrad.reference``). Output: torch's
``linalg`` names: ``det``, ``slogdet``, ``inv``, ``solve``, ``matmul``, ``cross``, ``vector_norm``.
"""

from transgrad._api.composites import cross, vector_norm  # noqa: F401
from transgrad._api.functions import matmul  # noqa: F401
from transgrad._api.linalg import det, inverse, slogdet, solve  # noqa: F401

inv = inverse

__all__ = ["cross", "det", "inv", "matmul", "slogdet", "solve", "vector_norm"]
