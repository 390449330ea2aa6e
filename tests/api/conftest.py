"""The API tests reuse the engine tests' small formulas (tests/engine/formulas_for_tests.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "engine"))
