"""``transgrad.reference.nn.modules.rnn``:
the recurrent layers and cells, bound to the reference engine.

Each class is the engine-neutral one of ``transgrad._nn.modules.rnn`` with this namespace's
``Module`` as a base (Note [Which engine makes a layer's parameters] in _nn/module.py); the twin
file is ``transgrad.nn.modules.rnn``.
"""

from transgrad._nn.modules import rnn as _rnn

from .module import Module


class RNNBase(_rnn.RNNBase, Module):
    __doc__ = _rnn.RNNBase.__doc__


class RNNCellBase(_rnn.RNNCellBase, Module):
    __doc__ = _rnn.RNNCellBase.__doc__


class RNN(_rnn.RNN, Module):
    __doc__ = _rnn.RNN.__doc__


class LSTM(_rnn.LSTM, Module):
    __doc__ = _rnn.LSTM.__doc__


class GRU(_rnn.GRU, Module):
    __doc__ = _rnn.GRU.__doc__


class RNNCell(_rnn.RNNCell, Module):
    __doc__ = _rnn.RNNCell.__doc__


class LSTMCell(_rnn.LSTMCell, Module):
    __doc__ = _rnn.LSTMCell.__doc__


class GRUCell(_rnn.GRUCell, Module):
    __doc__ = _rnn.GRUCell.__doc__


__all__ = ["RNNBase", "RNNCellBase", "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]
