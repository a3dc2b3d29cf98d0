"""Reference implementations of the special-function prims that are not one torch call as is."""
from __future__ import annotations

import math

import torch

from primkit.prims.meta.strides import elementwise_strides, itemsize


def in_elementwise_layout(result, *operands):
    """result copied into the layout the elementwise meta rule gives for these operands (for a
    reference built from several torch calls, or a kernel that lays its output out otherwise)."""
    shape = tuple(result.shape)
    strides = elementwise_strides(shape, [(a.stride(), itemsize(a.dtype)) for a in operands])
    return torch.empty_strided(shape, strides, dtype=result.dtype, device=result.device).copy_(result)


def ldexp(a, b):
    """a * 2 ** b in the elementwise layout (torch.ldexp, a composite of mul and exp2, lays out an
    expanded operand's result otherwise)."""
    return in_elementwise_layout(torch.ldexp(a, b), a, b)


def polygamma(a, n):
    # torch takes the order first; the prim takes the operand first, as every elementwise prim.
    return torch.special.polygamma(n, a)


def shift_right_logical(a, b):
    """a >> b filling with zeros (the bits of a read as unsigned); 0 where b is outside [0, bits)."""
    bits = torch.iinfo(a.dtype).bits
    inside = (b > 0) & (b < bits)
    shift = torch.where(inside, b, torch.ones_like(b))
    # Arithmetic shift, then clear the `shift` high bits the sign may have filled.
    keep = ~(torch.full_like(a, -1) << (bits - shift).to(a.dtype))
    shifted = (a >> shift) & keep
    out = torch.where(inside, shifted, torch.where(b == 0, a, torch.zeros_like(a)))
    return in_elementwise_layout(out, a, b)


def mvlgamma(a, p):
    """Multivariate log-gamma of order p, eager's sum in eager's order:
    sum_j lgamma(a + (1 - p) / 2 + j / 2) for j = 0..p-1, plus p (p - 1) / 4 log(pi); nan where
    a <= (p - 1) / 2 (eager raises there, after a host sync; the prim does not look at values)."""
    offsets = torch.arange((1 - p) / 2, 0.5, 0.5, dtype=a.dtype, device=a.device)
    out = (a.unsqueeze(-1) + offsets).lgamma().sum(-1) + p * (p - 1) * math.log(math.pi) / 4
    out = torch.where(a > (p - 1) / 2, out, torch.full_like(out, float("nan")))
    return in_elementwise_layout(out, a)
