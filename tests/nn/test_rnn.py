"""Recurrent layers (RNN, LSTM, GRU and their cells) and packed sequences against torch on both
engines: state-dict keys and shapes, outputs, final states, gradients of the input, the initial
states and every parameter, from the same weights (loaded from a torch state dict)."""

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib

CONFIGS = [
    ("RNN", {}),
    ("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True}),
    ("LSTM", {}),
    ("LSTM", {"num_layers": 2, "batch_first": True}),
    ("LSTM", {"bidirectional": True, "proj_size": 3}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "bias": False}),
    ("GRU", {}),
    ("GRU", {"num_layers": 3, "bidirectional": True, "batch_first": True}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'default'}"
       for name, kw in CONFIGS]


def _pair(lib, name, kw, input_size=4, hidden=5):
    """(ours, torch's) with torch's weights copied into ours."""
    torch = lib.torch
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(input_size, hidden, **kw).double()
    ours = getattr(lib.nn, name)(input_size, hidden, **kw, dtype=lib.tg.float64)
    ours.load_state_dict({k: lib.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.fixture
def both(lib):
    lib.torch = torch_lib().tg
    return lib


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=tol, atol=tol)


def _states(out):
    """The final states as a list (LSTM returns (h, c))."""
    return list(out) if isinstance(out, tuple) else [out]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_parameters_as_torch(both, name, kw):
    ours, theirs = _pair(both, name, kw)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
@pytest.mark.parametrize("with_h0", [False, True], ids=["zeros", "h0"])
def test_forward_backward_as_torch(both, name, kw, with_h0):
    tg, torch = both.tg, both.torch
    ours, theirs = _pair(both, name, kw)
    rng = np.random.default_rng(1)
    L, N = 5, 3
    x = rng.standard_normal((N, L, 4) if kw.get("batch_first") else (L, N, 4))
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    hsize = kw.get("proj_size") or 5
    h0 = [rng.standard_normal((layers, N, hsize))]
    if name == "LSTM":
        h0.append(rng.standard_normal((layers, N, 5)))
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    th = [torch.tensor(h, requires_grad=True) for h in h0]
    gh = [tg.tensor(h, requires_grad=True) for h in h0]
    targ = (tuple(th) if name == "LSTM" else th[0]) if with_h0 else None
    garg = (tuple(gh) if name == "LSTM" else gh[0]) if with_h0 else None
    tout, tfin = theirs(tx, targ)
    gout, gfin = ours(gx, garg)
    _close(gout, tout)
    for a, b in zip(_states(gfin), _states(tfin)):
        _close(a, b)
    # a loss reading the outputs and every final state, weighted so no gradient is trivial
    w = rng.standard_normal(tuple(tout.shape))
    tloss = (tout * torch.tensor(w)).sum() + sum((s ** 2).sum() for s in _states(tfin))
    gloss = (gout * tg.tensor(w)).sum() + sum((s ** 2).sum() for s in _states(gfin))
    tloss.backward()
    gloss.backward()
    _close(gx.grad, tx.grad)
    if with_h0:
        for a, b in zip(gh, th):
            _close(a.grad, b.grad)
    tparams = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        _close(p.grad, tparams[n].grad)


@pytest.mark.parametrize("name,kw", CONFIGS[::2], ids=IDS[::2])
def test_unbatched_as_torch(both, name, kw):
    tg, torch = both.tg, both.torch
    ours, theirs = _pair(both, name, kw)
    x = np.random.default_rng(2).standard_normal((6, 4))
    tout, tfin = theirs(torch.tensor(x))
    gout, gfin = ours(tg.tensor(x))
    assert tuple(gout.shape) == tuple(tout.shape)
    _close(gout, tout)
    for a, b in zip(_states(gfin), _states(tfin)):
        assert tuple(a.shape) == tuple(b.shape)
        _close(a, b)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_batch_size_zero_as_torch(both, name):
    tg, torch = both.tg, both.torch
    ours, theirs = _pair(both, name, {"num_layers": 2})
    tout, tfin = theirs(torch.zeros(4, 0, 4, dtype=torch.float64))
    gout, gfin = ours(tg.zeros(4, 0, 4, dtype=tg.float64))
    assert tuple(gout.shape) == tuple(tout.shape)
    assert [tuple(s.shape) for s in _states(gfin)] == [tuple(s.shape) for s in _states(tfin)]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_packed_as_torch(both, name, kw, enforce_sorted):
    """Packed input of different lengths: padded outputs, final states (each sequence's own
    last step, both directions) and gradients match torch."""
    tg, torch = both.tg, both.torch
    kw = {k: v for k, v in kw.items() if k != "batch_first"}
    ours, theirs = _pair(both, name, kw)
    lengths = [6, 4, 4, 1] if enforce_sorted else [4, 6, 1, 4]
    x = np.random.default_rng(3).standard_normal((6, 4, 4))
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    tpack = torch.nn.utils.rnn.pack_padded_sequence(tx, lengths, enforce_sorted=enforce_sorted)
    gpack = both.nn.utils.rnn.pack_padded_sequence(gx, lengths, enforce_sorted=enforce_sorted)
    _close(gpack.data, tpack.data)
    assert to_numpy(gpack.batch_sizes).tolist() == tpack.batch_sizes.tolist()
    tout, tfin = theirs(tpack)
    gout, gfin = ours(gpack)
    tpad, tlen = torch.nn.utils.rnn.pad_packed_sequence(tout, total_length=7)
    gpad, glen = both.nn.utils.rnn.pad_packed_sequence(gout, total_length=7)
    assert to_numpy(glen).tolist() == tlen.tolist()
    _close(gpad, tpad)
    for a, b in zip(_states(gfin), _states(tfin)):
        _close(a, b)
    w = np.random.default_rng(4).standard_normal(tuple(tpad.shape))
    ((tpad * torch.tensor(w)).sum() + sum(s.sum() for s in _states(tfin))).backward()
    ((gpad * tg.tensor(w)).sum() + sum(s.sum() for s in _states(gfin))).backward()
    _close(gx.grad, tx.grad)
    tparams = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        _close(p.grad, tparams[n].grad)


def test_pad_and_pack_sequence_as_torch(both):
    tg, torch = both.tg, both.torch
    U = both.nn.utils.rnn
    rng = np.random.default_rng(5)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 5, 1)]
    for batch_first in (False, True):
        for side in ("right", "left"):
            a = U.pad_sequence([tg.tensor(s) for s in seqs], batch_first, -1.0, side)
            b = torch.nn.utils.rnn.pad_sequence([torch.tensor(s) for s in seqs], batch_first,
                                                -1.0, side)
            _close(a, b)
    gp = U.pack_sequence([tg.tensor(s) for s in seqs], enforce_sorted=False)
    tp = torch.nn.utils.rnn.pack_sequence([torch.tensor(s) for s in seqs], enforce_sorted=False)
    _close(gp.data, tp.data)
    assert to_numpy(gp.sorted_indices).tolist() == tp.sorted_indices.tolist()
    assert to_numpy(gp.unsorted_indices).tolist() == tp.unsorted_indices.tolist()
    for a, b in zip(U.unpack_sequence(gp), torch.nn.utils.rnn.unpack_sequence(tp)):
        _close(a, b)
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        U.pack_sequence([tg.tensor(s) for s in seqs])


CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
         ("LSTMCell", {}), ("GRUCell", {}), ("GRUCell", {"bias": False})]


@pytest.mark.parametrize("name,kw", CELLS, ids=[f"{n}{kw}" for n, kw in CELLS])
@pytest.mark.parametrize("batched", [True, False])
def test_cells_as_torch(both, name, kw, batched):
    tg, torch = both.tg, both.torch
    ours, theirs = _pair(both, name, kw)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(6)
    lead = (3,) if batched else ()
    x = rng.standard_normal(lead + (4,))
    hs = [rng.standard_normal(lead + (5,)) for _ in range(2 if name == "LSTMCell" else 1)]
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    th = [torch.tensor(h, requires_grad=True) for h in hs]
    gh = [tg.tensor(h, requires_grad=True) for h in hs]
    tout = _states(theirs(tx, tuple(th) if name == "LSTMCell" else th[0]))
    gout = _states(ours(gx, tuple(gh) if name == "LSTMCell" else gh[0]))
    for a, b in zip(gout, tout):
        _close(a, b)
    sum((s * s).sum() for s in tout).backward()
    sum((s * s).sum() for s in gout).backward()
    _close(gx.grad, tx.grad)
    for a, b in zip(gh, th):
        _close(a.grad, b.grad)
    tparams = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        _close(p.grad, tparams[n].grad)
    # no state: zeros, as torch
    for a, b in zip(_states(ours(gx)), _states(theirs(tx))):
        _close(a, b)


def test_errors_as_torch(both):
    torch = both.torch
    cases = [
        (lambda nn: nn.LSTM(4, 5)(_zeros(nn, 2, 3, 3)), RuntimeError,
         "input.size(-1) must be equal to input_size. Expected 4, got 3"),
        (lambda nn: nn.GRU(4, 5)(_zeros(nn, 1, 2, 3, 4)), ValueError,
         "GRU: Expected input to be 2D or 3D, got 4D instead"),
        (lambda nn: nn.RNN(4, 5)(_zeros(nn, 2, 3, 4), _zeros(nn, 2, 3, 5)), RuntimeError,
         "Expected hidden size (1, 3, 5), got [2, 3, 5]"),
        (lambda nn: nn.RNN(4, 5)(_zeros(nn, 2, 4), _zeros(nn, 1, 1, 5)), RuntimeError,
         "For unbatched 2-D input, hx should also be 2-D but got 3-D tensor"),
        (lambda nn: nn.LSTM(4, 5, proj_size=5), ValueError,
         "proj_size has to be smaller than hidden_size"),
        (lambda nn: nn.GRU(4, 5, proj_size=2), ValueError,
         "proj_size argument is only supported for LSTM, not RNN or GRU"),
        (lambda nn: nn.RNN(4, 5, nonlinearity="gelu"), ValueError,
         "Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'."),
        (lambda nn: nn.LSTM(4, 5, dropout=1.5), ValueError,
         "dropout should be a number in range [0, 1]"),
        (lambda nn: nn.LSTMCell(4, 5)(_zeros(nn, 1, 2, 4)), ValueError,
         "LSTMCell: Expected input to be 1D or 2D, got 3D instead"),
    ]
    for make, exc, words in cases:
        for nn in (torch.nn, both.nn):
            with pytest.raises(exc) as info:
                make(nn)
            assert words in str(info.value), (nn, str(info.value))


def _zeros(nn, *shape):
    """Zeros of float32 in the engine of ``nn`` (torch or ours)."""
    import importlib

    return importlib.import_module(nn.__name__.rsplit(".", 1)[0]).zeros(*shape)


def test_dropout_between_layers_only_in_training(both):
    tg = both.tg
    tg.manual_seed(0)
    m = both.nn.LSTM(4, 5, num_layers=2, dropout=0.5, dtype=tg.float64)
    x = tg.tensor(np.random.default_rng(7).standard_normal((3, 2, 4)))
    m.eval()
    a, b = m(x)[0], m(x)[0]
    _close(a, b, 0)
    m.train()
    assert not np.allclose(to_numpy(m(x)[0]), to_numpy(a))
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        both.nn.GRU(4, 5, dropout=0.2)


def test_init_range_as_torch(both):
    """All parameters drawn from U(-1/sqrt(hidden), 1/sqrt(hidden))."""
    m = both.nn.LSTM(3, 16, num_layers=2, bidirectional=True)
    vals = np.concatenate([to_numpy(p).ravel() for p in m.parameters()])
    assert np.abs(vals).max() <= 0.25
    assert np.abs(vals).max() > 0.2 and abs(vals.mean()) < 0.02


def test_fused_lstm_cell_first_and_second_order_as_torch(both):
    """ops.lstm_cell against torch's autograd of the cell written out: values, the VJP, and the
    VJP of that VJP (which runs lstm_cell_backward's own backward)."""
    tg, torch = both.tg, both.torch
    rng = np.random.default_rng(8)
    arrays = [rng.uniform(-3, 3, (3, 8)), rng.standard_normal((3, 2))]
    ups = [rng.standard_normal((3, 2)) for _ in range(2)]

    def theirs(gates, c):
        i, f, g, o = gates.chunk(4, -1)
        c_new = f.sigmoid() * c + i.sigmoid() * g.tanh()
        return o.sigmoid() * c_new.tanh(), c_new

    results = []
    for lib, cell in ((tg, tg.ops.lstm_cell), (torch, theirs)):
        x = [lib.tensor(a, requires_grad=True) for a in arrays]
        u = [lib.tensor(a) for a in ups]
        h, c_new = cell(*x)
        first = lib.autograd.grad((h * u[0]).sum() + (c_new * u[1]).sum(), x, create_graph=True)
        second = lib.autograd.grad((first[0] ** 2).sum() + (first[1] ** 3).sum(), x)
        results.append([h, c_new, *first, *second])
    for a, b in zip(*results):
        _close(a, b)
