"""nn, written once for both engines.

Engine-neutral code: ``module`` (Module), ``layers`` (the layers), ``functional``, ``utils``,
and ``parameter`` (what both engines' Parameter share); what nn needs from an engine is the
engine's ``transgrad._backend.Backend``, as for the API and optim. The public namespaces
``transgrad.nn`` and ``transgrad.reference.nn`` re-export the functions as they are and bind the
layer classes to their engine with one-line subclasses (Note [Which engine makes a layer's
parameters] in ``module.py``). Tests/nn compares both engines' training losses step by step.
"""
