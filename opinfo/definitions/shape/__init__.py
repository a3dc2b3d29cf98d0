"""OpInfo entries: shape and layout ops, one module per section of primkit.decompositions.shape: ``views``,
``joins``, ``reorderings``, ``copies`` (copies, conversions and the functional copies of views), ``scatters``,
``products``, ``conveniences`` and ``diagonals``; ``common`` holds the sample makers they share. A copy shares
its view's samples and errors: the result is the view's values in a fresh contiguous tensor, whatever the
input's layout.

Most entries are a row: the op, its cases (shape, args, kwargs), and which layouts of the
input each case runs on; eager's errors are rows too.
"""
from __future__ import annotations

from primkit.opinfo.definitions.shape import (conveniences, copies, diagonals, joins, products, reorderings, scatters,
                                              views)

ENTRIES = [e for m in (views, joins, reorderings, copies, scatters, products, conveniences, diagonals)
           for e in m.ENTRIES]
