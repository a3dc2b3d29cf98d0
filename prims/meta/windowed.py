"""Meta rules of the windowed family: reduce_window_* and argmax_window (a contiguous output of one
size per dim, the number of window positions along it), select_and_scatter_add (the operand's
shape), im2col and col2im (torch's unfold and fold)."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule, one_of
from primkit.prims.meta.common import check_dtype, check_same_device, shape_str
from primkit.prims.layout import contiguous_strides

OUT_DTYPE = {"same": lambda d: d, "int64": lambda d: torch.int64}


def window_output_size(size, window, stride, low, high, dilation):
    """Window positions along one dim: the padded size must hold one dilated window."""
    padded, extent = size + low + high, (window - 1) * dilation + 1
    return (padded - extent) // stride + 1 if padded >= extent else 0


def check_windows(prim, rank, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    """C1 (one entry per dim) and C2 (sizes, strides, dilations >= 1, paddings >= 0) of the window arguments."""
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


def windows_shape(a, window_dimensions, window_strides, padding_low, padding_high, window_dilation):
    return tuple(window_output_size(*dim) for dim in zip(a.shape, window_dimensions, window_strides, padding_low,
                                                         padding_high, window_dilation))


@meta_rule("reduce_window", params={"out_dtype": one_of(*OUT_DTYPE)}, constraints=("C1", "C2", "C3"))
def reduce_window(prim, a, *window):
    check_windows(prim, len(a.shape), *window)
    check_dtype(prim, "C3", a, prim.dtypes)
    shape = windows_shape(a, *window)
    out_dtype = OUT_DTYPE[prim.params.get("out_dtype", "same")](a.dtype)
    return TensorMeta(shape, contiguous_strides(shape), out_dtype, a.device)


@meta_rule("select_and_scatter_add", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def select_and_scatter_add(prim, source, operand, *window):
    check_windows(prim, len(operand.shape), *window)
    check_dtype(prim, "C3", operand, prim.dtypes)
    check(source.dtype == operand.dtype, prim, "C4", lambda: f"source has dtype {dt.short(source.dtype)} but the "
          f"operand has {dt.short(operand.dtype)}")
    shape = windows_shape(operand, *window)
    check(tuple(source.shape) == shape, prim, "C5", lambda: f"source has shape {shape_str(source.shape)}, expected "
          f"the operand's window positions {shape_str(shape)}")
    check_same_device(prim, "C6", [source, operand])
    return TensorMeta(tuple(operand.shape), contiguous_strides(operand.shape), operand.dtype, operand.device)


def _check_pairs(prim, args):
    for name, values in args.items():
        check(len(values) == 2, prim, "C2", lambda: f"{name} has {len(values)} entries, expected 2 (height, width)")
    for name, values in args.items():
        least = 0 if name in ("padding", "output_size") else 1
        check(all(v >= least for v in values), prim, "C3", lambda: f"{name} is {list(values)}, expected every "
              f"entry >= {least}")


def blocks_shape(size, kernel_size, dilation, padding, stride):
    """Block positions (height, width) of im2col / col2im: windows of the padded size."""
    return tuple(window_output_size(n, k, s, p, p, d) for n, k, d, p, s in
                 zip(size, kernel_size, dilation, padding, stride))


@meta_rule("im2col", constraints=("C1", "C2", "C3"))
def im2col(prim, a, kernel_size, dilation, padding, stride):
    check(len(a.shape) == 4, prim, "C1", lambda: f"a has shape {shape_str(a.shape)}, expected 4-d (N, C, H, W)")
    _check_pairs(prim, {"kernel_size": kernel_size, "dilation": dilation, "padding": padding, "stride": stride})
    n, c, h, w = a.shape
    oh, ow = blocks_shape((h, w), kernel_size, dilation, padding, stride)
    shape = (n, c * kernel_size[0] * kernel_size[1], oh * ow)
    return TensorMeta(shape, contiguous_strides(shape), a.dtype, a.device)


@meta_rule("col2im", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def col2im(prim, a, output_size, kernel_size, dilation, padding, stride):
    check(len(a.shape) == 3, prim, "C1", lambda: f"a has shape {shape_str(a.shape)}, expected 3-d (N, C * kh * kw, L)")
    _check_pairs(prim, {"output_size": output_size, "kernel_size": kernel_size, "dilation": dilation,
                        "padding": padding, "stride": stride})
    n, ckk, length = a.shape
    k = kernel_size[0] * kernel_size[1]
    check(ckk % k == 0, prim, "C4", lambda: f"a.size(1) is {ckk}, expected a multiple of the kernel's "
          f"{kernel_size[0]} * {kernel_size[1]} = {k} elements")
    oh, ow = blocks_shape(output_size, kernel_size, dilation, padding, stride)
    check(length == oh * ow, prim, "C5", lambda: f"a.size(2) is {length}, expected the {oh} * {ow} = {oh * ow} block "
          f"positions of output_size {list(output_size)}")
    check_dtype(prim, "C6", a, prim.dtypes)
    shape = (n, ckk // k, output_size[0], output_size[1])
    return TensorMeta(shape, contiguous_strides(shape), a.dtype, a.device)
