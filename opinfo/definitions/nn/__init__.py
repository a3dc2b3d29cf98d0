"""OpInfo entries: torch.nn.functional, one module per concern (mirroring primkit.decompositions.nn):
activation (softmax too), normalization, convolution (fold / unfold too), pooling, padding, upsampling,
grid_sample, shuffle, embedding (one_hot too), dropout, attention, loss, distance and linear (bilinear);
``common`` holds the entry builders they share.

Ops with an out= overload are often entered through their ATen packet (torch.ops.aten.<op>), so one
entry exercises the functional and the out= overload; the others through torch.nn.functional."""
from __future__ import annotations

from primkit.opinfo.definitions.nn import (activation, attention, convolution, distance, dropout, embedding,
                                           grid_sample, linear, loss, normalization, padding, pooling, shuffle,
                                           upsampling)

ENTRIES = [e for m in (activation, normalization, convolution, pooling, padding, upsampling, grid_sample, shuffle,
                       embedding, dropout, attention, loss, distance, linear)
           for e in m.ENTRIES]
