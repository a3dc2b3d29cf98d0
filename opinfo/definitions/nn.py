"""OpInfo entries: torch.nn.functional (activations, softmax, norms, convolution, pooling,
embedding, dropout, attention, losses)."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from opinfo.dtypes import FLOATING, INTEGRAL
from opinfo.samples import extremal_unary, layouts, make

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


# ----------------------------------------------------------------------------- entries


def _entry(name, op, aten, samples, *, dtypes=FLOATING, errors=None, tolerances=None, xfails=(), inplace=None):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, dtypes=frozenset(dtypes), error_inputs=errors,
                  tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace, family="nn")


# Reductions (mean/var/sum) in another order than eager's kernels: a few ulps in float32 and a
# rounding step more or less in float16/bfloat16.
REDUCTION_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (2e-2, 2e-2),
}

ENTRIES = [
    _activation("relu", dtypes=FLOATING | INTEGRAL, inplace=torch.relu_),
    # Eager's vectorized erf gives gelu(+inf) = nan; the decomposition gives +inf (the limit): no +inf sample.
    _activation("gelu", {}, {"approximate": "tanh"}, error_inputs=_errors_gelu,
                domain=(None, torch.finfo(torch.float64).max)),
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
    _entry("nn.functional.avg_pool2d", F.avg_pool2d, ("aten::avg_pool2d",), sample_inputs_avg_pool2d,
           errors=error_inputs_avg_pool2d, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.adaptive_avg_pool2d", F.adaptive_avg_pool2d, ("aten::_adaptive_avg_pool2d",),
           sample_inputs_adaptive_avg_pool2d, errors=error_inputs_adaptive_avg_pool2d,
           tolerances=REDUCTION_TOLERANCES),
    # Eager's CompositeImplicit adaptive_avg_pool2d turns a 1x1 output into mean + as_strided_ (restriding
    # a channels-last result); aten.as_strided_ has no decomposition yet.
    _entry("nn.functional.adaptive_avg_pool2d.global_channels_last", F.adaptive_avg_pool2d,
           ("aten::mean.dim", "aten::as_strided_"), sample_inputs_global_avg_pool_channels_last,
           xfails=[XFail("values", "aten.as_strided_ (from eager's 1x1 adaptive_avg_pool2d) has no decomposition"),
                   XFail("strides", "aten.as_strided_ (from eager's 1x1 adaptive_avg_pool2d) has no decomposition")]),
    _entry("nn.functional.max_pool1d", F.max_pool1d, ("aten::max_pool2d_with_indices",), sample_inputs_pool1d,
           xfails=[XFail("strides", "eager's max_pool1d without autograd runs its own kernel (contiguous output); "
                         "traced, it is max_pool2d_with_indices on the unsqueezed input, which eager keeps "
                         "channels-last for a transposed input, as the decomposition does")]),
    _entry("nn.functional.avg_pool1d", F.avg_pool1d, ("aten::avg_pool2d",), sample_inputs_pool1d,
           tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.embedding", F.embedding, ("aten::embedding",), sample_inputs_embedding,
           errors=error_inputs_embedding),
    _entry("nn.functional.dropout", F.dropout, ("aten::dropout", "aten::native_dropout"), sample_inputs_dropout,
           errors=error_inputs_dropout),
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
]
