"""OpInfo entries: upsampling (nearest, linear, bicubic, antialiased) and F.interpolate."""
from __future__ import annotations

import re
import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput, XFail
from primkit.opinfo.definitions.nn.common import aten, entry
from primkit.opinfo.dtypes import FLOAT32_64
from primkit.opinfo.samples import layouts, make


# Linear interpolation: eager and primkit round the blend at different points; on values in
# [-9, 9] they differ by up to half an ulp at 8 (measured 0.031 in bfloat16, 0.0039 in float16).
INTERPOLATION_TOLERANCES = {
    torch.float32: (1e-5, 1e-5),
    torch.float64: (1e-12, 1e-12),
    torch.float16: (4e-3, 2e-3),
    torch.bfloat16: (3.2e-2, 1.6e-2),
}


def _upsample_samples(n, linear):
    """Samples for the .vec overloads: every layout with one output_size; contiguous inputs with
    other sizes (same, double, 1) and scale_factors (fractional, integral, shrinking)."""
    def gen(op, device, dtype):
        shape = (2, 3) + (4, 5, 3)[:n]
        sized = lambda size, align=False: (list(size), align, None) if linear else (list(size), None)  # noqa: E731
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, sized((7, 3, 5)[:n]), name=f"{name} size={(7, 3, 5)[:n]}")
        t = make(shape, device, dtype)
        for size in ((4, 5, 3)[:n], (8, 10, 6)[:n], (1, 1, 1)[:n]):
            yield SampleInput(t, sized(size), name=f"size={size}")
        for scales in ((1.5, 0.7, 2.0)[:n], (2.0, 2.0, 2.0)[:n], (0.5, 0.34, 1.0)[:n]):
            args = (None, False, list(scales)) if linear else (None, list(scales))
            yield SampleInput(t, args, name=f"scales={scales}")
        if linear:
            for size in ((7, 3, 5)[:n], (1, 1, 1)[:n]):
                yield SampleInput(t, sized(size, True), name=f"align_corners size={size}")
    return gen


def _upsample_errors(n, linear):
    def gen(op, device):
        x = make((2, 3) + (4,) * n, device, torch.float32)
        both = (None, False, None) if linear else (None, None)
        yield ErrorInput(SampleInput(x, both), RuntimeError, "Must specify exactly one of output_size and scale_factors")
    return gen


def _upsample_sized_samples(n, linear):
    def gen(op, device, dtype):
        shape = (2, 3) + (4, 5, 3)[:n]
        for name, t in layouts(shape, device, dtype):
            size = list((7, 3, 5)[:n])
            yield SampleInput(t, (size, False) if linear else (size,), name=f"{name} size={size}")
            scales = (1.8, 0.65, 1.7)[:n]
            yield SampleInput(t, (size, False, *scales) if linear else (size, *scales), name=f"{name} with scales")
    return gen


# Antialiased upsampling (F.interpolate(..., antialias=True)): eager has float32/float64 kernels only.
AA_OPS = ("_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa")


def _upsample_aa_samples(op, device, dtype):
    """.vec samples: every layout of a non-square batch with one output_size (height up, width
    down); other sizes (up, down, 1x1, one dim unchanged, unchanged: eager copies), align_corners,
    scale_factors, and a batch of 1 shrunk by more than 4 (a window of 11 and more inputs)."""
    shape = (2, 3, 4, 5)
    for name, t in layouts(shape, device, dtype):
        yield SampleInput(t, ([7, 3], False, None), name=f"{name} size=[7, 3]")
    t = make(shape, device, dtype)
    for size in ([8, 10], [2, 2], [1, 1], [4, 9], [4, 5]):
        yield SampleInput(t, (size, False, None), name=f"size={size}")
    for size in ([7, 3], [1, 1], [2, 9]):
        yield SampleInput(t, (size, True, None), name=f"align_corners size={size}")
    for scales in ([1.5, 0.7], [2.0, 2.0], [0.5, 0.4], [1.0, 0.5]):
        for align in (False, True):
            yield SampleInput(t, (None, align, scales), name=f"scales={scales} align_corners={align}")
    big = make((1, 2, 19, 16), device, dtype)
    for name, t in (("contiguous", big), ("channels_last", big.contiguous(memory_format=torch.channels_last))):
        yield SampleInput(t, ([3, 4], False, None), name=f"{name} batch 1 size=[3, 4]")
        yield SampleInput(t, (None, True, [0.3, 0.55]), name=f"{name} batch 1 scales align_corners")


def _upsample_aa_sized_samples(op, device, dtype):
    """The default overload's (and .out's) samples: output_size with and without scales_h/scales_w."""
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(t, ([7, 3], False), name=f"{name} size=[7, 3]")
        yield SampleInput(t, ([7, 3], False, 1.8, 0.65), name=f"{name} with scales")
    t = make((1, 2, 9, 7), device, dtype)
    yield SampleInput(t, ([3, 8], True), name="batch 1 align_corners")
    yield SampleInput(t, ([9, 2], False, None, 0.3), name="batch 1 height unchanged")


def _upsample_aa_unchanged_dim_samples(op, device, dtype):
    """A dim of unchanged size with a scale that would resample it: eager's forward copies it."""
    for name, t in layouts((1, 2, 9, 7), device, dtype):
        yield SampleInput(t, ([9, 2], False, 0.5, 0.3), name=f"{name} height unchanged, scales_h=0.5")


def _upsample_aa_errors(op, device):
    x = make((2, 3, 4, 5), device, torch.float32)
    rows = [
        ((x, (None, False, None)), RuntimeError, "Must specify exactly one of output_size and scale_factors"),
        ((x, ([3, 4], False, [2.0, 2.0])), RuntimeError, "Must specify exactly one of output_size and scale_factors"),
        ((x[0], ([3, 4], False, None)), RuntimeError, "output_size->size()) == spatial_dimensions"),
        ((x.unsqueeze(2), ([3, 4], False, None)), RuntimeError, "output_size->size()) == spatial_dimensions"),
        ((x, (None, False, [2.0])), RuntimeError, "scale_factors->size()) == spatial_dimensions"),
        ((x, ([0, 4], False, None)), RuntimeError, "Input and output sizes should be greater than 0"),
        ((x[:, :, :0], ([3, 4], False, None)), RuntimeError, "Input and output sizes should be greater than 0"),
        ((x.half(), ([3, 4], False, None)), NotImplementedError, "\"compute_index_ranges_weights\" not implemented "
                                                                 "for 'Half'"),
        ((x.bfloat16(), ([4, 3], False, None)), NotImplementedError, "not implemented for 'BFloat16'"),
    ]
    for (t, args), exc, match in rows:
        yield ErrorInput(SampleInput(t, args), exc, re.escape(match))


def _upsample_aa_sized_errors(op, device):
    x = make((2, 3, 4, 5), device, torch.float32)
    for t, size, match in ((x[0], [3, 4], "It is expected input_size equals to 4, but got size 3"),
                           (x.unsqueeze(2), [3, 4], "It is expected input_size equals to 4, but got size 5"),
                           (x, [3], "It is expected output_size equals to 2, but got size 1")):
        yield ErrorInput(SampleInput(t, (size, False)), RuntimeError, re.escape(match))


def _interpolate_aa(mode):
    def interpolate(t, **kwargs):
        return F.interpolate(t, mode=mode, antialias=True, **kwargs)
    interpolate.__name__ = f"interpolate_{mode}_aa"
    return interpolate


def _interpolate_aa_samples(op, device, dtype):
    """F.interpolate's arguments for the .vec samples (size or scale_factor, align_corners)."""
    for s in _upsample_aa_samples(op, device, dtype):
        size, align, scales = s.args
        kwargs = {"size": size} if size is not None else {"scale_factor": scales}
        yield SampleInput(s.input, (), {**kwargs, "align_corners": align}, name=s.name)


# Bicubic interpolation: eager rounds the 16 weights and each product and partial sum to
# float16/bfloat16; primkit computes in float32 and rounds once. Measured on values in [-9, 9]
# (the result overshoots them by up to a quarter): 0.0078 (float16), 0.0625 (bfloat16), 1.6e-5
# (float32, the weights' rounding).
BICUBIC_TOLERANCES = {
    torch.float32: (2e-5, 1e-5),
    torch.float64: (1e-12, 1e-12),
    torch.float16: (1e-2, 2e-3),
    torch.bfloat16: (8e-2, 1.6e-2),
}


ENTRIES = [
    *(entry(f"nn.functional.{name}", getattr(aten, name),
            (f"aten::{name}.vec",) + ((f"aten::{name}.vec_out",) if "vec_out" in getattr(aten, name).overloads()
                                      else ()),
            _upsample_samples(n, linear), errors=_upsample_errors(n, linear),
            tolerances=INTERPOLATION_TOLERANCES if linear else None,
            out="vec_out" in getattr(aten, name).overloads())
      for name, n, linear in (("upsample_nearest1d", 1, False), ("upsample_nearest2d", 2, False),
                              ("upsample_nearest3d", 3, False), ("_upsample_nearest_exact1d", 1, False),
                              ("_upsample_nearest_exact2d", 2, False), ("_upsample_nearest_exact3d", 3, False),
                              ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
                              ("upsample_trilinear3d", 3, True))),
    *(entry(f"{name}.default", getattr(aten, name), (f"aten::{name}", f"aten::{name}.out"),
            _upsample_sized_samples(n, linear), tolerances=INTERPOLATION_TOLERANCES if linear else None, out=True)
      for name, n, linear in (("upsample_nearest1d", 1, False), ("upsample_nearest2d", 2, False),
                              ("upsample_nearest3d", 3, False), ("_upsample_nearest_exact1d", 1, False),
                              ("_upsample_nearest_exact2d", 2, False), ("_upsample_nearest_exact3d", 3, False),
                              ("upsample_linear1d", 1, True), ("upsample_bilinear2d", 2, True),
                              ("upsample_trilinear3d", 3, True))),
    entry("nn.functional.upsample_bicubic2d", aten.upsample_bicubic2d, ("aten::upsample_bicubic2d.vec",),
          _upsample_samples(2, True), errors=_upsample_errors(2, True), tolerances=BICUBIC_TOLERANCES),
    entry("upsample_bicubic2d.default", aten.upsample_bicubic2d,
          ("aten::upsample_bicubic2d", "aten::upsample_bicubic2d.out"), _upsample_sized_samples(2, True),
          tolerances=BICUBIC_TOLERANCES, out=True),
    # the .vec overload itself: through the packet, (size, align_corners, None) would call the default one
    *(entry(f"nn.functional.{name}", getattr(aten, name).vec, (f"aten::{name}.vec",), _upsample_aa_samples,
            errors=_upsample_aa_errors, dtypes=FLOAT32_64) for name in AA_OPS),
    *(entry(f"{name}.default", getattr(aten, name), (f"aten::{name}", f"aten::{name}.out"),
            _upsample_aa_sized_samples, errors=_upsample_aa_sized_errors, dtypes=FLOAT32_64, out=True)
      for name in AA_OPS),
    # Eager's forward leaves a dim of unchanged size as it is, whatever its scale, but its backward
    # weights it with that scale, so eager's gradient is not its forward's: primkit's is the forward's.
    *(entry(f"{name}.unchanged_dim_with_scale", getattr(aten, name), (f"aten::{name}",),
            _upsample_aa_unchanged_dim_samples, dtypes=FLOAT32_64,
            xfails=(XFail("gradients", "eager's backward blurs the unchanged dim with its scale, which its "
                          "forward does not (AssertionError: gradients differ); the traced gradient is the "
                          "forward's own", raises=AssertionError),))
      for name in AA_OPS),
    *(entry(f"nn.functional.interpolate.{mode}_aa", _interpolate_aa(mode), (f"aten::_upsample_{mode}2d_aa.vec",),
            _interpolate_aa_samples, dtypes=FLOAT32_64) for mode in ("bilinear", "bicubic")),
]
