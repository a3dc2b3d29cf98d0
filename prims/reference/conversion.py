"""Reference implementations of the conversion prims that are not one torch call."""
from __future__ import annotations

import torch


def convert_element_type(a, dtype):
    return a.to(dtype, copy=True)


# float dtype -> (same-width integer dtype, exponent bits, mantissa bits)
_FORMATS = {
    torch.float16: (torch.int16, 5, 10), torch.bfloat16: (torch.int16, 8, 7),
    torch.float32: (torch.int32, 8, 23), torch.float64: (torch.int64, 11, 52),
}


def reduce_precision(a, exponent_bits, mantissa_bits):
    """a rounded to the nearest value with exponent_bits/mantissa_bits (XLA's reduce_precision):
    mantissa rounded to nearest, ties to even; exponents above the reduced range give inf, those
    at or below its least normal exponent give zero (the reduced format's subnormals are flushed);
    nan is kept as is; the sign is kept throughout."""
    int_dtype, src_e, src_m = _FORMATS[a.dtype]
    sign_bit = 1 << (src_e + src_m)
    bits = a.view(int_dtype)
    sign = bits & -sign_bit
    # The magnitude bits are non-negative and stay below the sign bit through the rounding below
    # (nan, the only pattern that could carry into it, is set aside), so no step overflows.
    nan = torch.isnan(a)
    mag = torch.where(nan, torch.zeros_like(bits), bits & (sign_bit - 1))
    if mantissa_bits < src_m:
        shift = src_m - mantissa_bits
        last = 1 << shift
        mag = mag + (((mag >> shift) & 1) + ((last >> 1) - 1))    # half, less one, plus the kept lsb: ties to even
        mag = mag & ~(last - 1)
    if exponent_bits < src_e:
        src_bias, bias = (1 << (src_e - 1)) - 1, (1 << (exponent_bits - 1)) - 1
        exponent = mag >> src_m
        inf = torch.full_like(mag, ((1 << src_e) - 1) << src_m)
        mag = torch.where(exponent > src_bias + bias, inf,
                          torch.where(exponent <= src_bias - bias, torch.zeros_like(mag), mag))
    out = torch.where(nan, a, (mag | sign).view(a.dtype))
    return out
