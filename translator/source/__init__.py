"""Reading formula modules: the translator's only code that reads libcst.

``parse`` (source -> ``model.Module``, with ``literals`` and ``syntax``), ``lower`` (model ->
``ir.Module``: the one lowering and the one type inference, with ``lower_env``'s types, scopes
and signature table), ``fence`` (the formula language's subset, reading lowering's types) and
``scopes`` (the capture rule's facts of the source, as plain data). Everything after them (the
capture rule, the node members, provenance, the in-place verdicts, verify, the emitters) reads
the IR and the model's plain fields; tests/translator/test_imports.py keeps libcst out of
every other module.
"""
