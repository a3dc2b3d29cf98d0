"""Derivative helpers of the linalg family: the input, weight and bias gradients of convolution."""
from __future__ import annotations

from primkit.prims.derivative_helpers.common import prim_ops
from primkit.prims.derivative_helpers.elementwise import conj


def convolution_weight_grad(grad, input, weight, stride, padding, dilation, transposed, groups):
    """The weight gradient of ``convolution``: a convolution of the input (channels as batch, per
    group) with grad as the kernel, stride and dilation exchanged, cut to the kernel's size. For a
    transposed convolution grad and input exchange roles (it is the adjoint of a convolution)."""
    ops = prim_ops()
    x, gy = (grad, conj(input)) if transposed else (conj(input), grad)   # Wirtinger: the other operand conjugated
    n = weight.dim() - 2
    N, cin = x.shape[0], x.shape[1]
    cpg = cin // groups
    spatial = list(x.shape[2:])
    xg = ops.reshape(x, [N, groups, cpg] + spatial)
    xg = ops.reshape(ops.permute(xg, [2, 1, 0] + list(range(3, n + 3))), [cpg, groups * N] + spatial)
    kg = ops.permute(gy, [1, 0] + list(range(2, n + 2)))                      # (C, N, *o)
    out = ops.convolution(xg, kg, None, list(dilation), list(padding), list(stride), False, [0] * n, groups)
    out = ops.slice(out, [0] * (n + 2), [out.shape[0], out.shape[1]] + list(weight.shape[2:]), [1] * (n + 2))
    return ops.permute(out, [1, 0] + list(range(2, n + 2)))                    # (C, cpg, *k)


def convolution_input_grad(grad, input, weight, stride, padding, dilation, transposed, output_padding, groups):
    """The input gradient of ``convolution``: the transposed convolution of grad (output_padding
    chosen so the result has the input's size), or for a transposed convolution the plain one."""
    ops = prim_ops()
    n = weight.dim() - 2
    w = conj(weight)   # Wirtinger: the other operand conjugated
    if transposed:
        out = ops.convolution(grad, w, None, list(stride), list(padding), list(dilation), False, [0] * n, groups)
        # output_padding may reach past the stride (up to the dilation): the forward's last
        # output_padding rows then read no input, and the plain convolution gives one row more.
        return ops.slice(out, [0] * (n + 2), list(input.shape), [1] * (n + 2))
    extra = [input.shape[2 + i] - ((grad.shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                                   + dilation[i] * (weight.shape[2 + i] - 1) + 1) for i in range(n)]
    return ops.convolution(grad, w, None, list(stride), list(padding), list(dilation), True, extra, groups)


def convolution_bias_grad(grad):
    """The bias gradient of ``convolution``: grad summed over batch and spatial dims."""
    return prim_ops().sum(grad, [0] + list(range(2, grad.dim())))


HELPERS = (convolution_input_grad, convolution_weight_grad, convolution_bias_grad,)
