"""Reference implementations of the windowed family: pad with the reduction's identity, unfold
every dim into its windows, reduce the window elements (flattened, row-major) in one last dim;
select_and_scatter_add adds at argmax_window's positions; im2col unfolds, col2im sums blocks back. The family's ``layout`` makes results contiguous."""
from __future__ import annotations

import math

import torch

from primkit.prims.dtypes import highest, lowest



def _positions(size, window, stride, low, high, dilation):
    """How many windows fit along one dim: the starts range() gives over the padded size (counted here,
    not with the meta rule's formula, so that the tests compare two computations)."""
    return len(range(0, size + low + high - (window - 1) * dilation, stride))


def _blocks(size, kernel_size, dilation, padding, stride):
    """Block positions (height, width) of im2col / col2im."""
    return tuple(_positions(n, k, s, p, p, d) for n, k, d, p, s in zip(size, kernel_size, dilation, padding, stride))


def _windows(a, fill, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """(*output shape, K): the K elements of each window in row-major window order."""
    dims = list(zip(a.shape, window_dimensions, window_strides, padding_low, padding_high, window_dilation))
    out_shape = [_positions(*d) for d in dims]
    count = math.prod(window_dimensions)
    if 0 in out_shape:     # no windows: their size need not be addressable (a window may exceed int64)
        return a.new_empty(out_shape + [min(count, 1)])
    padded = torch.full([n + lo + hi for n, _, _, lo, hi, _ in dims], fill, dtype=a.dtype, device=a.device)
    padded[tuple(slice(lo, lo + n) for n, _, _, lo, _, _ in dims)] = a
    w = padded
    for d, (_, size, stride, _, _, dilation) in enumerate(dims):
        # unfold appends the window dim last; keep every dilation-th element of the dilated extent.
        # One window: its stride moves nothing; a window of one element: its dilation spreads nothing
        # (either may be too large for the int64 arithmetic of unfold and slicing).
        extent = (size - 1) * dilation + 1
        w = w.unfold(d, extent, 1).narrow(d, 0, 1) if out_shape[d] == 1 else w.unfold(d, extent, stride)
        w = w[..., ::dilation] if size > 1 else w
    return w.reshape(out_shape + [count])


def _reducer(identity, reduce):
    def fn(a, *window_args):
        return reduce(_windows(a, identity(a.dtype), *window_args))
    return fn


reduce_window_max = _reducer(lowest, lambda w: torch.amax(w, -1))
reduce_window_min = _reducer(highest, lambda w: torch.amin(w, -1))
reduce_window_sum = _reducer(lambda dtype: 0, lambda w: torch.sum(w, -1, dtype=w.dtype))
reduce_window_prod = _reducer(lambda dtype: 1, lambda w: torch.prod(w, -1, dtype=w.dtype))


def argmax_window(a, *window_args):
    values = _windows(a, lowest(a.dtype), *window_args)
    # The flat position of each element of a; -1 marks padding.
    positions = _windows(torch.arange(a.numel(), device=a.device).reshape(a.shape), -1, *window_args)
    valid = positions >= 0
    nan = valid & values.isnan() if a.dtype.is_floating_point else torch.zeros_like(valid)
    best = torch.amax(torch.where(valid & ~nan, values, lowest(a.dtype)), -1, keepdim=True)
    # argmax of a bool-as-int tensor is its first True: eager's max-pool keeps the first maximum
    first_max = torch.argmax((valid & ~nan & (values == best)).to(torch.uint8), -1, keepdim=True)
    last_nan = nan.shape[-1] - 1 - torch.argmax(nan.flip(-1).to(torch.uint8), -1, keepdim=True)
    k = torch.where(nan.any(-1, keepdim=True), last_nan, first_max)
    index = torch.gather(positions, -1, k).squeeze(-1)
    return torch.where(valid.any(-1), index, -1)


def select_and_scatter_add(source, operand, *window_args):
    if operand.numel() == 0:    # every window lies wholly in padding: nothing is selected
        return torch.zeros(operand.shape, dtype=operand.dtype, device=operand.device)
    position = argmax_window(operand, *window_args)
    selected = position >= 0
    index = torch.where(selected, position, 0).reshape(-1)
    values = torch.where(selected, source, torch.zeros((), dtype=source.dtype, device=source.device)).reshape(-1)
    out = torch.zeros(operand.numel(), dtype=operand.dtype, device=operand.device)
    return out.index_add_(0, index, values).reshape(operand.shape)


def im2col(a, kernel_size, dilation, padding, stride):
    n, c, h, w = a.shape
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    oh, ow = _blocks((h, w), kernel_size, dilation, padding, stride)
    if 0 in (n, c, oh, ow):
        return a.new_zeros((n, c * kh * kw, oh * ow))
    padded = a.new_zeros((n, c, h + 2 * ph, w + 2 * pw))
    padded[:, :, ph:ph + h, pw:pw + w] = a
    # (n, c, oh, ow, kh, kw): each dim's windows, every dilation-th element of the dilated extent
    blocks = padded.unfold(2, (kh - 1) * dh + 1, sh)[..., ::dh].unfold(3, (kw - 1) * dw + 1, sw)[..., ::dw]
    return blocks.permute(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)


def col2im(a, output_size, kernel_size, dilation, padding, stride):
    n, c = a.shape[0], a.shape[1] // (kernel_size[0] * kernel_size[1])
    h, w = output_size
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    oh, ow = _blocks((h, w), kernel_size, dilation, padding, stride)
    padded = a.new_zeros((n, c, h + 2 * ph, w + 2 * pw))
    if 0 not in (oh, ow):
        cols = a.reshape(n, c, kh, kw, oh, ow)
        for i in range(kh):         # kernel position order: a fixed order of additions
            for j in range(kw):
                rows = slice(i * dh, i * dh + (oh - 1) * sh + 1, sh)
                padded[:, :, rows, j * dw:j * dw + (ow - 1) * sw + 1:sw] += cols[:, :, i, j]
    return padded[:, :, ph:ph + h, pw:pw + w]
