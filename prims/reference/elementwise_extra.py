"""Reference implementations of elementwise prims that torch has no single op for: cube root,
bit counts and reduce_precision. Each is written in plain torch ops (CPU and CUDA, no host sync)
and returns the elementwise layout its meta rule gives."""
from __future__ import annotations

import torch

from primkit.prims.reference.special import in_elementwise_layout


def cbrt(a):
    """Real cube root, sign kept (-0.0 stays -0.0, inf stays inf, nan stays nan)."""
    # In float64: |a| = z * 2 ** (3 q) with z in [0.5, 4), so no step over- or underflows;
    # cbrt(z) is pow's estimate plus one Newton correction whose residual z - y ** 3 is computed
    # exactly (Dekker's products), then scaled back by 2 ** q (exact) and rounded once to a's dtype.
    x = a.to(torch.float64).abs()
    mantissa, exponent = torch.frexp(x)
    q = torch.div(exponent, 3, rounding_mode="floor")
    z = torch.ldexp(mantissa, exponent - 3 * q)
    y = z.pow(1.0 / 3.0)
    y2, y2_err = _two_prod(y, y)
    y3, y3_err = _two_prod(y2, y)
    y = y + (((z - y3) - y3_err) - y2_err * y) / (3.0 * y2)
    root = torch.where((x == 0) | ~torch.isfinite(x), x, torch.ldexp(y, q))
    return in_elementwise_layout(torch.copysign(root, a.to(torch.float64)).to(a.dtype), a)


def _two_prod(u, v):
    """u * v as an unevaluated sum p + err, exactly (Veltkamp splitting; float64, no overflow)."""
    def split(w):
        c = w * 134217729.0     # 2 ** 27 + 1
        hi = c - (c - w)
        return hi, w - hi
    p = u * v
    (uh, ul), (vh, vl) = split(u), split(v)
    return p, ((uh * vh - p) + uh * vl + ul * vh) + ul * vl


def population_count(a):
    """Set bits of each element's two's-complement representation, in a's dtype."""
    # clone, not contiguous(): torch calls a tensor of at most one element contiguous whatever its stride,
    # and view(uint8) needs the last stride to be 1
    flat = a.clone(memory_format=torch.contiguous_format).reshape(-1)
    b = flat.view(torch.uint8).reshape(flat.numel(), a.element_size())
    # Bit counts per byte, in unsigned arithmetic (shifts fill with zeros): pairs, nibbles, bytes.
    b = b - ((b >> 1) & 0x55)
    b = (b & 0x33) + ((b >> 2) & 0x33)
    b = (b + (b >> 4)) & 0x0F
    return in_elementwise_layout(b.sum(dim=1, dtype=a.dtype).reshape(a.shape), a)


def count_leading_zeros(a):
    """Leading zero bits of each element in its dtype's width (0 for a negative signed value)."""
    width = torch.iinfo(a.dtype).bits
    # Bit length of the non-negative values by binary search: halving steps of width/2, ..., 1.
    # Only thresholds 2**s < 2**(width/2) are compared, so no constant overflows the dtype, and
    # the shifted values are non-negative, so arithmetic shifts equal logical ones.
    y = torch.where(a < 0, torch.zeros_like(a), a)
    length = torch.zeros_like(a)
    step = width // 2
    while step >= 1:
        above = y >= (1 << step)
        y = torch.where(above, y >> step, y)
        length = length + above.to(a.dtype) * step
        step //= 2
    length = length + y    # y is now 0 or 1: the last bit
    out = torch.where(a < 0, torch.zeros_like(a), width - length)
    return in_elementwise_layout(out, a)


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
    return in_elementwise_layout(out, a)
