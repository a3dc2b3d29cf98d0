"""OpInfo entries: convolution (conv1d..3d, transposed, aten.convolution and its variants) and fold / unfold (im2col / col2im)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, _entry, aten, entry
from primkit.opinfo.dtypes import FLOATING
from primkit.opinfo.samples import layouts, make


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


def sample_inputs_convolution(op, device, dtype):
    """(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)."""
    cases = (  # input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups
        ((2, 4, 9), (6, 2, 3), True, [1], [1], [1], False, [0], 2),
        ((2, 3, 7, 6), (4, 3, 3, 2), True, [2, 2], [1, 1], [1, 1], False, [0, 0], 1),
        ((1, 4, 8, 8), (4, 1, 3, 3), False, [1, 1], [2, 2], [2, 2], False, [0, 0], 4),
        ((2, 3, 4, 4), (3, 2, 3, 3), True, [2, 2], [1, 1], [1, 1], True, [1, 0], 1),
        ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), True, [1, 1, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1),
        ((0, 4, 9), (4, 3, 3), True, [2], [1], [1], True, [1], 2),      # an empty batch
        ((2, 0, 9), (6, 0, 3), True, [1], [0], [1], False, [0], 2),     # no input channels: eager gives no output
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


# eager's CPU im2col / col2im take floating, complex and bool tensors. Fold sums up to 9 overlapping
# blocks in float16/bfloat16 one by one, rounding each partial sum; the decomposition sums in float32
# and rounds once: a few ulps of the sum apart (float16 ulp ~1e-3 relative, bfloat16 ~8e-3).
FOLD_TOLERANCES = {torch.float16: (1e-2, 5e-3), torch.bfloat16: (1e-1, 2e-2)}


ENTRIES = [
    _entry("nn.functional.conv1d", F.conv1d, ("aten::convolution",), _conv_samples(1, False)),
    _entry("nn.functional.conv2d", F.conv2d, ("aten::convolution",), _conv_samples(2, False),
           errors=error_inputs_conv2d),
    _entry("nn.functional.conv3d", F.conv3d, ("aten::convolution",), _conv_samples(3, False)),
    _entry("nn.functional.conv_transpose1d", F.conv_transpose1d, ("aten::convolution",), _conv_samples(1, True)),
    _entry("nn.functional.conv_transpose2d", F.conv_transpose2d, ("aten::convolution",), _conv_samples(2, True)),
    _entry("aten.convolution", aten.convolution, ("aten::convolution", "aten::convolution.out"),
           sample_inputs_convolution, out=True),
    _entry("aten._convolution", aten._convolution, ("aten::_convolution", "aten::_convolution.out"),
           sample_inputs_underscore_convolution, out=True),
    _entry("aten._convolution.deprecated", aten._convolution.deprecated, ("aten::_convolution.deprecated",),
           sample_inputs_convolution_deprecated),
    # float32 and float64: the products summed in another order than eager's BLAS
    _entry("aten.conv_tbc", aten.conv_tbc, ("aten::conv_tbc", "aten::conv_tbc.out"), sample_inputs_conv_tbc,
           errors=error_inputs_conv_tbc, tolerances=REDUCTION_TOLERANCES, out=True),
    _entry("nn.functional.conv_transpose3d", F.conv_transpose3d, ("aten::conv_transpose3d.input",),
           _conv_samples(3, True)),
    entry("nn.functional.unfold", F.unfold, ("aten::im2col",), sample_inputs_unfold, errors=error_inputs_unfold,
          dtypes=FLOATING | {torch.complex64, torch.bool}),
    entry("nn.functional.fold", F.fold, ("aten::col2im",), sample_inputs_fold, errors=error_inputs_fold,
          dtypes=FLOATING | {torch.complex64, torch.bool},
          tolerances=FOLD_TOLERANCES),
    entry("aten.im2col", aten.im2col, ("aten::im2col", "aten::im2col.out"), sample_inputs_im2col, out=True),
    entry("aten.col2im", aten.col2im, ("aten::col2im", "aten::col2im.out"), sample_inputs_col2im,
          tolerances=FOLD_TOLERANCES, out=True),
]
