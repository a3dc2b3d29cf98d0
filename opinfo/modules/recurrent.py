"""Recurrent layers and cells: RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell."""
import torch
from torch import nn

from primkit.decompositions import DecompositionError
from primkit.opinfo.module_db import ModuleInfo, f, fwd, variant, xfail


# Sequences of 3 steps (2 for the stacked bidirectional layers): the graphs unroll every step.
def _rnn(cls, *extra, state=None, xfails=()):
    seq = [fwd("batched", f(3, 2, 3)), fwd("no_batch", f(3, 3))]
    if state is not None:
        seq.append(fwd("with_state", f(3, 2, 3), state))
    return ModuleInfo(cls, (
        variant("default", 3, 4, forwards=seq),
        variant("2layers_bidirectional_batch_first", 3, 4, num_layers=2, bidirectional=True, batch_first=True,
                forwards=[fwd("batched", f(2, 2, 3))]),
        *extra), family="recurrent", xfails=xfails)


def _cell(cls, n_states, xfails=()):
    h = f(2, 4) if n_states == 1 else (f(2, 4), f(2, 4))
    return ModuleInfo(cls, (
        variant("default", 3, 4, forwards=[fwd("batched", f(2, 3)), fwd("no_batch", f(3)),
                                           fwd("with_state", f(2, 3), h)]),
        variant("no_bias", 3, 4, bias=False, forwards=[fwd("batched", f(2, 3))]),
    ), family="recurrent", xfails=xfails)


# Under torch 2.11 the traced LSTM's final states come out with an extra dimension ((1, 1, 2, 4) where eager
# gives (1, 2, 4)): trace turns the Python dispatcher on, which runs the Python kernel torch registers for
# aten.lstm.input, and 2.11's squeezes each layer's final state at dim 1 instead of 0 (wrong for a batch
# above 1); 2.13's squeezes dim 0.
_R211 = "torch 2.11's Python kernel for aten.lstm.input squeezes the final states at dim 1 (2.13: dim 0)"
_LSTM_ON_211 = (
    xfail("eval", AssertionError, _R211, dtypes=[torch.float32], variants=["proj_size"]),
    xfail("eval", AssertionError, _R211, dtypes=[torch.float64], variants=["default"]),
    xfail("train", AssertionError, _R211, variants=["default", "proj_size", "2layers_bidirectional_batch_first"]),
) if torch.__version__.startswith("2.11.") else ()

MODULES = [
    _rnn(nn.RNN, variant("relu_no_bias", 3, 4, nonlinearity="relu", bias=False,
                         forwards=[fwd("with_state", f(3, 2, 3), f(1, 2, 4))])),
    _rnn(nn.LSTM, variant("proj_size", 3, 4, proj_size=2, forwards=[
        fwd("with_state", f(3, 2, 3), (f(1, 2, 2), f(1, 2, 4)))]), xfails=(
        xfail("eval", DecompositionError, "float32 LSTM inference on CPU runs aten::mkldnn_rnn_layer, which has "
              "no decomposition", dtypes=[torch.float32], variants=["default", "2layers_bidirectional_batch_first"]),
        *_LSTM_ON_211)),
    _rnn(nn.GRU, state=f(1, 2, 4)),
    # LSTMCell and GRUCell's inference kernels write in place into the chunks of aten::unsafe_split,
    # which trace's functionalization computes anew.
    _cell(nn.RNNCell, 1), _cell(nn.LSTMCell, 2), _cell(nn.GRUCell, 1),
]
