"""Padding: reflection, replication and circular padding (and their backwards) as index gathers.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, prepare, register_with_variants, to_dtype, upcast
from primkit.decompositions.nn.common import dense_in_order, is_channels_last_nd
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous


def output_layout(t, like):
    """Eager's pad/upsample/shuffle kernels: channels-last for a channels-last input, else contiguous."""
    if is_channels_last_nd(like) and t.dim() == like.dim():
        return dense_in_order(t, [0] + list(range(2, t.dim())) + [1])
    return contiguous(t)


def _index_pad(a, pad, n, mode_index, layout=None):
    """Pad the last n dims of a by gathering source indices: mode_index(i, low, size) gives, for the
    output positions i (int64 iota shifted by -low), the source index along that dim. ``layout``:
    the result's (default: eager's pad kernels', see output_layout)."""
    x = a
    for k in range(n):
        dim = a.dim() - 1 - k
        low, high = pad[2 * k], pad[2 * k + 1]
        size = a.shape[dim]
        length = size + low + high
        i = P.iota(length, start=-low, step=1, dtype=torch.int64, device=a.device)
        x = P.index_select(x, dim, mode_index(i, size))
    return layout(x) if layout is not None else output_layout(x, a)


def _reflect_index(i, size):
    last = prepare(size - 1, torch.int64, i.shape, i.device)
    j = P.abs(i)
    return P.sub(last, P.abs(P.sub(last, j)))


def _replicate_index(i, size):
    return P.clamp(i, prepare(0, torch.int64, i.shape, i.device), prepare(size - 1, torch.int64, i.shape, i.device))


def _circular_index(i, size):
    return P.remainder(i, prepare(size, torch.int64, i.shape, i.device))


def _check_pad_input(name, a, n, pad):
    if len(pad) != 2 * n:
        raise RuntimeError(f"{name}: padding size is expected to be {2 * n}, but got: {len(pad)}")
    batch_ok = a.dim() in (n + 1, n + 2) and all(s != 0 for s in a.shape[a.dim() - n - (a.dim() == n + 2) + 1:])
    if not batch_ok:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(a.shape)}")


def _reflection_pad(n):
    def fn(a, padding):
        name = f"reflection_pad{n}d"
        _check_pad_input(name, a, n, padding)
        for k in range(n):
            size = a.shape[a.dim() - 1 - k]
            low, high = padding[2 * k], padding[2 * k + 1]
            if low >= size or high >= size:
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                                   f"but got: padding ({low}, {high}) at dimension {a.dim() - 1 - k} of input "
                                   f"{list(a.shape)}")
        out = _index_pad(a, padding, n, _reflect_index)
        if any(s <= 0 for s in out.shape[a.dim() - n:]):
            raise RuntimeError(f"input (H: ...) is too small. Calculated output size is {list(out.shape)}")
        return out
    fn.__name__ = fn.__qualname__ = f"reflection_pad{n}d"
    return fn


def _replication_pad(n):
    def fn(a, padding):
        _check_pad_input(f"replication_pad{n}d", a, n, padding)
        for k in range(n):
            size = a.shape[a.dim() - 1 - k]
            if size + padding[2 * k] + padding[2 * k + 1] < 1:
                raise RuntimeError(f"input is too small: output size along dimension {a.dim() - 1 - k} would be "
                                   f"{size + padding[2 * k] + padding[2 * k + 1]}")
        return _index_pad(a, padding, n, _replicate_index)
    fn.__name__ = fn.__qualname__ = f"replication_pad{n}d"
    return fn


def _index_pad_backward(grad_output, a, pad, n, mode_index, name):
    """The transpose of _index_pad: each output element's gradient added at its source index, one
    padded dim at a time (the index map is separable), into zeros of the input's shape."""
    expected = list(a.shape[:a.dim() - n]) + [a.shape[a.dim() - 1 - k] + pad[2 * k] + pad[2 * k + 1]
                                              for k in reversed(range(n))]
    if list(grad_output.shape) != expected:
        raise RuntimeError(f"{name}: grad_output shape unexpected: expected {expected}, got {list(grad_output.shape)}")
    (g,), orig = upcast(grad_output)
    for k in range(n):
        dim = a.dim() - 1 - k
        size = a.shape[dim]
        i = P.iota(g.shape[dim], start=-pad[2 * k], step=1, dtype=torch.int64, device=a.device)
        zeros = P.full(list(g.shape[:dim]) + [size] + list(g.shape[dim + 1:]), 0, dtype=g.dtype, device=g.device)
        g = P.index_add(zeros, dim, mode_index(i, size), g)
    return output_layout(to_dtype(g, orig), a)


def _pad_backward(mode, n, mode_index):
    def fn(grad_output, a, padding):
        name = f"{mode}_pad{n}d_backward"
        _check_pad_input(name, a, n, padding)
        return _index_pad_backward(grad_output, a, padding, n, mode_index, name)
    fn.__name__ = fn.__qualname__ = f"{mode}_pad{n}d_backward"
    return fn


for _n in (1, 2, 3):
    register_with_variants(f"reflection_pad{_n}d", _reflection_pad(_n))
    register_with_variants(f"replication_pad{_n}d", _replication_pad(_n))
    register_with_variants(f"reflection_pad{_n}d_backward", _pad_backward("reflection", _n, _reflect_index))
    register_with_variants(f"replication_pad{_n}d_backward", _pad_backward("replication", _n, _replicate_index))


@register(aten._pad_circular.default)
def pad_circular(a, pad):
    n = len(pad) // 2
    if len(pad) % 2 or a.dim() < n + 1:
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor for circular padding of {n} dims, "
                           f"got {a.dim()}-D")
    for k in range(n):
        size = a.shape[a.dim() - 1 - k]
        if pad[2 * k] > size or pad[2 * k + 1] > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
    return _index_pad(a, pad, n, _circular_index, contiguous)   # eager's composite fills a contiguous tensor


@register(aten.pad.default)
def pad(a, pad, mode="constant", value=None):
    if mode == "constant":
        return aten.constant_pad_nd.default(a, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    n = len(pad) // 2
    if mode == "circular":
        return pad_circular(a, pad)
    if mode not in ("reflect", "replicate"):
        raise RuntimeError(f"Unrecognised padding mode {mode}")
    if len(pad) % 2 or not 1 <= n <= 3 or a.dim() not in (n + 1, n + 2):
        raise NotImplementedError(f"Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now; "
                                  f"got a {a.dim()}-D input and {len(pad)} padding values")
    op = getattr(aten, f"{'reflection' if mode == 'reflect' else 'replication'}_pad{n}d").default
    return op(a, pad)
