"""Reference implementations of the fft family: ATen's spectral kernels (the family's ``layout``
makes the output contiguous)."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt

aten = torch.ops.aten


def _spectral(kernel, out_size, out_dtype):
    """kernel(a, dims, ...) with dims made non-negative (ATen's kernels expect it) and an empty
    operand answered directly (MKL rejects a zero-size batch)."""
    def fn(a, dims, mode, normalization):
        dims = [d % a.dim() for d in dims]
        if a.numel() == 0:
            shape = list(a.shape)
            shape[dims[-1]] = out_size(a.shape[dims[-1]], mode)
            return torch.zeros(shape, dtype=out_dtype(a.dtype), device=a.device)
        return kernel(a, dims, normalization, mode)
    return fn


fft_c2c = _spectral(aten._fft_c2c, lambda n, forward: n, lambda dtype: dtype)
fft_r2c = _spectral(aten._fft_r2c, lambda n, onesided: n // 2 + 1 if onesided else n, dt.to_complex)
fft_c2r = _spectral(aten._fft_c2r, lambda n, last_dim_size: last_dim_size, dt.to_real)
