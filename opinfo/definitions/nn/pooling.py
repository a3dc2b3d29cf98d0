"""OpInfo entries: max, average, adaptive and fractional pooling (1-d to 3-d) and max_unpool."""
from __future__ import annotations

import math
import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, _entry, aten, out_entry
from primkit.opinfo.dtypes import FLOAT32_64, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.samples import layouts, make


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


def sample_inputs_max_pool2d_with_indices(op, device, dtype):
    for shape, args in (((2, 3, 6, 6), ([2, 2],)), ((2, 3, 7, 5), ([3, 3], [2, 2], [1, 1])),
                        ((1, 2, 7, 7), ([3, 2], [2, 1], [0, 0], [2, 1])), ((2, 3, 7, 6), ([3, 3], [2, 2], 0, 1, True)),
                        ((3, 5, 5), ([2, 2],))):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, args, name=f"{name} {shape} {args}")


# Single-result out= overloads: their entries call the aten packet, so test_out runs the .out overload.


def sample_inputs_adaptive_avg_pool1d(op, device, dtype):
    for shape, out in (((2, 3, 8), 4), ((2, 3, 7), 3), ((3, 5), 7), ((1, 2, 6), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, ([out],), name=f"{name} {shape} -> {out}")


def sample_inputs_max_pool1d_indices(op, device, dtype):
    for s in sample_inputs_pool1d(op, device, dtype):
        yield SampleInput(s.input, s.args, {**s.kwargs, "return_indices": True}, s.name)


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


ENTRIES = [
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
    # Multi-result out= overloads (see with_outs).
    out_entry(aten.max_pool2d_with_indices.out, aten.max_pool2d_with_indices, sample_inputs_max_pool2d_with_indices),
    _entry("nn.functional.max_pool1d.return_indices", F.max_pool1d, ("aten::max_pool1d_with_indices",),
           sample_inputs_max_pool1d_indices),
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
]
