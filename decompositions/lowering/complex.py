"""Lowerings of complex-number prims (the complex family, and the elementwise prims defined only
for complex operands) into real / imag / complex and real arithmetic."""
from __future__ import annotations

import math

from primkit.decompositions.lowering.core import P, lowers, splat


@lowers("conj_physical")
def conj_physical(x):
    return P.complex(P.real(x), P.neg(P.imag(x)))


@lowers("sgn")
def sgn(x):
    # x / |x| part by part, as eager divides by the real |x|; 0 at 0
    re, im = P.real(x), P.imag(x)
    magnitude = P.abs(x)
    zero = P.eq(magnitude, splat(0, magnitude))
    safe = P.where(zero, splat(1, magnitude), magnitude)
    return P.where(zero, P.complex(splat(0, re), splat(0, re)), P.complex(P.div(re, safe), P.div(im, safe)))


@lowers("angle")
def angle(x):
    if x.dtype.is_complex:
        return P.atan2(P.imag(x), P.real(x))
    # real: pi below 0, 0 from -0.0 up, nan stays nan
    return P.where(P.lt(x, splat(0, x)), splat(math.pi, x), P.where(P.isnan(x), x, splat(0, x)))


@lowers("polar")
def polar(abs, angle):
    return P.complex(P.mul(abs, P.cos(angle)), P.mul(abs, P.sin(angle)))
