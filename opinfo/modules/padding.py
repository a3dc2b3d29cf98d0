"""Padding: zero, constant, reflection, replication and circular padding, 1d to 3d."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, cl, f, fwd, variant, xfail

# Per dimensionality: an asymmetric padding, and a negative one (cropping) where the mode takes it.
_PAD = {1: (2, 1), 2: (1, 0, 2, 1), 3: (1, 0, 1, 2, 0, 1)}
_CROP = {1: (2, -1), 2: (1, -1, 0, 2), 3: (1, -1, 0, 1, 1, 0)}


def _inputs(dims):
    side = (3,) * dims
    out = [fwd("batched", f(2, 2, *side)), fwd("no_batch", f(2, *side))]
    if dims > 1:
        out.append(fwd("channels_last", cl(2, 2, *side)))
    return out


def _pad(cls, dims, *extra, crop=True, xfails=()):
    vs = [variant("asymmetric", _PAD[dims], *extra, forwards=_inputs(dims))]
    if crop:
        vs.append(variant("negative", _CROP[dims], *extra, forwards=_inputs(dims)[:1]))
    return ModuleInfo(cls, tuple(vs), family="padding", xfails=xfails)


# Eager's circular padding with a negative pad wraps around the cropped input ([0, 1, 2] padded by
# (2, -1) gives [0, 1, 0, 1]); pad_circular (decompositions/nn/padding.py) wraps around the whole
# input ([1, 2, 0, 1]).
_CIRCULAR_CROP = (xfail("eval", AssertionError, "a negative circular pad: pad_circular wraps around the whole "
                        "input, eager around the cropped one", variants=["negative"]),)


MODULES = [
    _pad(nn.ZeroPad1d, 1), _pad(nn.ZeroPad2d, 2), _pad(nn.ZeroPad3d, 3),
    _pad(nn.ConstantPad1d, 1, 0.5), _pad(nn.ConstantPad2d, 2, 0.5), _pad(nn.ConstantPad3d, 3, 0.5),
    *(_pad(cls, d, crop=False)
      for d, cls in ((1, nn.ReflectionPad1d), (2, nn.ReflectionPad2d), (3, nn.ReflectionPad3d))),
    *(_pad(cls, d, crop=False)
      for d, cls in ((1, nn.ReplicationPad1d), (2, nn.ReplicationPad2d), (3, nn.ReplicationPad3d))),
    *(_pad(cls, d, xfails=_CIRCULAR_CROP)
      for d, cls in ((1, nn.CircularPad1d), (2, nn.CircularPad2d), (3, nn.CircularPad3d))),
]
