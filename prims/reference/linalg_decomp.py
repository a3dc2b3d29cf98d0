"""Reference implementations of the linalg_decomp family: torch.linalg, outputs made contiguous
(torch.linalg returns several of them column-major)."""
from __future__ import annotations

import torch


def _contiguous(*outs):
    return tuple(o.contiguous() for o in outs)


def cholesky(a, upper):
    return torch.linalg.cholesky(a, upper=upper).contiguous()


def triangular_solve(a, b, upper, left, unitriangular):
    return torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular).contiguous()


def lu_factor(a):
    # getrf completes a singular factorization (U gets a zero pivot); lu_factor_ex does not raise on it
    return _contiguous(*torch.linalg.lu_factor_ex(a)[:2])


def lu_solve(LU, pivots, b, left, adjoint):
    return torch.linalg.lu_solve(LU, pivots, b, left=left, adjoint=adjoint).contiguous()


def qr(a, mode):
    return _contiguous(*torch.linalg.qr(a, mode=mode))


def svd(a, full_matrices):
    return _contiguous(*torch.linalg.svd(a, full_matrices=full_matrices))


def eigh(a, upper):
    return _contiguous(*torch.linalg.eigh(a, UPLO="U" if upper else "L"))


def eig(a):
    return _contiguous(*torch.linalg.eig(a))


def geqrf(a):
    return _contiguous(*torch.geqrf(a))


def householder_product(a, tau):
    return torch.linalg.householder_product(a, tau).contiguous()


def ormqr(a, tau, other, left, transpose):
    return torch.ormqr(a, tau, other, left=left, transpose=transpose).contiguous()


def ldl_factor(a, hermitian):
    return _contiguous(*torch.linalg.ldl_factor(a, hermitian=hermitian))


def ldl_solve(LD, pivots, B, hermitian):
    return torch.linalg.ldl_solve(LD, pivots, B, hermitian=hermitian).contiguous()


def cholesky_solve(B, L, upper):
    return torch.cholesky_solve(B, L, upper=upper).contiguous()


def lstsq(a, b):
    # torch's default driver: gelsy on CPU (QR with column pivoting), gels on CUDA (QR; needs full rank).
    return torch.linalg.lstsq(a, b).solution.contiguous()
