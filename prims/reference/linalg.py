"""Reference implementation of convolution: torch's, with complex operands through four real
convolutions, laid out channels-last where an operand is."""
from __future__ import annotations

import torch


def _channels_last(t) -> bool:
    # torch's own reading of the strides (not the meta rule's helpers: the tests compare the two)
    return t.dim() == 4 and t.is_contiguous(memory_format=torch.channels_last) and not t.is_contiguous()


def _complex_convolution(x, weight, bias, *params):
    # aten's convolution kernels are real-only: (xr + i xi) * (wr + i wi) from four real ones.
    def conv(a, b):
        return torch.convolution(a, b, None, *params)
    out = torch.complex(conv(x.real, weight.real) - conv(x.imag, weight.imag),
                        conv(x.real, weight.imag) + conv(x.imag, weight.real))
    return out if bias is None else out + bias.view(-1, *([1] * (x.dim() - 2)))


def _no_channels(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    """A convolution with no input or no output channels: each output a sum over nothing, so the bias alone.
    torch's kernels refuse it or give no output channels; one channel per group gives them the spatial size."""
    probe = torch.zeros(x.shape[0], groups, *x.shape[2:], device=x.device)
    spatial = torch.convolution(probe, probe.new_zeros(groups, 1, *weight.shape[2:]), None, stride, padding,
                                dilation, transposed, output_padding, groups).shape[2:]
    out = x.new_zeros(x.shape[0], weight.shape[1] * groups if transposed else weight.shape[0], *spatial)
    return out if bias is None else out + bias.view(-1, *([1] * (x.dim() - 2)))


def convolution(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    if 0 in (x.shape[1], weight.shape[0], weight.shape[1]):
        conv = _no_channels
    else:
        conv = _complex_convolution if x.is_complex() else torch.convolution
    out = conv(x, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
    fmt = torch.channels_last if (_channels_last(x) or _channels_last(weight)) else torch.contiguous_format
    return out.contiguous(memory_format=fmt)
