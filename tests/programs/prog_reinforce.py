"""REINFORCE on a 4-armed bandit with Categorical; actions fixed from numpy."""

import numpy as np


def main(torch, steps=25):
    Categorical = torch.distributions.Categorical

    nn = torch.nn
    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        true_means = np.array([0.1, 0.5, 0.9, 0.3])
        policy = nn.Linear(2, 4)
        with torch.no_grad():
            policy.weight.copy_(torch.tensor(0.1 * rng.standard_normal((4, 2))))
            policy.bias.zero_()
        state = torch.tensor([[1.0, 0.5]])
        opt = torch.optim.Adam(policy.parameters(), lr=0.05)
        baseline = 0.0
        losses = []
        for _ in range(steps):
            dist = Categorical(logits=policy(state).squeeze(0).expand(8, 4))
            chosen = rng.integers(0, 4, size=8)
            actions = torch.tensor(chosen)
            rewards = torch.tensor(true_means[chosen] + 0.1 * rng.standard_normal(8))
            advantage = rewards - baseline
            loss = -(dist.log_prob(actions) * advantage).mean() - 0.01 * dist.entropy().mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            baseline = 0.9 * baseline + 0.1 * rewards.mean().item()
            losses.append(loss.item())
        probs = torch.softmax(policy(state), dim=-1)
        return losses + probs.squeeze(0).tolist()
    finally:
        torch.set_default_dtype(prev)
