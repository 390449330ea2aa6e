"""transgrad: derivative formulas written once in Python, checked, and compiled to C++.

``import transgrad`` is the compiled engine (``transgrad._C``); ``transgrad.reference`` is the
pure-Python engine with the same API. ``transgrad.lang`` is the formula language.
"""

import importlib.util as _util
import os as _os
from types import ModuleType as _ModuleType

# In a source checkout (PYTHONPATH=python) the translator and the formulas live at the top of
# the repository; an installed wheel has them inside this package.
_here = _os.path.dirname(__file__)
_root = _os.path.dirname(_os.path.dirname(_here))
if not _os.path.isdir(_os.path.join(_here, "translator")) and _os.path.isfile(
    _os.path.join(_root, "translator", "signatures.py")
):
    __path__.append(_root)  # type: ignore[name-defined]

# As torch.utils.cmake_prefix_path: find_package(transgrad CONFIG) finds the installed package
# with -DCMAKE_PREFIX_PATH=<this> (transgrad/share/cmake/transgrad/transgradConfig.cmake).
cmake_prefix_path = _os.path.join(_here, "share", "cmake")

_C: _ModuleType | None  # None when the extension is not built; _C_error says why
_C_error: ImportError | None
if _util.find_spec(__name__ + "._C") is None:  # not built: reference engine and translator work
    _C = None
    _C_error = ImportError("the extension module transgrad._C is not built")
else:
    try:  # load OpenBLAS (PyPI's scipy-openblas32) globally, wherever the wheel was installed
        import scipy_openblas32 as _blas

        _blas.get_openblas_config()
    except (ImportError, OSError):  # the rpath next to site-packages may still find it
        pass
    from . import _C  # noqa: F401  (an ImportError here is a broken build: let it surface)

    _C_error = None

if _C is not None:
    from ._compiled import *  # noqa: F401,F403,E402,I001  (first: the API of _C)

    # As torch: ``import transgrad`` then ``transgrad.nn.Linear``, ``transgrad.optim.SGD``,
    # ``transgrad.utils.data.DataLoader``, ``transgrad.cuda.is_available()``.
    from . import (  # noqa: E402,F401
        accelerator,
        amp,
        autograd,
        backends,
        cuda,
        distributions,
        extension,
        func,
        linalg,
        nn,
        optim,
        return_types,
        serialization,
        special,
        testing,
        utils,
    )
    from ._device import device, get_default_device, set_default_device  # noqa: E402,F401
    from .serialization import load, save  # noqa: E402,F401
    from .func import vmap  # noqa: E402,F401  (torch.vmap is torch.func.vmap)
else:

    def __getattr__(name: str):
        raise AttributeError(
            f"transgrad.{name} needs the compiled engine: {_C_error}. "
            "Build it with `pip install .`, or use `transgrad.reference`."
        )
