"""The one tolerance table: (atol, rtol) per dtype with which primkit's results are compared to
eager's, one row per kind of comparison, each with the reason for its values. Everything that
compares against eager reads it from here (the OpInfo and ModuleInfo databases, the training, compile
and model tests)."""
from __future__ import annotations

import torch

TOLERANCES = {
    # One op: a decomposition's result against eager's kernel (a few ulps where the decomposition
    # rounds at other points than the kernel; an entry states wider ones beside it, with the reason).
    "values": {
        torch.float16: (1e-3, 1e-3),
        torch.bfloat16: (1e-2, 1.6e-2),
        torch.float32: (1e-5, 1.3e-6),
        torch.float64: (1e-7, 1e-7),
        torch.complex64: (1e-5, 1.3e-6),
        torch.complex128: (1e-7, 1e-7),
    },
    # Training (outputs, gradients, buffers, losses of a few steps): the graphs sum in another order
    # than eager's kernels (matmul, convolution gradients as convolutions, reductions over the batch
    # in batch norm's backward): a few ulps of values of magnitude ~1, over a handful of layers.
    "training": {
        torch.float32: (1e-5, 1e-4),
        torch.float64: (1e-7, 1e-7),
    },
    # Two-layer transformer models, traced against eager. float32: the graph and eager order their
    # sums differently (matmul, softmax, SDPA's fused kernels), a few ulps through 2 layers.
    # float16/bfloat16: eager's CUDA kernels (cuBLAS, fused attention) round intermediates to the
    # storage dtype at other points than the decompositions, which compute attention, softmax and
    # norms in float32 and round once; over 2 layers that is a few units of the last place of values
    # of magnitude ~1-4 (float16 eps 1e-3, bfloat16 eps 8e-3).
    "models": {
        torch.float32: (1e-5, 1e-5),
        torch.float16: (1e-2, 1e-2),
        torch.bfloat16: (5e-2, 5e-2),
    },
}


def tolerance(kind: str, dtype: torch.dtype) -> tuple:
    """(atol, rtol) of a comparison of ``kind`` (a key of TOLERANCES) at ``dtype``."""
    return TOLERANCES[kind][dtype]
