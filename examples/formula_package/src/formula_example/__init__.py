"""formula_example: softsign and scaled_square as compiled transgrad ops.

``formula_example.softsign(x)`` runs the C++ built from ``activations.py`` on transgrad's
compiled engine; ``formula_example.reference()`` gives the same ops on transgrad.reference.
"""

import os

import transgrad  # loads libtransgrad.so, which _ops links to

from ._ops import scaled_square, softsign

FORMULAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "activations.py")


def reference():
    """The same ops on the reference engine (transgrad.reference.extension)."""
    import transgrad.reference.extension

    return transgrad.reference.extension.load("formula_example", [FORMULAS])


__all__ = ["FORMULAS", "scaled_square", "reference", "softsign", "transgrad"]
