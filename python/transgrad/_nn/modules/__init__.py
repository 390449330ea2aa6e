"""Engine-neutral layers, one file per kind as torch.nn.modules (bound to an engine in
``transgrad/nn/modules/`` and ``transgrad/reference/nn/modules/``)."""
