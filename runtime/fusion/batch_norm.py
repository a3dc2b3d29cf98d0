"""Decomposed batch norms in training, forward and backward, given back to eager's kernels for the executor
(``backend="primkit"``): aten._native_batch_norm_legit_functional and aten.native_batch_norm_backward."""
from __future__ import annotations

import math

import torch

from primkit.runtime.fusion.pattern import filled, is_prim, mean_nodes, same_shape, tensor_of
from primkit.runtime.fusion.rewrite import allocating, fuse_results


def _splat(node, value=None):
    """The nodes of a scalar constant or its splat (``filled``), where it holds ``value`` (any number if None);
    else None."""
    v = filled(node)
    if not isinstance(v, (int, float)) or (value is not None and v != value):
        return None
    return [node] + ([node.args[0]] if is_prim(node, "broadcast_in_dim") else [])


def _per_channel(node, shape):
    """The (C,) tensor node spreads along dim 1 of ``shape`` (the decompositions' per-channel broadcast), or
    None."""
    if not (is_prim(node, "broadcast_in_dim") and list(node.args[2]) == [1] and tensor_of(node) is not None
            and same_shape(tensor_of(node).shape, shape)):
        return None
    return node.args[0]


def _channel_mean(node, source, dims):
    """The nodes of the mean of source over dims (``mean_nodes``) with its count's constant, or None."""
    nodes = mean_nodes(node, source, dims)
    return None if nodes is None else nodes + _splat(node.args[1])


def _blend(new, momentum):
    """stop_gradient(old * (1 - momentum) + new * momentum), the update of a running statistic from ``new``,
    as (stop_gradient node, old, nodes), or None."""
    scaled = next((u for u in new.users if is_prim(u, "mul") and u.args[0] is new
                   and _splat(u.args[1], momentum) is not None), None)
    add = None if scaled is None else next((u for u in scaled.users if is_prim(u, "add") and u.args[1] is scaled),
                                           None)
    if add is None or not is_prim(add.args[0], "mul") or _splat(add.args[0].args[1], 1 - momentum) is None:
        return None
    kept = next((u for u in add.users if is_prim(u, "stop_gradient")), None)
    if kept is None:
        return None
    decay = add.args[0]
    return kept, decay.args[0], [kept, add, decay, scaled, *_splat(decay.args[1]), *_splat(scaled.args[1])]


def _running_stats(mean, var, n):
    """(new running mean node, new running var node, running_mean, running_var, momentum, nodes) of the
    decomposition's update of the running statistics from the batch's mean and biased var, or None."""
    for user in mean.users:
        momentum = filled(user.args[1]) if is_prim(user, "mul") and user.args[0] is mean else None
        if not isinstance(momentum, float):
            continue
        unbiased = next((u for u in var.users if is_prim(u, "mul") and u.args[0] is var
                         and _splat(u.args[1], n / max(n - 1, 1)) is not None), None)
        of_mean = _blend(mean, momentum)
        of_var = None if unbiased is None else _blend(unbiased, momentum)
        if of_mean is None or of_var is None:
            continue
        nodes = [*of_mean[2], *of_var[2], unbiased, *_splat(unbiased.args[1])]
        return of_mean[0], of_var[0], of_mean[1], of_var[1], momentum, nodes
    return None


def _match_forward(y):
    """The decomposed CPU training batch norm (decompositions/nn/normalization.py, ``_batch_norm``) whose output
    is ``y``: (x - mean) * (rsqrt(var + eps) * weight) + bias, weight and bias optional, as
    ((y, mean, invstd, new running mean, new running var), (x, weight, bias, running_mean, running_var,
    momentum, eps), nodes), or None."""
    shape = tensor_of(y).shape if tensor_of(y) is not None else None
    scaled, bias, nodes = y, None, [y]
    if shape is not None and is_prim(y, "add") and _per_channel(y.args[1], shape) is not None:
        scaled, bias, nodes = y.args[0], _per_channel(y.args[1], shape), [y, y.args[1]]
    if not (shape is not None and is_prim(scaled, "mul") and is_prim(scaled.args[0], "sub")):
        return None
    centered, scale = scaled.args[0], _per_channel(scaled.args[1], shape)
    weight, invstd = None, scale
    if is_prim(scale, "mul"):
        invstd, weight = scale.args
    if not is_prim(invstd, "rsqrt") or not is_prim(invstd.args[0], "add"):
        return None
    if tensor_of(y).device.type != "cpu":   # the CPU form: (x - mean) * scale + bias
        return None
    x, mean = centered.args[0], _per_channel(centered.args[1], shape)
    dims = [0] + list(range(2, len(shape)))
    mean_nodes = _channel_mean(mean, x, dims)
    var, eps = invstd.args[0].args[0], _splat(invstd.args[0].args[1])
    square = var.args[0].args[0] if is_prim(var, "div") and is_prim(var.args[0], "sum") else None
    if mean_nodes is None or eps is None or not (is_prim(square, "mul") and square.args == (centered, centered)):
        return None
    var_nodes = _channel_mean(var, square, dims)
    if var_nodes is None:
        return None
    nodes += [scaled, scaled.args[1], centered, centered.args[1], invstd, invstd.args[0], square, *eps,
              *mean_nodes, *var_nodes] + ([scale] if weight is not None else [])
    stats = _running_stats(mean, var, math.prod(shape[d] for d in dims))
    new_mean = new_var = running_mean = running_var = None
    momentum = 0.1
    if stats is not None:
        new_mean, new_var, running_mean, running_var, momentum, more = stats
        nodes += more
    return ((y, mean, invstd, new_mean, new_var),
            (x, weight, bias, running_mean, running_var, momentum, filled(eps[0])), nodes)


@allocating
def batch_norm_training(x, weight, bias, running_mean, running_var, momentum, eps):
    """(output, mean, invstd, new running mean, new running var) of eager's batch norm in training."""
    if running_mean is None:
        return (*torch.ops.aten.native_batch_norm.default(x, weight, bias, None, None, True, momentum, eps),
                None, None)
    return torch.ops.aten._native_batch_norm_legit_functional.default(x, weight, bias, running_mean, running_var,
                                                                      True, momentum, eps)


def _match_backward(grad_input):
    """The decomposed training batch norm backward (decompositions/backward/normalization.py,
    ``_batch_norm_backward``) whose input gradient is ``grad_input``:
    (g * w * n - sum(g * w) - xhat * sum(g * w * xhat)) * invstd / n with xhat = (x - mean) * invstd, the
    weight optional; as ((grad_input, grad_weight, grad_bias), (g, x, weight, mean, invstd), nodes), the
    parameters' gradients found where the graph reads them (None where it does not), or None."""
    shape = tensor_of(grad_input).shape if tensor_of(grad_input) is not None else None
    if shape is None or not is_prim(grad_input, "mul") or not is_prim(grad_input.args[0], "mul"):
        return None
    dims = [0] + list(range(2, len(shape)))
    n = math.prod(shape[d] for d in dims)
    over_n, inner = _splat(grad_input.args[1], 1.0 / n if n else math.nan), grad_input.args[0]
    invstd = _per_channel(inner.args[1], shape)
    diff = inner.args[0]
    if over_n is None or invstd is None or not (is_prim(diff, "sub") and is_prim(diff.args[0], "sub")
                                                and is_prim(diff.args[1], "mul")):
        return None
    (scaled_g, spread_sum_g), (xhat, spread_sum_gx) = diff.args[0].args, diff.args[1].args
    if not (is_prim(scaled_g, "mul") and _splat(scaled_g.args[1], n) is not None and is_prim(xhat, "mul")):
        return None
    gw, sum_g, sum_gx = scaled_g.args[0], _per_channel(spread_sum_g, shape), _per_channel(spread_sum_gx, shape)
    centered, xhat_invstd = xhat.args[0], _per_channel(xhat.args[1], shape)
    if not (is_prim(sum_g, "sum") and sum_g.args[0] is gw and list(sum_g.args[1]) == dims
            and is_prim(sum_gx, "sum") and list(sum_gx.args[1]) == dims and is_prim(sum_gx.args[0], "mul")
            and sum_gx.args[0].args == (gw, xhat) and xhat_invstd is invstd and is_prim(centered, "sub")):
        return None
    x, mean = centered.args[0], _per_channel(centered.args[1], shape)
    g, weight = gw, None
    if is_prim(gw, "mul") and _per_channel(gw.args[1], shape) is not None:
        g, weight = gw.args[0], _per_channel(gw.args[1], shape)
    if mean is None:
        return None
    nodes = [grad_input, *over_n, inner, inner.args[1], diff, diff.args[0], diff.args[1], scaled_g,
             *_splat(scaled_g.args[1]), spread_sum_g, spread_sum_gx, sum_g, sum_gx, sum_gx.args[0], xhat,
             xhat.args[1], centered, centered.args[1]] + ([gw, gw.args[1]] if weight is not None else [])
    grad_weight = next((s for u in xhat.users if is_prim(u, "mul") and u.args == (g, xhat)
                        for s in u.users if is_prim(s, "sum") and list(s.args[1]) == dims), None)
    grad_bias = next((s for s in g.users if is_prim(s, "sum") and list(s.args[1]) == dims), None)
    if grad_weight is not None:
        nodes += [grad_weight, grad_weight.args[0]]
    return (grad_input, grad_weight, grad_bias), (g, x, weight, mean, invstd), nodes


@allocating
def batch_norm_training_backward(g, x, weight, mean, invstd, mask):
    """(grad_input, grad_weight, grad_bias) of eager's batch norm backward in training (None where not in
    ``mask``)."""
    return torch.ops.aten.native_batch_norm_backward.default(g, x, weight, None, None, mean, invstd, True, 0.0,
                                                              mask)


def batch_norm_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed batch norms in training of gm's graph, backward and (CPU) forward, as eager's kernels, in
    a copy of gm: the executor runs one kernel where the decomposition ran some twenty elementwise prims and
    reductions (and as many host calls), the values eager's (within the tolerance of the decomposition's).

    Only float32 / float64 (a half-precision input's upcast comes first and leaves the pattern unmatched), and
    where each result is laid out as the node it replaces."""
    gm = fuse_results(gm, _match_backward, batch_norm_training_backward, mask=True)
    return fuse_results(gm, _match_forward, batch_norm_training, mask=False)
