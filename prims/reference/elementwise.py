"""Reference implementations of the elementwise prims (every elementwise family) that are not one
torch call as is: cube root, bit counts, logical right shift, mvlgamma, polygamma's argument order,
division rounded toward zero, real and imag as copies. Each is written in plain torch ops (CPU and
CUDA, no host sync); those built from several torch calls get the elementwise layout from their
entries' ``layout: elementwise``."""
from __future__ import annotations

import math

import torch



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
    return torch.copysign(root, a.to(torch.float64)).to(a.dtype)


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
    return b.sum(dim=1, dtype=a.dtype).reshape(a.shape)


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
    return out


def polygamma(a, n):
    # torch takes the order first; the prim takes the operand first, as every elementwise prim.
    return torch.special.polygamma(n, a)


def shift_right_logical(a, b):
    """a >> b filling with zeros (the bits of a read as unsigned); 0 where b is outside [0, bits)."""
    bits = torch.iinfo(a.dtype).bits
    inside = (b > 0) & (b < bits)
    shift = torch.where(inside, b, torch.ones_like(b))
    # Arithmetic shift, then clear the `shift` high bits the sign may have filled.
    keep = ~(torch.full_like(a, -1) << (bits - shift).to(a.dtype))
    shifted = (a >> shift) & keep
    out = torch.where(inside, shifted, torch.where(b == 0, a, torch.zeros_like(a)))
    return out


def mvlgamma(a, p):
    """Multivariate log-gamma of order p, eager's sum in eager's order:
    sum_j lgamma(a + (1 - p) / 2 + j / 2) for j = 0..p-1, plus p (p - 1) / 4 log(pi); nan where
    a <= (p - 1) / 2 (eager raises there, after a host sync; the prim does not look at values)."""
    offsets = torch.arange((1 - p) / 2, 0.5, 0.5, dtype=a.dtype, device=a.device)
    out = (a.unsqueeze(-1) + offsets).lgamma().sum(-1) + p * (p - 1) * math.log(math.pi) / 4
    out = torch.where(a > (p - 1) / 2, out, torch.full_like(out, float("nan")))
    return out


def trunc_divide(a, b):
    return torch.div(a, b, rounding_mode="trunc")


def _dense_copy(t):
    # Materialize a strided view (real/imag) densely in the same dim order.
    return t.clone(memory_format=torch.preserve_format)


def real(a):
    return _dense_copy(torch.real(a))


def imag(a):
    return _dense_copy(torch.imag(a))
