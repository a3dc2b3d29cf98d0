"""Recurrent layers: ``aten.lstm.input``, unrolled step by step as eager's CPU kernel computes it.

torch registers a Python kernel of its own for ``aten.lstm.input``, which ``trace`` (the Python dispatcher
on) would otherwise run; torch 2.11's squeezes each layer's final state at dim 1 (a wrong shape for a
batch above one), and in float32 inference on CPU it reaches ``aten::mkldnn_rnn_layer``, which no table
decomposes. This entry replaces it, under ``trace`` and under a make_fx / AOTAutograd trace given
primkit's table alike (``above_autograd``, decompositions.composite). GRU and plain RNN keep torch's kernels.
"""
from __future__ import annotations

from primkit.decompositions.common import aten
from primkit.decompositions.composite import above_autograd
from primkit.decompositions.registry import register


def _direction(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr, reverse):
    """One layer in one direction over x (seq, batch, features): (outputs, last h, last c)."""
    # every step's input projection at once, then per step h's projection added to it (eager's order)
    inputs = aten.linear.default(x, w_ih, b_ih)
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    outputs = [None] * x.shape[0]
    for t in steps:
        gates = aten.add.Tensor(aten.linear.default(h, w_hh, b_hh), aten.select.int(inputs, 0, t))
        i, f, g, o = aten.chunk.default(gates, 4, 1)
        c = aten.add.Tensor(aten.mul.Tensor(aten.sigmoid.default(f), c),
                            aten.mul.Tensor(aten.sigmoid.default(i), aten.tanh.default(g)))
        h = aten.mul.Tensor(aten.sigmoid.default(o), aten.tanh.default(c))
        if w_hr is not None:
            h = aten.linear.default(h, w_hr)
        outputs[t] = h
    return aten.stack.default(outputs), h, c


@register(aten.lstm.input)
def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """(output, h_n, c_n). params: per layer and direction (forward first) w_ih, w_hh, then b_ih, b_hh
    where has_biases, then w_hr where the hidden state is projected (h0 narrower than c0)."""
    if len(hx) != 2:
        raise RuntimeError(f"lstm: expected two hidden states (h0, c0), got {len(hx)}")
    if input.dim() != 3:
        raise RuntimeError(f"lstm: expected a 3-D input (sequence, batch, features; batch first where batch_first), "
                           f"got shape {list(input.shape)}")
    x = aten.transpose.int(input, 0, 1) if batch_first else input
    if x.shape[0] == 0:
        raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
    h0, c0 = hx
    directions = 2 if bidirectional else 1
    projected = h0.shape[-1] != c0.shape[-1]
    each = 2 + 2 * bool(has_biases) + projected
    if len(params) != each * num_layers * directions:
        raise RuntimeError(f"lstm: expected {each * num_layers * directions} parameter tensors ({each} for each of "
                           f"{num_layers} layer(s) x {directions} direction(s)), got {len(params)}")
    h_n, c_n = [], []
    for layer in range(num_layers):
        outputs = []
        for d in range(directions):
            k = layer * directions + d
            w = params[k * each:(k + 1) * each]
            b_ih, b_hh = (w[2], w[3]) if has_biases else (None, None)
            out, h, c = _direction(x, aten.select.int(h0, 0, k), aten.select.int(c0, 0, k), w[0], w[1], b_ih, b_hh,
                                   w[-1] if projected else None, reverse=d == 1)
            outputs.append(out)
            h_n.append(h)
            c_n.append(c)
        x = outputs[0] if directions == 1 else aten.cat.default(outputs, 2)
        if dropout and train and layer < num_layers - 1:   # between layers, as eager
            x = aten.dropout.default(x, dropout, train)
    out = aten.transpose.int(x, 0, 1) if batch_first else x
    return out, aten.stack.default(h_n), aten.stack.default(c_n)


above_autograd(aten.lstm.input, lstm)
