"""Meta rules of the memory family: copies that keep or set a layout."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule
from primkit.prims.meta.common import check_dtype, check_same_device, shape_str
from primkit.prims.layout import elementwise_strides, is_non_overlapping, itemsize


@meta_rule("clone", constraints=("C1",))
def clone(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    return TensorMeta(tuple(a.shape), elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]),
                      a.dtype, a.device)


@meta_rule("copy_to", constraints=("C1", "C2", "C3"))
def copy_to(prim, dst, src):
    check(tuple(dst.shape) == tuple(src.shape), prim, "C1", lambda: f"src has shape {shape_str(src.shape)} but "
          f"dst has shape {shape_str(dst.shape)}")
    check(dst.dtype == src.dtype, prim, "C2", lambda: f"src has dtype {dt.short(src.dtype)} but dst has dtype "
          f"{dt.short(dst.dtype)}; convert first")
    check_same_device(prim, "C3", [dst, src])
    return dst


@meta_rule("device_put", constraints=("C1", "C2"))
def device_put(prim, a, device):
    check_dtype(prim, "C1", a, prim.dtypes)
    check(torch.device(a.device).type != "meta" or torch.device(device).type == "meta", prim, "C2",
          lambda: f"a is on the meta device, which holds no data to copy to {device}")
    return TensorMeta(tuple(a.shape), elementwise_strides(a.shape, [(a.stride(), itemsize(a.dtype))]),
                      a.dtype, torch.device(device))


@meta_rule("item", constraints=("C1", "C2"))
def item(prim, a):
    """The value, unknown without data: an unbacked SymInt, SymFloat or SymBool under FakeTensor (as eager's
    ``_local_scalar_dense``; a FakeTensorMode without a ShapeEnv raises DataDependentOutputException), a
    fresh symbol 'item_value' elsewhere (the rule runs on real tensors only to check constraints)."""
    numel = 1
    for s in a.shape:
        numel = numel * s
    check(numel == 1, prim, "C1", lambda: f"expected a tensor with exactly one element, got shape "
          f"{shape_str(a.shape)}")
    check_dtype(prim, "C2", a, prim.dtypes)
    memo = getattr(a, "item_memo", None)
    if memo is not None:   # torch.compile's float argument, a 0-d tensor whose value dynamo already made a symbol
        return memo
    ctx = torch.library.get_ctx()
    if ctx is not None:
        env = getattr(ctx, "_shape_env", None)   # FakeImplCtx's ShapeEnv: the public API only makes sizes (>= 0)
        if env is None or not env.allow_scalar_outputs:
            raise torch._subclasses.fake_tensor.DataDependentOutputException(torch.ops.primkit.item.default)
        if a.dtype == torch.bool:
            return env.create_unbacked_symbool()
        return env.create_unbacked_symfloat() if a.dtype.is_floating_point else env.create_unbacked_symint()
    from primkit.prims.symdim import SymDim, symbol   # imports sympy (0.3 s): only where a symbol is made
    return SymDim(symbol("item_value"))


@meta_rule("copy_strided", constraints=("C1", "C2"))
def copy_strided(prim, a, stride):
    check(len(stride) == len(a.shape), prim, "C1", lambda: f"stride has {len(stride)} entries but the operand has "
          f"rank {len(a.shape)}")
    check(all(s >= 0 for s in stride), prim, "C2", lambda: f"stride {list(stride)} has a negative entry")
    check(is_non_overlapping(a.shape, stride), prim, "C2", lambda: f"stride {list(stride)} makes elements of a "
          f"tensor of shape {shape_str(a.shape)} overlap")
    return TensorMeta(tuple(a.shape), tuple(stride), a.dtype, a.device)
