"""Meta rule of the windowed family (reduce_window_*, argmax_window): a contiguous output of
one size per dim, the number of window positions along it."""
from __future__ import annotations

import torch

from prims.errors import check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import check_dtype
from prims.meta.strides import contiguous_strides

OUT_DTYPE = {"same": lambda d: d, "int64": lambda d: torch.int64}


def window_output_size(size, window, stride, low, high, dilation):
    """Window positions along one dim: the padded size must hold one dilated window."""
    padded, extent = size + low + high, (window - 1) * dilation + 1
    return (padded - extent) // stride + 1 if padded >= extent else 0


@meta_rule("reduce_window", params=("out_dtype",), constraints=("C1", "C2", "C3"))
def reduce_window(prim, a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    rank = len(a.shape)
    args = {"window_dimensions": window_dimensions, "window_strides": window_strides, "padding_low": padding_low,
            "padding_high": padding_high, "window_dilation": window_dilation}
    for name, values in args.items():
        check(len(values) == rank, prim, "C1", lambda: f"{name} has {len(values)} entries but the operand has "
              f"rank {rank}")
    for name, values, least in (("window_dimensions", window_dimensions, 1), ("window_strides", window_strides, 1),
                                ("window_dilation", window_dilation, 1), ("padding_low", padding_low, 0),
                                ("padding_high", padding_high, 0)):
        check(all(v >= least for v in values), prim, "C2", lambda: f"{name} is {list(values)}, expected every "
              f"entry >= {least}")
    check_dtype(prim, "C3", a, prim.dtypes)
    shape = tuple(window_output_size(*dim) for dim in zip(a.shape, window_dimensions, window_strides, padding_low,
                                                          padding_high, window_dilation))
    out_dtype = OUT_DTYPE[prim.params.get("out_dtype", "same")](a.dtype)
    return TensorMeta(shape, contiguous_strides(shape), out_dtype, a.device)
