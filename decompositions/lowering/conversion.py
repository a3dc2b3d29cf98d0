"""Lowerings of conversion prims."""
from __future__ import annotations

import math

import torch

from primkit.decompositions.lowering.core import LOW_PRECISION, P, lowers, splat


def _format_bits(dtype):
    """(exponent bits, mantissa bits) of a float dtype."""
    info = torch.finfo(dtype)
    return int(math.log2(math.log2(info.max) + 1)) + 1, -int(math.log2(info.eps))


@lowers("reduce_precision", example=lambda dtype: (torch.ones(3, dtype=dtype), 5, 10))
def reduce_precision(a, exponent_bits, mantissa_bits):
    # From a = f 2^e (frexp): round(f 2^(m + 1)) 2^(e - m - 1), round being half to even; a's own
    # subnormals round at the quantum of its least normal binade, as rounding a's bits does. Then
    # the format's range: inf above its largest finite value, zero of a's sign below its least
    # normal (its subnormals flushed, as XLA). A part with at least a's own bits is left as it is.
    # Float16 / bfloat16 are computed in float32, where every step is exact.
    own_exponent, own_mantissa = _format_bits(a.dtype)
    x = P.convert_element_type(a, torch.float32) if a.dtype in LOW_PRECISION else a
    r = x
    if mantissa_bits < own_mantissa:
        _, e = P.frexp(x)
        smallest_normal = torch.finfo(a.dtype).smallest_normal
        e = P.maximum(P.convert_element_type(e, x.dtype), splat(math.log2(smallest_normal) + 1, x))
        f = P.mul(x, P.pow(splat(2, x), P.neg(e)))     # |f| < 1, or smaller for a subnormal
        scaled = P.mul(f, splat(2.0 ** (mantissa_bits + 1), x))
        kept = P.round(scaled)
        if mantissa_bits == 0:
            # no mantissa bit left: a tie goes to the even biased exponent (bias odd: e - 1 odd, or
            # a subnormal's exponent field 0) rounding down, as rounding a's bits does
            magnitude = P.abs(scaled)
            tie = P.eq(P.sub(magnitude, P.floor(magnitude)), splat(0.5, x))
            e_even = P.eq(P.sub(e, P.mul(P.floor(P.mul(e, splat(0.5, x))), splat(2, x))), splat(0, x))
            down = P.logical_or(e_even, P.lt(P.abs(x), splat(smallest_normal, x)))
            kept = P.where(P.logical_and(tie, down), P.copysign(P.floor(magnitude), x), kept)
        q = P.sub(e, splat(mantissa_bits + 1, x))
        half = P.floor(P.mul(q, splat(0.5, x)))        # 2^q in two halves: 2^q alone may underflow
        rounded = P.mul(P.mul(kept, P.pow(splat(2, x), half)), P.pow(splat(2, x), P.sub(q, half)))
        r = P.where(P.isfinite(x), rounded, x)
    if exponent_bits < own_exponent:
        emax = 2 ** (exponent_bits - 1) - 1
        least_normal = 2.0 ** (1 - emax)
        magnitude = P.abs(r)     # rounded: above the largest finite value means from 2^(emax + 1) up
        r = P.where(P.le(splat(2.0 ** (emax + 1), r), magnitude), P.copysign(splat(math.inf, r), r), r)
        r = P.where(P.lt(magnitude, splat(least_normal, r)), P.mul(r, splat(0, r)), r)
    return P.convert_element_type(r, a.dtype) if r.dtype != a.dtype else r
