"""Decompositions of linear algebra.

- Products: mm, bmm, matmul, linear, dot, mv, outer, the ``add*`` family (beta * input + alpha *
  product), addr, inner, tensordot and einsum. All reach the one ``matmul`` prim, which takes equal
  batch dims: broadcasting is explicit (``broadcast_in_dim``) and vectors become matrices by
  ``expand_dims``. Eager's products are contiguous, as the prim's output is.
- Factorizations and solves: Cholesky, LU, QR (Householder: geqrf, ormqr, householder_product),
  LDL, eigen and singular value decompositions, least squares, the pseudo-inverse, determinants,
  inverses, the matrix exponential and power, condition numbers. They reach the linalg_decomp
  prims, whose outputs are row-major; eager's LAPACK kernels return column-major matrices, which
  ``column_major`` restores.
- Eager's compositions (CompositeImplicitAutograd) written again in ops that decompose, so their
  rounding, type promotion and output strides follow eager's: vander, trace, kron, cross.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, elementwise, into_out, like, register_out, register_overloads,
    register_with_variants, round_to, to_dtype, upcast, wrap_dim, wrap_dims, write_into)
from primkit.decompositions.nn.common import numel_of
from primkit.decompositions.registry import register
from primkit.decompositions.shape import contiguous, in_layout
from primkit.decompositions.type_promotion import result_type
from primkit.prims import dtypes as dt
from primkit.prims.meta.strides import surely


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
        out = P.reshape(P.matmul(P.reshape(left, [numel_of(left.shape[:-1]), left.shape[-1]]), right),
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
    (the prim raises where its factorization fails, or eager reports none)."""
    return P.full(list(a.shape[:dims]), 0, dtype=torch.int32, device=a.device)


def _lu_info(lu):
    """LAPACK getrf's info of an LU factorization (int32, batch shape): the 1-based index of the first
    zero on U's diagonal, 0 where there is none (the lu_factor prim factorizes a singular matrix too)."""
    diagonal = P.diagonal(lu, 0, lu.dim() - 2, lu.dim() - 1)
    k, last = diagonal.shape[-1], diagonal.dim() - 1
    if k == 0:   # an empty matrix: nothing to divide by
        return _zeros_info(lu, lu.dim() - 2)
    index = broadcast_to(P.iota(k, start=1, step=1, dtype=torch.int32, device=lu.device), tuple(diagonal.shape))
    beyond = like(index, k + 1)
    first = P.amin(P.where(P.eq(diagonal, like(diagonal, 0)), index, beyond), [last])
    return P.where(P.eq(first, like(first, k + 1)), like(first, 0), first)


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
    if a.numel() == 0:   # the deprecated torch.cholesky returns an empty tensor before checking any shape
        return P.full(list(a.shape), 0, dtype=a.dtype, device=a.device)
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
    return column_major(lu), pivots, _lu_info(lu)


def lu_factor(a, *, pivot=True):
    lu, pivots, info = lu_factor_ex(a, pivot=pivot)
    _linalg_check_errors(info, "torch.linalg.lu_factor", is_matrix=a.dim() == 2)
    return lu, pivots


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


def _lu_of_det(name, a):
    """The LU factorization eager's det and slogdet return (and their backward ops read): of A^T where A
    is row-major and real (det(A^T) = det(A), and A's memory is A^T's in the column-major layout LAPACK
    takes, so eager copies nothing), else of A."""
    transposed = a.dim() >= 2 and a.is_contiguous() and a.dtype not in dt.COMPLEX
    return _lu_of_square(name, conj_transpose(a) if transposed else a)


def _linalg_det(a):
    lu, pivots = _lu_of_det("linalg.det", a)
    diagonal = P.diagonal(lu, 0, a.dim() - 2, a.dim() - 1)
    det = _flip_where(_permutation_is_odd(pivots), P.prod(diagonal, [diagonal.dim() - 1]))
    return det, column_major(lu), pivots


def _linalg_slogdet(a):
    lu, pivots = _lu_of_det("linalg.slogdet", a)
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
    return column_major(inverse), _lu_info(lu)


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
    return x, column_major(lu), pivots, _lu_info(lu)


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


# Eager's messages where a factorization's info is positive, by the api name they name (its first match,
# as eager's _linalg_check_errors): info's value itself (which pivot) is data, which a traced message
# cannot hold.
_INFO_MESSAGES = (
    ("inv", "The diagonal element is zero, the inversion could not be completed because the input matrix is "
            "singular."),
    ("solve", "The solver failed because the input matrix is singular."),
    ("cholesky", "The factorization could not be completed because the input is not positive-definite."),
    ("lu_factor", "U has a zero on its diagonal and using it on lu_solve would result in a division by zero. If you "
                  "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
                  "linalg.lu_factor_ex(A, pivot)"),
)


@register(aten._linalg_check_errors.default)
def _linalg_check_errors(info, api_name, *, is_matrix):
    """Eager's check of a factorization's LAPACK info where the graph runs: info (int32, batch shape) all
    zero, read on the host (the item prim) and checked by aten._assert_scalar, as torch._check is. The
    decompositions' info is real where a prim completes a failed factorization (lu_factor's zero pivot);
    the cholesky prim raises itself. Under AOTAutograd the check reaches the graph as a
    with_effects node, which graph.effects.lower_effects replaces by this entry's prims."""
    reason = next((m for key, m in _INFO_MESSAGES if key in api_name), "The algorithm failed (info > 0).")
    batch = "" if is_matrix or info.numel() <= 1 else " (in some batch element)"
    ok = P.reduce_and(P.eq(info, like(info, 0)), list(range(info.dim())))
    aten._assert_scalar.default(P.item(ok), f"{api_name}{batch}: {reason}")


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

LAPACK_DTYPES = frozenset({torch.float32, torch.float64, torch.complex64, torch.complex128})


def _check_kernel_dtype(kernel, *tensors):
    """Eager's LAPACK kernels exist for float32/64 and complex64/128 only (NotImplementedError)."""
    for t in tensors:
        if t.dtype not in LAPACK_DTYPES:
            raise NotImplementedError(f'"{kernel}" not implemented for \'{dt.short(t.dtype)}\'')


def _check_at_least_2d(name, t, what="input"):
    if t.dim() < 2:
        raise RuntimeError(f"{name}: {what} must have at least 2 dimensions.")


def _check_operand_dtypes(name, what_a, a, what_b, b):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected {what_a} and {what_b} to have the same dtype, but got {what_a} of dtype "
                           f"{dt.short(a.dtype)} and {what_b} of dtype {dt.short(b.dtype)}")


def _empty(dtype, device):
    return P.full([0], 0, dtype=dtype, device=device)


# --- Householder QR -------------------------------------------------------------------------------

def geqrf(a):
    _check_at_least_2d("torch.geqrf", a)
    _check_kernel_dtype("geqrf_cpu", a)
    a_qr, tau = P.geqrf(a)
    return column_major(a_qr), tau


def _check_reflectors(name, a, tau):
    """tau holds one scale per reflector of a, over a's batch dims."""
    if tau.dim() != a.dim() - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.dim()} and input.ndim is equal to {a.dim()}")
    if tuple(tau.shape[:-1]) != tuple(a.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")


def householder_product(a, tau):
    name = "torch.linalg.householder_product"
    _check_at_least_2d(name, a)
    if a.shape[-2] < a.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau.dim() >= 1 and a.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    _check_reflectors(name, a, tau)
    if tau.dtype != a.dtype:
        raise RuntimeError(f"{name}: tau dtype {dt.short(tau.dtype)} does not match input dtype {dt.short(a.dtype)}")
    _check_kernel_dtype("orgqr_cpu", a)
    return column_major(P.householder_product(a, tau))


def ormqr(a, tau, other, left=True, transpose=False):
    """Q other (left) or other Q, Q^H for Q when transpose; Q is given by geqrf's (a, tau)."""
    name = "torch.ormqr"
    _check_at_least_2d(name, a)
    _check_at_least_2d(name, other, "other")
    side = -2 if left else -1
    if other.shape[side] != a.shape[-2]:
        raise RuntimeError(f"{name}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.dim() >= 1 and tau.shape[-1] != min(other.shape[side], a.shape[-1]):
        raise RuntimeError(f"{name}: tau.shape[-1] must be equal to min(other.shape[{side}], input.shape[-1])")
    _check_reflectors(name, a, tau)
    if other.dim() != a.dim():
        raise RuntimeError(f"{name}: Expected other to have the same number of dimensions as input, but got other.ndim "
                           f"equal to {other.dim()} and input.ndim is equal to {a.dim()}")
    if tuple(other.shape[:-2]) != tuple(a.shape[:-2]):
        raise RuntimeError(f"{name}: Expected batch dimensions of other to be equal to input.shape[:-2], but got "
                           f"{list(other.shape[:-2])}")
    _check_operand_dtypes(name, "input", a, "tau", tau)
    _check_operand_dtypes(name, "input", a, "other", other)
    _check_kernel_dtype("ormqr_cpu", a)
    return column_major(P.ormqr(a, tau, other, left, transpose))


register_overloads(geqrf, "geqrf", ("default", "a"))
register_overloads(ormqr, "ormqr", ("default", "out"))
register_overloads(householder_product, "linalg_householder_product", ("default", "out"))
register_overloads(householder_product, "orgqr", ("default", "out"))     # orgqr is its older name


# --- solves through a Cholesky factor -------------------------------------------------------------

def cholesky_solve(b, factor, upper=False):
    """X with A X = b, A = L L^H (U^H U when upper) given by its Cholesky factor; batch dims broadcast."""
    for what, t in (("b", b), ("u", factor)):
        if t.dim() < 2:
            raise RuntimeError(f"{what} should have at least 2 dimensions, but has {t.dim()} dimensions instead")
    if factor.shape[-1] != factor.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {factor.shape[-2]} by "
                           f"{factor.shape[-1]} matrices")
    if factor.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is {factor.shape[-2]} by "
                           f"{factor.shape[-1]} but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if b.dtype != factor.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {dt.short(b.dtype)} and A "
                           f"of type {dt.short(factor.dtype)} instead.")
    _check_kernel_dtype("cholesky_solve_cpu", b)
    b, factor = _batch_broadcast(b, factor)
    return column_major(P.cholesky_solve(b, factor, upper))


def cholesky_inverse(factor, upper=False):
    """A^-1 from A's Cholesky factor: the solve against the identity."""
    _check_square("cholesky_inverse", factor)
    _check_kernel_dtype("cholesky_inverse_out_cpu", factor)
    return column_major(P.cholesky_solve(_identity_like(factor), factor, upper))


register_overloads(cholesky_solve, "cholesky_solve", ("default", "out"))
register_overloads(cholesky_inverse, "cholesky_inverse", ("default", "out"))


# --- LDL ------------------------------------------------------------------------------------------
# The ldl prims take hermitian=False for complex operands (C3, C5: cuSOLVER has no complex Hermitian
# LDL): eager's CPU kernel (LAPACK hetrf) does; here that case is refused, with the reason.

def _refuse_complex_hermitian(name, t, hermitian):
    if hermitian and t.dtype in dt.COMPLEX:
        raise NotImplementedError(f"{name}: hermitian=True for a complex input has no decomposition in primkit (the "
                                  f"ldl prims factor complex matrices as symmetric only)")


def ldl_factor_ex(a, *, hermitian=False, check_errors=False):
    name = "torch.linalg.ldl_factor_ex"
    _check_square(name, a)
    _check_linalg_dtype(name, a)
    _refuse_complex_hermitian(name, a, hermitian)
    ld, pivots = P.ldl_factor(a, hermitian)
    return column_major(ld), pivots, _zeros_info(a, a.dim() - 2)


def ldl_factor(a, *, hermitian=False):
    return ldl_factor_ex(a, hermitian=hermitian)[:2]


def ldl_solve(ld, pivots, b, *, hermitian=False):
    name = "torch.linalg.ldl_solve"
    _check_square(name, ld, "LD")
    wrap_dim(-2, b.dim())   # b must be at least a matrix: eager's IndexError for dim -2
    if tuple(pivots.shape) != tuple(ld.shape[:-1]):
        raise RuntimeError(f"{name}: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
                           f"shape {list(pivots.shape)} instead")
    if ld.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {ld.shape[-2]} by {ld.shape[-1]} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if b.dtype != ld.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {dt.short(b.dtype)} and A of "
                           f"type {dt.short(ld.dtype)} instead.")
    _check_linalg_dtype(name, ld)
    if pivots.dtype not in dt.INT:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {dt.short(pivots.dtype)}")
    _refuse_complex_hermitian(name, ld, hermitian)
    ld, b = _batch_broadcast(ld, b)
    pivots = broadcast_to(to_dtype(pivots, torch.int32), tuple(ld.shape[:-1]))
    return column_major(P.ldl_solve(ld, pivots, b, hermitian))


register_overloads(ldl_factor_ex, "linalg_ldl_factor_ex", ("default", "out"))
register_overloads(ldl_factor, "linalg_ldl_factor", ("default", "out"))
register_overloads(ldl_solve, "linalg_ldl_solve", ("default", "out"))


# --- least squares ----------------------------------------------------------------------------------
# The lstsq prim computes the solution of a full-rank system, which every driver agrees on. The
# other results follow eager's rules: residuals (the squared norms of A X - B's columns) where
# m > n and the driver is not gelsy, the rank where the driver is not gels, the singular values
# for gelsd and gelss. Eager's gelsd/gelss return residuals only when every matrix has full rank
# (a data-dependent shape); the prim requires full rank, so here they are always returned.

LSTSQ_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def linalg_lstsq(a, b, rcond=None, *, driver=None):
    name = "torch.linalg.lstsq"
    _check_at_least_2d(name, a)
    if b.dim() < 1:
        raise RuntimeError(f"{name}: other must have at least 1 dimension.")
    if not (a.dim() >= b.dim() and a.dim() - b.dim() <= 1):
        raise RuntimeError(f"{name}: input.dim() must be greater or equal to other.dim() and (input.dim() - "
                           f"other.dim()) <= 1")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got input's dtype "
                           f"{dt.short(a.dtype)} and other's dtype {dt.short(b.dtype)}")
    if a.dtype not in LAPACK_DTYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")
    vector = a.dim() == b.dim() + 1
    rhs = P.expand_dims(b, [b.dim()]) if vector else b
    if rhs.shape[-2] != a.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    if a.device.type == "cpu":
        if driver is not None and driver not in LSTSQ_DRIVERS:
            raise RuntimeError(f"{name}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
        driver = driver or "gelsy"
    else:
        if driver not in (None, "gels"):
            raise RuntimeError(f"{name}: `driver` other than `gels` is not supported on CUDA")
        driver = "gels"
    a_alone = a
    a, rhs = _batch_broadcast(a, rhs)
    m, n = a.shape[-2], a.shape[-1]
    solution = P.lstsq(a, rhs)
    # Eager's solution is the top n rows of LAPACK's column-major (..., max(m, n), k) buffer.
    rows = max(m, n)
    padded = P.pad(solution, 0, [0] * solution.dim(), [0] * (solution.dim() - 2) + [rows - n, 0],
                   [0] * solution.dim())
    buffer = column_major(padded)
    x = P.slice(buffer, [0] * buffer.dim(), list(solution.shape), [1] * buffer.dim())
    real = dt.to_real(a.dtype)
    residuals = _empty(real, a.device)
    if m > n and driver != "gelsy":
        misfit = torch.matmul(a, x) - rhs
        residuals = torch.sum(torch.abs(misfit) ** 2 if a.dtype in dt.COMPLEX else misfit * misfit, -2)
    rank = _empty(torch.int64, a.device)
    singular_values = _empty(real, a.device)
    if driver != "gels":
        # over A's own batch dims, not broadcast with B's (as eager); eager does not differentiate them
        s = P.stop_gradient(P.svd(a_alone, False)[1])
        if rcond is None:
            rcond = torch.finfo(real).eps * max(m, n)
        # LAPACK's rank: the singular values above rcond times the largest one.
        largest = torch.amax(s, -1, keepdim=True) if s.shape[-1] > 0 else s
        rank = torch.sum(s > rcond * largest, -1)
        if driver in ("gelsd", "gelss"):
            singular_values = s
    if vector:
        x = P.squeeze(x, [x.dim() - 1])
    return x, residuals, rank, singular_values


register_overloads(linalg_lstsq, "linalg_lstsq", ("default", "out"))


# --- LU ---------------------------------------------------------------------------------------------

@register(aten.lu_solve.default)
def lu_solve(b, lu, pivots):
    """torch.lu_solve, the older name of linalg.lu_solve (its arguments in another order)."""
    return linalg_lu_solve(lu, pivots, b)


register_out(aten.lu_solve.out, lu_solve, "lu_solve.out")


def _permutation(pivots, m):
    """The permutation of 0..m-1 that LAPACK's row swaps make (row i swapped with row pivots[i] - 1,
    for i in order): perm[i] is the row of A that row i of P^T A holds."""
    rows = torch.arange(m, dtype=torch.int64, device=pivots.device)
    perm = rows.expand(*pivots.shape[:-1], m)
    for i in range(pivots.shape[-1]):
        j = pivots[..., i:i + 1].to(torch.int64) - 1
        at_i, at_j = perm[..., i:i + 1], torch.gather(perm, -1, j)
        perm = torch.where(rows == i, at_j, torch.where(rows == j, at_i, perm))
    return perm


def lu_unpack(lu, pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) with A = P L U, from lu_factor's packed (LU, pivots)."""
    if lu.dim() < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(lu.shape)} "
                           f"instead")
    if unpack_pivots and pivots.dtype != torch.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.")
    m, n = lu.shape[-2], lu.shape[-1]
    k = min(m, n)
    empty = _empty(lu.dtype, lu.device)
    lower = upper = empty
    if unpack_data:
        eye = torch.eye(m, k, dtype=lu.dtype, device=lu.device)
        lower = contiguous(torch.tril(lu[..., :, :k], -1) + eye)
        upper = contiguous(torch.triu(lu[..., :k, :]))
    permutation = empty
    if unpack_pivots:
        batch = tuple(lu.shape[:-2])
        perm = _permutation(pivots[..., :k].expand(*batch, k) if batch else pivots[..., :k], m)
        # column j of P is the unit vector at perm[j]
        rows = torch.arange(m, dtype=torch.int64, device=lu.device).unsqueeze(-1)
        permutation = (rows == perm.unsqueeze(-2)).to(lu.dtype)
    return permutation, lower, upper


def linalg_lu(a, *, pivot=True):
    name = "linalg.lu"
    if a.dim() < 2:
        raise RuntimeError(f"{name}: Expected tensor with 2 or more dimensions. Got size: {list(a.shape)} instead")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU" if
                           a.device.type == "cpu" else
                           "linalg.lu_factor: LU without pivoting has no decomposition in primkit (the lu_factor "
                           "prim pivots)")
    _check_kernel_dtype("lu_cpu", a)
    lu, pivots = P.lu_factor(a)
    return lu_unpack(lu, pivots)


register_overloads(lu_unpack, "lu_unpack", ("default", "out"))
register_overloads(linalg_lu, "linalg_lu", ("default", "out"))


# --- pseudo-inverse ---------------------------------------------------------------------------------
# Eager's definition: through the SVD (the eigendecomposition when hermitian), the singular values
# at most max(atol, rtol * largest) dropped. The tolerances are float64 tensors, as eager's.

def _tolerance(what, value, device):
    """A tolerance as eager holds it: a number becomes a float64 0-d tensor; complex is refused."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        if value.dtype in dt.COMPLEX:
            raise RuntimeError(f"torch.linalg.pinv: {what} tensor of complex type is not supported. Got "
                               f"{dt.short(value.dtype)}")
        return value
    return P.scalar_tensor(value, dtype=torch.float64, device=device)


def pinv(a, atol=None, rtol=None, hermitian=False):
    if a.dim() < 2 or a.dtype not in LAPACK_DTYPES:
        raise RuntimeError(f"linalg.pinv({dt.short(a.dtype)}{{{list(a.shape)}}}): expected a tensor with 2 or more "
                           f"dimensions of float, double, cfloat or cdouble types")
    atol = _tolerance("atol", atol, a.device)
    rtol = _tolerance("rtol", rtol, a.device)
    m, n = a.shape[-2], a.shape[-1]
    if hermitian:
        _check_square("linalg.eigh", a)
    if a.numel() == 0:
        return torch.zeros(*a.shape[:-2], n, m, dtype=a.dtype, device=a.device)
    if atol is None:
        atol_given, atol = False, P.scalar_tensor(0.0, dtype=torch.float64, device=a.device)
    else:
        atol_given = True
    if rtol is None:
        default = P.scalar_tensor(torch.finfo(dt.to_real(a.dtype)).eps * max(m, n), dtype=torch.float64,
                                  device=a.device)
        rtol = torch.where(atol > 0, torch.zeros_like(default), default) if atol_given else default
    if hermitian:
        s, u = P.eigh(a, False)
        largest = torch.amax(torch.abs(s), -1, keepdim=True)
    else:
        u, s, vh = P.svd(a, False)
        largest = s[..., :1]
    tol = torch.maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * largest)
    kept = (torch.abs(s) if hermitian else s) > tol
    s_inv = torch.where(kept, torch.reciprocal(s), torch.zeros((), dtype=s.dtype, device=s.device)).to(a.dtype)
    u_h = conj_transpose(u)
    if hermitian:
        return torch.matmul(u * s_inv.unsqueeze(-2), u_h)
    return torch.matmul(conj_transpose(vh) * s_inv.unsqueeze(-2), u_h)


def conj_transpose(t):
    swapped = P.permute(t, list(range(t.dim() - 2)) + [t.dim() - 1, t.dim() - 2])
    return P.conj_physical(swapped) if t.dtype in dt.COMPLEX else swapped


def _pinv_rcond(a, rcond, hermitian=False):
    """rcond is NumPy's name for rtol, with atol = 0."""
    return pinv(a, 0.0, _tolerance("rcond", rcond, a.device), hermitian)


def _pinv_tolerances(a, *, atol=None, rtol=None, hermitian=False):
    return pinv(a, atol, rtol, hermitian)


register_overloads(_pinv_rcond, "linalg_pinv", ("default", "out", "rcond_tensor", "out_rcond_tensor"))
register_overloads(_pinv_tolerances, "linalg_pinv", ("atol_rtol_float", "atol_rtol_float_out", "atol_rtol_tensor",
                                                      "atol_rtol_tensor_out"))


@register(aten.pinverse.default)
def pinverse(a, rcond=1e-15):
    return _pinv_rcond(a, rcond)


# --- matrix exponential -------------------------------------------------------------------------------
# Eager's algorithm (Bader, Blanes and Casas 2019), so that the values are eager's: a single matrix
# takes the Taylor polynomial of the least degree in (1, 2, 4, 8, 12) whose bound theta its 1-norm is
# within, each evaluated with eager's few products and coefficients; a larger norm, and every matrix
# of a batch of several, takes degree 18 with scaling and squaring: exp(A) = T18(A / 2^s)^(2^s), s the
# least with ||A / 2^s||_1 <= theta_18.
# The degree and s depend on the data: the graph evaluates every polynomial and selects per matrix,
# and holds MAX_SQUARINGS squarings, each kept only where it is due. A matrix with a 1-norm above
# theta_18 * 2^MAX_SQUARINGS (1.3e10 in float32, 4.7e9 in float64) would need more: its result is
# nan, not a silently under-squared one (eager's, finite, has lost all precision there).

MATRIX_EXP_THETAS = {   # bounds of degrees 1, 2, 4, 8, 12, 18
    torch.float32: (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
                    1.461661507209034e+00, 3.010066362817634e+00),
    torch.float64: (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
                    2.996158913811580e-01, 1.090863719290036e+00),
}
MAX_SQUARINGS = 32


# Degree 12: B_i = sum_j T12_B[i][j] * A^j (j = 0..3); A6 = B_2 + B_3^2; T12 = B_0 + (B_1 + A6) A6.
T12_B = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
         (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
         (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
         (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))


# Degree 18: B_i = sum_j T18_B[i][j] * (I, A, A^2, A^3, A^6)_j; A9 = B_0 B_4 + B_3; T18 = B_1 + (B_2 + A9) A9.
T18_B = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
         (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
          -6.37898194594723280150e-04),
         (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
          -6.98210122488052056106e-03, 3.34975017086070470649e-05),
         (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
          2.95552570429315521194e-02, -1.39180257516060693404e-05),
         (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _t8_coefficients(real):
    """Degree 8's coefficients, computed as eager computes them (each rounded to ``real``)."""
    r = lambda v: round_to(v, real)   # noqa: E731
    sqrt_177, x3 = r(0.1330413469565007072504e+2), r(2. / 3.)
    return dict(x1=r(x3 * ((1. + sqrt_177) / 88.)), x2=r(x3 * ((1. + sqrt_177) / 352.)), x3=x3,
                x4=r((-271. + 29. * sqrt_177) / (315. * x3)), x5=r((-11. + 11. * sqrt_177) / (1260. * x3)),
                x6=r((-99. + 11. * sqrt_177) / (5040. * x3)), x7=r((89. - sqrt_177) / (5040. * x3)),
                y2=r((857. - 58. * sqrt_177) / 630.))


def _combination(mats, coefficients, real):
    """sum_j c_j * M_j, term by term in order (eager's _compute_linear_combination)."""
    total = None
    for m, c in zip(mats, coefficients):
        term = m * round_to(c, real)
        total = term if total is None else total + term
    return total


def _taylor_polynomials(x, real):
    """exp(x) by the Taylor polynomials of degrees 1, 2, 4, 8, 12 and 18, as eager evaluates them."""
    eye = _identity_like(x)
    x2 = torch.matmul(x, x)
    x3 = torch.matmul(x, x2)
    t1 = eye + x
    t2 = eye + x + x2 / 2.0
    t4 = _combination((eye, x, x2, torch.matmul(x2, _combination((eye, x, x2), (1 / 2.0, 1 / 6.0, 1 / 24.0), real))),
                      (1.0, 1.0, 0.0, 1.0), real)
    c = _t8_coefficients(real)
    x4 = torch.matmul(x2, _combination((x, x2), (c["x1"], c["x2"]), real))
    x8 = torch.matmul(_combination((x2, x4), (c["x3"], 1.0), real),
                      _combination((eye, x, x2, x4), (c["x4"], c["x5"], c["x6"], c["x7"]), real))
    t8 = _combination((eye, x, x2, x4, x8), (1.0, 1.0, c["y2"], 0.0, 1.0), real)
    b = [_combination((eye, x, x2, x3), row, real) for row in T12_B]
    a6 = b[2] + torch.matmul(b[3], b[3])
    t12 = b[0] + torch.matmul(b[1] + a6, a6)
    b = [_combination((eye, x, x2, x3, torch.matmul(x3, x3)), row, real) for row in T18_B]
    a9 = torch.matmul(b[0], b[4]) + b[3]
    t18 = b[1] + torch.matmul(b[2] + a9, a9)
    return t1, t2, t4, t8, t12, t18


def linalg_matrix_exp(a):
    name = "linalg.matrix_exp"
    _check_square(name, a)
    if a.dtype not in dt.FLOAT and a.dtype not in dt.COMPLEX:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {dt.short(a.dtype)}")
    if a.numel() == 0:
        return contiguous(P.clone(a))
    if a.shape[-1] == 1:
        return contiguous(torch.exp(a))    # eager's 1x1 case
    compute = {torch.float16: torch.float32, torch.bfloat16: torch.float32}.get(a.dtype, a.dtype)
    x = to_dtype(a, compute)
    real = dt.to_real(compute)
    thetas = MATRIX_EXP_THETAS[real]
    norm = torch.amax(torch.sum(torch.abs(x), -2), -1)[..., None, None]
    # Degree 18 with scaling and squaring, for the norms from theta_12 on.
    squarings = torch.clamp(torch.ceil(torch.log2(norm / thetas[5])), min=0)
    scaled = x / torch.exp2(torch.clamp(squarings, max=MAX_SQUARINGS)).to(real)
    result = _taylor_polynomials(scaled, real)[5]
    for i in range(MAX_SQUARINGS):
        result = torch.where(squarings > i, torch.matmul(result, result), result)
    result = torch.where(squarings > MAX_SQUARINGS, torch.full_like(result, float("nan")), result)
    if math.prod(a.shape[:-2]) > 1:
        return to_dtype(result, a.dtype)     # eager takes degree 18 for every matrix of a batch
    # The lower degrees on their norm intervals (a nan norm is in none: the result is nan, as eager's).
    result = torch.where(norm >= thetas[4], result, torch.full_like(result, float("nan")))
    lower = (-1.0,) + thetas[:4]
    for low, high, t in zip(lower, thetas[:5], _taylor_polynomials(x, real)[:5]):
        result = torch.where((norm > low) & (norm <= high) & (norm < thetas[4]), t, result)
    return to_dtype(result, a.dtype)


register_overloads(linalg_matrix_exp, "linalg_matrix_exp", ("default", "out"))
register(aten.matrix_exp.default)(linalg_matrix_exp)


@register(aten.matrix_exp_backward.default)
def matrix_exp_backward(a, grad):
    """The adjoint of exp at a applied to grad: the upper-right block of exp([[A^H, G], [0, A^H]])."""
    n = a.shape[-1]
    a_h = a.mH
    block = torch.cat([torch.cat([a_h, grad], -1), torch.cat([torch.zeros_like(a), a_h], -1)], -2)
    return linalg_matrix_exp(block)[..., :n, n:]     # eager's result is this view of the block's exp


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
        return write_into(out, inner(a, b), "inner.out")
    return into_out(inner, aten.inner.out, "tensordot", check=_no_promotion)(a, b, out=out)


register(aten.inner.default)(inner)
register(aten.tensordot.default)(tensordot)
register_out(aten.tensordot.out, tensordot, "tensordot", check=_no_promotion)


# --- Vandermonde matrices -------------------------------------------------------------------------------------

@register(aten.linalg_vander.default)
def linalg_vander(x, *, N=None):
    """The powers x^0, ..., x^(N-1) along a new last dim (cumulative products)."""
    if not (x.dtype in LAPACK_DTYPES or x.dtype in dt.INT):
        raise RuntimeError(f"linalg.vander supports floating point, complex, and integer tensors, but got "
                           f"{dt.short(x.dtype)}")
    x = torch.unsqueeze(x, -1) if x.dim() == 0 else x
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = torch.cumprod(torch.unsqueeze(x, -1).expand(*x.shape, n - 1), -1)
    return torch.cat([torch.ones(*x.shape, 1, dtype=powers.dtype, device=x.device), powers], -1)


@register(aten.vander.default)
def vander(x, N=None, increasing=False):
    """Columns x^(N-1), ..., x^0 (x^0 first when increasing), in x's dtype promoted with int64."""
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if N is not None and n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = torch.promote_types(x.dtype, torch.int64)
    ones = torch.ones(x.shape[0], min(n, 1), dtype=dtype, device=x.device)
    if n <= 1:
        result = ones
    else:
        powers = torch.cumprod(to_dtype(P.expand_dims(x, [1]), dtype).expand(x.shape[0], n - 1), 1)
        result = torch.cat([ones, powers], 1)
    return result if increasing else torch.flip(result, [1])


# --- einsum ------------------------------------------------------------------------------------------------------
# Eager's algorithm (ATen's einsum): each operand's labels are aligned to one order (output labels,
# then contracted ones; a repeated label is a diagonal, a missing one a size-1 dim); operands are
# contracted pairwise, left to right (or along ``path``), each pair by one bmm; dims only one
# operand still holds are summed first. The same permutes, views and bmm give eager's strides.

_LETTERS = 26


def _subscript(label):
    return ord(label) - ord("A") if label.isupper() else ord(label) - ord("a") + _LETTERS


def _parse_labels(lhs):
    """Each operand's labels as subscripts in [0, 52), ``...`` as None."""
    operands, current, i = [], [], 0
    while i < len(lhs):
        c = lhs[i]
        if c == ",":
            operands.append(current)
            current = []
        elif c == ".":
            if None in current:
                raise RuntimeError(f"einsum(): found '.' for operand {len(operands)} for which an ellipsis was already "
                                   f"found")
            if lhs[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for operand {len(operands)} that is not part of any ellipsis")
            current.append(None)
            i += 2
        elif c != " ":
            if not c.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                                   f"must be in [a-zA-Z]")
            current.append(_subscript(c))
        i += 1
    operands.append(current)
    return operands


def _sum_product_pair(left, right, sum_dims):
    """(left * right) summed over sum_dims (kept as size 1) by one bmm; the operands share a rank
    and their size-1 dims broadcast."""
    if not sum_dims:
        return torch.mul(left, right)
    lro, lo, ro = [], [], []
    sum_size = 1
    for i in range(left.dim()):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = torch.sum(left, i, keepdim=True)
            elif sr:
                right = torch.sum(right, i, keepdim=True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    if lo and ro and ro[-1] < lo[0]:
        # right's output dims all come first: swapped, the bmm writes them in output order
        left, right, lo, ro = right, left, ro, lo
    size = lambda t, dims: math.prod(t.shape[d] for d in dims)   # noqa: E731
    out_size = [left.shape[d] for d in lro + lo] + [1] * len(sum_dims) + [right.shape[d] for d in ro]
    order = lro + lo + list(sum_dims) + ro
    a = torch.reshape(torch.permute(left, order), (size(left, lro), size(left, lo), sum_size))
    b = torch.reshape(torch.permute(right, lro + list(sum_dims) + ro + lo),
                      (size(left, lro), sum_size, size(right, ro)))
    inverse = [order.index(d) for d in range(len(order))]
    return torch.permute(torch.bmm(a, b).view(out_size), inverse)


def einsum(equation, operands, *, path=None):
    if len(operands) == 0:
        raise RuntimeError("einsum(): must provide at least one operand")
    lhs, arrow, rhs = equation.partition("->")
    labels = _parse_labels(lhs)
    if len(labels) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(labels) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    count = [0] * (2 * _LETTERS)
    ell_dims = 0
    for i, (op, ls) in enumerate(zip(operands, labels)):
        named = [s for s in ls if s is not None]
        for s in named:
            count[s] += 1
        has_ellipsis = None in ls
        if has_ellipsis:
            ell_dims = max(ell_dims, op.dim() - len(named))
        if (len(named) > op.dim()) if has_ellipsis else (len(named) != op.dim()):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(named)}) "
                               + ("is more than the number of dimensions" if has_ellipsis else
                                  "does not match the number of dimensions") + f" ({op.dim()}) for operand {i}"
                               + ("" if has_ellipsis else " and no ellipsis was given"))
    # Where each label (and the ellipsis dims) sits in the aligned order: output dims first.
    index = [None] * (2 * _LETTERS)
    position, ell_index, ell_in_output = 0, 0, False
    if not arrow:
        position, ell_in_output = ell_dims, True
        for s in range(2 * _LETTERS):
            if count[s] == 1:
                index[s], position = position, position + 1
    else:
        i = 0
        while i < len(rhs):
            c = rhs[i]
            if c == ".":
                if ell_in_output or rhs[i:i + 3] != "...":
                    raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was already found"
                                       if ell_in_output else
                                       "einsum(): found '.' for output that is not part of any ellipsis (...)")
                ell_index, position, ell_in_output = position, position + ell_dims, True
                i += 2
            elif c != " ":
                if not c.isalpha():
                    raise RuntimeError(f"einsum(): invalid subscript given at index {len(lhs) + 2 + i} in the "
                                       f"equation string, subscripts must be in [a-zA-Z]")
                s = _subscript(c)
                if count[s] == 0 or index[s] is not None:
                    raise RuntimeError(f"einsum(): output subscript {c} " + (
                        "appears more than once in the output" if index[s] is not None else
                        "does not appear in the equation for any input operand"))
                index[s], position = position, position + 1
            i += 1
    out_dims = position
    if not ell_in_output:
        ell_index, position = position, position + ell_dims
    for s in range(2 * _LETTERS):
        if count[s] > 0 and index[s] is None:
            index[s], position = position, position + 1
    total = position
    # Align every operand: diagonals for repeated labels, size-1 dims for missing ones.
    label_size, ell_size = [1] * (2 * _LETTERS), [1] * ell_dims
    dim_counts = [0] * total
    aligned = []
    for i, (op, ls) in enumerate(zip(operands, labels)):
        permutation = [None] * total
        dim = 0
        for s in ls:
            if s is None:
                covered = op.dim() - (len(ls) - 1)
                for j in range(ell_dims - covered, ell_dims):
                    if op.shape[dim] != 1:
                        if ell_size[j] not in (1, op.shape[dim]):
                            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand {i}has size "
                                               f"{op.shape[dim]} which does not broadcast with previously seen "
                                               f"ellipsis with size {ell_size[j]} for the respective dimension")
                        ell_size[j] = op.shape[dim]
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[index[s]] is None:
                if op.shape[dim] != 1:
                    if label_size[s] not in (1, op.shape[dim]):
                        label = chr(ord("A") + s) if s < _LETTERS else chr(ord("a") + s - _LETTERS)
                        raise RuntimeError(f"einsum(): subscript {label} has size {op.shape[dim]} for operand {i} "
                                           f"which does not broadcast with previously seen size {label_size[s]}")
                    label_size[s] = op.shape[dim]
                    dim_counts[index[s]] += 1
                permutation[index[s]] = dim
                dim += 1
            else:
                previous = permutation[index[s]]
                if op.shape[dim] != op.shape[previous]:
                    label = chr(ord("A") + s) if s < _LETTERS else chr(ord("a") + s - _LETTERS)
                    raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {i} but the sizes don't "
                                       f"match, {op.shape[dim]} != {op.shape[previous]}")
                op = torch.movedim(torch.diagonal(op, 0, previous, dim), -1, previous)
        for p in range(total):
            if permutation[p] is None:
                op = torch.unsqueeze(op, dim)
                permutation[p], dim = dim, dim + 1
        aligned.append(torch.permute(op, permutation))
    # Contract pairwise.
    steps = list(path) if path is not None else None
    while len(aligned) > 1:
        i, j = 0, 1
        if steps is not None:
            i, j = sorted(steps[:2])
            steps = steps[2:]
        a, b = aligned[i], aligned[j]
        del aligned[j], aligned[i]
        sum_dims, a_sums, b_sums = [], [], []
        for d in range(out_dims, total):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sums.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sums.append(d)
                    dim_counts[d] = 0
        if a_sums:
            a = torch.sum(a, a_sums, keepdim=True)
        if b_sums:
            b = torch.sum(b, b_sums, keepdim=True)
        product = _sum_product_pair(a, b, sum_dims)
        if steps is not None:
            aligned.append(product)
        else:
            aligned.insert(0, product)
    result = aligned[0]
    if total > out_dims:
        if len(operands) > 1:
            return result.view(list(result.shape[:out_dims]))
        return torch.sum(result, list(range(out_dims, total)))
    return result


register(aten.einsum.default)(einsum)


# --- trace, kron, cross ----------------------------------------------------------------------------

def trace(a):
    """The sum of a matrix's main diagonal (integers sum to int64, as sum does)."""
    if a.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a.dim()}")
    if a.dtype == torch.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return aten.sum.default(aten.diagonal.default(a))


register_with_variants("trace", trace)


def kron(a, b):
    """The Kronecker product: a's and b's dims interleaved, multiplied, then merged pairwise."""
    n = max(a.dim(), b.dim())
    sa = [1] * (n - a.dim()) + list(a.shape)
    sb = [1] * (n - b.dim()) + list(b.shape)
    a2 = aten.view.default(a, [s for d in sa for s in (d, 1)])
    b2 = aten.view.default(b, [s for d in sb for s in (1, d)])
    return aten.view.default(aten.mul.Tensor(a2, b2), [x * y for x, y in zip(sa, sb)])


register_with_variants("kron", kron)


def linalg_cross(a, b, *, dim=-1):
    """a x b along dim (size 3): a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0."""
    if a.dim() != b.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, a.dim(), "linalg_cross")
    if a.shape[d] != 3 or b.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {a.shape[d]} and "
                           f"{b.shape[d]}")
    shape = list(broadcast_shapes(a.shape, b.shape))
    a, b = aten.expand.default(a, shape), aten.expand.default(b, shape)

    def roll(t, k):
        return aten.index_select.default(t, d, _indices(k, t.device))
    return aten.sub.Tensor(aten.mul.Tensor(roll(a, 1), roll(b, 2)), aten.mul.Tensor(roll(a, 2), roll(b, 1)))


def _indices(k, device):
    return aten.remainder.Scalar(P.iota(3, start=k, step=1, dtype=torch.int64, device=device), 3)


def cross(a, b, dim=None):
    if dim is None:   # eager's deprecated default: the first dim of size 3
        dim = next((i for i, s in enumerate(a.shape) if s == 3), -1)
    return linalg_cross(a, b, dim=dim)


register_with_variants("linalg_cross", linalg_cross)
register_with_variants("cross", cross)
