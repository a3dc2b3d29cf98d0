"""Decompositions of torch.special's classical orthogonal polynomials: Chebyshev T, U, V, W and
their shifted forms, Hermite H and He, Laguerre L, Legendre P. Each is one prim of the catalog.

Eager evaluates p_n(x) as a binary float op: x and n promote together (a Python x or n takes
part as a wrapped number), integer and bool operands compute in the default float dtype, and
only float32 and float64 have kernels. n is truncated to an integer; a negative n gives 0. Every
op covers its Tensor, x_scalar and n_scalar overloads and their out= forms.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, elementwise, promote, register_with_variants
from primkit.prims import dtypes as dt

POLYNOMIALS = (
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
)


# The dtypes eager (CPU and CUDA) has kernels for, as the prims do.
KERNEL_DTYPES = (torch.float32, torch.float64)


def _polynomial(name):
    prim = getattr(P, name)

    def decomp(x, n):
        _, result = promote(x, n, kind="int_to_float")
        if result not in KERNEL_DTYPES:
            # eager: NotImplementedError ('"<name>_cpu" not implemented for ...')
            raise NotImplementedError(f"special_{name}: x and n promote to {dt.short(result)}, but only float32 and "
                                      "float64 are supported (integer and bool operands compute in the default "
                                      "float dtype)")
        return elementwise(prim, x, n, kind="int_to_float")
    decomp.__name__ = decomp.__qualname__ = f"special_{name}"
    return decomp


for _name in POLYNOMIALS:
    register_with_variants(f"special_{_name}", _polynomial(_name))
