"""Decompositions of matrix products: mm, bmm, matmul, linear, dot, mv, outer and the
``add*`` family (beta * input + alpha * product).

All reach the one ``matmul`` prim, which takes equal batch dims: broadcasting is explicit
(``broadcast_in_dim``) and vectors become matrices by ``expand_dims``. Eager's products are
contiguous, as the prim's output is.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, elementwise, like, register_out, register_overloads, to_dtype, upcast)
from primkit.decompositions.registry import register
from primkit.decompositions.shape import in_layout
from primkit.prims import dtypes as dt


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


# --- factorizations and solves -----------------------------------------------------------------
# The linalg_decomp prims return row-major outputs; eager's LAPACK-backed kernels return every
# matrix column-major (batches contiguous, each matrix transposed), which ``column_major`` restores.

def column_major(t):
    """t laid out as eager's linalg kernels lay out a batch of matrices."""
    if t.dim() < 2:
        return t
    m, n = t.shape[-2], t.shape[-1]
    strides, step = [1, max(m, 1)], max(m, 1) * max(n, 1)
    for size in reversed(t.shape[:-2]):
        strides.insert(0, step)
        step *= max(size, 1)
    return in_layout(t, strides)


def _check_linalg_dtype(name, *tensors):
    for t in tensors:
        if t.dtype not in dt.FLOAT and t.dtype not in dt.COMPLEX or t.dtype in (torch.float16, torch.bfloat16):
            raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {dt.short(t.dtype)}"
                               if t.dtype in (torch.float16, torch.bfloat16) else
                               f"{name}: Expected a floating point or complex tensor as input. Got {dt.short(t.dtype)}")


def _check_square(name, a, what="A"):
    if a.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{name}: {what} must be batches of square matrices, but they are {a.shape[-2]} by "
                           f"{a.shape[-1]} matrices")


def _check_matrix(name, a, what="A"):
    if a.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")


def _zeros_info(a, dims):
    """The LAPACK info tensor of a successful factorization: int32 zeros over the batch dims
    (primkit's prims raise where a factorization fails, so info is always 0)."""
    return P.full(list(a.shape[:dims]), 0, dtype=torch.int32, device=a.device)


def _batch_broadcast(a, b):
    """a and b with their batch dims (all but the last two) broadcast to each other."""
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return broadcast_to(a, batch + tuple(a.shape[-2:])), broadcast_to(b, batch + tuple(b.shape[-2:]))


def cholesky_ex(a, *, upper=False, check_errors=False):
    _check_square("linalg.cholesky", a)
    _check_linalg_dtype("linalg.cholesky", a)
    return column_major(P.cholesky(a, upper)), _zeros_info(a, a.dim() - 2)


def linalg_cholesky(a, *, upper=False):
    return cholesky_ex(a, upper=upper)[0]


def cholesky(a, upper=False):
    return cholesky_ex(a, upper=upper)[0]


register_overloads(cholesky_ex, "linalg_cholesky_ex", ("default", "L"))
register_overloads(linalg_cholesky, "linalg_cholesky", ("default", "out"))
register_overloads(cholesky, "cholesky", ("default", "out"))


def solve_triangular(a, b, *, upper, left=True, unitriangular=False):
    for what, t in (("A", a), ("B", b)):
        _check_matrix("linalg.solve_triangular", t, what)
    _check_square("linalg.solve_triangular", a)
    _check_linalg_dtype("linalg.solve_triangular", a, b)
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{dt.short(a.dtype)} and B of type {dt.short(b.dtype)} instead")
    n = a.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    a, b = _batch_broadcast(a, b)
    return column_major(P.triangular_solve(a, b, upper, left, unitriangular))


def triangular_solve(b, a, upper=True, transpose=False, unitriangular=False):
    """(X, a copy of A) with A X = b, or A^T X = b when transpose."""
    coefficient = a if not transpose else P.permute(a, list(range(a.dim() - 2)) + [a.dim() - 1, a.dim() - 2])
    x = solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    a_batch = broadcast_shapes(a.shape[:-2], b.shape[:-2]) + tuple(a.shape[-2:])
    return x, column_major(P.clone(broadcast_to(a, a_batch)))


register_overloads(solve_triangular, "linalg_solve_triangular", ("default", "out"))
register_overloads(triangular_solve, "triangular_solve", ("default", "X"))


def lu_factor_ex(a, *, pivot=True, check_errors=False):
    _check_matrix("linalg.lu_factor", a)
    _check_linalg_dtype("linalg.lu_factor", a)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, pivots = P.lu_factor(a)
    return column_major(lu), pivots, _zeros_info(a, a.dim() - 2)


def lu_factor(a, *, pivot=True):
    return lu_factor_ex(a, pivot=pivot)[:2]


register_overloads(lu_factor_ex, "linalg_lu_factor_ex", ("default", "out"))
register_overloads(lu_factor, "linalg_lu_factor", ("default", "out"))


def linalg_lu_solve(lu, pivots, b, *, left=True, adjoint=False):
    _check_square("linalg.lu_solve", lu, "LU")
    _check_matrix("linalg.lu_solve", b, "B")
    if (b.shape[-2] if left else b.shape[-1]) != lu.shape[-1]:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({lu.shape[-2]}x{lu.shape[-1]} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    if lu.dtype != b.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{dt.short(lu.dtype)} and B of type {dt.short(b.dtype)} instead")
    lu, b = _batch_broadcast(lu, b)
    pivots = broadcast_to(pivots, tuple(lu.shape[:-1]))
    x = P.lu_solve(lu, pivots, b, left, adjoint)
    # eager solves X A = B as A^T X^T = B^T: the transpose of a column-major result is row-major
    return column_major(x) if left else x


register_overloads(linalg_lu_solve, "linalg_lu_solve", ("default", "out"))


def linalg_qr(a, mode="reduced"):
    _check_matrix("linalg.qr", a)
    _check_linalg_dtype("linalg.qr", a)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           f"or 'complete'")
    q, r = P.qr(a, "reduced" if mode == "r" else mode)
    if mode == "r":
        return P.full([0], 0, dtype=a.dtype, device=a.device), column_major(r)
    return column_major(q), column_major(r)


register_overloads(linalg_qr, "linalg_qr", ("default", "out"))


def _linalg_eigh(a, UPLO="L", compute_v=True):
    _check_square("linalg.eigh", a)
    _check_linalg_dtype("linalg.eigh", a)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    values, vectors = P.eigh(a, UPLO == "U")
    return values, column_major(vectors) if compute_v else P.full([0], 0, dtype=a.dtype, device=a.device)


register_overloads(_linalg_eigh, "_linalg_eigh", ("default", "eigenvalues"))


def _linalg_svd(a, full_matrices=False, compute_uv=True, *, driver=None):
    _check_matrix("linalg.svd", a)
    _check_linalg_dtype("linalg.svd", a)
    u, s, vh = P.svd(a, full_matrices)
    if not compute_uv:
        empty = P.full([0], 0, dtype=a.dtype, device=a.device)
        return empty, s, empty
    return column_major(u), s, column_major(vh)


register_overloads(_linalg_svd, "_linalg_svd", ("default", "U"))


def linalg_eig(a):
    _check_square("linalg.eig", a)
    _check_linalg_dtype("linalg.eig", a)
    values, vectors = P.eig(a)
    return values, column_major(vectors)


register_overloads(linalg_eig, "linalg_eig", ("default", "out"))
register_overloads(lambda a: linalg_eig(a)[0], "_linalg_eigvals", ("default",))


@register(aten._linalg_check_errors.default)
def _linalg_check_errors(info, api_name, *, is_matrix):
    """Nothing to check: the factorization prims raise where LAPACK reports a failure, so the
    info tensors the decompositions return are always zero."""
    return None


# --- determinants, inverses, solves through LU -------------------------------------------------

def _lu_of_square(name, a):
    _check_square(name, a)
    _check_linalg_dtype(name, a)
    lu, pivots = P.lu_factor(a)
    return lu, pivots


def _permutation_is_odd(pivots):
    """Whether the row swaps of LAPACK's 1-based pivots make an odd permutation (bool, batch shape)."""
    n = pivots.shape[-1]
    rows = broadcast_to(P.iota(n, start=1, step=1, dtype=torch.int32, device=pivots.device), tuple(pivots.shape))
    swaps = P.sum(to_dtype(P.ne(pivots, rows), torch.int64), [pivots.dim() - 1])
    return P.eq(P.remainder(swaps, like(swaps, 2)), like(swaps, 1))


def _flip_where(odd, x):
    return P.where(odd, P.neg(x), x)


def _linalg_det(a):
    lu, pivots = _lu_of_square("linalg.det", a)
    diagonal = P.diagonal(lu, 0, a.dim() - 2, a.dim() - 1)
    det = _flip_where(_permutation_is_odd(pivots), P.prod(diagonal, [diagonal.dim() - 1]))
    return det, column_major(lu), pivots


def _linalg_slogdet(a):
    lu, pivots = _lu_of_square("linalg.slogdet", a)
    diagonal = P.diagonal(lu, 0, a.dim() - 2, a.dim() - 1)
    last = diagonal.dim() - 1
    magnitude = P.abs(diagonal)
    if a.dtype in dt.COMPLEX:
        unit = P.div(diagonal, to_dtype(magnitude, a.dtype))
    else:
        unit = P.sign(diagonal)
    sign = _flip_where(_permutation_is_odd(pivots), P.prod(unit, [last]))
    return sign, P.sum(P.log(magnitude), [last]), column_major(lu), pivots


register_overloads(_linalg_det, "_linalg_det", ("default", "result"))
register_overloads(_linalg_slogdet, "_linalg_slogdet", ("default", "sign"))


def _identity_like(a):
    n = a.shape[-1]
    eye = torch.eye(n, dtype=a.dtype, device=a.device)
    return broadcast_to(eye, tuple(a.shape))


def inv_ex(a, *, check_errors=False):
    lu, pivots = _lu_of_square("linalg.inv", a)
    inverse = P.lu_solve(lu, pivots, _identity_like(a), True, False)
    return column_major(inverse), _zeros_info(a, a.dim() - 2)


register_overloads(inv_ex, "linalg_inv_ex", ("default", "inverse"))


def _linalg_solve_ex(a, b, *, left=True, check_errors=False):
    lu, pivots = _lu_of_square("linalg.solve", a)
    _check_linalg_dtype("linalg.solve", b)
    if a.dtype != b.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{dt.short(a.dtype)} and B of type {dt.short(b.dtype)} instead")
    # B is a (batch of) vector(s) when it is 1-d or has exactly A's batch shape and one size n.
    vector = b.dim() == 1 or (left and b.dim() == a.dim() - 1 and tuple(b.shape) == tuple(a.shape[:-1]))
    rhs = P.expand_dims(b, [b.dim()]) if vector else b
    n = a.shape[-1]
    if (rhs.shape[-2] if left else rhs.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({a.shape[-2]}x{n} and {rhs.shape[-2]}x{rhs.shape[-1]})")
    lu_b, rhs = _batch_broadcast(lu, rhs)
    pivots_b = broadcast_to(pivots, tuple(lu_b.shape[:-1]))
    x = P.lu_solve(lu_b, pivots_b, rhs, left, False)
    # eager solves a batch of vectors as one matrix whose columns they are; X A = B as A^T X^T = B^T
    x = column_major(P.squeeze(x, [x.dim() - 1])) if vector else column_major(x) if left else x
    return x, column_major(lu), pivots, _zeros_info(a, a.dim() - 2)


register_overloads(_linalg_solve_ex, "_linalg_solve_ex", ("default", "result"))
register_overloads(lambda a: linalg_eig(a)[0], "linalg_eigvals", ("out",))


# --- eager's composites ---------------------------------------------------------------------------
# These ops are CompositeImplicitAutograd: eager defines them in terms of the factorizations
# above (_linalg_eigh, _linalg_svd, lu_factor, _linalg_det, _linalg_solve_ex, matmul, norms),
# all of which decompose. Their decomposition is eager's own composite, run explicitly, so the
# table owns exactly eager's semantics and every op it reaches lowers to prims.

def _eager_composite(name, overloads=None):
    packet = getattr(aten, name)
    for overload in overloads or packet.overloads():
        op = getattr(packet, overload)

        def eager_composite(*args, _op=op, **kwargs):
            # the C++ composite itself (op.decompose would run the Python kernel that
            # decompositions.composite installs: this very function)
            return _op._op_dk(torch._C.DispatchKey.CompositeImplicitAutograd, *args, **kwargs)
        eager_composite.__qualname__ = eager_composite.__name__ = f"{name}.{overload}[eager composite]"
        register(op)(eager_composite)


for _name in ("linalg_eigh", "linalg_eigvalsh", "linalg_svd", "linalg_svdvals", "svd", "qr", "linalg_det", "det",
              "logdet", "slogdet", "linalg_slogdet", "linalg_inv", "inverse", "linalg_solve", "linalg_solve_ex",
              "linalg_matrix_rank", "linalg_norm", "linalg_matrix_norm",
              "nuclear_norm", "linalg_multi_dot", "chain_matmul", "linalg_matmul", "linalg_vecdot",
              "linalg_diagonal", "linalg_tensorsolve", "linalg_tensorinv"):
    _eager_composite(_name)
_eager_composite("linalg_eigvals", ("default",))


# --- condition number ----------------------------------------------------------------------------

_COND_ORDS = (1, -1, 2, -2, float("inf"), float("-inf"), "fro", "nuc")


def linalg_cond(a, p=None):
    """Eager's linalg.cond: for p = None / 2 / -2 the ratio of the extreme singular values, for 'nuc'
    sum(s) * sum(1 / s) over the singular values; else norm(A, p) * norm(A^-1, p), A^-1 all inf
    where A is singular (a zero pivot of its LU factorization, eager's info > 0), and a product
    nan (0 * inf) made inf. 0 for empty matrices."""
    if a.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    if ord not in _COND_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _check_linalg_dtype("linalg.cond", a)
    real = dt.to_real(a.dtype)
    if a.numel() == 0:
        return P.full(list(a.shape[:-2]), 0, dtype=real, device=a.device)
    if ord in (2, -2):
        s = torch.linalg.svdvals(a)
        high, low = aten.select.int(s, -1, 0), aten.select.int(s, -1, -1)
        return P.div(high, low) if ord == 2 else P.div(low, high)
    if a.shape[-1] != a.shape[-2]:
        shown = ord if isinstance(ord, str) else (f"{float(ord):f}" if isinstance(ord, float) and abs(ord) != float("inf")
                                                   else int(ord) if abs(ord) != float("inf") else ord)
        raise RuntimeError(f"linalg.cond(ord={shown}): A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if ord == "nuc":    # eager: the nuclear norms from the singular values, sum(s) * sum(1 / s)
        s = torch.linalg.svdvals(a)
        return torch.sum(s, -1) * torch.sum(torch.reciprocal(s), -1)
    lu, pivots = P.lu_factor(a)
    inverse = P.lu_solve(lu, pivots, _identity_like(a), True, False)
    diagonal = P.diagonal(lu, 0, a.dim() - 2, a.dim() - 1)
    zero = P.full(list(diagonal.shape), 0, dtype=a.dtype, device=a.device)
    singular = P.reduce_or(P.eq(diagonal, zero), [diagonal.dim() - 1])      # batch shape
    # the norm of eager's all-inf inverse is inf (taken on zeros here: an svd of inf does not converge)
    safe = P.where(P.broadcast_in_dim(singular, list(a.shape), list(range(a.dim() - 2))),
                   P.full(list(a.shape), 0, dtype=a.dtype, device=a.device), inverse)
    inf = P.full(list(singular.shape), float("inf"), dtype=real, device=a.device)
    product = P.mul(torch.linalg.matrix_norm(a, ord), P.where(singular, inf, torch.linalg.matrix_norm(safe, ord)))
    return P.where(P.ne(product, product), inf, product)


register_overloads(linalg_cond, "linalg_cond", ("default", "p_str", "out", "p_str_out"))


# --- matrix power --------------------------------------------------------------------------------

def matrix_power(a, n):
    """Eager's linalg.matrix_power, product for product: A^0 the identity, A^-1 the inverse, A^-n (A^-1)^n, A^1 a copy,
    A^2 and A^3 direct products, higher powers by binary exponentiation (squares z, and the result
    times z at each set bit, low bits first). Contiguous, as eager's."""
    if a.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if n == 0:
        return aten.contiguous.default(_identity_like(a))
    if n == -1:
        return torch.linalg.inv(a)
    if n < 0:
        a, n = torch.linalg.inv(a), -n
    if n == 1:
        return aten.contiguous.default(P.clone(a))
    if n == 2:
        return torch.matmul(a, a)
    if n == 3:
        return torch.matmul(torch.matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else torch.matmul(z, z)
        if bit:
            result = z if result is None else torch.matmul(result, z)
    return result


register_overloads(matrix_power, "linalg_matrix_power", ("default", "out"))
register_overloads(matrix_power, "matrix_power", ("default", "out"))
