"""torch.compile backends: ``backend="primkit"`` and ``backend="primkit_inductor"``.

    model = torch.compile(model, backend="primkit")            # prim graphs on the executor
    model = torch.compile(model, backend="primkit_inductor")   # prim graphs fused by Inductor

Both decompose each graph dynamo captures (graph breaks give several) through AOTAutograd with
``get_decompositions()``: forward and backward graphs of prims, dynamic shapes as dynamo traces
them. ``primkit`` runs them (AOTAutograd's with_effects nodes, linalg's error checks, lowered to prims by
graph.lower_effects) on the executor (runtime.executor). ``primkit_inductor`` is Inductor's compile_fx with
primkit's table (one AOTAutograd), each prim graph lowered back to ATen before Inductor's inner compiler
(runtime.inductor: the re-fusion passes of runtime/fusion/, then each prim node as the ATen ops of its
reference implementation, traced under the graph's fake tensors), which fuses it as it fuses its own
decompositions.

torch finds them by name through the ``torch_dynamo_backends`` entry points in pyproject.toml
(``torch._dynamo.list_backends()`` lists them once primkit is installed).
"""
from __future__ import annotations

import functools
import math

import torch

from primkit import prims
from primkit.decompositions import get_decompositions
from primkit.graph.effects import lower_effects
from primkit.runtime import executor, fusion
from primkit.runtime.inductor import to_aten

__all__ = ["primkit", "primkit_inductor", "to_aten"]


@functools.cache
def _table():
    """get_decompositions() without aten.copy_: AOTAutograd writes mutated graph inputs (batch
    norm's running statistics) back with aten.copy_ nodes at the end of the graph, the one mutation
    its functional-graph check admits (a copy_to there fails it); the executor and Inductor run
    them as they are."""
    return {op: fn for op, fn in get_decompositions().items() if op is not torch.ops.aten.copy_.default}


_SDPA = (torch._C._nn.scaled_dot_product_attention, torch.nn.functional.scaled_dot_product_attention,
         torch.ops.aten.scaled_dot_product_attention.default)


def _math_attention(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa):
    """scaled_dot_product_attention through eager's math path, as eager's CPU kernel calls it: a boolean mask
    first made an additive one of the query's dtype (the math op reads a boolean mask otherwise)."""
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = torch.zeros_like(attn_mask, dtype=q.dtype).masked_fill_(attn_mask.logical_not(), -math.inf)
    return torch.ops.aten._scaled_dot_product_attention_math(q, k, v, attn_mask, dropout_p, is_causal, None,
                                                              scale=scale, enable_gqa=enable_gqa)[0]


def attention_dropout_through_math(gm: torch.fx.GraphModule) -> torch.fx.GraphModule:
    """gm (as dynamo captured it) with each scaled_dot_product_attention that drops out (dropout_p > 0)
    calling eager's math path, ``aten._scaled_dot_product_attention_math``, in place.

    scaled_dot_product_attention picks its kernel when AOTAutograd traces it, before primkit's table is asked:
    on CUDA, with dropout, a fused kernel (efficient or flash attention) that draws its mask inside the kernel
    and redraws it in its backward from the seed and offset it returns, which no prim reproduces (the table
    refuses them). The math path, the one CPU takes with dropout, draws the mask with the dropout op, which
    primkit decomposes with torch's generator (on CPU: eager's numbers). A dropout_p that is not a number
    known when dynamo captured the graph is left as it is."""
    changed = False
    for node in gm.graph.nodes:
        if node.op != "call_function" or node.target not in _SDPA:
            continue
        names = ("query", "key", "value", "attn_mask", "dropout_p", "is_causal")
        bound = dict(zip(names, node.args))
        bound.update(node.kwargs)
        p = bound.get("dropout_p", 0.0)
        if not isinstance(p, (int, float)) or p <= 0:
            continue
        with gm.graph.inserting_before(node):
            out = gm.graph.call_function(
                _math_attention, (bound["query"], bound["key"], bound["value"], bound.get("attn_mask"), float(p),
                                  bool(bound.get("is_causal", False)), bound.get("scale"),
                                  bool(bound.get("enable_gqa", False))))
        node.replace_all_uses_with(out)
        gm.graph.erase_node(node)
        changed = True
    if changed:
        gm.recompile()
    return gm


def _executor_compiler(gm: torch.fx.GraphModule, example_inputs):
    from functorch.compile import make_boxed_func
    gm = lower_effects(gm, _table())
    for fuse in fusion.FOR_EXECUTOR:
        gm = fuse(gm)
    return make_boxed_func(executor.compile(gm).forward)


def primkit(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The ``primkit`` torch.compile backend: AOTAutograd with primkit's table, graphs on the executor."""
    from torch._dynamo.backends.common import aot_autograd
    backend = aot_autograd(fw_compiler=_executor_compiler, bw_compiler=_executor_compiler,
                           decompositions=_table(), keep_inference_input_mutations=True)
    return backend(attention_dropout_through_math(gm), example_inputs, **kwargs)


def _lower_then_compile(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """compile_fx's inner compiler for ``primkit_inductor``: a prim graph as Inductor's AOTAutograd partitioned
    it (inference, forward or backward) lowered to ATen with Inductor's decompositions (runtime.inductor), given
    Inductor's joint-graph passes (its ATen patterns and random numbers: compile_fx ran them on the prim graph,
    where the patterns do not match), then compiled by compile_fx_inner with the arguments compile_fx gave."""
    from torch._inductor.compile_fx import compile_fx_inner
    from torch._inductor.decomposition import select_decomp_table
    from torch._inductor.fx_passes.joint_graph import joint_graph_passes
    aten = joint_graph_passes(to_aten(gm, example_inputs, decompositions=select_decomp_table()))
    _symbolic_views_copied(aten)
    # the outputs compile_fx marked as the program's (Inductor keeps their strides)
    aten.graph.output_node().meta.update(gm.graph.output_node().meta)
    if "get_decomp_fn" in kwargs:   # torch 2.13: where Inductor falls back to an ATen op it checks its own table
        kwargs["get_decomp_fn"] = select_decomp_table
    return compile_fx_inner(aten, example_inputs, **kwargs)


def _may_alias(node: torch.fx.Node) -> bool:
    """Whether node's result may be a view of its operand (its schema says so: reshape too, which Inductor makes a
    view where the strides allow one)."""
    schema = getattr(node.target, "_schema", None)
    return schema is not None and any(r.alias_info is not None for r in schema.returns)


def _symbolic_views_copied(gm: torch.fx.GraphModule) -> None:
    """Each output of gm that may be a view, with symbolic strides, made a copy by the clone prim, which Inductor
    calls as it is (its post-grad passes drop an ATen clone of equal metadata, and it cannot lower _to_copy):
    Inductor orders an output view's strides by comparing them, which fails where they are symbolic
    (fusion.convolution's saved input relayout with dynamic shapes). Only graphs with dynamic shapes have them."""
    out = gm.graph.output_node()
    outputs = list(out.args[0])
    for i, node in enumerate(outputs):
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        if not isinstance(val, torch.Tensor) or node.op != "call_function" or not _may_alias(node) \
                or not any(isinstance(s, torch.SymInt) for s in val.stride()):
            continue
        with gm.graph.inserting_before(out):
            outputs[i] = gm.graph.call_function(prims.get("clone").op, (node,))
        outputs[i].meta["val"] = val.clone()
    out.args = (tuple(outputs),) + tuple(out.args[1:])
    gm.recompile()


_COMPARISONS = frozenset({"eq", "ne", "lt", "le", "gt", "ge"})


def _is_number(node: torch.fx.Node) -> bool:
    """Whether node's value is a number: not a tensor, or a 0-d tensor or a broadcast of one (every stride 0)."""
    val = node.meta.get("val")
    return not isinstance(val, torch.Tensor) or all(isinstance(s, int) and s == 0 for s in val.stride())


def _masks_recomputed(joint: torch.fx.Graph) -> None:
    """Marks each mask of AOTAutograd's joint graph that only the backward reads (a CPU comparison of one tensor
    with a number, as ReLU's gradient where(relu <= 0, 0, g)) to be recomputed in the backward.

    The partitioner recomputes no prim (a custom op is outside its allowlist), so the forward computed the mask
    and saved it as a bool tensor, where Inductor's own path saves what it compares and recomputes it. Inductor's
    CPU kernels store and load a bool tensor through a byte conversion of their vector masks, ~10x a float's cost:
    the bench ResNet's stem stored its 2x32x32x32 ReLU mask in ~0.5 ms (1 thread), where Inductor's own path runs
    that stem's whole forward (convolution, batch norm, ReLU, max pooling) in ~0.22 ms, and read it twice in the
    backward."""
    from torch.utils.checkpoint import CheckpointPolicy
    backward = set()
    for node in joint.nodes:
        if node.op == "placeholder" and node.name.startswith("tangents") \
                or any(a in backward for a in node.all_input_nodes):
            backward.add(node)
    for node in joint.nodes:
        val = node.meta.get("val")
        prim = prims.def_of(node.target) if node.op == "call_function" else None
        if node in backward or not node.users or any(u not in backward for u in node.users) \
                or prim is None or prim.name not in _COMPARISONS \
                or not isinstance(val, torch.Tensor) or val.device.type != "cpu":
            continue
        if len([a for a in node.args if isinstance(a, torch.fx.Node) and not _is_number(a)]) == 1:
            node.meta["recompute"] = CheckpointPolicy.MUST_RECOMPUTE


def _masks_pass():
    """_masks_recomputed as an Inductor joint-graph pass: compile_fx runs its joint-graph passes on AOTAutograd's
    joint graph before its min-cut partition (on inference and lowered graphs, where no mask is marked, too). Its
    uuid enters Inductor's cache key."""
    from torch._inductor.custom_graph_pass import CustomGraphPass, get_hash_for_files

    class MasksRecomputed(CustomGraphPass):
        def __call__(self, graph: torch.fx.Graph) -> None:
            _masks_recomputed(graph)

        def uuid(self):
            return get_hash_for_files((__file__,))
    return MasksRecomputed()


def primkit_inductor(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The ``primkit_inductor`` torch.compile backend: Inductor's compile_fx with primkit's table, so that its one
    AOTAutograd decomposes to prims and partitions, and each prim graph lowered back to ATen before Inductor's
    inner compiler (_lower_then_compile)."""
    from torch._functorch import config as functorch_config
    from torch._inductor import config as inductor_config
    from torch._inductor.compile_fx import compile_fx
    # AOTAutograd's on-disk cache keys a graph without its decomposition table or inner compiler: it would hand
    # Inductor's own compile of this graph to primkit_inductor, and this one to backend="inductor". (Inductor's
    # cache of each lowered graph stays.)
    # Donated buffers off: AOTAutograd lets the backward reuse a saved tensor's buffer where the forward graph shows
    # no output aliasing it, and it reads that off the prim graph, where every prim (alias, stop_gradient too)
    # returns a new tensor; lowered to ATen, a user output may be a view of a saved tensor (aten.alias), and the
    # backward wrote its convolution_backward results into a training ReLU's output the user held.
    # a joint-graph pass the program set stays, in place of primkit's (which only saves the backward time)
    passes = {} if inductor_config.joint_custom_pre_pass is not None else {"joint_custom_pre_pass": _masks_pass()}
    with functorch_config.patch(enable_autograd_cache=False, donated_buffer=False), inductor_config.patch(passes):
        return compile_fx(attention_dropout_through_math(gm), example_inputs, decompositions=_table(),
                          inner_compile=_lower_then_compile, **kwargs)
