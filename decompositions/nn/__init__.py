"""Decompositions of torch.nn.functional's ATen ops, one module per concern: activation (softmax too),
normalization, convolution (im2col / col2im too), pooling, padding, upsampling, grid_sample, shuffle,
embedding, dropout, attention, loss, distance, linear and recurrent (LSTM); ``common`` holds the helpers they share.

Covers both the backend ops make_fx reaches (aten.gelu, aten._softmax, aten.native_layer_norm,
aten.max_pool2d_with_indices, ...) and the CompositeImplicitAutograd ops torch.export keeps
(aten.layer_norm, aten.conv2d, aten.scaled_dot_product_attention, ...). Importing the package
registers them all.
"""
from __future__ import annotations

from primkit.decompositions.nn import (  # noqa: F401  (each module registers its decompositions on import)
    activation, attention, convolution, distance, dropout, embedding, grid_sample, linear, loss, normalization,
    padding, pooling, recurrent, shuffle, upsampling,
)
