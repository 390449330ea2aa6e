"""A two-layer graph network: message passing with index_add_, einsum, a gradient hook,
gradient accumulation over two half-batches, Nesterov SGD and parameters_to_vector."""

import numpy as np


def main(torch, steps=10):
    nn = torch.nn
    F = torch.nn.functional
    n_nodes, n_feat = 12, 5

    class GNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin1 = nn.Linear(n_feat, 8)
            self.lin2 = nn.Linear(8, 8)
            self.readout = nn.Linear(8, 3)

        def propagate(self, h, src, dst):
            out = torch.zeros_like(h)
            out.index_add_(0, dst, h.index_select(0, src))
            return out + h

        def forward(self, x, src, dst):
            h = torch.tanh(self.propagate(self.lin1(x), src, dst))
            h = torch.einsum("nd,ed->ne", h, self.lin2.weight) + self.lin2.bias
            h = F.relu(self.propagate(h, src, dst))
            return self.readout(h)

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        rng = np.random.default_rng(0)
        model = GNN()
        model.load_state_dict({k: torch.tensor(0.4 * rng.standard_normal(tuple(v.shape)))
                               for k, v in model.state_dict().items()})
        grad_norms = []
        model.lin1.weight.register_hook(lambda g: grad_norms.append(g.norm().item()))
        x = torch.tensor(rng.standard_normal((n_nodes, n_feat)))
        edges = rng.integers(0, n_nodes, size=(2, 30))
        src, dst = torch.tensor(edges[0]), torch.tensor(edges[1])
        y = torch.tensor(rng.integers(0, 3, size=n_nodes))
        halves = [torch.arange(0, 6), torch.arange(6, 12)]
        opt = torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True, momentum=0.5)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            logits = model(x, src, dst)
            total = 0.0
            for i, idx in enumerate(halves):
                loss = F.cross_entropy(logits[idx], y[idx]) / len(halves)
                loss.backward(retain_graph=i < len(halves) - 1)
                total += loss.item()
            opt.step()
            losses.append(total)
        vec = nn.utils.parameters_to_vector(model.parameters())
        return losses + grad_norms + [vec.sum().item(), float(vec.numel())]
    finally:
        torch.set_default_dtype(prev)
