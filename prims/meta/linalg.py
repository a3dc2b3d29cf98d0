"""Meta rules of the linear-algebra family: matmul and N-d convolution."""
from __future__ import annotations

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule
from primkit.prims.meta.common import check_dtype, check_same_device, shape_str
from primkit.prims.layout import channels_last_strides, contiguous_strides, is_channels_last, is_contiguous


@meta_rule("matmul", constraints=("C1", "C2", "C3", "C4"))
def matmul(prim, a, b):
    check(len(a.shape) >= 2 and len(a.shape) == len(b.shape), prim, "C1", lambda: f"operands have ranks "
          f"{len(a.shape)} and {len(b.shape)}; expected equal ranks >= 2")
    check(tuple(a.shape[:-2]) == tuple(b.shape[:-2]), prim, "C2", lambda: f"batch dims "
          f"{shape_str(a.shape[:-2])} and {shape_str(b.shape[:-2])} differ; prims do not broadcast")
    check(a.shape[-1] == b.shape[-2], prim, "C3", lambda: f"contraction sizes differ: a is {shape_str(a.shape)}, "
          f"b is {shape_str(b.shape)}")
    check(a.dtype == b.dtype, prim, "C4", lambda: f"dtypes differ: {dt.short(a.dtype)} and {dt.short(b.dtype)}")
    check_dtype(prim, "C4", a, prim.dtypes)
    check_same_device(prim, "C4", [a, b])
    shape = tuple(a.shape[:-1]) + (b.shape[-1],)
    return TensorMeta(shape, contiguous_strides(shape), a.dtype, a.device)


def _channels_last(t) -> bool:
    return len(t.shape) == 4 and is_channels_last(t.shape, t.stride()) and not is_contiguous(t.shape, t.stride())


@meta_rule("convolution", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def convolution(prim, x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    n = len(x.shape) - 2
    check(n >= 1 and len(weight.shape) == n + 2, prim, "C1", lambda: f"input {shape_str(x.shape)} and weight "
          f"{shape_str(weight.shape)} must both have rank N+2 with N >= 1")
    for name, v in (("stride", stride), ("padding", padding), ("dilation", dilation), ("output_padding", output_padding)):
        check(len(v) == n, prim, "C2", lambda: f"{name} has {len(v)} entries, expected {n}")
    check(groups >= 1 and all(s >= 1 for s in stride) and all(d >= 1 for d in dilation) and all(p >= 0 for p in padding),
          prim, "C2", lambda: f"need groups >= 1, stride >= 1, dilation >= 1, padding >= 0; got {groups}, "
          f"{list(stride)}, {list(dilation)}, {list(padding)}")
    if transposed:      # torch's transposed kernels hold these in 32 bits (stride 2**40 reads as 0)
        check(all(v < 2 ** 31 for v in (*stride, *padding, *dilation, *output_padding)), prim, "C2",
              lambda: f"transposed: stride {list(stride)}, padding {list(padding)}, dilation {list(dilation)} and "
              f"output_padding {list(output_padding)} must be below 2**31")
    cin = x.shape[1]
    check(all(p >= 0 for p in output_padding), prim, "C6", lambda: f"output_padding {list(output_padding)} must be >= 0")
    if transposed:
        check(all(p < max(s, d) for p, s, d in zip(output_padding, stride, dilation)), prim, "C6",
              lambda: f"output_padding {list(output_padding)} must be smaller than stride {list(stride)} "
              f"or dilation {list(dilation)} in each dim")
        check(weight.shape[0] == cin and cin % groups == 0, prim, "C3", lambda: f"transposed weight "
              f"{shape_str(weight.shape)} needs {cin} input channels (divisible by groups={groups})")
        cout = weight.shape[1] * groups
        spatial = [(x.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (weight.shape[2 + i] - 1)
                   + output_padding[i] + 1 for i in range(n)]
    else:
        check(cin == weight.shape[1] * groups and weight.shape[0] % groups == 0, prim, "C3", lambda: f"weight "
              f"{shape_str(weight.shape)} with groups={groups} expects {weight.shape[1] * groups} input channels, "
              f"input has {cin}")
        cout = weight.shape[0]
        spatial = [(x.shape[2 + i] + 2 * padding[i] - dilation[i] * (weight.shape[2 + i] - 1) - 1) // stride[i] + 1
                   for i in range(n)]
    check(all(s > 0 for s in spatial), prim, "C4", lambda: f"output spatial size {spatial} is not positive")
    check(x.dtype == weight.dtype and (bias is None or bias.dtype == x.dtype), prim, "C5",
          lambda: "input, weight and bias must share one dtype")
    check_dtype(prim, "C5", x, prim.dtypes)
    check_same_device(prim, "C5", [x, weight] + ([bias] if bias is not None else []))
    if bias is not None:
        check(tuple(bias.shape) == (cout,), prim, "C3", lambda: f"bias has shape {shape_str(bias.shape)}, "
              f"expected ({cout},)")
    shape = (x.shape[0], cout, *spatial)
    # The prim's layout: channels-last when input or weight is channels-last, else contiguous.
    strides = channels_last_strides(shape) if (_channels_last(x) or _channels_last(weight)) else contiguous_strides(shape)
    return TensorMeta(shape, strides, x.dtype, x.device)
