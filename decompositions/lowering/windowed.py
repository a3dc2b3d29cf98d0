"""Lowerings of the windowed prims. Every window element is read with one gather from the padded
operand flattened: its flat position is a sum of broadcast iotas (window start plus offset in each
dim). Window reductions reduce the gathered window dims; im2col rearranges them into columns. The
adjoints (col2im, select_and_scatter_add) add one window offset at a time, each a pad of the values
with stride - 1 between them: a fixed order of additions, no scatter."""
from __future__ import annotations

import math

import torch

from primkit.decompositions.lowering.core import (P, in_opmath, iota, isnan, lowers, splat,
                                                  with_strides)
from primkit.prims.dtypes import highest, lowest
from primkit.prims.layout import contiguous_strides


def window_counts(shape, window, strides, dilation):
    """How many dilated windows fit along each dim of ``shape`` (0 where not one does)."""
    return [(n - ((w - 1) * dl + 1)) // st + 1 if n >= (w - 1) * dl + 1 else 0
            for n, w, st, dl in zip(shape, window, strides, dilation)]


def window_positions(shape, window, strides, dilation, like):
    """(index, out): ``out`` the window counts per dim of a (padded) tensor of ``shape``, ``index`` the
    int64 tensor of shape out + window holding each window element's flat row-major position in it."""
    out = window_counts(shape, window, strides, dilation)
    full_shape, r = out + list(window), len(shape)
    index = P.full(full_shape, 0, dtype=torch.int64, device=like.device)
    for d, row in enumerate(contiguous_strides(shape)):
        index = P.add(index, P.broadcast_in_dim(iota(out[d], like, step=strides[d] * row), full_shape, [d]))
        index = P.add(index, P.broadcast_in_dim(iota(window[d], like, step=dilation[d] * row), full_shape, [r + d]))
    return index, out


def _gather_windows(a, window, strides, low, high, dilation, padding_value):
    """a padded with padding_value, read as windows: shape out + window (row-major window order)."""
    padded = P.pad(a, padding_value, list(low), list(high), [0] * a.dim())
    index, out = window_positions(padded.shape, window, strides, dilation, a)
    flat = P.reshape(padded, [padded.numel()])
    return P.reshape(P.gather(flat, 0, P.reshape(index, [index.numel()])), out + list(window))


def _reduce_window(name, reduce, identity):
    def lowered(a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
        windows = _gather_windows(a, window_dimensions, window_strides, padding_low, padding_high, window_dilation,
                                  identity(a.dtype))
        # one flat window dim, reduced as the prims reduce it (the same order of float16 products)
        flat = P.reshape(windows, list(windows.shape[:a.dim()]) + [math.prod(window_dimensions)])
        return reduce(flat, [a.dim()])
    lowered.__name__ = lowered.__qualname__ = name
    return lowered


_example = lambda dtype: (torch.ones(4, 5, dtype=dtype), [2, 2], [1, 2], [1, 0], [0, 1], [1, 2])   # noqa: E731

reduce_window_max = lowers("reduce_window_max", example=_example)(_reduce_window("reduce_window_max", P.amax, lowest))
reduce_window_min = lowers("reduce_window_min", example=_example)(_reduce_window("reduce_window_min", P.amin, highest))
# sums and products in the operand's dtype, as the prims' (torch.sum / torch.prod over each window)
reduce_window_sum = lowers("reduce_window_sum", example=_example)(
    _reduce_window("reduce_window_sum", P.sum, lambda dtype: 0))
reduce_window_prod = lowers("reduce_window_prod", example=_example)(
    _reduce_window("reduce_window_prod", P.prod, lambda dtype: 1))


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


def _spread(x, out_shape, offset, window_strides, low_padding):
    """x (one value per window) placed at each window's element ``offset`` in a tensor of ``out_shape``, 0
    elsewhere: a pad with stride - 1 between values (a negative low or high crops what falls in the padding)."""
    low = [k - lo for k, lo in zip(offset, low_padding)]
    high = [n - (lo + (m - 1) * s + 1) if m else n - lo for n, lo, m, s in zip(out_shape, low, x.shape, window_strides)]
    return P.pad(x, 0, low, high, [s - 1 for s in window_strides])


def _offsets(window):
    """Every position in a window, row-major."""
    out = [[]]
    for w in window:
        out = [o + [k] for o in out for k in range(w)]
    return out


# float16 / bfloat16 in float32, rounded once: the order in which a position's windows add up is
# unspecified (the prim is nondeterministic), this is the exact sum's rounding
@lowers("select_and_scatter_add", example=lambda dtype: (torch.ones(4, 2, dtype=dtype), *_example(dtype)))
@in_opmath
def select_and_scatter_add(source, operand, window_dimensions, window_strides, padding_low, padding_high,
                           window_dilation):
    args = (window_dimensions, window_strides, padding_low, padding_high, window_dilation)
    total = P.full(list(operand.shape), 0, dtype=operand.dtype, device=operand.device)
    if operand.numel() == 0:     # every window lies in padding: nothing is selected
        return total
    selected = P.argmax_window(operand, *args)
    positions = _gather_windows(P.reshape(iota(operand.numel(), operand), list(operand.shape)), *args, -1)
    r = operand.dim()
    out = list(selected.shape)
    chosen = P.logical_and(P.eq(positions, P.broadcast_in_dim(selected, list(positions.shape), list(range(r)))),
                           P.le(splat(0, positions), positions))
    spread_source = P.broadcast_in_dim(source, list(positions.shape), list(range(r)))
    contribution = P.where(chosen, spread_source, splat(0, spread_source))
    # add each window offset's values in turn, the last offset first: every position then sums its
    # windows in row-major window order, as the reference's index_add
    for k in reversed(_offsets(window_dimensions)):
        values = P.slice(contribution, [0] * r + k, out + [i + 1 for i in k], [1] * 2 * r)
        values = P.squeeze(values, list(range(r, 2 * r)))
        total = P.add(total, _spread(values, operand.shape, [i * d for i, d in zip(k, window_dilation)],
                                     window_strides, padding_low))
    return total


# the second: one block, whose columns are a view to lay out anew
@lowers("im2col", example=lambda dtype: [(torch.ones(1, 2, 4, 4, dtype=dtype), [2, 2], [1, 1], [1, 1], [1, 1]),
                                         (torch.ones(1, 2, 3, 4, dtype=dtype), [3, 4], [1, 1], [0, 0], [1, 1])])
def im2col(a, kernel_size, dilation, padding, stride):
    n, c = a.shape[:2]
    low = [0, 0, *padding]
    padded = P.pad(a, 0, low, low, [0] * 4)
    # the blocks as windows of the padded image: (N, C, OH, OW, 1, 1, kh, kw)
    index, (_, _, oh, ow) = window_positions(padded.shape, [1, 1, *kernel_size], [1, 1, *stride], [1, 1, *dilation], a)
    blocks = P.gather(P.reshape(padded, [padded.numel()]), 0, P.reshape(index, [index.numel()]))
    blocks = P.permute(P.reshape(blocks, list(index.shape)), [0, 1, 4, 5, 6, 7, 2, 3])   # channel, kernel, position
    cols = P.reshape(blocks, [n, c * kernel_size[0] * kernel_size[1], oh * ow])
    return with_strides(cols, contiguous_strides(cols.shape))


@lowers("col2im", example=lambda dtype: (torch.ones(1, 8, 9, dtype=dtype), [2, 2], [2, 2], [1, 1], [1, 1], [1, 1]))
def col2im(a, output_size, kernel_size, dilation, padding, stride):
    n, (kh, kw) = a.shape[0], kernel_size
    c = a.shape[1] // (kh * kw)
    shape = [n, c, *output_size]
    blocks = window_counts([s + 2 * p for s, p in zip(output_size, padding)], kernel_size, stride, dilation)
    image = P.full(shape, 0, dtype=a.dtype, device=a.device)
    if 0 in blocks:
        return image
    cols = P.reshape(a, [n, c, kh, kw, *blocks])
    for i, j in _offsets(kernel_size):    # kernel position order: a fixed order of additions
        block = P.squeeze(P.slice(cols, [0, 0, i, j, 0, 0], [n, c, i + 1, j + 1, *blocks], [1] * 6), [2, 3])
        image = P.add(image, _spread(block, shape, [0, 0, i * dilation[0], j * dilation[1]], [1, 1, *stride],
                                     [0, 0, *padding]))
    return image
