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


def to_aten(gm: torch.fx.GraphModule, example_inputs) -> torch.fx.GraphModule:
    """The prim graph gm as a graph of ATen ops: make_fx of the executor's graph (each prim's
    reference implementation) under the fake tensors gm was compiled for."""
    from torch._guards import detect_fake_mode
    from torch.fx.experimental.proxy_tensor import make_fx
    for fuse in fusion.ON_PRIMS:
        gm = fuse(gm)
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
    aten = fusion.bias_into_mm(aten)
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


def output_layouts(gm: torch.fx.GraphModule) -> list:
    """Per output of gm: None (not a tensor), a tuple of int strides (static), or the dims from outermost to
    innermost where the strides are symbolic and dense (None where they are symbolic and not dense)."""
    from torch.fx.experimental.symbolic_shapes import guard_or_false
    layouts = []
    for node in gm.graph.output_node().args[0]:
        val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
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


def with_layouts(outputs: list, layouts: list) -> list:
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
