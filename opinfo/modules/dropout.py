"""The dropout family: random in train mode (the graph draws what eager draws under the same seed),
the identity in eval mode."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, f, fwd, variant, xfail


def _dropout(cls, inputs, *extra, xfails=()):
    return ModuleInfo(cls, (variant("default", forwards=inputs),
                            variant("p0.2_inplace", 0.2, True, forwards=inputs[:1]), *extra),
                      family="dropout", random_in_train=True, xfails=xfails)


MODULES = [
    _dropout(nn.Dropout, [fwd("2d", f(4, 5))], variant("p1", 1.0, forwards=[fwd("2d", f(4, 5))]), xfails=(
        # the output (zeros) is eager's; the next random number drawn after it is not
        xfail("train", AssertionError, "p=1: eager's native_dropout returns zeros without drawing, the "
              "decomposition draws a mask: the generator ends in another state", variants=["p1"]),)),
    _dropout(nn.Dropout1d, [fwd("batched", f(2, 4, 3)), fwd("no_batch", f(4, 3))]),
    # (a 3-d input to Dropout2d is read as batched 1-d, with a deprecation warning: not tested)
    _dropout(nn.Dropout2d, [fwd("batched", f(2, 4, 2, 2))]),
    _dropout(nn.Dropout3d, [fwd("batched", f(2, 4, 2, 2, 2)), fwd("no_batch", f(4, 2, 2, 2))]),
    _dropout(nn.AlphaDropout, [fwd("2d", f(4, 5))]),
    _dropout(nn.FeatureAlphaDropout, [fwd("batched", f(2, 4, 2, 2))]),
]
