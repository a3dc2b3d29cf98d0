"""Decompositions of shape and layout ops, one module per section: ``views`` (view(dtype) too), ``joins``
(splits and concatenation), ``reorderings`` (flip, roll, repeat, padding, triangles), ``copies`` (copies,
conversions and the functional copies of views), ``scatters`` (the *_scatter ops), ``products`` (block_diag,
cartesian_prod, combinations), ``conveniences`` (torch.*'s CompositeImplicitAutograd ops) and ``diagonals``
(diag_embed, rot90, meshgrid, ...); ``common`` holds the size checks they share. Importing the package
registers them all.

Views decompose to the view prims (reshape, permute, slice, squeeze, expand_dims,
broadcast_in_dim, as_strided), which return views with eager's strides; ops that allocate
compute eager's output layout and copy into it where the prims' default layout differs.
"""
from __future__ import annotations

from primkit.decompositions.shape import (  # noqa: F401  (each module registers its decompositions on import)
    views, joins, reorderings, copies, scatters, products, conveniences, diagonals,
)
