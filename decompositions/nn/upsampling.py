"""Upsampling: nearest, linear / bilinear / trilinear, bicubic and anti-aliased interpolation, and
their backwards.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, like, prepare, register_out, round_to, to_dtype, upcast
from primkit.decompositions.nn.padding import output_layout
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims import dtypes as dt


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


def _nearest_source(in_size, out_size, scale, exact, device):
    """The input position each output position copies along one dim, in float32 arithmetic as eager's
    nearest_idx computes it."""
    s = _scale(in_size, out_size, scale, False)
    i = P.iota(out_size, start=0, step=1, dtype=torch.float32, device=device)
    if exact:
        i = P.add(i, prepare(0.5, torch.float32, i.shape, device))
    src = P.convert_element_type(P.floor(P.mul(i, prepare(s, torch.float32, i.shape, device))), torch.int64)
    return P.minimum(src, prepare(in_size - 1, torch.int64, src.shape, device))


def _nearest(name, n, exact):
    def fn(a, output_size, *scales):
        _check_upsample(name, a, n, output_size)
        scales = list(scales) + [None] * (n - len(scales))
        x = a
        for k in range(n):
            dim = 2 + k
            x = P.index_select(x, dim, _nearest_source(a.shape[dim], output_size[k], scales[k], exact, a.device))
        return output_layout(x, a)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _nearest_backward(name, n, exact):
    """The transpose of _nearest: each output's gradient added into the input position it copied."""
    def fn(grad_output, output_size, input_size, *scales):
        if len(output_size) != n or len(input_size) != n + 2:
            raise RuntimeError(f"{name}: expected output_size of {n} and input_size of {n + 2} sizes, got "
                               f"{list(output_size)} and {list(input_size)}")
        if list(grad_output.shape) != list(input_size[:2]) + list(output_size):
            raise RuntimeError(f"{name}: expected grad_output of shape {list(input_size[:2]) + list(output_size)}, "
                               f"got {list(grad_output.shape)}")
        scales = list(scales) + [None] * (n - len(scales))
        (g,), orig = upcast(grad_output)
        for k in range(n):
            dim, in_size = 2 + k, input_size[2 + k]
            zeros = P.full(list(g.shape[:dim]) + [in_size] + list(g.shape[dim + 1:]), 0, dtype=g.dtype,
                           device=g.device)
            g = P.index_add(zeros, dim, _nearest_source(in_size, output_size[k], scales[k], exact, g.device), g)
        return output_layout(to_dtype(g, orig), grad_output)
    fn.__name__ = fn.__qualname__ = f"{name}_backward"
    return fn


LINEAR_MODES = {"upsample_linear1d": 1, "upsample_bilinear2d": 2, "upsample_trilinear3d": 3}


def _linear_taps(in_size, out_size, scale, align_corners, acc, device):
    """(i0, i1, lam) of one dim's linear interpolation: output j blends input i0[j] with weight 1 - lam[j]
    and i1[j] with weight lam[j]."""
    s = _scale(in_size, out_size, scale, align_corners)
    shape = [out_size]
    i = P.iota(out_size, start=0, step=1, dtype=acc, device=device)
    c = lambda v: prepare(v, acc, shape, device)   # noqa: E731
    if align_corners:
        src = P.mul(i, c(s))
    else:
        src = P.maximum(P.sub(P.mul(P.add(i, c(0.5)), c(s)), c(0.5)), c(0.0))
    i0 = P.convert_element_type(P.trunc(src), torch.int64)     # src >= 0
    i0 = P.minimum(i0, prepare(in_size - 1, torch.int64, shape, device))
    lam = P.sub(src, P.convert_element_type(i0, acc))
    step = P.convert_element_type(P.lt(i0, prepare(in_size - 1, torch.int64, shape, device)), torch.int64)
    return i0, P.add(i0, step), lam


def _along(lam, like_shape, dim):
    return P.broadcast_in_dim(lam, list(like_shape), [dim])


def _linear(name, n):
    def fn(a, output_size, align_corners, *scales):
        _check_upsample(name, a, n, output_size)
        scales = list(scales) + [None] * (n - len(scales))
        (x,), orig = upcast(a)
        for k in range(n):
            dim = 2 + k
            i0, i1, lam = _linear_taps(a.shape[dim], output_size[k], scales[k], align_corners, x.dtype, a.device)
            x0, x1 = P.index_select(x, dim, i0), P.index_select(x, dim, i1)
            lam = _along(lam, x0.shape, dim)
            x = P.add(P.mul(x0, P.sub(like(lam, 1.0), lam)), P.mul(x1, lam))
        return output_layout(to_dtype(x, orig), a)
    fn.__name__ = fn.__qualname__ = name
    return fn


def _linear_backward(name, n):
    """The transpose of _linear: each dim's blend, last dim first, sends the gradient of output j back to
    inputs i0[j] and i1[j] with the blend's weights (added where several outputs read one input)."""
    def fn(grad_output, output_size, input_size, align_corners, *scales):
        scales = list(scales) + [None] * (n - len(scales))
        (g,), orig = upcast(grad_output)
        for k in reversed(range(n)):
            dim = 2 + k
            i0, i1, lam = _linear_taps(input_size[dim], output_size[k], scales[k], align_corners, g.dtype,
                                       g.device)
            lam = _along(lam, g.shape, dim)
            shape = list(g.shape)
            shape[dim] = input_size[dim]
            grad = aten.zeros.default(shape, dtype=g.dtype, device=g.device)
            grad = aten.index_add.default(grad, dim, i0, P.mul(g, P.sub(like(lam, 1.0), lam)))
            g = aten.index_add.default(grad, dim, i1, P.mul(g, lam))
        return contiguous(to_dtype(g, orig))
    fn.__name__ = fn.__qualname__ = f"{name}_backward"
    return fn


CUBIC_A = -0.75   # eager's cubic convolution coefficient


def _cubic_near(x, c, a):
    """The cubic convolution kernel for |x| <= 1: ((a + 2) x - (a + 3)) x x + 1."""
    return P.add(P.mul(P.mul(P.sub(P.mul(c(a + 2), x), c(a + 3)), x), x), c(1.0))


def _cubic_far(x, c, a):
    """The cubic convolution kernel for 1 < |x| < 2: ((a x - 5a) x + 8a) x - 4a."""
    inner = P.add(P.mul(P.sub(P.mul(c(a), x), c(5 * a)), x), c(8 * a))
    return P.sub(P.mul(inner, x), c(4 * a))


def cubic_weights(t, c):
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
        for offset, w in zip((-1, 0, 1, 2), cubic_weights(t, c)):
            tap = P.clamp(P.add(base, prepare(offset, torch.int64, shape, a.device)),
                          prepare(0, torch.int64, shape, a.device), prepare(in_size - 1, torch.int64, shape, a.device))
            picked = P.index_select(x, dim, tap)
            term = P.mul(picked, P.broadcast_in_dim(w, list(picked.shape), [dim]))
            out = term if out is None else P.add(out, term)
        x = out
    return output_layout(to_dtype(x, orig), a)


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
for _n in (1, 2, 3):
    for _name, _exact in ((f"upsample_nearest{_n}d", False), (f"_upsample_nearest_exact{_n}d", True)):
        _packet = getattr(aten, f"{_name}_backward")
        register(_packet.default)(_nearest_backward(_name, _n, _exact))
        register_out(_packet.grad_input, _nearest_backward(_name, _n, _exact), f"{_name}_backward")
for _name, _n in LINEAR_MODES.items():
    _register_upsample(_name, _linear(_name, _n), _n, True)
    _backward = _linear_backward(_name, _n)
    register(getattr(aten, f"{_name}_backward").default)(_backward)
    register_out(getattr(aten, f"{_name}_backward").grad_input, _backward)
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
        return output_layout(x, a)
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
        return output_layout(g, grad_output) if AA_FILTERS[name][2] else contiguous(g)
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
