"""transgrad's translator: formula modules -> checked model -> generated C++.

Front end (used at build time and by the reference engine at import): ``source``, the only
code that reads libcst (``parse`` -> ``lower``, the module alone -> ``fence``, on lowering's
types), then passes over the IR: ``captures`` (the capture rule) -> ``saves`` (the node
members); ``frontend.load_module`` / ``frontend.check_callable`` drive them, and each formula
is analysed once (Note [One analysis] in frontend.py). Back end (build time only): ``verify``,
then the emitters, on the front end's IR. Run it with ``python -m translator
check|emit|show`` from a checkout, or ``python -m transgrad.translator`` when installed.

This package imports only the standard library and libcst, with relative imports, so that it
runs both from a checkout and installed inside ``transgrad``.
"""
