"""Reference implementations of the complex-family prims that are not one torch call."""
from __future__ import annotations

import torch

from primkit.prims.reference.special import in_elementwise_layout


def angle(a):
    # torch.angle lays a complex operand's result out contiguously; the prim keeps the elementwise layout.
    return in_elementwise_layout(torch.angle(a), a)
