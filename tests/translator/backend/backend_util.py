"""Helpers shared by the back-end tests: the repo root, the fixture modules, a C++ compiler."""

import glob
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = sorted(glob.glob(os.path.join(HERE, "fixtures", "*.py")))
GOLDEN = os.path.join(HERE, "golden")
CXX = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++")


def compile_cpp(args, cwd=None):
    """Run the C++ compiler; returns (returncode, combined output)."""
    proc = subprocess.run([CXX, "-std=c++17", *args], cwd=cwd, capture_output=True, text=True,
                          check=False)
    return proc.returncode, proc.stdout + proc.stderr


def needs_cxx():
    if CXX is None:
        pytest.skip("no C++ compiler")
