"""Reference implementations of the linalg_decomp prims that are not one torch call as is:
torch.linalg with the prim's arguments (the family's ``layout`` makes results contiguous: torch.linalg
returns several of them column-major)."""
from __future__ import annotations

import torch


def cholesky(a, upper):
    return torch.linalg.cholesky(a, upper=upper)


def triangular_solve(a, b, upper, left, unitriangular):
    return torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular)


def lu_factor(a):
    # getrf completes a singular factorization (U gets a zero pivot); lu_factor_ex does not raise on it
    return torch.linalg.lu_factor_ex(a)[:2]


def lu_solve(LU, pivots, b, left, adjoint):
    return torch.linalg.lu_solve(LU, pivots, b, left=left, adjoint=adjoint)


def eigh(a, upper):
    return torch.linalg.eigh(a, UPLO="U" if upper else "L")


def ldl_factor(a, hermitian):
    return torch.linalg.ldl_factor(a, hermitian=hermitian)


def ldl_solve(LD, pivots, B, hermitian):
    return torch.linalg.ldl_solve(LD, pivots, B, hermitian=hermitian)


def lstsq(a, b):
    # torch's default driver: gelsy on CPU (QR with column pivoting), gels on CUDA (QR; needs full rank).
    return torch.linalg.lstsq(a, b).solution
