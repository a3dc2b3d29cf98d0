"""A linear layer's matrix product and bias handed to Inductor as one addmm."""
from __future__ import annotations

import torch

from primkit.runtime.fusion.rewrite import Match, call, rewrite


def _row_bias(node):
    """The 1-D tensor node broadcast along rows by ``node`` (expand of an unsqueeze(0), as a linear
    layer's bias reaches the lowered graph), or None."""
    aten = torch.ops.aten
    if not (isinstance(node, torch.fx.Node) and node.target is aten.expand.default):
        return None
    source = node.args[0]
    if isinstance(source, torch.fx.Node) and source.target is aten.unsqueeze.default and source.args[1] == 0:
        source = source.args[0]
    val = source.meta.get("val") if isinstance(source, torch.fx.Node) else None
    return source if isinstance(val, torch.Tensor) and val.dim() == 1 else None


def bias_into_mm(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """mm(a, b) + a row bias as addmm(bias, a, b), in a copy of gm (an ATen graph): the op a linear layer
    reaches Inductor as on its own path (the bias added by the GEMM's epilogue, not by a pass of its own
    over the product)."""
    aten = torch.ops.aten
    matches = []
    for node in gm.graph.nodes:
        if node.target is not aten.add.Tensor or node.kwargs or len(node.args) != 2:
            continue
        for product, other in (node.args, node.args[::-1]):
            bias = _row_bias(other)
            if not (isinstance(product, torch.fx.Node) and product.target is aten.mm.default and bias is not None
                    and len(product.users) == 1):
                continue
            out, b = product.meta.get("val"), bias.meta["val"]
            if out is None or out.dtype != b.dtype or out.shape[1] != b.shape[0] or \
                    tuple(node.meta["val"].shape) != tuple(out.shape):
                continue
            matches.append(Match(node, (node,), (bias, *product.args)))
            break
    return rewrite(gm, matches, call(aten.addmm.default))
