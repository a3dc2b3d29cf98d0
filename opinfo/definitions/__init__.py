"""OpInfo entries for decomposed ATen ops, one module per op family."""
from opinfo.definitions import creation, elementwise, indexing, linalg, nn, reductions, shape

ENTRIES = [e for m in (elementwise, reductions, shape, creation, indexing, linalg, nn) for e in m.ENTRIES]
