"""Decomposed 2-d max poolings handed to Inductor as aten.max_pool2d_with_indices calls (their values)."""
from __future__ import annotations

import contextlib
import math

import torch

from primkit.decompositions.nn.pooling import pool_geometry
from primkit.runtime.fusion.pattern import is_prim, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import Match, call, rewrite


def _window_slices(out):
    """The slices whose elementwise maximum ``out`` is, a left-to-right chain of maximum nodes (the
    decomposed max pooling's reduction), with the chain's nodes, or None."""
    chain, node = [], out
    while is_prim(node, "maximum") and (node is out or len(node.users) == 1):
        chain.append(node)
        node = node.args[0]
    if not chain:
        return None
    leaves = [chain[-1].args[0]] + [n.args[1] for n in reversed(chain)]
    return (leaves, chain) if all(is_prim(leaf, "slice") for leaf in leaves) else None


def _max_pool_geometry(padded, slices):
    """(kernel, stride, padding, dilation) of the 2-d max pooling whose windows are ``slices`` of ``padded``
    (the input padded with -inf on its last two dims, or the input itself), offsets in row-major order; or
    None where the slices are something else."""
    shape = tensor_of(padded).shape
    rank = len(shape)
    offsets, strides = [], set()
    for node in slices:
        starts, limits, steps = (list(a) for a in node.args[1:4])
        if starts[:rank - 2] != [0] * (rank - 2) or steps[:rank - 2] != [1] * (rank - 2) \
                or list(limits[:rank - 2]) != list(shape[:rank - 2]):
            return None
        offsets.append(tuple(starts[rank - 2:]))
        strides.add(tuple(steps[rank - 2:]))
    if len(strides) != 1:
        return None
    rows, cols = sorted({o[0] for o in offsets}), sorted({o[1] for o in offsets})
    dilation = [rows[1] - rows[0] if len(rows) > 1 else 1, cols[1] - cols[0] if len(cols) > 1 else 1]
    kernel = [len(rows), len(cols)]
    expected = [(i * dilation[0], j * dilation[1]) for i in range(kernel[0]) for j in range(kernel[1])]
    return (kernel, list(strides.pop()), dilation) if offsets == expected else None


def _max_pool2d(x, kernel, stride, padding, dilation, ceil_mode):
    return torch.ops.aten.max_pool2d_with_indices.default(x, kernel, stride, padding, dilation, ceil_mode)[0]


def _match_max_pool(out):
    """The decomposed 2-d max pooling (decompositions/nn/pooling.py, ``_max_pool``) whose values are ``out``,
    as (x, (kernel, stride, padding, dilation, ceil_mode), nodes), or None."""
    found = _window_slices(out)
    if found is None:
        return None
    slices, chain = found
    padded = slices[0].args[0]
    if any(s.args[0] is not padded or len(s.users) != 1 for s in slices) or tensor_of(padded) is None:
        return None
    x, padding, nodes = padded, [0, 0], [*chain, *slices]
    if is_prim(padded, "pad"):
        x, fill, low, high, interior = padded.args
        rank = len(low)
        if fill != -math.inf or any(interior) or any(low[:rank - 2]) or any(high[:rank - 2]) \
                or len(padded.users) != len(slices):
            return None
        padding, nodes = list(low[rank - 2:]), nodes + [padded]
        if min(padding) < 0:
            return None
    val = tensor_of(x)
    if val is None or not val.dtype.is_floating_point or not all(isinstance(d, int) for d in val.shape):
        return None
    geometry = _max_pool_geometry(padded, slices)
    if geometry is None:
        return None
    kernel, stride, dilation = geometry
    for ceil_mode in (False, True):
        try:   # max_pool2d's own checks (rank, padding at most half the window) and output size
            out_size = pool_geometry("max_pool2d", val, 2, kernel, stride, padding, dilation, ceil_mode)[-1]
        except RuntimeError:
            continue
        if out_size == list(tensor_of(out).shape[-2:]):
            return x, (kernel, stride, padding, dilation, ceil_mode), nodes
    return None


def max_pool_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed 2-d max poolings of gm's graph as aten.max_pool2d_with_indices calls (their values), in a
    copy of gm: the op Inductor's own path gets, whose lowering keeps the pooled input in a buffer and reads
    its windows with masked loads, where the decomposition's -inf padding, read by every window, is a
    tensor of its own (Inductor materialized it, the batch norm and ReLU before it computed into it).

    Only where the value and its layout are the op's: float inputs of static sizes, windows on the last two
    dims, the pooled result laid out as the op lays it out, and no intermediate read outside the pattern (the
    indices, which read the windows, leave it decomposed)."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_max_pool(node)
        if found is None:
            continue
        x, geometry, nodes = found   # each node of the pattern read only inside it (_match_max_pool checks)
        val = tensor_of(x)
        with val.fake_mode if hasattr(val, "fake_mode") else contextlib.nullcontext():
            pooled = _max_pool2d(val, *geometry)
        if not same_shape(pooled.stride(), tensor_of(node).stride()):
            continue
        matches.append(Match(node, tuple(nodes), (x, *geometry)))
    return rewrite(gm, matches, call(_max_pool2d))   # the decomposed poolings erased, now unread
