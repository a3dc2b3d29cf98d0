"""Backward of convolution: the input gradient a transposed convolution, the weight gradient a convolution
of input and grad_output, the bias gradient a sum.
"""
from __future__ import annotations

from primkit.decompositions.backward.pooling import _channels_last
from primkit.decompositions.common import P, aten, to_dtype, upcast
from primkit.decompositions.nn.common import is_channels_last_4d, per_dim
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous


# ----------------------------------------------------------------------------- convolution


def _weight_grad(x, gy, kernel, stride, padding, dilation, groups):
    """d(conv(x, w))/dw contracted with gy: itself a convolution of x (channels as batch) with gy
    (as the kernel), stride and dilation swapped, cut to the kernel size."""
    n = len(kernel)
    N, cin = x.shape[0], x.shape[1]
    cpg = cin // groups
    # x: (N, G*cpg, *s) -> (cpg, G*N, *s), so group g of the new channels is group g of x's.
    spatial = list(x.shape[2:])
    xg = P.reshape(contiguous(x), [N, groups, cpg] + spatial)
    xg = P.reshape(contiguous(P.permute(xg, [2, 1, 0] + list(range(3, n + 3)))), [cpg, groups * N] + spatial)
    kg = P.permute(gy, [1, 0] + list(range(2, n + 2)))            # (Cout, N, *o)
    out = P.convolution(xg, kg, None, dilation, padding, stride, False, [0] * n, groups)   # (cpg, Cout, *k')
    starts, limits = [0] * (n + 2), [out.shape[0], out.shape[1]] + list(kernel)
    out = P.slice(out, starts, limits, [1] * (n + 2))
    return P.permute(out, [1, 0] + list(range(2, n + 2)))         # (Cout, cpg, *k)


def _input_grad(gy, w, in_spatial, stride, padding, dilation, groups):
    """d(conv(x, w))/dx contracted with gy: the transposed convolution, output_padding chosen so
    the result has x's size."""
    n = len(in_spatial)
    out_spatial = gy.shape[2:]
    output_padding = [in_spatial[i] - ((out_spatial[i] - 1) * stride[i] - 2 * padding[i]
                                       + dilation[i] * (w.shape[2 + i] - 1) + 1) for i in range(n)]
    return P.convolution(gy, w, None, stride, padding, dilation, True, output_padding, groups)


def _empty_input_grads(grad_output, a, weight, bias_sizes, output_mask):
    """An input of no elements (eager accepts an empty batch or no input channels, not an empty spatial dim):
    every gradient is zeros of its operand's shape, the bias's too (eager's forward drops the bias where there
    are no input channels, and grad_output then has none either)."""
    layout = _channels_last if is_channels_last_4d(a) or is_channels_last_4d(weight) else contiguous
    zeros = lambda shape: P.full(list(shape), 0, dtype=grad_output.dtype, device=grad_output.device)  # noqa: E731
    return (layout(zeros(a.shape)) if output_mask[0] else None, layout(zeros(weight.shape)) if output_mask[1] else None,
            zeros(bias_sizes) if output_mask[2] else None)


@register(aten.convolution_backward.default)
def convolution_backward(grad_output, a, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
                         groups, output_mask):
    n = weight.dim() - 2
    if a.dim() != n + 2 or grad_output.dim() != n + 2:
        raise RuntimeError(f"convolution_backward: expected {n + 2}-D input and grad_output for a {n + 2}-D weight, "
                           f"got input {list(a.shape)} and grad_output {list(grad_output.shape)}")
    stride, padding, dilation, output_padding = (per_dim(k, v, n) for k, v in (
        ("stride", stride), ("padding", padding), ("dilation", dilation), ("output_padding", output_padding)))
    kernel = list(weight.shape[2:])
    if a.numel() == 0:
        return _empty_input_grads(grad_output, a, weight, bias_sizes, output_mask)
    grad_input = grad_weight = grad_bias = None
    if not transposed:
        if output_mask[0]:
            grad_input = _input_grad(grad_output, weight, list(a.shape[2:]), stride, padding, dilation, groups)
        if output_mask[1]:
            grad_weight = _weight_grad(a, grad_output, kernel, stride, padding, dilation, groups)
    else:
        # y = conv_transpose(x, w) is the adjoint of x = conv(y, w): swap the roles of x and y.
        if output_mask[0]:
            grad_input = P.convolution(grad_output, weight, None, stride, padding, dilation, False, [0] * n, groups)
        if output_mask[1]:
            grad_weight = _weight_grad(grad_output, a, kernel, stride, padding, dilation, groups)
    # Eager lays both gradients out channels-last when the input or the weight is, else contiguous.
    layout = _channels_last if is_channels_last_4d(a) or is_channels_last_4d(weight) else contiguous
    grad_input = None if grad_input is None else layout(grad_input)
    grad_weight = None if grad_weight is None else layout(grad_weight)
    if output_mask[2]:
        (g,), orig = upcast(grad_output)
        grad_bias = to_dtype(P.sum(g, [0] + list(range(2, n + 2))), orig)
    return grad_input, grad_weight, grad_bias
