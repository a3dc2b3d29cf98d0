"""Decompositions of matrix products: mm, bmm, matmul, linear, dot, mv, outer and the
``add*`` family (beta * input + alpha * product).

All reach the one ``matmul`` prim, which takes equal batch dims: broadcasting is explicit
(``broadcast_in_dim``) and vectors become matrices by ``expand_dims``. Eager's products are
contiguous, as the prim's output is.
"""
from __future__ import annotations

import torch

from decompositions.common import P, broadcast_shapes, broadcast_to, elementwise, to_dtype, upcast
from decompositions.reductions import like, register_overloads
from prims import dtypes as dt


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
    batch = broadcast_shapes(left.shape[:-2], right.shape[:-2])
    out = P.matmul(broadcast_to(left, batch + tuple(left.shape[-2:])),
                   broadcast_to(right, batch + tuple(right.shape[-2:])))
    vector_dims = ([out.dim() - 2] if a.dim() == 1 else []) + ([out.dim() - 1] if b.dim() == 1 else [])
    return P.squeeze(out, vector_dims) if vector_dims else out


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
