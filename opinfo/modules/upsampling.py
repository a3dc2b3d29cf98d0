"""Upsampling: Upsample in each mode, UpsamplingNearest2d, UpsamplingBilinear2d."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, cl, f, fwd, variant


def _up(cls, *v):
    return ModuleInfo(cls, tuple(v), family="upsampling")


MODULES = [
    _up(nn.Upsample,
        variant("nearest_1d", scale_factor=2, forwards=[fwd("batched", f(2, 2, 3))]),
        variant("nearest_2d_size", size=(5, 4), forwards=[fwd("batched", f(2, 2, 3, 3)),
                                                          fwd("channels_last", cl(2, 2, 3, 3))]),
        variant("nearest_exact_3d", scale_factor=1.5, mode="nearest-exact",
                forwards=[fwd("batched", f(1, 2, 2, 2, 2))]),
        variant("linear_align_corners", scale_factor=2, mode="linear", align_corners=True,
                forwards=[fwd("batched", f(2, 2, 3))]),
        variant("bilinear", scale_factor=2, mode="bilinear", forwards=[fwd("batched", f(2, 2, 3, 3)),
                                                                        fwd("channels_last", cl(2, 2, 3, 3))]),
        variant("bicubic_align_corners", size=(4, 5), mode="bicubic", align_corners=True,
                forwards=[fwd("batched", f(1, 2, 3, 3))]),
        variant("trilinear", scale_factor=2, mode="trilinear", forwards=[fwd("batched", f(1, 2, 2, 2, 2))])),
    _up(nn.UpsamplingNearest2d, variant("scale2", scale_factor=2, forwards=[fwd("batched", f(2, 2, 3, 3))])),
    _up(nn.UpsamplingBilinear2d, variant("scale2", scale_factor=2, forwards=[fwd("batched", f(2, 2, 3, 3))])),
]
