"""Convolution (1-3 d, transposed, grouped, 'same' padding) and its patches: im2col / col2im.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, like, register_out, to_dtype, upcast
from primkit.decompositions.nn.common import per_dim, working_layout
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims import dtypes as dt


@register(aten.convolution.default)
def convolution(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    n = weight.dim() - 2
    if a.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{list(weight.shape)}, but got {a.dim()}-dimensional input of size {list(a.shape)} instead")
    if a.dtype != weight.dtype or (bias is not None and bias.dtype != a.dtype):
        other = weight.dtype if a.dtype != weight.dtype else bias.dtype
        raise RuntimeError(f"Input type ({dt.short(a.dtype)}) and weight/bias type ({dt.short(other)}) should be "
                           f"the same")
    if groups < 1 or weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size {list(weight.shape)} instead")
    expected = weight.shape[0] if transposed else weight.shape[1] * groups
    if a.shape[1] != expected:
        what = f"transposed=1, weight of size {list(weight.shape)}" if transposed else \
            f"groups={groups}, weight of size {list(weight.shape)}"
        raise RuntimeError(f"Given {what}, expected input{list(a.shape)} to have {expected} channels, but got "
                           f"{a.shape[1]} channels instead")
    params = [per_dim(name, v, n) for name, v in (("stride", stride), ("padding", padding),
                                                    ("dilation", dilation), ("output_padding", output_padding))]
    out = P.convolution(a, weight, bias, *params[:3], transposed, params[3], groups)
    if a.shape[1] == 0:
        # eager gives no output channels (the bias dropped) where the input has none; the prim gives the bias
        out = P.slice(out, [0] * (n + 2), [out.shape[0], 0] + list(out.shape[2:]), [1] * (n + 2))
    return out


@register(aten._convolution.default)
def _convolution(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups, benchmark=False,
                 deterministic=False, cudnn_enabled=True, allow_tf32=True):
    # benchmark, deterministic, cudnn_enabled and allow_tf32 choose eager's kernel, not what it computes
    return convolution(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


@register(aten._convolution.deprecated)
def _convolution_deprecated(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups,
                            benchmark, deterministic, cudnn_enabled):
    return convolution(a, weight, bias, stride, padding, dilation, transposed, output_padding, groups)


@register(aten.conv_tbc.default)
def conv_tbc(a, weight, bias, pad=0):
    """A 1-d convolution in time-batch-channel layout: input (T, B, C_in), weight (K, C_in, C_out), bias
    (C_out,); the result (T + 2 * pad - K + 1, B, C_out) is contiguous. As eager's kernel (an addmm_ per
    kernel tap): the bias, then tap after tap the product in float32 added to it, rounded to the input's dtype
    after each tap (float16 / bfloat16 round K times)."""
    if a.dim() != 3 or weight.dim() != 3 or bias.dim() != 1:
        raise RuntimeError(f"conv_tbc: expected a 3-D input, a 3-D weight and a 1-D bias, got sizes "
                           f"{list(a.shape)}, {list(weight.shape)} and {list(bias.shape)}")
    if a.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    if a.dtype != weight.dtype or a.dtype != bias.dtype:
        raise RuntimeError(f"conv_tbc: expected input, weight and bias of one dtype, got {dt.short(a.dtype)}, "
                           f"{dt.short(weight.dtype)} and {dt.short(bias.dtype)}")
    (t, b, c_in), (k, _, c_out) = a.shape, weight.shape
    length = t + 2 * pad - k + 1
    (x, w), orig = upcast(a, weight)
    x = P.pad(x, 0, [pad, 0, 0], [pad, 0, 0], [0, 0, 0]) if pad else x
    out = P.broadcast_in_dim(bias, [length, b, c_out], [2])
    for tap in range(k):
        rows = P.reshape(P.slice(x, [tap, 0, 0], [tap + length, b, c_in], [1, 1, 1]), [length * b, c_in])
        w_tap = P.reshape(P.slice(w, [tap, 0, 0], [tap + 1, c_in, c_out], [1, 1, 1]), [c_in, c_out])
        product = P.reshape(P.matmul(rows, w_tap), [length, b, c_out])
        out = to_dtype(P.add(to_dtype(out, x.dtype), product), orig)
    return out


def _same_padding(name, a, weight, stride, dilation, n):
    """'same' padding: total d*(k-1) split evenly, the odd element on the high side (as eager)."""
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    totals = [d * (weight.shape[2 + i] - 1) for i, d in enumerate(dilation)]
    extra = [t % 2 for t in totals]
    if any(extra):
        x, spatial, restore = working_layout(a, n)   # pad channels-last data in NHWC to keep its layout
        high = [0] * a.dim()
        for d, e in zip(spatial, extra):
            high[d] = e
        a = restore(P.pad(x, 0, [0] * a.dim(), high, [0] * a.dim()))
    return a, [t // 2 for t in totals]


def _conv_nd(n, transposed):
    """aten.conv{n}d / aten.conv_transpose{n}d: batch an unbatched input, call convolution."""
    def conv(a, weight, bias=None, stride=1, padding=0, third=None, groups=1, dilation=1):
        # conv{n}d's sixth argument is dilation (default 1); conv_transpose{n}d's is output_padding (default 0).
        output_padding, dilation = (third or 0, dilation) if transposed else (0, 1 if third is None else third)
        stride, dilation, output_padding = (per_dim(k, v, n) for k, v in
                                            (("stride", stride), ("dilation", dilation),
                                             ("output_padding", output_padding)))
        unbatched = a.dim() == n + 1
        if a.dim() not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"conv{'_transpose' if transposed else ''}{n}d, but got input of size: {list(a.shape)}")
        x = P.expand_dims(a, [0]) if unbatched else a
        if isinstance(padding, str):
            if padding == "valid":
                padding = [0] * n
            elif padding == "same":
                x, padding = _same_padding(f"conv{n}d", x, weight, stride, dilation, n)
            else:
                raise RuntimeError(f"Invalid padding string: '{padding}'")
        out = convolution(x, weight, bias, stride, per_dim("padding", padding, n), dilation, transposed,
                          output_padding, groups)
        return P.squeeze(out, [0]) if unbatched else out
    conv.__name__ = conv.__qualname__ = f"conv{'_transpose' if transposed else ''}{n}d"
    return conv


for _n in (1, 2, 3):
    register(getattr(aten, f"conv{_n}d").default, getattr(aten, f"conv{_n}d").padding)(_conv_nd(_n, False))
for _n, _op in ((1, aten.conv_transpose1d.default), (2, aten.conv_transpose2d.input), (3, aten.conv_transpose3d.input)):
    register(_op)(_conv_nd(_n, True))
register_out(aten.convolution.out, convolution)
register_out(aten._convolution.out, _convolution)
register_out(aten.conv_tbc.out, conv_tbc)


# F.unfold and F.fold: the windowed prims on a batch of images (3-d / 2-d inputs are a batch of one),
# after eager's argument checks.


def _check_window_args(kernel_size, dilation, padding, stride):
    for what, (h, w), ok, rule in (("kernel size", kernel_size, lambda v: v > 0, "greater than zero"),
                                   ("dilation", dilation, lambda v: v > 0, "greater than zero"),
                                   ("padding", padding, lambda v: v >= 0, "non-negative"),
                                   ("stride", stride, lambda v: v > 0, "greater than zero")):
        if not (ok(h) and ok(w)):
            names = {"kernel size": "kernel", "dilation": "dilation", "padding": "pad", "stride": "stride"}[what]
            raise RuntimeError(f"{what} should be {rule}, but got {names}_height: {h} {names}_width: {w}")


def _blocks(size, kernel, dilation, padding, stride):
    return (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1


def _check_unfold_dtype(name, a):
    if a.dtype in dt.INT:
        raise RuntimeError(f'"{name}_out_cpu" not implemented for {dt.short(a.dtype)}')


@register(aten.im2col.default)
def im2col(a, kernel_size, dilation, padding, stride):
    _check_window_args(kernel_size, dilation, padding, stride)
    _check_unfold_dtype("im2col", a)
    if a.dim() not in (3, 4) or any(s == 0 for s in a.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(a.shape)}")
    blocks = [_blocks(a.shape[-2 + i], kernel_size[i], dilation[i], padding[i], stride[i]) for i in range(2)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({a.shape[-2]}, {a.shape[-1]}), kernel_size="
                           f"({kernel_size[0]}, {kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), padding="
                           f"({padding[0]}, {padding[1]}), calculated shape of the array of sliding blocks as "
                           f"({blocks[0]}, {blocks[1]}), but its components must be at least one.")
    batched = a if a.dim() == 4 else P.expand_dims(a, [0])
    out = P.im2col(batched, list(kernel_size), list(dilation), list(padding), list(stride))
    return out if a.dim() == 4 else P.squeeze(out, [0])


@register(aten.col2im.default)
def col2im(a, output_size, kernel_size, dilation, padding, stride):
    _check_window_args(kernel_size, dilation, padding, stride)
    _check_unfold_dtype("col2im", a)
    if a.dim() not in (2, 3) or any(s == 0 for s in a.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                           f"non-zero dimensions for input, but got: {list(a.shape)}")
    window = kernel_size[0] * kernel_size[1]
    if a.shape[-2] % window:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={a.shape[-2]} and kernel_size=({kernel_size[0]}, {kernel_size[1]}).")
    blocks = [_blocks(output_size[i], kernel_size[i], dilation[i], padding[i], stride[i]) for i in range(2)]
    if blocks[0] * blocks[1] != a.shape[-1]:
        raise RuntimeError(f"Given output_size=({output_size[0]}, {output_size[1]}), kernel_size=({kernel_size[0]}, "
                           f"{kernel_size[1]}), dilation=({dilation[0]}, {dilation[1]}), padding=({padding[0]}, "
                           f"{padding[1]}), stride=({stride[0]}, {stride[1]}), expected size of input's dimension 2 "
                           f"to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={a.shape[-1]}.")
    batched = contiguous(a if a.dim() == 3 else P.expand_dims(a, [0]))
    # bool: eager's += of overlapping blocks is a logical or; the prim sums numbers
    x = to_dtype(batched, torch.int64) if a.dtype == torch.bool else batched
    (x,), orig = upcast(x) if a.dtype != torch.bool else ((x,), a.dtype)
    out = P.col2im(x, list(output_size), list(kernel_size), list(dilation), list(padding), list(stride))
    out = P.ne(out, like(out, 0)) if a.dtype == torch.bool else to_dtype(out, orig)
    return out if a.dim() == 3 else P.squeeze(out, [0])


register_out(aten.im2col.out, im2col)
register_out(aten.col2im.out, col2im)
