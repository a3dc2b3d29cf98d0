"""Derivative helpers of the memory family."""
from __future__ import annotations

from primkit.prims.derivative_helpers.common import prim_ops


def to_device_of(grad, a):
    """grad moved to a's device (the gradient of device_put)."""
    return prim_ops().device_put(grad, a.device)


HELPERS = (to_device_of,)
