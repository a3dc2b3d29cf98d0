"""Meta rules of the linalg_decomp family: contiguous outputs of matrix shapes derived from
(..., m, n) operands."""
from __future__ import annotations

import torch

from prims import dtypes as dt
from prims.errors import check
from prims.meta import TensorMeta, meta_rule
from prims.meta.common import check_dtype, check_same_device, shape_str
from prims.meta.strides import contiguous_strides

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


def _solve_rhs(prim, cid, a, b, left, what="a"):
    """b is (..., n, k) (left) or (..., k, n) with a's batch dims."""
    check(len(b.shape) == len(a.shape) and tuple(b.shape[:-2]) == tuple(a.shape[:-2]), prim, cid,
          lambda: f"b has shape {shape_str(b.shape)}, expected {what}'s batch dims {shape_str(a.shape[:-2])} and "
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


@meta_rule("lu_factor", constraints=("C1", "C2"))
def lu_factor(prim, a):
    _matrix(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    k = _smaller(a.shape[-2], a.shape[-1])
    return _out(a.shape, a.dtype, a.device), _out(tuple(a.shape[:-2]) + (k,), torch.int32, a.device)


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


@meta_rule("qr", constraints=("C1", "C2", "C3"))
def qr(prim, a, mode):
    _matrix(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    check(mode in QR_MODES, prim, "C3", lambda: f"mode is '{mode}', expected one of {', '.join(QR_MODES)}")
    batch, m, n = tuple(a.shape[:-2]), a.shape[-2], a.shape[-1]
    k = m if mode == "complete" else _smaller(m, n)
    return _out(batch + (m, k), a.dtype, a.device), _out(batch + (k, n), a.dtype, a.device)


@meta_rule("svd", constraints=("C1", "C2"))
def svd(prim, a, full_matrices):
    _matrix(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    batch, m, n = tuple(a.shape[:-2]), a.shape[-2], a.shape[-1]
    k = _smaller(m, n)
    u_cols, vh_rows = (m, n) if full_matrices else (k, k)
    return (_out(batch + (m, u_cols), a.dtype, a.device), _out(batch + (k,), dt.to_real(a.dtype), a.device),
            _out(batch + (vh_rows, n), a.dtype, a.device))


@meta_rule("eigh", constraints=("C1", "C2"))
def eigh(prim, a, upper):
    _square(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    return _out(a.shape[:-1], dt.to_real(a.dtype), a.device), _out(a.shape, a.dtype, a.device)


@meta_rule("eig", constraints=("C1", "C2"))
def eig(prim, a):
    _square(prim, "C1", a)
    check_dtype(prim, "C2", a, prim.dtypes)
    out_dtype = dt.to_complex(a.dtype)
    return _out(a.shape[:-1], out_dtype, a.device), _out(a.shape, out_dtype, a.device)
