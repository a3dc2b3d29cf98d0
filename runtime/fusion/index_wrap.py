"""Negative-index wraps of indices known to be non-negative removed, so that Inductor sees affine indexing."""
from __future__ import annotations

import torch

from primkit.runtime.fusion.pattern import filled, is_prim, tensor_of
from primkit.runtime.fusion.rewrite import Match, rewrite

# prims whose every element is an element of their first operand (or a copy of one): they keep it non-negative
_SAME_ELEMENTS = frozenset({"broadcast_in_dim", "reshape", "permute", "squeeze", "expand_dims", "slice", "rev",
                            "collapse", "split_dim", "alias", "clone", "stop_gradient"})


def _non_negative_nodes(graph) -> set:
    """The integer tensor nodes of graph whose elements are all known to be >= 0 from how the graph builds them:
    an iota with a start and step >= 0, a constant >= 0, their views, and sums and products of such (int64
    arithmetic, which the program's own eager run would have to overflow to differ)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true
    known = set()
    for node in graph.nodes:
        val = tensor_of(node)
        if node.op != "call_function" or val is None or val.dtype.is_floating_point or val.dtype.is_complex \
                or val.dtype == torch.bool:
            continue
        constant = filled(node)
        args = node.args
        if constant is not None:
            ok = isinstance(constant, (int, bool)) and constant >= 0
        elif is_prim(node, "iota"):
            ok = all(statically_known_true(node.kwargs[k] >= 0) for k in ("start", "step"))
        elif any(is_prim(node, name) for name in _SAME_ELEMENTS):
            ok = args[0] in known
        elif is_prim(node, "convert_element_type"):   # to as wide an integer type: the same values
            source = tensor_of(args[0])
            ok = args[0] in known and source is not None and val.itemsize >= source.itemsize and val.is_signed()
        elif is_prim(node, "add") or is_prim(node, "mul"):
            ok = args[0] in known and args[1] in known
        else:
            ok = False
        if ok:
            known.add(node)
    return known


def _dead_index_wrap(node, known):
    """The index i where node is where(lt(i, 0), add(i, n), i), the wrap of a negative index that indexing
    decomposes to, and i is known non-negative (an arange's positions, as a causal or padding mask indexes
    with), else None."""
    if not is_prim(node, "where"):
        return None
    cond, wrapped, index = node.args
    if index not in known or not (is_prim(cond, "lt") and cond.args[0] is index and filled(cond.args[1]) == 0):
        return None
    if not (is_prim(wrapped, "add") and wrapped.args[0] is index and filled(wrapped.args[1]) is not None):
        return None
    return index


def without_dead_index_wraps(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """gm with the negative-index wraps of indices known to be non-negative removed, in a copy of gm.

    Indexing decomposes to a position computed with where(i < 0, i + n, i); where i is an arange's positions
    (transformers builds its padding mask as padding_mask[batch_arange, kv_arange]) the where is dead, and
    it hides from Inductor that the position is affine in the loop indices: Inductor then gathers with a
    bounds check, element by element, where its own path (aten.index on the aranges) loads directly."""
    known = _non_negative_nodes(gm.graph)
    # the where, its test and the wrapped index erased; the where's readers read the index
    matches = [Match(node, (node, *node.args[:2]), (index,)) for node in gm.graph.nodes
               if (index := _dead_index_wrap(node, known)) is not None]
    return rewrite(gm, matches, lambda graph, out, index: index)
