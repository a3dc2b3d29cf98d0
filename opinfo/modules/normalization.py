"""Normalizations: batch, instance, group, layer, RMS and local-response norms.

Not here: CrossMapLRN2d, whose forward is a legacy autograd.Function (no setup_context), which
torch refuses to trace under make_fx or AOTAutograd at all, with or without primkit."""
from torch import nn

from torch._subclasses.fake_tensor import DataDependentOutputException

from primkit.opinfo.module_db import ModuleInfo, cl, f, fwd, variant, xfail


def _norm(cls, *variants, **kw):
    return ModuleInfo(cls, tuple(variants), family="normalization", **kw)


def _batch(cls, shapes):
    fws = [fwd(name, f(*s)) for name, s in shapes]
    layout, xfails = (), ()
    if len(shapes[0][1]) >= 4:
        layout = (variant("channels_last", 3, forwards=[fwd("channels_last", cl(*shapes[0][1]))]),)
    if len(shapes[0][1]) == 5:
        xfails = (xfail("eval", AssertionError, "a channels_last_3d input: eager's result is channels-last, the "
                        "decomposition's contiguous (strides differ)", variants=["channels_last"]),)
    return _norm(cls, variant("default", 3, forwards=fws), *layout,
                 variant("no_affine_no_stats", 3, affine=False, track_running_stats=False, forwards=fws[:1]),
                 variant("cumulative_average", 3, momentum=None, forwards=fws[:1]),
                 xfails=(xfail("train", DataDependentOutputException,
                               "momentum=None: the module computes its factor 1 / float(num_batches_tracked) "
                               "in Python, a read of a buffer's value that AOTAutograd's fake tensors cannot give",
                               variants=["cumulative_average"]), *xfails))


def _instance(cls, dims):
    side = (3,) * dims
    fws = [fwd("batched", f(2, 3, *side)), fwd("no_batch", f(3, *side))]
    if dims > 1:
        fws.append(fwd("channels_last", cl(2, 3, *side)))
    return _norm(cls, variant("default", 3, forwards=fws),
                 variant("affine_stats", 3, affine=True, track_running_stats=True, forwards=fws[:1]))


MODULES = [
    _batch(nn.BatchNorm1d, [("batched", (4, 3)), ("3d", (2, 3, 4))]),
    _batch(nn.BatchNorm2d, [("batched", (2, 3, 3, 3))]),
    _batch(nn.BatchNorm3d, [("batched", (2, 3, 2, 2, 2))]),
    _instance(nn.InstanceNorm1d, 1), _instance(nn.InstanceNorm2d, 2), _instance(nn.InstanceNorm3d, 3),
    _norm(nn.GroupNorm, variant("default", 2, 4, forwards=[fwd("4d", f(2, 4, 3, 3)), fwd("3d", f(2, 4, 5)),
                                                          fwd("channels_last", cl(2, 4, 3, 3))]),
          variant("no_affine", 2, 4, affine=False, forwards=[fwd("4d", f(2, 4, 3, 3))])),
    _norm(nn.LayerNorm, variant("default", [4], forwards=[fwd("3d", f(2, 3, 4)), fwd("1d", f(4))]),
          variant("2d_shape_no_bias", [3, 4], bias=False, forwards=[fwd("3d", f(2, 3, 4))]),
          variant("no_affine", 4, elementwise_affine=False, forwards=[fwd("3d", f(2, 3, 4))])),
    _norm(nn.RMSNorm, variant("default", [4], forwards=[fwd("3d", f(2, 3, 4)), fwd("1d", f(4))]),
          variant("eps_2d_shape", [3, 4], eps=1e-5, forwards=[fwd("3d", f(2, 3, 4))]),
          variant("no_affine", 4, elementwise_affine=False, forwards=[fwd("3d", f(2, 3, 4))])),
    _norm(nn.LocalResponseNorm, variant("default", 2, forwards=[fwd("4d", f(2, 4, 3, 3)), fwd("3d", f(2, 4, 5))]),
          variant("size3_alpha_beta_k", 3, alpha=0.01, beta=0.5, k=2.0, forwards=[fwd("5d", f(2, 4, 2, 2, 2))])),
]
