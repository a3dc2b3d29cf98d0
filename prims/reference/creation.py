"""Reference implementations of the creation prims: torch's factories, with a fill value rounded as
the dtype holds it."""
from __future__ import annotations

import builtins

import torch


def rounded(value, dtype):
    """value in a floating or complex dtype as IEEE rounding gives it (+-inf beyond its range), which
    torch.full refuses to do for some dtypes; other dtypes take value as it is (the meta rule checked it)."""
    if isinstance(value, builtins.complex) and not dtype.is_complex:
        value = value.real      # C3: no imaginary part
    if dtype.is_floating_point or dtype.is_complex:
        wide = torch.complex128 if dtype.is_complex else torch.float64
        return torch.tensor(value, dtype=wide).to(dtype).item()
    return value


def full(shape, fill_value, *, dtype, device):
    return torch.full(shape, rounded(fill_value, dtype), dtype=dtype, device=device)


def scalar_tensor(value, *, dtype, device):
    return torch.scalar_tensor(rounded(value, dtype), dtype=dtype, device=device)


def iota(length, *, start, step, dtype, device):
    return torch.arange(start, start + length * step, step, dtype=dtype, device=device)[:length]


def empty_strided(shape, stride, *, dtype, device):
    return torch.empty_strided(shape, stride, dtype=dtype, device=device)


def empty_permuted(shape, physical_layout, *, dtype, device):
    return torch.empty_permuted(shape, physical_layout, dtype=dtype, device=device)
