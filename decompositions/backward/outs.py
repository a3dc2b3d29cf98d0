"""The out= overloads of the backward ops that return several tensors.
"""
from __future__ import annotations

from primkit.decompositions.backward.convolution import convolution_backward
from primkit.decompositions.backward.normalization import (
    _batch_norm_backward, cudnn_batch_norm_backward, miopen_batch_norm_backward, native_group_norm_backward, native_layer_norm_backward, weight_norm_interface_backward)
from primkit.decompositions.common import aten, register_out


# ----------------------------------------------------------------------------- out= overloads

for _op, _fn in ((aten.convolution_backward.out, convolution_backward),
                 (aten.native_batch_norm_backward.out, _batch_norm_backward),
                 (aten.native_layer_norm_backward.out, native_layer_norm_backward),
                 (aten.native_group_norm_backward.out, native_group_norm_backward),
                 (aten.cudnn_batch_norm_backward.out, cudnn_batch_norm_backward),
                 (aten.miopen_batch_norm_backward.out, miopen_batch_norm_backward),
                 (aten._weight_norm_interface_backward.out, weight_norm_interface_backward)):
    register_out(_op, _fn)
