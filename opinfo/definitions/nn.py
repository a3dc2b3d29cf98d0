"""OpInfo entries: torch.nn.functional (activations, softmax, norms, convolution, pooling,
embedding, dropout, attention, losses)."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import FLOAT32_64, FLOATING, INTEGRAL
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
        # a fresh tensor, not a permuted view: a write into a view makes trace functionalize the program
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
    include_last_offset): every result, auxiliary ones included."""
    weight = make((10, 3), device, dtype)
    indices = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9], device=device)
    offsets = torch.tensor([0, 4, 4, 6], device=device)
    for mode in (0, 1, 2):
        yield SampleInput(weight, (indices, offsets, False, mode), name=f"mode={mode}")
        yield SampleInput(weight.t().contiguous().t(), (indices, offsets, False, mode),
                          name=f"transposed weight mode={mode}")
        yield SampleInput(weight, (indices, torch.tensor([0, 3, 3, 5, 8], device=device), False, mode, False, None,
                                   True), name=f"include_last_offset mode={mode}")
    yield SampleInput(weight, (indices, offsets, False, 0, False, make((8,), device, dtype)),
                      name="per_sample_weights")


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
           out=False, autograd=True):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, dtypes=frozenset(dtypes), error_inputs=errors,
                  tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace, supports_out=out,
                  supports_autograd=autograd, family="nn")


# Reductions (mean/var/sum) in another order than eager's kernels: a few ulps in float32 and a
# rounding step more or less in float16/bfloat16.
REDUCTION_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (2e-2, 2e-2),
}

ENTRIES = [
    _activation("relu", dtypes=FLOATING | INTEGRAL, inplace=torch.relu_),
    _activation("gelu", {}, {"approximate": "tanh"}, error_inputs=_errors_gelu,
                xfails=[XFail("values", "eager's vectorized float32 / bfloat16 CPU gelu gives gelu(+inf) = nan (its erf "
                              "path); primkit's x / 2 (1 + erf(x / sqrt 2)) gives +inf, the limit, as eager's float64 "
                              "and float16 kernels do", frozenset({torch.float32, torch.bfloat16}), "cpu",
                              raises=AssertionError)]),
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
    # Eager's composite adaptive_avg_pool2d turns a 1x1 output of a channels-last input into a mean and a
    # restride (as_strided_); traced, the table's adaptive_avg_pool2d runs instead and gives eager's result.
    _entry("nn.functional.adaptive_avg_pool2d.global_channels_last", F.adaptive_avg_pool2d,
           ("aten::adaptive_avg_pool2d",), sample_inputs_global_avg_pool_channels_last),
    _entry("nn.functional.max_pool1d", F.max_pool1d, ("aten::max_pool1d",), sample_inputs_pool1d),
    _entry("nn.functional.avg_pool1d", F.avg_pool1d, ("aten::avg_pool1d",), sample_inputs_pool1d,
           tolerances=REDUCTION_TOLERANCES),
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
           tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("aten.convolution", aten.convolution, ("aten::convolution", "aten::convolution.out"),
           sample_inputs_convolution, out=True),
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
    # Eager's CPU avg_pool3d has no float16/bfloat16 kernels.
    _entry("aten.avg_pool3d", aten.avg_pool3d, ("aten::avg_pool3d", "aten::avg_pool3d.out"), sample_inputs_avg_pool3d,
           dtypes=FLOAT32_64, tolerances=REDUCTION_TOLERANCES, out=True),
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
]
