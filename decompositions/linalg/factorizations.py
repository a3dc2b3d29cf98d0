"""Factorizations and solves: Cholesky, LU, QR (Householder: geqrf, ormqr, householder_product), LDL,
eigen and singular value decompositions, least squares, determinants and inverses, and eager's check of
their LAPACK info. They reach the linalg_decomp prims, whose outputs are row-major; eager's LAPACK kernels
return column-major matrices, which column_major restores.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, broadcast_to, contiguous_out, like, register_out, register_overloads, to_dtype,
    wrap_dim)
from primkit.decompositions.linalg.products import conj_transpose
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, in_layout
from primkit.prims import dtypes as dt
from primkit.prims.layout import contiguous_strides


# --- factorizations and solves -----------------------------------------------------------------
# The linalg_decomp prims return row-major outputs; eager's LAPACK-backed kernels return every
# matrix column-major (batches contiguous, each matrix transposed), which ``column_major`` restores.

def column_major_strides(shape) -> list:
    """The strides eager's linalg kernels give a batch of matrices of this shape (also a resized out=)."""
    if len(shape) < 2:
        return list(contiguous_strides(shape))
    m, n = shape[-2], shape[-1]
    strides, step = [1, max(m, 1)], max(m, 1) * max(n, 1)
    for size in reversed(shape[:-2]):
        strides.insert(0, step)
        step *= max(size, 1)
    return strides


def column_major_if_empty(out, shape) -> list:
    """The strides eager's ormqr, orgqr and cholesky_inverse give an out= tensor they resize: column-major where
    it was empty, else contiguous (resize_output's), in which their kernel then writes."""
    return column_major_strides(shape) if out.numel() == 0 else list(contiguous_strides(shape))


def column_major(t):
    """t laid out as eager's linalg kernels lay out a batch of matrices."""
    if t.dim() < 2:
        return t
    return in_layout(t, column_major_strides(t.shape))


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
register_overloads(cholesky, "cholesky", ("default", "out"), out_resize=contiguous_out)


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
register_overloads(ormqr, "ormqr", ("default", "out"), out_resize=column_major_if_empty)
register_overloads(householder_product, "linalg_householder_product", ("default", "out"),
                   out_resize=column_major_if_empty)
register_overloads(householder_product, "orgqr", ("default", "out"), out_resize=column_major_if_empty)  # older name


# --- solves through a Cholesky factor -------------------------------------------------------------

def _check_rhs(name, a, b):
    """Eager's checks of a solve's right-hand side b against its (factored) matrix a: rows and dtype."""
    if a.shape[-1] != b.shape[-2]:
        raise RuntimeError(f"Incompatible matrix sizes for {name}: each A matrix is {a.shape[-2]} by {a.shape[-1]} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if b.dtype != a.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {dt.short(b.dtype)} and A "
                           f"of type {dt.short(a.dtype)} instead.")


def cholesky_solve(b, factor, upper=False):
    """X with A X = b, A = L L^H (U^H U when upper) given by its Cholesky factor; batch dims broadcast."""
    for what, t in (("b", b), ("u", factor)):
        if t.dim() < 2:
            raise RuntimeError(f"{what} should have at least 2 dimensions, but has {t.dim()} dimensions instead")
    if factor.shape[-1] != factor.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {factor.shape[-2]} by "
                           f"{factor.shape[-1]} matrices")
    _check_rhs("cholesky_solve", factor, b)
    _check_kernel_dtype("cholesky_solve_cpu", b)
    b, factor = _batch_broadcast(b, factor)
    return column_major(P.cholesky_solve(b, factor, upper))


def cholesky_inverse(factor, upper=False):
    """A^-1 from A's Cholesky factor: the solve against the identity."""
    _check_square("cholesky_inverse", factor)
    _check_kernel_dtype("cholesky_inverse_out_cpu", factor)
    return column_major(P.cholesky_solve(_identity_like(factor), factor, upper))


register_overloads(cholesky_solve, "cholesky_solve", ("default", "out"), out_resize=contiguous_out)
register_overloads(cholesky_inverse, "cholesky_inverse", ("default", "out"), out_resize=column_major_if_empty)


# --- LDL ------------------------------------------------------------------------------------------
# The ldl prims take hermitian=False for complex operands (C3, C5: cuSOLVER has no complex Hermitian
# LDL). Eager's CPU kernels (LAPACK hetrf, hetrs) take them: ldl_factor and ldl_solve do so below, as LAPACK's
# unblocked hetf2 and hetrs (lower) do, in ops that reach other prims.

_BK_ALPHA = (1 + math.sqrt(17)) / 8     # Bunch-Kaufman's pivot threshold


def _cabs1(t):
    return torch.abs(t.real) + torch.abs(t.imag)     # LAPACK's cheap modulus, which its pivot search compares


def _at(t, i):
    """t[..., i] with an index per batch element."""
    return torch.gather(t, -1, i.unsqueeze(-1)).squeeze(-1)


def _hermitian_whole(w):
    """The Hermitian matrix whose lower triangle w holds (the diagonal's real part), as LAPACK reads it."""
    low = torch.tril(w, -1)
    return low + low.mH + torch.diag_embed(torch.diagonal(w, dim1=-2, dim2=-1).real.to(w.dtype))


def _bk_pivot(w, k, idx):
    """Bunch-Kaufman's choice at column k of the trailing matrix w, per batch element: (zero column, 1x1 pivot at
    k, 1x1 pivot after interchanging k and imax, 2x2 pivot after interchanging k+1 and imax, imax)."""
    below = torch.where(idx > k, _cabs1(w[..., :, k]), -1.0)
    imax = torch.argmax(below, -1)                              # the first largest, as izamax
    colmax = torch.clamp(_at(below, imax), min=0)              # 0 in the last column
    row = _cabs1(torch.gather(w, -2, imax[..., None, None].expand(*imax.shape, 1, w.shape[-1])).squeeze(-2))
    rowmax = torch.amax(torch.where((idx >= k) & (idx != imax.unsqueeze(-1)), row, 0.0), -1)
    absakk = torch.abs(w[..., k, k].real)
    zero = (torch.maximum(absakk, colmax) == 0) | torch.isnan(absakk)
    here = zero | (absakk >= _BK_ALPHA * colmax) | (absakk >= _BK_ALPHA * colmax * (colmax / rowmax))
    swap = ~here & (torch.abs(_at(torch.diagonal(w, dim1=-2, dim2=-1).real, imax)) >= _BK_ALPHA * rowmax)
    return zero, here, swap, ~here & ~swap, imax


def _bk_two(w, k, idx):
    """The 2x2 pivot's columns k and k+1 of LD and the trailing update (hetf2's formulas)."""
    e = w[..., k + 1, k]
    d = torch.abs(e)
    d11, d22 = w[..., k + 1, k + 1].real / d, w[..., k, k].real / d
    d21, dd = e / d, (1 / (d11 * d22 - 1)) / d
    ak, ak1 = (torch.where(idx > k + 1, w[..., :, j], 0) for j in (k, k + 1))
    wk = dd.unsqueeze(-1) * (d11.unsqueeze(-1) * ak - d21.unsqueeze(-1) * ak1)
    wk1 = dd.unsqueeze(-1) * (d22.unsqueeze(-1) * ak1 - d21.conj().unsqueeze(-1) * ak)
    w2 = w - ak.unsqueeze(-1) * wk.conj().unsqueeze(-2) - ak1.unsqueeze(-1) * wk1.conj().unsqueeze(-2)
    diag = torch.diagonal(w, dim1=-2, dim2=-1).real.to(w.dtype)
    col_k = torch.where(idx == k, diag[..., k:k + 1], torch.where(idx == k + 1, e.unsqueeze(-1), wk))
    return col_k, torch.where(idx == k + 1, diag[..., k + 1:k + 2], wk1), w2


def _bk_step(w, ld, piv, skip, k, idx):
    """One column of hetf2: the pivot, the interchange of the trailing rows and columns (not of L's earlier
    columns), the update; a batch element whose column k closed a 2x2 pivot (skip) keeps everything."""
    zero, here, _, two, imax = _bk_pivot(w, k, idx)
    kk, kp = (torch.where(two, k + 1, k).unsqueeze(-1), torch.where(here, k, imax).unsqueeze(-1))
    perm = torch.where(idx == kk, kp, torch.where(idx == kp, kk, idx))
    ws = torch.gather(torch.gather(w, -2, perm.unsqueeze(-1).expand_as(w)), -1, perm.unsqueeze(-2).expand_as(w))
    x = torch.where(idx > k, ws[..., :, k], 0)
    dk = ws[..., k, k].real.unsqueeze(-1)
    w1 = ws - x.unsqueeze(-1) * (x.conj() / dk).unsqueeze(-2)
    col_k = torch.where(idx == k, dk.to(w.dtype), torch.where(zero.unsqueeze(-1), x, x / dk))
    col_k1, new = None, torch.where(zero[..., None, None], ws, w1)
    if k + 1 < w.shape[-1]:
        col_k2, col_k1, w2 = _bk_two(ws, k, idx)
        col_k, new = torch.where(two.unsqueeze(-1), col_k2, col_k), torch.where(two[..., None, None], w2, new)
    keep = skip.unsqueeze(-1)
    ld = torch.where(((idx == k) & ~keep).unsqueeze(-2), col_k.unsqueeze(-1), ld)
    pk = torch.where(two.unsqueeze(-1), -(kp + 1), kp + 1).to(torch.int32)
    piv = torch.where((idx == k) & ~keep, pk, piv)
    if col_k1 is not None:
        second = (idx == k + 1) & (two & ~skip).unsqueeze(-1)
        ld = torch.where(second.unsqueeze(-2), col_k1.unsqueeze(-1), ld)
        piv = torch.where(second, pk, piv)
    return _hermitian_whole(torch.where(skip[..., None, None], w, new)), ld, piv, two & ~skip


def _hermitian_ldl(a):
    """LDL^H of the complex Hermitian a (its lower triangle read) with Bunch-Kaufman pivoting, as LAPACK's hetrf
    (the blocked hetrf takes the same pivots, its sums in another order): LD (L unit-lower below the diagonal,
    D's 1x1 and 2x2 blocks on it and the subdiagonal, zeros above) and the 1-based pivots."""
    n = a.shape[-1]
    idx = torch.arange(n, device=a.device)
    w, ld = _hermitian_whole(a), torch.zeros_like(a)
    piv = torch.zeros(a.shape[:-1], dtype=torch.int32, device=a.device)
    skip = torch.zeros(a.shape[:-2], dtype=torch.bool, device=a.device)
    for k in range(n):
        w, ld, piv, skip = _bk_step(w, ld, piv, skip, k, idx)
    return ld, piv


def _swap_rows(b, i, j):
    """b with rows i and j (one pair per batch element, (..., 1) each) interchanged."""
    idx = torch.arange(b.shape[-2], device=b.device)
    perm = torch.where(idx == i, j, torch.where(idx == j, i, idx))
    return torch.gather(b, -2, perm.unsqueeze(-1).expand_as(b))


def _ldl_forward(ld, piv, b, idx):
    """hetrs' first half: b := D^-1 L^-1 P b, one pivot block at a time; also each position's kind (the first
    row of a 2x2 block, the second)."""
    n, diag = ld.shape[-1], torch.diagonal(ld, dim1=-2, dim2=-1).real
    kinds, skip = [], torch.zeros(piv.shape[:-1], dtype=torch.bool, device=b.device)
    for k in range(n):
        two = (piv[..., k] < 0) & ~skip
        kk, kp = torch.where(two, k + 1, k), torch.where(skip, k, torch.abs(piv[..., k]) - 1)
        bs = _swap_rows(b, kk.unsqueeze(-1), kp.unsqueeze(-1))
        col = torch.where(idx > k, ld[..., :, k], 0).unsqueeze(-1)
        b1 = bs - col * bs[..., k:k + 1, :]
        new = torch.where((idx == k).unsqueeze(-1), b1 / diag[..., k, None, None], b1)
        if k + 1 < n:
            c0, c1 = (torch.where(idx > k + 1, ld[..., :, j], 0).unsqueeze(-1) for j in (k, k + 1))
            b2 = bs - c0 * bs[..., k:k + 1, :] - c1 * bs[..., k + 1:k + 2, :]
            e = ld[..., k + 1, k, None]
            akm1, ak = diag[..., k, None] / e.conj(), diag[..., k + 1, None] / e
            bkm1, bk = bs[..., k, :] / e.conj(), bs[..., k + 1, :] / e
            denom = akm1 * ak - 1
            rows = ((ak * bkm1 - bk) / denom).unsqueeze(-2), ((akm1 * bk - bkm1) / denom).unsqueeze(-2)
            b2 = torch.where((idx == k).unsqueeze(-1), rows[0], torch.where((idx == k + 1).unsqueeze(-1), rows[1], b2))
            new = torch.where(two[..., None, None], b2, new)
        b = torch.where(skip[..., None, None], b, new)
        kinds.append((two, skip))
        skip = two
    return b, kinds


def _hermitian_ldl_solve(ld, pivots, b):
    """X with A X = B for the complex Hermitian A that _hermitian_ldl factored, as LAPACK's hetrs (lower):
    b := P^T L^-H (D^-1 L^-1 P b), the interchanges undone from the last pivot block to the first."""
    idx = torch.arange(ld.shape[-1], device=ld.device)
    piv = pivots.to(torch.int64)
    b, kinds = _ldl_forward(ld, piv, b, idx)
    for k in reversed(range(ld.shape[-1])):
        first, second = kinds[k]
        below = torch.where((idx > k).unsqueeze(-1), b, 0)
        new = b - (idx == k).unsqueeze(-1) * (ld[..., :, k].conj().unsqueeze(-2) @ below)
        if k >= 1:
            v = ld[..., :, k - 1].conj().unsqueeze(-2) @ below
            new = torch.where(second[..., None, None], new - (idx == k - 1).unsqueeze(-1) * v, new)
        kp = (torch.abs(piv[..., k]) - 1).unsqueeze(-1)
        b = torch.where(first[..., None, None], b, _swap_rows(new, torch.full_like(kp, k), kp))
    return b


def ldl_factor_ex(a, *, hermitian=False, check_errors=False):
    name = "torch.linalg.ldl_factor_ex"
    _check_square(name, a)
    _check_linalg_dtype(name, a)
    if hermitian and a.dtype in dt.COMPLEX:
        ld, pivots = _hermitian_ldl(a)
    else:
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
    _check_rhs(name, ld, b)
    _check_linalg_dtype(name, ld)
    if pivots.dtype not in dt.INT:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {dt.short(pivots.dtype)}")
    ld, b = _batch_broadcast(ld, b)
    pivots = broadcast_to(to_dtype(pivots, torch.int32), tuple(ld.shape[:-1]))
    if hermitian and ld.dtype in dt.COMPLEX:
        return column_major(_hermitian_ldl_solve(ld, pivots, b))
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
