"""Decompositions of linear algebra, one module per concern:

- ``products``: mm, bmm, matmul, linear, dot, mv, outer, the ``add*`` family (beta * input + alpha *
  product), addr, inner, tensordot and the out_dtype overloads. All reach the one ``matmul`` prim, which
  takes equal batch dims: broadcasting is explicit (``broadcast_in_dim``) and vectors become matrices by
  ``expand_dims``. Eager's products are contiguous, as the prim's output is.
- ``einsum``: eager's algorithm, reaching the products.
- ``factorizations``: Cholesky, LU, QR (Householder: geqrf, ormqr, householder_product), LDL, eigen and
  singular value decompositions, least squares, determinants, inverses and solves. They reach the
  linalg_decomp prims, whose outputs are row-major; eager's LAPACK kernels return column-major matrices,
  which ``column_major`` restores.
- ``matrix_functions``: eager's composites on the factorizations, condition numbers, the matrix power,
  the pseudo-inverse and the matrix exponential.
- ``composites``: eager's compositions (CompositeImplicitAutograd) written again in ops that decompose, so
  their rounding, type promotion and output strides follow eager's: vander, trace, kron, cross.
"""
from __future__ import annotations

# Each module registers its decompositions on import.
from primkit.decompositions.linalg import (  # noqa: F401
    composites, einsum, factorizations, matrix_functions, products)
from primkit.decompositions.linalg.matrix_functions import MATRIX_EXP_THETAS
from primkit.decompositions.linalg.products import conj_transpose

__all__ = ["MATRIX_EXP_THETAS", "conj_transpose"]
