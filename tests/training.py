"""One training step through AOTAutograd with primkit's table, checked against eager.

``check_training(model, args, kwargs)`` runs one forward and backward of ``model`` eagerly and
once through ``aot_function`` with ``get_decompositions()`` (parameters and buffers passed as
inputs through ``torch.func.functional_call``, so tied weights stay one parameter, as users tie
them), each after ``torch.manual_seed(SEED)`` so that dropout draws the same mask in both. The fw/bw
compilers record each graph, check it is prim-only and run it as is (the reference backend).
Compared: every output (a transformers ModelOutput's tensors, its cache's key and value tensors),
the loss, every parameter's gradient and every buffer after the step (batch norm's running
statistics).
"""
from __future__ import annotations

import copy

import torch
import torch.utils._pytree as pytree
from functorch.compile import aot_function, make_boxed_func

from primkit import decompositions, prims
from primkit.decompositions import get_decompositions
from primkit.graph import non_prim_ops
from primkit.decompositions.lowering import OPTIONAL_FAMILIES
from primkit.opinfo.tolerances import tolerance

# float32 on CPU: the training row of the one tolerance table (opinfo/tolerances.py, with the reason).
ATOL, RTOL = tolerance("training", torch.float32)
SEED = 1234


def output_tensors(out) -> tuple:
    """The tensors a model returns, in order: a tensor, a tuple, a dict or ModelOutput of them,
    and a transformers cache (Cache: each layer's keys and values; EncoderDecoderCache: its
    self-attention cache, then its cross-attention cache)."""
    if isinstance(out, torch.Tensor):
        return (out,)
    if hasattr(out, "self_attention_cache") and hasattr(out, "cross_attention_cache"):
        return output_tensors(out.self_attention_cache) + output_tensors(out.cross_attention_cache)
    if hasattr(out, "layers") and all(hasattr(layer, "keys") for layer in out.layers):
        return tuple(t for layer in out.layers for t in (layer.keys, layer.values))
    if isinstance(out, dict):   # ModelOutput is an OrderedDict of the fields that are set
        out = tuple(out.values())
    if isinstance(out, (tuple, list)):
        return tuple(t for o in out for t in output_tensors(o))
    return ()


def _cotangents(outputs, seed=0):
    """Fixed random weights for every floating output, so the loss reaches every output with a
    non-trivial gradient (a plain sum of a softmax has gradient zero). A generator of their own:
    the global one is the model's (dropout)."""
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(o.shape, generator=gen, dtype=o.dtype) if o.is_floating_point() else None
            for o in outputs]


def _loss(outputs, cotangents):
    return torch.stack([(o * c).sum() for o, c in zip(outputs, cotangents, strict=True) if c is not None]).sum()


def _recording_compiler(graphs, kind):
    def compiler(gm, example_inputs):
        graphs[kind] = gm
        return make_boxed_func(gm.forward)
    return compiler


def _prims_outside(gm, target):
    """The prims of gm outside ``target`` and the optional families (random draws, sorting, ...)."""
    used = {n.target for n in gm.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)}
    return {op._opname for op in used if op._opname not in target
            and prims.get(op._opname).family not in OPTIONAL_FAMILIES}


def check_training(model, args=(), kwargs=None, target=None):
    """One training step through AOTAutograd equals eager; with ``target`` (a backend's prim set) the
    graphs are lowered to it and hold only its prims and those of the optional families."""
    kwargs = kwargs or {}
    eager_model, aot_model = model, copy.deepcopy(model)

    torch.manual_seed(SEED)
    expected_out = output_tensors(eager_model(*args, **kwargs))
    cotangents = _cotangents(expected_out)
    expected_loss = _loss(expected_out, cotangents)
    expected_loss.backward()

    params, buffers = dict(aot_model.named_parameters()), dict(aot_model.named_buffers())

    def step(params, buffers, args, kwargs):
        return output_tensors(torch.func.functional_call(aot_model, {**params, **buffers}, args, kwargs))

    graphs = {}
    compiled = aot_function(step, fw_compiler=_recording_compiler(graphs, "forward"),
                            bw_compiler=_recording_compiler(graphs, "backward"),
                            decompositions=get_decompositions(**({} if target is None else {"target": target})))
    torch.manual_seed(SEED)
    with decompositions.tracing():   # libraries (transformers' masks) see a trace, as under torch.compile
        actual_out = compiled(params, buffers, args, kwargs)
    loss = _loss(actual_out, cotangents)
    loss.backward()

    assert set(graphs) == {"forward", "backward"}
    for kind, gm in graphs.items():
        assert non_prim_ops(gm) == [], f"{kind} graph holds non-prim ops: {non_prim_ops(gm)}"
        if target is not None:
            outside = sorted(_prims_outside(gm, target))
            assert not outside, f"{kind} graph holds prims outside the target: {outside}"
    assert len(actual_out) == len(expected_out), f"{len(actual_out)} outputs, eager gives {len(expected_out)}"
    for i, (a, e) in enumerate(zip(actual_out, expected_out, strict=True)):
        torch.testing.assert_close(a, e, atol=ATOL, rtol=RTOL, msg=lambda m, i=i: f"output {i}: {m}")
    torch.testing.assert_close(loss, expected_loss, atol=ATOL, rtol=RTOL, msg=lambda m: f"loss: {m}")
    expected_params = dict(eager_model.named_parameters())
    assert set(params) == set(expected_params)
    for name, p in expected_params.items():
        if p.grad is None:
            assert params[name].grad is None, f"{name} has a gradient, eager gives none"
            continue
        assert params[name].grad is not None, f"no gradient for {name}"
        torch.testing.assert_close(params[name].grad, p.grad, atol=ATOL, rtol=RTOL,
                                   msg=lambda m, name=name: f"grad of {name}: {m}")
    for name, buffer in eager_model.named_buffers():
        torch.testing.assert_close(buffers[name], buffer, atol=ATOL, rtol=RTOL,
                                   msg=lambda m, name=name: f"buffer {name}: {m}")
