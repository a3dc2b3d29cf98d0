"""Type promotion, primkit's own: a lattice declared as data, and eager's category rules.

``promote_types(a, b)`` is the least upper bound of a and b in ``LATTICE`` (each dtype lists
the dtypes directly above it). ``result_type(*args)`` applies eager's rule for mixing
dimensioned tensors, zero-dim tensors and Python numbers: a lower-priority group only wins
when it is of a higher category (bool < integer < floating < complex). The whole table is
frozen by tests against ``torch.result_type``.
"""
from __future__ import annotations

import numbers

import torch

from primkit.prims import dtypes as dt

LATTICE = {
    torch.bool: (torch.uint8, torch.int8),
    torch.uint8: (torch.int16,),
    torch.int8: (torch.int16,),
    torch.int16: (torch.int32,),
    torch.int32: (torch.int64,),
    torch.int64: (torch.float16, torch.bfloat16),
    torch.float16: (torch.float32, torch.complex32),
    torch.bfloat16: (torch.float32,),
    torch.float32: (torch.float64, torch.complex64),
    torch.float64: (torch.complex128,),
    torch.complex32: (torch.complex64,),
    torch.complex64: (torch.complex128,),
    torch.complex128: (),
}


# The dtype a Python number takes when it meets tensors of a lower category.
def _number_dtype(x):
    if isinstance(x, (bool, torch.SymBool)):
        return torch.bool
    if isinstance(x, (numbers.Integral, torch.SymInt)):   # a SymInt: an int argument traced with dynamic=True
        return torch.int64
    if isinstance(x, (numbers.Real, torch.SymFloat)):
        return torch.get_default_dtype()
    if isinstance(x, numbers.Complex):
        return dt.to_complex(torch.get_default_dtype())
    raise TypeError(f"expected a tensor or a Python number, got {type(x).__name__}")


def _upper_bounds(d):
    seen, stack = {d}, [d]
    while stack:
        for up in LATTICE[stack.pop()]:
            if up not in seen:
                seen.add(up)
                stack.append(up)
    return seen


_UP = {d: _upper_bounds(d) for d in LATTICE}


def _lub(a, b):
    common = _UP[a] & _UP[b]
    least = [c for c in common if common <= _UP[c]]
    return least[0]


PROMOTION_TABLE = {(a, b): _lub(a, b) for a in LATTICE for b in LATTICE}


def promote_types(a, b):
    try:
        return PROMOTION_TABLE[(a, b)]
    except KeyError:
        bad = a if a not in LATTICE else b
        raise TypeError(f"type promotion: {bad} takes no part in promotion (supported: "
                        f"{', '.join(dt.short(d) for d in LATTICE)})") from None


def category(d) -> int:
    if d is None:
        return -1
    if d == torch.bool:
        return 0
    if d in dt.INT:
        return 1
    if d in dt.FLOAT:
        return 2
    return 3


def _combine(higher, lower):
    """Eager's combine_categories: the higher-priority group wins unless outranked."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if category(higher) == 3:
        return higher
    if category(lower) == 3:
        return dt.to_complex(higher) if category(higher) == 2 else lower
    if category(higher) == 2:
        return higher
    if higher == torch.bool or category(lower) == 2:
        return promote_types(higher, lower)
    return higher


def _is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor)


def result_type(*args):
    """The dtype eager's elementwise ops compute in for these tensors and Python numbers."""
    dim = zero = wrapped = None
    for x in args:
        if _is_tensor(x):
            if x.dim() > 0:
                dim = x.dtype if dim is None else promote_types(dim, x.dtype)
            else:
                zero = x.dtype if zero is None else promote_types(zero, x.dtype)
        elif x is not None:
            d = _number_dtype(x)
            wrapped = d if wrapped is None else promote_types(wrapped, d)
    out = _combine(dim, _combine(zero, wrapped))
    if out is None:
        raise TypeError("result_type: expected at least one tensor or number")
    return out


def can_cast(from_, to) -> bool:
    """Eager's rule for writing a result into an existing tensor (in-place, out=)."""
    return category(from_) <= category(to)


def computation_dtype(d):
    """float16/bfloat16 compute in float32 (as eager's kernels do); complex32 in complex64."""
    return {torch.float16: torch.float32, torch.bfloat16: torch.float32,
            torch.complex32: torch.complex64}.get(d, d)
