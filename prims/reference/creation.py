"""Reference implementations of the creation prims: torch's factories, with a fill value rounded as
the dtype holds it."""
from __future__ import annotations

import builtins
import contextlib

import torch
from torch.utils._python_dispatch import _disable_current_modes


def rounded(value, dtype):
    """value in a floating or complex dtype as IEEE rounding gives it (+-inf beyond its range), which
    torch.full refuses to do for some dtypes; other dtypes take value as it is (the meta rule checked it)."""
    if isinstance(value, builtins.complex) and not dtype.is_complex:
        value = value.real      # C3: no imaginary part
    if dtype.is_floating_point or dtype.is_complex:
        wide = torch.complex128 if dtype.is_complex else torch.float64
        # a number is rounded outside any tracing mode (under make_fx each tensor made here was recorded as a
        # graph constant: ~5 ms per number, 71 per trace of the bench's GPT-2); a symbolic one is traced
        number = type(value) in (builtins.bool, builtins.int, builtins.float, builtins.complex)
        with _disable_current_modes() if number else contextlib.nullcontext():
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
