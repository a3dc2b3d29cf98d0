"""OpInfo entries: layer, RMS, batch, group and instance norm, weight norm."""
from __future__ import annotations

import math
import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, _entry, aten, out_entry
from primkit.opinfo.samples import layouts, make


def sample_inputs_layer_norm(op, device, dtype):
    for shape, normalized in (((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,)), ((0, 4), (4,)),
                              ((2, 3, 4, 5), (5,))):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (normalized,), name=f"{name} {shape} {normalized}")
            w, b = make(normalized, device, dtype), make(normalized, device, dtype)
            yield SampleInput(t, (normalized, w, b), {"eps": 1e-3}, name=f"{name} {shape} affine")
    yield SampleInput(make((3, 4), device, dtype), ((4,), make((4,), device, dtype)), name="weight only")
    yield SampleInput(make((3, 4), device, dtype) * 1e3 + 1e4, ((4,),), name="large offset")


def error_inputs_layer_norm(op, device):
    x = make((2, 3), device, torch.float32)
    yield ErrorInput(SampleInput(x, ((4,),)), RuntimeError, r"expected input with shape \[\*, 4\]")
    yield ErrorInput(SampleInput(x, ((3,), make((4,), device, torch.float32))), RuntimeError,
                     "Expected weight to be of same shape as normalized_shape")


def sample_inputs_rms_norm(op, device, dtype):
    for shape, normalized in (((2, 3, 4), (4,)), ((2, 3, 4), (3, 4)), ((5,), (5,)), ((0, 4), (4,))):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (normalized,), name=f"{name} {shape} {normalized}")
            yield SampleInput(t, (normalized, make(normalized, device, dtype)), {"eps": 1e-3},
                              name=f"{name} {shape} weight eps")


def error_inputs_rms_norm(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), ((4,),)), RuntimeError,
                     r"expected input with shape \[\*")


def sample_inputs_batch_norm(op, device, dtype):
    stat_dtype = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    for shape in ((4, 3), (2, 3, 5), (2, 3, 4, 5), (1, 3, 2, 2, 2)):
        c = shape[1]
        for name, t in layouts(shape, device, dtype):
            rm, rv = make((c,), device, stat_dtype), make((c,), device, stat_dtype, low=0.5, high=2)
            w, b = make((c,), device, stat_dtype), make((c,), device, stat_dtype)
            yield SampleInput(t, (rm, rv), {"training": False}, name=f"eval {name} {shape}")
            yield SampleInput(t, (rm, rv, w, b), {"training": False, "eps": 1e-3}, name=f"eval affine {name} {shape}")
            yield SampleInput(t, (rm.clone(), rv.clone(), w, b), {"training": True, "momentum": 0.2},
                              name=f"train {name} {shape}")
            yield SampleInput(t, (None, None), {"training": True}, name=f"train no stats {name} {shape}")


def error_inputs_batch_norm(op, device):
    x = make((2, 3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(x, (torch.zeros(4, device=device), torch.ones(4, device=device))), RuntimeError,
                     "running_mean should contain 3 elements not 4")
    yield ErrorInput(SampleInput(x, (None, None), {"training": False}), RuntimeError,
                     "running_mean must be defined in evaluation mode")


def sample_inputs_group_norm(op, device, dtype):
    for shape, groups in (((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((2, 4), 2), ((3, 6, 2, 2), 1)):
        c = shape[1]
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (groups,), name=f"{name} {shape} groups={groups}")
            yield SampleInput(t, (groups, make((c,), device, dtype), make((c,), device, dtype)), {"eps": 1e-3},
                              name=f"{name} {shape} affine")


def error_inputs_group_norm(op, device):
    yield ErrorInput(SampleInput(make((2, 6, 3), device, torch.float32), (4,)), RuntimeError,
                     "Expected number of channels in input to be divisible by num_groups")


def _stats_dtype(dtype):
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def sample_inputs_native_batch_norm(op, device, dtype):
    """(input, weight, bias, running_mean, running_var, training, momentum, eps), as aten takes them."""
    sd = _stats_dtype(dtype)
    for shape in ((4, 3), (2, 3, 5), (2, 3, 4, 5)):
        c = shape[1]
        for name, t in layouts(shape, device, dtype):
            if name == "expanded":   # equal rows: zero variance, a degenerate batch
                continue
            rm, rv = make((c,), device, sd), make((c,), device, sd, low=0.5, high=2)
            w, b = make((c,), device, sd), make((c,), device, sd)
            yield SampleInput(t, (w, b, rm, rv, False, 0.1, 1e-5), name=f"eval {name} {shape}")
            yield SampleInput(t, (w, b, rm.clone(), rv.clone(), True, 0.2, 1e-3), name=f"train {name} {shape}")
            yield SampleInput(t, (None, None, rm, rv, False, 0.1, 1e-5), name=f"eval no affine {name} {shape}")


def _dense_when_training(samples):
    """Eager's native_batch_norm.out (and _native_batch_norm_legit's, _batch_norm_with_update's) writes
    none of its outs for a non-contiguous input in training mode (the functional form is right): such
    samples would test that eager bug, not the decomposition, so these entries leave them out."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            training = s.args[-3]
            if not training or s.input.is_contiguous() or s.input.is_contiguous(memory_format=torch.channels_last):
                yield s
    return gen


def _without_stats(samples):
    """_native_batch_norm_legit.no_stats: training-mode samples without the running statistics."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            weight, bias, _, _, training, momentum, eps = s.args
            if training:
                yield SampleInput(s.input, (weight, bias, training, momentum, eps), name=s.name)
    return gen


def _in_mode(samples, training):
    """native_batch_norm's samples of one mode, without ``training``: the evaluation-mode ones are
    _native_batch_norm_legit_no_training's, the training-mode ones _batch_norm_with_update's."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            weight, bias, rm, rv, in_training, momentum, eps = s.args
            if bool(in_training) == training:
                yield SampleInput(s.input, (weight, bias, rm, rv, momentum, eps), name=s.name)
    return gen



def batch_norm_with_update_and_stats(a, weight, bias, running_mean, running_var, momentum, eps):
    """_batch_norm_with_update's results, then the running statistics it updated in place."""
    return (*aten._batch_norm_with_update(a, weight, bias, running_mean, running_var, momentum, eps),
            running_mean, running_var)


def sample_inputs_native_group_norm(op, device, dtype):
    """(input, weight, bias, N, C, HxW, group, eps). The kernel takes dense inputs only (group_norm
    makes its input contiguous first)."""
    for shape, groups in (((2, 6, 5), 3), ((2, 4, 3, 3), 2), ((2, 4), 2), ((3, 6, 2, 2), 1)):
        n, c, hxw = shape[0], shape[1], math.prod(shape[2:])
        for name, t in layouts(shape, device, dtype):
            if name not in ("contiguous", "channels_last"):
                continue
            yield SampleInput(t, (None, None, n, c, hxw, groups, 1e-5), name=f"{name} {shape} groups={groups}")
            yield SampleInput(t, (make((c,), device, dtype), make((c,), device, dtype), n, c, hxw, groups, 1e-3),
                              name=f"{name} {shape} groups={groups} affine")


def sample_inputs_native_layer_norm(op, device, dtype):
    """(input, normalized_shape, weight, bias, eps)."""
    for shape, normalized in (((2, 3, 4), [4]), ((2, 3, 4), [3, 4]), ((5,), [5]), ((0, 4), [4])):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (normalized, None, None, 1e-5), name=f"{name} {shape} {normalized}")
            yield SampleInput(t, (normalized, make(normalized, device, dtype), make(normalized, device, dtype), 1e-3),
                              name=f"{name} {shape} {normalized} affine")


def sample_inputs_fused_rms_norm(op, device, dtype):
    """(input, normalized_shape, weight, eps): all positional, as aten takes them."""
    for s in sample_inputs_rms_norm(op, device, dtype):
        normalized, weight = s.args[0], s.args[1] if len(s.args) > 1 else None
        yield SampleInput(s.input, (list(normalized), weight, s.kwargs.get("eps")), name=s.name)


def sample_inputs_instance_norm(op, device, dtype):
    return (s for s in _instance_norm_samples(op, device, dtype) if "running_mean" not in s.kwargs)


def sample_inputs_instance_norm_running_stats(op, device, dtype):
    return (s for s in _instance_norm_samples(op, device, dtype) if "running_mean" in s.kwargs)


def _instance_norm_samples(op, device, dtype):
    sd = _stats_dtype(dtype)
    for shape in ((2, 3, 5), (2, 3, 4, 5), (1, 2, 3, 2, 2), (3, 2, 1, 4)):
        c = shape[1]
        for name, t in layouts(shape, device, dtype):
            if name == "expanded":   # equal samples: fine, but a repeated batch says nothing new
                continue
            rm, rv = make((c,), device, sd), make((c,), device, sd, low=0.5, high=2)
            w, b = make((c,), device, sd), make((c,), device, sd)
            yield SampleInput(t, name=f"{name} {shape}")
            yield SampleInput(t, kwargs={"weight": w, "bias": b, "eps": 1e-3}, name=f"affine {name} {shape}")
            yield SampleInput(t, kwargs={"running_mean": rm.clone(), "running_var": rv.clone(), "momentum": 0.2},
                              name=f"running stats {name} {shape}")
            yield SampleInput(t, kwargs={"running_mean": rm, "running_var": rv, "weight": w, "bias": b,
                                         "use_input_stats": False}, name=f"eval {name} {shape}")


def error_inputs_instance_norm(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), kwargs={"use_input_stats": False}),
                     RuntimeError, "Expected running_mean and running_var to be defined when use_input_stats is false")


def _norm_shape(shape, dim):
    """The shape of norm_except_dim(v, 2, dim): v's size at dim, 1 elsewhere (a 0-d norm for dim=-1)."""
    return () if dim == -1 else tuple(s if d == dim else 1 for d, s in enumerate(shape))


def sample_inputs_weight_norm(op, device, dtype):
    """(v, g, dim): the fused dims (first, last) and the formula's (a middle dim, -1: the whole
    tensor) in every layout of v; a conv weight channels-last; an empty slice."""
    for shape, dims in (((5, 3, 4), (0, 2, 1, -1)), ((6,), (0, -1)), ((4, 3, 2, 2), (0, 3, 1)), ((3, 0), (0,))):
        for dim in dims:
            for name, v in layouts(shape, device, dtype):
                g = make(_norm_shape(shape, dim), device, dtype)
                yield SampleInput(v, (g, dim), name=f"{name} v{shape} dim={dim}")
    yield SampleInput(make((4, 3), device, dtype), (make((4,), device, dtype), 0), name="g flat (4,)")


def sample_inputs_weight_norm_interface(op, device, dtype):
    """The fused op's own dims (first or last), on contiguous v and g: eager's kernel reads both as
    flat buffers (a strided v gives it wrong values), and _weight_norm makes them contiguous first."""
    for s in sample_inputs_weight_norm(op, device, dtype):
        v, (g, dim) = s.input, s.args
        if dim in (0, v.dim() - 1) and v.is_contiguous() and g.is_contiguous():
            yield s


def error_inputs_weight_norm_interface(op, device):
    v = make((3, 4, 5), device, torch.float32)
    yield ErrorInput(SampleInput(v, (make((1, 4, 1), device, torch.float32), 1)), RuntimeError,
                     "fused kernels can only be applied for first or last dim")
    yield ErrorInput(SampleInput(make((), device, torch.float32), (make((), device, torch.float32), 0)), IndexError,
                     "Dimension specified as 0 but tensor has no dimensions")


ENTRIES = [
    _entry("nn.functional.layer_norm", F.layer_norm, ("aten::native_layer_norm",), sample_inputs_layer_norm,
           errors=error_inputs_layer_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.rms_norm", F.rms_norm, ("aten::rms_norm",), sample_inputs_rms_norm,
           errors=error_inputs_rms_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.batch_norm", F.batch_norm, ("aten::native_batch_norm",), sample_inputs_batch_norm,
           errors=error_inputs_batch_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.group_norm", F.group_norm, ("aten::native_group_norm",), sample_inputs_group_norm,
           errors=error_inputs_group_norm, tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.native_batch_norm.out, aten.native_batch_norm, _dense_when_training(sample_inputs_native_batch_norm),
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._native_batch_norm_legit.out, aten._native_batch_norm_legit.default,
              _dense_when_training(sample_inputs_native_batch_norm), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._native_batch_norm_legit.no_stats_out, aten._native_batch_norm_legit.no_stats,
              _without_stats(_dense_when_training(sample_inputs_native_batch_norm)), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._native_batch_norm_legit_no_training.out, aten._native_batch_norm_legit_no_training,
              _in_mode(sample_inputs_native_batch_norm, training=False), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.native_group_norm.out, aten.native_group_norm, sample_inputs_native_group_norm,
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.native_layer_norm.out, aten.native_layer_norm, sample_inputs_native_layer_norm,
              tolerances=REDUCTION_TOLERANCES),
    _entry("aten._fused_rms_norm", aten._fused_rms_norm, ("aten::_fused_rms_norm",), sample_inputs_fused_rms_norm,
           tolerances=REDUCTION_TOLERANCES),
    # No gradients: eager differentiates the normalized output only (the batch statistics and the new
    # running statistics are non-differentiable outputs); the prim graph differentiates every output.
    _entry("aten._native_batch_norm_legit_functional", aten._native_batch_norm_legit_functional,
           ("aten::_native_batch_norm_legit_functional",), sample_inputs_native_batch_norm,
           tolerances=REDUCTION_TOLERANCES, autograd=False),
    # aten.batch_norm's successors. No gradients, as _native_batch_norm_legit_functional's: eager
    # differentiates the output only, the prim graph every result.
    _entry("aten._batch_norm_with_update", batch_norm_with_update_and_stats, ("aten::_batch_norm_with_update",),
           _in_mode(sample_inputs_native_batch_norm, training=True), tolerances=REDUCTION_TOLERANCES, autograd=False),
    _entry("aten._batch_norm_with_update_functional", aten._batch_norm_with_update_functional,
           ("aten::_batch_norm_with_update_functional",), _in_mode(sample_inputs_native_batch_norm, training=True),
           tolerances=REDUCTION_TOLERANCES, autograd=False),
    _entry("aten._batch_norm_no_update", aten._batch_norm_no_update, ("aten::_batch_norm_no_update",),
           _in_mode(sample_inputs_native_batch_norm, training=False), tolerances=REDUCTION_TOLERANCES, autograd=False),
    out_entry(aten._batch_norm_with_update.out, aten._batch_norm_with_update.default,
              _in_mode(_dense_when_training(sample_inputs_native_batch_norm), training=True),
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._batch_norm_no_update.out, aten._batch_norm_no_update.default,
              _in_mode(sample_inputs_native_batch_norm, training=False), tolerances=REDUCTION_TOLERANCES),
    _entry("nn.utils.weight_norm", torch._weight_norm, ("aten::_weight_norm", "aten::_weight_norm_interface"),
           sample_inputs_weight_norm, tolerances=REDUCTION_TOLERANCES),
    # No gradients: the second result (the norm) is a saved statistic eager does not differentiate.
    _entry("aten._weight_norm_interface", aten._weight_norm_interface, ("aten::_weight_norm_interface",),
           sample_inputs_weight_norm_interface, errors=error_inputs_weight_norm_interface,
           tolerances=REDUCTION_TOLERANCES, autograd=False),
    out_entry(aten._weight_norm_interface.out, aten._weight_norm_interface.default,
              sample_inputs_weight_norm_interface, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.instance_norm", F.instance_norm, ("aten::instance_norm",), sample_inputs_instance_norm,
           errors=error_inputs_instance_norm, tolerances=REDUCTION_TOLERANCES),
    # No gradients: the graph updates the running statistics in place (copy_to), which autograd cannot
    # differentiate (as nn.functional.batch_norm's gradient xfail says).
    _entry("nn.functional.instance_norm.running_stats", F.instance_norm, ("aten::instance_norm",),
           sample_inputs_instance_norm_running_stats, tolerances=REDUCTION_TOLERANCES, autograd=False),
]
