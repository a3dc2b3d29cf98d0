"""Helpers the shape modules share: size checks (``check_sizes``) and -1 inference (``infer_size``)."""
from __future__ import annotations

import torch


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
