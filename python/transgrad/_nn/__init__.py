"""nn, written once for both engines.

Engine-neutral code: ``module`` (Module), ``layers`` (the layers), ``functional``, ``utils``,
``parameter`` (what both engines' Parameter share) and ``engine`` (what nn needs from an
engine). The public namespaces ``transgrad.nn`` and ``transgrad.reference.nn`` re-export the
functions as they are and bind the layer classes to their engine with one-line subclasses
(Note [Which engine makes a layer's parameters] in ``module.py``). Tests/nn compares both
engines' training losses step by step.
"""
