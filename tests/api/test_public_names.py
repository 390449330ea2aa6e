"""Issue #12 item 8: every shipped formula is reachable by torch's public names, on both
engines: ``tg.NAME`` where torch has ``torch.NAME``, a Tensor method where torch has one, and
``tg.nn.functional.NAME`` where torch has it there (checked against torch when installed)."""

import pytest
from transgrad import lang

# (namespace, name) where torch's name is not this formula's public form, and why
NOT_THE_SAME = {
    ("torch", "solve"): "removed from torch (calling it raises); ours is torch.linalg.solve",
    ("Tensor", "solve"): "removed from torch (calling it raises); ours is torch.linalg.solve",
    ("torch", "binary_cross_entropy_with_logits"): "torch's undocumented aten binding takes "
    "the reduction as an int enum; the public form is nn.functional's, which we have",
    ("F", "unfold"): "a different op: torch.nn.functional.unfold is im2col, while the "
    "formula unfold is Tensor.unfold(dimension, size, step)",
    ("torch", "lstm_cell"): "a different op: torch.lstm_cell takes the input, states and "
    "weights; the formula lstm_cell takes the pre-activation gates (nn.LSTM, nn.LSTMCell)",
    ("torch", "gru_cell"): "a different op: torch.gru_cell takes the input, state and weights; "
    "the formula gru_cell takes the two projections (nn.GRU, nn.GRUCell)",
}


def _missing(tg, torch):
    lang.load_builtin_formulas()
    t = torch.ones(1)
    x = tg.ones(1)
    places = {"torch": (torch, tg), "Tensor": (t, x),
              "F": (torch.nn.functional, tg.nn.functional)}
    missing = []
    for name in sorted(lang.REGISTRY):
        for where, (theirs, ours) in places.items():
            if (where, name) in NOT_THE_SAME or not callable(getattr(theirs, name, None)):
                continue
            if not callable(getattr(ours, name, None)):
                missing.append(f"{where}.{name}")
    return missing


def test_every_formula_has_torchs_public_names(engine):
    torch = pytest.importorskip("torch")
    assert _missing(engine, torch) == []


def test_the_exceptions_are_still_needed(ref):
    torch = pytest.importorskip("torch")
    lang.load_builtin_formulas()
    for where, name in NOT_THE_SAME:
        assert name in lang.REGISTRY, name
        theirs = {"torch": torch, "Tensor": torch.Tensor, "F": torch.nn.functional}[where]
        assert hasattr(theirs, name), f"{where}.{name}: torch no longer has it"


def test_new_public_names_behave_as_torchs(engine):
    torch = pytest.importorskip("torch")
    import numpy as np

    tg = engine
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    x, tx = tg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for name, args in (("diagonal_scatter", (np.ones(3),)), ("select_scatter", (np.ones(4), 0, 1)),
                       ("slice_scatter", (np.ones((3, 2)), 1, 0, 2))):
        src, rest = args[0], args[1:]
        ours = getattr(x, name)(tg.tensor(src), *rest)
        theirs = getattr(tx, name)(torch.tensor(src), *rest)
        np.testing.assert_allclose(np.asarray(ours.detach()), theirs.detach().numpy())
    w = np.linspace(0.5, 1.5, 4)
    ours = tg.layer_norm(x, (4,), tg.tensor(w), None, 1e-5, True)
    theirs = torch.layer_norm(tx, (4,), torch.tensor(w), None, 1e-5, True)
    np.testing.assert_allclose(np.asarray(ours.detach()), theirs.detach().numpy(), atol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad), tx.grad.numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="normalized_shape"):
        tg.layer_norm(x, (3,))
    padded = tg.nn.functional.pad(x, (1, 0), value=2.0)
    expected = torch.nn.functional.pad(tx, (1, 0), value=2.0)
    np.testing.assert_allclose(np.asarray(padded.detach()), expected.detach().numpy())
