"""Reference implementation of bitcast_convert_type."""
from __future__ import annotations

import torch


def bitcast_convert_type(a, dtype):
    # A fresh contiguous copy first: the prim is functional, so its result never aliases a.
    return a.clone(memory_format=torch.contiguous_format).view(dtype)
