"""OpInfo entries: grid_sampler_2d_backward and grid_sampler_3d_backward, the backward ATen ops
autograd emits for grid_sample (their own family: opinfo/definitions/backward.py is full).

Each sample is a forward sample of grid_sampler_2d / 3d (every interpolation and padding mode,
align_corners, grids past the input's edges, layouts) with a random grad_output of the forward's
output shape, asking for both gradients, and for one of them on the first few.
"""
from __future__ import annotations

import re

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.common import aten_entry
from primkit.opinfo.definitions.nn.common import out_entry
from primkit.opinfo.definitions.nn.grid_sample import sample_inputs_grid_sampler_2d, sample_inputs_grid_sampler_3d
from primkit.opinfo.dtypes import FLOAT32_64
from primkit.opinfo.samples import make

aten = torch.ops.aten


def _backward_samples(forward_samples, one_gradient=True):
    """Backward samples of the forward's: ``one_gradient``, also samples asking for one gradient (out=
    overloads write both)."""
    def gen(op, device, dtype):
        for i, s in enumerate(forward_samples(op, device, dtype)):
            grid = s.args[0]
            grad = make((s.input.shape[0], s.input.shape[1], *grid.shape[1:-1]), device, dtype)
            yield SampleInput(grad, (s.input, *s.args, [True, True]), name=s.name)
            if one_gradient and i < 6:   # one gradient asked for: eager gives no input gradient (None) without
                # output_mask[0], and the grid's whatever output_mask[1] says
                for mask in ([False, True], [True, False]):
                    yield SampleInput(grad, (s.input, *s.args, mask), name=f"{s.name}, output_mask={mask}")
    return gen


def error_inputs_grid_sampler_backward(op, device):
    f32 = torch.float32
    grad, x = make((2, 3, 3, 6), device, f32), make((2, 3, 4, 5), device, f32)
    yield ErrorInput(SampleInput(grad, (x, make((1, 3, 6, 2), device, f32), 0, 0, False, [True, True])),
                     RuntimeError, re.escape("expected grid and input to have same batch size"))


# The grid's gradient sums grad_output * input * d weight over channels and taps, where eager sums
# each channel's taps in turn: float32 rounds the sums apart (1.3e-5 on a value near 2 measured).
TOLERANCES = {torch.float32: (1e-4, 1e-5)}



def _entries(n, errors=None):
    op = getattr(aten, f"grid_sampler_{n}d_backward")
    forward = sample_inputs_grid_sampler_2d if n == 2 else sample_inputs_grid_sampler_3d
    return [aten_entry(f"aten.grid_sampler_{n}d_backward", op.default, (op.default.name(),), _backward_samples(forward),
                       errors, family="backward", dtypes=FLOAT32_64, tolerances=TOLERANCES, supports_autograd=False),
            out_entry(op.out, op.default, _backward_samples(forward, one_gradient=False), dtypes=FLOAT32_64,
                      tolerances=TOLERANCES, family="backward")]


ENTRIES = [*_entries(2, error_inputs_grid_sampler_backward), *_entries(3)]
