"""OpInfo entries of linear algebra, one module per concern, as decompositions/linalg/:

- ``products``: matrix products, the add* family, einsum and the out_dtype overloads;
- ``factorizations``: factorizations, solves and the functions of a matrix built on them;
- ``composites``: eager's compositions vander, trace, kron and cross;
- ``common``: the entry makers and dtypes they share.
"""
from __future__ import annotations

from primkit.opinfo.definitions.linalg import composites, factorizations, products

ENTRIES = products.ENTRIES + factorizations.ENTRIES + composites.ENTRIES
