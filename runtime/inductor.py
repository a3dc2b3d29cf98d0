"""A prim graph lowered back to ATen for Inductor (``primkit_inductor``): the re-fusion passes (fusion/), then
each prim node as the ATen ops of its executor kernel, traced under the graph's fake tensors."""
from __future__ import annotations

import functools

import torch

from primkit import prims
from primkit.runtime import executor, fusion


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


def _alias_for_inductor(reference):
    """alias and stop_gradient as aten.alias: the same view of a (its sizes, strides and offset), where the
    reference implementation's as_strided pins a layout. Inductor lays out an as_strided's input as its meta
    value's strides say, not as its layout optimization would: a ReLU's output, read by the backward's mask
    through an alias, stayed NCHW where Inductor's own path lays a convolution's consumers out channels-last,
    and the max pooling that read it loaded every window element by element instead of a vector of channels."""
    def alias(a):
        return torch.ops.aten.alias.default(a)
    return alias


# prim -> what Inductor receives instead of the executor's kernel (equal values and layout)
_FOR_INDUCTOR = {"pad": _pad_for_inductor, "alias": _alias_for_inductor, "stop_gradient": _alias_for_inductor}


@functools.cache
def _traceable(name: str, owned: bool):
    """The executor's kernel for prim ``name`` (or its form for Inductor, _FOR_INDUCTOR), or, where it
    reads storage (a data pointer, which a fake tensor has not), the prim op itself, which stays in the
    ATen graph as a custom op Inductor calls."""
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


def to_aten(gm: torch.fx.GraphModule, example_inputs, decompositions=None) -> torch.fx.GraphModule:
    """The prim graph gm as a graph of ATen ops: make_fx of the executor's graph (each prim's
    reference implementation) under the fake tensors gm was compiled for.

    ``decompositions`` (the backend gives Inductor's table): the graph Inductor's inner compiler takes, as its own
    AOTAutograd would have made it: the kernels' ATen ops through the table, and functional (a kernel's writes
    into a tensor it made, such as slice_update's, become out-of-place ops)."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx
    for fuse in fusion.ON_PRIMS:
        gm = fuse(gm)
    compiled = executor.compile(gm, constants=False, kernels=_traceable)   # Inductor folds constants itself
    if decompositions is not None:
        compiled = torch.func.functionalize(compiled, remove="mutations")
    fake_mode = detect_fake_mode(example_inputs)
    if fake_mode is None:
        aten = make_fx(compiled, decompositions, tracing_mode="fake")(*example_inputs)
    else:
        with fake_mode:
            aten = make_fx(compiled, decompositions, tracing_mode="real")(*example_inputs)
    # torch.reshape records aten.view where the traced strides allow a view; Inductor propagates
    # its own strides (e.g. for cat), under which the view may not exist: keep the reshape.
    for node in aten.graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.aten.view.default:
            node.target = torch.ops.aten.reshape.default
    aten = fusion.bias_into_mm(aten)
    aten.graph.eliminate_dead_code()
    _drop_unread_constants(aten)
    aten.recompile()
    return aten


def _drop_unread_constants(gm: torch.fx.GraphModule) -> None:
    """Delete gm's tensor constants that no node reads any more. make_fx keeps a tensor a kernel creates
    from a Python number (a float64 scalar the reference implementations divide or scale by) as a buffer of
    the traced module, and the buffer stays when dead-code elimination removes the node that read it, for
    Inductor to carry (compile_fx, when it took the lowered graph, made each an input that every call passed:
    71 on the bench's GPT-2)."""
    read = {node.target for node in gm.graph.nodes if node.op == "get_attr"}
    for name in [name for name, _ in gm.named_buffers(recurse=False) if name not in read]:
        delattr(gm, name)
