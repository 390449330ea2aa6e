"""GroupNorm, RMSNorm, InstanceNorm1d/2d/3d and LocalResponseNorm against torch on both engines:
values, input and parameter gradients, printed form, state dict, running statistics, errors."""

import numpy as np
import pytest
from _torchcmp import raises_like, run_both

pytestmark = pytest.mark.torch
rng = np.random.default_rng(3)


def _x(*shape):
    return rng.standard_normal(shape) * 2.0 + 0.5


def _randomise(torch, m):
    """Non-trivial affine parameters, so their gradients and effect are checked."""
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(rng.uniform(0.5, 1.5, tuple(p.shape))))
    return m


CASES = [
    ("GroupNorm", (2, 4), (3, 4, 5)),
    ("GroupNorm", (3, 6, 1e-3), (2, 6, 3, 2)),
    ("GroupNorm", (1, 4, 1e-5, False), (2, 4, 3)),
    ("GroupNorm", (4, 4), (2, 4, 2, 2, 2)),
    ("RMSNorm", (5,), (3, 4, 5)),
    ("RMSNorm", ([4, 5], 1e-3), (3, 4, 5)),
    ("RMSNorm", (5, None, False), (2, 5)),
    ("InstanceNorm1d", (3,), (2, 3, 6)),
    ("InstanceNorm1d", (3, 1e-5, 0.1, True), (3, 6)),
    ("InstanceNorm2d", (3, 1e-5, 0.1, True), (2, 3, 4, 5)),
    ("InstanceNorm2d", (3,), (3, 4, 5)),
    ("InstanceNorm3d", (2,), (2, 2, 3, 2, 2)),
    ("LocalResponseNorm", (3,), (2, 5, 4)),
    ("LocalResponseNorm", (2, 1e-2, 0.5, 2.0), (2, 6, 3, 3)),
]


@pytest.mark.parametrize("name,args,shape", CASES, ids=[f"{n}{a}" for n, a, _ in CASES])
def test_norm_layer_matches_torch(lib, name, args, shape):
    torch = pytest.importorskip("torch")
    run_both(lib, torch, lambda: getattr(lib.nn, name)(*args),
             lambda: _randomise(torch, getattr(torch.nn, name)(*args)), [_x(*shape)],
             module=True)


def test_functional_forms_match_torch(lib):
    torch = pytest.importorskip("torch")
    TF = torch.nn.functional
    x, w, b = _x(2, 6, 3), rng.uniform(0.5, 2, 6), rng.standard_normal(6)
    run_both(lib, torch, lambda a, c, d: lib.F.group_norm(a, 3, c, d),
             lambda a, c, d: TF.group_norm(a, 3, c, d), [x, w, b])
    run_both(lib, torch, lambda a, c: lib.F.rms_norm(a, (3,), c, 1e-4),
             lambda a, c: TF.rms_norm(a, (3,), c, 1e-4), [x, rng.uniform(0.5, 2, 3)])
    run_both(lib, torch, lambda a, c, d: lib.F.instance_norm(a, weight=c, bias=d),
             lambda a, c, d: TF.instance_norm(a, weight=c, bias=d), [x, w, b])
    run_both(lib, torch, lambda a: lib.F.local_response_norm(a, 4, 0.1, 0.6, 1.5),
             lambda a: TF.local_response_norm(a, 4, 0.1, 0.6, 1.5), [x])


@pytest.mark.parametrize("momentum", [0.1, None])
def test_instance_norm_running_stats_follow_torch(lib, momentum):
    torch = pytest.importorskip("torch")
    ours = lib.nn.InstanceNorm2d(3, momentum=momentum, affine=True,
                                 track_running_stats=True).double()
    theirs = torch.nn.InstanceNorm2d(3, momentum=momentum, affine=True,
                                     track_running_stats=True).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert str(ours) == str(theirs)
    for _ in range(3):
        x = _x(2, 3, 4, 4)
        ours(lib.tg.tensor(x))
        theirs(torch.tensor(x))
    for k in ("running_mean", "running_var"):
        np.testing.assert_allclose(np.asarray(ours.state_dict()[k]),
                                   theirs.state_dict()[k].numpy(), rtol=1e-12)
    ours.eval()
    theirs.eval()
    run_both(lib, torch, lambda: ours, lambda: theirs, [_x(2, 3, 4, 4)], module=True)


def test_norm_errors_are_torchs(lib):
    torch = pytest.importorskip("torch")
    with raises_like(lambda: torch.nn.GroupNorm(3, 4)):
        lib.nn.GroupNorm(3, 4)
    with raises_like(lambda: torch.nn.functional.group_norm(torch.ones(2, 6, 4), 4)):
        lib.F.group_norm(lib.tg.ones(2, 6, 4), 4)
    with raises_like(lambda: torch.nn.InstanceNorm1d(3)(torch.ones(2, 3, 4, 5))):
        lib.nn.InstanceNorm1d(3)(lib.tg.ones(2, 3, 4, 5))
    with raises_like(lambda: torch.nn.functional.rms_norm(torch.ones(2, 3), (4,))):
        lib.F.rms_norm(lib.tg.ones(2, 3), (4,))
