"""Lowerings of the windowed prims. Every window element is read with one gather from the padded
operand flattened: its flat position is a sum of broadcast iotas (window start plus offset in each
dim). Window reductions reduce the gathered window dims; im2col rearranges them into columns; col2im
and select_and_scatter_add scatter_add back to those positions."""
from __future__ import annotations

import torch

from primkit.decompositions.lowering.core import (P, in_opmath, iota, isnan, lowers, lowest, highest, splat,
                                                  with_strides)
from primkit.prims.meta.strides import contiguous_strides


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def window_positions(shape, window, strides, dilation, like):
    """(index, out): ``out`` the window counts per dim of a (padded) tensor of ``shape``, ``index`` the
    int64 tensor of shape out + window holding each window element's flat row-major position in it."""
    out = [(n - ((w - 1) * dl + 1)) // st + 1 if n >= (w - 1) * dl + 1 else 0
           for n, w, st, dl in zip(shape, window, strides, dilation)]
    full_shape, r = out + list(window), len(shape)
    index = P.full(full_shape, 0, dtype=torch.int64, device=like.device)
    for d, row in enumerate(contiguous_strides(shape)):
        index = P.add(index, P.broadcast_in_dim(iota(out[d], like, step=strides[d] * row), full_shape, [d]))
        index = P.add(index, P.broadcast_in_dim(iota(window[d], like, step=dilation[d] * row), full_shape, [r + d]))
    return index, out


def _gather_windows(a, window, strides, low, high, dilation, padding_value):
    """a padded with padding_value, read as windows: shape out + window."""
    padded = P.pad(a, padding_value, list(low), list(high), [0] * a.dim())
    index, out = window_positions(padded.shape, window, strides, dilation, a)
    flat = P.reshape(padded, [padded.numel()])
    return P.reshape(P.gather(flat, 0, P.reshape(index, [index.numel()])), out + list(window))


def _reduce_window(name, reduce, identity):
    def lowered(a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
        windows = _gather_windows(a, window_dimensions, window_strides, padding_low, padding_high, window_dilation,
                                  identity(a.dtype))
        return reduce(windows, list(range(a.dim(), 2 * a.dim())))
    lowered.__name__ = lowered.__qualname__ = name
    return lowered


_example = lambda dtype: (torch.ones(4, 5, dtype=dtype), [2, 2], [1, 2], [1, 0], [0, 1], [1, 2])   # noqa: E731

reduce_window_max = lowers("reduce_window_max", example=_example)(_reduce_window("reduce_window_max", P.amax, lowest))
reduce_window_min = lowers("reduce_window_min", example=_example)(_reduce_window("reduce_window_min", P.amin, highest))
# float16 / bfloat16 sums and products in float32, rounded once, as eager's pooling kernels accumulate
reduce_window_sum = lowers("reduce_window_sum", example=_example)(
    in_opmath(_reduce_window("reduce_window_sum", P.sum, lambda dtype: 0)))
reduce_window_prod = lowers("reduce_window_prod", example=_example)(
    in_opmath(_reduce_window("reduce_window_prod", P.prod, lambda dtype: 1)))


@lowers("argmax_window", example=_example)
def argmax_window(a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    args = (window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    values = _gather_windows(a, *args, lowest(a.dtype))
    # each window element's flat position in a, -1 in the padding
    positions = _gather_windows(P.reshape(iota(a.numel(), a), list(a.shape)), *args, -1)
    r = a.dim()
    dims, kept = list(range(r, 2 * r)), list(range(r))
    largest = P.broadcast_in_dim(P.amax(values, dims), list(values.shape), kept)
    in_a = P.le(splat(0, positions), positions)
    # positions grow in row-major window order: the first maximum is the smallest position holding it
    none = a.numel()
    first = P.amin(P.where(P.logical_and(in_a, P.eq(values, largest)), positions, splat(none, positions)), dims)
    result = P.where(P.eq(first, splat(none, first)), splat(-1, first), first)
    if a.dtype.is_floating_point:    # a nan is the maximum: the last one wins
        last_nan = P.amax(P.where(isnan(values), positions, splat(-1, positions)), dims)
        result = P.where(P.le(splat(0, last_nan), last_nan), last_nan, result)
    return result


@lowers("select_and_scatter_add", example=lambda dtype: (torch.ones(4, 2, dtype=dtype), *_example(dtype)))
def select_and_scatter_add(source, operand, window_dimensions, window_strides, padding_low, padding_high,
                           window_dilation):
    selected = P.argmax_window(operand, window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    n = operand.numel()
    # a window wholly in padding selects -1: its source lands in one spare element past the end
    target = P.where(P.lt(selected, splat(0, selected)), splat(n, selected), selected)
    sums = P.scatter_add(P.full([n + 1], 0, dtype=operand.dtype, device=operand.device), 0,
                         P.reshape(target, [target.numel()]), P.reshape(source, [source.numel()]))
    return P.reshape(P.slice(sums, [0], [n], [1]), list(operand.shape))


def _block_positions(shape, kernel_size, dilation, padding, stride, like):
    """im2col's blocks of a padded (N, C, H, W) image as window positions: shape (N, C, OH, OW, 1, 1, kh, kw)."""
    padded = list(shape[:2]) + [shape[2] + 2 * padding[0], shape[3] + 2 * padding[1]]
    return window_positions(padded, [1, 1, *kernel_size], [1, 1, *stride], [1, 1, *dilation], like)


@lowers("im2col", example=lambda dtype: (torch.ones(1, 2, 4, 4, dtype=dtype), [2, 2], [1, 1], [1, 1], [1, 1]))
def im2col(a, kernel_size, dilation, padding, stride):
    n, c = a.shape[:2]
    low = [0, 0, *padding]
    padded = P.pad(a, 0, low, low, [0] * 4)
    index, (_, _, oh, ow) = _block_positions(a.shape, kernel_size, dilation, padding, stride, a)
    blocks = P.gather(P.reshape(padded, [padded.numel()]), 0, P.reshape(index, [index.numel()]))
    blocks = P.permute(P.reshape(blocks, list(index.shape)), [0, 1, 4, 5, 6, 7, 2, 3])   # channel, kernel, position
    cols = P.reshape(blocks, [n, c * kernel_size[0] * kernel_size[1], oh * ow])
    return with_strides(cols, contiguous_strides(cols.shape))


@lowers("col2im", example=lambda dtype: (torch.ones(1, 8, 9, dtype=dtype), [2, 2], [2, 2], [1, 1], [1, 1], [1, 1]))
def col2im(a, output_size, kernel_size, dilation, padding, stride):
    n, kk = a.shape[0], kernel_size[0] * kernel_size[1]
    c = a.shape[1] // kk
    shape = [n, c, *output_size]
    index, _ = _block_positions(shape, kernel_size, dilation, padding, stride, a)
    # in a's order (channel, kernel position, block): the sums at each pixel run in kernel position order
    index = P.permute(index, [0, 1, 4, 5, 6, 7, 2, 3])
    padded = [n, c, output_size[0] + 2 * padding[0], output_size[1] + 2 * padding[1]]
    sums = P.scatter_add(P.full([_numel(padded)], 0, dtype=a.dtype, device=a.device), 0,
                         P.reshape(index, [index.numel()]), P.reshape(a, [a.numel()]))
    image = P.slice(P.reshape(sums, padded), [0, 0, padding[0], padding[1]],
                    [n, c, padding[0] + output_size[0], padding[1] + output_size[1]], [1] * 4)
    return with_strides(image, contiguous_strides(image.shape))
