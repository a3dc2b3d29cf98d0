"""OpInfo entries: grid sampling (grid_sampler_2d / 3d, F.grid_sample) and affine_grid_generator."""
from __future__ import annotations

import itertools
import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import aten, entry
from primkit.opinfo.dtypes import FLOAT32_64
from primkit.opinfo.samples import layouts, make


def sample_inputs_grid_sampler_2d(op, device, dtype):
    """aten's (input, grid, interpolation_mode, padding_mode, align_corners): every mode with a grid
    reaching past the input's edges (|g| up to 1.3)."""
    x = make((2, 3, 4, 5), device, dtype)
    grid = make((2, 3, 6, 2), device, dtype, low=-1.3, high=1.3)
    for mode in (0, 1, 2):
        for padding in (0, 1, 2):
            for align in (False, True):
                yield SampleInput(x, (grid, mode, padding, align),
                                  name=f"interpolation={mode} padding={padding} align_corners={align}")
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(t, (grid, 0, 0, False), name=f"{name} input")
    yield SampleInput(x, (make((2, 6, 3, 2), device, dtype, low=-1, high=1).transpose(1, 2), 0, 1, True),
                      name="transposed grid")
    yield SampleInput(make((1, 2, 1, 1), device, dtype), (make((1, 2, 2, 2), device, dtype, low=-1, high=1), 2, 2,
                                                          True), name="1x1 input, reflection")


def error_inputs_grid_sampler_2d(op, device):
    f32 = torch.float32
    yield ErrorInput(SampleInput(make((2, 3, 4, 5), device, f32), (make((1, 3, 6, 2), device, f32), 0, 0, False)),
                     RuntimeError, "expected grid and input to have same batch size")
    yield ErrorInput(SampleInput(make((2, 3, 4, 5), device, f32), (make((2, 3, 6, 1), device, f32), 0, 0, False)),
                     RuntimeError, "expected grid to have size 2 in last dimension")


def sample_inputs_grid_sampler_3d(op, device, dtype):
    """aten's (input, grid, interpolation_mode, padding_mode, align_corners) on 5-d inputs: trilinear
    and nearest (3-d has no bicubic) with every padding mode, a grid reaching past the input's edges
    (|g| up to 1.3), and one folding several times under reflection (|g| up to 4)."""
    x = make((2, 3, 3, 4, 5), device, dtype)
    grid = make((2, 2, 3, 4, 3), device, dtype, low=-1.3, high=1.3)
    for mode in (0, 1):
        for padding in (0, 1, 2):
            for align in (False, True):
                yield SampleInput(x, (grid, mode, padding, align),
                                  name=f"interpolation={mode} padding={padding} align_corners={align}")
    far = make((2, 2, 3, 4, 3), device, dtype, low=-4, high=4)
    for mode in (0, 1):
        for align in (False, True):
            yield SampleInput(x, (far, mode, 2, align), name=f"far grid interpolation={mode} reflection "
                                                              f"align_corners={align}")
    for name, t in layouts((2, 3, 3, 4, 5), device, dtype):
        yield SampleInput(t, (grid, 0, 0, False), name=f"{name} input")
    yield SampleInput(x.contiguous(memory_format=torch.channels_last_3d), (grid, 0, 1, True),
                      name="channels_last_3d input")
    yield SampleInput(x, (make((2, 4, 3, 2, 3), device, dtype, low=-1, high=1).transpose(1, 3), 0, 1, True),
                      name="transposed grid")
    yield SampleInput(make((1, 2, 1, 1, 1), device, dtype),
                      (make((1, 2, 2, 2, 3), device, dtype, low=-2, high=2), 0, 2, True),
                      name="1x1x1 input, reflection")


def error_inputs_grid_sampler_3d(op, device):
    f32 = torch.float32
    x = make((2, 3, 3, 4, 5), device, f32)
    yield ErrorInput(SampleInput(x, (make((2, 2, 3, 4, 2), device, f32), 0, 0, False)), RuntimeError,
                     "expected grid to have size 3 in last dimension")
    yield ErrorInput(SampleInput(x, (make((2, 2, 3, 4, 3), device, f32), 2, 0, False)), RuntimeError,
                     "bicubic interpolation only supports 4D input")


def sample_inputs_grid_sample(op, device, dtype):
    """torch.nn.functional.grid_sample's samples (its modes by name), 4-d and 5-d."""
    for s in itertools.chain(sample_inputs_grid_sampler_2d(op, device, dtype),
                             sample_inputs_grid_sampler_3d(op, device, dtype)):
        grid, mode, padding, align = s.args
        yield SampleInput(s.input, (grid,), {"mode": ("bilinear", "nearest", "bicubic")[mode],
                                             "padding_mode": ("zeros", "border", "reflection")[padding],
                                             "align_corners": align}, s.name)


def sample_inputs_affine_grid_generator(op, device, dtype):
    """aten's (theta, size, align_corners)."""
    for align in (False, True):
        for name, theta in layouts((2, 2, 3), device, dtype):
            yield SampleInput(theta, ([2, 3, 4, 5], align), name=f"{name} 2-d align_corners={align}")
        yield SampleInput(make((1, 3, 4), device, dtype), ([1, 2, 3, 4, 5], align), name=f"3-d align_corners={align}")
        if dtype in FLOAT32_64:   # eager makes a size-1 dim's coordinate with at::tensor, which has no float16 kernel
            yield SampleInput(make((2, 2, 3), device, dtype), ([2, 1, 1, 5], align),
                              name=f"height 1 align_corners={align}")


def error_inputs_affine_grid_generator(op, device):
    yield ErrorInput(SampleInput(make((2, 2, 3), device, torch.float32), ([2, 3, 4], False)), RuntimeError,
                     "AffineGridGenerator needs 4d \\(spatial\\) or 5d \\(volumetric\\) inputs")


ENTRIES = [
    entry("grid_sampler_2d", aten.grid_sampler_2d, ("aten::grid_sampler_2d", "aten::grid_sampler_2d.out"),
          sample_inputs_grid_sampler_2d, errors=error_inputs_grid_sampler_2d, out=True),
    entry("grid_sampler_3d", aten.grid_sampler_3d, ("aten::grid_sampler_3d", "aten::grid_sampler_3d.out"),
          sample_inputs_grid_sampler_3d, errors=error_inputs_grid_sampler_3d, out=True),
    entry("nn.functional.grid_sample", F.grid_sample, ("aten::grid_sampler",), sample_inputs_grid_sample),
    entry("affine_grid_generator", aten.affine_grid_generator,
          ("aten::affine_grid_generator", "aten::affine_grid_generator.out"), sample_inputs_affine_grid_generator,
          errors=error_inputs_affine_grid_generator, out=True),
]
