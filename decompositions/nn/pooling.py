"""Pooling: max, average, adaptive and fractional pooling and max_unpool, over windows gathered from
the input in eager's layout.
"""
from __future__ import annotations

import functools
import itertools
import math

import torch

from primkit.decompositions.common import P, aten, like, register_out, to_dtype, upcast
from primkit.decompositions.nn.common import (
    check_floating, dense_in_order, i64, is_channels_last_4d, is_channels_last_nd, per_dim, working_layout)
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims.layout import numel
from primkit.prims import dtypes as dt


# Windows are strided slices of the padded input, one per kernel offset, stacked on a new last
# dim and reduced with amax / argmax / sum. Channels-last inputs are pooled in NHWC order so
# the result keeps eager's channels-last layout.


def pool_geometry(name, a, n, kernel_size, stride, padding, dilation, ceil_mode):
    kernel = per_dim("kernel_size", kernel_size, n)
    stride = per_dim("stride", stride, n) if stride else list(kernel)   # empty: the kernel size
    padding, dilation = per_dim("padding", padding, n), per_dim("dilation", dilation, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D (batch mode) tensor for input, but got "
                           f"{a.dim()}D input of size {list(a.shape)}")
    if any(k <= 0 for k in kernel) or any(s <= 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(f"{name}: kernel_size, stride and dilation must be greater than zero, but got "
                           f"kernel_size={kernel}, stride={stride}, dilation={dilation}")
    if any(p < 0 or p > (d * (k - 1) + 1) // 2 for p, k, d in zip(padding, kernel, dilation)):
        raise RuntimeError(f"{name}: pad should be at most half of effective kernel size, but got pad={padding}, "
                           f"kernel_size={kernel} and dilation={dilation}")
    sizes = list(a.shape[a.dim() - n:])
    out = []
    for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation):
        o = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (o - 1) * s >= size + p:   # the last window must start inside input or left padding
            o -= 1
        out.append(o)
    if any(o < 1 for o in out):
        raise RuntimeError(f"{name}: Given input size {list(a.shape)}, the calculated output size {out} is too small")
    return kernel, stride, padding, dilation, out


def _pool_layout(a, n):
    """working_layout for poolings: eager's 3-d average and adaptive poolings return contiguous
    results whatever the input's layout."""
    if n == 3:
        return a, list(range(a.dim() - 3, a.dim())), contiguous
    return working_layout(a, n)


def _max_pool_layout(a, n):
    """working_layout for max pooling: NDHWC for a channels-last batch of volumes, which eager's 3-d
    max pooling keeps."""
    if n == 3 and a.dim() == 5 and is_channels_last_nd(a):
        return P.permute(a, [0, 2, 3, 4, 1]), [1, 2, 3], lambda t: P.permute(t, [0, 4, 1, 2, 3])
    return _pool_layout(a, n)


def pool_windows(x, spatial, kernel, stride, dilation, out, pad_low, fill):
    """x's pooling windows stacked on a new last dim: shape x.shape with spatial sizes -> out, + (K,)."""
    return P.cat([P.expand_dims(s, [x.dim()]) for s in
                  pool_slices(x, spatial, kernel, stride, dilation, out, pad_low, fill)], x.dim())


def pool_slices(x, spatial, kernel, stride, dilation, out, pad_low, fill):
    """The K strided slices of padded x that pool_windows stacks, one per kernel offset (row-major)."""
    low, high = [0] * x.dim(), [0] * x.dim()
    for i, d in enumerate(spatial):
        low[d] = pad_low[i]
        high[d] = (out[i] - 1) * stride[i] + (kernel[i] - 1) * dilation[i] + 1 - x.shape[d] - pad_low[i]
    padded = P.pad(x, fill, low, high, [0] * x.dim()) if any(low) or any(high) else x
    slices = []
    for offsets in itertools.product(*(range(k) for k in kernel)):
        starts, limits, steps = [0] * x.dim(), list(padded.shape), [1] * x.dim()
        for i, d in enumerate(spatial):
            starts[d] = offsets[i] * dilation[i]
            limits[d] = starts[d] + (out[i] - 1) * stride[i] + 1
            steps[d] = stride[i]
        slices.append(P.slice(padded, starts, limits, steps))
    return slices


def _separable_max_pool(x, spatial, kernel, stride, dilation, out, padding):
    """(values, flat spatial input index) of 3-d max pooling as three 1-d poolings, the last dim first: a
    window's maximum is the maximum over d of the maxima over h of the maxima over w, so 3 (k - 1) elementwise
    steps stand for the k ** 3 - 1 of the window's slices (27 strided reads of the input for k = 3). The index
    follows eager's scan of the window in row-major order, ``v > best or isnan(v)`` (the first maximum, the
    last nan): reducing the innermost dim first and the outermost last picks the same position."""
    n = len(spatial)
    pad_low, pad_high = [0] * x.dim(), [0] * x.dim()
    for i, d in enumerate(spatial):
        pad_low[d] = padding[i]
        pad_high[d] = (out[i] - 1) * stride[i] + (kernel[i] - 1) * dilation[i] + 1 - x.shape[d] - padding[i]
    values = P.pad(x, dt.lowest(x.dtype), pad_low, pad_high, [0] * x.dim()) if any(pad_low + pad_high) else x
    sizes = [x.shape[d] for d in spatial]
    grid = P.reshape(P.iota(numel(sizes), start=0, step=1, dtype=torch.int64, device=x.device), sizes)
    grid = P.pad(grid, -1, [pad_low[d] for d in spatial], [pad_high[d] for d in spatial], [0] * n)
    index = P.broadcast_in_dim(grid, list(values.shape), spatial)
    for i in reversed(range(n)):
        d = spatial[i]

        def tap(t, k):
            starts, limits, steps = [0] * t.dim(), list(t.shape), [1] * t.dim()
            starts[d], steps[d] = k * dilation[i], stride[i]
            limits[d] = starts[d] + (out[i] - 1) * stride[i] + 1
            return P.slice(t, starts, limits, steps)
        best, best_index = tap(values, 0), tap(index, 0)
        for k in range(1, kernel[i]):
            v = tap(values, k)
            better = P.gt(v, best) if x.dtype not in dt.FLOAT else P.logical_or(P.gt(v, best), P.isnan(v))
            best, best_index = P.where(better, v, best), P.where(better, tap(index, k), best_index)
        values, index = best, best_index
    return contiguous(values), contiguous(index)


def _max_pool(name, a, n, kernel_size, stride, padding, dilation, ceil_mode):
    kernel, stride, padding, dilation, out = pool_geometry(name, a, n, kernel_size, stride, padding, dilation,
                                                            ceil_mode)
    x, spatial, restore = _max_pool_layout(a, n)
    if n == 3:
        values, index = _separable_max_pool(x, spatial, kernel, stride, dilation, out, padding)
        return restore(values), restore(_first_valid_where_empty(index, values, x, spatial, kernel, stride, dilation,
                                                                 out, padding))
    slices = pool_slices(x, spatial, kernel, stride, dilation, out, padding, dt.lowest(a.dtype))
    win = P.cat([P.expand_dims(s, [x.dim()]) for s in slices], x.dim())
    last = win.dim() - 1
    # the maxima as elementwise maxima of the window's slices (nan propagates, as in amax and eager): one pass
    # over the input, no stacked copy of every window (which then feeds only the indices, dropped where unused);
    # contiguous in the working layout, as amax's result
    values = contiguous(functools.reduce(P.maximum, slices)) if len(slices) > 1 else P.amax(win, [last])
    position = P.argmax(win, last)
    # Flat input index (h * W + w) of every window position: the same windows over an index grid.
    sizes = [x.shape[d] for d in spatial]
    grid = P.reshape(P.iota(numel(sizes), start=0, step=1, dtype=torch.int64, device=a.device), sizes)
    grid_win = pool_windows(grid, list(range(n)), kernel, stride, dilation, out, padding, -1)
    index = P.squeeze(P.gather(P.broadcast_in_dim(grid_win, list(win.shape), spatial + [last]), last,
                               P.expand_dims(position, [last])), [last])
    return restore(values), restore(_first_valid_where_empty(index, values, x, spatial, kernel, stride, dilation,
                                                             out, padding, grid_win))


def _first_valid_where_empty(index, values, x, spatial, kernel, stride, dilation, out, padding, grid_win=None):
    """index, where a float window holds only -inf: eager keeps its first in-bounds position, not a padded one."""
    if x.dtype not in dt.FLOAT:
        return index
    n = len(spatial)
    if grid_win is None:
        sizes = [x.shape[d] for d in spatial]
        grid = P.reshape(P.iota(numel(sizes), start=0, step=1, dtype=torch.int64, device=x.device), sizes)
        grid_win = pool_windows(grid, list(range(n)), kernel, stride, dilation, out, padding, -1)
    big = P.broadcast_in_dim(P.scalar_tensor(torch.iinfo(torch.int64).max, dtype=torch.int64, device=x.device),
                             list(grid_win.shape), [])
    first = P.amin(P.where(P.ge(grid_win, P.broadcast_in_dim(
        P.scalar_tensor(0, dtype=torch.int64, device=x.device), list(grid_win.shape), [])), grid_win, big), [n])
    first = P.broadcast_in_dim(first, list(values.shape), spatial)
    return P.where(P.eq(values, like(values, -math.inf)), first, index)


@register(aten.max_pool2d_with_indices.default)
def max_pool2d_with_indices(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool2d", a, 2, kernel_size, stride, padding, dilation, ceil_mode)


@register(aten.max_pool2d.default)
def max_pool2d(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool2d", a, 2, kernel_size, stride, padding, dilation, ceil_mode)[0]


@register(aten.max_pool1d.default)
def max_pool1d(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool1d", a, 1, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _height_one(name, a, pool2d, *params):
    """A 1-D pooling as eager's composite computes it: the 2-D pooling of a height-1 image
    (unsqueeze(-2), pool, squeeze(-2)), which gives eager's values and its channels-last layout
    for a transposed input. ``params``: 1-D kernel/stride/padding/dilation, made 2-D."""
    if a.dim() not in (2, 3):
        raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor for input, but got {a.dim()}D input of "
                           f"size {list(a.shape)}")
    def lift(height, v):   # [height, v]; an empty stride stays empty (it means the kernel size)
        values = list(v) if isinstance(v, (list, tuple)) else [v]
        return [height] + values if values else []
    out = pool2d(P.expand_dims(a, [a.dim() - 1]), *(lift(h, v) for h, v in params))
    squeeze = lambda t: P.squeeze(t, [a.dim() - 1])   # noqa: E731
    return tuple(squeeze(t) for t in out) if isinstance(out, tuple) else squeeze(out)


@register(aten.max_pool1d_with_indices.default)
def max_pool1d_with_indices(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _height_one("max_pool1d_with_indices", a,
                       lambda x, k, s, p, d: _max_pool("max_pool1d", x, 2, k, s, p, d, ceil_mode),
                       (1, kernel_size), (1, stride), (0, padding), (1, dilation))


def _avg_pool(name, a, n, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
    kernel, stride, padding, dilation, out = pool_geometry(name, a, n, kernel_size, stride, padding, 1, ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{name}: divisor must be not zero")
    if a.dtype not in dt.FLOAT and a.dtype != torch.int64:   # eager's kernels: floating types and Long
        raise RuntimeError(f"{name}: not implemented for '{dt.EAGER_NAMES.get(a.dtype, a.dtype)}'")
    x, spatial, restore = _pool_layout(a, n)
    (xc,), orig = upcast(x)
    win = pool_windows(xc, spatial, kernel, stride, dilation, out, padding, 0)
    total = P.sum(win, [win.dim() - 1])
    if divisor_override is not None:
        count = like(total, divisor_override)
    else:
        # Window sizes: count ones over the input, or over input plus padding (not the ceil_mode overhang).
        sizes = [x.shape[d] + (2 * p if count_include_pad else 0) for d, p in zip(spatial, padding)]
        ones = P.full(sizes, 1, dtype=xc.dtype, device=a.device)
        low = [0] * n if count_include_pad else padding
        counts = pool_windows(ones, list(range(n)), kernel, stride, dilation, out, low, 0)
        count = P.broadcast_in_dim(P.sum(counts, [n]), list(total.shape), spatial)
    # eager's Long kernel sums in int64 (wrapping) and divides as C++ does, rounding toward zero
    divide = P.trunc_divide if a.dtype == torch.int64 else P.div
    return restore(to_dtype(divide(total, count), orig))


@register(aten.avg_pool2d.default)
def avg_pool2d(a, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _avg_pool("avg_pool2d", a, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@register(aten.avg_pool1d.default)
def avg_pool1d(a, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True):
    return _height_one("avg_pool1d", a,
                       lambda x, k, s, p: _avg_pool("avg_pool1d", x, 2, k, s, p, ceil_mode, count_include_pad, None),
                       (1, kernel_size), (1, stride), (0, padding))


register_out(aten.avg_pool2d.out, avg_pool2d, "avg_pool2d")


def adaptive_bins(in_size, out_size, device):
    """(index (O, kmax), valid (O, kmax), count (O,)): bin o covers [floor(o*I/O), ceil((o+1)*I/O))."""
    # No bins (out_size 0: the gradient of a forward with no outputs) read nothing: kmax 0.
    kmax = max((-(-(o + 1) * in_size // out_size) - (o * in_size) // out_size for o in range(out_size)), default=0)
    o = P.iota(out_size, start=0, step=1, dtype=torch.int64, device=device)
    start = P.floor_divide(P.mul(o, i64(in_size, [out_size], device)), i64(out_size, [out_size], device))
    end = P.floor_divide(P.add(P.mul(o, i64(in_size, [out_size], device)), i64(in_size + out_size - 1,
                                                                                  [out_size], device)),
                         i64(out_size, [out_size], device))
    shape = [out_size, kmax]
    j = P.broadcast_in_dim(P.iota(kmax, start=0, step=1, dtype=torch.int64, device=device), shape, [1])
    position = P.add(P.broadcast_in_dim(start, shape, [0]), j)
    valid = P.lt(position, P.broadcast_in_dim(end, shape, [0]))
    index = P.minimum(position, i64(in_size - 1, shape, device))
    return index, valid, P.sub(end, start)


def _adaptive_avg_pool(name, a, output_size, n):
    output_size = per_dim("output_size", output_size, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got {list(a.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(a.shape)} with dimension {d} being empty")
    if any(o < 0 for o in output_size):
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to 0 but received "
                           f"{output_size}")
    x, spatial, restore = _pool_layout(a, n)
    (y,), orig = upcast(x)
    bin_counts = []
    for d, out_size in zip(spatial, output_size):
        index, valid, bin_count = adaptive_bins(y.shape[d], out_size, a.device)
        kmax = index.shape[1]
        gathered = P.index_select(y, d, P.reshape(index, [out_size * kmax]))
        split = list(y.shape[:d]) + [out_size, kmax] + list(y.shape[d + 1:])
        gathered = P.reshape(gathered, split)
        mask = P.broadcast_in_dim(valid, split, [d, d + 1])
        y = P.sum(P.where(mask, gathered, like(gathered, 0)), [d + 1])
        bin_counts.append(bin_count)
    count = None
    for d, bin_count in zip(spatial, bin_counts):   # window size = product of the per-dim bin sizes
        bin_count = P.broadcast_in_dim(to_dtype(bin_count, y.dtype), list(y.shape), [d])
        count = bin_count if count is None else P.mul(count, bin_count)
    return restore(to_dtype(P.div(y, count), orig))


@register(aten._adaptive_avg_pool2d.default)
def _adaptive_avg_pool2d(a, output_size):
    return _adaptive_avg_pool("adaptive_avg_pool2d", a, output_size, 2)


@register(aten.adaptive_avg_pool2d.default)
def adaptive_avg_pool2d(a, output_size):
    # eager's composite: a 1x1 output is a mean (nan over an empty image, which the kernel refuses), in the
    # input's layout
    if list(output_size) == [1, 1]:
        return aten.mean.dim(a, [-1, -2], True)
    return _adaptive_avg_pool2d(a, output_size)


@register(aten.adaptive_avg_pool1d.default)
def adaptive_avg_pool1d(a, output_size):
    # eager's composite: adaptive_avg_pool2d of a height-1 image (so a mean for an output of 1)
    return _height_one("adaptive_avg_pool1d", a, adaptive_avg_pool2d, (1, output_size))


@register(aten._adaptive_avg_pool3d.default)
def _adaptive_avg_pool3d(a, output_size):
    return _adaptive_avg_pool("adaptive_avg_pool3d", a, output_size, 3)


@register(aten.adaptive_avg_pool3d.default)
def adaptive_avg_pool3d(a, output_size):
    if list(output_size) == [1, 1, 1]:   # eager's composite: a mean, which keeps the input's layout
        return aten.mean.dim(a, [-1, -2, -3], True)
    return _adaptive_avg_pool3d(a, output_size)


@register(aten.avg_pool3d.default)
def avg_pool3d(a, kernel_size, stride=(), padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None):
    return _avg_pool("avg_pool3d", a, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


@register(aten.max_pool3d_with_indices.default)
def max_pool3d_with_indices(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool3d", a, 3, kernel_size, stride, padding, dilation, ceil_mode)


@register(aten.max_pool3d.default)
def max_pool3d(a, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    return _max_pool("max_pool3d", a, 3, kernel_size, stride, padding, dilation, ceil_mode)[0]


def _adaptive_max_pool(name, a, output_size, n):
    """(values, indices): the max of each adaptive bin (see adaptive_bins) and its flat position in
    the input's spatial plane; ties go to the first position, as eager's kernels scan."""
    output_size = per_dim("output_size", output_size, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(a.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(a.shape)} with dimension {d} being empty")
    if any(o <= 0 for o in output_size):
        raise RuntimeError(f"{name}(): elements of output_size must be greater than 0, but got {output_size}")
    check_floating(name, a)
    x, spatial, restore = _pool_layout(a, n)
    sizes = [x.shape[d] for d in spatial]
    bins = [adaptive_bins(size, o, a.device) for size, o in zip(sizes, output_size)]

    def windows(t, dims):
        """t with each spatial dim d split into (bin, position in bin): positions past a bin's end
        repeat its last element (masked below); then the positions moved last and flattened."""
        for d, (index, _, _) in reversed(list(zip(dims, bins))):   # last dim first: earlier dims keep their place
            out_size, kmax = index.shape
            t = P.reshape(P.index_select(t, d, P.reshape(index, [out_size * kmax])),
                          list(t.shape[:d]) + [out_size, kmax] + list(t.shape[d + 1:]))
        positions = [d + i + 1 for i, d in enumerate(dims)]
        kept = [d for d in range(t.dim()) if d not in positions]
        t = P.permute(t, kept + positions)
        return P.reshape(t, list(t.shape[:len(kept)]) + [numel(t.shape[len(kept):])])
    win = windows(x, spatial)
    last = win.dim() - 1
    valid = None
    for i, (_, v, _) in enumerate(bins):   # (O_1, .., O_n, k_1 .. k_n): position valid in every dim
        v = P.broadcast_in_dim(v, [b[0].shape[0] for b in bins] + [b[0].shape[1] for b in bins], [i, n + i])
        valid = v if valid is None else P.logical_and(valid, v)
    valid = P.reshape(valid, list(output_size) + [numel(valid.shape[n:])])
    win = P.where(P.broadcast_in_dim(valid, list(win.shape), spatial + [last]), win, like(win, -math.inf))
    values, position = P.amax(win, [last]), P.argmax(win, last)
    grid = P.reshape(P.iota(numel(sizes), start=0, step=1, dtype=torch.int64, device=a.device), sizes)
    grid_win = P.broadcast_in_dim(windows(grid, list(range(n))), list(win.shape), spatial + [last])
    index = P.squeeze(P.gather(grid_win, last, P.expand_dims(position, [last])), [last])
    return restore(values), restore(index)


@register(aten.adaptive_max_pool2d.default)
def adaptive_max_pool2d(a, output_size):
    return _adaptive_max_pool("adaptive_max_pool2d", a, output_size, 2)


@register(aten.adaptive_max_pool3d.default)
def adaptive_max_pool3d(a, output_size):
    return _adaptive_max_pool("adaptive_max_pool3d", a, output_size, 3)


@register(aten.adaptive_max_pool1d.default)
def adaptive_max_pool1d(a, output_size):
    return _height_one("adaptive_max_pool1d", a, lambda x, o: _adaptive_max_pool("adaptive_max_pool1d", x, o, 2),
                       (1, output_size))


def _fractional_starts(u, in_size, out_size, pool):
    """Window starts (samples' shape + (out_size,)), int64, as ATen's generate_intervals computes them
    in the input's dtype: floor((i + u) * alpha) - floor(u * alpha), alpha = (in - pool) / (out - 1),
    and the last window ends at the input's end."""
    shape = list(u.shape)
    last = i64(in_size - pool, shape + [1], u.device)
    if out_size == 1:
        return last
    alpha = P.div(P.scalar_tensor(in_size - pool, dtype=u.dtype, device=u.device),
                  P.scalar_tensor(out_size - 1, dtype=u.dtype, device=u.device))
    head = shape + [out_size - 1]
    i = P.broadcast_in_dim(to_dtype(P.iota(out_size - 1, start=0, step=1, dtype=torch.int64, device=u.device),
                                    u.dtype), head, [len(shape)])
    uu = P.broadcast_in_dim(u, head, list(range(len(shape))))
    scaled = to_dtype(P.mul(P.add(i, uu), P.broadcast_in_dim(alpha, head, [])), torch.int64)
    offset = to_dtype(P.mul(uu, P.broadcast_in_dim(alpha, head, [])), torch.int64)
    return P.cat([P.sub(scaled, offset), last], len(shape))


def _fractional_max_pool(name, a, kernel_size, output_size, random_samples, n):
    """(values, indices): the max of each pseudo-random window and its flat position in the input's
    plane. The windows are eager's (see _fractional_starts; the samples are per batch and channel,
    ordered W, H in 2-d and T, H, W in 3-d); ties go to the first position, as eager scans."""
    kernel, output_size = per_dim("kernel_size", kernel_size, n), per_dim("output_size", output_size, n)
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: {list(a.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch dimensions, but got "
                               f"input with sizes {list(a.shape)} with dimension {d} being empty")
    x = a if a.dim() == n + 2 else P.expand_dims(a, [0])
    batch, planes, sizes = x.shape[0], x.shape[1], list(x.shape[2:])
    # Eager lets a 2-d pool's last window end at the input's end, a 3-d pool's only before it.
    room = 0 if n == 2 else 1
    names = ("height", "width") if n == 2 else ("time", "height", "width")
    for o, k, size, dim in zip(output_size, kernel, sizes, names):
        if o + k - 1 > size - room:
            raise RuntimeError(f"{name}(): pool {dim} {k} too large relative to input {dim} {size} (output {dim} {o})")
    if list(random_samples.shape) != [batch, planes, n]:
        raise RuntimeError(f"{name}(): expected random_samples of shape {[batch, planes, n]}, got "
                           f"{list(random_samples.shape)}")
    order = [1, 0] if n == 2 else [0, 1, 2]   # which sample drives each spatial dim
    u = to_dtype(random_samples, a.dtype)
    # Flat plane index of every window position: (N, C, O_1..O_n, K_1..K_n).
    shape = [batch, planes] + output_size + kernel
    index = None
    for d in range(n):
        sample = P.squeeze(P.slice(u, [0, 0, order[d]], [batch, planes, order[d] + 1], [1, 1, 1]), [2])
        starts = P.broadcast_in_dim(_fractional_starts(sample, sizes[d], output_size[d], kernel[d]), shape,
                                    [0, 1, 2 + d])
        k = P.broadcast_in_dim(P.iota(kernel[d], start=0, step=1, dtype=torch.int64, device=a.device), shape,
                               [2 + n + d])
        term = P.mul(P.add(starts, k), i64(numel(sizes[d + 1:]), shape, a.device))
        index = term if index is None else P.add(index, term)
    windows = numel(output_size) * numel(kernel)
    flat = P.reshape(index, [batch, planes, windows])
    win = P.reshape(P.gather(P.reshape(contiguous(x), [batch, planes, numel(sizes)]), 2, flat),
                    [batch, planes] + output_size + [numel(kernel)])
    index = P.reshape(index, [batch, planes] + output_size + [numel(kernel)])
    last = n + 2
    values, position = P.amax(win, [last]), P.argmax(win, last)
    indices = P.squeeze(P.gather(index, last, P.expand_dims(position, [last])), [last])
    if a.dim() == n + 1:
        values, indices = P.squeeze(values, [0]), P.squeeze(indices, [0])
    return contiguous(values), contiguous(indices)


@register(aten.fractional_max_pool2d.default)
def fractional_max_pool2d(a, kernel_size, output_size, random_samples):
    return _fractional_max_pool("fractional_max_pool2d", a, kernel_size, output_size, random_samples, 2)


@register(aten.fractional_max_pool3d.default)
def fractional_max_pool3d(a, kernel_size, output_size, random_samples):
    return _fractional_max_pool("fractional_max_pool3d", a, kernel_size, output_size, random_samples, 3)


def _max_unpool(name, a, indices, output_size, n):
    """Zeros of the output size with each input value written at its index (a flat position in
    its channel's output plane, as max pooling returns them)."""
    if indices.dtype != torch.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {dt.short(indices.dtype)}")
    if len(output_size) != n:
        raise RuntimeError(f"{name}: there should be exactly {n} elements in output_size, but got "
                           f"{len(output_size)} elements.")
    if a.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Input to {name} should be a {n + 1}d or {n + 2}d Tensor, but got a tensor with "
                           f"{a.dim()} dimensions.")
    if list(a.shape) != list(indices.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(a.shape)}) but "
                           f"got indices tensor with shape: {list(indices.shape)}")
    for d in range(1, a.dim()):
        if a.shape[d] <= 0:
            raise RuntimeError(f"{name}: Expected input to have non-zero size for non-batch dimensions, but got "
                               f"{list(a.shape)} with dimension {d} being empty.")
    lead = list(a.shape[:a.dim() - n])
    values = P.reshape(a, lead + [numel(a.shape[a.dim() - n:])])
    where = P.reshape(indices, lead + [numel(a.shape[a.dim() - n:])])
    zeros = P.full(lead + [numel(output_size)], 0, dtype=a.dtype, device=a.device)
    out = P.reshape(P.scatter(zeros, len(lead), where, values), lead + list(output_size))
    # Eager's 2-d unpooling keeps a channels-last input's layout; the 3-d one writes a contiguous result.
    return dense_in_order(out, [0, 2, 3, 1]) if n == 2 and is_channels_last_4d(a) else contiguous(out)


@register(aten.max_unpool2d.default)
def max_unpool2d(a, indices, output_size):
    return _max_unpool("max_unpooling2d", a, indices, output_size, 2)


@register(aten.max_unpool3d.default)
def max_unpool3d(a, indices, output_size, stride, padding):
    if len(stride) != 3 or len(padding) != 3:
        raise RuntimeError(f"There should be exactly three elements (depth, height, width) in stride and padding, "
                           f"but got stride {list(stride)} and padding {list(padding)}")
    if any(st <= 0 for st in stride):
        raise RuntimeError(f"strides should be greater than zero, but got stride: {list(stride)}")
    return _max_unpool("max_unpooling3d", a, indices, output_size, 3)


register_out(aten._adaptive_avg_pool2d.out, adaptive_avg_pool2d)
register_out(aten.adaptive_avg_pool2d.out, adaptive_avg_pool2d)
register_out(aten.adaptive_avg_pool1d.out, adaptive_avg_pool1d)
register_out(aten.avg_pool1d.out, avg_pool1d)
register_out(aten.max_pool2d_with_indices.out, max_pool2d_with_indices)
register_out(aten._adaptive_avg_pool3d.out, _adaptive_avg_pool3d)
register_out(aten.adaptive_avg_pool3d.out, adaptive_avg_pool3d)
register_out(aten.avg_pool3d.out, avg_pool3d)
register_out(aten.max_pool3d_with_indices.out, max_pool3d_with_indices)
register_out(aten.adaptive_max_pool2d.out, adaptive_max_pool2d)
register_out(aten.adaptive_max_pool3d.out, adaptive_max_pool3d)
register_out(aten.max_unpool2d.out, max_unpool2d)
register_out(aten.max_unpool3d.out, max_unpool3d)
register_out(aten.fractional_max_pool2d.output, fractional_max_pool2d)
register_out(aten.fractional_max_pool3d.output, fractional_max_pool3d)
