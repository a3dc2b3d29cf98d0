"""Pooling: max, average, adaptive, fractional and LP pooling, and max unpooling."""
import torch
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, T, cl, f, fwd, variant


def _inputs(dims, n=4, c=2, *, layouts=True):
    side = (min(n, 3) if dims == 3 else n,) * dims     # 3d: side 3, a few windows per dim
    out = [fwd("batched", f(2, c, *side)), fwd("no_batch", f(c, *side))]
    if dims > 1 and layouts:
        out.append(fwd("channels_last", cl(2, c, *side)))
    return out


def _pool(cls, *variants, **kw):
    return ModuleInfo(cls, tuple(variants), family="pooling", **kw)


def _max(cls, dims):
    n = 5 if dims < 3 else 4
    one = _inputs(dims, n)[:1]
    return _pool(cls, variant("default", 2, forwards=_inputs(dims, n)),
                 variant("k3_s1_p1_dil2", 3, stride=1, padding=1, dilation=2, forwards=one),
                 variant("ceil_indices", 2, ceil_mode=True, return_indices=True, forwards=one))


def _avg(cls, dims):
    n = 5 if dims < 3 else 4
    one = _inputs(dims, n)[:1]
    vs = [variant("default", 2, forwards=_inputs(dims, n)),
          variant("k3_s2_p1_ceil_exclude_pad", 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False,
                  forwards=one)]
    if dims > 1:
        vs.append(variant("divisor_override", 2, divisor_override=3, forwards=one))
    return _pool(cls, *vs)


def _adaptive(cls, dims, max_pool):
    one = _inputs(dims, 5 if dims < 3 else 4)[:1]
    vs = [variant("out2", 2, forwards=_inputs(dims, 5 if dims < 3 else 4)),
          variant("out3_none" if dims > 1 else "out3", (3, None, 2)[:dims] if dims > 1 else 3, forwards=one)]
    if max_pool:
        vs.append(variant("indices", 2, return_indices=True, forwards=one))
    return _pool(cls, *vs)


def _lp(cls, dims):
    one = _inputs(dims, 4)[:1]
    # A negative input to the power p=1.5 would be NaN: LP pooling of nonnegative activations.
    pos = [fwd("batched", T((2, 2) + (4 if dims < 3 else 3,) * dims, "positive"))]
    return _pool(cls, variant("p2_k2", 2, 2, forwards=_inputs(dims, 4, layouts=False)),
                 variant("p1.5_k3_s1_ceil", 1.5, 3, stride=1, ceil_mode=True, forwards=pos),
                 variant("p1_k2", 1, 2, forwards=one))


def _indices(dims, n):
    """Indices as max pooling with kernel 2 gives them for an input of side n (each unique)."""
    pool = (None, nn.functional.max_pool1d, nn.functional.max_pool2d, nn.functional.max_pool3d)[dims]

    def make(gen, dtype):
        return pool(torch.randn((2, 2) + (n,) * dims, generator=gen), 2, return_indices=True)[1]
    return T((2, 2) + (n // 2,) * dims, make)


def _unpool(cls, dims):
    n = 4
    side = (n // 2,) * dims
    return _pool(cls, variant("k2", 2, forwards=[fwd("batched", f(2, 2, *side), _indices(dims, n))]),
                 variant("k2_output_size", 2, forwards=[
                     fwd("batched", f(2, 2, *side), _indices(dims, n), output_size=(n + 1,) * dims)]))


def _fractional(cls, dims):
    n = 5
    fws = [fwd("batched", f(2, 2, *(n,) * dims)), fwd("no_batch", f(2, *(n,) * dims))]
    # F.fractional_max_pool{dims}d draws its _random_samples with torch.rand, in eval too: through the uniform_p
    # generator prim, eager's numbers under the same seed (decompositions/random.py)
    return _pool(cls, variant("out3", 2, output_size=3, forwards=fws),
                 variant("ratio_indices", 2, output_ratio=0.5, return_indices=True, forwards=fws[:1]),
                 random_in_train=True)

MODULES = [
    _max(nn.MaxPool1d, 1), _max(nn.MaxPool2d, 2), _max(nn.MaxPool3d, 3),
    _avg(nn.AvgPool1d, 1), _avg(nn.AvgPool2d, 2), _avg(nn.AvgPool3d, 3),
    _adaptive(nn.AdaptiveMaxPool1d, 1, True), _adaptive(nn.AdaptiveMaxPool2d, 2, True),
    _adaptive(nn.AdaptiveMaxPool3d, 3, True),
    _adaptive(nn.AdaptiveAvgPool1d, 1, False), _adaptive(nn.AdaptiveAvgPool2d, 2, False),
    _adaptive(nn.AdaptiveAvgPool3d, 3, False),
    _fractional(nn.FractionalMaxPool2d, 2), _fractional(nn.FractionalMaxPool3d, 3),
    _lp(nn.LPPool1d, 1), _lp(nn.LPPool2d, 2), _lp(nn.LPPool3d, 3),
    _unpool(nn.MaxUnpool1d, 1), _unpool(nn.MaxUnpool2d, 2), _unpool(nn.MaxUnpool3d, 3),
]
