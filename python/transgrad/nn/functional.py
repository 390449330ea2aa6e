"""``transgrad.nn.functional``: the functional forms (linear, activations, dropout, losses ...).

Engine-neutral (each function finds its engine from its tensor input), so
``transgrad.reference.nn.functional`` exports the very same functions.
"""

from transgrad._nn.functional_public import *  # noqa: F401,F403
from transgrad._nn.functional_public import __all__  # noqa: F401
