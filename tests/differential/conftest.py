import os
import sys

# the sample builders of tests/formulas
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "formulas"))
