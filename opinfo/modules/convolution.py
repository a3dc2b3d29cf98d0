"""Convolutions and transposed convolutions, 1d to 3d."""
import torch
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, cl, f, fwd, variant, xfail


def _inputs(dims, c, n):
    """Batched and unbatched inputs of c channels and side n."""
    side = (n,) * dims
    return [fwd("batched", f(2, c, *side)), fwd("no_batch", f(c, *side))]


def _channels_last(dims, c, n, *args):
    """The default module on a channels-last input (2d, 3d), and the known stride difference of 3d."""
    if dims == 1:
        return (), ()
    return ((variant("channels_last", *args, forwards=[fwd("channels_last", cl(2, c, *(n,) * dims))]),),
            (xfail("eval", AssertionError, "a channels_last_3d input: eager's float32 kernel (oneDNN) gives a "
                   "channels-last result, the decomposition a contiguous one (strides differ; in float64 eager's "
                   "is contiguous too)", variants=["channels_last"], dtypes=[torch.float32]),) if dims == 3 else ())


def _conv(cls, dims):
    n = 5 if dims < 3 else 4
    one = lambda c: _inputs(dims, c, n)[:1]  # noqa: E731
    layout, layout_xfails = _channels_last(dims, 2, n, 2, 3, 3)
    return ModuleInfo(cls, (
        variant("default", 2, 3, 3, forwards=_inputs(dims, 2, n)), *layout,
        variant("stride2_pad1_nobias", 2, 3, 3, stride=2, padding=1, bias=False, forwards=one(2)),
        variant("groups2_dilation2", 4, 4, 2, groups=2, dilation=2, forwards=one(4)),
        variant("same_reflect", 2, 3, 3, padding="same", padding_mode="reflect", forwards=one(2)),
        variant("circular", 2, 3, 2, padding=1, padding_mode="circular", forwards=one(2)),
    ), family="convolution", xfails=layout_xfails)


def _conv_transpose(cls, dims):
    n = 4 if dims < 3 else 3
    one = lambda c: _inputs(dims, c, n)[:1]  # noqa: E731
    layout, layout_xfails = _channels_last(dims, 2, n, 2, 3, 3)
    return ModuleInfo(cls, (
        variant("default", 2, 3, 3, forwards=_inputs(dims, 2, n)), *layout,
        variant("stride2_outpad1_nobias", 2, 3, 3, stride=2, padding=1, output_padding=1, bias=False,
                forwards=one(2)),
        variant("groups2_dilation2", 4, 4, 2, groups=2, dilation=2, forwards=one(4)),
        # output_size picks the output padding at call time
        variant("output_size", 2, 3, 3, stride=2, forwards=[
            fwd("batched", f(2, 2, *(n,) * dims), output_size=(2 * n + 2,) * dims)]),
    ), family="convolution", xfails=layout_xfails)


MODULES = [_conv(nn.Conv1d, 1), _conv(nn.Conv2d, 2), _conv(nn.Conv3d, 3),
           _conv_transpose(nn.ConvTranspose1d, 1), _conv_transpose(nn.ConvTranspose2d, 2),
           _conv_transpose(nn.ConvTranspose3d, 3)]
