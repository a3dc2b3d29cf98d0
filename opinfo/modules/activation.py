"""Activations: elementwise nonlinearities, the gated and softmax families."""
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, f, fwd, variant

_X = [fwd("2d", f(3, 4))]     # elementwise: one shape exercises the code path


def _act(cls, *variants, **kw):
    return ModuleInfo(cls, tuple(variants) or (variant("default", forwards=_X),), family="activation", **kw)


def _v(name, *args, forwards=_X, **kwargs):
    return variant(name, *args, forwards=forwards, **kwargs)


MODULES = [
    _act(nn.ReLU, _v("default"), _v("inplace", inplace=True)),
    _act(nn.ReLU6),
    _act(nn.LeakyReLU, _v("default"), _v("slope0.2_inplace", 0.2, inplace=True)),
    _act(nn.PReLU, _v("default", forwards=[fwd("batched", f(2, 3, 4)), fwd("no_batch", f(3))]),
         _v("per_channel", 3, forwards=[fwd("batched", f(2, 3, 4))])),
    _act(nn.RReLU, _v("default"), _v("lower0.2_upper0.5", 0.2, 0.5), random_in_train=True),
    _act(nn.ELU, _v("default"), _v("alpha0.5_inplace", 0.5, inplace=True)),
    _act(nn.SELU),
    _act(nn.CELU, _v("default"), _v("alpha0.5", 0.5)),
    _act(nn.GELU, _v("default"), _v("tanh", approximate="tanh")),
    _act(nn.SiLU),
    _act(nn.Mish),
    _act(nn.Sigmoid),
    _act(nn.Tanh),
    _act(nn.Hardtanh, _v("default"), _v("min-0.5_max0.5", -0.5, 0.5)),
    _act(nn.Hardsigmoid),
    _act(nn.Hardswish),
    _act(nn.Hardshrink, _v("default"), _v("lambda0.3", 0.3)),
    _act(nn.Softshrink, _v("default"), _v("lambda0.3", 0.3)),
    _act(nn.Tanhshrink),
    _act(nn.Softplus, _v("default"), _v("beta2_threshold1", beta=2.0, threshold=1.0)),
    _act(nn.Softsign),
    _act(nn.Threshold, _v("th0.1_value20", 0.1, 20.0)),
    _act(nn.GLU, _v("default"), _v("dim0", 0, forwards=[fwd("2d", f(4, 3))])),
    _act(nn.LogSigmoid),
    _act(nn.Softmax, _v("dim1", dim=1, forwards=[fwd("2d", f(3, 4)), fwd("3d", f(2, 3, 4))])),
    _act(nn.Softmin, _v("dim1", dim=1)),
    _act(nn.LogSoftmax, _v("dim1", dim=1, forwards=[fwd("2d", f(3, 4)), fwd("3d", f(2, 3, 4))])),
    _act(nn.Softmax2d, _v("default", forwards=[fwd("batched", f(2, 3, 2, 2)), fwd("no_batch", f(3, 2, 2))])),
]
