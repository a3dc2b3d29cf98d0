"""Decomposed convolution weight gradients given back to eager's kernel for the executor."""
from __future__ import annotations

import torch

from primkit.runtime.fusion.pattern import fake_mode_of, is_prim, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import Match, call, rewrite


def _through(node, name):
    """(node's argument, [node]) where node calls prim ``name`` (a copy that may be there), else (node, [])."""
    return (node.args[0], [node]) if is_prim(node, name) and len(node.users) == 1 else (node, [])


def _single(node, name):
    """node's one user, where it calls prim ``name``, or None."""
    return next(iter(node.users)) if len(node.users) == 1 and is_prim(next(iter(node.users)), name) else None


def _match_weight_grad(conv):
    """The decomposed weight gradient of a convolution (decompositions/backward/convolution.py, ``_weight_grad``):
    a convolution of the input, channels as batch, with the output gradient as kernel, cut to the kernel size
    and permuted back, as (result, (gy, x, kernel, stride, padding, dilation, groups), nodes), or None."""
    if not (is_prim(conv, "convolution") and conv.args[2] is None and conv.args[6] is False
            and is_prim(conv.args[1], "permute") and is_prim(conv.args[0], "reshape")):
        return None
    rank = len(conv.args[3]) + 2
    swap = [1, 0] + list(range(2, rank))
    kg, xg = conv.args[1], conv.args[0]
    if list(kg.args[1]) != swap or any(conv.args[7]) or len(kg.users) != 1 or len(xg.users) != 1:
        return None
    gy, groups = kg.args[0], conv.args[8]
    permuted, copied = _through(xg.args[0], "copy_strided")
    grouped = permuted.args[0] if is_prim(permuted, "permute") and len(permuted.users) == 1 else None
    if grouped is None or list(permuted.args[1]) != [2, 1, 0] + list(range(3, rank + 1)) \
            or not is_prim(grouped, "reshape") or len(grouped.users) != 1:
        return None
    x, copied_x = _through(grouped.args[0], "copy_strided")
    out, nodes = conv, [conv, kg, xg, *copied, permuted, grouped, *copied_x]
    cut = _single(out, "slice")
    if cut is not None:
        out, nodes = cut, nodes + [cut]
    back = _single(out, "permute")
    if back is None or list(back.args[1]) != swap:
        return None
    out, nodes = back, nodes + [back]
    laid_out = _single(out, "copy_strided")
    if laid_out is not None:
        out, nodes = laid_out, nodes + [laid_out]
    kernel = list(tensor_of(out).shape[2:])
    # the weight gradient's convolution has the forward's dilation as stride and its stride as dilation
    return out, (gy, x, kernel, list(conv.args[5]), list(conv.args[4]), list(conv.args[3]), groups), nodes


def conv_weight_grad(gy, x, kernel, stride, padding, dilation, groups):
    """Eager's weight gradient of convolution(x, w, stride, padding, dilation, groups) for the output gradient
    gy (its kernel reads w's sizes alone where the input's gradient is not asked for)."""
    w = x.new_empty([gy.shape[1], x.shape[1] // groups, *kernel])
    return torch.ops.aten.convolution_backward.default(gy, x, w, None, stride, padding, dilation, False,
                                                       [0] * len(kernel), groups, [False, True, False])[1]


def conv_weight_grad_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed convolution weight gradients of gm's graph as eager's (aten.convolution_backward, the weight
    gradient alone), in a copy of gm: one kernel where the executor ran a convolution whose kernel is the whole
    output gradient (the input's layout changed for it, and the result cut and copied back).

    Only float32 / float64, and where eager's gradient has the sizes and strides of the node it replaces."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_weight_grad(node)
        if found is None:
            continue
        out, args, nodes = found
        vals = [tensor_of(args[0]), tensor_of(args[1])]
        if any(v is None for v in vals) or vals[0].dtype not in (torch.float32, torch.float64) \
                or vals[1].dtype != vals[0].dtype:
            continue
        try:
            with fake_mode_of(vals[0]):
                result = conv_weight_grad(*vals, *args[2:])
        except RuntimeError:   # sizes that are not a convolution's input and output gradient
            continue
        if same_shape(result.shape, tensor_of(out).shape) and same_shape(result.stride(), tensor_of(out).stride()):
            matches.append(Match(out, tuple(nodes), args))
    return rewrite(gm, matches, call(conv_weight_grad))
