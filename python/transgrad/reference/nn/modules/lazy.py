"""``transgrad.reference.nn.modules.lazy``: the lazy-module mixin at torch's path
(``torch.nn.modules.lazy``).

``LazyModuleMixin`` is engine-neutral (``transgrad._nn.modules.lazy``): the lazy layers that use
it are bound in linear.py and conv.py; the twin file is ``transgrad.nn.modules.lazy``.
"""

from transgrad._nn.modules.lazy import LazyModuleMixin

__all__ = ["LazyModuleMixin"]
