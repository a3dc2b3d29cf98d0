"""Derivative helpers of the fft family: each transform's adjoint is the inverse transform,
unscaled beyond ``normalization``."""
from __future__ import annotations

from primkit.prims.derivative_helpers.common import full, prim_ops


def fft_r2c_back(grad, a, dims, onesided, normalization):
    """The gradient of fft_r2c: the adjoint of the forward transform is the inverse one, unscaled
    beyond ``normalization``; a onesided output is first padded back with zeros to a's size in
    dims[-1] (the dropped half did not reach the output). Real part: a is real."""
    ops = prim_ops()
    if onesided:
        d = dims[-1] % a.dim()
        high = [0] * a.dim()
        high[d] = a.shape[d] - grad.shape[d]
        grad = ops.pad(grad, 0, [0] * a.dim(), high, [0] * a.dim())
    return ops.real(ops.fft_c2c(grad, list(dims), False, normalization))


def fft_c2r_back(grad, a, dims, normalization):
    """The gradient of fft_c2r: the output is Re(G (w a)) with G the inverse transform of the
    one-sided half and w 2 on the terms that stand for a conjugate pair, 1 on the self-conjugate
    ones (index 0 and, for an even size, n / 2); its adjoint is w times the one-sided forward
    transform of grad."""
    ops = prim_ops()
    g = ops.fft_r2c(grad, list(dims), True, normalization)
    d = dims[-1] % g.dim()
    n, m = grad.shape[d], g.shape[d]
    paired = n - m     # indices 1 .. paired are the halves of conjugate pairs
    w = ops.cat([full([1], 1, g), full([paired], 2, g), full([m - 1 - paired], 1, g)], 0)
    return ops.mul(g, ops.broadcast_in_dim(w, list(g.shape), [d]))


HELPERS = (fft_r2c_back, fft_c2r_back,)
