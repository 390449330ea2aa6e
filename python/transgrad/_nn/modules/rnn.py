"""Engine-neutral recurrent layers (torch.nn.modules.rnn): ``RNN`` (tanh / relu), ``LSTM``
(with ``proj_size``), ``GRU`` and the single-step ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Written once for both engines; the files of the same name in ``transgrad/nn/modules/`` and
``transgrad/reference/nn/modules/`` bind each class to its engine (Note [Which engine makes a
layer's parameters] in ``transgrad/_nn/module.py``).

Input -> output as torch: a sequence (L, N, H_in) (``batch_first``: (N, L, H_in)), unbatched
(L, H_in), or a ``PackedSequence``, and optional initial states -> the last layer's outputs at
every step and the final state of every layer and direction. Invariant: parameter names, shapes,
order and initialisation are torch's (``weight_ih_l0``, ``weight_hh_l1_reverse``,
``weight_hr_l0``; U(-1/sqrt(hidden), 1/sqrt(hidden))), so a state dict moves between the two.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

from transgrad._backend import backend_of

from .. import functional as F
from ..module import Module
from ..packed import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}

# Note [The recurrence works step by step]
# The inputs of all steps are known before the recurrence starts, so one matmul over all (time,
# batch) rows could project them at once; but every step would then read a slice of that one
# tensor, and the gradient of a slice is a zero tensor of the whole size with the slice written
# in: T steps cost T whole-size gradients to build and sum (quadratic in the sequence length;
# it was most of the LSTM's backward). So the sequence is a list of per-step tensors from the
# input to the output (split once, joined once by a stack whose gradient is views), and each
# step projects its own input. RNN and LSTM do it with h in one matmul, [x_t, h] @ [weight_ih,
# weight_hh].T, the weights joined and transposed and the two biases added once per layer, not
# per step (the gates only ever see those sums).
#
# An LSTM without projection over a sequence whose batch does not shrink (no packed sequence of
# uneven lengths) skips all of this: each layer and direction is one lstm_layer op over the whole
# sequence (Note [The LSTM layer runs in one kernel] in formulas/rnn.py), and the sequence stays
# one (T, N, features) tensor between layers.


# ---------------------------------------------------------------------------------------------
# One step of each kind of cell, from the step's input x and the state, a tuple (h,) or (h, c);
# returns the new state. RNN and LSTM take their two weights joined, ``w_t`` = [weight_ih,
# weight_hh].T, and one bias (bias_ih + bias_hh, or None): one matmul of [x, h] per step (Note
# [The recurrence works step by step]). GRU keeps them apart: its n gate scales h's part alone.


def _joined(E: Any, x: Any, h: Any, w_t: Any, b: Any) -> Any:
    pre = E.module.cat([x, h], 1) @ w_t
    return pre if b is None else pre + b


def _rnn_step(x: Any, state: tuple, w_t: Any, b: Any, relu: bool) -> tuple:
    pre = _joined(backend_of(x), x, state[0], w_t, b)
    return (pre.relu() if relu else pre.tanh(),)


def _lstm_step(x: Any, state: tuple, w_t: Any, b: Any, w_hr: Any) -> tuple:
    """The fused cell (formulas/rnn.py) on gates = [x, h] @ w_t + b."""
    E = backend_of(x)
    h, c = state
    h_new, c_new = E.op("lstm_cell")(_joined(E, x, h, w_t, b), c)
    if w_hr is not None:
        h_new = F.linear(h_new, w_hr)
    return h_new, c_new


def _gru_step(x: Any, state: tuple, w_ih_t: Any, w_hh_t: Any, b_ih: Any, b_hh: Any) -> tuple:
    """The fused cell (formulas/rnn.py) on gi = x @ w_ih_t + b_ih and gh = h @ w_hh_t + b_hh."""
    h = state[0]
    gi, gh = x @ w_ih_t, h @ w_hh_t
    if b_ih is not None:
        gi, gh = gi + b_ih, gh + b_hh
    return (backend_of(x).op("gru_cell")(gi, gh, h),)


def _step_fn(mode: str, w_ih: Any, w_hh: Any, b_ih: Any, b_hh: Any, w_hr: Any) -> Any:
    """``step(x, state) -> state`` of one layer and direction (or one cell), its weights
    joined and transposed once (Note [The recurrence works step by step])."""
    if mode == "GRU":
        w_ih_t, w_hh_t = w_ih.t(), w_hh.t()
        return lambda x, state: _gru_step(x, state, w_ih_t, w_hh_t, b_ih, b_hh)
    E = backend_of(w_ih)
    w_t = E.module.cat([w_ih, w_hh], 1).t()
    b = None if b_ih is None else b_ih + b_hh
    if mode == "LSTM":
        return lambda x, state: _lstm_step(x, state, w_t, b, w_hr)
    relu = mode == "RNN_RELU"
    return lambda x, state: _rnn_step(x, state, w_t, b, relu)


# ---------------------------------------------------------------------------------------------
# Recurrent layers


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=2)
        flags: tuple = (("bias", bias), ("batch_first", batch_first))
        for name, value in flags:
            if not isinstance(value, bool):
                raise TypeError(f"{name} should be of type bool, got: {type(value).__name__}")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size)):
            if not isinstance(value, int):
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        E = self._E
        bound = 1.0 / math.sqrt(hidden_size)
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes: list = [("weight_ih", (gate_size, layer_input)),
                          ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for stem, shape in shapes:
                    # torch draws every parameter from U(-1/sqrt(hidden), 1/sqrt(hidden))
                    value = E.uniform(shape, -bound, bound, dtype)
                    setattr(self, stem + suffix, self.Parameter(value))
                    self._flat_weights_names.append(stem + suffix)

    # -- torch's names for the parameters of a layer ---------------------------------------

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional
                                                                   else 1))
        flat = self._flat_weights
        return [flat[i:i + per] for i in range(0, len(flat), per)]

    def _layer_params(self, layer: int, direction: int) -> tuple:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        w_ih = getattr(self, "weight_ih" + suffix)
        w_hh = getattr(self, "weight_hh" + suffix)
        b_ih = getattr(self, "bias_ih" + suffix) if self.bias else None
        b_hh = getattr(self, "bias_hh" + suffix) if self.bias else None
        w_hr = getattr(self, "weight_hr" + suffix) if self.proj_size > 0 else None
        return w_ih, w_hh, b_ih, b_hh, w_hr

    # -- checks, as torch words them ----------------------------------------------------------

    def _check_input(self, input: Any, batch_sizes: Any) -> None:
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.ndim != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.ndim}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _expected_hidden(self, mini_batch: int, size: int) -> tuple:
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch, size)

    @staticmethod
    def _check_hidden(hx: Any, expected: tuple, msg: str = "Expected hidden size {}, got {}"
                      ) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(msg.format(expected, list(hx.shape)))

    # -- forward ----------------------------------------------------------------------------

    def _state_sizes(self) -> list[int]:
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        return [real_hidden, self.hidden_size] if self.mode == "LSTM" else [real_hidden]

    def forward(self, input: Any, hx: Any = None) -> Any:
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        lstm = self.mode == "LSTM"
        packed = isinstance(input, PackedSequence)
        sorted_indices = unsorted_indices = None
        is_batched = True
        if packed:
            data, batch_sizes = input.data, input.batch_sizes
            sorted_indices, unsorted_indices = input.sorted_indices, input.unsorted_indices
            sizes = [int(b) for b in np.asarray(batch_sizes)]
            mini_batch = sizes[0] if sizes else 0
        else:
            batch_sizes = None
            if input.ndim not in (2, 3):
                tail = " tensor instead" if name == "RNN" else " instead"
                raise ValueError(f"{name}: Expected input to be 2D or 3D, got "
                                 f"{input.ndim}D{tail}")
            is_batched = input.ndim == 3
            if not is_batched:
                input = input.unsqueeze(0 if self.batch_first else 1)
                hx = self._unsqueeze_hidden(hx, lstm)
            else:
                self._check_batched_hidden(hx, lstm)
            mini_batch = int(input.shape[0] if self.batch_first else input.shape[1])
        E = backend_of(input.data if packed else input)
        self._check_input(input.data if packed else input, batch_sizes)
        sizes_state = self._state_sizes()
        if hx is None:
            states = [E.module.zeros(self._expected_hidden(mini_batch, s), dtype=(
                input.data if packed else input).dtype) for s in sizes_state]
        else:
            states = list(hx) if lstm else [hx]
            msgs = (["Expected hidden[0] size {}, got {}", "Expected hidden[1] size {}, got {}"]
                    if lstm else ["Expected hidden size {}, got {}"])
            for s, size, msg in zip(states, sizes_state, msgs):
                self._check_hidden(s, self._expected_hidden(mini_batch, size), msg)
            if sorted_indices is not None:
                states = [s.index_select(1, sorted_indices) for s in states]
        if packed:
            out, finals = self._run(data, sizes, states)
        else:
            x = input.transpose(0, 1) if self.batch_first else input
            steps = int(x.shape[0])
            out, finals = self._run(x.reshape((steps * mini_batch, x.shape[2])),
                                    [mini_batch] * steps, states)
            out = out.reshape((steps, mini_batch, out.shape[-1]))
            if self.batch_first:
                out = out.transpose(0, 1)
        if unsorted_indices is not None:
            finals = [s.index_select(1, unsorted_indices) for s in finals]
        if packed:
            output = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        else:
            output = out
            if not is_batched:
                output = out.squeeze(0 if self.batch_first else 1)
                finals = [s.squeeze(1) for s in finals]
        return output, (tuple(finals) if lstm else finals[0])

    def _unsqueeze_hidden(self, hx: Any, lstm: bool) -> Any:
        if hx is None:
            return None
        if lstm:
            if hx[0].ndim != 2 or hx[1].ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D but "
                                   f"got ({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
            return (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        if hx.ndim != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                               f"{hx.ndim}-D tensor")
        return hx.unsqueeze(1)

    def _check_batched_hidden(self, hx: Any, lstm: bool) -> None:
        if hx is None:
            return
        if lstm:
            if hx[0].ndim != 3 or hx[1].ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but "
                                   f"got ({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
        elif hx.ndim != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.ndim}-D tensor")

    def _run(self, rows: Any, sizes: list[int], states: list) -> tuple[Any, list]:
        """All layers over ``rows`` (the steps' rows one after the other, step t holding
        ``sizes[t]`` of them, non-increasing) from the initial ``states`` (each (layers *
        directions, N, H)); returns the last layer's rows and the final states. Between layers
        the sequence stays a list of steps (Note [The recurrence works step by step])."""
        E = backend_of(rows)
        directions = 2 if self.bidirectional else 1
        finals: list[list] = [[] for _ in states]
        steps = len(sizes)
        uniform = steps > 0 and all(s == sizes[0] for s in sizes)
        if uniform and self.mode == "LSTM" and self.proj_size == 0:
            seq, final_states = self._run_lstm_layers(
                rows.reshape((steps, sizes[0], rows.shape[-1])), states)
            return seq.reshape((-1, seq.shape[-1])), final_states
        if uniform:
            xs = list(rows.reshape((steps, sizes[0], rows.shape[-1])).unbind(0))
        else:
            offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
            xs = [rows[offsets[t]:offsets[t + 1]] for t in range(steps)]
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                xs = [F.dropout(x, self.dropout, True) for x in xs]
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                init = tuple(s[k] for s in states)
                out, final = self._run_direction(xs, sizes, init, layer, direction)
                outs.append(out)
                for store, value in zip(finals, final):
                    store.append(value)
            xs = outs[0] if directions == 1 else [E.module.cat(pair, -1)
                                                  for pair in zip(*outs)]
        final_states = [E.module.stack(f, 0) for f in finals]
        if not steps:
            width = self.proj_size if self.proj_size > 0 else self.hidden_size
            return E.module.zeros((0, width * directions), dtype=rows.dtype), final_states
        out = E.module.stack(xs, 0).reshape((-1, xs[0].shape[-1])) if uniform else \
            E.module.cat(xs, 0)
        return out, final_states

    def _run_lstm_layers(self, seq: Any, states: list) -> tuple[Any, list]:
        """All layers of an LSTM without projection over ``seq`` (T, N, features), one
        lstm_layer op per layer and direction (Note [The recurrence works step by step]);
        returns the last layer's (T, N, H * directions) and the final (h, c) states."""
        E = backend_of(seq)
        directions = 2 if self.bidirectional else 1
        layer_op = E.op("lstm_layer")
        finals: list[list] = [[], []]
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                seq = F.dropout(seq, self.dropout, True)
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                w_ih, w_hh, b_ih, b_hh, _ = self._layer_params(layer, direction)
                bias = None if b_ih is None else b_ih + b_hh
                hs, cs = layer_op(seq, states[0][k], states[1][k], w_ih, w_hh, bias,
                                  direction == 1, bool(seq.requires_grad))
                last = 0 if direction == 1 else -1
                finals[0].append(hs[last])
                finals[1].append(cs[last])
                outs.append(hs)
            seq = outs[0] if directions == 1 else E.module.cat(outs, -1)
        return seq, [E.module.stack(f, 0) for f in finals]

    def _run_direction(self, xs: list, sizes: list[int], init: tuple, layer: int,
                       direction: int) -> tuple[list, tuple]:
        """One layer in one direction over the steps ``xs``; returns its outputs, one per step,
        and its final state. A sequence whose batch shrinks keeps the state its finished rows
        reached."""
        E = backend_of(init[0])
        step_fn = _step_fn(self.mode, *self._layer_params(layer, direction))

        def step(t: int, state: tuple) -> tuple:
            return step_fn(xs[t], state)

        steps = len(sizes)
        outs: list = [None] * steps
        if direction == 0:
            state = init if not steps else tuple(s[:sizes[0]] for s in init)
            done: list[tuple] = []   # rows finished early, last-finishing first when reversed
            for t in range(steps):
                if t and sizes[t] < sizes[t - 1]:
                    done.append(tuple(s[sizes[t]:] for s in state))
                    state = tuple(s[:sizes[t]] for s in state)
                state = step(t, state)
                outs[t] = state[0]
            if done:
                parts = [state] + done[::-1]
                state = tuple(E.module.cat([p[j] for p in parts], 0) for j in range(len(state)))
        else:
            state = init if not steps else tuple(s[:sizes[-1]] for s in init)
            for t in range(steps - 1, -1, -1):
                if t < steps - 1 and sizes[t] > sizes[t + 1]:
                    state = tuple(E.module.cat([s, s0[sizes[t + 1]:sizes[t]]], 0)
                                  for s, s0 in zip(state, init))
                state = step(t, state)
                outs[t] = state[0]
        return outs, state

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or relu)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             f"'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity   # not in the repr, as torch


class LSTM(RNNBase):
    """Long short-term memory; gates (i, f, g, o) in torch's order, optional projection of
    the hidden state (``proj_size``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit; gates (r, z, n) in torch's order, ``n = tanh(W_in x + b_in +
    r * (W_hn h + b_hn))``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------------------------------------
# Cells


class RNNCellBase(Module):
    """The parameters of one recurrent cell: weight_ih, weight_hh, bias_ih, bias_hh."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        E = self._E
        bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
        self.weight_ih = self.Parameter(E.uniform((num_chunks * hidden_size, input_size),
                                                  -bound, bound, dtype))
        self.weight_hh = self.Parameter(E.uniform((num_chunks * hidden_size, hidden_size),
                                                  -bound, bound, dtype))
        if bias:
            self.bias_ih = self.Parameter(E.uniform((num_chunks * hidden_size,), -bound,
                                                    bound, dtype))
            self.bias_hh = self.Parameter(E.uniform((num_chunks * hidden_size,), -bound,
                                                    bound, dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)

    def _prepare(self, name: str, input: Any, hx: Any) -> tuple[Any, list, bool]:
        """(batched input, batched states, was batched): a 1-D input is a batch of one."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D "
                             f"instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        lstm = name == "LSTMCell"
        states = (list(hx) if lstm else [hx]) if hx is not None else None
        if states is not None:
            for idx, s in enumerate(states):
                if s.ndim not in (1, 2):
                    what = f"hx[{idx}]" if lstm else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {s.ndim}D "
                                     f"instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        E = backend_of(input)
        if states is None:
            zero = E.module.zeros((input.shape[0], self.hidden_size), dtype=input.dtype)
            states = [zero] * (2 if lstm else 1)
        elif not batched:
            states = [s.unsqueeze(0) for s in states]
        for s in states:
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden0 "
                                   f"batch size {s.shape[0]}")
            if s.shape[-1] != self.hidden_size:
                raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {s.shape[-1]}, "
                                   f"expected {self.hidden_size}")
        return input, states, batched

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One step of an Elman RNN."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Any, hx: Any = None) -> Any:
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        x, states, batched = self._prepare("RNNCell", input, hx)
        mode = "RNN_RELU" if self.nonlinearity == "relu" else "RNN_TANH"
        (h,) = _step_fn(mode, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                        None)(x, tuple(states))
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: returns (h, c)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:
        x, states, batched = self._prepare("LSTMCell", input, hx)
        h, c = _step_fn("LSTM", self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                        None)(x, tuple(states))
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One step of a GRU."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Any, hx: Any = None) -> Any:
        x, states, batched = self._prepare("GRUCell", input, hx)
        (h,) = _step_fn("GRU", self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                        None)(x, tuple(states))
        return h if batched else h.squeeze(0)
