"""OpInfo entries: torch.nn.functional (activations, softmax, norms, convolution, pooling,
embedding, dropout, attention, padding, shuffles, upsampling, fold / unfold, grid sampling, losses,
distances, one_hot, bilinear).

Ops with an out= overload are often entered through their ATen packet (torch.ops.aten.<op>), so one
entry exercises the functional and the out= overload; the others through torch.nn.functional."""
from __future__ import annotations

import itertools
import math
import re

import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import FLOAT32_64, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.harness import clone_sample
from primkit.opinfo.samples import extremal_unary, layouts, make

aten = torch.ops.aten

# ----------------------------------------------------------------------------- sample generators

ACTIVATION_SHAPES = ((), (0,), (7,), (4, 5), (2, 3, 4, 5))


def _activation_samples(*kwargs_variants, args=()):
    """Every layout of every shape with the first kwargs; a small set with the other variants;
    extremal values (inf, nan, huge) with all of them."""
    def gen(op, device, dtype):
        for kwargs in kwargs_variants:
            shapes = ACTIVATION_SHAPES if kwargs is kwargs_variants[0] else ((4, 5),)
            for shape in shapes:
                for name, t in layouts(shape, device, dtype, low=-4, high=4):
                    yield SampleInput(t, args, dict(kwargs), name=f"{name} {shape} {kwargs}")
            for s in extremal_unary(op, device, dtype):
                yield SampleInput(s.input, args, dict(kwargs), name=f"extremal {kwargs}")
    return gen


def _inplace(fn, **fixed):
    return lambda t, *args, **kwargs: fn(t, *args, **{**kwargs, **fixed})


def _activation(name, *kwargs_variants, args=(), aten=None, dtypes=FLOATING, inplace=None, error_inputs=None,
                tolerances=None, xfails=(), domain=(None, None)):
    return OpInfo(name=f"nn.functional.{name}", op=getattr(F, name), aten=aten or (f"aten::{name}",), domain=domain,
                  sample_inputs=_activation_samples(*(kwargs_variants or ({},)), args=args), dtypes=frozenset(dtypes),
                  inplace=inplace, error_inputs=error_inputs, tolerances=tolerances or {}, xfails=tuple(xfails),
                  family="nn")


def _errors_floating_only(op, device):
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device)), RuntimeError, "not implemented for 'Long'")


def _errors_gelu(op, device):
    yield from _errors_floating_only(op, device)
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), kwargs={"approximate": "cubic"}), RuntimeError,
                     "approximate argument must be either none or tanh")


def sample_inputs_glu(op, device, dtype):
    for shape, dim in (((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((0, 4), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, kwargs={"dim": dim}, name=f"{name} {shape} dim={dim}")


def error_inputs_glu(op, device):
    yield ErrorInput(SampleInput(make((4, 3), device, torch.float32)), RuntimeError, "Halving dimension must be even")
    yield ErrorInput(SampleInput(make((), device, torch.float32)), RuntimeError, "glu does not support scalars")


# ----------------------------------------------------------------------------- softmax family


def sample_inputs_softmax(op, device, dtype):
    for shape, dim in (((), 0), ((0,), 0), ((7,), 0), ((4, 5), 1), ((4, 5), 0), ((2, 3, 4), -1), ((2, 3, 4), 1),
                       ((2, 0, 3), 2)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (dim,), name=f"{name} {shape} dim={dim}")
    big = torch.finfo(dtype).max
    inf = math.inf
    extremes = {
        "huge": [[big, big / 2, -big], [1e4, 1e4 + 1, -1e4]],
        "-inf entries": [[-inf, 0.0, 1.0], [-inf, -inf, 3.0]],
        "all -inf row": [[-inf, -inf, -inf], [0.0, 1.0, 2.0]],
        "+inf and nan": [[inf, 0.0, 1.0], [math.nan, 0.0, 1.0]],
        "tiny": [[1e-30, -1e-30, 0.0], [0.0, -0.0, 1e-38]],
    }
    for name, rows in extremes.items():
        yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), (1,), name=name)
    if dtype in (torch.float16, torch.bfloat16):
        yield SampleInput(make((4, 5), device, dtype), (1,), {"dtype": torch.float32}, name="dtype=float32 upcast")
    if dtype == torch.float32:
        yield SampleInput(make((4, 5), device, dtype), (1,), {"dtype": torch.float64}, name="dtype=float64")


def error_inputs_softmax(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (2,)), IndexError, "Dimension out of range")
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device), (0,)), RuntimeError, "not implemented for 'Long'")


# ----------------------------------------------------------------------------- norms


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


# ----------------------------------------------------------------------------- convolution


def _conv_samples(n, transposed):
    def gen(op, device, dtype):
        spatial = (5, 4, 3)[:n]
        cases = [  # (in_channels, out_channels, kernel, kwargs)
            (3, 4, 3, {}),
            (3, 4, 2, {"stride": 2, "padding": 1}),
            (4, 6, 3, {"groups": 2, "dilation": 2 if not transposed else 1, "padding": 2}),
            (2, 3, 1, {"bias": False}),
        ]
        if transposed:
            cases.append((3, 2, 3, {"stride": 2, "output_padding": 1}))
            cases.append((4, 2, 2, {"groups": 2, "dilation": 2, "stride": 2}))
        else:
            cases.append((3, 4, 3, {"padding": "same", "dilation": 2}))
            cases.append((3, 4, 2, {"padding": "same"}))
            cases.append((3, 4, 3, {"padding": "valid"}))
        for cin, cout, k, kwargs in cases:
            kwargs = dict(kwargs)
            groups = kwargs.get("groups", 1)
            wshape = (cin, cout // groups) if transposed else (cout, cin // groups)
            weight = make(wshape + (k,) * n, device, dtype)
            bias = None if kwargs.pop("bias", True) is False else make((cout // groups * groups if transposed else cout,),
                                                                        device, dtype)
            for name, x in layouts((2, cin) + spatial, device, dtype):
                yield SampleInput(x, (weight, bias), kwargs, name=f"{name} cin={cin} k={k} {kwargs}")
            yield SampleInput(make((cin,) + spatial, device, dtype), (weight, bias), kwargs, name=f"unbatched {kwargs}")
        if n == 2 and not transposed:
            w = make((4, 3, 3, 3), device, dtype).contiguous(memory_format=torch.channels_last)
            yield SampleInput(make((2, 3, 5, 5), device, dtype), (w,), name="channels-last weight")
    return gen


def error_inputs_conv2d(op, device):
    f32 = torch.float32
    yield ErrorInput(SampleInput(make((1, 3, 5, 5), device, f32), (make((4, 2, 3, 3), device, f32),)), RuntimeError,
                     "expected input.* to have 2 channels, but got 3 channels")
    yield ErrorInput(SampleInput(make((1, 3, 5, 5), device, f32), (make((4, 3, 3, 3), device, torch.float64),)),
                     RuntimeError, "")
    yield ErrorInput(SampleInput(make((1, 3, 2, 2), device, f32), (make((4, 3, 3, 3), device, f32),)), RuntimeError,
                     "Kernel size can't be greater than actual input size")
    yield ErrorInput(SampleInput(make((5, 5), device, f32), (make((4, 3, 3, 3), device, f32),)), RuntimeError,
                     "Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to conv2d")
    yield ErrorInput(SampleInput(make((1, 3, 5, 5), device, f32), (make((4, 3, 3, 3), device, f32),),
                                 {"stride": 2, "padding": "same"}), RuntimeError,
                     "padding='same' is not supported for strided convolutions")


# ----------------------------------------------------------------------------- pooling


def sample_inputs_max_pool2d(op, device, dtype):
    cases = [  # (shape, kernel, kwargs)
        ((2, 3, 6, 6), 2, {}),
        ((2, 3, 7, 5), 3, {"stride": 2, "padding": 1}),
        ((1, 2, 7, 7), (3, 2), {"stride": (2, 1), "dilation": (2, 1)}),
        ((2, 3, 7, 6), 3, {"stride": 2, "ceil_mode": True}),
        ((2, 2, 6, 5), 2, {"stride": 2, "padding": 1, "ceil_mode": True}),
        ((3, 5, 5), 2, {}),
        ((0, 3, 4, 4), 2, {}),
    ]
    for shape, k, kwargs in cases:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (k,), kwargs, name=f"{name} {shape} k={k} {kwargs}")
            yield SampleInput(t, (k,), {**kwargs, "return_indices": True}, name=f"{name} {shape} indices {kwargs}")
    inf = math.inf
    t = torch.tensor([[[[-inf, -inf, 1.0, 2.0], [-inf, -inf, 3.0, -inf], [0.5, math.nan, -1.0, 7.0],
                        [2.0, 2.0, 2.0, 2.0]]]], device=device, dtype=dtype)
    yield SampleInput(t, (2,), {"return_indices": True}, name="-inf, nan and ties")
    yield SampleInput(t, (3,), {"stride": 1, "padding": 1, "return_indices": True}, name="-inf windows with padding")


def error_inputs_max_pool2d(op, device):
    f32 = torch.float32
    yield ErrorInput(SampleInput(make((1, 3, 5, 5), device, f32), (3,), {"padding": 2}), RuntimeError,
                     "pad should be at most half of effective kernel size")
    yield ErrorInput(SampleInput(make((1, 3, 2, 2), device, f32), (3,)), RuntimeError, "Output size is too small")
    yield ErrorInput(SampleInput(make((5, 5), device, f32), (3,)), RuntimeError, "")


def sample_inputs_avg_pool2d(op, device, dtype):
    cases = [
        ((2, 3, 6, 6), 2, {}),
        ((2, 3, 7, 5), 3, {"stride": 2, "padding": 1}),
        ((2, 3, 7, 5), 3, {"stride": 2, "padding": 1, "count_include_pad": False}),
        ((2, 3, 7, 6), 3, {"stride": 2, "ceil_mode": True}),
        ((2, 2, 6, 5), 2, {"stride": 2, "padding": 1, "ceil_mode": True}),
        ((2, 2, 6, 5), 2, {"stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False}),
        ((2, 3, 6, 6), (3, 2), {"padding": 1, "divisor_override": 5}),
        ((2, 3, 6, 6), (3, 2), {"padding": 1, "divisor_override": -3}),
        ((3, 5, 5), 2, {}),
    ]
    for shape, k, kwargs in cases:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (k,), kwargs, name=f"{name} {shape} k={k} {kwargs}")


def error_inputs_avg_pool2d(op, device):
    f32 = torch.float32
    yield ErrorInput(SampleInput(make((1, 3, 5, 5), device, f32), (3,), {"padding": 2}), RuntimeError,
                     "pad should be at most half")
    yield ErrorInput(SampleInput(make((1, 3, 5, 5), device, f32), (2,), {"divisor_override": 0}), RuntimeError,
                     "divisor must be not zero")


def sample_inputs_adaptive_avg_pool2d(op, device, dtype):
    for shape, out in (((2, 3, 6, 6), (3, 3)), ((2, 3, 7, 5), (3, 2)), ((2, 3, 5, 7), (4, 6)), ((1, 2, 4, 4), 1),
                       ((3, 5, 5), (2, 3)), ((2, 3, 3, 3), (5, 5))):
        for name, t in layouts(shape, device, dtype):
            if name == "channels_last" and out == 1:
                continue   # in sample_inputs_global_avg_pool_channels_last
            yield SampleInput(t, (out,), name=f"{name} {shape} -> {out}")


def _size_as_list(s, n):
    """A torch.nn.functional pooling sample with its int output size as aten's n-list."""
    size = s.args[0]
    return SampleInput(s.input, ([size] * n if isinstance(size, int) else list(size),) + s.args[1:], s.kwargs, s.name)


def _sizes_as_lists(samples, n):
    return lambda op, device, dtype: (_size_as_list(s, n) for s in samples(op, device, dtype))


def _errors_as_lists(errors, n):
    return lambda op, device: (ErrorInput(_size_as_list(e.sample, n), e.error_type, e.match)
                               for e in errors(op, device))


def sample_inputs_global_avg_pool_channels_last(op, device, dtype):
    t = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
    yield SampleInput(t, (1,), name="channels-last -> 1x1")


def error_inputs_adaptive_avg_pool2d(op, device):
    yield ErrorInput(SampleInput(make((1, 3, 0, 5), device, torch.float32), (2,)), RuntimeError,
                     "Expected input to have non-zero size for non-batch dimensions")


def sample_inputs_pool1d(op, device, dtype):
    for shape, k, kwargs in (((2, 3, 8), 2, {}), ((2, 3, 9), 3, {"stride": 2, "padding": 1}),
                             ((2, 3, 8), 3, {"stride": 2, "ceil_mode": True}), ((3, 7), 2, {})):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (k,), kwargs, name=f"{name} {shape} k={k} {kwargs}")


# ----------------------------------------------------------------------------- embedding, dropout


def sample_inputs_embedding(op, device, dtype):
    weight = make((10, 4), device, dtype)
    for name, idx in (("1-d", [1, 3, 3, 9]), ("2-d", [[0, 2], [9, 1]]), ("0-d", 7), ("empty", [])):
        for index_dtype in (torch.int64, torch.int32):
            indices = torch.tensor(idx, device=device, dtype=index_dtype)
            yield SampleInput(indices, (weight,), name=f"{name} {index_dtype}")
    yield SampleInput(torch.tensor([[0, 2], [2, 1]], device=device), (weight,), {"padding_idx": 2}, name="padding_idx")
    yield SampleInput(torch.tensor([1, 2], device=device), (weight.t().contiguous().t(),), name="transposed weight")


def error_inputs_embedding(op, device):
    yield ErrorInput(SampleInput(torch.tensor([1.0, 2.0], device=device), (make((3, 4), device, torch.float32),)),
                     RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types")
    yield ErrorInput(SampleInput(torch.tensor([1], device=device), (make((3, 4, 2), device, torch.float32),)),
                     RuntimeError, "'weight' must be 2-D")


def sample_inputs_dropout(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.5,), {"training": False}, name=f"eval {name} {shape}")
            yield SampleInput(t, (0.0,), {"training": True}, name=f"p=0 {name} {shape}")
            yield SampleInput(t, (1.0,), {"training": True}, name=f"p=1 {name} {shape}")


def error_inputs_dropout(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (1.5,)), ValueError,
                     "dropout probability has to be between 0 and 1")


# ----------------------------------------------------------------------------- attention


def sample_inputs_sdpa(op, device, dtype):
    def qkv(batch, L, S, E, Ev=None, heads_kv=None):
        kv_batch = batch[:-1] + (heads_kv,) if heads_kv else batch
        return (make(batch + (L, E), device, dtype), make(kv_batch + (S, E), device, dtype),
                make(kv_batch + (S, Ev or E), device, dtype))
    q, k, v = qkv((2, 3), 5, 6, 8)
    yield SampleInput(q, (k, v), name="4-d")
    yield SampleInput(q, (k, v), {"is_causal": True}, name="causal")
    yield SampleInput(q, (k, v), {"scale": 0.3}, name="scale")
    bool_mask = torch.rand(5, 6, device=device) > 0.3
    bool_mask[:, 0] = True
    yield SampleInput(q, (k, v), {"attn_mask": bool_mask}, name="bool mask")
    yield SampleInput(q, (k, v), {"attn_mask": make((2, 1, 5, 6), device, dtype)}, name="float mask")
    all_masked = bool_mask.clone()
    all_masked[1] = False
    yield SampleInput(q, (k, v), {"attn_mask": all_masked}, name="fully masked row")
    q3, k3, v3 = qkv((4,), 5, 7, 8, Ev=3)
    yield SampleInput(q3, (k3, v3), name="3-d, value head size differs")
    q, k, v = qkv((2, 4), 5, 5, 8, heads_kv=2)
    yield SampleInput(q, (k, v), {"enable_gqa": True, "is_causal": True}, name="gqa")
    q, k, v = qkv((2, 3), 5, 6, 8)
    yield SampleInput(q.transpose(1, 2).contiguous().transpose(1, 2), (k, v), name="query (B, L, H, E) layout")


def error_inputs_sdpa(op, device):
    f32 = torch.float32
    x = make((2, 3, 4), device, f32)
    yield ErrorInput(SampleInput(x, (x, x), {"attn_mask": torch.ones(3, 3, dtype=torch.bool, device=device),
                                             "is_causal": True}), RuntimeError, "Explicit attn_mask should not be set")
    yield ErrorInput(SampleInput(x, (x.double(), x)), RuntimeError,
                     "Expected query, key, and value to have the same dtype")


# ----------------------------------------------------------------------------- losses


def _reductions():
    return ("mean", "sum", "none")


def sample_inputs_nll_loss(op, device, dtype):
    for reduction in _reductions():
        x = make((5, 4), device, dtype)
        target = torch.tensor([0, 3, 1, 1, 2], device=device)
        yield SampleInput(x, (target,), {"reduction": reduction}, name=f"2-d {reduction}")
        yield SampleInput(x, (target,), {"reduction": reduction, "weight": make((4,), device, dtype, low=0.1, high=2)},
                          name=f"weight {reduction}")
        ignored = torch.tensor([0, -100, 1, 3, -100], device=device)
        yield SampleInput(x, (ignored,), {"reduction": reduction}, name=f"ignore_index {reduction}")
        yield SampleInput(x, (target,), {"reduction": reduction, "ignore_index": 1}, name=f"ignore_index=1 {reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor(2, device=device),), {"reduction": reduction},
                          name=f"1-d {reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor(2, device=device),),
                          {"reduction": reduction, "weight": make((4,), device, dtype, low=0.1, high=2)},
                          name=f"1-d weight {reduction}")
        yield SampleInput(make((2, 4, 3, 3), device, dtype), (torch.randint(0, 4, (2, 3, 3), device=device),),
                          {"reduction": reduction}, name=f"4-d {reduction}")
        yield SampleInput(make((2, 4, 3), device, dtype), (torch.randint(0, 4, (2, 3), device=device),),
                          {"reduction": reduction}, name=f"3-d {reduction}")


def error_inputs_nll_loss(op, device):
    x = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(x, (torch.tensor([1, 2], device=device),)), ValueError,
                     r"Expected input batch_size \(3\) to match target batch_size \(2\)")
    yield ErrorInput(SampleInput(x, (torch.tensor([1.0, 2.0, 3.0], device=device),)), RuntimeError,
                     "expected target dtype to be Long or Byte")
    yield ErrorInput(SampleInput(x, (torch.tensor([1, 2, 3], device=device),), {"weight": torch.ones(3, device=device)}),
                     RuntimeError, "weight tensor should be defined either for all 4 classes or no classes")


def sample_inputs_cross_entropy(op, device, dtype):
    big = 1e4 if dtype != torch.float16 else 1e3
    for reduction in _reductions():
        x = make((5, 4), device, dtype)
        target = torch.tensor([0, 3, 1, -100, 2], device=device)
        weight = make((4,), device, dtype, low=0.1, high=2)
        yield SampleInput(x, (target,), {"reduction": reduction}, name=f"indices {reduction}")
        yield SampleInput(x, (target,), {"reduction": reduction, "weight": weight}, name=f"weight {reduction}")
        yield SampleInput(x, (target,), {"reduction": reduction, "label_smoothing": 0.1}, name=f"smoothing {reduction}")
        yield SampleInput(x, (target,), {"reduction": reduction, "label_smoothing": 0.2, "weight": weight},
                          name=f"smoothing weight {reduction}")
        probs = torch.softmax(make((5, 4), device, torch.float32), 1).to(dtype)
        yield SampleInput(x, (probs,), {"reduction": reduction}, name=f"probabilities {reduction}")
        yield SampleInput(x, (probs,), {"reduction": reduction, "weight": weight, "label_smoothing": 0.3},
                          name=f"probabilities weight smoothing {reduction}")
        yield SampleInput(make((2, 4, 3, 3), device, dtype), (torch.randint(0, 4, (2, 3, 3), device=device),),
                          {"reduction": reduction}, name=f"4-d {reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor(1, device=device),), {"reduction": reduction},
                          name=f"1-d {reduction}")
        huge = torch.tensor([[big, -big, 0.0], [-big, -big, big], [0.0, 1.0, 2.0]], device=device, dtype=dtype)
        yield SampleInput(huge, (torch.tensor([1, 2, 0], device=device),), {"reduction": reduction},
                          name=f"huge logits {reduction}")


def error_inputs_cross_entropy(op, device):
    x = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(x, (torch.tensor([1, 2, 3], device=device),), {"label_smoothing": 1.5}),
                     RuntimeError, "label_smoothing must be between 0.0 and 1.0")
    yield ErrorInput(SampleInput(x, (torch.tensor([1, 2], device=device),)), ValueError,
                     "Expected input batch_size")


def sample_inputs_regression_loss(op, device, dtype):
    for reduction in _reductions():
        for shape in ((), (0,), (4, 5), (2, 3, 4)):
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (make(shape, device, dtype),), {"reduction": reduction},
                                  name=f"{name} {shape} {reduction}")


def error_inputs_regression_loss(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (make((3, 5), device, torch.float32),)),
                     RuntimeError, "must match the size of tensor")


def sample_inputs_bce_with_logits(op, device, dtype):
    for reduction in _reductions():
        x = make((4, 5), device, dtype, low=-30, high=30)
        t = make((4, 5), device, dtype, low=0, high=1)
        yield SampleInput(x, (t,), {"reduction": reduction}, name=f"plain {reduction}")
        yield SampleInput(x, (t,), {"reduction": reduction, "weight": make((5,), device, dtype, low=0, high=2),
                                    "pos_weight": make((5,), device, dtype, low=0.1, high=3)},
                          name=f"weight pos_weight {reduction}")
        yield SampleInput(x.t(), (t.t(),), {"reduction": reduction}, name=f"transposed {reduction}")
    yield SampleInput(torch.tensor([1e4, -1e4, 0.0], device=device, dtype=dtype),
                      (torch.tensor([0.0, 1.0, 0.5], device=device, dtype=dtype),), name="huge logits")


def error_inputs_bce_with_logits(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (make((3, 5), device, torch.float32),)),
                     ValueError, "must be the same as input size")


# ----------------------------------------------------------------------------- out= overloads
# test_out checks ops with one result; an op with several results gets an entry of its own whose
# op is ``with_outs(overload)``: the out= overload called with fresh out tensors.


def with_outs(overload):
    """``overload`` (an out= overload) called with fresh out tensors as the ``out_like`` kwarg
    describes them (shape, dtype, dims from outermost to innermost), filled with nan (1 for
    non-floating dtypes) so that an out it does not write shows; returns what the overload returns."""
    names = [a.name for a in overload._schema.arguments if a.is_out]

    def fresh(shape, dtype, order, device):
        strides, step = [0] * len(shape), 1
        for d in reversed(order):
            strides[d], step = step, step * max(shape[d], 1)
        # a fresh tensor, not a permuted view (out= tensors are fresh tensors, as eager's callers pass them)
        return torch.empty_strided(shape, strides, dtype=dtype, device=device).fill_(
            math.nan if dtype.is_floating_point else 1)

    def op(*args, out_like, **kwargs):
        device = next(t.device for t in pytree.tree_leaves((args, kwargs)) if isinstance(t, torch.Tensor))
        outs = {n: fresh(*like, device) for n, like in zip(names, out_like)}
        return overload(*args, **kwargs, **outs)
    op.__name__ = overload.name().split("::")[1].replace(".", "_")
    return op


def _dim_order(t):
    return sorted(range(t.dim()), key=lambda d: (-t.stride(d), d))


def out_samples(functional, samples):
    """``samples`` with ``out_like``: the shape, dtype and dim order of each result of ``functional``
    in eager, as test_out lays out its out tensors (run on a copy: batch norm's training mode
    updates its running statistics)."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            c = clone_sample(s)
            results = functional(c.input, *c.args, **c.kwargs)
            like = [(tuple(r.shape), r.dtype, _dim_order(r)) for r in results]
            yield SampleInput(s.input, s.args, {**s.kwargs, "out_like": like}, s.name)
    return gen


def out_entry(overload, functional, samples, *, tolerances=None, xfails=(), dtypes=FLOATING, family="nn"):
    """An entry for a multi-result out= overload (see ``with_outs``). Eager refuses out= arguments
    that require grad, so there are no gradients to compare."""
    name = overload.name().split("::")[1]
    return OpInfo(name=f"aten.{name}", op=with_outs(overload), aten=(overload.name(),),
                  sample_inputs=out_samples(functional, samples), dtypes=frozenset(dtypes),
                  tolerances=tolerances or {}, xfails=tuple(xfails), family=family, supports_autograd=False)


def _stats_dtype(dtype):
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def sample_inputs_max_pool2d_with_indices(op, device, dtype):
    for shape, args in (((2, 3, 6, 6), ([2, 2],)), ((2, 3, 7, 5), ([3, 3], [2, 2], [1, 1])),
                        ((1, 2, 7, 7), ([3, 2], [2, 1], [0, 0], [2, 1])), ((2, 3, 7, 6), ([3, 3], [2, 2], 0, 1, True)),
                        ((3, 5, 5), ([2, 2],))):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, args, name=f"{name} {shape} {args}")


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


def _no_training(samples):
    """_native_batch_norm_legit_no_training: the evaluation-mode samples, without ``training``."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            weight, bias, rm, rv, training, momentum, eps = s.args
            if not training:
                yield SampleInput(s.input, (weight, bias, rm, rv, momentum, eps), name=s.name)
    return gen


def _training_only(samples):
    """The training-mode samples of native_batch_norm's, without ``training``: _batch_norm_with_update's."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            weight, bias, rm, rv, training, momentum, eps = s.args
            if training:
                yield SampleInput(s.input, (weight, bias, rm, rv, momentum, eps), name=s.name)
    return gen


def batch_norm_with_update_and_stats(a, weight, bias, running_mean, running_var, momentum, eps):
    """_batch_norm_with_update's results, then the running statistics it updated in place."""
    return (*aten._batch_norm_with_update(a, weight, bias, running_mean, running_var, momentum, eps),
            running_mean, running_var)


def sample_inputs_native_dropout(op, device, dtype):
    for shape in ((), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.5, False), name=f"eval {name} {shape}")
            yield SampleInput(t, (0.0, True), name=f"p=0 {name} {shape}")
            yield SampleInput(t, (1.0, True), name=f"p=1 {name} {shape}")


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


def sample_inputs_nll_loss_forward(op, device, dtype):
    """(input, target, weight, reduction, ignore_index); reduction as aten's code (0 none, 1 mean, 2 sum)."""
    for reduction in (0, 1, 2):
        x = make((5, 4), device, dtype)
        target = torch.tensor([0, 3, 1, -100, 2], device=device)
        yield SampleInput(x, (target, None, reduction, -100), name=f"2-d reduction={reduction}")
        yield SampleInput(x, (torch.tensor([0, 3, 1, 1, 2], device=device), make((4,), device, dtype, low=0.1, high=2),
                              reduction, 1),
                          name=f"weight ignore_index=1 reduction={reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor(2, device=device), None, reduction, -100),
                          name=f"1-d reduction={reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor(1, device=device),
                                                      make((4,), device, dtype, low=0.1, high=2), reduction, -100),
                          name=f"1-d weight reduction={reduction}")


def sample_inputs_log_sigmoid_forward(op, device, dtype):
    for shape in ((), (0,), (7,), (4, 5)):
        for name, t in layouts(shape, device, dtype, low=-10, high=10):
            yield SampleInput(t, name=f"{name} {shape}")


# Single-result out= overloads: their entries call the aten packet, so test_out runs the .out overload.


def sample_inputs_adaptive_avg_pool1d(op, device, dtype):
    for shape, out in (((2, 3, 8), 4), ((2, 3, 7), 3), ((3, 5), 7), ((1, 2, 6), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, ([out],), name=f"{name} {shape} -> {out}")


def sample_inputs_convolution(op, device, dtype):
    """(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)."""
    cases = (  # input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups
        ((2, 4, 9), (6, 2, 3), True, [1], [1], [1], False, [0], 2),
        ((2, 3, 7, 6), (4, 3, 3, 2), True, [2, 2], [1, 1], [1, 1], False, [0, 0], 1),
        ((1, 4, 8, 8), (4, 1, 3, 3), False, [1, 1], [2, 2], [2, 2], False, [0, 0], 4),
        ((2, 3, 4, 4), (3, 2, 3, 3), True, [2, 2], [1, 1], [1, 1], True, [1, 0], 1),
        ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), True, [1, 1, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1),
    )
    for xs, ws, has_bias, stride, padding, dilation, transposed, out_pad, groups in cases:
        weight = make(ws, device, dtype)
        bias = make((ws[1] * groups if transposed else ws[0],), device, dtype) if has_bias else None
        for name, x in layouts(xs, device, dtype):
            yield SampleInput(x, (weight, bias, stride, padding, dilation, transposed, out_pad, groups),
                              name=f"{name} {xs} {ws} transposed={transposed}")


def sample_inputs_underscore_convolution(op, device, dtype):
    """aten._convolution: convolution's arguments, then benchmark, deterministic, cudnn_enabled, allow_tf32."""
    for s in sample_inputs_convolution(op, device, dtype):
        yield SampleInput(s.input, s.args + (False, True, True, True), name=s.name)


def sample_inputs_convolution_deprecated(op, device, dtype):
    for s in sample_inputs_convolution(op, device, dtype):
        yield SampleInput(s.input, s.args + (False, False, True), name=s.name)


def sample_inputs_conv_tbc(op, device, dtype):
    """(input (T, B, C_in), weight (K, C_in, C_out), bias, pad); contiguous inputs (eager's kernel views a
    transposed one and fails)."""
    for ts, ws, pad in (((7, 2, 3), (3, 3, 4), 0), ((5, 3, 2), (3, 2, 5), 1), ((4, 1, 2), (1, 2, 3), 2)):
        x, weight, bias = make(ts, device, dtype), make(ws, device, dtype), make((ws[2],), device, dtype)
        yield SampleInput(x, (weight, bias, pad), name=f"{ts} {ws} pad={pad}")


def error_inputs_conv_tbc(op, device):
    x = make((5, 2, 3), device, torch.float32)
    yield ErrorInput(SampleInput(x, (make((3, 4, 2), device, torch.float32), make((2,), device, torch.float32))),
                     RuntimeError, "Input dim 2")


def sample_inputs_aten_embedding(op, device, dtype):
    """(weight, indices, padding_idx)."""
    weight = make((10, 4), device, dtype)
    for name, idx in (("1-d", [1, 3, 3, 9]), ("2-d", [[0, 2], [9, 1]]), ("0-d", 7), ("empty", [])):
        for index_dtype in (torch.int64, torch.int32):
            yield SampleInput(weight, (torch.tensor(idx, device=device, dtype=index_dtype),),
                              name=f"{name} {index_dtype}")
    yield SampleInput(weight, (torch.tensor([[0, 2], [2, 1]], device=device), 2), name="padding_idx")
    yield SampleInput(weight.t().contiguous().t(), (torch.tensor([1, 2], device=device),), name="transposed weight")


def sample_inputs_max_pool1d_indices(op, device, dtype):
    for s in sample_inputs_pool1d(op, device, dtype):
        yield SampleInput(s.input, s.args, {**s.kwargs, "return_indices": True}, s.name)


def sample_inputs_fused_rms_norm(op, device, dtype):
    """(input, normalized_shape, weight, eps): all positional, as aten takes them."""
    for s in sample_inputs_rms_norm(op, device, dtype):
        normalized, weight = s.args[0], s.args[1] if len(s.args) > 1 else None
        yield SampleInput(s.input, (list(normalized), weight, s.kwargs.get("eps")), name=s.name)


def sample_inputs_safe_softmax(op, device, dtype):
    yield from sample_inputs_softmax(op, device, dtype)
    inf = math.inf
    rows = [[-inf, -inf, -inf, -inf], [0.0, -inf, 1.0, -inf], [-inf, -inf, -inf, 2.0]]
    yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), (1,), name="fully masked rows")
    yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), (0,), name="fully masked column")


# ----------------------------------------------------------------------------- 3-d and adaptive max pooling


def _volume_layouts(shape, device, dtype):
    """layouts() of a 3-d pooling input, with channels-last-3d for a batch of volumes (a 2-d
    channels-last format on an unbatched volume is not one eager's 3-d kernels take)."""
    for name, t in layouts(shape, device, dtype):
        if name != "channels_last":
            yield name, t
    if len(shape) == 5:
        yield "channels_last_3d", make(shape, device, dtype).contiguous(memory_format=torch.channels_last_3d)


def sample_inputs_avg_pool3d(op, device, dtype):
    cases = [
        ((2, 3, 4, 6, 6), [2, 2, 2], {}),
        ((1, 2, 5, 7, 5), [3, 3, 3], {"stride": [2, 2, 2], "padding": [1, 1, 1]}),
        ((1, 2, 5, 7, 5), [3, 2, 3], {"stride": [2, 1, 2], "padding": [1, 1, 0], "count_include_pad": False}),
        ((1, 2, 5, 6, 7), [3, 3, 3], {"stride": [2, 2, 2], "ceil_mode": True}),
        ((1, 2, 4, 6, 5), [2, 2, 2], {"stride": [2, 2, 2], "padding": [1, 1, 1], "ceil_mode": True,
                                      "count_include_pad": False}),
        ((1, 2, 4, 4, 4), [3, 2, 2], {"padding": [1, 1, 0], "divisor_override": 5}),
        ((1, 2, 4, 4, 4), [3, 2, 2], {"padding": [1, 1, 0], "divisor_override": -3}),
        ((3, 4, 5, 5), [2, 2, 2], {}),
    ]
    for shape, k, kwargs in cases:
        for name, t in _volume_layouts(shape, device, dtype):
            yield SampleInput(t, (k,), kwargs, name=f"{name} {shape} k={k} {kwargs}")


def sample_inputs_max_pool3d(op, device, dtype):
    cases = [
        ((2, 3, 4, 6, 6), 2, {}),
        ((1, 2, 5, 7, 5), 3, {"stride": 2, "padding": 1}),
        ((1, 2, 7, 7, 5), (3, 2, 2), {"stride": (2, 1, 2), "dilation": (2, 1, 1)}),
        ((1, 2, 5, 6, 7), 3, {"stride": 2, "ceil_mode": True}),
        ((3, 4, 5, 5), 2, {}),
    ]
    for shape, k, kwargs in cases:
        for name, t in _volume_layouts(shape, device, dtype):
            yield SampleInput(t, (k,), kwargs, name=f"{name} {shape} k={k} {kwargs}")
            yield SampleInput(t, (k,), {**kwargs, "return_indices": True}, name=f"{name} {shape} indices {kwargs}")
    inf = math.inf
    t = torch.tensor([[[[[-inf, -inf, 1.0], [-inf, -inf, 3.0], [0.5, math.nan, 7.0]],
                        [[2.0, 2.0, 2.0], [-inf, -inf, -inf], [-inf, -inf, -inf]]]]], device=device, dtype=dtype)
    yield SampleInput(t, (2,), {"stride": 1, "return_indices": True}, name="-inf, nan and ties")
    yield SampleInput(t, (3,), {"stride": 1, "padding": 1, "return_indices": True}, name="-inf windows with padding")


def sample_inputs_max_pool3d_with_indices(op, device, dtype):
    """aten's (input, kernel_size, stride, padding, dilation, ceil_mode)."""
    for s in sample_inputs_max_pool3d(op, device, dtype):
        if s.kwargs.get("return_indices"):
            kw = {k: v for k, v in s.kwargs.items() if k != "return_indices"}
            yield SampleInput(s.input, s.args, kw, s.name)


def sample_inputs_adaptive_pool3d(op, device, dtype):
    for shape, out in (((2, 3, 4, 6, 6), (2, 3, 3)), ((1, 2, 5, 7, 3), (3, 2, 4)), ((3, 5, 5, 4), (2, 5, 3)),
                       ((1, 2, 3, 3, 3), (5, 1, 2))):
        for name, t in _volume_layouts(shape, device, dtype):
            yield SampleInput(t, (list(out),), name=f"{name} {shape} -> {out}")


def sample_inputs_adaptive_max_pool(n):
    """F.adaptive_max_poolNd samples, with and without return_indices; at most one nan per window
    (eager keeps the last nan of a window, an argmax the first)."""
    shapes = {1: (((2, 3, 9), 4), ((3, 8), 8), ((2, 3, 5), 7), ((1, 2, 6), 1)),
              2: (((2, 3, 7, 5), (3, 2)), ((3, 5, 5), (2, 4)), ((2, 3, 4, 5), (4, 5)), ((1, 2, 6, 6), 1),
                  ((2, 3, 3, 3), (5, 5))),
              3: (((1, 2, 5, 6, 7), (2, 3, 4)), ((2, 4, 4, 5), (3, 2, 5)), ((1, 2, 3, 4, 3), 1))}[n]
    gen_layouts = _volume_layouts if n == 3 else layouts

    def gen(op, device, dtype):
        for shape, out in shapes:
            for name, t in gen_layouts(shape, device, dtype):
                yield SampleInput(t, (out,), name=f"{name} {shape} -> {out}")
                yield SampleInput(t, (out,), {"return_indices": True}, name=f"{name} {shape} -> {out} indices")
        inf = math.inf
        row = torch.tensor([-inf, -inf, 1.0, 2.0, -inf, math.nan, 3.0, 3.0], device=device, dtype=dtype)
        out = 4 if n == 1 else (1,) * (n - 1) + (4,)
        yield SampleInput(row.reshape((1, 1) + (1,) * (n - 1) + (8,)), (out,), {"return_indices": True},
                          name="-inf, nan and ties")
    return gen


def sample_inputs_adaptive_max_pool_out(n):
    """aten's (input, output_size) for adaptive_max_poolNd.out."""
    def gen(op, device, dtype):
        for s in sample_inputs_adaptive_max_pool(n)(op, device, dtype):
            if s.kwargs.get("return_indices"):
                size = s.args[0]
                yield SampleInput(s.input, ([size] * n if isinstance(size, int) else list(size),), name=s.name)
    return gen


def sample_inputs_fractional_max_pool(n):
    """F.fractional_max_poolNd with its _random_samples given (one per batch, channel and spatial dim,
    in [0, 1) as F draws them): output_size and output_ratio, with and without return_indices. The
    ratio is a tuple: F calls len() on it (nn.FractionalMaxPoolNd makes a number a tuple first)."""
    gen_layouts = _volume_layouts if n == 3 else layouts
    cases = {2: (((2, 3, 7, 6), 2, {"output_size": 3}), ((2, 3, 9, 8), (3, 2), {"output_size": (4, 6)}),
                 ((3, 9, 7), 2, {"output_ratio": (0.5, 0.5)}), ((1, 2, 8, 9), (2, 3), {"output_size": (1, 7)}),
                 ((2, 2, 5, 5), 2, {"output_ratio": (0.8, 0.6)})),
             3: (((2, 3, 5, 6, 7), 2, {"output_size": 3}), ((3, 7, 6, 5), (2, 3, 2), {"output_size": (5, 3, 2)}),
                 ((1, 2, 6, 6, 8), 2, {"output_ratio": (0.5, 0.5, 0.5)}))}[n]

    def gen(op, device, dtype):
        for shape, k, kwargs in cases:
            batch = shape[0] if len(shape) == n + 2 else 1
            for name, t in gen_layouts(shape, device, dtype):
                u = make((batch, shape[-n - 1], n), device, dtype, low=0, high=1)
                yield SampleInput(t, (k,), {**kwargs, "_random_samples": u}, name=f"{name} {shape} k={k} {kwargs}")
                yield SampleInput(t, (k,), {**kwargs, "_random_samples": u, "return_indices": True},
                                  name=f"{name} {shape} k={k} {kwargs} indices")
        # kernel 2 from side 4 to 2: windows [0, 2) and [2, 4) whatever the sample, so each holds at
        # most one nan (eager keeps a window's last nan, an argmax its first). In 3-d the plane is
        # the first slice of -inf ones: the last slices' windows are all -inf.
        inf = math.inf
        plane = torch.tensor([[-inf, -inf, 1.0, 2.0], [-inf, -inf, 2.0, 1.0], [0.5, math.nan, 3.0, 3.0],
                              [0.0, -1.0, 3.0, -inf]], device=device, dtype=dtype)
        if n == 3:
            plane = torch.cat([plane[None], torch.full((3, 4, 4), -inf, device=device, dtype=dtype)])
        t = plane.reshape((1, 1) + plane.shape)
        u = make((1, 1, n), device, dtype, low=0, high=1)
        yield SampleInput(t, (2,), {"output_size": 2, "_random_samples": u, "return_indices": True},
                          name="-inf, nan and ties")
    return gen


def sample_inputs_fractional_max_pool_out(n):
    """aten's (input, kernel_size, output_size, random_samples) for fractional_max_poolNd.output."""
    def gen(op, device, dtype):
        for s in sample_inputs_fractional_max_pool(n)(op, device, dtype):
            if s.kwargs.get("return_indices") and "output_size" in s.kwargs:
                k, size = s.args[0], s.kwargs["output_size"]
                k, size = ([v] * n if isinstance(v, int) else list(v) for v in (k, size))
                yield SampleInput(s.input, (k, size, s.kwargs["_random_samples"]), name=s.name)
    return gen


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


def sample_inputs_max_unpool(n):
    """Unpooling max pooling's result with its indices (overlapping windows repeat an index, with equal values)."""
    cases = {2: (((2, 3, 6, 6), 2, 2, None), ((2, 3, 7, 5), 3, 2, [7, 6]), ((3, 6, 6), 2, 2, [7, 7]),
                 ((1, 2, 6, 6), 3, 1, None)),
             3: (((1, 2, 4, 6, 6), 2, 2, None), ((2, 5, 5, 4), 2, 2, [5, 6, 5]), ((1, 2, 4, 4, 4), 3, 1, None))}[n]
    pool = aten.max_pool2d_with_indices if n == 2 else aten.max_pool3d_with_indices

    def gen(op, device, dtype):
        for shape, k, stride, size in cases:
            for name, x in (layouts if n == 2 else _volume_layouts)(shape, device, dtype):
                y, indices = pool(x, [k] * n, [stride] * n)
                size = size or list(shape[-n:])
                extra = ([stride] * n, [0] * n) if n == 3 else ()
                yield SampleInput(y, (indices, size) + extra, name=f"{name} {shape} k={k} stride={stride} -> {size}")
    return gen


def error_inputs_max_unpool2d(op, device):
    x = make((1, 2, 3, 3), device, torch.float32)
    yield ErrorInput(SampleInput(x, (torch.zeros(1, 2, 3, 3, dtype=torch.int32, device=device), [6, 6])),
                     RuntimeError, "elements in indices should be type int64")
    yield ErrorInput(SampleInput(x, (torch.zeros(1, 2, 3, 2, dtype=torch.int64, device=device), [6, 6])),
                     RuntimeError, "Expected shape of indices to be same as that of the input tensor")


def sample_inputs_embedding_bag(op, device, dtype):
    """torch.nn.functional.embedding_bag: bags given by offsets (with an empty bag), fixed-size bags
    (a 2-d input), per-sample weights, include_last_offset (the last offset is the input's length),
    padding_idx, int32 indices, and a weight without unit row stride (not eager's fast path)."""
    weight = make((10, 3), device, dtype)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device)
    offsets = torch.tensor([0, 4, 4, 6], device=device)
    for mode in ("sum", "mean", "max"):
        yield SampleInput(indices, (weight,), {"offsets": offsets, "mode": mode}, name=f"offsets {mode}")
        yield SampleInput(torch.tensor([[1, 2, 3], [4, 4, 9]], device=device), (weight,), {"mode": mode},
                          name=f"2-d input {mode}")
        yield SampleInput(indices, (weight,), {"offsets": torch.tensor([0, 3, 3, 5, 8], device=device), "mode": mode,
                                               "include_last_offset": True}, name=f"include_last_offset {mode}")
        yield SampleInput(indices, (weight,), {"offsets": offsets, "mode": mode, "padding_idx": 4},
                          name=f"padding_idx {mode}")
        yield SampleInput(indices.to(torch.int32), (weight.t().contiguous().t(),),
                          {"offsets": offsets.to(torch.int32), "mode": mode}, name=f"int32, transposed weight {mode}")
    yield SampleInput(indices, (weight,), {"offsets": offsets, "mode": "sum",
                                           "per_sample_weights": make((8,), device, dtype)}, name="per_sample_weights")


def sample_inputs_aten_embedding_bag(op, device, dtype):
    """aten.embedding_bag (weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights,
    include_last_offset): every result, auxiliary ones included (int32 indices and offsets among them)."""
    weight = make((10, 3), device, dtype)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device)
    offsets = torch.tensor([0, 4, 4, 6], device=device)
    for mode in (0, 1, 2):
        yield SampleInput(weight, (indices, offsets, False, mode), name=f"mode={mode}")
        yield SampleInput(weight.t().contiguous().t(), (indices, offsets, False, mode),
                          name=f"transposed weight mode={mode}")
        yield SampleInput(weight, (indices, torch.tensor([0, 3, 3, 5, 8], device=device), False, mode, False, None,
                                   True), name=f"include_last_offset mode={mode}")
        # the auxiliary results are int32 where indices and offsets both are, else int64
        yield SampleInput(weight, (indices.to(torch.int32), offsets.to(torch.int32), False, mode),
                          name=f"int32 indices and offsets mode={mode}")
        yield SampleInput(weight, (indices.to(torch.int32), offsets, False, mode), name=f"int32 indices mode={mode}")
    yield SampleInput(weight, (indices, offsets, False, 0, False, make((8,), device, dtype)),
                      name="per_sample_weights")


def sample_inputs_embedding_bag_impl(op, device, dtype):
    """aten._embedding_bag / _embedding_bag_forward_only: aten.embedding_bag's arguments, and padding_idx."""
    yield from sample_inputs_aten_embedding_bag(op, device, dtype)
    indices, offsets = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device), torch.tensor([0, 4, 4, 6], device=device)
    for mode in (0, 1, 2):
        yield SampleInput(make((10, 3), device, dtype), (indices, offsets, False, mode, False, None, False, 4),
                          name=f"padding_idx=4 mode={mode}")


def error_inputs_embedding_bag(op, device):
    w = make((10, 3), device, torch.float32)
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device), (w,),
                                 {"offsets": torch.tensor([0], device=device), "mode": "max",
                                  "per_sample_weights": torch.ones(2, device=device)}), NotImplementedError,
                     "per_sample_weights was not None")


# ----------------------------------------------------------------------------- weight norm


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


# ----------------------------------------------------------------------------- entries


def _entry(name, op, aten, samples, *, dtypes=FLOATING, errors=None, tolerances=None, xfails=(), inplace=None,
           out=False, autograd=True, dtypes_cuda=None):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, dtypes=frozenset(dtypes), error_inputs=errors,
                  tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace, supports_out=out,
                  supports_autograd=autograd, family="nn",
                  dtypes_cuda=None if dtypes_cuda is None else frozenset(dtypes_cuda))


# Reductions (mean/var/sum) in another order than eager's kernels: a few ulps in float32 and a
# rounding step more or less in float16/bfloat16.
REDUCTION_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (2e-2, 2e-2),
}

def _eager_gelu_nan_at_inf() -> frozenset:
    """The dtypes whose eager CPU gelu gives nan at +inf on the extremal-value sample, on this machine: the
    vectorized erf path does (float32 and bfloat16; float16 too where the CPU has AVX-512, whose float16 kernel
    is vectorized as well), the scalar path gives +inf."""
    from types import SimpleNamespace
    from primkit.opinfo.samples import extremal_unary
    nan = set()
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        (sample,) = extremal_unary(SimpleNamespace(domain=(None, None)), "cpu", dtype)
        x = sample.input
        if torch.isnan(F.gelu(x)[torch.isposinf(x)]).any():
            nan.add(dtype)
    return frozenset(nan)


ENTRIES = [
    _activation("relu", dtypes=FLOATING | INTEGRAL, inplace=torch.relu_),
    _activation("gelu", {}, {"approximate": "tanh"}, error_inputs=_errors_gelu,
                xfails=[XFail("values", "eager's vectorized CPU gelu gives gelu(+inf) = nan (its erf path: float32 and "
                              "bfloat16, and float16 on AVX-512 machines; the dtypes are probed on this machine); "
                              "primkit's x / 2 (1 + erf(x / sqrt 2)) gives +inf, the limit, as eager's scalar path "
                              "does", _eager_gelu_nan_at_inf(), "cpu", raises=AssertionError)]),
    _activation("silu", inplace=_inplace(F.silu, inplace=True), error_inputs=_errors_floating_only),
    _activation("hardtanh", {}, {"min_val": -0.5, "max_val": 2.0}, dtypes=FLOATING | INTEGRAL,
                inplace=F.hardtanh_),
    _activation("leaky_relu", {}, {"negative_slope": 0.2}, inplace=F.leaky_relu_,
                error_inputs=_errors_floating_only),
    _activation("elu", {}, {"alpha": 0.5}, inplace=F.elu_, error_inputs=_errors_floating_only),
    _activation("softplus", {}, {"beta": 2, "threshold": 5}, error_inputs=_errors_floating_only),
    _activation("threshold", args=(0.5, -1.0), dtypes=FLOATING | INTEGRAL, inplace=F.threshold_),
    _activation("hardsigmoid", inplace=_inplace(F.hardsigmoid, inplace=True), error_inputs=_errors_floating_only),
    _activation("hardswish", inplace=_inplace(F.hardswish, inplace=True), error_inputs=_errors_floating_only),
    _activation("mish", inplace=_inplace(F.mish, inplace=True), error_inputs=_errors_floating_only),
    _activation("logsigmoid", aten=("aten::log_sigmoid_forward",), error_inputs=_errors_floating_only),
    _entry("nn.functional.glu", F.glu, ("aten::glu",), sample_inputs_glu, errors=error_inputs_glu),
    _entry("nn.functional.softmax", F.softmax, ("aten::_softmax",), sample_inputs_softmax,
           errors=error_inputs_softmax, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.log_softmax", F.log_softmax, ("aten::_log_softmax",), sample_inputs_softmax,
           errors=error_inputs_softmax, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.layer_norm", F.layer_norm, ("aten::native_layer_norm",), sample_inputs_layer_norm,
           errors=error_inputs_layer_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.rms_norm", F.rms_norm, ("aten::rms_norm",), sample_inputs_rms_norm,
           errors=error_inputs_rms_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.batch_norm", F.batch_norm, ("aten::native_batch_norm",), sample_inputs_batch_norm,
           errors=error_inputs_batch_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.group_norm", F.group_norm, ("aten::native_group_norm",), sample_inputs_group_norm,
           errors=error_inputs_group_norm, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.conv1d", F.conv1d, ("aten::convolution",), _conv_samples(1, False)),
    _entry("nn.functional.conv2d", F.conv2d, ("aten::convolution",), _conv_samples(2, False),
           errors=error_inputs_conv2d),
    _entry("nn.functional.conv3d", F.conv3d, ("aten::convolution",), _conv_samples(3, False)),
    _entry("nn.functional.conv_transpose1d", F.conv_transpose1d, ("aten::convolution",), _conv_samples(1, True)),
    _entry("nn.functional.conv_transpose2d", F.conv_transpose2d, ("aten::convolution",), _conv_samples(2, True)),
    _entry("nn.functional.max_pool2d", F.max_pool2d, ("aten::max_pool2d_with_indices",), sample_inputs_max_pool2d,
           errors=error_inputs_max_pool2d),
    # Eager's CPU average poolings also take int64 (sum in int64, division rounded toward zero); CUDA's do not.
    _entry("nn.functional.avg_pool2d", F.avg_pool2d, ("aten::avg_pool2d",), sample_inputs_avg_pool2d,
           errors=error_inputs_avg_pool2d, tolerances=REDUCTION_TOLERANCES, dtypes=NUMERIC, dtypes_cuda=FLOATING),
    _entry("nn.functional.adaptive_avg_pool2d", F.adaptive_avg_pool2d, ("aten::_adaptive_avg_pool2d",),
           sample_inputs_adaptive_avg_pool2d, errors=error_inputs_adaptive_avg_pool2d,
           tolerances=REDUCTION_TOLERANCES),
    # Eager's composite adaptive_avg_pool2d turns a 1x1 output of a channels-last input into a mean and a
    # restride (as_strided_); traced, the table's adaptive_avg_pool2d runs instead and gives eager's result.
    _entry("nn.functional.adaptive_avg_pool2d.global_channels_last", F.adaptive_avg_pool2d,
           ("aten::adaptive_avg_pool2d",), sample_inputs_global_avg_pool_channels_last),
    _entry("nn.functional.max_pool1d", F.max_pool1d, ("aten::max_pool1d",), sample_inputs_pool1d),
    _entry("nn.functional.avg_pool1d", F.avg_pool1d, ("aten::avg_pool1d",), sample_inputs_pool1d,
           tolerances=REDUCTION_TOLERANCES, dtypes=NUMERIC, dtypes_cuda=FLOATING),
    _entry("nn.functional.embedding", F.embedding, ("aten::embedding",), sample_inputs_embedding,
           errors=error_inputs_embedding),
    _entry("nn.functional.dropout", F.dropout, ("aten::dropout", "aten::native_dropout", "aten::dropout_"),
           sample_inputs_dropout, errors=error_inputs_dropout,
           inplace=lambda t, *args, **kwargs: F.dropout(t, *args, **kwargs, inplace=True)),
    _entry("nn.functional.scaled_dot_product_attention", F.scaled_dot_product_attention,
           ("aten::_scaled_dot_product_flash_attention_for_cpu",), sample_inputs_sdpa, errors=error_inputs_sdpa,
           dtypes=FLOATING, tolerances=REDUCTION_TOLERANCES),
    # Eager's nll_loss2d kernel accumulates float16 sums in float16; the decomposition sums in float32.
    _entry("nn.functional.nll_loss", F.nll_loss, ("aten::nll_loss_forward", "aten::nll_loss2d_forward"),
           sample_inputs_nll_loss, errors=error_inputs_nll_loss,
           tolerances={**REDUCTION_TOLERANCES, torch.float16: (2e-2, 5e-3)}),
    _entry("nn.functional.cross_entropy", F.cross_entropy, ("aten::_log_softmax", "aten::nll_loss_forward"),
           sample_inputs_cross_entropy, errors=error_inputs_cross_entropy, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.mse_loss", F.mse_loss, ("aten::mse_loss",), sample_inputs_regression_loss,
           errors=error_inputs_regression_loss, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.l1_loss", F.l1_loss, ("aten::l1_loss",), sample_inputs_regression_loss,
           errors=error_inputs_regression_loss, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits,
           ("aten::binary_cross_entropy_with_logits",), sample_inputs_bce_with_logits,
           errors=error_inputs_bce_with_logits, tolerances=REDUCTION_TOLERANCES),
    # aten packets with an out= overload: test_out runs it.
    _entry("aten._adaptive_avg_pool2d", aten._adaptive_avg_pool2d,
           ("aten::_adaptive_avg_pool2d", "aten::_adaptive_avg_pool2d.out"),
           _sizes_as_lists(sample_inputs_adaptive_avg_pool2d, 2),
           errors=_errors_as_lists(error_inputs_adaptive_avg_pool2d, 2), tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("aten.adaptive_avg_pool2d", aten.adaptive_avg_pool2d,
           ("aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool2d.out"),
           _sizes_as_lists(sample_inputs_adaptive_avg_pool2d, 2),
           tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("aten.adaptive_avg_pool1d", aten.adaptive_avg_pool1d,
           ("aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool1d.out"), sample_inputs_adaptive_avg_pool1d,
           tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("aten.avg_pool1d", aten.avg_pool1d, ("aten::avg_pool1d", "aten::avg_pool1d.out"), sample_inputs_pool1d,
           tolerances=REDUCTION_TOLERANCES, out=True, dtypes=NUMERIC, dtypes_cuda=FLOATING),
    _entry("aten.convolution", aten.convolution, ("aten::convolution", "aten::convolution.out"),
           sample_inputs_convolution, out=True),
    _entry("aten._convolution", aten._convolution, ("aten::_convolution", "aten::_convolution.out"),
           sample_inputs_underscore_convolution, out=True),
    _entry("aten._convolution.deprecated", aten._convolution.deprecated, ("aten::_convolution.deprecated",),
           sample_inputs_convolution_deprecated),
    # float32 and float64: the products summed in another order than eager's BLAS
    _entry("aten.conv_tbc", aten.conv_tbc, ("aten::conv_tbc", "aten::conv_tbc.out"), sample_inputs_conv_tbc,
           errors=error_inputs_conv_tbc, tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("aten.embedding", aten.embedding, ("aten::embedding", "aten::embedding.out"), sample_inputs_aten_embedding,
           out=True),
    _entry("aten.nll_loss", aten.nll_loss, ("aten::nll_loss", "aten::nll_loss.out"), sample_inputs_nll_loss_forward,
           tolerances=REDUCTION_TOLERANCES, out=True),
    # Multi-result out= overloads (see with_outs).
    out_entry(aten.max_pool2d_with_indices.out, aten.max_pool2d_with_indices, sample_inputs_max_pool2d_with_indices),
    out_entry(aten.native_batch_norm.out, aten.native_batch_norm, _dense_when_training(sample_inputs_native_batch_norm),
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._native_batch_norm_legit.out, aten._native_batch_norm_legit.default,
              _dense_when_training(sample_inputs_native_batch_norm), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._native_batch_norm_legit.no_stats_out, aten._native_batch_norm_legit.no_stats,
              _without_stats(_dense_when_training(sample_inputs_native_batch_norm)), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._native_batch_norm_legit_no_training.out, aten._native_batch_norm_legit_no_training,
              _no_training(sample_inputs_native_batch_norm), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.native_dropout.out, aten.native_dropout, sample_inputs_native_dropout),
    out_entry(aten.native_group_norm.out, aten.native_group_norm, sample_inputs_native_group_norm,
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.native_layer_norm.out, aten.native_layer_norm, sample_inputs_native_layer_norm,
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.nll_loss_forward.output, aten.nll_loss_forward, sample_inputs_nll_loss_forward,
              tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.log_sigmoid_forward.output, aten.log_sigmoid_forward, sample_inputs_log_sigmoid_forward),
    # Ops with a decomposition of their own that the entries above do not reach.
    _entry("aten._safe_softmax", aten._safe_softmax, ("aten::_safe_softmax",), sample_inputs_safe_softmax,
           tolerances=REDUCTION_TOLERANCES),
    _entry("aten._fused_rms_norm", aten._fused_rms_norm, ("aten::_fused_rms_norm",), sample_inputs_fused_rms_norm,
           tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.conv_transpose3d", F.conv_transpose3d, ("aten::conv_transpose3d.input",),
           _conv_samples(3, True)),
    _entry("nn.functional.max_pool1d.return_indices", F.max_pool1d, ("aten::max_pool1d_with_indices",),
           sample_inputs_max_pool1d_indices),
    # No gradients: eager differentiates the normalized output only (the batch statistics and the new
    # running statistics are non-differentiable outputs); the prim graph differentiates every output.
    _entry("aten._native_batch_norm_legit_functional", aten._native_batch_norm_legit_functional,
           ("aten::_native_batch_norm_legit_functional",), sample_inputs_native_batch_norm,
           tolerances=REDUCTION_TOLERANCES, autograd=False),
    # aten.batch_norm's successors. No gradients, as _native_batch_norm_legit_functional's: eager
    # differentiates the output only, the prim graph every result.
    _entry("aten._batch_norm_with_update", batch_norm_with_update_and_stats, ("aten::_batch_norm_with_update",),
           _training_only(sample_inputs_native_batch_norm), tolerances=REDUCTION_TOLERANCES, autograd=False),
    _entry("aten._batch_norm_with_update_functional", aten._batch_norm_with_update_functional,
           ("aten::_batch_norm_with_update_functional",), _training_only(sample_inputs_native_batch_norm),
           tolerances=REDUCTION_TOLERANCES, autograd=False),
    _entry("aten._batch_norm_no_update", aten._batch_norm_no_update, ("aten::_batch_norm_no_update",),
           _no_training(sample_inputs_native_batch_norm), tolerances=REDUCTION_TOLERANCES, autograd=False),
    out_entry(aten._batch_norm_with_update.out, aten._batch_norm_with_update.default,
              _training_only(_dense_when_training(sample_inputs_native_batch_norm)), tolerances=REDUCTION_TOLERANCES),
    out_entry(aten._batch_norm_no_update.out, aten._batch_norm_no_update.default,
              _no_training(sample_inputs_native_batch_norm), tolerances=REDUCTION_TOLERANCES),
    # 3-d, adaptive max and un-pooling; instance norm.
    # Eager's CPU avg_pool3d has no float16/bfloat16 kernels; it has int64's (as avg_pool2d), CUDA's has not.
    _entry("aten.avg_pool3d", aten.avg_pool3d, ("aten::avg_pool3d", "aten::avg_pool3d.out"), sample_inputs_avg_pool3d,
           dtypes=FLOAT32_64 | INTEGRAL, tolerances=REDUCTION_TOLERANCES, out=True, dtypes_cuda=FLOAT32_64),
    _entry("nn.functional.max_pool3d", F.max_pool3d, ("aten::max_pool3d", "aten::max_pool3d_with_indices"),
           sample_inputs_max_pool3d),
    out_entry(aten.max_pool3d_with_indices.out, aten.max_pool3d_with_indices, sample_inputs_max_pool3d_with_indices),
    _entry("nn.functional.adaptive_avg_pool3d", F.adaptive_avg_pool3d, ("aten::adaptive_avg_pool3d",),
           sample_inputs_adaptive_pool3d, tolerances=REDUCTION_TOLERANCES),
    _entry("aten.adaptive_avg_pool3d", aten.adaptive_avg_pool3d, ("aten::adaptive_avg_pool3d.out",),
           sample_inputs_adaptive_pool3d, tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("aten._adaptive_avg_pool3d", aten._adaptive_avg_pool3d,
           ("aten::_adaptive_avg_pool3d", "aten::_adaptive_avg_pool3d.out"), sample_inputs_adaptive_pool3d,
           tolerances=REDUCTION_TOLERANCES, out=True),
    *(_entry(f"nn.functional.adaptive_max_pool{n}d", getattr(F, f"adaptive_max_pool{n}d"),
             (f"aten::adaptive_max_pool{n}d",), sample_inputs_adaptive_max_pool(n)) for n in (1, 2, 3)),
    *(out_entry(getattr(aten, f"adaptive_max_pool{n}d").out, getattr(aten, f"adaptive_max_pool{n}d").default,
                sample_inputs_adaptive_max_pool_out(n)) for n in (2, 3)),
    *(_entry(f"nn.functional.fractional_max_pool{n}d", getattr(F, f"fractional_max_pool{n}d"),
             (f"aten::fractional_max_pool{n}d",), sample_inputs_fractional_max_pool(n)) for n in (2, 3)),
    *(out_entry(getattr(aten, f"fractional_max_pool{n}d").output, getattr(aten, f"fractional_max_pool{n}d").default,
                sample_inputs_fractional_max_pool_out(n)) for n in (2, 3)),
    _entry("aten.max_unpool2d", aten.max_unpool2d, ("aten::max_unpool2d", "aten::max_unpool2d.out"),
           sample_inputs_max_unpool(2), errors=error_inputs_max_unpool2d, out=True),
    _entry("aten.max_unpool3d", aten.max_unpool3d, ("aten::max_unpool3d", "aten::max_unpool3d.out"),
           sample_inputs_max_unpool(3), out=True),
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
    # Sums of rows in another order than eager's kernels (float16/bfloat16 round once here).
    _entry("nn.functional.embedding_bag", F.embedding_bag, ("aten::embedding_bag.padding_idx",),
           sample_inputs_embedding_bag, errors=error_inputs_embedding_bag, tolerances=REDUCTION_TOLERANCES),
    _entry("aten.embedding_bag", aten.embedding_bag, ("aten::embedding_bag",), sample_inputs_aten_embedding_bag,
           tolerances=REDUCTION_TOLERANCES),
    _entry("aten._embedding_bag", aten._embedding_bag, ("aten::_embedding_bag",), sample_inputs_embedding_bag_impl,
           tolerances=REDUCTION_TOLERANCES),
    _entry("aten._embedding_bag_forward_only", aten._embedding_bag_forward_only, ("aten::_embedding_bag_forward_only",),
           sample_inputs_embedding_bag_impl, tolerances=REDUCTION_TOLERANCES, autograd=False),
]


# Linear interpolation: eager's kernels combine the two (or 2**n) neighbours in another order and
# precompute weights differently; float16/bfloat16 results may differ by one rounding.
CDIST_DTYPES = (torch.float32, torch.float64)    # eager's CPU cdist has no float16/bfloat16 kernel


def _writable(samples):
    """samples without the expanded ones: an in-place op cannot write into overlapping memory."""
    def gen(op, device, dtype):
        return (s for s in samples(op, device, dtype) if "expanded" not in s.name)
    return gen


# Linear interpolation: eager and primkit round the blend at different points; on values in
# [-9, 9] they differ by up to half an ulp at 8 (measured 0.031 in bfloat16, 0.0039 in float16).
INTERPOLATION_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float64: (1e-12, 1e-12),
    torch.float16: (4e-3, 2e-3),
    torch.bfloat16: (3.2e-2, 1.6e-2),
}


# bilinear / _trilinear: eager rounds the pairwise product (sumproduct_pair, through bmm) to
# float16/bfloat16 before the third factor; primkit computes in float32 and rounds once. Where the
# sum cancels, eager's rounding of partial sums up to ~500 is the whole difference: measured up to
# 4.0 (bfloat16, 2 ulp at 512) and 0.5 (float16) on outputs whose large entries rtol covers.
BILINEAR_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (0.15, 2e-3),
    torch.bfloat16: (2.0, 2e-2),
}


def entry(name, op, aten_names, samples, *, dtypes=FLOATING, errors=None, tolerances=None, xfails=(),
          inplace=None, out=False, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, dtypes=frozenset(dtypes),
                  error_inputs=errors, tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace,
                  supports_out=out, family="nn", **kw)


def errors(*rows):
    """rows: (callable device -> SampleInput, exception type, regex on eager's message)."""
    def gen(op, device):
        for make_sample, exc, match in rows:
            yield ErrorInput(make_sample(device), exc, match)
    return gen


def _activation_kwargs_samples(*kwargs_variants):
    def gen(op, device, dtype):
        for i, kwargs in enumerate(kwargs_variants):
            for shape in ACTIVATION_SHAPES if i == 0 else ((4, 5),):
                for name, t in layouts(shape, device, dtype, low=-4, high=4):
                    yield SampleInput(t, (), dict(kwargs), name=f"{name} {shape} {kwargs}")
            for s in extremal_unary(op, device, dtype):
                yield SampleInput(s.input, (), dict(kwargs), name=f"extremal {kwargs}")
    return gen


def _errors_long(op, device):
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device)), RuntimeError, "not implemented for 'Long'")


def _errors_softshrink(op, device):
    yield from _errors_long(op, device)
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (-1.0,)), RuntimeError,
                     "lambda must be")


def _inplace_true(fn):
    return lambda t, *args, **kwargs: fn(t, *args, **{**kwargs, "inplace": True})


def sample_inputs_prelu(op, device, dtype):
    for shape in ((2, 3, 4, 5), (4, 3), (3,), (2, 3, 0)):
        channels = shape[1] if len(shape) >= 2 else 1
        for name, t in layouts(shape, device, dtype, low=-3, high=3):
            yield SampleInput(t, (make((channels,), device, dtype),), name=f"{name} {shape} per channel")
            yield SampleInput(t, (make((1,), device, dtype),), name=f"{name} {shape} shared")
    yield SampleInput(make((), device, dtype), (make((1,), device, dtype),), name="0-d")


def error_inputs_prelu(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), (make((4,), device, torch.float32),)),
                     RuntimeError, "Mismatch of parameter numbers and input channel size")
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (make((3, 1), device, torch.float32),)),
                     RuntimeError, "Expected `weight` to be a scalar or 1D tensor")


def sample_inputs_dropout_eval(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.5, False), name=f"eval {name} {shape}")
    yield SampleInput(make((2, 3, 4), device, dtype), (0.0, True), name="train p=0")


def error_inputs_dropout_eval(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (1.5, False)), RuntimeError,
                     "dropout probability has to be between 0 and 1")


def pad_samples(n, pads):
    """Every layout with the first padding; the other paddings (zero, wide, negative) contiguous;
    an unbatched input and an empty batch."""
    def gen(op, device, dtype):
        shape = (2, 3) + (4, 5, 3)[:n]
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (list(pads[0]),), name=f"{name} {shape} pad={pads[0]}")
        for pad in pads[1:]:
            yield SampleInput(make(shape, device, dtype), (list(pad),), name=f"{shape} pad={pad}")
        yield SampleInput(make(shape[1:], device, dtype), (list(pads[0]),), name="unbatched")
        yield SampleInput(make((0, 2) + (3, 3, 3)[:n], device, dtype), (list(pads[0]),), name="empty batch")
    return gen


REFLECTION_PADS = {1: ((1, 2), (0, 0), (3, 3), (-1, 2)), 2: ((1, 2, 2, 1), (0, 0, 3, 0), (2, -1, 1, 1)),
                   3: ((1, 0, 2, 1, 1, 2), (2, 2, 0, 0, 1, 1))}


REPLICATION_PADS = {1: ((1, 2), (0, 0), (5, 6), (-1, 2)), 2: ((1, 2, 2, 1), (0, 0, 6, 0), (2, -1, 1, 1)),
                    3: ((1, 0, 2, 1, 1, 2), (4, 4, 0, 0, 1, 1))}


def _pad_errors(n, reflection):
    def gen(op, device):
        x = make((2, 3) + (3, 3, 3)[:n], device, torch.float32)
        yield ErrorInput(SampleInput(make((3,) * (n + 3), device, torch.float32), ([1] * (2 * n),)), RuntimeError,
                         "Expected")
        if reflection:
            yield ErrorInput(SampleInput(x, ([3] * (2 * n),)), RuntimeError,
                             "Padding size should be less than the corresponding input dimension")
    return gen


def sample_inputs_pad(op, device, dtype):
    for mode, pads in (("reflect", ((1, 2), (2, 1, 1, 2))), ("replicate", ((1, 2), (2, 0, 3, 1))),
                       ("constant", ((1, 2), (1, -1, 2, 0)))):
        for pad in pads:
            shape = (2, 3, 4, 5) if len(pad) == 4 else (2, 3, 5)
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (list(pad),), {"mode": mode}, name=f"{mode} {name} {pad}")
    yield SampleInput(make((2, 3, 4), device, dtype), ([1, 1],), {"mode": "constant", "value": 2.5},
                      name="constant value")
    yield SampleInput(make((2, 2, 3, 3, 4), device, dtype), ([1, 1, 1, 2, 0, 1],), {"mode": "reflect"},
                      name="reflect 3d")


def error_inputs_pad(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), ([1, 1],), {"mode": "reflect", "value": 1.0}),
                     RuntimeError, "doesn't take in value argument")
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), ([1, 1],), {"mode": "wrap"}),
                     RuntimeError, "Unrecognised padding mode")


def sample_inputs_pad_circular(op, device, dtype):
    for pad in ((1, 2), (2, 1, 1, 3)):
        shape = (2, 3, 4, 5) if len(pad) == 4 else (2, 3, 5)
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (list(pad),), {"mode": "circular"}, name=f"{name} {pad}")


def sample_inputs_pixel_shuffle(op, device, dtype):
    for shape, r in (((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((2, 1, 4, 3, 2), 1), ((0, 4, 2, 2), 2)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (r,), name=f"{name} {shape} r={r}")


def sample_inputs_pixel_unshuffle(op, device, dtype):
    # eager returns an empty input unchanged (wrong shape), so no empty sample
    for shape, r in (((2, 2, 4, 6), 2), ((1, 6, 3), 3), ((2, 1, 2, 4, 2), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (r,), name=f"{name} {shape} r={r}")


def sample_inputs_channel_shuffle(op, device, dtype):
    for shape, g in (((2, 6, 3, 4), 3), ((2, 4, 5), 2), ((1, 4, 2, 2, 2), 4), ((3, 5, 2), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (g,), name=f"{name} {shape} groups={g}")


def _upsample_samples(n, linear):
    """Samples for the .vec overloads: every layout with one output_size; contiguous inputs with
    other sizes (same, double, 1) and scale_factors (fractional, integral, shrinking)."""
    def gen(op, device, dtype):
        shape = (2, 3) + (4, 5, 3)[:n]
        sized = lambda size, align=False: (list(size), align, None) if linear else (list(size), None)  # noqa: E731
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, sized((7, 3, 5)[:n]), name=f"{name} size={(7, 3, 5)[:n]}")
        t = make(shape, device, dtype)
        for size in ((4, 5, 3)[:n], (8, 10, 6)[:n], (1, 1, 1)[:n]):
            yield SampleInput(t, sized(size), name=f"size={size}")
        for scales in ((1.5, 0.7, 2.0)[:n], (2.0, 2.0, 2.0)[:n], (0.5, 0.34, 1.0)[:n]):
            args = (None, False, list(scales)) if linear else (None, list(scales))
            yield SampleInput(t, args, name=f"scales={scales}")
        if linear:
            for size in ((7, 3, 5)[:n], (1, 1, 1)[:n]):
                yield SampleInput(t, sized(size, True), name=f"align_corners size={size}")
    return gen


def _upsample_errors(n, linear):
    def gen(op, device):
        x = make((2, 3) + (4,) * n, device, torch.float32)
        both = (None, False, None) if linear else (None, None)
        yield ErrorInput(SampleInput(x, both), RuntimeError, "Must specify exactly one of output_size and scale_factors")
    return gen


def _upsample_sized_samples(n, linear):
    def gen(op, device, dtype):
        shape = (2, 3) + (4, 5, 3)[:n]
        for name, t in layouts(shape, device, dtype):
            size = list((7, 3, 5)[:n])
            yield SampleInput(t, (size, False) if linear else (size,), name=f"{name} size={size}")
            scales = (1.8, 0.65, 1.7)[:n]
            yield SampleInput(t, (size, False, *scales) if linear else (size, *scales), name=f"{name} with scales")
    return gen


# Antialiased upsampling (F.interpolate(..., antialias=True)): eager has float32/float64 kernels only.
AA_OPS = ("_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa")


def _upsample_aa_samples(op, device, dtype):
    """.vec samples: every layout of a non-square batch with one output_size (height up, width
    down); other sizes (up, down, 1x1, one dim unchanged, unchanged: eager copies), align_corners,
    scale_factors, and a batch of 1 shrunk by more than 4 (a window of 11 and more inputs)."""
    shape = (2, 3, 4, 5)
    for name, t in layouts(shape, device, dtype):
        yield SampleInput(t, ([7, 3], False, None), name=f"{name} size=[7, 3]")
    t = make(shape, device, dtype)
    for size in ([8, 10], [2, 2], [1, 1], [4, 9], [4, 5]):
        yield SampleInput(t, (size, False, None), name=f"size={size}")
    for size in ([7, 3], [1, 1], [2, 9]):
        yield SampleInput(t, (size, True, None), name=f"align_corners size={size}")
    for scales in ([1.5, 0.7], [2.0, 2.0], [0.5, 0.4], [1.0, 0.5]):
        for align in (False, True):
            yield SampleInput(t, (None, align, scales), name=f"scales={scales} align_corners={align}")
    big = make((1, 2, 19, 16), device, dtype)
    for name, t in (("contiguous", big), ("channels_last", big.contiguous(memory_format=torch.channels_last))):
        yield SampleInput(t, ([3, 4], False, None), name=f"{name} batch 1 size=[3, 4]")
        yield SampleInput(t, (None, True, [0.3, 0.55]), name=f"{name} batch 1 scales align_corners")


def _upsample_aa_sized_samples(op, device, dtype):
    """The default overload's (and .out's) samples: output_size with and without scales_h/scales_w."""
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(t, ([7, 3], False), name=f"{name} size=[7, 3]")
        yield SampleInput(t, ([7, 3], False, 1.8, 0.65), name=f"{name} with scales")
    t = make((1, 2, 9, 7), device, dtype)
    yield SampleInput(t, ([3, 8], True), name="batch 1 align_corners")
    yield SampleInput(t, ([9, 2], False, None, 0.3), name="batch 1 height unchanged")


def _upsample_aa_unchanged_dim_samples(op, device, dtype):
    """A dim of unchanged size with a scale that would resample it: eager's forward copies it."""
    for name, t in layouts((1, 2, 9, 7), device, dtype):
        yield SampleInput(t, ([9, 2], False, 0.5, 0.3), name=f"{name} height unchanged, scales_h=0.5")


def _upsample_aa_errors(op, device):
    x = make((2, 3, 4, 5), device, torch.float32)
    rows = [
        ((x, (None, False, None)), RuntimeError, "Must specify exactly one of output_size and scale_factors"),
        ((x, ([3, 4], False, [2.0, 2.0])), RuntimeError, "Must specify exactly one of output_size and scale_factors"),
        ((x[0], ([3, 4], False, None)), RuntimeError, "output_size->size()) == spatial_dimensions"),
        ((x.unsqueeze(2), ([3, 4], False, None)), RuntimeError, "output_size->size()) == spatial_dimensions"),
        ((x, (None, False, [2.0])), RuntimeError, "scale_factors->size()) == spatial_dimensions"),
        ((x, ([0, 4], False, None)), RuntimeError, "Input and output sizes should be greater than 0"),
        ((x[:, :, :0], ([3, 4], False, None)), RuntimeError, "Input and output sizes should be greater than 0"),
        ((x.half(), ([3, 4], False, None)), NotImplementedError, "\"compute_index_ranges_weights\" not implemented "
                                                                 "for 'Half'"),
        ((x.bfloat16(), ([4, 3], False, None)), NotImplementedError, "not implemented for 'BFloat16'"),
    ]
    for (t, args), exc, match in rows:
        yield ErrorInput(SampleInput(t, args), exc, re.escape(match))


def _upsample_aa_sized_errors(op, device):
    x = make((2, 3, 4, 5), device, torch.float32)
    for t, size, match in ((x[0], [3, 4], "It is expected input_size equals to 4, but got size 3"),
                           (x.unsqueeze(2), [3, 4], "It is expected input_size equals to 4, but got size 5"),
                           (x, [3], "It is expected output_size equals to 2, but got size 1")):
        yield ErrorInput(SampleInput(t, (size, False)), RuntimeError, re.escape(match))


def _interpolate_aa(mode):
    def interpolate(t, **kwargs):
        return F.interpolate(t, mode=mode, antialias=True, **kwargs)
    interpolate.__name__ = f"interpolate_{mode}_aa"
    return interpolate


def _interpolate_aa_samples(op, device, dtype):
    """F.interpolate's arguments for the .vec samples (size or scale_factor, align_corners)."""
    for s in _upsample_aa_samples(op, device, dtype):
        size, align, scales = s.args
        kwargs = {"size": size} if size is not None else {"scale_factor": scales}
        yield SampleInput(s.input, (), {**kwargs, "align_corners": align}, name=s.name)


def _loss_reductions():
    return ("none", "mean", "sum")


def _reduction_code(r):
    return {"none": 0, "mean": 1, "sum": 2}[r]


def _pointwise_loss_samples(*extra, target=None, low=None, high=None, as_code=False):
    """(input, target) pairs of one shape for each reduction; ``extra``: kwargs variants."""
    def gen(op, device, dtype):
        for reduction in _loss_reductions():
            red = {"reduction": _reduction_code(reduction) if as_code else reduction}
            for shape in ((), (0,), (4, 5), (2, 3, 4)):
                for name, t in layouts(shape, device, dtype, low=low, high=high):
                    y = target(shape, device, dtype) if target else make(shape, device, dtype)
                    for kw in extra or ({},):
                        yield SampleInput(t, (y,), {**red, **kw}, name=f"{name} {shape} {reduction} {kw}")
    return gen


def _sign_target(shape, device, dtype):
    return torch.where(make(shape, device, torch.float32) > 0, 1.0, -1.0).to(device=device, dtype=dtype)


def error_inputs_pointwise_loss(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (make((3, 5), device, torch.float32),)),
                     RuntimeError, "must match the size of tensor")


def sample_inputs_bce(op, device, dtype):
    for reduction in (0, 1, 2):
        for shape in ((), (0,), (4, 5), (2, 3, 4)):
            for name, t in layouts(shape, device, dtype, low=0, high=1):
                y = make(shape, device, dtype, low=0, high=1)
                yield SampleInput(t, (y,), {"reduction": reduction}, name=f"{name} {shape} {reduction}")
                yield SampleInput(t, (y, make(shape, device, dtype, low=0, high=2)), {"reduction": reduction},
                                  name=f"{name} {shape} {reduction} weight")
    x = torch.tensor([0.0, 1.0, 0.0, 1.0, 0.5], device=device, dtype=dtype)
    y = torch.tensor([0.0, 1.0, 1.0, 0.0, 0.5], device=device, dtype=dtype)
    yield SampleInput(x, (y,), {"reduction": 0}, name="log(0) clamped at -100")


def error_inputs_bce(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32, low=0, high=1),
                                 (make((3, 5), device, torch.float32, low=0, high=1),)), ValueError,
                     "Using a target size")


def sample_inputs_kl_div(op, device, dtype):
    for reduction in ("none", "batchmean", "sum", "mean"):
        for name, t in layouts((4, 5), device, dtype, low=-3, high=0):
            yield SampleInput(t, (make((4, 5), device, dtype, low=0, high=1),), {"reduction": reduction},
                              name=f"{name} {reduction}")
            yield SampleInput(t, (make((4, 5), device, dtype, low=-3, high=0),),
                              {"reduction": reduction, "log_target": True}, name=f"{name} {reduction} log_target")
    yield SampleInput(make((3,), device, dtype), (torch.zeros(3, device=device, dtype=dtype),), {"reduction": "sum"},
                      name="zero target (0 log 0 = 0)")


def sample_inputs_poisson_nll(op, device, dtype):
    for reduction in _loss_reductions():
        for log_input in (True, False):
            for full in (False, True):
                x = make((4, 5), device, dtype, low=0.1 if not log_input else -2, high=3)
                y = make((4, 5), device, dtype, low=0, high=4)
                yield SampleInput(x, (y,), {"log_input": log_input, "full": full, "reduction": reduction},
                                  name=f"log_input={log_input} full={full} {reduction}")


def sample_inputs_ctc_loss(op, device, dtype):
    """Padded (2-d) and concatenated (1-d) targets, lengths as tensors and as tuples, a label repeated
    (a blank must separate the repeats), an empty target, and inputs too short for their targets
    (infinite loss, zeroed by zero_infinity)."""
    T, N, C = 7, 3, 5
    log_probs = torch.log_softmax(make((T, N, C), device, dtype), 2)
    targets = torch.tensor([[1, 2, 2], [3, 1, 4], [4, 4, 4]], device=device)
    input_lengths, target_lengths = torch.tensor([7, 5, 4], device=device), torch.tensor([3, 0, 3], device=device)
    concatenated = torch.cat([targets[n, :target_lengths[n]] for n in range(N)])
    for reduction in ("none", "mean", "sum"):
        for zero_infinity in (False, True):
            kw = {"reduction": reduction, "zero_infinity": zero_infinity}
            yield SampleInput(log_probs, (targets, input_lengths, target_lengths), kw,
                              name=f"padded {reduction} zero_infinity={zero_infinity}")
            yield SampleInput(log_probs, (concatenated, input_lengths, target_lengths), kw,
                              name=f"concatenated {reduction} zero_infinity={zero_infinity}")
    for reduction in ("none", "mean", "sum"):   # ctc_loss.IntList
        yield SampleInput(log_probs, (targets, tuple(input_lengths.tolist()), tuple(target_lengths.tolist())),
                          {"reduction": reduction, "zero_infinity": True}, name=f"tuple lengths {reduction}")
        yield SampleInput(log_probs[:, 0], (targets[0], torch.tensor(7, device=device), torch.tensor(3, device=device)),
                          {"reduction": reduction}, name=f"unbatched {reduction}")
    yield SampleInput(log_probs, (concatenated, input_lengths.int(), target_lengths.short()), {},
                      name="int32 / int16 lengths")
    yield SampleInput(log_probs, (targets, input_lengths, target_lengths), {"blank": C - 1, "reduction": "none"},
                      name="last class is blank")


def error_inputs_ctc_loss(op, device):
    log_probs = torch.log_softmax(make((4, 2, 3), device, torch.float32), 2)
    targets, lengths = torch.ones(2, 2, dtype=torch.long, device=device), torch.tensor([4, 4], device=device)
    yield ErrorInput(SampleInput(log_probs, (targets, lengths, torch.tensor([2, 1], device=device)), {"blank": 3}),
                     RuntimeError, "blank must be in label range")
    yield ErrorInput(SampleInput(log_probs, (targets, lengths.double(), torch.tensor([2, 1], device=device))),
                     RuntimeError, "input_lengths must be integral")


def sample_inputs_margin_ranking(op, device, dtype):
    for reduction in _loss_reductions():
        for shape in ((5,), (3, 4), (0,)):
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (make(shape, device, dtype), _sign_target(shape, device, dtype)),
                                  {"reduction": reduction, "margin": 0.3}, name=f"{name} {shape} {reduction}")


def error_inputs_margin_ranking(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (make((3,), device, torch.float32),
                                                                     make((1, 3), device, torch.float32))),
                     RuntimeError, "All input tensors should have same dimension")


def sample_inputs_cosine_embedding(op, device, dtype):
    for reduction in _loss_reductions():
        for shape in ((5, 3), (4,), (0, 3)):
            t = _sign_target(shape[:-1], device, dtype)
            for name, x in layouts(shape, device, dtype):
                yield SampleInput(x, (make(shape, device, dtype), t), {"reduction": reduction, "margin": 0.2},
                                  name=f"{name} {shape} {reduction}")


def error_inputs_cosine_embedding(op, device):
    yield ErrorInput(SampleInput(make((4, 3), device, torch.float32), (make((4, 3), device, torch.float32),
                                                                       make((4, 1), device, torch.float32))),
                     RuntimeError, "target tensor expect")


def sample_inputs_triplet(op, device, dtype):
    for reduction in _loss_reductions():
        for swap in (False, True):
            for p in (2.0, 1.0):
                a, b, c = (make((5, 4), device, dtype) for _ in range(3))
                yield SampleInput(a, (b, c), {"reduction": reduction, "swap": swap, "p": p, "margin": 0.5},
                                  name=f"{reduction} swap={swap} p={p}")
    yield SampleInput(make((4,), device, dtype), (make((4,), device, dtype), make((4,), device, dtype)), name="1-d")


def error_inputs_triplet(op, device):
    yield ErrorInput(SampleInput(make((4, 3), device, torch.float32), (make((4, 3), device, torch.float32),
                                                                       make((3,), device, torch.float32))),
                     RuntimeError, "same number of dimensions")


def sample_inputs_nll_loss2d(op, device, dtype):
    logp = make((2, 3, 4, 5), device, dtype).log_softmax(1)
    target = make((2, 4, 5), device, torch.int64, low=0, high=3)
    for reduction in (0, 1, 2):
        yield SampleInput(logp, (target, None, reduction, -100), name=f"reduction={reduction}")
        yield SampleInput(logp, (target, make((3,), device, dtype, low=0.5, high=2), reduction, 1),
                          name=f"weight ignore_index=1 reduction={reduction}")


def error_inputs_nll_loss2d(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32),
                                 (torch.zeros(2, 4, dtype=torch.int64, device=device), None, 1, -100)),
                     RuntimeError, "only batches of spatial targets supported")


def sample_inputs_pairwise_distance(op, device, dtype):
    for p in (2.0, 1.0, 3.0, 0.0, float("inf")):
        for name, t in layouts((4, 5), device, dtype):
            yield SampleInput(t, (make((4, 5), device, dtype),), {"p": p}, name=f"{name} p={p}")
    yield SampleInput(make((3, 4), device, dtype), (make((4,), device, dtype),), {"keepdim": True},
                      name="broadcast keepdim")
    yield SampleInput(make((5,), device, dtype), (make((5,), device, dtype),), name="1-d")


def sample_inputs_cosine_similarity(op, device, dtype):
    for dim in (1, 0, -1):
        for name, t in layouts((4, 5), device, dtype):
            yield SampleInput(t, (make((4, 5), device, dtype),), {"dim": dim}, name=f"{name} dim={dim}")
    yield SampleInput(make((2, 3, 4), device, dtype), (make((1, 3, 4), device, dtype),), name="broadcast")
    yield SampleInput(torch.zeros(2, 3, device=device, dtype=dtype), (make((2, 3), device, dtype),),
                      name="zero vector (eps)")


def error_inputs_cosine_similarity(op, device):
    yield ErrorInput(SampleInput(torch.ones(2, 3, dtype=torch.int64, device=device),
                                 (torch.ones(2, 3, dtype=torch.int64, device=device),)),
                     RuntimeError, "expected common dtype to be floating point")


def sample_inputs_cdist(op, device, dtype):
    for p in (2.0, 1.0, 0.0, 3.0, float("inf")):
        for shape1, shape2 in (((5, 3), (4, 3)), ((2, 5, 3), (2, 4, 3)), ((0, 3), (4, 3))):
            yield SampleInput(make(shape1, device, dtype), (make(shape2, device, dtype),), {"p": p},
                              name=f"{shape1} {shape2} p={p}")
    yield SampleInput(make((3, 5), device, dtype).t(), (make((4, 3), device, dtype),), name="transposed")


def error_inputs_cdist(op, device):
    yield ErrorInput(SampleInput(make((5,), device, torch.float32), (make((4, 3), device, torch.float32),)),
                     RuntimeError, "cdist only supports at least 2D tensors")
    yield ErrorInput(SampleInput(make((5, 2), device, torch.float32), (make((4, 3), device, torch.float32),)),
                     RuntimeError, "X1 and X2 must have the same number of columns")


def sample_inputs_cdist_forward(op, device, dtype):
    for p in (2.0, 1.0, 0.0, float("inf")):
        yield SampleInput(make((2, 5, 3), device, dtype), (make((2, 4, 3), device, dtype), p, None), name=f"p={p}")


def sample_inputs_dist(op, device, dtype):
    for p in (2, 1, 0, 3.5, float("inf")):
        for name, t in layouts((4, 5), device, dtype):
            yield SampleInput(t, (make((4, 5), device, dtype), p), name=f"{name} p={p}")
    yield SampleInput(make((3, 4), device, dtype), (make((4,), device, dtype),), name="broadcast")
    yield SampleInput(make((), device, dtype), (make((), device, dtype),), name="0-d")


def sample_inputs_pdist(op, device, dtype):
    for p in (2.0, 1.0, 0.0, float("inf"), 1.5):
        for name, t in layouts((5, 3), device, dtype):
            if name == "expanded":   # equal rows: distance 0, where the p-norm's derivative is undefined
                continue
            yield SampleInput(t, (p,), name=f"{name} p={p}")
    yield SampleInput(make((2, 4), device, dtype), name="two rows")
    yield SampleInput(make((6, 1), device, dtype), name="one column")
    yield SampleInput(make((1, 3), device, dtype), name="one row (no pairs)")


def error_inputs_pdist(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32)), RuntimeError,
                     "pdist only supports 2D tensors")
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (-1.0,)), RuntimeError,
                     "pdist only supports non-negative p values")


def sample_inputs_multi_margin_loss(op, device, dtype):
    """aten's (input, target, p, margin, weight, reduction). Eager leaves a reduced loss of an empty
    batch unwritten, so the empty batch comes with reduction='none' only."""
    target = torch.tensor([0, 3, 1, 1, 2], device=device)
    for reduction in (0, 1, 2):
        r = {"reduction": reduction}
        for name, x in layouts((5, 4), device, dtype):
            yield SampleInput(x, (target,), r, name=f"{name} reduction={reduction}")
        x = make((5, 4), device, dtype)
        yield SampleInput(x, (target,), {**r, "p": 2, "margin": 0.5, "weight": make((4,), device, dtype, low=0.1,
                                                                                        high=2)},
                          name=f"p=2 margin weight reduction={reduction}")
        yield SampleInput(x, (target,), {**r, "margin": 3.0}, name=f"wide margin reduction={reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor([2], device=device),), r,
                          name=f"1-d, target (1,) reduction={reduction}")
        yield SampleInput(make((4,), device, dtype), (torch.tensor(1, device=device),), r,
                          name=f"1-d, 0-d target reduction={reduction}")
    yield SampleInput(make((0, 4), device, dtype), (torch.zeros(0, dtype=torch.int64, device=device),),
                      {"reduction": 0}, name="empty batch")


def error_inputs_multi_margin_loss(op, device):
    x = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(x, (torch.tensor([0, 1], device=device),)), RuntimeError,
                     "target tensor should be 1-D with size equal to the number of input samples")
    yield ErrorInput(SampleInput(x, (torch.tensor([0, 1, 2], device=device),), {"p": 3}), RuntimeError,
                     "only p == 1 and p == 2 supported")
    yield ErrorInput(SampleInput(x, (torch.tensor([0, 1, 2], device=device),),
                                 {"weight": torch.ones(3, device=device)}), RuntimeError, "inconsistent weight size")


# Each row of a multilabel target lists classes up to its first -1 (a repeated class counts twice).
MULTILABEL_TARGETS = ([[3, 0, -1, 1, 2], [0, 1, 2, 3, 4], [-1, 1, 2, 3, 4], [4, 4, 1, -1, -1]], [2, 0, -1, 4, 1])


def sample_inputs_multilabel_margin_loss(op, device, dtype):
    """aten's (input, target, reduction)."""
    rows, row = (torch.tensor(t, device=device) for t in MULTILABEL_TARGETS)
    for reduction in (0, 1, 2):
        for name, x in layouts((4, 5), device, dtype):
            yield SampleInput(x, (rows, reduction), name=f"{name} reduction={reduction}")
        yield SampleInput(make((5,), device, dtype), (row, reduction), name=f"1-d reduction={reduction}")
        yield SampleInput(make((4, 5), device, dtype), (rows.t().contiguous().t(), reduction),
                          name=f"transposed target reduction={reduction}")


def error_inputs_multilabel_margin_loss(op, device):
    x = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(x, (torch.zeros(3, 5, dtype=torch.int64, device=device), 1)), RuntimeError,
                     "inconsistent target size")
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32),
                                 (torch.zeros(2, 3, 4, dtype=torch.int64, device=device), 1)), RuntimeError,
                     "Expected non-empty vector or matrix")


def sample_inputs_grid_sampler_2d(op, device, dtype):
    """aten's (input, grid, interpolation_mode, padding_mode, align_corners): every mode with a grid
    reaching past the input's edges (|g| up to 1.3)."""
    x = make((2, 3, 4, 5), device, dtype)
    grid = make((2, 3, 6, 2), device, dtype, low=-1.3, high=1.3)
    for mode in (0, 1, 2):
        for padding in (0, 1, 2):
            for align in (False, True):
                yield SampleInput(x, (grid, mode, padding, align),
                                  name=f"interpolation={mode} padding={padding} align_corners={align}")
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(t, (grid, 0, 0, False), name=f"{name} input")
    yield SampleInput(x, (make((2, 6, 3, 2), device, dtype, low=-1, high=1).transpose(1, 2), 0, 1, True),
                      name="transposed grid")
    yield SampleInput(make((1, 2, 1, 1), device, dtype), (make((1, 2, 2, 2), device, dtype, low=-1, high=1), 2, 2,
                                                          True), name="1x1 input, reflection")


def error_inputs_grid_sampler_2d(op, device):
    f32 = torch.float32
    yield ErrorInput(SampleInput(make((2, 3, 4, 5), device, f32), (make((1, 3, 6, 2), device, f32), 0, 0, False)),
                     RuntimeError, "expected grid and input to have same batch size")
    yield ErrorInput(SampleInput(make((2, 3, 4, 5), device, f32), (make((2, 3, 6, 1), device, f32), 0, 0, False)),
                     RuntimeError, "expected grid to have size 2 in last dimension")


def sample_inputs_grid_sampler_3d(op, device, dtype):
    """aten's (input, grid, interpolation_mode, padding_mode, align_corners) on 5-d inputs: trilinear
    and nearest (3-d has no bicubic) with every padding mode, a grid reaching past the input's edges
    (|g| up to 1.3), and one folding several times under reflection (|g| up to 4)."""
    x = make((2, 3, 3, 4, 5), device, dtype)
    grid = make((2, 2, 3, 4, 3), device, dtype, low=-1.3, high=1.3)
    for mode in (0, 1):
        for padding in (0, 1, 2):
            for align in (False, True):
                yield SampleInput(x, (grid, mode, padding, align),
                                  name=f"interpolation={mode} padding={padding} align_corners={align}")
    far = make((2, 2, 3, 4, 3), device, dtype, low=-4, high=4)
    for mode in (0, 1):
        for align in (False, True):
            yield SampleInput(x, (far, mode, 2, align), name=f"far grid interpolation={mode} reflection "
                                                              f"align_corners={align}")
    for name, t in layouts((2, 3, 3, 4, 5), device, dtype):
        yield SampleInput(t, (grid, 0, 0, False), name=f"{name} input")
    yield SampleInput(x.contiguous(memory_format=torch.channels_last_3d), (grid, 0, 1, True),
                      name="channels_last_3d input")
    yield SampleInput(x, (make((2, 4, 3, 2, 3), device, dtype, low=-1, high=1).transpose(1, 3), 0, 1, True),
                      name="transposed grid")
    yield SampleInput(make((1, 2, 1, 1, 1), device, dtype),
                      (make((1, 2, 2, 2, 3), device, dtype, low=-2, high=2), 0, 2, True),
                      name="1x1x1 input, reflection")


def error_inputs_grid_sampler_3d(op, device):
    f32 = torch.float32
    x = make((2, 3, 3, 4, 5), device, f32)
    yield ErrorInput(SampleInput(x, (make((2, 2, 3, 4, 2), device, f32), 0, 0, False)), RuntimeError,
                     "expected grid to have size 3 in last dimension")
    yield ErrorInput(SampleInput(x, (make((2, 2, 3, 4, 3), device, f32), 2, 0, False)), RuntimeError,
                     "bicubic interpolation only supports 4D input")


def sample_inputs_grid_sample(op, device, dtype):
    """torch.nn.functional.grid_sample's samples (its modes by name), 4-d and 5-d."""
    for s in itertools.chain(sample_inputs_grid_sampler_2d(op, device, dtype),
                             sample_inputs_grid_sampler_3d(op, device, dtype)):
        grid, mode, padding, align = s.args
        yield SampleInput(s.input, (grid,), {"mode": ("bilinear", "nearest", "bicubic")[mode],
                                             "padding_mode": ("zeros", "border", "reflection")[padding],
                                             "align_corners": align}, s.name)


def sample_inputs_affine_grid_generator(op, device, dtype):
    """aten's (theta, size, align_corners)."""
    for align in (False, True):
        for name, theta in layouts((2, 2, 3), device, dtype):
            yield SampleInput(theta, ([2, 3, 4, 5], align), name=f"{name} 2-d align_corners={align}")
        yield SampleInput(make((1, 3, 4), device, dtype), ([1, 2, 3, 4, 5], align), name=f"3-d align_corners={align}")
        if dtype in FLOAT32_64:   # eager makes a size-1 dim's coordinate with at::tensor, which has no float16 kernel
            yield SampleInput(make((2, 2, 3), device, dtype), ([2, 1, 1, 5], align),
                              name=f"height 1 align_corners={align}")


def error_inputs_affine_grid_generator(op, device):
    yield ErrorInput(SampleInput(make((2, 2, 3), device, torch.float32), ([2, 3, 4], False)), RuntimeError,
                     "AffineGridGenerator needs 4d \\(spatial\\) or 5d \\(volumetric\\) inputs")


UNFOLD_GEOMETRIES = (   # (image size, kwargs of F.unfold / F.fold)
    ((6, 6), {"kernel_size": 2, "stride": 2}),
    ((7, 6), {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
    ((5, 5), {"kernel_size": 3, "padding": 1}),             # overlapping blocks: fold sums them
    ((4, 5), {"kernel_size": (1, 5)}),
)


def sample_inputs_unfold(op, device, dtype):
    for size, kwargs in UNFOLD_GEOMETRIES:
        for name, t in layouts((2, 3) + size, device, dtype):
            yield SampleInput(t, kwargs=dict(kwargs), name=f"{name} {size} {kwargs}")
        yield SampleInput(make((3,) + size, device, dtype), kwargs=dict(kwargs), name=f"unbatched {size} {kwargs}")
    yield SampleInput(make((0, 3, 6, 6), device, dtype), kwargs={"kernel_size": 2}, name="empty batch")


def sample_inputs_fold(op, device, dtype):
    for size, kwargs in UNFOLD_GEOMETRIES:
        cols = F.unfold(make((2, 3) + size, device, torch.float32), **kwargs)
        for name, t in layouts(tuple(cols.shape), device, dtype):
            yield SampleInput(t, (size,), dict(kwargs), name=f"{name} {size} {kwargs}")
        yield SampleInput(make(tuple(cols.shape[1:]), device, dtype), (size,), dict(kwargs),
                          name=f"unbatched {size} {kwargs}")
    yield SampleInput(make((0, 12, 9), device, dtype), ((6, 6),), {"kernel_size": 2, "stride": 2}, name="empty batch")


def sample_inputs_im2col(op, device, dtype):
    """aten.im2col(self, kernel_size, dilation, padding, stride), every argument a list."""
    for name, t in layouts((2, 3, 7, 6), device, dtype):
        for k, d, p, s in (((2, 3), (1, 2), (1, 1), (2, 1)), ((2, 2), (1, 1), (0, 0), (2, 2))):
            yield SampleInput(t, ([*k], [*d], [*p], [*s]), name=f"{name} kernel {k}")


def sample_inputs_col2im(op, device, dtype):
    """aten.col2im(self, output_size, kernel_size, dilation, padding, stride): overlapping 3x3 blocks."""
    for name, t in layouts((2, 27, 25), device, dtype):
        yield SampleInput(t, ([5, 5], [3, 3], [1, 1], [1, 1], [1, 1]), name=name)


def error_inputs_unfold(op, device):
    x = make((2, 3, 6, 6), device, torch.float32)
    yield ErrorInput(SampleInput(x, kwargs={"kernel_size": (0, 2)}), RuntimeError, "kernel size should be greater than zero")
    yield ErrorInput(SampleInput(x, kwargs={"kernel_size": 2, "stride": 0}), RuntimeError, "stride should be greater")
    yield ErrorInput(SampleInput(x, kwargs={"kernel_size": 7}), RuntimeError, "must be at least one")
    yield ErrorInput(SampleInput(make((2, 0, 6, 6), device, torch.float32), kwargs={"kernel_size": 2}), RuntimeError,
                     "Expected 3D or 4D")
    yield ErrorInput(SampleInput(torch.ones(1, 2, 4, 4, dtype=torch.int64, device=device), kwargs={"kernel_size": 2}),
                     RuntimeError, "not implemented for 'Long'")


def error_inputs_fold(op, device):
    y = make((2, 12, 9), device, torch.float32)
    yield ErrorInput(SampleInput(y, ((6, 6),), {"kernel_size": 3, "stride": 2}), RuntimeError, "divisible by the product")
    yield ErrorInput(SampleInput(y, ((8, 8),), {"kernel_size": 2, "stride": 2}), RuntimeError,
                     "calculated number of sliding blocks")
    yield ErrorInput(SampleInput(y, ((6, 6),), {"kernel_size": 2, "padding": -1}), RuntimeError,
                     "padding should be non-negative")


def sample_inputs_one_hot(op, device, dtype):
    for shape in ((), (0,), (5,), (3, 4)):
        yield SampleInput(make(shape, device, torch.int64, low=0, high=4), (4,), name=f"{shape}")
    yield SampleInput(make((3, 4), device, torch.int64, low=0, high=4).t(), (6,), name="transposed")


def error_inputs_one_hot(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (4,)), RuntimeError,
                     "one_hot is only applicable to index tensor")


def sample_inputs_bilinear(op, device, dtype):
    yield SampleInput(make((5, 3), device, dtype), (make((5, 4), device, dtype), make((6, 3, 4), device, dtype),
                                                    make((6,), device, dtype)), name="bias")
    yield SampleInput(make((2, 5, 3), device, dtype), (make((2, 5, 4), device, dtype),
                                                       make((6, 3, 4), device, dtype)), name="batch no bias")
    yield SampleInput(make((3, 5), device, dtype).t(), (make((5, 4), device, dtype), make((2, 3, 4), device, dtype)),
                      name="transposed")


def sample_inputs_trilinear(op, device, dtype):
    # bilinear's call: x1 (B, I), W (O, I, J), x2 (B, J)
    yield SampleInput(make((5, 3), device, dtype), (make((6, 3, 4), device, dtype), make((5, 4), device, dtype),
                                                    [1, 3], [0], [1, 2], [2, 3], 1), name="bilinear form")
    yield SampleInput(make((2, 3), device, dtype), (make((2, 3), device, dtype), make((2, 3), device, dtype),
                                                    [], [], [], [1], 1), name="triple product")
    # An empty input: eager returns zeros, each kept dim the largest size there among the inputs not expanded
    # there (sizes 0 and 1 give 1, unlike broadcasting)
    yield SampleInput(make((0, 3), device, dtype), (make((6, 3, 4), device, dtype), make((0, 4), device, dtype),
                                                    [1, 3], [0], [1, 2], [2, 3], 1), name="bilinear form, empty batch")
    yield SampleInput(make((0, 2, 6), device, dtype), (make((1, 2, 6), device, dtype), make((1, 2, 6), device, dtype),
                                                       [], [], [], [], 1), name="empty against size 1")
    yield SampleInput(make((2, 6), device, dtype), (make((0, 2, 6), device, dtype), make((1, 2, 6), device, dtype),
                                                    [0], [], [], [2], 1), name="empty, one input expanded")


# Bicubic interpolation: eager rounds the 16 weights and each product and partial sum to
# float16/bfloat16; primkit computes in float32 and rounds once. Measured on values in [-9, 9]
# (the result overshoots them by up to a quarter): 0.0078 (float16), 0.0625 (bfloat16), 1.6e-5
# (float32, the weights' rounding).
BICUBIC_TOLERANCES = {
    torch.float32: (2e-5, 1e-5),
    torch.float64: (1e-12, 1e-12),
    torch.float16: (1e-2, 2e-3),
    torch.bfloat16: (8e-2, 1.6e-2),
}


# eager's CPU im2col / col2im take floating, complex and bool tensors. Fold sums up to 9 overlapping
# blocks in float16/bfloat16 one by one, rounding each partial sum; the decomposition sums in float32
# and rounds once: a few ulps of the sum apart (float16 ulp ~1e-3 relative, bfloat16 ~8e-3).
FOLD_TOLERANCES = {torch.float16: (1e-2, 5e-3), torch.bfloat16: (1e-1, 2e-2)}


BCE_CLAMPED_GRADIENT = XFail("gradients", "at x = 0 or 1 (a log clamped at -100) eager's backward is its own formula "
                             "w (x - t) / max(x (1 - x), 1e-12), -1e12 at x = 0, t = 1; primkit's is the derivative of "
                             "the clamped loss it computes: the clamped log contributes 0", frozenset({torch.float64}),
                             raises=AssertionError)


ENTRIES += [
    entry("nn.functional.unfold", F.unfold, ("aten::im2col",), sample_inputs_unfold, errors=error_inputs_unfold,
          dtypes=FLOATING | {torch.complex64, torch.bool}),
    entry("nn.functional.fold", F.fold, ("aten::col2im",), sample_inputs_fold, errors=error_inputs_fold,
          dtypes=FLOATING | {torch.complex64, torch.bool},
          tolerances=FOLD_TOLERANCES),
    entry("aten.im2col", aten.im2col, ("aten::im2col", "aten::im2col.out"), sample_inputs_im2col, out=True),
    entry("aten.col2im", aten.col2im, ("aten::col2im", "aten::col2im.out"), sample_inputs_col2im,
          tolerances=FOLD_TOLERANCES, out=True),
    entry("nn.functional.celu", aten.celu, ("aten::celu", "aten::celu.out"), _activation_kwargs_samples({}, {"alpha": 0.5}),
                 errors=_errors_long, inplace=aten.celu_, out=True),
    entry("nn.functional.selu", F.selu, ("aten::selu", "aten::selu_"), _activation_kwargs_samples({}),
                 errors=_errors_long, inplace=_inplace_true(F.selu)),
    entry("nn.functional.relu6", F.relu6, ("aten::relu6",), _activation_kwargs_samples({}), dtypes=FLOATING | INTEGRAL),
    entry("nn.functional.hardshrink", aten.hardshrink, ("aten::hardshrink", "aten::hardshrink.out"),
          _activation_kwargs_samples({}, {"lambd": 1.5}), errors=_errors_long, out=True),
    entry("nn.functional.softshrink", aten.softshrink, ("aten::softshrink", "aten::softshrink.out"),
          _activation_kwargs_samples({}, {"lambd": 1.5}), errors=_errors_softshrink, out=True),
    entry("nn.functional.prelu", F.prelu, ("aten::prelu", "aten::_prelu_kernel"), sample_inputs_prelu,
          errors=error_inputs_prelu),
    entry("nn.functional.rrelu", lambda t, **kw: F.rrelu(t, 0.1, 0.3, training=False, **kw),
          ("aten::rrelu", "aten::rrelu_", "aten::rrelu_with_noise"), _activation_kwargs_samples({}),
          inplace=lambda t: F.rrelu(t, 0.1, 0.3, training=False, inplace=True)),
    entry("nn.functional.alpha_dropout", aten.alpha_dropout, ("aten::alpha_dropout", "aten::alpha_dropout_"),
          sample_inputs_dropout_eval, errors=error_inputs_dropout_eval, inplace=aten.alpha_dropout_),
    entry("nn.functional.feature_alpha_dropout", aten.feature_alpha_dropout,
          ("aten::feature_alpha_dropout", "aten::feature_alpha_dropout_"), sample_inputs_dropout_eval,
          errors=error_inputs_dropout_eval, inplace=aten.feature_alpha_dropout_),
    entry("nn.functional.feature_dropout", aten.feature_dropout, ("aten::feature_dropout", "aten::feature_dropout_"),
          sample_inputs_dropout_eval, errors=error_inputs_dropout_eval, inplace=aten.feature_dropout_),
    *(entry(f"nn.functional.reflection_pad{n}d", getattr(aten, f"reflection_pad{n}d"),
            (f"aten::reflection_pad{n}d", f"aten::reflection_pad{n}d.out"), pad_samples(n, REFLECTION_PADS[n]),
            dtypes=FLOATING | INTEGRAL, errors=_pad_errors(n, True), out=True) for n in (1, 2, 3)),
    *(entry(f"nn.functional.replication_pad{n}d", getattr(aten, f"replication_pad{n}d"),
            (f"aten::replication_pad{n}d", f"aten::replication_pad{n}d.out"), pad_samples(n, REPLICATION_PADS[n]),
            errors=_pad_errors(n, False), out=True) for n in (1, 2, 3)),
    entry("nn.functional.pad.modes", F.pad, ("aten::pad",), sample_inputs_pad, errors=error_inputs_pad),
    entry("nn.functional.pad.circular", F.pad, ("aten::_pad_circular",), sample_inputs_pad_circular),
    entry("nn.functional.pixel_shuffle", aten.pixel_shuffle, ("aten::pixel_shuffle", "aten::pixel_shuffle.out"),
          sample_inputs_pixel_shuffle, dtypes=FLOATING | INTEGRAL, out=True),
    entry("nn.functional.pixel_unshuffle", aten.pixel_unshuffle,
          ("aten::pixel_unshuffle", "aten::pixel_unshuffle.out"), sample_inputs_pixel_unshuffle,
          dtypes=FLOATING | INTEGRAL, out=True),
    entry("nn.functional.channel_shuffle", aten.channel_shuffle,
          ("aten::channel_shuffle", "aten::channel_shuffle.out"), sample_inputs_channel_shuffle,
          dtypes=FLOATING | INTEGRAL, out=True),
    entry("native_channel_shuffle", aten.native_channel_shuffle, ("aten::native_channel_shuffle",),
          sample_inputs_channel_shuffle, dtypes=FLOATING | INTEGRAL),
    *(entry(f"nn.functional.{name}", getattr(aten, name),
            (f"aten::{name}.vec",) + ((f"aten::{name}.vec_out",) if "vec_out" in getattr(aten, name).overloads()
                                      else ()),
            _upsample_samples(n, linear), errors=_upsample_errors(n, linear),
            tolerances=INTERPOLATION_TOLERANCES if linear else None,
            out="vec_out" in getattr(aten, name).overloads())
      for name, n, linear in (("upsample_nearest1d", 1, False), ("upsample_nearest2d", 2, False),
                              ("upsample_nearest3d", 3, False), ("_upsample_nearest_exact1d", 1, False),
                              ("_upsample_nearest_exact2d", 2, False), ("_upsample_nearest_exact3d", 3, False),
                              ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
                              ("upsample_trilinear3d", 3, True))),
    *(entry(f"{name}.default", getattr(aten, name), (f"aten::{name}", f"aten::{name}.out"),
            _upsample_sized_samples(n, linear), tolerances=INTERPOLATION_TOLERANCES if linear else None, out=True)
      for name, n, linear in (("upsample_nearest1d", 1, False), ("upsample_nearest2d", 2, False),
                              ("upsample_nearest3d", 3, False), ("_upsample_nearest_exact1d", 1, False),
                              ("_upsample_nearest_exact2d", 2, False), ("_upsample_nearest_exact3d", 3, False),
                              ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
                              ("upsample_trilinear3d", 3, True))),
    entry("nn.functional.huber_loss", aten.huber_loss, ("aten::huber_loss", "aten::huber_loss.out"),
          _pointwise_loss_samples({}, {"delta": 0.5}, as_code=True), errors=error_inputs_pointwise_loss,
          tolerances=REDUCTION_TOLERANCES, out=True),
    entry("nn.functional.smooth_l1_loss", aten.smooth_l1_loss, ("aten::smooth_l1_loss", "aten::smooth_l1_loss.out"),
          _pointwise_loss_samples({}, {"beta": 0.5}, {"beta": 0.0}, as_code=True), errors=error_inputs_pointwise_loss,
          tolerances=REDUCTION_TOLERANCES, out=True),
    entry("nn.functional.soft_margin_loss", aten.soft_margin_loss,
          ("aten::soft_margin_loss", "aten::soft_margin_loss.out"),
          _pointwise_loss_samples(target=_sign_target, as_code=True), errors=error_inputs_pointwise_loss,
          tolerances=REDUCTION_TOLERANCES, out=True),
    entry("binary_cross_entropy", aten.binary_cross_entropy, ("aten::binary_cross_entropy",), sample_inputs_bce,
          tolerances=REDUCTION_TOLERANCES, xfails=[BCE_CLAMPED_GRADIENT]),
    # Eager's out= kernel resizes out to the input's shape when reducing: out= samples use reduction=none.
    entry("binary_cross_entropy.out", aten.binary_cross_entropy, ("aten::binary_cross_entropy.out",),
          lambda op, device, dtype: (s for s in sample_inputs_bce(op, device, dtype) if s.kwargs["reduction"] == 0),
          tolerances=REDUCTION_TOLERANCES, out=True, xfails=[BCE_CLAMPED_GRADIENT]),
    entry("nn.functional.binary_cross_entropy", F.binary_cross_entropy, ("aten::binary_cross_entropy",),
          lambda op, device, dtype: (SampleInput(s.input, s.args[:1], {"weight": s.args[1] if len(s.args) > 1
                                                                         else None,
                                                                         "reduction": ("none", "mean", "sum")[
                                                                             s.kwargs["reduction"]]}, s.name)
                                     for s in sample_inputs_bce(op, device, dtype)),
          errors=error_inputs_bce, tolerances=REDUCTION_TOLERANCES, xfails=[BCE_CLAMPED_GRADIENT]),
    entry("nn.functional.kl_div", F.kl_div, ("aten::kl_div",), sample_inputs_kl_div, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.poisson_nll_loss", F.poisson_nll_loss, ("aten::poisson_nll_loss",),
          sample_inputs_poisson_nll, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.ctc_loss", F.ctc_loss, ("aten::ctc_loss.Tensor", "aten::ctc_loss.IntList", "aten::_ctc_loss",
                                                 "aten::_ctc_loss.Tensor"),
          sample_inputs_ctc_loss, errors=error_inputs_ctc_loss, dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES,
          xfails=[XFail("gradients", "eager's _ctc_loss_backward is not the derivative in log_probs: it adds "
                                     "exp(log_probs) * grad (the gradient as if through the log_softmax before it; "
                                     "checked by finite differences), where the prims' derivative is exact",
                        raises=AssertionError)]),
    entry("nn.functional.hinge_embedding_loss", F.hinge_embedding_loss, ("aten::hinge_embedding_loss",),
          _pointwise_loss_samples({}, {"margin": 0.5}, target=_sign_target), tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.margin_ranking_loss", F.margin_ranking_loss, ("aten::margin_ranking_loss",),
          sample_inputs_margin_ranking, errors=error_inputs_margin_ranking, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.cosine_embedding_loss", F.cosine_embedding_loss, ("aten::cosine_embedding_loss",),
          sample_inputs_cosine_embedding, errors=error_inputs_cosine_embedding, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.triplet_margin_loss", F.triplet_margin_loss, ("aten::triplet_margin_loss",),
          sample_inputs_triplet, errors=error_inputs_triplet, tolerances=REDUCTION_TOLERANCES),
    # nll_loss2d.out (composite) passes nll_loss2d_forward.output a 0-element total_weight that eager resizes;
    # primkit does not resize out= tensors, so out= is not tested here.
    entry("nll_loss2d", aten.nll_loss2d, ("aten::nll_loss2d",), sample_inputs_nll_loss2d,
          errors=error_inputs_nll_loss2d, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.pairwise_distance", F.pairwise_distance, ("aten::pairwise_distance",),
          sample_inputs_pairwise_distance, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.cosine_similarity", F.cosine_similarity, ("aten::cosine_similarity",),
          sample_inputs_cosine_similarity, errors=error_inputs_cosine_similarity, tolerances=REDUCTION_TOLERANCES),
    entry("cdist", torch.cdist, ("aten::cdist", "aten::_cdist_forward"), sample_inputs_cdist,
          errors=error_inputs_cdist, tolerances=REDUCTION_TOLERANCES, dtypes=CDIST_DTYPES),
    entry("_cdist_forward", aten._cdist_forward, ("aten::_cdist_forward", "aten::_cdist_forward.out"),
          sample_inputs_cdist_forward, tolerances=REDUCTION_TOLERANCES, out=True, dtypes=CDIST_DTYPES),
    entry("dist", aten.dist, ("aten::dist", "aten::dist.out"), sample_inputs_dist, tolerances=REDUCTION_TOLERANCES,
          out=True),
    entry("nn.functional.one_hot", F.one_hot, ("aten::one_hot",), sample_inputs_one_hot,
          dtypes=INTEGRAL, errors=error_inputs_one_hot),
    entry("nn.functional.bilinear", F.bilinear, ("aten::bilinear", "aten::_trilinear"), sample_inputs_bilinear,
          tolerances=BILINEAR_TOLERANCES),
    entry("_trilinear", aten._trilinear, ("aten::_trilinear", "aten::_trilinear.out"), sample_inputs_trilinear,
          tolerances=BILINEAR_TOLERANCES, out=True),
    entry("nn.functional.relu6_", lambda t: F.relu6(t, inplace=True), ("aten::relu6_",),
          _writable(_activation_kwargs_samples({})), dtypes=FLOATING | INTEGRAL),
    # Eager's CPU pdist and margin losses have no float16/bfloat16 kernels.
    entry("pdist", torch.pdist, ("aten::pdist",), sample_inputs_pdist, errors=error_inputs_pdist,
          dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES),
    # _pdist_forward takes contiguous inputs only (pdist makes its input contiguous).
    entry("_pdist_forward", aten._pdist_forward, ("aten::_pdist_forward", "aten::_pdist_forward.out"),
          lambda op, device, dtype: (s for s in sample_inputs_pdist(op, device, dtype) if s.input.is_contiguous()),
          dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES, out=True),
    entry("multi_margin_loss", aten.multi_margin_loss, ("aten::multi_margin_loss", "aten::multi_margin_loss.out"),
          sample_inputs_multi_margin_loss, errors=error_inputs_multi_margin_loss, dtypes=FLOAT32_64,
          tolerances=REDUCTION_TOLERANCES, out=True),
    entry("multilabel_margin_loss", aten.multilabel_margin_loss,
          ("aten::multilabel_margin_loss", "aten::multilabel_margin_loss.out"), sample_inputs_multilabel_margin_loss,
          errors=error_inputs_multilabel_margin_loss, dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES, out=True),
    entry("multilabel_margin_loss_forward", aten.multilabel_margin_loss_forward,
          ("aten::multilabel_margin_loss_forward",), sample_inputs_multilabel_margin_loss, dtypes=FLOAT32_64,
          tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.multilabel_margin_loss_forward.output, aten.multilabel_margin_loss_forward.default,
              sample_inputs_multilabel_margin_loss, dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.upsample_bicubic2d", aten.upsample_bicubic2d, ("aten::upsample_bicubic2d.vec",),
          _upsample_samples(2, True), errors=_upsample_errors(2, True), tolerances=BICUBIC_TOLERANCES),
    entry("upsample_bicubic2d.default", aten.upsample_bicubic2d,
          ("aten::upsample_bicubic2d", "aten::upsample_bicubic2d.out"), _upsample_sized_samples(2, True),
          tolerances=BICUBIC_TOLERANCES, out=True),
    # the .vec overload itself: through the packet, (size, align_corners, None) would call the default one
    *(entry(f"nn.functional.{name}", getattr(aten, name).vec, (f"aten::{name}.vec",), _upsample_aa_samples,
            errors=_upsample_aa_errors, dtypes=FLOAT32_64) for name in AA_OPS),
    *(entry(f"{name}.default", getattr(aten, name), (f"aten::{name}", f"aten::{name}.out"),
            _upsample_aa_sized_samples, errors=_upsample_aa_sized_errors, dtypes=FLOAT32_64, out=True)
      for name in AA_OPS),
    # Eager's forward leaves a dim of unchanged size as it is, whatever its scale, but its backward
    # weights it with that scale, so eager's gradient is not its forward's: primkit's is the forward's.
    *(entry(f"{name}.unchanged_dim_with_scale", getattr(aten, name), (f"aten::{name}",),
            _upsample_aa_unchanged_dim_samples, dtypes=FLOAT32_64,
            xfails=(XFail("gradients", "eager's backward blurs the unchanged dim with its scale, which its "
                          "forward does not (AssertionError: gradients differ); the traced gradient is the "
                          "forward's own", raises=AssertionError),))
      for name in AA_OPS),
    *(entry(f"nn.functional.interpolate.{mode}_aa", _interpolate_aa(mode), (f"aten::_upsample_{mode}2d_aa.vec",),
            _interpolate_aa_samples, dtypes=FLOAT32_64) for mode in ("bilinear", "bicubic")),
    entry("grid_sampler_2d", aten.grid_sampler_2d, ("aten::grid_sampler_2d", "aten::grid_sampler_2d.out"),
          sample_inputs_grid_sampler_2d, errors=error_inputs_grid_sampler_2d, out=True),
    entry("grid_sampler_3d", aten.grid_sampler_3d, ("aten::grid_sampler_3d", "aten::grid_sampler_3d.out"),
          sample_inputs_grid_sampler_3d, errors=error_inputs_grid_sampler_3d, out=True),
    entry("nn.functional.grid_sample", F.grid_sample, ("aten::grid_sampler",), sample_inputs_grid_sample),
    entry("affine_grid_generator", aten.affine_grid_generator,
          ("aten::affine_grid_generator", "aten::affine_grid_generator.out"), sample_inputs_affine_grid_generator,
          errors=error_inputs_affine_grid_generator, out=True),
]
