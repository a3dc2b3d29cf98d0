"""torch.compile backends: ``backend="primkit"`` and ``backend="primkit_inductor"``.

    model = torch.compile(model, backend="primkit")            # prim graphs on the executor
    model = torch.compile(model, backend="primkit_inductor")   # prim graphs fused by Inductor

Both decompose each graph dynamo captures (graph breaks give several) through AOTAutograd with
``get_decompositions()``: forward and backward graphs of prims, dynamic shapes as dynamo traces
them. ``primkit`` runs them on the executor (decompositions.executor). ``primkit_inductor`` lowers
each prim graph back to ATen (each prim node becomes the ATen ops of its reference implementation,
traced under the graph's fake tensors) and hands it to Inductor, which fuses it as it fuses its own
decompositions.

torch finds them by name through the ``torch_dynamo_backends`` entry points in pyproject.toml
(``torch._dynamo.list_backends()`` lists them once primkit is installed).
"""
from __future__ import annotations

import contextlib
import functools
import math

import torch

__all__ = ["primkit", "primkit_inductor", "to_aten"]


@functools.cache
def _table():
    """get_decompositions() without aten.copy_: AOTAutograd writes mutated graph inputs (batch
    norm's running statistics) back with aten.copy_ nodes at the end of the graph, the one mutation
    its functional-graph check admits (a copy_to there fails it); the executor and Inductor run
    them as they are."""
    from primkit.decompositions import get_decompositions
    return {op: fn for op, fn in get_decompositions().items() if op is not torch.ops.aten.copy_.default}


def _executor_compiler(gm: torch.fx.GraphModule, example_inputs):
    from functorch.compile import make_boxed_func
    from primkit.decompositions import executor
    return make_boxed_func(executor.compile(gm).forward)


def _pad_for_inductor(reference):
    """pad as aten.constant_pad_nd where it has no interior padding: the same values and layout as the
    reference implementation (which builds the padded tensor with full and cat, for every case), as one op
    that Inductor lowers to a masked load and fuses into its readers (max pooling's windows) instead of
    materializing the padded tensor piece by piece."""
    def pad(a, padding_value, low, high, interior):
        if any(interior):
            return reference(a, padding_value, low, high, interior)
        return torch.constant_pad_nd(a, [p for d in reversed(range(a.dim())) for p in (low[d], high[d])],
                                     padding_value)
    return pad


# prim -> what Inductor receives instead of the executor's kernel (equal values and layout)
_FOR_INDUCTOR = {"pad": _pad_for_inductor}


@functools.cache
def _traceable(name: str, owned: bool):
    """The executor's kernel for prim ``name`` (or its form for Inductor, _FOR_INDUCTOR), or, where it
    reads storage (a data pointer, which a fake tensor has not), the prim op itself, which stays in the
    ATen graph as a custom op Inductor calls."""
    from primkit import prims
    from primkit.decompositions import executor
    kernel, op = executor.kernel_of(name, owned), prims.get(name).op
    if name in _FOR_INDUCTOR and not owned:
        kernel = _FOR_INDUCTOR[name](kernel)

    def run(*args, **kwargs):
        try:
            return kernel(*args, **kwargs)
        except RuntimeError as e:
            if "data pointer" not in str(e):
                raise
            return op(*args, **kwargs)
    run.__name__ = run.__qualname__ = f"{name}_traceable"
    return run


def primkit(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The ``primkit`` torch.compile backend: AOTAutograd with primkit's table, graphs on the executor."""
    from torch._dynamo.backends.common import aot_autograd
    backend = aot_autograd(fw_compiler=_executor_compiler, bw_compiler=_executor_compiler,
                           decompositions=_table(), keep_inference_input_mutations=True)
    return backend(gm, example_inputs, **kwargs)


def to_aten(gm: torch.fx.GraphModule, example_inputs) -> torch.fx.GraphModule:
    """The prim graph gm as a graph of ATen ops: make_fx of the executor's graph (each prim's
    reference implementation) under the fake tensors gm was compiled for."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx
    from primkit.decompositions import executor
    gm = _max_pool_as_aten(_layer_norm_as_aten(_without_dead_index_wraps(_attention_as_sdpa(gm))))
    compiled = executor.compile(gm, constants=False, kernels=_traceable)   # Inductor folds constants itself
    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        aten = make_fx(compiled, tracing_mode="fake")(*example_inputs)
    else:
        with fake_mode:
            aten = make_fx(compiled, tracing_mode="real")(*example_inputs)
    # torch.reshape records aten.view where the traced strides allow a view; Inductor propagates
    # its own strides (e.g. for cat), under which the view may not exist: keep the reshape.
    for node in aten.graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.aten.view.default:
            node.target = torch.ops.aten.reshape.default
    _bias_into_mm(aten.graph)
    aten.graph.eliminate_dead_code()
    _drop_unread_constants(aten)
    aten.recompile()
    return aten


def _drop_unread_constants(gm: torch.fx.GraphModule) -> None:
    """Delete gm's tensor constants that no node reads any more. make_fx keeps a tensor a kernel creates
    from a Python number (a float64 scalar the reference implementations divide or scale by) as a buffer of
    the traced module, and the buffer stays when dead-code elimination removes the node that read it;
    compile_fx lifts every buffer into an input of the compiled graph, which each call then passes (71
    unread inputs on the bench's GPT-2)."""
    read = {node.target for node in gm.graph.nodes if node.op == "get_attr"}
    for name in [name for name, _ in gm.named_buffers(recurse=False) if name not in read]:
        delattr(gm, name)


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


def _bias_into_mm(graph):
    """mm(a, b) + a row bias as addmm(bias, a, b): the op a linear layer reaches Inductor as on its own
    path (the bias added by the GEMM's epilogue, not by a pass of its own over the product)."""
    aten = torch.ops.aten
    for node in list(graph.nodes):
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
            with graph.inserting_before(node):
                fused = graph.call_function(aten.addmm.default, (bias, *product.args))
            fused.meta.update(node.meta)
            node.replace_all_uses_with(fused)
            graph.erase_node(node)
            break


def _graph_copy(gm: torch.fx.GraphModule):
    """(graph, env): a copy of gm's graph for a pass to rewrite, and the map from gm's nodes to the copy's."""
    graph, env = torch.fx.Graph(), {}
    graph.output(graph.graph_copy(gm.graph, env))
    return graph, env


def _module(gm: torch.fx.GraphModule, graph: torch.fx.Graph, replaced) -> torch.fx.GraphModule:
    """The rewritten copy of gm's graph as a module of gm's attributes and meta, the nodes of ``replaced``
    that nothing reads any more erased."""
    for node in reversed(list(graph.nodes)):
        if node in replaced and not node.users:
            graph.erase_node(node)
    copy = torch.fx.GraphModule(gm, graph)
    copy.meta = dict(getattr(gm, "meta", {}))
    return copy


def _prim(node, name: str) -> bool:
    from primkit import prims
    if not (isinstance(node, torch.fx.Node) and node.op == "call_function"):
        return False
    prim = prims.def_of(node.target)
    return prim is not None and prim.name == name


def _filled(node):
    """The scalar a node holds or splats (a scalar constant, canonicalize's, or its broadcast to any shape,
    symbolic sizes included), or None."""
    from primkit.decompositions.canonicalize import scalar_constant
    if _prim(node, "broadcast_in_dim") and list(node.args[2]) == []:
        node = node.args[0]
    constant = scalar_constant(node)
    return None if constant is None else constant[0]


def _val(node):
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _only_read_by(nodes, inside) -> bool:
    """Whether every reader of ``nodes`` is in ``inside`` (a pattern's intermediates not read outside it)."""
    return all(u in inside for n in nodes for u in n.users)


def _row_reduced(node, op: str, source, fill_if, fill):
    """Whether node is where(eq(r, fill_if), fill, r) with r = op(source, [2]), broadcast back along dim 2:
    the guarded row maximum (and row total) of the softmax scaled_dot_product_attention decomposes to."""
    if not (_prim(node, "broadcast_in_dim") and list(node.args[2]) == [0, 1]):
        return None
    guarded = node.args[0]
    if not (_prim(guarded, "where") and _filled(guarded.args[1]) == fill):
        return None
    cond, reduced = guarded.args[0], guarded.args[2]
    if not (_prim(reduced, op) and reduced.args[0] is source and list(reduced.args[1]) == [2]
            and _prim(cond, "eq") and cond.args[0] is reduced and _filled(cond.args[1]) == fill_if):
        return None
    return [node, guarded, cond, reduced]


def _same(a, b) -> bool:
    """Whether two sizes (ints or symbolic) are known equal, adding no guard to the shape environment."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true
    return statically_known_true(a == b)


def _same_shape(a, b) -> bool:
    return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))


def _four_d(flat):
    """The 4-D (batch, heads, rows, cols) tensor node a 3-D operand is the reshape of, or None."""
    if not _prim(flat, "reshape"):
        return None
    full, out = _val(flat.args[0]), _val(flat)
    if full is not None and full.dim() == 4 and _same(full.shape[0] * full.shape[1], out.shape[0]) \
            and _same_shape(full.shape[2:], out.shape[1:]):
        return flat.args[0]
    return None


def _match_attention(out):
    """The decomposed attention (decompositions/nn/attention.py, ``_attention``) that ends in the batched
    matmul ``out``, as (q, k, v, mask, scale, nodes): 3-D operands, the additive or boolean mask (or None)
    and the nodes of the pattern; or None where out is something else."""
    if not _prim(out, "matmul"):
        return None
    probs, v = out.args
    if not _prim(probs, "div"):
        return None
    weights, total = probs.args
    if not (_prim(weights, "exp") and _prim(weights.args[0], "sub")):
        return None
    scores, row_max = weights.args[0].args
    guards = _row_reduced(row_max, "amax", scores, -math.inf, 0), _row_reduced(total, "sum", weights, 0, 1)
    if None in guards:
        return None
    nodes = [probs, weights, weights.args[0], *guards[0], *guards[1]]
    mask = None
    if _prim(scores, "add"):
        nodes.append(scores)
        scores, mask = scores.args
    elif _prim(scores, "where") and _filled(scores.args[2]) == -math.inf:
        nodes.append(scores)
        mask, scores = scores.args[:2]
    scale = _filled(scores.args[1]) if _prim(scores, "mul") else None
    if not (isinstance(scale, (int, float)) and _prim(scores.args[0], "matmul")):
        return None
    product = scores.args[0]
    q, kt = product.args
    if not (_prim(kt, "permute") and list(kt.args[1]) == [0, 2, 1]):
        return None
    nodes += [scores, product, kt]
    return q, kt.args[0], v, mask, float(scale), nodes


def _unbroadcast(node):
    """The tensor a 4-D mask is broadcast from, where it is 4-D too (the kernel broadcasts masks itself;
    Inductor would otherwise materialize the expanded mask for it)."""
    if _prim(node, "broadcast_in_dim") and list(node.args[2]) == [0, 1, 2, 3]:
        return node.args[0]
    return node


def _sdpa(q, k, v, mask, scale):
    return torch.ops.aten.scaled_dot_product_attention.default(q, k, v, mask, 0.0, False, scale=scale)


def _attention_as_sdpa(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed scaled dot-product attention of gm's graph as one scaled_dot_product_attention call,
    in a copy of gm: the op Inductor's own path gets, and lowers on CPU to its flash-attention kernel (blocked,
    online softmax) instead of two batched matmuls around a softmax.

    Only where the value is the decomposition's, in the same computation dtype: CPU float32/float64 operands
    (the decomposition's upcast precedes them), no dropout (its mask multiplies the probabilities, which then
    do not match), an additive mask, a boolean mask or none, and no intermediate (the probabilities, their
    row maximum or total) read outside the pattern. Sizes may be symbolic where the pattern's are known equal
    without a new guard. A fully masked row gives zeros on both (eager's CPU kernels return 0 there, as the
    decomposition does: see tests/test_compile.py). CUDA is left decomposed: its fused kernels' fully masked
    rows have not been checked against the decomposition here."""
    matches = []
    for node in gm.graph.nodes:
        found = _match_attention(node)
        if found is None:
            continue
        q, k, v, mask, scale, nodes = found
        vals = [_val(t) for t in (q, k, v)] + ([] if mask is None else [_val(mask)])
        if None in vals or any(t.dim() != 3 or t.device.type != "cpu" for t in vals):
            continue
        if not all(t.dtype == vals[0].dtype for t in vals[:3]) or vals[0].dtype not in (torch.float32, torch.float64):
            continue
        if mask is not None and (vals[3].dtype not in (torch.bool, vals[0].dtype) or not _same_shape(
                vals[3].shape, (vals[0].shape[0], vals[0].shape[1], vals[1].shape[1]))):
            continue
        if not _only_read_by(nodes, set(nodes) | {node}):
            continue
        # the (batch, heads, rows, cols) operands the decomposition flattened (the kernel takes 4-D ones)
        operands = [None if t is None else _four_d(t) for t in (q, k, v, mask)]
        heads = _val(operands[0]).shape[:2] if operands[0] is not None else None
        if None in operands[:3] or (mask is not None and operands[3] is None) \
                or not all(_same_shape(_val(t).shape[:2], heads) for t in operands[1:] if t is not None):
            continue
        matches.append((node, *operands, scale, nodes))
    if not matches:
        return gm
    graph, env = _graph_copy(gm)
    replaced = set()
    for node, *operands, scale, nodes in matches:
        replaced.update(env[n] for n in nodes + [node])
        out, operands = env[node], [None if t is None else env[t] for t in operands]
        if operands[3] is not None:
            operands[3] = _unbroadcast(operands[3])
        with graph.inserting_before(out):
            fused = graph.call_function(_sdpa, (*operands, scale))
            flat = graph.call_function(torch.ops.aten.flatten.using_ints, (fused, 0, 1))   # (batch * heads, rows, cols)
        flat.meta.update(out.meta)
        out.replace_all_uses_with(flat)
        unflat = (*_val(operands[0]).shape[:3], _val(out).shape[2])
        for user in list(flat.users):   # the reshape back to (batch, heads, rows, cols) is the fused result
            if _prim(user, "reshape") and _val(user) is not None and _same_shape(_val(user).shape, unflat):
                user.replace_all_uses_with(fused)
    return _module(gm, graph, replaced)   # the decomposed attention erased, now unread


def _row_mean(node, source, dims):
    """The nodes of div(sum(source, dims), n) (the mean over dims, n their element count), or None."""
    if not (_prim(node, "div") and _prim(node.args[0], "sum")):
        return None
    total = node.args[0]
    if total.args[0] is not source or list(total.args[1]) != dims:
        return None
    count = _filled(node.args[1])
    if not isinstance(count, (int, float)) or not _same(math.prod(_val(source).shape[d] for d in dims), count):
        return None
    return [node, total]


def _kept(node, shape, dims):
    """The reduced tensor node broadcasts back over dims to shape (keep_expanded), or None."""
    if not (_prim(node, "broadcast_in_dim") and _val(node) is not None and _same_shape(_val(node).shape, shape)):
        return None
    return node.args[0] if list(node.args[2]) == [d for d in range(len(shape)) if d not in dims] else None


def _match_layer_norm(core):
    """The decomposed layer norm (decompositions/nn/normalization.py, ``native_layer_norm``) whose
    normalized value is ``core`` = (x - mean) * rsqrt(var + eps), as (x, dims, eps, nodes), or None."""
    if not _prim(core, "mul") or not _prim(core.args[0], "sub"):
        return None
    centered, x = core.args[0], core.args[0].args[0]
    val = _val(x)
    if val is None or not isinstance(core.args[1], torch.fx.Node) or not isinstance(centered.args[1], torch.fx.Node):
        return None
    shape = val.shape
    # the broadcasts' operands; that they broadcast over the summed dims is checked below
    rstd = core.args[1].args[0] if _prim(core.args[1], "broadcast_in_dim") else None
    mean = centered.args[1].args[0] if _prim(centered.args[1], "broadcast_in_dim") else None
    if not (_prim(rstd, "rsqrt") and _prim(mean, "div") and _prim(mean.args[0], "sum")):
        return None
    dims = list(mean.args[0].args[1])
    if dims != list(range(val.dim() - len(dims), val.dim())) or not dims:
        return None
    mean_nodes = _row_mean(mean, x, dims)
    if mean_nodes is None or _kept(centered.args[1], shape, dims) is not mean \
            or _kept(core.args[1], shape, dims) is not rstd:
        return None
    shifted = rstd.args[0]
    eps = _filled(shifted.args[1]) if _prim(shifted, "add") else None
    if not isinstance(eps, (int, float)):
        return None
    var = shifted.args[0]
    square = var.args[0].args[0] if _prim(var, "div") and _prim(var.args[0], "sum") else None
    if not (_prim(square, "mul") and square.args[0] is centered and square.args[1] is centered):
        return None
    var_nodes = _row_mean(var, square, dims)
    if var_nodes is None:
        return None
    nodes = [centered, centered.args[1], *mean_nodes, core.args[1], rstd, shifted, *var_nodes, square]
    return x, dims, eps, nodes


def _affine_of(node, name, shape, dims):
    """The parameter p where node's single user is name(node, broadcast_in_dim(p, shape, dims)) with p of
    node's dtype (the layer norm's weight, for "mul", or bias, for "add"), as (user, p, broadcast), or None."""
    if len(node.users) != 1:
        return None
    (user,) = node.users
    if not (_prim(user, name) and user.args[0] is node and _prim(user.args[1], "broadcast_in_dim")):
        return None
    spread, param = user.args[1], user.args[1].args[0]
    if not (_val(spread) is not None and _same_shape(_val(spread).shape, shape) and list(spread.args[2]) == dims
            and len(spread.users) == 1):
        return None
    if _val(param) is None or _val(param).dtype != _val(node).dtype:
        return None
    return user, param, spread


def _layer_norm(x, normalized_shape, weight, bias, eps):
    return torch.ops.aten.native_layer_norm.default(x, normalized_shape, weight, bias, eps)[0]


def _layer_norm_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """The decomposed layer norms of gm's graph as aten.native_layer_norm calls, in a copy of gm: the op
    Inductor's own path gets, whose lowering keeps each row's mean in a buffer of its own (divided once per
    row), where the decomposition's mean, a cheap pointwise op, is recomputed inside every loop that reads it.

    Only where the value is the decomposition's: CPU float32/float64 (a half-precision input's upcast comes
    first, so the op computes in float32 as well), normalized dims trailing, a weight and bias of the
    computation dtype (others stay as the multiply and add they are), and no intermediate (the mean, the
    rstd, the deviations) read outside the pattern: a training graph, which keeps the mean and rstd for the
    backward, is left as it is."""
    from primkit.prims.meta.strides import contiguous_strides
    matches = []
    for node in gm.graph.nodes:
        found = _match_layer_norm(node)
        if found is None:
            continue
        x, dims, eps, nodes = found
        val = _val(x)
        if val.device.type != "cpu" or val.dtype not in (torch.float32, torch.float64):
            continue
        # contiguous, as the decomposition makes its input: the op's result is laid out as the pattern's
        if not _same_shape(val.stride(), contiguous_strides(val.shape)):
            continue
        if not _only_read_by(nodes, set(nodes) | {node}):
            continue
        shape = list(val.shape)
        out, params, inside = node, [None, None], [node, *nodes]
        for i, name in enumerate(("mul", "add")):
            found = _affine_of(out, name, shape, dims)
            if found is not None:
                out, params[i], spread = found
                inside += [out, spread]
        matches.append((out, x, [shape[d] for d in dims], *params, eps, inside))
    if not matches:
        return gm
    graph, env = _graph_copy(gm)
    replaced = set()
    for out, x, normalized, weight, bias, eps, inside in matches:
        replaced.update(env[n] for n in inside)
        new = env[out]
        with graph.inserting_before(new):
            fused = graph.call_function(_layer_norm, (env[x], normalized, None if weight is None else env[weight],
                                                      None if bias is None else env[bias], eps))
        fused.meta.update(new.meta)
        new.replace_all_uses_with(fused)
    return _module(gm, graph, replaced)   # the decomposed layer norms erased, now unread


def _window_slices(out):
    """The slices whose elementwise maximum ``out`` is, a left-to-right chain of maximum nodes (the
    decomposed max pooling's reduction), with the chain's nodes, or None."""
    chain, node = [], out
    while _prim(node, "maximum") and (node is out or len(node.users) == 1):
        chain.append(node)
        node = node.args[0]
    if not chain:
        return None
    leaves = [chain[-1].args[0]] + [n.args[1] for n in reversed(chain)]
    return (leaves, chain) if all(_prim(leaf, "slice") for leaf in leaves) else None


def _max_pool_geometry(padded, slices):
    """(kernel, stride, padding, dilation) of the 2-d max pooling whose windows are ``slices`` of ``padded``
    (the input padded with -inf on its last two dims, or the input itself), offsets in row-major order; or
    None where the slices are something else."""
    shape = _val(padded).shape
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
    if any(s.args[0] is not padded or len(s.users) != 1 for s in slices) or _val(padded) is None:
        return None
    x, padding, nodes = padded, [0, 0], [*chain, *slices]
    if _prim(padded, "pad"):
        x, fill, low, high, interior = padded.args
        rank = len(low)
        if fill != -math.inf or any(interior) or any(low[:rank - 2]) or any(high[:rank - 2]) \
                or len(padded.users) != len(slices):
            return None
        padding, nodes = list(low[rank - 2:]), nodes + [padded]
        if min(padding) < 0:
            return None
    val = _val(x)
    if val is None or not val.dtype.is_floating_point or not all(isinstance(d, int) for d in val.shape):
        return None
    geometry = _max_pool_geometry(padded, slices)
    if geometry is None:
        return None
    from primkit.decompositions.nn.pooling import pool_geometry
    kernel, stride, dilation = geometry
    for ceil_mode in (False, True):
        try:   # max_pool2d's own checks (rank, padding at most half the window) and output size
            out_size = pool_geometry("max_pool2d", val, 2, kernel, stride, padding, dilation, ceil_mode)[-1]
        except RuntimeError:
            continue
        if out_size == list(_val(out).shape[-2:]):
            return x, (kernel, stride, padding, dilation, ceil_mode), nodes
    return None


def _max_pool_as_aten(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
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
        val = _val(x)
        with val.fake_mode if hasattr(val, "fake_mode") else contextlib.nullcontext():
            pooled = _max_pool2d(val, *geometry)
        if not _same_shape(pooled.stride(), _val(node).stride()):
            continue
        matches.append((node, x, geometry, nodes))
    if not matches:
        return gm
    graph, env = _graph_copy(gm)
    replaced = set()
    for node, x, geometry, nodes in matches:
        replaced.update(env[n] for n in nodes)
        new = env[node]
        with graph.inserting_before(new):
            fused = graph.call_function(_max_pool2d, (env[x], *geometry))
        fused.meta.update(new.meta)
        new.replace_all_uses_with(fused)
    return _module(gm, graph, replaced)   # the decomposed poolings erased, now unread


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
        val = _val(node)
        if node.op != "call_function" or val is None or val.dtype.is_floating_point or val.dtype.is_complex \
                or val.dtype == torch.bool:
            continue
        constant = _filled(node)
        args = node.args
        if constant is not None:
            ok = isinstance(constant, (int, bool)) and constant >= 0
        elif _prim(node, "iota"):
            ok = all(statically_known_true(node.kwargs[k] >= 0) for k in ("start", "step"))
        elif any(_prim(node, name) for name in _SAME_ELEMENTS):
            ok = args[0] in known
        elif _prim(node, "convert_element_type"):   # to as wide an integer type: the same values
            source = _val(args[0])
            ok = args[0] in known and source is not None and val.itemsize >= source.itemsize and val.is_signed()
        elif _prim(node, "add") or _prim(node, "mul"):
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
    if not _prim(node, "where"):
        return None
    cond, wrapped, index = node.args
    if index not in known or not (_prim(cond, "lt") and cond.args[0] is index and _filled(cond.args[1]) == 0):
        return None
    if not (_prim(wrapped, "add") and wrapped.args[0] is index and _filled(wrapped.args[1]) is not None):
        return None
    return index


def _without_dead_index_wraps(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """gm with the negative-index wraps of indices known to be non-negative removed, in a copy of gm.

    Indexing decomposes to a position computed with where(i < 0, i + n, i); where i is an arange's positions
    (transformers builds its padding mask as padding_mask[batch_arange, kv_arange]) the where is dead, and
    it hides from Inductor that the position is affine in the loop indices: Inductor then gathers with a
    bounds check, element by element, where its own path (aten.index on the aranges) loads directly."""
    known = _non_negative_nodes(gm.graph)
    matches = [(node, index) for node in gm.graph.nodes if (index := _dead_index_wrap(node, known)) is not None]
    if not matches:
        return gm
    graph, env = _graph_copy(gm)
    replaced = set()
    for node, index in matches:
        replaced.update(env[n] for n in (node, *node.args[:2]))   # the where, its test and the wrapped index
        env[node].replace_all_uses_with(env[index])
    return _module(gm, graph, replaced)


def _output_layouts(gm: torch.fx.GraphModule) -> list:
    """Per output of gm: None (not a tensor), a tuple of int strides (static), or the dims from outermost to
    innermost where the strides are symbolic and dense (None where they are symbolic and not dense)."""
    from torch.fx.experimental.symbolic_shapes import guard_or_false
    layouts = []
    for node in gm.graph.output_node().args[0]:
        val = _val(node) if isinstance(node, torch.fx.Node) else None
        if not isinstance(val, torch.Tensor):
            layouts.append(None)
        elif all(isinstance(s, int) for s in val.stride()):
            layouts.append(tuple(val.stride()))
        else:
            order = sorted(range(val.dim()), key=lambda d: val.stride()[d].node.hint if isinstance(
                val.stride()[d], torch.SymInt) else val.stride()[d], reverse=True)
            dense, expect = True, 1
            for d in reversed(order):
                dense = dense and (guard_or_false(val.shape[d] == 1) or guard_or_false(val.stride()[d] == expect))
                expect = expect * val.shape[d]
            layouts.append(order if dense else None)
    return layouts


def _with_layouts(outputs: list, layouts: list) -> list:
    """outputs, each tensor laid out with the strides its meta value promised (a copy where Inductor chose
    another layout)."""
    for i, (out, layout) in enumerate(zip(outputs, layouts)):
        if layout is None or not isinstance(out, torch.Tensor):
            continue
        if isinstance(layout, list):   # symbolic: dense in this dim order
            strides, expect = [0] * out.dim(), 1
            for d in reversed(layout):
                strides[d], expect = expect, expect * out.shape[d]
            layout = tuple(strides)
        if out.numel() > 1 and out.stride() != layout:
            outputs[i] = torch.empty_strided(out.shape, layout, dtype=out.dtype, device=out.device).copy_(out)
    return outputs


def _inductor_compiler(gm: torch.fx.GraphModule, example_inputs):
    from functorch.compile import make_boxed_func
    from torch._inductor.compile_fx import compile_fx
    compiled = compile_fx(to_aten(gm, example_inputs), example_inputs)
    # Inductor keeps a graph output's strides on a best-effort basis, and compile_fx's own AOTAutograd does not
    # report the forward's output strides to the outer one (as its own backend's forward does), so the backward
    # was compiled for the strides gm's meta values promise: a forward output Inductor laid out otherwise (a
    # saved activation, a concatenated cache) is copied into that layout. gpt2's training step failed
    # Inductor's stride assertion in the backward without it (an empty Inductor cache).
    layouts = _output_layouts(gm)
    # compile_fx of a graph that dynamo did not capture is called with the inputs unpacked
    return make_boxed_func(lambda *args: _with_layouts(list(compiled(*args)), layouts))


def primkit_inductor(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The ``primkit_inductor`` torch.compile backend: AOTAutograd with primkit's table, each prim
    graph lowered back to ATen and compiled by Inductor (its public entry, compile_fx)."""
    from functorch.compile import min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd
    backend = aot_autograd(fw_compiler=_inductor_compiler, bw_compiler=_inductor_compiler, decompositions=_table(),
                           partition_fn=min_cut_rematerialization_partition, keep_inference_input_mutations=True)
    return backend(gm, example_inputs, **kwargs)
