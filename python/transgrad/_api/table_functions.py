"""The public functions of the family modules, gathered for the engines' namespaces: one import
line in ``_compiled.py`` and ``reference/__init__.py``.

Input: the families of torch's derivative table (issue 15: pointwise.py, reductions.py,
linalg.py, scatter.py) and the everyday composites and utilities (shape_functions.py,
search_functions.py, predicates.py, statistics.py). Output:
``__all__`` (their union) and the names themselves. Each function keeps its home module (the
namespace test checks ``__module__``); this module only lists them.
"""

from __future__ import annotations

from transgrad._api import composites as _composites
from transgrad._api import counting as _counting
from transgrad._api import factorizations as _factorizations
from transgrad._api import linalg as _linalg
from transgrad._api import pointwise as _pointwise
from transgrad._api import predicates as _predicates
from transgrad._api import reductions as _reductions
from transgrad._api import scatter as _scatter
from transgrad._api import search_functions as _search_functions
from transgrad._api import shape_functions as _shape_functions
from transgrad._api import statistics as _statistics
from transgrad._api.composites import *  # noqa: F401,F403
from transgrad._api.counting import *  # noqa: F401,F403
from transgrad._api.factorizations import *  # noqa: F401,F403
from transgrad._api.linalg import *  # noqa: F401,F403
from transgrad._api.pointwise import *  # noqa: F401,F403
from transgrad._api.predicates import *  # noqa: F401,F403
from transgrad._api.reductions import *  # noqa: F401,F403
from transgrad._api.scatter import *  # noqa: F401,F403
from transgrad._api.search_functions import *  # noqa: F401,F403
from transgrad._api.shape_functions import *  # noqa: F401,F403
from transgrad._api.statistics import *  # noqa: F401,F403

FAMILIES = (_pointwise, _reductions, _linalg, _scatter, _composites, _counting,
            _shape_functions, _search_functions, _predicates, _statistics, _factorizations)
__all__ = sorted(name for module in FAMILIES for name in module.__all__)
