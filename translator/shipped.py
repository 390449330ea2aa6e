"""Where the shipped formulas are: ``<repo>/formulas`` in a checkout, ``transgrad/formulas``
when installed. The context a user's formula module is checked and emitted in (its
``ops.NAME`` resolve against these), for ``check``, ``show``, ``emit`` and ``import-yaml``;
and their signature table (``shipped_signatures``), what lowering a user's module alone reads
of them.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re

from .source.lower_env import Signatures
from .sources import find_root, parsed_module


def shipped_formulas() -> str:
    """The formulas directory beside this package: ``<repo>/formulas`` in a checkout,
    ``transgrad/formulas`` when installed (the translator is ``transgrad/translator``)."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "formulas")


def shipped_paths() -> list[str]:
    """The shipped formula modules' paths, sorted."""
    root = shipped_formulas()
    names = sorted(os.listdir(root)) if os.path.isdir(root) else []
    return [os.path.join(root, f) for f in names if f.endswith(".py") and f != "__init__.py"]


@functools.lru_cache(maxsize=None)
def shipped_signatures() -> Signatures:
    """The shipped formulas' ``Signatures`` (Note [Signatures as data] in lower_env.py): read
    from the build's ``_formula_facts.py`` installed beside ``shipped_formulas()`` (no parse,
    no libcst), or, in a checkout (no facts there), from the shipped modules themselves."""
    facts = os.path.join(os.path.dirname(shipped_formulas()), "_formula_facts.py")
    if os.path.isfile(facts):
        spec = importlib.util.spec_from_file_location("_translator_shipped_facts", facts)
        assert spec is not None and spec.loader is not None
        table = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(table)
        if hasattr(table, "SIGNATURES"):  # a build older than the table: parse instead
            return Signatures.of_facts(table.SIGNATURES, table.HELPERS)
    return Signatures.of([parsed_module(p, find_root(p)) for p in shipped_paths()])  # a checkout


def shipped_module(name: str) -> str | None:
    """The shipped formula module called ``name``, or the one defining formula ``name``."""
    root = shipped_formulas()
    if os.path.isfile(os.path.join(root, name + ".py")):
        return os.path.join(root, name + ".py")
    pattern = re.compile(rf"^def {re.escape(name)}\(", re.MULTILINE)
    for f in sorted(os.listdir(root)) if os.path.isdir(root) else ():
        path = os.path.join(root, f)
        if f.endswith(".py"):
            with open(path, encoding="utf-8") as text:
                if pattern.search(text.read()):
                    return path
    return None
