"""Sampling grids: grid_sampler_2d / 3d and affine_grid_generator.
"""
from __future__ import annotations

import functools
import itertools

import torch

from primkit.decompositions.common import P, aten, like, prepare, register_out, to_dtype
from primkit.decompositions.nn.common import i64
from primkit.decompositions.nn.upsampling import CUBIC_A, cubic_weights
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims.layout import numel
from primkit.prims import dtypes as dt


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

    def index(self, coords):
        """(flat index into the input's planes, 0 outside; inside) of the points at integer-valued float
        coordinates (x first)."""
        inside, flat = None, i64(0, self.points, self.a.device)
        for coord, size in zip(reversed(coords), self.sizes):
            within = P.logical_and(P.gt(coord, self.c(-1.0)), P.lt(coord, self.c(size)))
            inside = within if inside is None else P.logical_and(inside, within)
            flat = P.add(P.mul(flat, i64(size, self.points, self.a.device)), to_dtype(coord, torch.int64))
        flat = P.where(inside, flat, i64(0, self.points, self.a.device))
        n, channels = self.a.shape[:2]
        count = numel(self.points[1:])
        return P.broadcast_in_dim(P.reshape(flat, [n, count]), [n, channels, count], [0, 2]), inside

    def value(self, coords):
        """input[n, :, ..., y, x] at integer-valued float coordinates (x first); 0 outside the input."""
        n, channels = self.a.shape[:2]
        index, inside = self.index(coords)
        planes = P.reshape(self.a, [n, channels, numel(self.sizes)])
        picked = P.reshape(P.gather(planes, 2, index), self.out_shape)
        return P.where(self.spread(inside), picked, like(picked, 0.0))

    def add(self, planes, coords, v):
        """planes (N, C, numel of the input's spatial dims) plus v (shaped as the output) added at the
        points' coordinates, nothing where they fall outside: the transpose of ``value``."""
        index, inside = self.index(coords)
        v = P.where(self.spread(inside), v, like(v, 0.0))
        return P.scatter_add(planes, 2, index, P.reshape(v, list(index.shape)))

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
        wx, wy = cubic_weights(P.sub(ux, fx), c), cubic_weights(P.sub(uy, fy), c)

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


# ----------------------------------------------------------------------------- backward
# The transpose of the forward: each tap's weight times grad_output scattered into the input's
# gradient, and the grid's gradient from the taps' weights' derivatives (times d source / d grid:
# the unnormalization's scale and the padding's clip and reflection, as eager's *_set_grad helpers).

def _reflect_sign(x, size, align_corners, c, scalar):
    """d reflect(x) / dx: -1 where x lies below the span's start or the fold mirrors it, else 1."""
    low, span = (0.0, float(size - 1)) if align_corners else (-0.5, float(size))
    shifted = P.sub(x, c(low))
    distance = P.abs(shifted)
    if scalar:
        mirrored = P.ne(P.fmod(P.floor(P.div(distance, c(span))), c(2.0)), c(0.0))
    else:
        twice_span = 2.0 * span
        extra = P.sub(distance, P.mul(P.trunc(P.div(distance, c(twice_span))), c(twice_span)))
        mirrored = P.gt(extra, c(span))
    flip = P.logical_xor(P.lt(shifted, c(0.0)), mirrored)
    return P.where(flip, c(-1.0), c(1.0))


def _source_with_grad(g, size, padding_mode, align_corners, c, scalar=False):
    """(the source coordinate of grid values g, its derivative in g), eager's
    grid_sampler_compute_source_index_set_grad: the clip's gradient is 0 on the borders too."""
    x = _unnormalize(g, size, align_corners, c, scalar)
    scale = c((size - 1) / 2 if align_corners else size / 2)
    if padding_mode == ZEROS:
        return x, scale
    if padding_mode == REFLECTION:
        if (size - 1 if align_corners else size) <= 0:
            return c(0.0), c(0.0)
        scale = P.mul(scale, _reflect_sign(x, size, align_corners, c, scalar))
        x = _reflect(x, size, align_corners, c, scalar)
    inside = P.logical_and(P.gt(x, c(0.0)), P.lt(x, c(float(size - 1))))
    return _clip(x, size, c), P.where(inside, scale, c(0.0))


def _cubic_weight_derivatives(t, c):
    """d/dt of ``cubic_weights(t)``: the kernel's derivative at t + 1, t, 1 - t, 2 - t (with the chain rule's sign)."""
    a = CUBIC_A

    def near(x):   # d/dx ((a + 2) x - (a + 3)) x x + 1
        return P.mul(P.sub(P.mul(c(3 * (a + 2)), x), c(2 * (a + 3))), x)

    def far(x):    # d/dx ((a x - 5a) x + 8a) x - 4a
        return P.add(P.mul(P.sub(P.mul(c(3 * a), x), c(10 * a)), x), c(8 * a))
    u = P.sub(c(1.0), t)
    return [far(P.add(t, c(1.0))), near(t), P.neg(near(u)), P.neg(far(P.add(u, c(1.0))))]


def _sampler_backward(grad, a, grid, interpolation_mode, padding_mode, align_corners, output_mask, scalar):
    """(grad_input, grad_grid) of grid_sampler_2d / 3d: each dim's taps (coordinate, weight, d weight /
    d source), their products over the dims, as the forward reads them. Eager computes the grid's
    gradient whatever output_mask[1] says; output_mask[0] False gives no input gradient (None)."""
    pts = _GridPoints(a, grid)
    c = pts.c
    sizes = list(reversed(pts.sizes))     # x first, as the grid's coordinates
    taps, scales = [], []
    for g, size in zip(pts.coords, sizes):
        if interpolation_mode == BICUBIC:   # the padding applies to each tap; d source / d grid: the scale only
            x = _unnormalize(g, size, align_corners, c)
            low = P.floor(x)
            t = P.sub(x, low)
            taps.append([(_pad_coordinates(P.add(low, c(float(k))), size, padding_mode, align_corners, c), w, dw)
                         for k, w, dw in zip((-1, 0, 1, 2), cubic_weights(t, c), _cubic_weight_derivatives(t, c))])
            scales.append(c((size - 1) / 2 if align_corners else size / 2))
            continue
        x, scale = _source_with_grad(g, size, padding_mode, align_corners, c, scalar)
        scales.append(scale)
        if interpolation_mode == NEAREST:
            taps.append([(P.round(x), c(1.0), c(0.0))])
            continue
        low = P.floor(x)
        high = P.add(low, c(1.0))
        taps.append([(low, P.sub(high, x), c(-1.0)), (high, P.sub(x, low), c(1.0))])
    n, channels = a.shape[:2]
    grad = to_dtype(grad, a.dtype)
    planes = P.full([n, channels, numel(pts.sizes)], 0, dtype=a.dtype, device=a.device)
    dsource = [None] * len(sizes)
    for combo in itertools.product(*taps):
        coords = [coord for coord, _, _ in combo]
        weight = functools.reduce(P.mul, [w for _, w, _ in combo])
        if output_mask[0]:
            planes = pts.add(planes, coords, pts.weighted(grad, weight))
        if interpolation_mode == NEAREST:
            continue
        dot = P.sum(P.mul(grad, pts.value(coords)), [1])    # grad_output . input at the tap, per point
        for d in range(len(sizes)):
            dweight = functools.reduce(P.mul, [dw if e == d else w for e, (_, w, dw) in enumerate(combo)])
            term = P.mul(dot, dweight)
            dsource[d] = term if dsource[d] is None else P.add(dsource[d], term)
    grad_input = contiguous(P.reshape(planes, list(a.shape))) if output_mask[0] else None
    columns = [P.expand_dims(c(0.0) if ds is None else P.mul(ds, scale), [len(pts.points)])
               for ds, scale in zip(dsource, scales)]
    return grad_input, contiguous(P.cat(columns, len(pts.points)))


def _check_grad_output(name, grad_output, a, grid):
    # eager reads grad_output without checking its shape (a mismatched one gives it zero gradients)
    expected = [a.shape[0], a.shape[1], *grid.shape[1:-1]]
    if list(grad_output.shape) != expected:
        raise RuntimeError(f"{name}: grad_output has shape {list(grad_output.shape)}, expected the forward's output "
                           f"shape {expected} (the input's batch and channels, the grid's spatial sizes)")


@register(aten.grid_sampler_2d_backward.default)
def grid_sampler_2d_backward(grad_output, a, grid, interpolation_mode, padding_mode, align_corners, output_mask):
    _check_grid_sampler(a, grid, 2)
    _check_grad_output("grid_sampler_2d_backward", grad_output, a, grid)
    if interpolation_mode not in (BILINEAR, NEAREST, BICUBIC) or padding_mode not in (ZEROS, BORDER, REFLECTION):
        raise RuntimeError(f"grid_sampler_2d_backward: unknown interpolation_mode {interpolation_mode} or "
                           f"padding_mode {padding_mode}")
    return _sampler_backward(grad_output, a, grid, interpolation_mode, padding_mode, align_corners, output_mask,
                             scalar=False)


@register(aten.grid_sampler_3d_backward.default)
def grid_sampler_3d_backward(grad_output, a, grid, interpolation_mode, padding_mode, align_corners, output_mask):
    _check_grid_sampler(a, grid, 3)
    _check_grad_output("grid_sampler_3d_backward", grad_output, a, grid)
    if interpolation_mode not in (BILINEAR, NEAREST) or padding_mode not in (ZEROS, BORDER, REFLECTION):
        raise RuntimeError(f"grid_sampler_3d_backward: unknown interpolation_mode {interpolation_mode} or "
                           f"padding_mode {padding_mode}")
    return _sampler_backward(grad_output, a, grid, interpolation_mode, padding_mode, align_corners, output_mask,
                             scalar=True)


register_out(aten.grid_sampler_2d_backward.out, grid_sampler_2d_backward)
register_out(aten.grid_sampler_3d_backward.out, grid_sampler_3d_backward)


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
    grid = P.matmul(P.reshape(base, [n, numel(spatial), k + 1]), P.permute(theta, [0, 2, 1]))
    return P.reshape(grid, [n] + spatial + [k])


register_out(aten.affine_grid_generator.out, affine_grid_generator)
