"""Helpers the shape modules share: size checks (``check_sizes``), -1 inference (``infer_size``) and slice
bounds (``wrapped_clamped``)."""
from __future__ import annotations

import torch

from primkit.prims.layout import surely


# --- dims, sizes and layouts -------------------------------------------------------------

def check_sizes(size, op):
    """Each size >= 0 (eager's RuntimeError). A data-dependent size (an unbacked SymInt, ``.item()``'s)
    cannot be decided while tracing: torch._check records it as the ShapeEnv's assumption instead."""
    for s in size:
        torch._check(s >= 0, lambda: f"{op}: Trying to create tensor with negative dimension {s}: {list(size)}")


def infer_size(shape, numel):
    """Resolve one -1 in shape (eager's rules and messages)."""
    shape = list(shape)
    neg = [i for i, s in enumerate(shape) if s == -1]
    if len(neg) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            if s < 0:
                raise RuntimeError(f"invalid shape dimension {s}")
            known = known * s
    if neg:
        if known == 0:
            raise RuntimeError(f"cannot reshape tensor of {numel} elements into shape {shape} because the "
                               f"unspecified dimension size -1 can be any value and is ambiguous")
        if numel % known != 0:
            raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
        shape[neg[0]] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{shape}' is invalid for input of size {numel}")
    return shape


def wrapped_clamped(index, size):
    """A slice bound as eager's slice takes it: a negative index counts from the end, then the bound is
    clamped into [0, size]. Where the sign is not known (an index read from data with .item()), the same
    value from integer min/max alone: clamp(i, 0, size) for i >= 0, clamp(i + size, 0, size) for i < 0,
    selected by the integer indicator clamp(i + 1, 0, 1) of i >= 0. The ShapeEnv bounds and prints min/max;
    an if-then-else (sym_ite) on a bound that is itself a Piecewise (eager's narrow builds one) becomes an ITE
    it can neither bound nor print."""
    def clamp(i, lo, hi):
        return torch.sym_max(lo, torch.sym_min(hi, i))
    if surely(index < 0):
        return clamp(index + size, 0, size)
    if surely(index >= 0):
        return clamp(index, 0, size)
    return clamp(index, 0, size) + clamp(index + size, 0, size) - size * clamp(index + 1, 0, 1)
