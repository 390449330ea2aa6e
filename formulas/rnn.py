"""Recurrent-cell formulas: the fused LSTM cell (issue 14 item 8).

``lstm_cell(gates, c)`` takes the pre-activation gates (N, 4H), in torch's order (i, f, g, o),
and the previous cell state c (N, H); it returns (h, c_new) with
``c_new = sigmoid(f) c + sigmoid(i) tanh(g)`` and ``h = sigmoid(o) tanh(c_new)``: one kernel
instead of the dozen ops (and graph nodes) of the cell written out.

Note [The LSTM cell recomputes its gates]
The backward needs the activated gates and tanh(c_new). Saving them would capture forward
intermediates (the capture rule forbids it) or make them hidden outputs (four more tensors per
step kept alive for the whole sequence). Recomputing them from the saved input ``gates`` is a
few elementwise operations on data already being read, so the backward is one fused kernel too:
``lstm_cell_backward(gates, c, grad_h, grad_c) -> (grad_gates, grad_c_prev)``. That kernel is
itself a formula, so a double backward goes through it: its backward (below, in differentiable
ops) is the derivative of a function linear in (grad_h, grad_c): with respect to them it is
the cell's forward-mode derivative in the direction of the incoming grads; with respect to
gates and c it is the gradient of ``S = <grad_h, dh> + <grad_c, dc_new>``, where (dh, dc_new)
is that forward-mode derivative.
"""

from transgrad.lang import T, Tensor, case, formula, helper, kernel, ops, samples


@helper
def gate(gates: Tensor, k: int) -> Tensor:
    """Gate ``k`` (0 i, 1 f, 2 g, 3 o) of pre-activation gates (N, 4H)."""
    width = gates.shape[-1] // 4
    return ops.slice(gates, -1, k * width, (k + 1) * width, 1)


@samples(case(T(3, 8), T(3, 2)), case(T(1, 12, low=-3.0, high=3.0), T(1, 3)))
@formula(materialize_grads=True)
def lstm_cell(gates: Tensor, c: Tensor) -> (Tensor, Tensor):
    """One LSTM step from its pre-activation gates: (h, c_new) (Note [The LSTM cell recomputes
    its gates])."""
    h, c_new = kernel.lstm_cell(gates, c)

    def backward(grad_h, grad_c):
        grad_gates, grad_c_prev = ops.lstm_cell_backward(gates, c, grad_h, grad_c)
        return grad_gates, grad_c_prev

    return (h, c_new), backward


@samples(case(T(3, 8), T(3, 2), T(3, 2), T(3, 2)),
         case(T(2, 12, low=-3.0, high=3.0), T(2, 3), T(2, 3), T(2, 3)))
@formula(materialize_grads=True)
def lstm_cell_backward(gates: Tensor, c: Tensor, grad_h: Tensor,
                       grad_c: Tensor) -> (Tensor, Tensor):
    """The gradients (grad_gates, grad_c_prev) of lstm_cell for incoming (grad_h, grad_c),
    recomputed from gates and c in one kernel (Note [The LSTM cell recomputes its gates])."""
    grad_gates, grad_c_prev = kernel.lstm_cell_backward(gates, c, grad_h, grad_c)

    def backward(u_gates, u_c):
        i = ops.sigmoid(gate(gates, 0))
        f = ops.sigmoid(gate(gates, 1))
        g = ops.tanh(gate(gates, 2))
        o = ops.sigmoid(gate(gates, 3))
        ds_i, ds_f, dt_g, ds_o = i * (1.0 - i), f * (1.0 - f), 1.0 - g * g, o * (1.0 - o)
        u_i, u_f, u_g, u_o = gate(u_gates, 0), gate(u_gates, 1), gate(u_gates, 2), gate(u_gates, 3)
        tc = ops.tanh(f * c + i * g)
        dt_c = 1.0 - tc * tc
        # forward-mode derivative of the cell in the direction (u_gates, u_c)
        d_cn = ds_f * u_f * c + f * u_c + ds_i * u_i * g + i * dt_g * u_g
        d_o = ds_o * u_o
        d_h = d_o * tc + o * dt_c * d_cn
        # gradient of S = <grad_h, d_h> + <grad_c, d_cn> with respect to the activations
        g_cn = grad_c + grad_h * o * dt_c
        p = dt_c * (grad_h * d_o - 2.0 * grad_h * o * tc * d_cn)
        s_i = g_cn * ((1.0 - 2.0 * i) * u_i * g + dt_g * u_g) + p * g
        s_f = g_cn * ((1.0 - 2.0 * f) * u_f * c + u_c) + p * c
        s_g = g_cn * (ds_i * u_i - 2.0 * i * g * u_g) + p * i
        s_o = grad_h * (tc * (1.0 - 2.0 * o) * u_o + dt_c * d_cn)
        s_c = g_cn * ds_f * u_f + p * f
        d_gates = ops.cat([s_i * ds_i, s_f * ds_f, s_g * dt_g, s_o * ds_o], -1)
        return d_gates, s_c, d_h, d_cn

    return (grad_gates, grad_c_prev), backward
