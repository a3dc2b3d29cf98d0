"""Products: mm, bmm, matmul, linear, dot, mv, outer, the add* family (beta * input + alpha * product),
addr, inner, tensordot, and the out_dtype overloads (mm.dtype, ...). All reach the one matmul prim.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, elementwise, into_out, like, register_out, register_overloads, to_dtype, upcast, wrap_dims, write_into)
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import result_type
from primkit.prims import dtypes as dt
from primkit.prims.layout import numel, surely


def _shape(t):
    return "x".join(str(s) for s in t.shape)


def _check_rank(name, t, rank, what):
    if t.dim() != rank:
        raise RuntimeError(f"{name}: {what} must be a {rank}D tensor, but got a {t.dim()}D tensor" if rank != 2
                           else f"{what} must be a matrix")


def _check_same_dtype(name, a, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got "
                           f"{dt.short(a.dtype)} and {dt.short(b.dtype)}")


def mm(a, b):
    _check_rank("mm", a, 2, "self")
    _check_rank("mm", b, 2, "mat2")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape(a)} and {_shape(b)})")
    _check_same_dtype("mm", a, b)
    return P.matmul(a, b)


def bmm(a, b):
    _check_rank("bmm", a, 3, "batch1")
    _check_rank("bmm", b, 3, "batch2")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_same_dtype("bmm", a, b)
    return P.matmul(a, b)


def matmul(a, b):
    """Vectors become a row (left) or a column (right) and lose that dim again; batch dims broadcast."""
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.dim()}D and "
                           f"{b.dim()}D")
    left = a if a.dim() >= 2 else P.expand_dims(a, [0])
    right = b if b.dim() >= 2 else P.expand_dims(b, [1])
    if left.shape[-1] != right.shape[-2]:
        raise RuntimeError(f"matmul: contraction sizes differ: {_shape(a)} and {_shape(b)}")
    _check_same_dtype("matmul", a, b)
    if b.dim() <= 2 and _folds(left):
        # eager folds a's batch into the rows of one matrix product (mm, not bmm over a broadcast b)
        out = P.reshape(P.matmul(P.reshape(left, [numel(left.shape[:-1]), left.shape[-1]]), right),
                        list(left.shape[:-1]) + [right.shape[-1]])
        return P.squeeze(out, [out.dim() - 1]) if b.dim() == 1 else out
    batch = broadcast_shapes(left.shape[:-2], right.shape[:-2])
    out = P.matmul(broadcast_to(left, batch + tuple(left.shape[-2:])),
                   broadcast_to(right, batch + tuple(right.shape[-2:])))
    vector_dims = ([out.dim() - 2] if a.dim() == 1 else []) + ([out.dim() - 1] if b.dim() == 1 else [])
    return P.squeeze(out, vector_dims) if vector_dims else out


def _folds(t) -> bool:
    """Whether eager's matmul folds t (3 or more dims, times a matrix or vector) into one matrix: its
    dims but the last view as one without a copy (at::native::should_fold)."""
    shape, strides = t.shape, t.stride()
    return t.dim() >= 3 and all(surely(strides[i] == strides[i + 1] * shape[i + 1]) for i in range(t.dim() - 2))


def linear(x, weight, bias=None):
    out = matmul(x, P.permute(weight, [1, 0]) if weight.dim() == 2 else weight)
    return out if bias is None else torch.add(out, bias)


def _vector_dot(name, a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")
    _check_same_dtype(name, a, b)
    return P.reshape(P.matmul(P.expand_dims(a, [0]), P.expand_dims(b, [1])), [])


def dot(a, b):
    return _vector_dot("dot", a, b)


def vdot(a, b):
    # vdot conjugates its first operand; for real dtypes it is dot.
    return _vector_dot("vdot", P.conj_physical(a) if a.dtype in dt.COMPLEX else a, b)


def mv(m, v):
    if m.dim() != 2 or v.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {m.dim()}, {v.dim()}")
    if m.shape[1] != v.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({m.shape[0]}), mat ({_shape(m)}), vec ({v.shape[0]})")
    _check_same_dtype("mv", m, v)
    return P.squeeze(P.matmul(m, P.expand_dims(v, [1])), [1])


def outer(a, b):
    for what, t in (("self", a), ("vec2", b)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {what}, but got {t.dim()}-D")
    return elementwise(P.mul, P.expand_dims(a, [1]), b)


for _name, _fn in (("mm", mm), ("bmm", bmm), ("matmul", matmul), ("dot", dot), ("vdot", vdot), ("mv", mv),
                   ("outer", outer), ("ger", outer)):
    register_overloads(_fn, _name, ("default", "out"))
register_overloads(linear, "linear", ("default", "out"))


def _scaled_sum(name, input, product, beta, alpha):
    """beta * input + alpha * product, input broadcast to the product's shape. beta == 0 ignores
    input (nan and inf included), as eager does. ``product`` is in the computation dtype."""
    if broadcast_shapes(input.shape, product.shape) != tuple(product.shape):
        raise RuntimeError(f"{name}: input of shape {list(input.shape)} does not broadcast to the product's shape "
                           f"{list(product.shape)}")
    out = product if alpha == 1 else P.mul(product, like(product, alpha))
    if beta != 0:
        x = broadcast_to(to_dtype(input, product.dtype), product.shape)
        out = P.add(out, x if beta == 1 else P.mul(x, like(x, beta)))
    return to_dtype(out, input.dtype)


def _upcast_product(product_fn, a, b):
    # Eager's float16/bfloat16 kernels accumulate in float32 and round once, after scaling.
    (a, b), _ = upcast(a, b)
    return product_fn(a, b)


def _add_product(name, product_fn):
    def decomp(input, a, b, *, beta=1, alpha=1):
        _check_same_dtype(name, input, a)
        return _scaled_sum(name, input, _upcast_product(product_fn, a, b), beta, alpha)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


def _batch_sum_of_products(a, b):
    """addbmm's product: the sum over the batch of a[i] @ b[i]."""
    return P.sum(bmm(a, b), [0])


for _name, _product in (("addmm", mm), ("addmv", mv), ("baddbmm", bmm), ("addbmm", _batch_sum_of_products)):
    register_overloads(_add_product(_name, _product), _name, ("default", "out"), inplace=("default",))


# --- out_dtype overloads: mm.dtype, bmm.dtype, addmm.dtype, baddbmm.dtype ----------------------------
# Eager has these kernels on CUDA only (cuBLAS: float16/bfloat16 operands, accumulated and written in
# float32, or any operand dtype written in its own); CPU has none, and dispatch raises
# NotImplementedError, which the decompositions raise too.

def _check_out_dtype_kernel(op_name, device, out_dtype, operand_dtype):
    if device.type == "cpu":
        raise NotImplementedError(f"Could not run 'aten::{op_name}' with arguments from the 'CPU' backend (eager "
                                  f"implements the out_dtype overloads on CUDA only)")
    if not (out_dtype == operand_dtype or
            (out_dtype == torch.float32 and operand_dtype in (torch.float16, torch.bfloat16))):
        raise RuntimeError("out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs")


def _check_dtype_out(out, result):
    if out.dtype != result.dtype:
        raise RuntimeError("out_dtype must be the same as the dtype of the provided out tensor")


def mm_dtype(a, b, out_dtype):
    for what, t in (("self", a), ("mat2", b)):
        if t.dim() != 2:
            raise RuntimeError(f"{what} must be a matrix, got {t.dim()}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape(a)} and {_shape(b)})")
    if a.dtype != b.dtype:
        raise RuntimeError("input dtypes must be the same")
    _check_out_dtype_kernel("mm.dtype", a.device, out_dtype, a.dtype)
    return to_dtype(_upcast_product(mm, a, b), out_dtype)


def _check_batches(a, b):
    for what, t in (("batch1", a), ("batch2", b)):
        if t.dim() != 3:
            raise RuntimeError(f"{what} must be a 3D tensor")
    if b.shape[0] != a.shape[0] or b.shape[1] != a.shape[2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a.shape[0]}, "
                           f"{a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    if a.dtype != b.dtype:
        raise RuntimeError("batch1 and batch2 must have the same dtype")


def bmm_dtype(a, b, out_dtype):
    _check_batches(a, b)
    _check_out_dtype_kernel("bmm.dtype", a.device, out_dtype, a.dtype)
    return to_dtype(_upcast_product(bmm, a, b), out_dtype)


def _scaled_sum_as(name, input, product, beta, alpha, out_dtype):
    """beta * input + alpha * product computed in the product's (float32 or wider) dtype, rounded once
    to out_dtype."""
    return to_dtype(_scaled_sum(name, to_dtype(input, product.dtype), product, beta, alpha), out_dtype)


def addmm_dtype(input, a, b, out_dtype, *, beta=1, alpha=1):
    if input.dtype != b.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {dt.short(input.dtype)} and "
                           f"{dt.short(b.dtype)}")
    if a.dtype != b.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {dt.short(a.dtype)} and "
                           f"{dt.short(b.dtype)}")
    for what, t in (("mat1", a), ("mat2", b)):
        if t.dim() != 2:
            raise RuntimeError(f"{what} must be a matrix, got {t.dim()}-D tensor")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape(a)} and {_shape(b)})")
    _check_out_dtype_kernel("addmm.dtype", a.device, out_dtype, input.dtype)
    return _scaled_sum_as("addmm", input, _upcast_product(mm, a, b), beta, alpha, out_dtype)


def baddbmm_dtype(input, a, b, out_dtype, *, beta=1, alpha=1):
    _check_batches(a, b)
    _check_out_dtype_kernel("baddbmm.dtype", a.device, out_dtype, a.dtype)
    if input.dim() != 3:
        raise RuntimeError("self must be a 3D tensor")
    if tuple(input.shape) != (a.shape[0], a.shape[1], b.shape[2]):
        raise RuntimeError("self must have the same shape as the output")
    return _scaled_sum_as("baddbmm", input, _upcast_product(bmm, a, b), beta, alpha, out_dtype)


for _name, _fn in (("mm", mm_dtype), ("bmm", bmm_dtype), ("addmm", addmm_dtype), ("baddbmm", baddbmm_dtype)):
    register(getattr(aten, _name).dtype)(_fn)
    register_out(getattr(aten, _name).dtype_out, _fn, f"{_fn.__name__}[out]", check=_check_dtype_out)


def conj_transpose(t):
    swapped = P.permute(t, list(range(t.dim() - 2)) + [t.dim() - 1, t.dim() - 2])
    return P.conj_physical(swapped) if t.dtype in dt.COMPLEX else swapped


# --- products -----------------------------------------------------------------------------------------

def _check_addr_scalar(dtype, value, what):
    if isinstance(value, bool) and dtype != torch.bool:
        raise RuntimeError(f"Boolean {what} only supported for Boolean results.")
    if (dtype in dt.INT or dtype == torch.bool) and isinstance(value, float):
        raise RuntimeError(f"For integral input tensors, argument {what} must not be a floating point number.")


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2); beta == 0 ignores input (its nan and inf too)."""
    for what, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {what}, but got {v.dim()}-D")
    dtype = result_type(input, vec1, vec2)
    _check_addr_scalar(dtype, beta, "beta")
    _check_addr_scalar(dtype, alpha, "alpha")
    shape = (vec1.shape[0], vec2.shape[0])
    if broadcast_shapes(input.shape, shape) != shape:
        raise RuntimeError(f"The expanded size of the tensor ({shape[1]}) must match the existing size "
                           f"({input.shape[-1]}) at non-singleton dimension 1.  Target sizes: {list(shape)}.  "
                           f"Tensor sizes: {list(input.shape)}")

    def math_(x, column, row):
        if dtype == torch.bool:
            product = P.logical_and(P.logical_and(column, row), like(column, bool(alpha)))
            return P.logical_or(P.logical_and(x, like(x, bool(beta))), product) if beta else product
        product = P.mul(column, row)
        product = product if alpha == 1 else P.mul(product, like(product, alpha))
        if beta == 0:
            return product
        return P.add(x if beta == 1 else P.mul(x, like(x, beta)), product)
    return elementwise(math_, input, P.expand_dims(vec1, [1]), vec2)


register_overloads(addr, "addr", ("default", "out"), inplace=("default",))


def tensordot(a, b, dims_a, dims_b):
    """Contract dims_a of a with dims_b of b: both permuted and reshaped to matrices, one mm."""
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype != b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    dims_a, dims_b = wrap_dims(dims_a, a.dim(), unique=True), wrap_dims(dims_b, b.dim(), unique=True)
    contracted = 1
    for da, db in zip(dims_a, dims_b):
        sa, sb = a.shape[da], b.shape[db]
        if sb == 1:         # a size-1 dim broadcasts: sum the other side's dim right away
            a = torch.sum(a, da, keepdim=True, dtype=a.dtype)
        elif sa == 1:
            b = torch.sum(b, db, keepdim=True, dtype=b.dtype)
        elif sa != sb:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {sa} in dim {da} and second "
                               f"has size {sb} in dim {db}")
        else:
            contracted *= sa
    free_a = [d for d in range(a.dim()) if d not in dims_a]
    free_b = [d for d in range(b.dim()) if d not in dims_b]
    rows = math.prod(a.shape[d] for d in free_a)
    cols = math.prod(b.shape[d] for d in free_b)
    left = torch.reshape(torch.permute(a, free_a + dims_a), (rows, contracted))
    right = torch.reshape(torch.permute(b, dims_b + free_b), (contracted, cols))
    sizes = [a.shape[d] for d in free_a] + [b.shape[d] for d in free_b]
    return torch.reshape(torch.mm(left, right), sizes)


def _no_promotion(out, result):
    """tensordot's out= takes no type promotion: out must have the result's dtype (as eager's)."""
    if out.dtype != result.dtype:
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {dt.short(result.dtype)}, but got an "
                           f"output tensor with dtype {dt.short(out.dtype)}")


def inner(a, b):
    if a.dim() == 0 or b.dim() == 0:
        return torch.mul(a, b)
    if a.shape[-1] != b.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(a.shape)} and {list(b.shape)}")
    return tensordot(a, b, [a.dim() - 1], [b.dim() - 1])


@register(aten.inner.out)
def inner_out(a, b, *, out):
    if a.dim() == 0 or b.dim() == 0:    # eager's mul.out: type promotion into out
        return write_into(out, inner(a, b), "inner.out", resize=True)
    return into_out(inner, aten.inner.out, "tensordot", check=_no_promotion)(a, b, out=out)


register(aten.inner.default)(inner)
register(aten.tensordot.default)(tensordot)
register_out(aten.tensordot.out, tensordot, "tensordot", check=_no_promotion)
