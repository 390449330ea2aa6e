"""transgrad's translator: formula modules -> checked model -> generated C++.

Front end (used at build time and by the reference engine at import):
``parse.parse_module`` -> ``fence.check_fence`` -> ``lower.lower_module`` (the module alone)
-> ``captures.collect_captures`` (read off that IR), driven by ``frontend.load_module`` /
``frontend.check_callable``. Back end (build time only): lower,
verify, emit. Run it with ``python -m translator check|emit|show`` from a checkout, or
``python -m transgrad.translator`` when installed.

This package imports only the standard library and libcst, with relative imports, so that it
runs both from a checkout and installed inside ``transgrad``.
"""
