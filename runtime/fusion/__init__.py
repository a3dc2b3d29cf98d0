"""Re-fusion passes for ``primkit_inductor``: each finds an op that decomposed into several prims (or a
piece of a decomposition that hides structure) and hands Inductor what its own path would get, where
the value is the decomposition's. One module per pass, each on ``rewrite.rewrite``; ``pattern`` holds
what they ask of nodes.

    attention_as_sdpa(gm)          # prim graph: scaled_dot_product_attention
    without_dead_index_wraps(gm)   # prim graph: where(i < 0, i + n, i) of an i known >= 0 is i
    layer_norm_as_aten(gm)         # prim graph: native_layer_norm
    max_pool_as_aten(gm)           # prim graph: max_pool2d_with_indices
    bias_into_mm(gm)               # ATen graph: mm + row bias as addmm
    batch_norm_as_aten(gm)         # prim graph, for both: batch norm's training forward and backward
    threshold_backward_as_aten(gm) # prim graph, for the executor: where(x <= t, 0, g) as threshold_backward
    conv_backward_as_aten(gm)      # prim graph, for both: a convolution's input, weight and bias gradients
    max_pool_with_indices_as_aten(gm)  # prim graph, for both: max_pool2d_with_indices, indices read

``FOR_EXECUTOR`` are the passes ``backend="primkit"`` runs before the executor: eager's kernel for a pattern whose
decomposition costs the executor more host calls and passes over memory than eager's one kernel.
"""
from __future__ import annotations

from primkit.runtime.fusion.attention import attention_as_sdpa
from primkit.runtime.fusion.batch_norm import batch_norm_as_aten
from primkit.runtime.fusion.convolution import conv_backward_as_aten
from primkit.runtime.fusion.index_wrap import without_dead_index_wraps
from primkit.runtime.fusion.layer_norm import layer_norm_as_aten
from primkit.runtime.fusion.linear import bias_into_mm
from primkit.runtime.fusion.max_pool import max_pool_as_aten, max_pool_with_indices_as_aten
from primkit.runtime.fusion.threshold import threshold_backward_as_aten

# the passes on a prim graph, in the order to_aten runs them
# (max_pool_with_indices_as_aten: a training forward's pooling whose indices the backward reads; ResNet's CPU
# training step under primkit_inductor, 1 thread, interleaved in one process: 7.50 -> 7.16 ms, inductor 4.4 ms;
# conv_backward_as_aten, then batch_norm_as_aten (its forward: the backward's pattern is not in a min-cut
# partition's backward, which reads the normalized input saved by the forward), the same step against
# inductor's (300 interleaved steps): 1.63x -> 1.42x -> 1.34x)
ON_PRIMS = (attention_as_sdpa, without_dead_index_wraps, layer_norm_as_aten, max_pool_as_aten,
            max_pool_with_indices_as_aten, batch_norm_as_aten, conv_backward_as_aten)
# the passes on a prim graph, in the order the primkit backend runs them before the executor
FOR_EXECUTOR = (batch_norm_as_aten, threshold_backward_as_aten, conv_backward_as_aten,
                max_pool_with_indices_as_aten)

__all__ = ["ON_PRIMS", "FOR_EXECUTOR", "attention_as_sdpa", "without_dead_index_wraps", "layer_norm_as_aten",
           "max_pool_as_aten", "bias_into_mm", "batch_norm_as_aten", "threshold_backward_as_aten",
           "conv_backward_as_aten", "max_pool_with_indices_as_aten"]
