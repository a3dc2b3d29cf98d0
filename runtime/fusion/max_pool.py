"""Decomposed 2-d max poolings handed to Inductor as aten.max_pool2d_with_indices calls (their values)."""
from __future__ import annotations

import math

import torch

from primkit.decompositions.nn.pooling import pool_geometry
from primkit.runtime.fusion.pattern import fake_mode_of, filled, is_prim, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import Match, call, call_results, rewrite


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


def _match_max_pool(out, readers=1):
    """The decomposed 2-d max pooling (decompositions/nn/pooling.py, ``_max_pool``) whose values are ``out``,
    as (x, (kernel, stride, padding, dilation, ceil_mode), nodes), or None. ``readers``: of each window's
    slice (2 where the indices' argmax reads them too)."""
    found = _window_slices(out)
    if found is None:
        return None
    slices, chain = found
    padded = slices[0].args[0]
    if any(s.args[0] is not padded or len(s.users) != readers for s in slices) or tensor_of(padded) is None:
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
        with fake_mode_of(val):
            pooled = _max_pool2d(val, *geometry)
        if not same_shape(pooled.stride(), tensor_of(node).stride()):
            continue
        matches.append(Match(node, tuple(nodes), (x, *geometry)))
    return rewrite(gm, matches, call(_max_pool2d))   # the decomposed poolings erased, now unread


def _constant_cone(node) -> list:
    """node and the nodes it is computed from that read no graph input (the index grid of a pooling's windows,
    made from iota), or [] where node reads one."""
    if not isinstance(node, torch.fx.Node) or node.op != "call_function":
        return []
    cones = [_constant_cone(a) for a in node.all_input_nodes]
    return [] if any(not c for c in cones) else [node, *(n for c in cones for n in c)]


def _match_indices(index):
    """The decomposed 2-d max pooling's (values, indices) where ``index`` is its indices: eager's first in-bounds
    position where a window holds only -inf, else the flat input position (from an index grid of the windows,
    computed from constants) of the argmax over the concatenated window slices; as ((values, index), x,
    geometry, nodes), or None."""
    if not (is_prim(index, "where") and is_prim(index.args[0], "eq") and filled(index.args[0].args[1]) == -math.inf):
        return None
    values, first, picked = index.args[0].args[0], index.args[1], index.args[2]
    gathered = picked.args[0] if is_prim(picked, "squeeze") else None
    if not is_prim(gathered, "gather") or not is_prim(gathered.args[2], "expand_dims"):
        return None
    position = gathered.args[2].args[0]
    win = position.args[0] if is_prim(position, "argmax") else None
    found = _match_max_pool(values, readers=2)
    if not is_prim(win, "cat") or found is None:
        return None
    x, geometry, nodes = found
    slices = [n for n in nodes if is_prim(n, "slice")]
    parts = list(win.args[0])
    if not (all(is_prim(p, "expand_dims") and len(p.users) == 1 for p in parts)
            and sorted((p.args[0] for p in parts), key=id) == sorted(slices, key=id)):
        return None
    grid, nearest = _constant_cone(gathered.args[0]), _constant_cone(first)
    if not grid or not nearest:
        return None
    inside = [index, index.args[0], *_constant_cone(index.args[0].args[1]), picked, gathered, gathered.args[2],
              position, win, *parts, *grid, *nearest]
    return (values, index), x, geometry, nodes + inside


def _max_pool2d_with_indices(x, kernel, stride, padding, dilation, ceil_mode):
    return torch.ops.aten.max_pool2d_with_indices.default(x, kernel, stride, padding, dilation, ceil_mode)


def max_pool_with_indices_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed 2-d max poolings of gm's graph whose indices are read (a training graph keeps them for the
    backward) as eager's aten.max_pool2d_with_indices, for the executor, in a copy of gm: one kernel where the
    decomposition padded the input, concatenated every window and took an argmax over it (a copy of the input
    per window position) besides the maxima. The same values and indices; only where both are laid out as the
    op lays them out."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_indices(node)
        if found is None:
            continue
        outs, x, geometry, nodes = found
        val = tensor_of(x)
        with fake_mode_of(val):
            results = _max_pool2d_with_indices(val, *geometry)
        if all(same_shape(r.stride(), tensor_of(o).stride()) and r.dtype == tensor_of(o).dtype
               for r, o in zip(results, outs)):
            matches.append(Match(outs, tuple(nodes), (x, *geometry)))
    return rewrite(gm, matches, call_results(_max_pool2d_with_indices))
