"""scaled_dot_product_attention, MultiheadAttention and the transformer layers against torch on
both engines: values, gradients of the inputs and of every parameter, state-dict keys and
shapes, repr, from the same weights (loaded from a torch state dict)."""

import numpy as np
import pytest
from _nnhelpers import to_numpy, torch_lib


@pytest.fixture
def both(lib):
    lib.torch = torch_lib().tg
    return lib


def _close(a, b, tol=1e-10):
    np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=tol, atol=tol)


def _inputs(both, arrays):
    """The same arrays as leaf tensors of ours and of torch's (bool arrays as masks)."""
    ours, theirs = [], []
    for a in arrays:
        if a is None or a.dtype == bool:
            ours.append(None if a is None else both.tg.tensor(a))
            theirs.append(None if a is None else both.torch.tensor(a))
        else:
            ours.append(both.tg.tensor(a, requires_grad=True))
            theirs.append(both.torch.tensor(a, requires_grad=True))
    return ours, theirs


def _check_grads(both, ours_out, theirs_out, ours_in, theirs_in, seed=0):
    w = np.random.default_rng(seed).standard_normal(tuple(theirs_out.shape))
    (ours_out * both.tg.tensor(w)).sum().backward()
    (theirs_out * both.torch.tensor(w)).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        if b is not None and b.requires_grad:
            _close(a.grad, b.grad)


# -- scaled_dot_product_attention ---------------------------------------------------------------

SDPA = [
    ("plain", {}),
    ("causal", {"is_causal": True}),
    ("scale", {"scale": 0.37}),
    ("bool_mask", {"mask": "bool"}),
    ("float_mask", {"mask": "float"}),
    ("gqa", {"enable_gqa": True, "kv_heads": 2}),
    ("rect", {"S": 7}),
]


@pytest.mark.parametrize("name,kw", SDPA, ids=[n for n, _ in SDPA])
def test_sdpa_as_torch(both, name, kw):
    kw = dict(kw)
    rng = np.random.default_rng(1)
    L, S = 5, kw.pop("S", 5)
    heads, kv_heads = 4, kw.pop("kv_heads", 4)
    q = rng.standard_normal((2, heads, L, 8))
    k = rng.standard_normal((2, kv_heads, S, 8))
    v = rng.standard_normal((2, kv_heads, S, 6))
    mask = kw.pop("mask", None)
    m = None
    if mask == "bool":
        m = rng.random((L, S)) > 0.3
        m[:, 0] = True                     # every query sees some key
    elif mask == "float":
        m = rng.standard_normal((2, 1, L, S))
    ours_in, theirs_in = _inputs(both, [q, k, v, m])
    a = both.F.scaled_dot_product_attention(*ours_in[:3], attn_mask=ours_in[3], **kw)
    b = both.torch.nn.functional.scaled_dot_product_attention(*theirs_in[:3],
                                                              attn_mask=theirs_in[3], **kw)
    _close(a, b)
    _check_grads(both, a, b, ours_in, theirs_in)


def test_sdpa_unbatched_and_errors(both):
    tg, torch = both.tg, both.torch
    rng = np.random.default_rng(2)
    q, k, v = (rng.standard_normal((3, 4)) for _ in range(3))
    _close(both.F.scaled_dot_product_attention(tg.tensor(q), tg.tensor(k), tg.tensor(v)),
           torch.nn.functional.scaled_dot_product_attention(torch.tensor(q), torch.tensor(k),
                                                            torch.tensor(v)))
    mask = np.ones((3, 3), dtype=bool)
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when "
                                           "is_causal=True"):
        both.F.scaled_dot_product_attention(tg.tensor(q), tg.tensor(k), tg.tensor(v),
                                            attn_mask=tg.tensor(mask), is_causal=True)


def test_sdpa_dropout_is_seeded_and_scaled(both):
    tg = both.tg
    q = tg.tensor(np.random.default_rng(3).standard_normal((2, 6, 4)))
    tg.manual_seed(5)
    a = both.F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    tg.manual_seed(5)
    b = both.F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    _close(a, b, 0)
    assert not np.allclose(to_numpy(a), to_numpy(both.F.scaled_dot_product_attention(q, q, q)))


def test_sdpa_gradgradcheck(both):
    tg = both.tg
    rng = np.random.default_rng(4)
    args = [tg.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True) for _ in range(3)]

    def f(q, k, v):
        return both.F.scaled_dot_product_attention(q, k, v, is_causal=True)

    assert tg.autograd.gradcheck(f, args)
    assert tg.autograd.gradgradcheck(f, args)


# -- MultiheadAttention -------------------------------------------------------------------------

MHA = [
    ("default", {}, {}),
    ("batch_first", {"batch_first": True}, {}),
    ("kdim_vdim", {"kdim": 5, "vdim": 3}, {}),
    ("no_bias", {"bias": False}, {}),
    ("bias_kv_zero_attn", {"add_bias_kv": True, "add_zero_attn": True}, {"kpm": True}),
    ("kpm_bool_mask", {}, {"kpm": True, "mask": "bool"}),
    ("float_mask_3d", {}, {"mask": "float3"}),
    ("per_head_weights", {}, {"average_attn_weights": False}),
    ("no_weights", {}, {"need_weights": False, "mask": "float2"}),
]


def _mha_pair(both, kw, E=8, heads=2):
    torch = both.torch
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(E, heads, **kw).double()
    ours = both.nn.MultiheadAttention(E, heads, **kw, dtype=both.tg.float64)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: both.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("name,kw,call", MHA, ids=[n for n, _, _ in MHA])
def test_multihead_attention_as_torch(both, name, kw, call):
    ours, theirs = _mha_pair(both, kw)
    rng = np.random.default_rng(5)
    L, S, N, E = 4, 6, 3, 8
    bf = kw.get("batch_first", False)
    shape = (lambda n, d: (N, n, d)) if bf else (lambda n, d: (n, N, d))
    q = rng.standard_normal(shape(L, E))
    k = rng.standard_normal(shape(S, kw.get("kdim", E)))
    v = rng.standard_normal(shape(S, kw.get("vdim", E)))
    kpm = None
    if call.get("kpm"):
        kpm = np.zeros((N, S), dtype=bool)
        kpm[0, -2:] = True
        kpm[2, -1] = True
    mask = {"bool": lambda: np.triu(np.ones((L, S), dtype=bool), 3),
            "float2": lambda: rng.standard_normal((L, S)),
            "float3": lambda: rng.standard_normal((N * 2, L, S))}.get(call.get("mask"),
                                                                      lambda: None)()
    ours_in, theirs_in = _inputs(both, [q, k, v, kpm, mask])
    extra = {n: call[n] for n in ("need_weights", "average_attn_weights") if n in call}
    a, aw = ours(*ours_in[:3], key_padding_mask=ours_in[3], attn_mask=ours_in[4], **extra)
    b, bw = theirs(*theirs_in[:3], key_padding_mask=theirs_in[3], attn_mask=theirs_in[4],
                   **extra)
    _close(a, b)
    if bw is None:
        assert aw is None
    else:
        _close(aw, bw)
    _check_grads(both, a, b, ours_in, theirs_in)
    tparams = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        _close(p.grad, tparams[n].grad)


def test_multihead_attention_unbatched_as_torch(both):
    ours, theirs = _mha_pair(both, {})
    x = np.random.default_rng(6).standard_normal((5, 8))
    a, aw = ours(*[both.tg.tensor(x)] * 3)
    b, bw = theirs(*[both.torch.tensor(x)] * 3)
    assert tuple(a.shape) == tuple(b.shape) and tuple(aw.shape) == tuple(bw.shape)
    _close(a, b)
    _close(aw, bw)


def test_multihead_attention_errors_as_torch(both):
    for nn in (both.torch.nn, both.nn):
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            nn.MultiheadAttention(7, 2)


# -- transformer layers -------------------------------------------------------------------------

def _pair(both, name, *args, **kw):
    torch = both.torch
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kw).double()
    ours = getattr(both.nn, name)(*args, **kw, dtype=both.tg.float64)
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in theirs.state_dict().items()]
    ours.load_state_dict({k: both.tg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return ours, theirs


LAYERS = [
    ("post_norm", {}),
    ("norm_first_gelu", {"norm_first": True, "activation": "gelu"}),
    ("batch_first", {"batch_first": True}),
]


@pytest.mark.parametrize("name,kw", LAYERS, ids=[n for n, _ in LAYERS])
def test_encoder_layer_and_stack_as_torch(both, name, kw):
    ours, theirs = _pair(both, "TransformerEncoderLayer", 8, 2, 16, dropout=0.0, **kw)
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 5, 8) if kw.get("batch_first") else (5, 3, 8))
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[1, -2:] = True
    ours_in, theirs_in = _inputs(both, [x, kpm])
    mask_o = both.nn.Transformer.generate_square_subsequent_mask(5, dtype=both.tg.float64)
    mask_t = both.torch.nn.Transformer.generate_square_subsequent_mask(5,
                                                                       dtype=both.torch.float64)
    _close(mask_o, mask_t, 0)
    a = ours(ours_in[0], src_mask=mask_o, src_key_padding_mask=ours_in[1])
    b = theirs(theirs_in[0], src_mask=mask_t, src_key_padding_mask=theirs_in[1])
    _close(a, b)
    _check_grads(both, a, b, ours_in[:1], theirs_in[:1])
    tparams = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        _close(p.grad, tparams[n].grad)
    # a stack of deep copies with a final norm
    enc_o = both.nn.TransformerEncoder(ours, 2, both.nn.LayerNorm(8, dtype=both.tg.float64))
    enc_t = both.torch.nn.TransformerEncoder(theirs, 2, both.torch.nn.LayerNorm(8).double(),
                                             enable_nested_tensor=False)
    assert list(enc_o.state_dict()) == list(enc_t.state_dict())
    assert enc_o.layers[0] is not enc_o.layers[1] and enc_o.layers[0].linear1.weight is not \
        enc_o.layers[1].linear1.weight
    _close(enc_o(ours_in[0].detach(), mask=mask_o), enc_t(theirs_in[0].detach(), mask=mask_t))


def test_callable_activation(both):
    ours, theirs = _pair(both, "TransformerEncoderLayer", 8, 2, 16, dropout=0.0,
                         activation=both.F.tanh)
    theirs.activation = both.torch.tanh
    x = np.random.default_rng(8).standard_normal((4, 2, 8))
    _close(ours(both.tg.tensor(x)), theirs(both.torch.tensor(x)))


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_as_torch(both, norm_first):
    ours, theirs = _pair(both, "Transformer", 8, 2, 2, 2, 16, dropout=0.0,
                         norm_first=norm_first)
    assert repr(ours) == repr(theirs)
    rng = np.random.default_rng(9)
    src, tgt = rng.standard_normal((6, 2, 8)), rng.standard_normal((4, 2, 8))
    mkpm = np.zeros((2, 6), dtype=bool)
    mkpm[0, -1] = True
    ours_in, theirs_in = _inputs(both, [src, tgt, mkpm])
    tmask_o = both.nn.Transformer.generate_square_subsequent_mask(4, dtype=both.tg.float64)
    tmask_t = both.torch.nn.Transformer.generate_square_subsequent_mask(4,
                                                                        dtype=both.torch.float64)
    a = ours(ours_in[0], ours_in[1], tgt_mask=tmask_o, memory_key_padding_mask=ours_in[2])
    b = theirs(theirs_in[0], theirs_in[1], tgt_mask=tmask_t,
               memory_key_padding_mask=theirs_in[2])
    _close(a, b)
    _check_grads(both, a, b, ours_in[:2], theirs_in[:2])
    tparams = dict(theirs.named_parameters())
    for n, p in ours.named_parameters():
        _close(p.grad, tparams[n].grad)


def test_transformer_init_is_xavier(both):
    m = both.nn.Transformer(16, 2, 1, 1, 32)
    w = to_numpy(m.encoder.layers[0].linear1.weight)
    bound = np.sqrt(6.0 / (16 + 32))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
