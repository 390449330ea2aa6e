"""Two small programs that use distributions as models do, on both engines: a policy-gradient
agent (REINFORCE with Categorical) and a variational autoencoder (Normal rsample +
kl_divergence). Each must learn, and the two engines must follow the same trajectory."""

import importlib

import numpy as np
from _disthelpers import make_lib, to_numpy


def _nn(engine):
    return (importlib.import_module(engine.__name__ + ".nn"),
            importlib.import_module(engine.__name__ + ".optim"))


# A contextual bandit: in state s the best of 3 actions is BEST[s] (reward 1, others 0 or 0.2).
REWARD = np.array([[1.0, 0.2, 0.0], [0.0, 0.2, 1.0]])


def _reinforce(engine, steps=120, batch=32):
    lib = make_lib(engine)
    nn, optim = _nn(engine)
    engine.manual_seed(0)
    policy = nn.Linear(2, 3)
    opt = optim.Adam(policy.parameters(), lr=0.05)
    rng = np.random.default_rng(0)
    returns = []
    for _ in range(steps):
        s = rng.integers(0, 2, batch)
        x = engine.tensor(np.eye(2, dtype=np.float32)[s])
        dist = lib.D.Categorical(logits=policy(x))
        a = dist.sample()
        r = engine.tensor(REWARD[s, to_numpy(a).astype(int)].astype(np.float32))
        loss = -(dist.log_prob(a) * (r - r.mean())).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        returns.append(float(r.mean().item()))
    with engine.no_grad():
        states = engine.tensor(np.eye(2, dtype=np.float32))
        probs = to_numpy(lib.D.Categorical(logits=policy(states)).probs)
    return np.array(returns), probs


def test_reinforce_learns_the_best_actions(engine):
    returns, probs = _reinforce(engine)
    assert returns[-10:].mean() > 0.9
    assert returns[-10:].mean() > returns[:5].mean() + 0.25   # from about 0.5 at the start
    assert probs[0, 0] > 0.9 and probs[1, 2] > 0.9


def test_reinforce_same_trajectory_on_both_engines(compiled, ref):
    r_ref, p_ref = _reinforce(ref, steps=40)
    r_cmp, p_cmp = _reinforce(compiled, steps=40)
    np.testing.assert_allclose(r_ref, r_cmp, rtol=1e-6)   # same actions drawn (float32 means)
    np.testing.assert_allclose(p_ref, p_cmp, rtol=1e-4, atol=1e-6)


def _vae(engine, steps=150):
    """Data on a noisy line in 4-D; a 1-D latent Normal posterior; ELBO with the closed-form
    KL to the standard normal prior; reparameterised samples carry the gradient."""
    lib = make_lib(engine)
    D = lib.D
    nn, optim = _nn(engine)
    engine.manual_seed(1)
    rng = np.random.default_rng(1)
    z_true = rng.standard_normal((128, 1))
    data = engine.tensor((z_true @ np.array([[1.0, -2.0, 0.5, 3.0]])
                          + 0.1 * rng.standard_normal((128, 4))).astype(np.float32))
    encoder, decoder = nn.Linear(4, 2), nn.Linear(1, 4)
    opt = optim.Adam(list(encoder.parameters()) + list(decoder.parameters()), lr=0.03)
    prior = D.Normal(engine.zeros(128, 1), engine.ones(128, 1))
    losses = []
    for _ in range(steps):
        h = encoder(data)
        mu, log_sigma = h[:, :1], h[:, 1:]
        posterior = D.Normal(mu, log_sigma.exp())
        z = posterior.rsample()
        recon = D.Independent(D.Normal(decoder(z), 0.1 * engine.ones(128, 4)), 1)
        elbo = recon.log_prob(data) - D.kl_divergence(posterior, prior).sum(-1)
        loss = -elbo.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.item()))
    return np.array(losses), encoder


def test_vae_trains(engine):
    losses, encoder = _vae(engine)
    assert np.isfinite(losses).all()
    assert losses[-10:].mean() < 0.1 * losses[:5].mean()
    assert all(p.grad is not None for p in encoder.parameters())  # through rsample and the KL


def test_vae_same_losses_on_both_engines(compiled, ref):
    a, _ = _vae(ref, steps=30)
    b, _ = _vae(compiled, steps=30)
    np.testing.assert_allclose(a, b, rtol=1e-3)


def test_affine_flow_fits_by_maximum_likelihood(engine):
    """A one-layer normalizing flow, AffineTransform(loc, exp(log_scale)) over a standard
    normal, trained on log_prob: the maximum-likelihood answer is the data's mean and
    (population) standard deviation, reached through the transform's inverse and
    log-det-Jacobian."""
    lib = make_lib(engine)
    D = lib.D
    _, optim = _nn(engine)
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 0.5, 512)
    data = lib.t(x)
    loc, log_scale = lib.t([0.0], True), lib.t([0.0], True)
    opt = optim.Adam([loc, log_scale], lr=0.1)
    base = D.Normal(lib.t([0.0]), lib.t([1.0]))
    for _ in range(300):
        flow = D.TransformedDistribution(
            base, [D.transforms.AffineTransform(loc, log_scale.exp())])
        loss = -flow.log_prob(data.reshape((-1, 1))).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    np.testing.assert_allclose(to_numpy(loc), [x.mean()], atol=1e-3)
    np.testing.assert_allclose(np.exp(to_numpy(log_scale)), [x.std()], atol=1e-3)
