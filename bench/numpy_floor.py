"""The floor: every workload written by hand in numpy, forward and backward.

Input: the workload's data dict (numpy arrays, see ``workloads.make_data``). Output: a ``step``
closure that runs forward and backward once and returns the gradients as numpy arrays, in the
same order as the engine version of the workload returns them.

This is both the speed floor (no graph, no dispatch: what a careful numpy user writes) and the
correctness oracle: the harness compares every library's gradients with these before timing.
The backward passes are derived by hand; each comment gives the derivative used.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Step = Callable[[], list[np.ndarray]]


def chain(d: dict) -> Step:
    """W1, W2, W6, W7: y <- sin(y), y <- y * w, y <- y + b, repeated; loss = sum(y)."""
    x, w, b, n_ops = d["x"], d["w"], d["b"], d["ops"]

    def step() -> list[np.ndarray]:
        saved = []
        y = x
        for i in range(n_ops):
            k = i % 3
            if k == 0:
                saved.append(y)
                y = np.sin(y)
            elif k == 1:
                saved.append(y)
                y = y * w
            else:
                y = y + b
        y.sum()
        g = np.ones_like(y)  # d sum / d y
        gw = np.zeros_like(w)
        gb = np.zeros_like(b)
        for i in range(n_ops - 1, -1, -1):
            k = i % 3
            if k == 0:
                g *= np.cos(saved.pop())  # d sin(u) = cos(u) du
            elif k == 1:
                gw += g * saved.pop()  # d (u w) = w du + u dw
                g *= w
            else:
                gb += g  # d (u + b) = du + db
        return [g, gw, gb]

    return step


def mlp(d: dict) -> Step:
    """W3: tanh MLP, softmax cross-entropy (one-hot targets), SGD update in place."""
    X, Y, lr = d["X"], d["Y"], d["lr"]
    params = [p.copy() for p in d["params"]]
    inv_b = np.float32(1.0 / X.shape[0])

    def step() -> list[np.ndarray]:
        W1, b1, W2, b2, W3, b3 = params
        h1 = np.tanh(X @ W1 + b1)
        h2 = np.tanh(h1 @ W2 + b2)
        z = h2 @ W3 + b3
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=1, keepdims=True)
        logp = z - np.log(s)
        -(logp * Y).sum() * inv_b  # the loss (value unused by the step)
        dz = (e / s - Y) * inv_b  # softmax - onehot, rows of Y sum to 1
        gW3 = h2.T @ dz
        gb3 = dz.sum(axis=0)
        da2 = (dz @ W3.T) * (1 - h2 * h2)  # d tanh(u) = (1 - tanh(u)^2) du
        gW2 = h1.T @ da2
        gb2 = da2.sum(axis=0)
        da1 = (da2 @ W2.T) * (1 - h1 * h1)
        gW1 = X.T @ da1
        gb1 = da1.sum(axis=0)
        grads = [gW1, gb1, gW2, gb2, gW3, gb3]
        for p, g in zip(params, grads):
            p -= lr * g
        return grads

    return step


def matmul_sum(d: dict) -> Step:
    """W4: s = sum(A @ B); dA = G @ B^T, dB = A^T @ G with G = ones (three real matmuls, as an
    engine computes them)."""
    A, B = d["A"], d["B"]

    def step() -> list[np.ndarray]:
        C = A @ B
        C.sum()
        G = np.ones_like(C)
        return [G @ B.T, A.T @ G]

    return step


def double_backward(d: dict) -> Step:
    """W5: y = sum(tanh(x)^3); g = dy/dx = 3 t^2 (1 - t^2);
    gg = d(sum g)/dx = (6t - 12t^3)(1 - t^2)."""
    x = d["x"]

    def step() -> list[np.ndarray]:
        t = np.tanh(x)
        s = 1 - t * t
        t2 = t * t
        (t2 * t).sum()
        g = 3 * t2 * s
        gg = (6 * t - 12 * t2 * t) * s
        return [g, gg]

    return step
