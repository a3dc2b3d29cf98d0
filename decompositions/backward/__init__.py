"""Decompositions of the backward ATen ops that autograd (and so AOTAutograd) emits for torch.nn, one
module per concern as decompositions/nn/: activations (with softmax, views and dropout), normalization,
convolution, pooling, embedding, attention and losses; ``outs`` registers the out= overloads of those
that return several tensors, ``common`` holds what they share.

Each is the adjoint of the forward in decompositions/nn/, written in prims. Float16/bfloat16
are computed in float32 and cast back, as eager's kernels do; an ``output_mask`` entry that is
False gives None, as eager gives an undefined tensor.
"""
from __future__ import annotations

# Each module registers its decompositions on import (outs last: it registers the others' functions).
from primkit.decompositions.backward import (  # noqa: F401
    activation, attention, common, convolution, embedding, loss, normalization, pooling)
from primkit.decompositions.backward import outs  # noqa: F401,E402
