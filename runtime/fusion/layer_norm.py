"""Decomposed layer norms handed to Inductor as aten.native_layer_norm calls."""
from __future__ import annotations

import torch

from primkit.prims.layout import contiguous_strides
from primkit.runtime.fusion.pattern import filled, is_prim, mean_nodes, only_read_by, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import Match, call, rewrite


def _kept(node, shape, dims):
    """The reduced tensor node broadcasts back over dims to shape (keep_expanded), or None."""
    if not (is_prim(node, "broadcast_in_dim") and tensor_of(node) is not None
            and same_shape(tensor_of(node).shape, shape)):
        return None
    return node.args[0] if list(node.args[2]) == [d for d in range(len(shape)) if d not in dims] else None


def _match_layer_norm(core):
    """The decomposed layer norm (decompositions/nn/normalization.py, ``native_layer_norm``) whose
    normalized value is ``core`` = (x - mean) * rsqrt(var + eps), as (x, dims, eps, nodes), or None."""
    if not is_prim(core, "mul") or not is_prim(core.args[0], "sub"):
        return None
    centered, x = core.args[0], core.args[0].args[0]
    val = tensor_of(x)
    if val is None or not isinstance(core.args[1], torch.fx.Node) or not isinstance(centered.args[1], torch.fx.Node):
        return None
    shape = val.shape
    # the broadcasts' operands; that they broadcast over the summed dims is checked below
    rstd = core.args[1].args[0] if is_prim(core.args[1], "broadcast_in_dim") else None
    mean = centered.args[1].args[0] if is_prim(centered.args[1], "broadcast_in_dim") else None
    if not (is_prim(rstd, "rsqrt") and is_prim(mean, "div") and is_prim(mean.args[0], "sum")):
        return None
    dims = list(mean.args[0].args[1])
    if dims != list(range(val.dim() - len(dims), val.dim())) or not dims:
        return None
    of_mean = mean_nodes(mean, x, dims)
    if of_mean is None or _kept(centered.args[1], shape, dims) is not mean \
            or _kept(core.args[1], shape, dims) is not rstd:
        return None
    shifted = rstd.args[0]
    eps = filled(shifted.args[1]) if is_prim(shifted, "add") else None
    if not isinstance(eps, (int, float)):
        return None
    var = shifted.args[0]
    square = var.args[0].args[0] if is_prim(var, "div") and is_prim(var.args[0], "sum") else None
    if not (is_prim(square, "mul") and square.args[0] is centered and square.args[1] is centered):
        return None
    var_nodes = mean_nodes(var, square, dims)
    if var_nodes is None:
        return None
    nodes = [centered, centered.args[1], *of_mean, core.args[1], rstd, shifted, *var_nodes, square]
    return x, dims, eps, nodes


def _affine_of(node, name, shape, dims):
    """The parameter p where node's single user is name(node, broadcast_in_dim(p, shape, dims)) with p of
    node's dtype (the layer norm's weight, for "mul", or bias, for "add"), as (user, p, broadcast), or None."""
    if len(node.users) != 1:
        return None
    (user,) = node.users
    if not (is_prim(user, name) and user.args[0] is node and is_prim(user.args[1], "broadcast_in_dim")):
        return None
    spread, param = user.args[1], user.args[1].args[0]
    if not (tensor_of(spread) is not None and same_shape(tensor_of(spread).shape, shape)
            and list(spread.args[2]) == dims
            and len(spread.users) == 1):
        return None
    if tensor_of(param) is None or tensor_of(param).dtype != tensor_of(node).dtype:
        return None
    return user, param, spread


def _layer_norm(x, normalized_shape, weight, bias, eps):
    return torch.ops.aten.native_layer_norm.default(x, normalized_shape, weight, bias, eps)[0]


def layer_norm_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed layer norms of gm's graph as aten.native_layer_norm calls, in a copy of gm: the op
    Inductor's own path gets, whose lowering keeps each row's mean in a buffer of its own (divided once per
    row), where the decomposition's mean, a cheap pointwise op, is recomputed inside every loop that reads it.

    Only where the value is the decomposition's: CPU float32/float64 (a half-precision input's upcast comes
    first, so the op computes in float32 as well), normalized dims trailing, a weight and bias of the
    computation dtype (others stay as the multiply and add they are), and no intermediate (the mean, the
    rstd, the deviations) read outside the pattern: a training graph, which keeps the mean and rstd for the
    backward, is left as it is."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_layer_norm(node)
        if found is None:
            continue
        x, dims, eps, nodes = found
        val = tensor_of(x)
        if val.device.type != "cpu" or val.dtype not in (torch.float32, torch.float64):
            continue
        # contiguous, as the decomposition makes its input: the op's result is laid out as the pattern's
        if not same_shape(val.stride(), contiguous_strides(val.shape)):
            continue
        if not only_read_by(nodes, set(nodes) | {node}):
            continue
        shape = list(val.shape)
        out, params, inside = node, [None, None], [node, *nodes]
        for i, name in enumerate(("mul", "add")):
            found = _affine_of(out, name, shape, dims)
            if found is not None:
                out, params[i], spread = found
                inside += [out, spread]
        matches.append(Match(out, tuple(inside), (x, [shape[d] for d in dims], *params, eps)))
    return rewrite(gm, matches, call(_layer_norm))   # the decomposed layer norms erased, now unread
