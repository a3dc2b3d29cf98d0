"""Products of several inputs with a weight: bilinear and _trilinear.
"""
from __future__ import annotations

from primkit.decompositions.common import P, aten, elementwise, register_out, to_dtype, upcast
from primkit.decompositions.registry import register


@register(aten._trilinear.default)
def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """sum over sumdim of i1 * i2 * i3, each first unsqueezed at its expand dims."""
    def expanded(t, dims):
        return P.expand_dims(t, sorted(dims)) if dims else t
    # float16/bfloat16 compute in float32 and round once (eager rounds each pairwise product)
    (a, b, c), orig = upcast(expanded(i1, expand1), expanded(i2, expand2), expanded(i3, expand3))
    if 0 in (a.numel(), b.numel(), c.numel()):
        # eager's shortcut: zeros whose every kept dim is the largest size there among the inputs not expanded
        # there (not their broadcast: sizes 0 and 1 give 1)
        def size(d):
            return max([t.shape[d] for t, e in ((a, expand1), (b, expand2), (c, expand3)) if d not in e] or [1])
        return P.full([size(d) for d in range(a.dim()) if d not in sumdim], 0, dtype=orig, device=i1.device)
    x = elementwise(P.mul, elementwise(P.mul, a, b), c)
    return to_dtype(P.sum(x, sorted(sumdim)) if sumdim else x, orig)


register_out(aten._trilinear.out, trilinear, "_trilinear")


@register(aten.bilinear.default)
def bilinear(x1, x2, weight, bias=None):
    if x1.dim() != x2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {x1.dim()} and {x2.dim()}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): weight must be a 3D tensor, got {weight.dim()}D")
    # y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j]
    left = aten.matmul.default(aten.unsqueeze.default(aten.unsqueeze.default(x1, -2), -3), weight)   # (..., O, 1, J)
    y = aten.squeeze.dim(aten.matmul.default(left, aten.unsqueeze.default(aten.unsqueeze.default(x2, -2), -1)), -1)
    y = aten.squeeze.dim(y, -1)
    return y if bias is None else aten.add.Tensor(y, bias)
