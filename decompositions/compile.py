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

import functools

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
    aten.recompile()
    return aten


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


def _inductor_compiler(gm: torch.fx.GraphModule, example_inputs):
    from functorch.compile import make_boxed_func
    from torch._inductor.compile_fx import compile_fx
    compiled = compile_fx(to_aten(gm, example_inputs), example_inputs)
    # compile_fx of a graph that dynamo did not capture is called with the inputs unpacked
    return make_boxed_func(lambda *args: compiled(*args))


def primkit_inductor(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The ``primkit_inductor`` torch.compile backend: AOTAutograd with primkit's table, each prim
    graph lowered back to ATen and compiled by Inductor (its public entry, compile_fx)."""
    from functorch.compile import min_cut_rematerialization_partition
    from torch._dynamo.backends.common import aot_autograd
    backend = aot_autograd(fw_compiler=_inductor_compiler, bw_compiler=_inductor_compiler, decompositions=_table(),
                           partition_fn=min_cut_rematerialization_partition, keep_inference_input_mutations=True)
    return backend(gm, example_inputs, **kwargs)
