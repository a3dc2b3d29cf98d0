"""Recurrent layers and cells: RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, f, fwd, variant


# Sequences of 3 steps (2 for the stacked bidirectional layers): the graphs unroll every step.
def _rnn(cls, *extra, state=None, xfails=(), random_in_train=False):
    seq = [fwd("batched", f(3, 2, 3)), fwd("no_batch", f(3, 3))]
    if state is not None:
        seq.append(fwd("with_state", f(3, 2, 3), state))
    return ModuleInfo(cls, (
        variant("default", 3, 4, forwards=seq),
        variant("2layers_bidirectional_batch_first", 3, 4, num_layers=2, bidirectional=True, batch_first=True,
                forwards=[fwd("batched", f(2, 2, 3))]),
        *extra), family="recurrent", xfails=xfails, random_in_train=random_in_train)


def _cell(cls, n_states, xfails=()):
    h = f(2, 4) if n_states == 1 else (f(2, 4), f(2, 4))
    return ModuleInfo(cls, (
        variant("default", 3, 4, forwards=[fwd("batched", f(2, 3)), fwd("no_batch", f(3)),
                                           fwd("with_state", f(2, 3), h)]),
        variant("no_bias", 3, 4, bias=False, forwards=[fwd("batched", f(2, 3))]),
    ), family="recurrent", xfails=xfails)


MODULES = [
    _rnn(nn.RNN, variant("relu_no_bias", 3, 4, nonlinearity="relu", bias=False,
                         forwards=[fwd("with_state", f(3, 2, 3), f(1, 2, 4))])),
    _rnn(nn.LSTM, variant("proj_size", 3, 4, proj_size=2, forwards=[
        fwd("with_state", f(3, 2, 3), (f(1, 2, 2), f(1, 2, 4)))]),
        # dropout between the layers in train mode: the graph draws eager's masks
        variant("2layers_dropout", 3, 4, num_layers=2, dropout=0.5, forwards=[fwd("batched", f(3, 2, 3))]),
        random_in_train=True),
    _rnn(nn.GRU, state=f(1, 2, 4)),
    # LSTMCell and GRUCell's inference kernels write in place into the chunks of aten::unsafe_split,
    # which trace's functionalization computes anew.
    _cell(nn.RNNCell, 1), _cell(nn.LSTMCell, 2), _cell(nn.GRUCell, 1),
]
