"""transgrad: derivative formulas written once in Python, checked, and compiled to C++.

``import transgrad`` is the compiled engine (``transgrad._C``); ``transgrad.reference`` is the
pure-Python engine with the same API. ``transgrad.lang`` is the formula language.
"""

import os as _os

# In a source checkout (PYTHONPATH=python) the translator and the formulas live at the top of
# the repository; an installed wheel has them inside this package.
_here = _os.path.dirname(__file__)
_root = _os.path.dirname(_os.path.dirname(_here))
if not _os.path.isdir(_os.path.join(_here, "translator")) and _os.path.isfile(
    _os.path.join(_root, "translator", "signatures.py")
):
    __path__.append(_root)  # type: ignore[name-defined]

try:
    from . import _C  # noqa: F401
except ImportError as _e:  # not built: the reference engine and the translator still work
    _C = None
    _C_error = _e

if _C is not None:
    from ._compiled import *  # noqa: F401,F403,E402
else:

    def __getattr__(name: str):
        raise AttributeError(
            f"transgrad.{name} needs the compiled engine, which is not built here "
            f"({_C_error}). Build it with `pip install .`, or use `transgrad.reference`."
        )
