"""Reference implementation of the memory_extra family."""
from __future__ import annotations

import torch


def copy_strided(a, stride):
    return torch.empty_strided(a.shape, stride, dtype=a.dtype, device=a.device).copy_(a)
