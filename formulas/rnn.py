"""Recurrent formulas (issue 14 item 8): the fused LSTM cell (LSTMCell, and LSTM with
proj_size or packed sequences of uneven lengths), a whole LSTM layer in one op (lstm_layer and
its BPTT, lstm_layer_bptt: every other nn.LSTM) and the fused GRU cell and its backward (GRU,
GRUCell).

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

from transgrad.lang import Optional, T, Tensor, case, formula, helper, kernel, ops, samples


@helper
def gate(gates: Tensor, k: int) -> Tensor:
    """Gate ``k`` (0 i, 1 f, 2 g, 3 o) of pre-activation gates (N, 4H)."""
    width = gates.shape[-1] // 4
    return ops.slice(gates, -1, k * width, (k + 1) * width, 1)


@helper
def cell_backward_vjp(gates: Tensor, c: Tensor, grad_h: Tensor, grad_c: Tensor, u_gates: Tensor,
                      u_c: Tensor) -> (Tensor, Tensor, Tensor, Tensor):
    """The VJP of ``lstm_cell_backward(gates, c, grad_h, grad_c)`` for cotangents (u_gates,
    u_c): the grads of (gates, c, grad_h, grad_c), in differentiable ops (Note [The LSTM cell
    recomputes its gates])."""
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
        d_gates, d_c, d_h, d_cn = cell_backward_vjp(gates, c, grad_h, grad_c, u_gates, u_c)
        return d_gates, d_c, d_h, d_cn

    return (grad_gates, grad_c_prev), backward


# ---------------------------------------------------------------------------------------------
# The GRU cell


@helper
def gate3(gates: Tensor, k: int) -> Tensor:
    """Gate ``k`` (0 r, 1 z, 2 n) of GRU gates (N, 3H)."""
    width = gates.shape[-1] // 3
    return ops.slice(gates, -1, k * width, (k + 1) * width, 1)


@samples(case(T(3, 6), T(3, 6), T(3, 2)),
         case(T(1, 9, low=-3.0, high=3.0), T(1, 9, low=-3.0, high=3.0), T(1, 3)))
@formula
def gru_cell(gi: Tensor, gh: Tensor, h: Tensor) -> Tensor:
    """One GRU step from its input and hidden projections gi = x @ w_ih.T + b_ih and gh = h @
    w_hh.T + b_hh, each (N, 3H) in torch's order (r, z, n): ``n + z (h - n)`` with ``n = tanh(
    gi_n + r gh_n)``. One kernel forward, one backward (gru_cell_backward, recomputing the gates
    as Note [The LSTM cell recomputes its gates] says for the LSTM)."""
    result = kernel.gru_cell(gi, gh, h)

    def backward(grad):
        g_gi, g_gh, g_h = ops.gru_cell_backward(gi, gh, h, grad)
        return g_gi, g_gh, g_h

    return result, backward


@samples(case(T(3, 6), T(3, 6), T(3, 2), T(3, 2)),
         case(T(2, 9, low=-3.0, high=3.0), T(2, 9, low=-3.0, high=3.0), T(2, 3), T(2, 3)))
@formula(materialize_grads=True)
def gru_cell_backward(gi: Tensor, gh: Tensor, h: Tensor, grad: Tensor) -> (Tensor, Tensor, Tensor):
    """The gradients (grad_gi, grad_gh, grad_h) of gru_cell for the grad of its output, in one
    kernel. Its own backward is the gradient of ``S = <u_gi, grad_gi> + <u_gh, grad_gh> + <u_h,
    grad_h>``, linear in grad, written out in differentiable ops."""
    g_gi, g_gh, g_h = kernel.gru_cell_backward(gi, gh, h, grad)

    def backward(u_gi, u_gh, u_h):
        h_n = gate3(gh, 2)
        r = ops.sigmoid(gate3(gi, 0) + gate3(gh, 0))
        z = ops.sigmoid(gate3(gi, 1) + gate3(gh, 1))
        n = ops.tanh(gate3(gi, 2) + r * h_n)
        s_r, s_z, t_n = r * (1.0 - r), z * (1.0 - z), 1.0 - n * n
        u_r = gate3(u_gi, 0) + gate3(u_gh, 0)
        u_z = gate3(u_gi, 1) + gate3(u_gh, 1)
        u_hn = gate3(u_gh, 2)
        g_n = grad * (1.0 - z) * t_n  # the first order's grad of n's pre-activation
        # S = p g_n + u_z g_z + u_h grad z, with g_z = grad (h - n) s_z
        p = u_r * h_n * s_r + gate3(u_gi, 2) + r * u_hn
        d_grad = p * (1.0 - z) * t_n + u_z * (h - n) * s_z + u_h * z
        d_h = u_z * grad * s_z
        s_an = t_n * (-2.0 * p * grad * (1.0 - z) * n - u_z * grad * s_z)
        s_az = s_z * (grad * (u_z * (h - n) * (1.0 - 2.0 * z) + u_h - p * t_n))
        s_ar = s_r * (g_n * (u_r * h_n * (1.0 - 2.0 * r) + u_hn) + s_an * h_n)
        s_hn = g_n * u_r * s_r + s_an * r
        return (ops.cat([s_ar, s_az, s_an], -1), ops.cat([s_ar, s_az, s_hn], -1), d_h, d_grad)

    return (g_gi, g_gh, g_h), backward


# ---------------------------------------------------------------------------------------------
# A whole LSTM layer in one direction.
#
# Note [The LSTM layer runs in one kernel]
# Step by step (Note [The recurrence works step by step] in _nn/modules/rnn.py), a layer of T
# steps is T small matmuls, T cells and their graph nodes, each called from Python, and a
# backward of as many nodes: at seq 32 that per-step overhead was most of nn.LSTM's step.
# lstm_layer runs the layer in one kernel: the input projection of all steps as one GEMM (the
# bias folded in), then a C++ loop over time of one GEMM (h @ w_hh.T added into the step's
# gates) and the fused cell. What the backward needs it returns as outputs: every step's h and c
# (hs, cs: outputs the module reads anyway) and the pre-activation gates (a hidden output, Note
# [hidden outputs] in DESIGN: recomputing them would cost the whole forward's GEMMs again).
# The backward is lstm_layer_bptt, backpropagation through time in one kernel (the cell's
# backward and one GEMM per step), followed by the weight and input gradients as three GEMMs
# batched over all steps. lstm_layer_bptt is itself a formula, so double backward goes through
# it: its backward runs the adjoint of the BPTT recurrence forward in time with differentiable
# ops (cell_backward_vjp per step). That is a Python-speed loop of small ops, acceptable for the
# rare second order; the first order never runs it.


@helper
def time_step(x: Tensor, t: int) -> Tensor:
    """Step ``t`` of a sequence (T, N, ...)."""
    return ops.select(x, 0, t)


@helper
def previous_cells(cs: Tensor, c0: Tensor, reverse: bool) -> Tensor:
    """The cell state each step starts from, (T, N, H): c0 then cs shifted by one step (in the
    direction the layer runs)."""
    steps = cs.shape[0]
    first = ops.unsqueeze(c0, 0)
    if reverse:
        return ops.cat([ops.slice(cs, 0, 1, steps, 1), first], 0)
    return ops.cat([first, ops.slice(cs, 0, 0, steps - 1, 1)], 0)


@samples(case(T(3, 2, 4), T(2, 3), T(2, 3), T(12, 4), T(12, 3), T(12)),
         case(T(4, 1, 2, low=-2.0, high=2.0), T(1, 2), T(1, 2), T(8, 2), T(8, 2), None, True),
         case(T(1, 3, 2), T(3, 1), T(3, 1), T(4, 2), T(4, 1), T(4), True))
@formula(hidden_outputs=("gates",))
def lstm_layer(x: Tensor, h0: Tensor, c0: Tensor, w_ih: Tensor, w_hh: Tensor,
               bias: Optional[Tensor] = None, reverse: bool = False,
               input_grad: bool = True) -> (Tensor, Tensor, Tensor):
    """One LSTM layer in one direction over a sequence x (T, N, I) from (h0, c0): every step's
    (h, c), each (T, N, H), in torch's gate order; ``bias`` is b_ih + b_hh (Note [The LSTM layer
    runs in one kernel]). ``input_grad=False`` (the module passes it for an x that does not
    require grad, as torch's needs_input_grad) skips x's gradient, a GEMM as large as the input
    projection."""
    hs, cs, gates = kernel.lstm_layer(x, h0, c0, w_ih, w_hh, bias, reverse)

    def backward(grad_hs, grad_cs, grad_gates):
        d_gates, d_cs = ops.lstm_layer_bptt(gates, cs, c0, w_hh, grad_hs, grad_cs, grad_gates,
                                            reverse)
        steps = x.shape[0]
        n = x.shape[1]
        first = steps - 1 if reverse else 0
        flat = ops.reshape(d_gates, (steps * n, w_hh.shape[0]))
        g_x = ops.reshape(ops.matmul(flat, w_ih), x.shape) if input_grad else None
        g_w_ih, g_w_hh, g_b = ops.lstm_layer_weight_grads(d_gates, x, hs, h0, reverse)
        g_h0 = (ops.zeros(h0.shape, h0.dtype) if steps == 0
                else ops.matmul(time_step(d_gates, first), w_hh))
        g_c0 = ops.zeros(c0.shape, c0.dtype) if steps == 0 else time_step(d_cs, first)
        g_bias = None if bias is None else g_b
        return g_x, g_h0, g_c0, g_w_ih, g_w_hh, g_bias

    return (hs, cs, gates), backward


@helper
def from_previous(g_prev: Tensor, reverse: bool) -> (Tensor, Tensor):
    """The grads of (seq, first) for the grad ``g_prev`` (T, N, H) of ``previous_cells(seq,
    first, reverse)``."""
    steps = g_prev.shape[0]
    zero_step = ops.zeros((1,) + g_prev.shape[1:], g_prev.dtype)
    if reverse:
        g_seq = ops.cat([zero_step, ops.slice(g_prev, 0, 0, steps - 1, 1)], 0)
        return g_seq, time_step(g_prev, steps - 1)
    g_seq = ops.cat([ops.slice(g_prev, 0, 1, steps, 1), zero_step], 0)
    return g_seq, time_step(g_prev, 0)


@samples(case(T(3, 2, 8), T(3, 2, 3), T(3, 2, 2), T(2, 2)),
         case(T(2, 1, 12, low=-2.0, high=2.0), T(2, 1, 1), T(2, 1, 3), T(1, 3), True),
         case(T(1, 3, 4), T(1, 3, 2), T(1, 3, 1), T(3, 1), True))
@formula(materialize_grads=True)
def lstm_layer_weight_grads(d_gates: Tensor, x: Tensor, hs: Tensor, h0: Tensor,
                            reverse: bool = False) -> (Tensor, Tensor, Tensor):
    """The weight gradients of lstm_layer from its gates' gradients d_gates (T, N, 4H), summed
    over the steps in one kernel: (d_gates.T @ x, d_gates.T @ h_prev, d_gates' sum) with h_prev
    each step's previous h (h0 for the first; Note [The LSTM layer runs in one kernel])."""
    g_w_ih, g_w_hh, g_bias = kernel.lstm_layer_weight_grads(d_gates, x, hs, h0, reverse)

    def backward(u_w_ih, u_w_hh, u_bias):
        # bilinear in d_gates and (x, h_prev)
        steps = x.shape[0]
        rows = steps * x.shape[1]
        if steps == 0:
            return (ops.zeros(d_gates.shape, d_gates.dtype), ops.zeros(x.shape, x.dtype),
                    ops.zeros(hs.shape, hs.dtype), ops.zeros(h0.shape, h0.dtype))
        flat = ops.reshape(d_gates, (rows, d_gates.shape[2]))
        h_prev = ops.reshape(previous_cells(hs, h0, reverse), (rows, h0.shape[1]))
        g_flat = (ops.matmul(ops.reshape(x, (rows, x.shape[2])), ops.transpose(u_w_ih, 0, 1))
                  + ops.matmul(h_prev, ops.transpose(u_w_hh, 0, 1)) + u_bias)
        g_x = ops.reshape(ops.matmul(flat, u_w_ih), x.shape)
        g_hs, g_h0 = from_previous(ops.reshape(ops.matmul(flat, u_w_hh), hs.shape), reverse)
        return ops.reshape(g_flat, d_gates.shape), g_x, g_hs, g_h0

    return (g_w_ih, g_w_hh, g_bias), backward


@samples(case(T(3, 2, 8), T(3, 2, 2), T(2, 2), T(8, 2), T(3, 2, 2), T(3, 2, 2), None),
         case(T(2, 1, 12, low=-2.0, high=2.0), T(2, 1, 3), T(1, 3), T(12, 3), T(2, 1, 3),
              None, T(2, 1, 12), True),
         case(T(3, 2, 4), T(3, 2, 1), T(2, 1), T(4, 1), None, T(3, 2, 1), None, True))
@formula(materialize_grads=True)
def lstm_layer_bptt(gates: Tensor, cs: Tensor, c0: Tensor, w_hh: Tensor,
                    grad_hs: Optional[Tensor] = None, grad_cs: Optional[Tensor] = None,
                    grad_gates: Optional[Tensor] = None,
                    reverse: bool = False) -> (Tensor, Tensor):
    """Backpropagation through time of lstm_layer: from the grads of every step's h, c and
    gates (None: zeros), each step's grad of its gates and of the cell state it started from
    (Note [The LSTM layer runs in one kernel])."""
    d_gates, d_cs = kernel.lstm_layer_bptt(gates, cs, c0, w_hh, grad_hs, grad_cs, grad_gates,
                                           reverse)

    def backward(u_gates, u_cs):
        # The adjoint of the BPTT loop runs in the forward's order. Step t of the BPTT read
        # gh = grad_hs[t] + d_gates[nxt] @ w_hh and gc = grad_cs[t] + d_cs[nxt], where nxt is
        # the step after t in the forward (its BPTT ran just before t's).
        steps = cs.shape[0]
        n = cs.shape[1]
        hid = cs.shape[2]
        c_prev = previous_cells(cs, c0, reverse)
        a_gates = ops.zeros((0, n, 4 * hid), gates.dtype)
        a_c_prev = ops.zeros((0, n, hid), gates.dtype)
        a_gh = ops.zeros((0, n, hid), gates.dtype)
        a_gc = ops.zeros((0, n, hid), gates.dtype)
        a_dg = ops.zeros((0, n, 4 * hid), gates.dtype)
        g_w_hh = ops.zeros(w_hh.shape, gates.dtype)
        carry_gh = ops.zeros((n, hid), gates.dtype)
        carry_gc = ops.zeros((n, hid), gates.dtype)
        for k in range(steps):
            t = steps - 1 - k if reverse else k
            nxt = t - 1 if reverse else t + 1
            has_next = nxt >= 0 and nxt < steps
            gh = ops.zeros((n, hid), gates.dtype) if grad_hs is None else time_step(grad_hs, t)
            gc = ops.zeros((n, hid), gates.dtype) if grad_cs is None else time_step(grad_cs, t)
            if has_next:
                gh = gh + ops.matmul(time_step(d_gates, nxt), w_hh)
                gc = gc + time_step(d_cs, nxt)
            u_dg = time_step(u_gates, t)
            u_dc = time_step(u_cs, t)
            if k > 0:
                # d_gates[t] fed the previous step's gh, d_cs[t] its gc
                u_dg = u_dg + ops.matmul(carry_gh, ops.transpose(w_hh, 0, 1))
                u_dc = u_dc + carry_gc
                g_w_hh = g_w_hh + ops.matmul(ops.transpose(time_step(d_gates, t), 0, 1), carry_gh)
            s_a, s_c, s_gh, s_gc = cell_backward_vjp(time_step(gates, t), time_step(c_prev, t),
                                                     gh, gc, u_dg, u_dc)
            carry_gh = s_gh
            carry_gc = s_gc
            a_gates = add_step(a_gates, s_a, reverse)
            a_c_prev = add_step(a_c_prev, s_c, reverse)
            a_gh = add_step(a_gh, s_gh, reverse)
            a_gc = add_step(a_gc, s_gc, reverse)
            a_dg = add_step(a_dg, u_dg, reverse)
        # step t's c_prev is cs[t -/+ 1], or c0 for the first step
        if steps == 0:
            g_cs, g_c0 = ops.zeros(cs.shape, cs.dtype), ops.zeros(c0.shape, c0.dtype)
        else:
            g_cs, g_c0 = from_previous(a_c_prev, reverse)
        return (a_gates, g_cs, g_c0, g_w_hh, None if grad_hs is None else a_gh,
                None if grad_cs is None else a_gc, None if grad_gates is None else a_dg)

    return (d_gates, d_cs), backward


@helper
def add_step(acc: Tensor, value: Tensor, reverse: bool) -> Tensor:
    """``acc`` (k, ...) with ``value`` as a new step: after the others, or before them when the
    steps are visited from the last (the result is in time order either way)."""
    step = ops.unsqueeze(value, 0)
    return ops.cat([step, acc], 0) if reverse else ops.cat([acc, step], 0)
