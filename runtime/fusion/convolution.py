"""Decomposed convolution backwards given back to eager's kernel: the input, weight and bias gradients of a
convolution in one aten.convolution_backward, for the executor and for Inductor."""
from __future__ import annotations

import torch

from primkit.prims.layout import is_channels_last, is_contiguous
from primkit.runtime.fusion.pattern import is_prim, tensor_of
from primkit.runtime.fusion.rewrite import allocating, fuse_results


def _through(node, name):
    """(node's argument, [node]) where node calls prim ``name`` (a copy that may be there), else (node, [])."""
    return (node.args[0], [node]) if is_prim(node, name) else (node, [])


def _single(node, name):
    """node's one user, where it calls prim ``name``, or None."""
    return next(iter(node.users)) if len(node.users) == 1 and is_prim(next(iter(node.users)), name) else None


def _laid_out(node):
    """(the node that lays node's value out as eager's, the nodes from node to it): a copy, or a permute, a copy
    that may be there and the inverse permute (the decomposition's ``contiguous`` and ``dense_in_order``)."""
    copied = _single(node, "copy_strided")
    if copied is not None:
        return copied, [copied]
    there = _single(node, "permute")
    copied = None if there is None else _single(there, "copy_strided")
    back = None if there is None else _single(there if copied is None else copied, "permute")
    if back is None or [list(there.args[1])[d] for d in back.args[1]] != list(range(len(back.args[1]))):
        return node, []
    return back, [there, *([] if copied is None else [copied]), back]


def _relaid_input(xg, rank):
    """(x, nodes) where xg is the decomposition's change of layout of the input x, (N, G*cpg, *s) ->
    (cpg, G*N, *s) (a reshape, a permute and a reshape, with copies that may be there), else None."""
    if not is_prim(xg, "reshape"):
        return None
    permuted, copied = _through(xg.args[0], "copy_strided")
    grouped = permuted.args[0] if is_prim(permuted, "permute") else None
    if grouped is None or list(permuted.args[1]) != [2, 1, 0] + list(range(3, rank + 1)) \
            or not is_prim(grouped, "reshape"):
        return None
    x, copied_x = _through(grouped.args[0], "copy_strided")
    return x, [xg, *copied, permuted, grouped, *copied_x]


def _match_weight_grad(conv):
    """The decomposed weight gradient of a convolution (decompositions/backward/convolution.py, ``_weight_grad``):
    a convolution of the input, channels as batch, with the output gradient as kernel, cut to the kernel size
    and permuted back, as (result, (gy, x, relaid, kernel, stride, padding, dilation, groups), nodes), or None.
    x is the forward's input (``relaid`` None), or the input in the layout the weight gradient's convolution reads
    where the graph has it alone (the training forward computed it and saved it for the backward): ``relaid`` is
    then the memory format to give it back (the gradient's: channels-last where the decomposition gave it so)."""
    if not (is_prim(conv, "convolution") and conv.args[2] is None and conv.args[6] is False
            and is_prim(conv.args[1], "permute")):
        return None
    rank = len(conv.args[3]) + 2
    swap = [1, 0] + list(range(2, rank))
    kg, xg = conv.args[1], conv.args[0]
    if list(kg.args[1]) != swap or any(conv.args[7]) or len(kg.users) != 1:
        return None
    gy, groups = kg.args[0], conv.args[8]
    # the input's change of layout may be shared with another convolution of it (CSE): it stays while read
    x, x_nodes = _relaid_input(xg, rank) or (xg, [])
    out, nodes = conv, [conv, kg, *x_nodes]
    cut = _single(out, "slice")
    if cut is not None:
        out, nodes = cut, nodes + [cut]
    back = _single(out, "permute")
    if back is None or list(back.args[1]) != swap:
        return None
    out, laid_out = _laid_out(back)
    nodes = nodes + [back, *laid_out]
    kernel = list(tensor_of(out).shape[2:])
    # the weight gradient's convolution has the forward's dilation as stride and its stride as dilation
    relaid = None if x_nodes else _memory_format(tensor_of(out))
    return out, (gy, x, relaid, kernel, list(conv.args[5]), list(conv.args[4]), list(conv.args[3]), groups), nodes


def _memory_format(t):
    channels_last = t is not None and t.dim() == 4 and is_channels_last(t.shape, t.stride()) \
        and not is_contiguous(t.shape, t.stride())
    return torch.channels_last if channels_last else torch.contiguous_format


def _input(x, relaid, batch: int, groups: int):
    """The convolution's input from x, or from x in the weight gradient's layout, (cpg, G*N, *s), for memory
    format ``relaid`` (a view where it can be and the format is not channels-last: eager's kernel lays its input
    out for itself, and a copy made first would be a second pass over it)."""
    if relaid is None:
        return x
    cpg, spatial = x.shape[0], list(x.shape[2:])
    x = x.reshape([cpg, groups, batch, *spatial]).permute([2, 1, 0] + list(range(3, len(spatial) + 3)))
    x = x.reshape([batch, groups * cpg, *spatial])
    return x.contiguous(memory_format=relaid) if relaid is torch.channels_last else x


def _match_input_grad(gy, stride, padding, dilation, groups):
    """The decomposed input gradient (decompositions/backward/convolution.py, ``_input_grad``) of a convolution
    with output gradient gy: a transposed convolution of gy with the weight, with the forward's parameters (and
    the nodes that lay it out), as (result, weight, nodes), or None (its size is checked with eager's)."""
    for conv in gy.users:
        if not (is_prim(conv, "convolution") and conv.args[0] is gy and conv.args[2] is None and conv.args[6] is True
                and [list(conv.args[i]) for i in (3, 4, 5)] == [stride, padding, dilation] and conv.args[8] == groups):
            continue
        out, laid_out = _laid_out(conv)
        if tensor_of(out) is not None:
            return out, conv.args[1], [conv, *laid_out]
    return None


def _match_backward(conv):
    """The decomposed backward of a convolution whose weight gradient's convolution is ``conv``: its input gradient
    and bias gradient (a sum of gy over all but the channels) where the graph computes them from the same gy, as
    ((grad_input, grad_weight, grad_bias), (gy, x, weight, bias sizes, stride, padding, dilation, groups), nodes),
    or None."""
    found = _match_weight_grad(conv)
    if found is None:
        return None
    grad_weight, (gy, x, relaid, kernel, stride, padding, dilation, groups), nodes = found
    if not all(tensor_of(n) is not None for n in (gy, x)) or tensor_of(gy).dtype != tensor_of(x).dtype \
            or not all(isinstance(k, int) for k in [*kernel, tensor_of(gy).shape[1]]):   # sizes as arguments
        return None
    grad_input = _match_input_grad(gy, stride, padding, dilation, groups)
    weight = None
    if grad_input is not None and tensor_of(grad_input[1]) is not None \
            and tensor_of(grad_input[1]).dtype == tensor_of(gy).dtype:
        grad_input, weight, input_nodes = grad_input
        nodes = nodes + input_nodes
    else:
        grad_input = None
    dims = [0] + list(range(2, len(kernel) + 2))
    grad_bias = next((u for u in gy.users if is_prim(u, "sum") and list(u.args[1]) == dims), None)
    bias_sizes = None if grad_bias is None else [tensor_of(gy).shape[1]]
    nodes = nodes + ([] if grad_bias is None else [grad_bias])
    return ((grad_input, grad_weight, grad_bias),
            (gy, x, relaid, weight, kernel, bias_sizes, stride, padding, dilation, groups), nodes)


@allocating
def conv_backward(gy, x, relaid, weight, kernel, bias_sizes, stride, padding, dilation, groups, mask):
    """Eager's (grad_input, grad_weight, grad_bias) of convolution(x, weight, bias, stride, padding, dilation,
    groups) for the output gradient gy, those in ``mask`` (x in the weight gradient's layout where ``relaid``, see
    ``_match_weight_grad``;
    without the input's gradient, the weight is read for its sizes alone: None stands for it)."""
    x = _input(x, relaid, gy.shape[0], groups)
    if weight is None:
        weight = x.new_empty([gy.shape[1], x.shape[1] // groups, *kernel])
    return torch.ops.aten.convolution_backward.default(gy, x, weight, bias_sizes, stride, padding, dilation, False,
                                                       [0] * len(kernel), groups, mask)


def conv_backward_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed convolution backwards of gm's graph as eager's, in a copy of gm: one
    aten.convolution_backward per convolution for its input, weight and bias gradients (those the graph
    computes), the op Inductor's own path gets, where the decomposition ran a transposed convolution, a
    convolution whose kernel is the whole output gradient (the input's layout changed for it, the result cut
    and copied back) and a sum.

    Only float32 / float64, and where each of eager's gradients has the sizes and strides of the node it
    replaces."""
    return fuse_results(gm, _match_backward, conv_backward, mask=True)
