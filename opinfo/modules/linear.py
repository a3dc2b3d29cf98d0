"""Linear maps: Linear, Bilinear, Identity."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, f, fwd, variant

MODULES = [
    ModuleInfo(nn.Linear, (
        variant("default", 3, 4, forwards=[fwd("2d", f(2, 3)), fwd("no_batch", f(3)), fwd("3d", f(2, 5, 3))]),
        variant("no_bias", 3, 4, bias=False, forwards=[fwd("2d", f(2, 3))]),
    ), family="linear"),
    ModuleInfo(nn.Bilinear, (
        variant("default", 3, 2, 4, forwards=[fwd("2d", f(2, 3), f(2, 2)), fwd("no_batch", f(3), f(2))]),
        variant("no_bias", 3, 2, 4, bias=False, forwards=[fwd("2d", f(2, 3), f(2, 2))]),
    ), family="linear"),
    ModuleInfo(nn.Identity, (variant("default", forwards=[fwd("2d", f(2, 3))]),), family="linear"),
]
