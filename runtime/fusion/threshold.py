"""Decomposed threshold backwards (ReLU's gradient) given back to eager's kernel for the executor."""
from __future__ import annotations

import torch

from primkit.runtime.fusion.pattern import fake_mode_of, filled, is_prim, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import Match, call, rewrite


def _match_threshold_backward(node):
    """where(le(x, threshold), 0, g), the decomposed threshold_backward (decompositions/backward/activation.py),
    as (g, x, threshold, nodes), or None."""
    if not (is_prim(node, "where") and is_prim(node.args[0], "le") and filled(node.args[1]) == 0):
        return None
    below, g = node.args[0], node.args[2]
    x, threshold = below.args[0], filled(below.args[1])
    gv, xv = tensor_of(g), tensor_of(x)
    if not isinstance(threshold, (int, float)) or gv is None or xv is None or len(below.users) != 1:
        return None
    if gv.dtype != xv.dtype or not gv.dtype.is_floating_point or not same_shape(gv.shape, xv.shape) \
            or not same_shape(gv.shape, tensor_of(node).shape):
        return None
    splats = [n for n in (below.args[1], node.args[1]) for n in ([n, n.args[0]] if is_prim(n, "broadcast_in_dim")
                                                                 else [n])]
    return g, x, threshold, [node, below, *splats]


def threshold_backward_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed threshold backwards of gm's graph as aten.threshold_backward calls, in a copy of gm: one
    kernel where the executor ran a comparison, a boolean tensor and a select (torch.where, 30-50x slower than
    threshold_backward on a (2, 32, 32, 32) float32 tensor on a CPU). The same values; only where the result is
    laid out as the select's."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_threshold_backward(node)
        if found is None:
            continue
        g, x, threshold, nodes = found
        gv = tensor_of(g)
        with fake_mode_of(gv):
            result = torch.ops.aten.threshold_backward.default(gv, tensor_of(x), threshold)
        if same_shape(result.stride(), tensor_of(node).stride()):
            matches.append(Match(node, tuple(nodes), (g, x, threshold)))
    return rewrite(gm, matches, call(torch.ops.aten.threshold_backward.default))
