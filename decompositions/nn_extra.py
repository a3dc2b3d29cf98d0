"""Decompositions of more torch.nn.functional ops: activations (celu, selu, relu6, shrinks, prelu),
padding (reflection, replication, circular, the
``pad`` composite), pixel and channel shuffles, nearest and linear upsampling (antialiased
bilinear/bicubic too, with their backwards), losses and distances, and window functions.

Each builds on decompositions.nn's helpers: computation in float32 for float16/bfloat16, the
reduction modes, eager's output layouts (contiguous, or channels-last for a channels-last input).
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, elementwise, like, prepare, register_inplace, register_out, register_with_variants, round_to, to_dtype,
    upcast, wrap_dim)
from primkit.decompositions.nn import (
    MEAN, NONE, _activation, _pointwise_loss, _check_floating, contiguous, _dense_in_order, _elu, _i64,
    _is_channels_last_nd, _numel, _reduce, nll_loss, nll_loss_forward,
)
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import computation_dtype, result_type
from primkit.prims import dtypes as dt

# ----------------------------------------------------------------------------- activations

@register(aten.relu6.default)
def relu6(a):
    return aten.hardtanh.default(a, 0.0, 6.0)


register_inplace(aten.relu6_.default, relu6, "relu6_")


@register(aten._prelu_kernel.default)
def prelu_kernel(a, weight):
    return elementwise(lambda x, w: P.where(P.gt(x, like(x, 0)), x, P.mul(w, x)), a, weight)


@register(aten.prelu.default)
def prelu(a, weight):
    n = weight.numel()
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}")
    if a.dim() == 0 and n != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = a.shape[1] if a.dim() >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                           f"and channel size = {channels}.")
    if weight.dim() == 1 and a.dim() >= 2:     # one weight per channel (dim 1)
        weight = P.broadcast_in_dim(weight, [n] + [1] * (a.dim() - 2), [0])
    elif a.dim() == 0 and weight.dim() == 1:    # a 0-d input keeps its shape
        weight = P.reshape(weight, [])
    return prelu_kernel(a, weight)


# ----------------------------------------------------------------------------- padding


def _output_layout(t, like):
    """Eager's pad/upsample/shuffle kernels: channels-last for a channels-last input, else contiguous."""
    if _is_channels_last_nd(like) and t.dim() == like.dim():
        return _dense_in_order(t, [0] + list(range(2, t.dim())) + [1])
    return contiguous(t)


def _index_pad(a, pad, n, mode_index, layout=None):
    """Pad the last n dims of a by gathering source indices: mode_index(i, low, size) gives, for the
    output positions i (int64 iota shifted by -low), the source index along that dim. ``layout``:
    the result's (default: eager's pad kernels', see _output_layout)."""
    x = a
    for k in range(n):
        dim = a.dim() - 1 - k
        low, high = pad[2 * k], pad[2 * k + 1]
        size = a.shape[dim]
        length = size + low + high
        i = P.iota(length, start=-low, step=1, dtype=torch.int64, device=a.device)
        x = P.index_select(x, dim, mode_index(i, size))
    return layout(x) if layout is not None else _output_layout(x, a)


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
    return _output_layout(to_dtype(g, orig), a)


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


# ----------------------------------------------------------------------------- shuffles


def _shuffle(a, split, perm, merged):
    """reshape a to ``split``, permute by ``perm``, reshape to ``merged``, in eager's output layout."""
    y = P.reshape(P.permute(P.reshape(contiguous(a), split), perm), merged)
    return _output_layout(y, a)


@register(aten.pixel_shuffle.default)
def pixel_shuffle(a, upscale_factor):
    r = upscale_factor
    if a.dim() < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = a.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    nb = len(batch)
    split = [*batch, c // (r * r), r, r, h, w]
    perm = list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2]
    return _shuffle(a, split, perm, [*batch, c // (r * r), h * r, w * r])


@register(aten.pixel_unshuffle.default)
def pixel_unshuffle(a, downscale_factor):
    r = downscale_factor
    if a.dim() < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.dim()} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = a.shape
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width to be divisible by downscale_factor, but got "
                           f"height={h}, width={w}, downscale_factor={r}")
    nb = len(batch)
    split = [*batch, c, h // r, r, w // r, r]
    perm = list(range(nb)) + [nb, nb + 2, nb + 4, nb + 1, nb + 3]
    return _shuffle(a, split, perm, [*batch, c * r * r, h // r, w // r])


register_out(aten.pixel_shuffle.out, pixel_shuffle, "pixel_shuffle")
register_out(aten.pixel_unshuffle.out, pixel_unshuffle, "pixel_unshuffle")


def channel_shuffle(a, groups):
    if a.dim() <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{a.dim()} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *rest = a.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    split = [n, groups, c // groups, *rest]
    perm = [0, 2, 1] + list(range(3, len(split)))
    return _shuffle(a, split, perm, list(a.shape))


register(aten.channel_shuffle.default, aten.native_channel_shuffle.default)(channel_shuffle)
register_out(aten.channel_shuffle.out, channel_shuffle, "channel_shuffle")


# ----------------------------------------------------------------------------- upsampling


def _scale(in_size, out_size, scale, align_corners):
    """Eager's area_pixel_compute_scale: source step per output step."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else in_size / out_size


def _check_upsample(name, a, n, output_size):
    if len(output_size) != n:
        raise RuntimeError(f"It is expected output_size equals to {n}, but got size {len(output_size)}")
    if a.dim() != n + 2:
        raise RuntimeError(f"It is expected input_size equals to {n + 2}, but got size {a.dim()}")
    if any(s <= 0 for s in a.shape[2:]) or any(s <= 0 for s in output_size):
        raise RuntimeError(f"{name}: Input and output sizes should be greater than 0, but got input "
                           f"{list(a.shape[2:])} and output {list(output_size)}")


def _nearest(name, n, exact):
    def fn(a, output_size, *scales):
        _check_upsample(name, a, n, output_size)
        scales = list(scales) + [None] * (n - len(scales))
        x = a
        for k in range(n):
            dim = 2 + k
            in_size, out_size = a.shape[dim], output_size[k]
            # float32 arithmetic, as eager's nearest_idx computes it
            s = _scale(in_size, out_size, scales[k], False)
            i = P.iota(out_size, start=0, step=1, dtype=torch.float32, device=a.device)
            if exact:
                i = P.add(i, prepare(0.5, torch.float32, i.shape, a.device))
            src = P.convert_element_type(P.floor(P.mul(i, prepare(s, torch.float32, i.shape, a.device))), torch.int64)
            src = P.minimum(src, prepare(in_size - 1, torch.int64, src.shape, a.device))
            x = P.index_select(x, dim, src)
        return _output_layout(x, a)
    fn.__name__ = fn.__qualname__ = name
    return fn


LINEAR_MODES = {"upsample_linear1d": 1, "upsample_bilinear2d": 2, "upsample_trilinear3d": 3}


def _linear(name, n):
    def fn(a, output_size, align_corners, *scales):
        _check_upsample(name, a, n, output_size)
        scales = list(scales) + [None] * (n - len(scales))
        (x,), orig = upcast(a)
        acc = x.dtype
        for k in range(n):
            dim = 2 + k
            in_size, out_size = a.shape[dim], output_size[k]
            s = _scale(in_size, out_size, scales[k], align_corners)
            shape = [out_size]
            i = P.iota(out_size, start=0, step=1, dtype=acc, device=a.device)
            c = lambda v: prepare(v, acc, shape, a.device)   # noqa: E731
            if align_corners:
                src = P.mul(i, c(s))
            else:
                src = P.maximum(P.sub(P.mul(P.add(i, c(0.5)), c(s)), c(0.5)), c(0.0))
            i0 = P.convert_element_type(P.trunc(src), torch.int64)     # src >= 0
            i0 = P.minimum(i0, prepare(in_size - 1, torch.int64, shape, a.device))
            lam = P.sub(src, P.convert_element_type(i0, acc))
            step = P.convert_element_type(P.lt(i0, prepare(in_size - 1, torch.int64, shape, a.device)), torch.int64)
            i1 = P.add(i0, step)
            w_shape = [1] * x.dim()
            w_shape[dim] = out_size
            lam = P.broadcast_in_dim(lam, list(x.shape[:dim]) + [out_size] + list(x.shape[dim + 1:]), [dim])
            x0, x1 = P.index_select(x, dim, i0), P.index_select(x, dim, i1)
            x = P.add(P.mul(x0, P.sub(like(lam, 1.0), lam)), P.mul(x1, lam))
        return _output_layout(to_dtype(x, orig), a)
    fn.__name__ = fn.__qualname__ = name
    return fn


CUBIC_A = -0.75   # eager's cubic convolution coefficient


def _cubic_near(x, c, a):
    """The cubic convolution kernel for |x| <= 1: ((a + 2) x - (a + 3)) x x + 1."""
    return P.add(P.mul(P.mul(P.sub(P.mul(c(a + 2), x), c(a + 3)), x), x), c(1.0))


def _cubic_far(x, c, a):
    """The cubic convolution kernel for 1 < |x| < 2: ((a x - 5a) x + 8a) x - 4a."""
    inner = P.add(P.mul(P.sub(P.mul(c(a), x), c(5 * a)), x), c(8 * a))
    return P.sub(P.mul(inner, x), c(4 * a))


def _cubic_weights(t, c):
    """The four cubic-convolution weights of taps at offsets -1, 0, 1, 2 for fractions t."""
    u = P.sub(c(1.0), t)
    return [_cubic_far(P.add(t, c(1.0)), c, CUBIC_A), _cubic_near(t, c, CUBIC_A), _cubic_near(u, c, CUBIC_A),
            _cubic_far(P.add(u, c(1.0)), c, CUBIC_A)]


def upsample_bicubic2d(a, output_size, align_corners, scales_h=None, scales_w=None):
    """Each output pixel blends a 4x4 neighbourhood (taps clamped to the border) with cubic
    convolution weights: along the width first, then along the height, as eager's kernel nests them."""
    _check_upsample("upsample_bicubic2d", a, 2, output_size)
    (x,), orig = upcast(a)
    acc = x.dtype
    for k, scale in ((1, scales_w), (0, scales_h)):
        dim = 2 + k
        in_size, out_size = a.shape[dim], output_size[k]
        shape = [out_size]
        c = lambda v: prepare(v, acc, shape, a.device)   # noqa: E731
        i = P.iota(out_size, start=0, step=1, dtype=acc, device=a.device)
        s = _scale(in_size, out_size, scale, align_corners)
        src = P.mul(i, c(s)) if align_corners else P.sub(P.mul(P.add(i, c(0.5)), c(s)), c(0.5))  # may be < 0
        base = P.minimum(P.convert_element_type(P.floor(src), torch.int64),
                         prepare(in_size - 1, torch.int64, shape, a.device))
        t = P.clamp(P.sub(src, P.convert_element_type(base, acc)), c(0.0), c(1.0))
        out = None
        for offset, w in zip((-1, 0, 1, 2), _cubic_weights(t, c)):
            tap = P.clamp(P.add(base, prepare(offset, torch.int64, shape, a.device)),
                          prepare(0, torch.int64, shape, a.device), prepare(in_size - 1, torch.int64, shape, a.device))
            picked = P.index_select(x, dim, tap)
            term = P.mul(picked, P.broadcast_in_dim(w, list(picked.shape), [dim]))
            out = term if out is None else P.add(out, term)
        x = out
    return _output_layout(to_dtype(x, orig), a)


def _vec(base, n, linear):
    """The .vec overloads: output size from output_size or from scale_factors (floor(in * scale))."""
    def fn(a, output_size, *rest):
        if linear:
            align_corners, scale_factors = rest
        else:
            (scale_factors,) = rest
        if (output_size is None) == (scale_factors is None):
            raise RuntimeError("Must specify exactly one of output_size and scale_factors")
        given = "output_size" if output_size is not None else "scale_factors"
        if len(output_size if output_size is not None else scale_factors) != a.dim() - 2:
            raise RuntimeError(f"Expected static_cast<int64_t>({given}->size()) == spatial_dimensions to be true, "
                               f"but got false.")
        if output_size is None:
            output_size = [int(math.floor(a.shape[2 + k] * scale_factors[k])) for k in range(n)]
            scales = list(scale_factors)
        else:
            scales = [None] * n
        return base(a, list(output_size), *((align_corners,) if linear else ()), *scales)
    fn.__name__ = fn.__qualname__ = f"{base.__name__}_vec"
    return fn


def _register_upsample(name, base, n, linear):
    packet = getattr(aten, name)
    register(packet.default)(base)
    register_out(packet.out, base, name)
    vec = _vec(base, n, linear)
    register(packet.vec)(vec)
    if "vec_out" in packet.overloads():
        register_out(packet.vec_out, vec, name)


for _n in (1, 2, 3):
    _register_upsample(f"upsample_nearest{_n}d", _nearest(f"upsample_nearest{_n}d", _n, False), _n, False)
    _register_upsample(f"_upsample_nearest_exact{_n}d", _nearest(f"_upsample_nearest_exact{_n}d", _n, True), _n,
                       False)
for _name, _n in LINEAR_MODES.items():
    _register_upsample(_name, _linear(_name, _n), _n, True)
_register_upsample("upsample_bicubic2d", upsample_bicubic2d, 2, True)


# Antialiased resampling (F.interpolate(..., antialias=True)), eager's separable kernel
# (_compute_indices_min_size_weights_aa): output i along a dim reads the inputs xmin + j, j < xsize,
# around its centre scale * (i + 0.5), weighted by a filter normalized to sum 1; when downsampling
# (scale >= 1) the filter's support and argument are stretched by the scale, so each output averages
# every input it covers. align_corners only changes the scale. Eager computes the weights in the
# input's dtype (float32 or float64; it has no float16/bfloat16 kernel) with some steps in double,
# reproduced below term by term so the window bounds truncate as eager's do.


def _triangle(x, c):
    return P.where(P.lt(x, c(1.0)), P.sub(c(1.0), x), c(0.0))


def _keys_cubic(x, c):
    # a = -0.5 (Keys, as Pillow), not the -0.75 of the non-antialiased bicubic kernel
    return P.where(P.lt(x, c(1.0)), _cubic_near(x, c, -0.5),
                   P.where(P.lt(x, c(2.0)), _cubic_far(x, c, -0.5), c(0.0)))


AA_FILTERS = {
    # op: (filter of |x|, eager's interp_size: the filter's support is half of it, whether eager's
    # backward lays the gradient out channels-last for a channels-last grad_output: bicubic's is
    # always contiguous)
    "_upsample_bilinear2d_aa": (_triangle, 2, True),
    "_upsample_bicubic2d_aa": (_keys_cubic, 4, False),
}


def _aa_taps(name, in_size, out_size, scale, align_corners, dtype, device):
    """One dim's windows: (index, weights, inside), each [out_size, taps]. index is xmin + j clamped
    into the input, weights are 0 and inside is False past xsize (eager reads only xsize inputs)."""
    filter_fn, interp_size, _ = AA_FILTERS[name]
    s = round_to(_scale(in_size, out_size, scale, align_corners), dtype)
    support = interp_size / 2 * s if s >= 1.0 else interp_size / 2      # exact in float32
    taps = math.ceil(support) * 2 + 1
    invscale = round_to(1.0 / s, dtype) if s >= 1.0 else 1.0
    f64 = torch.float64
    rows, grid = [out_size], [out_size, taps]
    c = lambda v, shape=rows, d=dtype: prepare(v, d, shape, device)   # noqa: E731
    center = P.mul(c(s), P.add(P.iota(out_size, start=0, step=1, dtype=dtype, device=device), c(0.5)))

    def bound(edge):   # int64(double(centre -/+ support) + 0.5): truncation, as eager's cast
        return P.convert_element_type(P.trunc(P.add(to_dtype(edge, f64), c(0.5, d=f64))), torch.int64)
    xmin = P.maximum(bound(P.sub(center, c(support))), c(0, d=torch.int64))
    xmax = P.minimum(bound(P.add(center, c(support))), c(in_size, d=torch.int64))
    xsize = P.clamp(P.sub(xmax, xmin), c(0, d=torch.int64), c(taps, d=torch.int64))
    j = P.broadcast_in_dim(P.iota(taps, start=0, step=1, dtype=torch.int64, device=device), grid, [1])
    pos = P.add(P.broadcast_in_dim(xmin, grid, [0]), j)
    inside = P.lt(j, P.broadcast_in_dim(xsize, grid, [0]))
    # (xmin + j - centre) in dtype, then + 0.5 and * invscale in double, rounded once to dtype
    offset = P.sub(P.convert_element_type(pos, dtype), P.broadcast_in_dim(center, grid, [0]))
    arg = to_dtype(P.mul(P.add(to_dtype(offset, f64), c(0.5, grid, f64)), c(invscale, grid, f64)), dtype)
    w = P.where(inside, filter_fn(P.abs(arg), lambda v: c(v, grid)), c(0.0, grid))
    total = P.broadcast_in_dim(P.sum(w, [1]), grid, [0])
    w = P.where(P.ne(total, c(0.0, grid)), P.div(w, total), w)
    index = P.minimum(pos, c(in_size - 1, grid, torch.int64))
    return index, w, inside


def _spread(t, dim, shape):
    """t ([out, taps]) broadcast to shape, its dims at dim and dim + 1."""
    return P.broadcast_in_dim(t, shape, [dim, dim + 1])


def _aa_resample(x, dim, index, w, inside):
    """Along dim: each output the weighted sum of its window's inputs."""
    out_size, taps = index.shape
    lead, trail = list(x.shape[:dim]), list(x.shape[dim + 1:])
    shape = lead + [out_size, taps] + trail
    picked = P.reshape(P.index_select(x, dim, P.reshape(index, [out_size * taps])), shape)
    terms = P.where(_spread(inside, dim, shape), P.mul(picked, _spread(w, dim, shape)), like(picked, 0.0))
    return P.sum(terms, [dim + 1])


def _aa_resample_adjoint(g, dim, in_size, index, w, inside):
    """The transpose of _aa_resample: each output's gradient, weighted, added into its window."""
    out_size, taps = index.shape
    lead, trail = list(g.shape[:dim]), list(g.shape[dim + 1:])
    shape = lead + [out_size, taps] + trail
    spread = P.broadcast_in_dim(g, shape, [d for d in range(len(shape)) if d != dim + 1])
    terms = P.where(_spread(inside, dim, shape), P.mul(spread, _spread(w, dim, shape)), like(spread, 0.0))
    zeros = P.full(lead + [in_size] + trail, 0, dtype=g.dtype, device=g.device)
    terms = P.reshape(terms, lead + [out_size * taps] + trail)
    return P.index_add(zeros, dim, P.reshape(index, [out_size * taps]), terms)


def _check_aa_dtype(kernel, t):
    if t.dtype not in (torch.float32, torch.float64):
        # eager has no float16/bfloat16 kernel; its uint8 forward resamples in int16 fixed point,
        # which is not decomposed: refused here rather than computed another way
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.eager_name(t.dtype)}\'')


def _upsample_aa(name):
    def fn(a, output_size, align_corners, scales_h=None, scales_w=None):
        _check_upsample(name, a, 2, output_size)
        x = a
        # width first, then height, as eager; a dim of unchanged size is left as it is (even with a scale)
        for k, scale in ((1, scales_w), (0, scales_h)):
            dim, in_size, out_size = 2 + k, a.shape[2 + k], output_size[k]
            if in_size == out_size:
                continue
            _check_aa_dtype("compute_index_ranges_weights", a)
            x = _aa_resample(x, dim, *_aa_taps(name, in_size, out_size, scale, align_corners, a.dtype, a.device))
        return _output_layout(x, a)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _upsample_aa_backward(name):
    def fn(grad_output, output_size, input_size, align_corners, scales_h=None, scales_w=None):
        if len(output_size) != 2:
            raise RuntimeError(f"It is expected output_size equals to 2, but got size {len(output_size)}")
        if len(input_size) != 4:
            raise RuntimeError(f"It is expected input_size equals to 4, but got size {len(input_size)}")
        if any(s <= 0 for s in input_size[2:]) or any(s <= 0 for s in output_size):
            raise RuntimeError(f"Input and output sizes should be greater than 0, but got input (H: {input_size[2]}, "
                               f"W: {input_size[3]}) output (H: {output_size[0]}, W: {output_size[1]})")
        if grad_output.dim() != 4:
            raise RuntimeError(f"Expected grad_output to be a tensor of dimension 4 but got: dimension "
                               f"{grad_output.dim()}")
        expected = list(input_size[:2]) + list(output_size)
        for i in range(4):
            if grad_output.shape[i] != expected[i]:
                raise RuntimeError(f"Expected grad_output to have the same shape as output; output.size({i}) = "
                                   f"{expected[i]} but got grad_output.size({i}) = {grad_output.shape[i]}")
        _check_aa_dtype(f"{name[1:]}_backward_cpu", grad_output)
        g = grad_output
        # eager's backward weights every dim, an unchanged one too (no shortcut as in the forward)
        for k, scale in ((1, scales_w), (0, scales_h)):
            dim, in_size, out_size = 2 + k, input_size[2 + k], output_size[k]
            g = _aa_resample_adjoint(g, dim, in_size, *_aa_taps(name, in_size, out_size, scale, align_corners,
                                                                g.dtype, g.device))
        return _output_layout(g, grad_output) if AA_FILTERS[name][2] else contiguous(g)
    fn.__name__ = fn.__qualname__ = f"{name}_backward"
    return fn


for _name in AA_FILTERS:
    _packet = getattr(aten, _name)
    _base = _upsample_aa(_name)
    register(_packet.default)(_base)
    register_out(_packet.out, _base)
    register(_packet.vec)(_vec(_base, 2, True))
    _backward = _upsample_aa_backward(_name)
    register(getattr(aten, f"{_name}_backward").default)(_backward)
    register_out(getattr(aten, f"{_name}_backward").grad_input, _backward)


# ----------------------------------------------------------------------------- sampling grids
# grid_sampler_2d/3d read the input at the points a grid gives in [-1, 1] coordinates; the helpers
# follow eager's CPU kernels (unnormalize, then clip or reflect for the padding mode). Eager's 2-d
# kernel is vectorized (GridSamplerKernel.cpp), its 3-d kernel scalar (GridSampler.h): the two
# round the unnormalization and the reflection differently, so each helper takes `scalar`.

BILINEAR, NEAREST, BICUBIC = 0, 1, 2
ZEROS, BORDER, REFLECTION = 0, 1, 2


def _unnormalize(g, size, align_corners, c, scalar=False):
    """[-1, 1] -> pixel coordinates: -1 and 1 are the corner pixels' centres (align_corners) or edges."""
    if scalar:
        if align_corners:
            return P.mul(P.div(P.add(g, c(1.0)), c(2.0)), c(float(size - 1)))
        return P.div(P.sub(P.mul(P.add(g, c(1.0)), c(float(size))), c(1.0)), c(2.0))
    if align_corners:
        return P.mul(P.add(g, c(1.0)), c((size - 1) / 2))
    return P.sub(P.mul(P.add(g, c(1.0)), c(size / 2)), c(0.5))


def _clip(x, size, c):
    return P.minimum(c(size - 1), P.maximum(x, c(0.0)))


def _reflect(x, size, align_corners, c, scalar=False):
    """x reflected into the span [low, low + span] (the pixels' centres, or edges)."""
    low, span = (0.0, float(size - 1)) if align_corners else (-0.5, float(size))
    if span <= 0:   # a single pixel with align_corners
        return c(0.0)
    distance = P.abs(P.sub(x, c(low)))
    if scalar:      # fmod by the span, mirrored on odd flips
        extra = P.fmod(distance, c(span))
        even = P.eq(P.fmod(P.floor(P.div(distance, c(span))), c(2.0)), c(0.0))
        return P.where(even, P.add(extra, c(low)), P.add(P.sub(c(span), extra), c(low)))
    twice_span = 2.0 * span   # fold within twice the span
    extra = P.sub(distance, P.mul(P.trunc(P.div(distance, c(twice_span))), c(twice_span)))
    return P.add(P.minimum(extra, P.sub(c(twice_span), extra)), c(low))


def _pad_coordinates(x, size, padding_mode, align_corners, c, scalar=False):
    if padding_mode == BORDER:
        return _clip(x, size, c)
    if padding_mode == REFLECTION:
        return _clip(_reflect(x, size, align_corners, c, scalar), size, c)
    return x


def _check_grid_sampler(a, grid, n):
    if a.dim() != n + 2 or grid.dim() != n + 2:
        raise RuntimeError(f"grid_sampler(): expected {n + 2}D input and grid, but got input with sizes "
                           f"{list(a.shape)} and grid with sizes {list(grid.shape)}")
    if a.shape[0] != grid.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, but got input with "
                           f"sizes {list(a.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != n:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {n} in last dimension, but got grid with "
                           f"sizes {list(grid.shape)}")
    if a.dtype != grid.dtype:
        raise RuntimeError(f"expected scalar type {dt.short(a.dtype)} but found {dt.short(grid.dtype)}")
    for d in range(2, a.dim()):
        if a.shape[d] <= 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                               f"sizes {list(a.shape)} with dimension {d} being empty")


class _GridPoints:
    """The grid's points of an (N, C, *spatial) input: their coordinates (x first, as the grid orders
    them, x along the last dim), constants shaped like them, and the input read at them."""

    def __init__(self, a, grid):
        self.a, self.sizes = a, list(a.shape[2:])
        self.points = list(grid.shape[:-1])
        k = len(self.sizes)
        self.out_shape = [a.shape[0], a.shape[1]] + self.points[1:]
        self.coords = [P.reshape(P.slice(grid, [0] * (k + 1) + [j], self.points + [j + 1], [1] * (k + 2)), self.points)
                       for j in range(k)]

    def c(self, v):
        return prepare(v, self.a.dtype, self.points, self.a.device)

    def value(self, coords):
        """input[n, :, ..., y, x] at integer-valued float coordinates (x first); 0 outside the input."""
        n, channels = self.a.shape[:2]
        inside, flat = None, _i64(0, self.points, self.a.device)
        for coord, size in zip(reversed(coords), self.sizes):
            within = P.logical_and(P.gt(coord, self.c(-1.0)), P.lt(coord, self.c(size)))
            inside = within if inside is None else P.logical_and(inside, within)
            flat = P.add(P.mul(flat, _i64(size, self.points, self.a.device)), to_dtype(coord, torch.int64))
        flat = P.where(inside, flat, _i64(0, self.points, self.a.device))
        count = _numel(self.points[1:])
        planes = P.reshape(self.a, [n, channels, _numel(self.sizes)])
        index = P.broadcast_in_dim(P.reshape(flat, [n, count]), [n, channels, count], [0, 2])
        picked = P.reshape(P.gather(planes, 2, index), self.out_shape)
        return P.where(self.spread(inside), picked, like(picked, 0.0))

    def spread(self, t):
        """A per-point tensor broadcast over the channels."""
        return P.broadcast_in_dim(t, self.out_shape, [0] + list(range(2, len(self.out_shape))))

    def weighted(self, v, w):
        return P.mul(v, self.spread(w))


@register(aten.grid_sampler_2d.default)
def grid_sampler_2d(a, grid, interpolation_mode, padding_mode, align_corners):
    _check_grid_sampler(a, grid, 2)
    if interpolation_mode not in (BILINEAR, NEAREST, BICUBIC) or padding_mode not in (ZEROS, BORDER, REFLECTION):
        raise RuntimeError(f"grid_sampler_2d: unknown interpolation_mode {interpolation_mode} or padding_mode "
                           f"{padding_mode}")
    # Eager's kernel computes in the input's dtype (float16/bfloat16 round after every step, which
    # moves sampling points by their rounding): so do the prims here.
    pts = _GridPoints(a, grid)
    c, value, weighted = pts.c, pts.value, pts.weighted
    height, width = pts.sizes
    gx, gy = pts.coords
    if interpolation_mode == BICUBIC:
        ux, uy = _unnormalize(gx, width, align_corners, c), _unnormalize(gy, height, align_corners, c)
        fx, fy = P.floor(ux), P.floor(uy)
        wx, wy = _cubic_weights(P.sub(ux, fx), c), _cubic_weights(P.sub(uy, fy), c)

        def tap(dx, dy):   # with the padding mode applied to the tap's own coordinates
            return value([_pad_coordinates(P.add(fx, c(float(dx))), width, padding_mode, align_corners, c),
                          _pad_coordinates(P.add(fy, c(float(dy))), height, padding_mode, align_corners, c)])
        out = None
        for wyi, dy in zip(wy, (-1, 0, 1, 2)):
            row = None
            for wxj, dx in zip(wx, (-1, 0, 1, 2)):
                term = weighted(tap(dx, dy), wxj)
                row = term if row is None else P.add(row, term)
            out = weighted(row, wyi) if out is None else P.add(out, weighted(row, wyi))
        return contiguous(to_dtype(out, a.dtype))
    px = _pad_coordinates(_unnormalize(gx, width, align_corners, c), width, padding_mode, align_corners, c)
    py = _pad_coordinates(_unnormalize(gy, height, align_corners, c), height, padding_mode, align_corners, c)
    if interpolation_mode == NEAREST:
        return contiguous(to_dtype(value([P.round(px), P.round(py)]), a.dtype))
    west, north = P.floor(px), P.floor(py)
    w, nn = P.sub(px, west), P.sub(py, north)
    e, s = P.sub(c(1.0), w), P.sub(c(1.0), nn)
    east, south = P.add(west, c(1.0)), P.add(north, c(1.0))
    out = weighted(value([west, north]), P.mul(s, e))
    for v, weight in ((value([east, north]), P.mul(s, w)), (value([west, south]), P.mul(nn, e)),
                      (value([east, south]), P.mul(nn, w))):
        out = P.add(out, weighted(v, weight))
    return contiguous(to_dtype(out, a.dtype))   # eager's kernel writes a contiguous result


register_out(aten.grid_sampler_2d.out, grid_sampler_2d)


@register(aten.grid_sampler_3d.default)
def grid_sampler_3d(a, grid, interpolation_mode, padding_mode, align_corners):
    """Trilinear or nearest sampling of a 5-d input, in the input's dtype as eager's scalar kernel."""
    _check_grid_sampler(a, grid, 3)
    if interpolation_mode == BICUBIC:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if interpolation_mode not in (BILINEAR, NEAREST) or padding_mode not in (ZEROS, BORDER, REFLECTION):
        raise RuntimeError(f"grid_sampler_3d: unknown interpolation_mode {interpolation_mode} or padding_mode "
                           f"{padding_mode}")
    pts = _GridPoints(a, grid)
    c = pts.c
    p = [_pad_coordinates(_unnormalize(g, size, align_corners, c, scalar=True), size, padding_mode, align_corners,
                          c, scalar=True)
         for g, size in zip(pts.coords, reversed(pts.sizes))]
    if interpolation_mode == NEAREST:
        return contiguous(to_dtype(pts.value([P.round(x) for x in p]), a.dtype))
    low = [P.floor(x) for x in p]
    high = [P.add(x, c(1.0)) for x in low]
    out = None
    # eager's corner order (tnw, tne, tsw, tse, bnw, ...: x fastest); a corner's weight is the
    # product, x then y then z, of its distances to the opposite corner
    for corner in range(8):
        picks = [(corner >> j) & 1 for j in range(3)]
        weight = None
        for x, lo, hi, pick in zip(p, low, high, picks):
            d = P.sub(x, lo) if pick else P.sub(hi, x)
            weight = d if weight is None else P.mul(weight, d)
        term = pts.weighted(pts.value([hi if pick else lo for lo, hi, pick in zip(low, high, picks)]), weight)
        out = term if out is None else P.add(out, term)
    return contiguous(to_dtype(out, a.dtype))


register_out(aten.grid_sampler_3d.out, grid_sampler_3d)


@register(aten.grid_sampler.default)
def grid_sampler(a, grid, interpolation_mode, padding_mode, align_corners):
    if a.dim() == 4:
        return grid_sampler_2d(a, grid, interpolation_mode, padding_mode, align_corners)
    return grid_sampler_3d(a, grid, interpolation_mode, padding_mode, align_corners)


def _linspace_from_neg_one(theta, steps, align_corners):
    """The grid's coordinates along one dim: -1 .. 1 (pixel centres at the edges' 1 / steps inside)."""
    if steps <= 1:
        return P.full([1], 0, dtype=theta.dtype, device=theta.device)
    line = aten.linspace.default(-1, 1, steps, dtype=theta.dtype, device=theta.device)
    if not align_corners:   # two steps, each rounded, as eager's range * (steps - 1) / steps
        line = P.div(P.mul(line, like(line, steps - 1)), like(line, steps))
    return line


@register(aten.affine_grid_generator.default)
def affine_grid_generator(theta, size, align_corners):
    """theta (N, k, k + 1) applied to the base grid (x, y[, z], 1) of every output pixel."""
    if len(size) not in (4, 5):
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    k = len(size) - 2
    n, spatial = size[0], list(size[2:])          # (H, W) or (D, H, W)
    if theta.dim() != 3 or list(theta.shape) != [n, k, k + 1]:
        raise RuntimeError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for size {list(size)}. "
                           f"Got {list(theta.shape)}.")
    columns = []
    for d in reversed(range(k)):                   # x runs along the last dim, then y, then z
        columns.append(P.broadcast_in_dim(_linspace_from_neg_one(theta, spatial[d], align_corners), spatial + [1],
                                          [d]))
    columns.append(P.full(spatial + [1], 1, dtype=theta.dtype, device=theta.device))
    base = P.broadcast_in_dim(P.cat(columns, k), [n] + spatial + [k + 1], list(range(1, k + 2)))
    grid = P.matmul(P.reshape(base, [n, _numel(spatial), k + 1]), P.permute(theta, [0, 2, 1]))
    return P.reshape(grid, [n] + spatial + [k])


register_out(aten.affine_grid_generator.out, affine_grid_generator)


# ----------------------------------------------------------------------------- losses


def _huber(x, y, c, delta=1.0):
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta, got {delta}")
    z = P.abs(P.sub(x, y))
    return P.where(P.lt(z, c(delta)), P.mul(c(0.5), P.mul(z, z)), P.mul(c(delta), P.sub(z, c(0.5 * delta))))


def _smooth_l1(x, y, c, beta=1.0):
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss does not support negative values for beta, got {beta}")
    z = P.abs(P.sub(x, y))
    if beta == 0:
        return z
    return P.where(P.lt(z, c(beta)), P.div(P.mul(c(0.5), P.mul(z, z)), c(beta)), P.sub(z, c(0.5 * beta)))


def _soft_margin(x, y, c):
    return P.log1p(P.exp(P.mul(P.neg(x), y)))


def _check_same_size(name, a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{name}: target size ({list(b.shape)}) must be the same as input size ({list(a.shape)})")


def _sized(name, loss):
    def fn(a, b, *args, **kwargs):
        _check_same_size(name, a, b)
        return loss(a, b, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


huber_loss = _pointwise_loss("huber_loss", _huber)
smooth_l1_loss = _pointwise_loss("smooth_l1_loss", _smooth_l1)
soft_margin_loss = _pointwise_loss("soft_margin_loss", _soft_margin)
register_with_variants("huber_loss", huber_loss)
register_with_variants("smooth_l1_loss", smooth_l1_loss)
register_with_variants("soft_margin_loss", soft_margin_loss)


def _pointwise_loss_backward(name, math_fn):
    """grad_input of loss(input, target, reduction, *params): eager's formula ``math_fn(g, x, y, c,
    norm, *params)`` with norm = 1 / numel under mean, else 1; contiguous, as eager's kernels write it."""
    def backward(grad_output, a, b, reduction, *params):
        count = _numel(a.shape)
        norm = (1.0 / count if count else math.inf) if reduction == MEAN else 1.0   # eager's 1. / numel
        out = elementwise(lambda g, x, y: math_fn(g, x, y, lambda v: like(x, v), norm, *params), grad_output, a, b)
        return contiguous(out)
    backward.__name__ = backward.__qualname__ = f"{name}_backward"
    return backward


def _huber_backward(g, x, y, c, norm, delta):
    z = P.sub(x, y)
    return P.where(P.le(z, c(-delta)), P.mul(P.mul(c(-norm), g), c(delta)),
                   P.where(P.ge(z, c(delta)), P.mul(P.mul(c(norm), g), c(delta)), P.mul(P.mul(c(norm), z), g)))


def _smooth_l1_backward(g, x, y, c, norm, beta):
    """With beta = 0 the middle is empty: l1's gradient, -norm * g at x == y as in eager."""
    z = P.sub(x, y)
    middle = P.div(P.mul(P.mul(c(norm), z), g), c(beta)) if beta else c(0.0)
    return P.where(P.le(z, c(-beta)), P.mul(c(-norm), g), P.where(P.ge(z, c(beta)), P.mul(c(norm), g), middle))


def _soft_margin_backward(g, x, y, c, norm):
    """d/dx log1p(exp(-y x)) = -y z / (1 + z) with z = exp(-y x), in eager's order of operations."""
    z = P.exp(P.mul(P.neg(y), x))
    return P.mul(P.div(P.mul(P.mul(y, z), c(-norm)), P.add(z, c(1.0))), g)


for _name, _math in (("huber_loss", _huber_backward), ("smooth_l1_loss", _smooth_l1_backward),
                     ("soft_margin_loss", _soft_margin_backward)):
    register_with_variants(f"{_name}_backward", _pointwise_loss_backward(_name, _math))


def binary_cross_entropy(a, target, weight=None, reduction=MEAN):
    _check_same_size("binary_cross_entropy", a, target)
    _check_floating("binary_cross_entropy", a)
    (x, t), orig = upcast(a, to_dtype(target, a.dtype))
    c = lambda v: like(x, v)   # noqa: E731
    # eager clamps each log at -100 so that 0 * log(0) stays finite; at log(0) itself the clamp is
    # taken by where (the log reads 1 there), so the derivative of the graph is finite too (the
    # clamp's zero times log's 1/0 would be nan)
    def clamped(finite, log):
        return P.where(finite, P.maximum(log, c(-100.0)), c(-100.0))
    inside, below_one = P.logical_not(P.le(x, c(0.0))), P.logical_not(P.ge(x, c(1.0)))   # nan stays nan
    log_x = clamped(inside, P.log(P.where(inside, x, c(1.0))))
    log_1mx = clamped(below_one, P.log1p(P.neg(P.where(below_one, x, c(0.0)))))
    # input-derived operands first: eager's result takes the input's layout
    loss = P.neg(P.add(P.mul(log_x, t), P.mul(log_1mx, P.sub(c(1.0), t))))
    if weight is not None:
        loss = P.mul(loss, prepare(weight, x.dtype, x.shape, x.device))
    return to_dtype(_reduce(loss, reduction), orig)


register_with_variants("binary_cross_entropy", binary_cross_entropy)


@register(aten.kl_div.default)
def kl_div(a, target, reduction=MEAN, log_target=False):
    if log_target:
        pointwise = elementwise(lambda x, t: P.mul(P.exp(t), P.sub(t, x)), a, target)
    else:
        pointwise = elementwise(lambda x, t: P.sub(P.xlogy(t, t), P.mul(t, x)), a, target)
    (x,), orig = upcast(pointwise)
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.poisson_nll_loss.default)
def poisson_nll_loss(a, target, log_input, full, eps, reduction):
    def math_fn(x, t):
        c = lambda v: like(x, v)   # noqa: E731
        loss = P.sub(P.exp(x), P.mul(t, x)) if log_input else P.sub(x, P.mul(t, P.log(P.add(x, c(eps)))))
        if full:
            stirling = P.add(P.sub(P.mul(t, P.log(t)), t), P.mul(c(0.5), P.log(P.mul(c(2 * math.pi), t))))
            loss = P.add(loss, P.where(P.gt(t, c(1.0)), stirling, c(0.0)))
        return loss
    (x,), orig = upcast(elementwise(math_fn, a, target))
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.hinge_embedding_loss.default)
def hinge_embedding_loss(a, target, margin=1.0, reduction=MEAN):
    def math_fn(x, t):
        c = lambda v: like(x, v)   # noqa: E731
        margin_part = P.where(P.ne(t, c(1.0)), P.maximum(P.sub(c(margin), x), c(0.0)), c(0.0))
        return P.add(margin_part, P.where(P.ne(t, c(-1.0)), x, c(0.0)))
    (x,), orig = upcast(elementwise(math_fn, a, target))
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.margin_ranking_loss.default)
def margin_ranking_loss(a, b, target, margin=0.0, reduction=MEAN):
    if not (a.dim() == b.dim() == target.dim()):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {list(a.shape)}, input2: {list(b.shape)}, target: {list(target.shape)} ")

    def math_fn(x1, x2, t):
        c = lambda v: like(x1, v)   # noqa: E731
        return P.maximum(P.add(P.mul(P.neg(t), P.sub(x1, x2)), c(margin)), c(0.0))
    (x,), orig = upcast(elementwise(math_fn, a, b, target))
    return to_dtype(_reduce(x, reduction), orig)


COSINE_EMBEDDING_EPS = 1e-12


@register(aten.cosine_embedding_loss.default)
def cosine_embedding_loss(a, b, target, margin=0.0, reduction=MEAN):
    if a.dim() != b.dim():
        raise RuntimeError(f"cosine_embedding_loss: input1 and input2 must have the same number of dimensions, got "
                           f"{a.dim()} and {b.dim()}")
    if target.dim() != a.dim() - 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(a.shape)} and {list(b.shape)}." if target.dim() == 0 else
                           f"{target.dim()}D target tensor expects {target.dim() + 1}D input tensors, but found "
                           f"inputs with sizes {list(a.shape)} and {list(b.shape)}.")
    dim = a.dim() - 1
    dtype = result_type(a, b)
    compute = computation_dtype(dtype)
    x1, x2 = to_dtype(a, compute), to_dtype(b, compute)
    prod = P.sum(P.mul(x1, x2), [dim])
    mag1 = P.add(P.sum(P.mul(x1, x1), [dim]), like(prod, COSINE_EMBEDDING_EPS))
    mag2 = P.add(P.sum(P.mul(x2, x2), [dim]), like(prod, COSINE_EMBEDDING_EPS))
    cos = P.div(prod, P.sqrt(P.mul(mag1, mag2)))
    t = prepare(target, compute, cos.shape, cos.device)
    c = lambda v: like(cos, v)   # noqa: E731
    pos = P.where(P.eq(t, c(1.0)), P.sub(c(1.0), cos), c(0.0))
    neg = P.where(P.eq(t, c(-1.0)), P.maximum(P.sub(cos, c(margin)), c(0.0)), c(0.0))
    return to_dtype(_reduce(P.add(pos, neg), reduction), dtype)


# ----------------------------------------------------------------------------- distances


@register(aten.pairwise_distance.default)
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    ndim = max(x1.dim(), x2.dim())
    diff = aten.add.Tensor(aten.sub.Tensor(x1, x2), eps)
    if ndim == 0:
        return aten.linalg_vector_norm.default(diff, p, [], keepdim)
    return aten.linalg_vector_norm.default(diff, p, [ndim - 1], keepdim)


@register(aten.cosine_similarity.default)
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    dtype = result_type(x1, x2)
    if dtype not in dt.FLOAT:
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is {dt.short(dtype)}")
    ndim = max(x1.dim(), x2.dim())
    dim = wrap_dim(dim, ndim)
    a, b = aten.broadcast_tensors.default([to_dtype(x1, dtype), to_dtype(x2, dtype)])

    def normalized(t):
        norm = aten.linalg_vector_norm.default(t, 2, [dim], True)
        return aten.div.Tensor(t, aten.clamp_min.default(norm, eps))
    return aten.sum.dim_IntList(aten.mul.Tensor(normalized(a), normalized(b)), [dim])


@register(aten.triplet_margin_loss.default)
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=MEAN):
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = aten.minimum.default(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = aten.clamp_min.default(aten.add.Tensor(aten.sub.Tensor(d_pos, d_neg), margin), 0)
    (x,), orig = upcast(loss)
    return to_dtype(_reduce(x, reduction), orig)


def dist(a, b, p=2):
    return aten.linalg_vector_norm.default(aten.sub.Tensor(a, b), p)


register_with_variants("dist", dist)


@register(aten._cdist_forward.default)
def cdist_forward(x1, x2, p, compute_mode=None):
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D" if x1.dim() < 2 else
                           f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    _check_floating("cdist", x1)
    diff = aten.sub.Tensor(aten.unsqueeze.default(x1, -2), aten.unsqueeze.default(x2, -3))
    return aten.linalg_vector_norm.default(diff, p, [-1])


@register(aten.cdist.default)
def cdist(x1, x2, p=2.0, compute_mode=None):
    return cdist_forward(x1, x2, p, compute_mode)


register_out(aten._cdist_forward.out, cdist_forward, "_cdist_forward")


@register(aten.nll_loss2d.default)
def nll_loss2d(a, target, weight=None, reduction=MEAN, ignore_index=-100):
    if a.dim() != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{a.dim()}")
    return nll_loss(a, target, weight, reduction, ignore_index)


register_out(aten.nll_loss2d_forward.output, nll_loss_forward, "nll_loss2d_forward")


register_out(aten.nll_loss2d.out, nll_loss2d, "nll_loss2d")


@register(aten._pdist_forward.default)
def pdist_forward(a, p=2.0):
    """The p-norm distance of every pair of rows i < j, in row-major order of the pairs."""
    if not a.is_contiguous():
        raise RuntimeError("_pdist_forward requires contiguous input")
    return _pdist(a, p)


@register(aten.pdist.default)
def pdist(a, p=2.0):
    return _pdist(contiguous(a), p)


def _pdist(a, p):
    if a.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.dim()}D")
    if a.dtype not in dt.FLOAT:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = a.shape[0]
    if n < 2:
        return P.full([0], 0, dtype=a.dtype, device=a.device)
    # Row r pairs with rows r + 1 .. n - 1.
    first = P.cat([P.full([n - 1 - r], r, dtype=torch.int64, device=a.device) for r in range(n - 1)], 0)
    second = P.cat([P.iota(n - 1 - r, start=r + 1, step=1, dtype=torch.int64, device=a.device)
                    for r in range(n - 1)], 0)
    diff = aten.sub.Tensor(P.index_select(a, 0, first), P.index_select(a, 0, second))
    return aten.linalg_vector_norm.default(diff, p, [1])


register_out(aten._pdist_forward.out, pdist_forward)


def _multi_margin_shape(a, target, weight):
    """(frames, classes), with eager's checks."""
    nd = a.dim()
    if not ((nd == 2 and a.shape[1] != 0) or (nd == 1 and a.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(a.shape)}")
    frames, classes = (a.shape[0], a.shape[1]) if nd == 2 else (1, a.shape[0] if nd == 1 else 1)
    if target.dim() > 1 or _numel(target.shape) != frames:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{frames}], but got {list(target.shape)}.")
    if weight is not None and (weight.dim() > 1 or _numel(weight.shape) != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    return frames, classes


def _frame_losses(per_frame, batched, reduction):
    """Eager's reduction of per-frame losses: the vector for reduction='none' with a batch of targets
    (``batched``), else their sum (mean) as a 0-d tensor."""
    if reduction == NONE and batched:
        return per_frame
    if reduction not in (0, 1, 2):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    total = P.sum(per_frame, [0])
    return P.div(total, like(total, per_frame.shape[0])) if reduction == MEAN else total


@register(aten.multi_margin_loss.default)
def multi_margin_loss(a, target, p=1, margin=1, weight=None, reduction=MEAN):
    """sum over classes i != y of max(0, margin - x[y] + x[i])^p * w[y], over the class count."""
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    frames, classes = _multi_margin_shape(a, target, weight)
    _check_floating("multi_margin_loss", a)
    (x,), orig = upcast(P.reshape(a, [frames, classes]))
    t = P.reshape(to_dtype(target, torch.int64), [frames, 1])
    c = lambda v: like(x, v)   # noqa: E731
    z = P.add(P.sub(c(margin), P.broadcast_in_dim(P.gather(x, 1, t), [frames, classes], [0, 1])), x)
    h = P.where(P.gt(z, c(0)), z if p == 1 else P.mul(z, z), c(0))
    if weight is not None:
        w = P.index_select(to_dtype(P.reshape(weight, [classes]), x.dtype), 0, P.reshape(t, [frames]))
        h = P.mul(h, P.broadcast_in_dim(w, [frames, classes], [0]))
    classes_iota = P.broadcast_in_dim(P.iota(classes, start=0, step=1, dtype=torch.int64, device=a.device),
                                      [frames, classes], [1])
    h = P.where(P.eq(classes_iota, P.broadcast_in_dim(t, [frames, classes], [0, 1])), c(0), h)   # i == y
    per_frame = P.div(P.sum(h, [1]), like(P.sum(h, [1]), classes))
    return to_dtype(_frame_losses(per_frame, target.dim() > 0, reduction), orig)


register_out(aten.multi_margin_loss.out, multi_margin_loss)


@register(aten.multilabel_margin_loss_forward.default)
def multilabel_margin_loss_forward(a, target, reduction):
    """(loss, is_target): each row of target lists classes up to its first -1; the loss sums
    max(0, 1 - x[j] + x[i]) over listed j and unlisted i, over the class count."""
    nd = a.dim()
    if not ((nd == 2 and a.shape[1] != 0) or (nd == 1 and a.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(a.shape)}")
    frames, classes = (a.shape[0], a.shape[1]) if nd == 2 else (1, a.shape[0] if nd == 1 else 1)
    ok = (target.dim() <= 1 and _numel(target.shape) == classes) if nd <= 1 else \
        (target.dim() == 2 and list(target.shape) == [frames, classes])
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(a.shape)}")
    _check_floating("multilabel_margin_loss", a)
    (x,), orig = upcast(P.reshape(a, [frames, classes]))
    t = P.reshape(to_dtype(target, torch.int64), [frames, classes])
    shape = [frames, classes]
    listed = P.eq(P.cumsum(to_dtype(P.lt(t, _i64(0, shape, a.device)), torch.int64), 1), _i64(0, shape, a.device))
    safe = P.where(listed, t, _i64(0, shape, a.device))
    hits = P.scatter_add(P.full(shape, 0, dtype=x.dtype, device=a.device), 1, safe, to_dtype(listed, x.dtype))
    is_target = P.gt(hits, like(hits, 0))
    # z[n, k, i] = 1 - x[n, target[n, k]] + x[n, i], kept where k is listed and i is not.
    cube = [frames, classes, classes]
    z = P.add(P.sub(P.full(cube, 1, dtype=x.dtype, device=a.device), P.broadcast_in_dim(P.gather(x, 1, safe), cube,
                                                                                         [0, 1])),
              P.broadcast_in_dim(x, cube, [0, 2]))
    keep = P.logical_and(P.broadcast_in_dim(listed, cube, [0, 1]),
                         P.logical_not(P.broadcast_in_dim(is_target, cube, [0, 2])))
    terms = P.where(P.logical_and(keep, P.gt(z, P.full(cube, 0, dtype=x.dtype, device=a.device))), z,
                    P.full(cube, 0, dtype=x.dtype, device=a.device))
    per_frame = P.sum(terms, [1, 2])
    per_frame = P.div(per_frame, like(per_frame, classes))
    loss = _frame_losses(per_frame, target.dim() > 1, reduction)
    return to_dtype(loss, orig), P.reshape(to_dtype(is_target, a.dtype), list(target.shape))


register_out(aten.multilabel_margin_loss_forward.output, multilabel_margin_loss_forward)


@register(aten.multilabel_margin_loss.default)
def multilabel_margin_loss(a, target, reduction=MEAN):
    return multilabel_margin_loss_forward(a, target, reduction)[0]


register_out(aten.multilabel_margin_loss.out, multilabel_margin_loss)


# ----------------------------------------------------------------------------- unfold / fold (im2col / col2im)
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


# ----------------------------------------------------------------------------- other nn


@register(aten.one_hot.default)
def one_hot(a, num_classes=-1):
    if a.dtype != torch.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        raise RuntimeError("one_hot: num_classes=-1 infers the class count from the data (a host sync); primkit "
                           "needs an explicit num_classes")
    classes = P.iota(num_classes, start=0, step=1, dtype=torch.int64, device=a.device)
    shape = list(a.shape) + [num_classes]
    hot = P.eq(P.broadcast_in_dim(a, shape, list(range(a.dim()))), P.broadcast_in_dim(classes, shape, [a.dim()]))
    return contiguous(P.convert_element_type(hot, torch.int64))     # eager's result is contiguous


@register(aten._trilinear.default)
def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """sum over sumdim of i1 * i2 * i3, each first unsqueezed at its expand dims."""
    def expanded(t, dims):
        return P.expand_dims(t, sorted(dims)) if dims else t
    # float16/bfloat16 compute in float32 and round once (eager rounds each pairwise product)
    (a, b, c), orig = upcast(expanded(i1, expand1), expanded(i2, expand2), expanded(i3, expand3))
    x = elementwise(P.mul, elementwise(P.mul, a, b), c)
    return to_dtype(P.sum(x, sorted(sumdim)) if sumdim else x, orig)


register_out(aten._trilinear.out, trilinear, "_trilinear")


@register(aten.bilinear.default)
def bilinear(x1, x2, weight, bias=None):
    if x1.dim() != x2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {x1.dim()} and {x2.dim()}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be a 3D tensor, got {weight.dim()}D")
    # y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j]
    left = aten.matmul.default(aten.unsqueeze.default(aten.unsqueeze.default(x1, -2), -3), weight)   # (..., O, 1, J)
    y = aten.squeeze.dim(aten.matmul.default(left, aten.unsqueeze.default(aten.unsqueeze.default(x2, -2), -1)), -1)
    y = aten.squeeze.dim(y, -1)
    return y if bias is None else aten.add.Tensor(y, bias)


# ----------------------------------------------------------------------------- window functions


def _window_args(name, window_length, dtype, device):
    dtype = dtype or torch.get_default_dtype()
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    if dtype not in dt.FLOAT:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    return dtype, torch.device(device or "cpu")


def _window(name, formula):
    """A window from formula(n (arange of length N in dtype), N, step rounding fn), with eager's
    handling of periodic (N + 1 then drop the last), N == 0 (empty) and N == 1 (ones)."""
    def fn(window_length, periodic=True, *params, dtype=None, layout=None, device=None, pin_memory=None):
        dtype, device = _window_args(name, window_length, dtype, device)
        if window_length == 0:
            return P.full([0], 0, dtype=dtype, device=device)
        if window_length == 1:
            return P.full([1], 1, dtype=dtype, device=device)
        length = window_length + 1 if periodic else window_length
        n = P.iota(length, start=0, step=1, dtype=torch.int64, device=device)
        w = formula(P.convert_element_type(n, dtype), length, dtype, *params)
        if periodic:
            w = P.slice(w, [0], [window_length], [1])
        return w
    fn.__name__ = fn.__qualname__ = name
    return fn


def _step(dtype):
    """Eager computes windows as a chain of in-place ops, each rounded to dtype."""
    compute = computation_dtype(dtype)

    def op(prim, t, v):
        x = to_dtype(t, compute)
        # eager's scalar operand is first rounded to dtype
        return to_dtype(prim(x, prepare(v, compute, x.shape, x.device, common=dtype)), dtype)
    return op


def _hamming(n, N, dtype, alpha=0.54, beta=0.46):
    s = _step(dtype)
    w = s(P.mul, n, 2.0 * math.pi / (N - 1))
    w = to_dtype(P.cos(to_dtype(w, computation_dtype(dtype))), dtype)
    return s(P.add, s(P.mul, w, -beta), alpha)


def _bartlett(n, N, dtype):
    s = _step(dtype)
    w = s(P.mul, n, 2.0 / (N - 1))
    half = ((N - 1) >> 1) + 1
    second = s(P.add, s(P.mul, P.slice(w, [half], [N], [1]), -1), 2)
    return P.cat([P.slice(w, [0], [half], [1]), second], 0)


def _blackman(n, N, dtype):
    s = _step(dtype)
    compute = computation_dtype(dtype)
    w = s(P.mul, n, math.pi / (N - 1))
    cos = lambda t: to_dtype(P.cos(to_dtype(t, compute)), dtype)   # noqa: E731
    first = s(P.mul, cos(s(P.mul, w, 4)), 0.08)
    second = s(P.mul, cos(s(P.mul, w, 2)), 0.5)
    return s(P.add, s(P.sub, first, second), 0.42)


def _kaiser(n, N, dtype, beta=12.0):
    compute = computation_dtype(dtype)
    x = to_dtype(n, compute)
    c = lambda v: like(x, v)   # noqa: E731
    alpha = (N - 1) / 2.0
    r = P.div(P.sub(x, c(alpha)), c(alpha))
    arg = P.mul(c(beta), P.sqrt(P.abs(P.sub(c(1.0), P.mul(r, r)))))
    return to_dtype(P.div(P.i0(arg), P.i0(c(beta))), dtype)


WINDOWS = {
    "hann_window": lambda n, N, dtype: _hamming(n, N, dtype, 0.5, 0.5),
    "hamming_window": _hamming,
    "bartlett_window": _bartlett,
    "blackman_window": _blackman,
    "kaiser_window": _kaiser,
}


def _register_window(name, formula):
    base = _window(name, formula)
    packet = getattr(aten, name)
    for overload in packet.overloads():
        op = getattr(packet, overload)
        if overload.endswith("out"):
            register_out(op, base, name, factory=True)
        else:
            register(op)(base)


for _name, _formula in WINDOWS.items():
    _register_window(_name, _formula)
