"""What the re-fusion passes ask of a prim graph's nodes while they match a decomposed op."""
from __future__ import annotations

import contextlib
import math

import torch

from primkit import prims
from primkit.graph.canonicalize import scalar_constant


def is_prim(node, name: str) -> bool:
    """Whether node calls the prim ``name``."""
    if not (isinstance(node, torch.fx.Node) and node.op == "call_function"):
        return False
    prim = prims.def_of(node.target)
    return prim is not None and prim.name == name


def filled(node):
    """The scalar a node holds or splats (a scalar constant, canonicalize's, or its broadcast to any shape,
    symbolic sizes included), or None."""
    if is_prim(node, "broadcast_in_dim") and list(node.args[2]) == []:
        node = node.args[0]
    constant = scalar_constant(node)
    return None if constant is None else constant[0]


def tensor_of(node):
    """The tensor (fake, with the graph's sizes) a node computes, or None."""
    value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return value if isinstance(value, torch.Tensor) else None


def mean_nodes(node, source, dims):
    """The nodes of div(sum(source, dims), n) (the mean over dims, n their element count), or None."""
    if not (is_prim(node, "div") and is_prim(node.args[0], "sum")):
        return None
    total = node.args[0]
    if total.args[0] is not source or list(total.args[1]) != list(dims):
        return None
    count = filled(node.args[1])
    if not isinstance(count, (int, float)) or not same(math.prod(tensor_of(source).shape[d] for d in dims), count):
        return None
    return [node, total]


def fake_mode_of(value):
    """The fake mode of a node's fake tensor, to compute what an op would return on it (a real tensor: none)."""
    return value.fake_mode if hasattr(value, "fake_mode") else contextlib.nullcontext()


def only_read_by(nodes, inside) -> bool:
    """Whether every reader of ``nodes`` is in ``inside`` (a pattern's intermediates not read outside it)."""
    return all(u in inside for n in nodes for u in n.users)


def same(a, b) -> bool:
    """Whether two sizes (ints or symbolic) are known equal, adding no guard to the shape environment."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true
    return statically_known_true(a == b)


def same_shape(a, b) -> bool:
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


def same_layout(a, b) -> bool:
    """Whether tensors a and b have the same sizes and, along each dim of more than one element, the same stride
    (a size-1 dim's stride addresses nothing: eager and the decompositions may give it any)."""
    return same_shape(a.shape, b.shape) and all(same(n, 1) or same(x, y)
                                                 for n, x, y in zip(a.shape, a.stride(), b.stride()))
