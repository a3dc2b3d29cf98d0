"""Meta rules of the linalg_decomp family: contiguous outputs of matrix shapes derived from
(..., m, n) operands (the references make torch.linalg's column-major results contiguous)."""
from __future__ import annotations

import torch

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule, one_of
from primkit.prims.meta.common import check_dtype, check_same_device, shape_str
from primkit.prims.layout import contiguous_strides

QR_MODES = ("reduced", "complete")


def _out(shape, dtype, device):
    shape = tuple(shape)
    return TensorMeta(shape, contiguous_strides(shape), dtype, device)


def _matrix(prim, cid, a, what="a"):
    check(len(a.shape) >= 2, prim, cid, lambda: f"{what} has rank {len(a.shape)}, expected a matrix or a batch of "
          f"matrices (rank >= 2)")


def _square(prim, cid, a, what="a"):
    _matrix(prim, cid, a, what)
    check(a.shape[-1] == a.shape[-2], prim, cid, lambda: f"{what} has shape {shape_str(a.shape)}, expected square "
          f"matrices")


def _smaller(m, n):
    return m if m <= n else n


def _solve_rhs(prim, cid, a, b, left, what="a", rhs="b"):
    """b is (..., n, k) (left) or (..., k, n) with a's batch dims."""
    check(len(b.shape) == len(a.shape) and tuple(b.shape[:-2]) == tuple(a.shape[:-2]), prim, cid,
          lambda: f"{rhs} has shape {shape_str(b.shape)}, expected {what}'s batch dims {shape_str(a.shape[:-2])} and "
          f"two matrix dims")


@meta_rule("cholesky", constraints=("C1", "C2"))
def cholesky(prim, a, upper):
    _square(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    return _out(a.shape, a.dtype, a.device)


@meta_rule("triangular_solve", constraints=("C1", "C2", "C3", "C4"))
def triangular_solve(prim, a, b, upper, left, unitriangular):
    _square(prim, "C1", a)
    _solve_rhs(prim, "C2", a, b, left)
    solved = -2 if left else -1
    check(b.shape[solved] == a.shape[-1], prim, "C3", lambda: f"b has size {b.shape[solved]} in dim {solved} but a "
          f"is {a.shape[-1]} x {a.shape[-1]}")
    check(a.dtype == b.dtype, prim, "C4", lambda: f"a has dtype {dt.short(a.dtype)} but b has {dt.short(b.dtype)}")
    check_dtype(prim, "C4", a, prim.dtypes)
    check_same_device(prim, "C4", [a, b])
    return _out(b.shape, b.dtype, b.device)


@meta_rule("lu_factor", params={"aux_dtype": one_of("same")}, constraints=("C1", "C2"), outputs=2)
def lu_factor(prim, a):
    """A packed factorization of a's shape and a (..., min(m, n)) vector beside it: lu_factor's int32
    pivots, or (aux_dtype: same) geqrf's tau in a's dtype."""
    _matrix(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    k = _smaller(a.shape[-2], a.shape[-1])
    aux_dtype = a.dtype if prim.params.get("aux_dtype") == "same" else torch.int32
    return _out(a.shape, a.dtype, a.device), _out(tuple(a.shape[:-2]) + (k,), aux_dtype, a.device)


@meta_rule("lu_solve", constraints=("C1", "C2", "C3", "C4"))
def lu_solve(prim, LU, pivots, b, left, adjoint):
    _square(prim, "C1", LU, "LU")
    check(pivots.dtype == torch.int32 and tuple(pivots.shape) == tuple(LU.shape[:-1]), prim, "C2",
          lambda: f"pivots is {dt.short(pivots.dtype)} of shape {shape_str(pivots.shape)}, expected int32 of shape "
          f"{shape_str(LU.shape[:-1])}")
    _solve_rhs(prim, "C3", LU, b, left, "LU")
    solved = -2 if left else -1
    check(b.shape[solved] == LU.shape[-1], prim, "C3", lambda: f"b has size {b.shape[solved]} in dim {solved} but "
          f"LU is {LU.shape[-1]} x {LU.shape[-1]}")
    check(LU.dtype == b.dtype, prim, "C4", lambda: f"LU has dtype {dt.short(LU.dtype)} but b has {dt.short(b.dtype)}")
    check_dtype(prim, "C4", LU, prim.dtypes, "LU")
    check_same_device(prim, "C4", [LU, pivots, b])
    return _out(b.shape, b.dtype, b.device)


@meta_rule("qr", constraints=("C1", "C2", "C3"), outputs=2)
def qr(prim, a, mode):
    _matrix(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    check(mode in QR_MODES, prim, "C3", lambda: f"mode is '{mode}', expected one of {', '.join(QR_MODES)}")
    batch, m, n = tuple(a.shape[:-2]), a.shape[-2], a.shape[-1]
    k = m if mode == "complete" else _smaller(m, n)
    return _out(batch + (m, k), a.dtype, a.device), _out(batch + (k, n), a.dtype, a.device)


@meta_rule("svd", constraints=("C1", "C2"), outputs=3)
def svd(prim, a, full_matrices):
    _matrix(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    batch, m, n = tuple(a.shape[:-2]), a.shape[-2], a.shape[-1]
    k = _smaller(m, n)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    return (_out(batch + (m, u_cols), a.dtype, a.device), _out(batch + (k,), dt.to_real(a.dtype), a.device),
            _out(batch + (vh_rows, n), a.dtype, a.device))


@meta_rule("eigh", constraints=("C1", "C2"), outputs=2)
def eigh(prim, a, upper):
    _square(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    return _out(a.shape[:-1], dt.to_real(a.dtype), a.device), _out(a.shape, a.dtype, a.device)


@meta_rule("eig", constraints=("C1", "C2"), outputs=2)
def eig(prim, a):
    _square(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    out_dtype = dt.to_complex(a.dtype)
    return _out(a.shape[:-1], out_dtype, a.device), _out(a.shape, out_dtype, a.device)


def _same_dtype(prim, cid, named):
    """Every (name, tensor) shares the first one's dtype, one of the prim's dtypes, and its device."""
    (first, t), *rest = named
    for name, x in rest:
        check(x.dtype == t.dtype, prim, cid, lambda: f"{first} has dtype {dt.short(t.dtype)} but {name} has "
              f"{dt.short(x.dtype)}")
    check_dtype(prim, cid, t, prim.dtypes, first)
    check_same_device(prim, cid, [x for _, x in named])


def _tau(prim, cid, a, tau, size=None):
    """tau is a vector per matrix of a: a's batch dims, then (when given) `size` entries."""
    check(tuple(tau.shape[:-1]) == tuple(a.shape[:-2]) and len(tau.shape) == len(a.shape) - 1, prim, cid,
          lambda: f"tau has shape {shape_str(tau.shape)}, expected a's batch dims {shape_str(a.shape[:-2])} and "
          f"one more dim")
    if size is not None:
        check(tau.shape[-1] == size, prim, cid, lambda: f"tau has {tau.shape[-1]} entries, expected min(m, n) = "
              f"{size} for a of shape {shape_str(a.shape)}")


def _complex_needs_symmetric(prim, cid, a, hermitian, what="a"):
    check(not (a.dtype.is_complex and hermitian), prim, cid, lambda: f"{what} is {dt.short(a.dtype)} with "
          f"hermitian=True: the complex Hermitian LDL factorization is not available on every backend "
          f"(torch's CUDA kernels lack it); use hermitian=False (complex symmetric)")


@meta_rule("householder_product", constraints=("C1", "C2", "C3"))
def householder_product(prim, a, tau):
    _matrix(prim, "C1", a)
    check(a.shape[-2] >= a.shape[-1], prim, "C1", lambda: f"a has shape {shape_str(a.shape)}, expected at least "
          f"as many rows as columns")
    _tau(prim, "C2", a, tau)
    check(tau.shape[-1] <= a.shape[-1], prim, "C2", lambda: f"tau has {tau.shape[-1]} entries but a has only "
          f"{a.shape[-1]} columns")
    _same_dtype(prim, "C3", [("a", a), ("tau", tau)])
    return _out(a.shape, a.dtype, a.device)


@meta_rule("ormqr", constraints=("C1", "C2", "C3", "C4"))
def ormqr(prim, a, tau, other, left, transpose):
    _matrix(prim, "C1", a)
    check(len(other.shape) == len(a.shape) and tuple(other.shape[:-2]) == tuple(a.shape[:-2]), prim, "C1",
          lambda: f"other has shape {shape_str(other.shape)}, expected a's batch dims {shape_str(a.shape[:-2])} "
          f"and two matrix dims")
    applied = -2 if left else -1
    check(other.shape[applied] == a.shape[-2], prim, "C2", lambda: f"other has size {other.shape[applied]} in dim "
          f"{applied} but a has {a.shape[-2]} rows")
    _tau(prim, "C3", a, tau, _smaller(a.shape[-2], a.shape[-1]))
    _same_dtype(prim, "C4", [("a", a), ("tau", tau), ("other", other)])
    return _out(other.shape, other.dtype, other.device)


@meta_rule("ldl_factor", constraints=("C1", "C2", "C3"), outputs=2)
def ldl_factor(prim, a, hermitian):
    _square(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    _complex_needs_symmetric(prim, "C3", a, hermitian)
    return _out(a.shape, a.dtype, a.device), _out(a.shape[:-1], torch.int32, a.device)


@meta_rule("ldl_solve", constraints=("C1", "C2", "C3", "C4", "C5"))
def ldl_solve(prim, LD, pivots, B, hermitian):
    _square(prim, "C1", LD, "LD")
    check(pivots.dtype == torch.int32 and tuple(pivots.shape) == tuple(LD.shape[:-1]), prim, "C2",
          lambda: f"pivots is {dt.short(pivots.dtype)} of shape {shape_str(pivots.shape)}, expected int32 of shape "
          f"{shape_str(LD.shape[:-1])}")
    _solve_rhs(prim, "C3", LD, B, True, "LD", "B")
    check(B.shape[-2] == LD.shape[-1], prim, "C3", lambda: f"B has {B.shape[-2]} rows but LD is {LD.shape[-1]} x "
          f"{LD.shape[-1]}")
    _same_dtype(prim, "C4", [("LD", LD), ("B", B)])
    check_same_device(prim, "C4", [LD, pivots, B])
    _complex_needs_symmetric(prim, "C5", LD, hermitian, "LD")
    return _out(B.shape, B.dtype, B.device)


@meta_rule("cholesky_solve", constraints=("C1", "C2", "C3"))
def cholesky_solve(prim, B, L, upper):
    _square(prim, "C1", L, "L")
    _solve_rhs(prim, "C2", L, B, True, "L", "B")
    check(B.shape[-2] == L.shape[-1], prim, "C2", lambda: f"B has {B.shape[-2]} rows but L is {L.shape[-1]} x "
          f"{L.shape[-1]}")
    _same_dtype(prim, "C3", [("L", L), ("B", B)])
    return _out(B.shape, B.dtype, B.device)


@meta_rule("lstsq", constraints=("C1", "C2", "C3"))
def lstsq(prim, a, b):
    _matrix(prim, "C1", a)
    _solve_rhs(prim, "C2", a, b, True)
    check(b.shape[-2] == a.shape[-2], prim, "C2", lambda: f"b has {b.shape[-2]} rows but a has {a.shape[-2]}")
    _same_dtype(prim, "C3", [("a", a), ("b", b)])
    return _out(tuple(a.shape[:-2]) + (a.shape[-1], b.shape[-1]), a.dtype, a.device)
