"""Shape and distance modules: Flatten, Unflatten, Fold, Unfold, CosineSimilarity, PairwiseDistance,
PixelShuffle, PixelUnshuffle, ChannelShuffle."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, cl, f, fwd, variant


def _shape(cls, *variants, **kw):
    return ModuleInfo(cls, tuple(variants), family="shape", **kw)


MODULES = [
    _shape(nn.Flatten, variant("default", forwards=[fwd("3d", f(2, 3, 4))]),
           variant("dims0_1", 0, 1, forwards=[fwd("3d", f(2, 3, 4))])),
    _shape(nn.Unflatten, variant("dim1", 1, (2, 2), forwards=[fwd("2d", f(3, 4))])),
    _shape(nn.Fold, variant("default", (4, 4), 2, forwards=[fwd("batched", f(2, 12, 9)), fwd("no_batch", f(12, 9))]),
           variant("stride2_pad1_dil", (4, 5), 2, dilation=1, padding=1, stride=2,
                   forwards=[fwd("batched", f(2, 8, 9))])),
    _shape(nn.Unfold, variant("default", 2, forwards=[fwd("batched", f(2, 3, 4, 4)), fwd("no_batch", f(3, 4, 4))]),
           variant("stride2_pad1_dil2", 2, dilation=2, padding=1, stride=2, forwards=[fwd("batched", f(2, 3, 4, 4))])),
    _shape(nn.CosineSimilarity, variant("default", forwards=[fwd("2d", f(3, 4), f(3, 4)),
                                                             fwd("broadcast", f(3, 4), f(1, 4))]),
           variant("dim0_eps", 0, 1e-6, forwards=[fwd("2d", f(3, 4), f(3, 4))])),
    _shape(nn.PairwiseDistance, variant("default", forwards=[fwd("2d", f(3, 4), f(3, 4)), fwd("no_batch", f(4), f(4))]),
           variant("p1_keepdim", 1.0, keepdim=True, forwards=[fwd("2d", f(3, 4), f(3, 4))])),
    _shape(nn.PixelShuffle, variant("default", 2, forwards=[fwd("batched", f(2, 8, 2, 2)),
                                                            fwd("no_batch", f(4, 2, 3))])),
    _shape(nn.PixelUnshuffle, variant("default", 2, forwards=[fwd("batched", f(2, 2, 4, 4)),
                                                              fwd("no_batch", f(1, 4, 2))])),
    _shape(nn.ChannelShuffle, variant("default", 2, forwards=[fwd("batched", f(2, 4, 3, 3)), fwd("3d", f(2, 4, 3)),
                                                             fwd("channels_last", cl(2, 4, 3, 3))])),
]
