"""Meta rules of the random family: new tensors, like creation's, from explicit (seed, offset)
counters (contiguous) or from torch's generator (bernoulli_p, exponential_p, uniform_p, normal_p:
empty_like's layout of their operand)."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule
from primkit.prims.meta.common import check_dtype, shape_str
from primkit.prims.layout import contiguous_strides, elementwise_strides


def _fresh(prim, shape, dtype, device):
    check(all(s >= 0 for s in shape), prim, "C1", lambda: f"shape {shape_str(shape)} has a negative size")
    check(dtype in prim.dtypes, prim, "C2", lambda: f"dtype {dt.short(dtype)} is not supported, expected one of "
          f"{{{', '.join(sorted(dt.short(d) for d in prim.dtypes))}}}")
    return TensorMeta(tuple(shape), contiguous_strides(shape), dtype, torch.device(device))


@meta_rule("uniform", constraints=("C1", "C2", "C3"))
def uniform(prim, shape, low, high, seed, offset, dtype, device):
    check(low <= high, prim, "C3", lambda: f"low {low} is greater than high {high}")
    return _fresh(prim, shape, dtype, device)


@meta_rule("normal", constraints=("C1", "C2", "C3"))
def normal(prim, shape, mean, std, seed, offset, dtype, device):
    check(std >= 0, prim, "C3", lambda: f"std is {std}, expected std >= 0")
    return _fresh(prim, shape, dtype, device)


@meta_rule("bernoulli", constraints=("C1",))
def bernoulli(prim, p, seed, offset):
    check_dtype(prim, "C1", p, prim.dtypes, "p")
    shape = tuple(p.shape)
    return TensorMeta(shape, contiguous_strides(shape), torch.bool, p.device)


@meta_rule("random_bits", constraints=("C1", "C2"))
def random_bits(prim, shape, seed, offset, dtype, device):
    return _fresh(prim, shape, dtype, device)


def _int_range(dtype):
    info = torch.iinfo(dtype)
    return info.min, info.max


@meta_rule("randint", constraints=("C1", "C2", "C3", "C4"))
def randint(prim, shape, low, high, seed, offset, dtype, device):
    out = _fresh(prim, shape, dtype, device)
    check(low < high, prim, "C3", lambda: f"low {low} is not less than high {high}")
    lo, hi = _int_range(dtype)
    check(lo <= low and high - 1 <= hi, prim, "C4", lambda: f"[{low}, {high}) does not fit {dt.short(dtype)}, whose "
          f"values are [{lo}, {hi}]")
    return out


@meta_rule("exponential", constraints=("C1", "C2", "C3"))
def exponential(prim, shape, lambd, seed, offset, dtype, device):
    check(lambd > 0, prim, "C3", lambda: f"lambd is {lambd}, expected lambd > 0")
    return _fresh(prim, shape, dtype, device)


@meta_rule("randperm", constraints=("C1", "C2", "C3"))
def randperm(prim, n, seed, offset, dtype, device):
    check(n >= 0, prim, "C1", lambda: f"n is {n}, expected n >= 0")
    out = _fresh(prim, (n,), dtype, device)
    check(n - 1 <= _int_range(dtype)[1], prim, "C3", lambda: f"n is {n} but {dt.short(dtype)} holds values up to "
          f"{_int_range(dtype)[1]}")
    return out


# ---- generator prims (tag stateful): they read torch's generator at run time ---------------------


def _like(prim, self, dtype):
    """A generator prim's result: dtype (self's if None), self's shape, empty_like's preserve_format layout (self's
    strides where dense, else dense in self's dim order)."""
    dtype = self.dtype if dtype is None else dtype
    check(dtype in prim.dtypes, prim, "C1", lambda: f"dtype {dt.short(dtype)} is not supported, expected one of "
          f"{{{', '.join(sorted(dt.short(d) for d in prim.dtypes))}}}")
    shape = tuple(self.shape)
    return TensorMeta(shape, elementwise_strides(shape, [(tuple(self.stride()), dtype.itemsize)]), dtype, self.device)


@meta_rule("bernoulli_p", constraints=("C1", "C2"))
def bernoulli_p(prim, self, p, dtype, draw):
    out = _like(prim, self, dtype)
    check(0 <= p <= 1, prim, "C2", lambda: f"p is {p}, expected 0 <= p <= 1")
    return out


@meta_rule("exponential_p", constraints=("C1", "C2"))
def exponential_p(prim, self, lambd, dtype, draw):
    out = _like(prim, self, dtype)
    check(lambd > 0, prim, "C2", lambda: f"lambd is {lambd}, expected lambd > 0")
    return out


@meta_rule("uniform_p", constraints=("C1", "C2"))
def uniform_p(prim, self, low, high, dtype, draw):
    out = _like(prim, self, dtype)
    check(low <= high, prim, "C2", lambda: f"low {low} is greater than high {high}")
    return out


@meta_rule("normal_p", constraints=("C1", "C2"))
def normal_p(prim, self, mean, std, dtype, draw):
    out = _like(prim, self, dtype)
    check(std >= 0, prim, "C2", lambda: f"std is {std}, expected std >= 0")
    return out


@meta_rule("masked_uniform", constraints=("C1", "C2"))
def masked_uniform(prim, mask, low, high, draw):
    check_dtype(prim, "C1", mask, prim.dtypes, "mask")
    check(low <= high, prim, "C2", lambda: f"low {low} is greater than high {high}")
    shape = tuple(mask.shape)
    return TensorMeta(shape, contiguous_strides(shape), torch.float64, mask.device)
