"""``torch.utils.checkpoint`` for the reference engine: engine-neutral, the very functions of
``transgrad.utils.checkpoint`` (they run on the engine of their tensor arguments)."""

from transgrad.utils.checkpoint import checkpoint, checkpoint_sequential

__all__ = ["checkpoint", "checkpoint_sequential"]
