"""OpInfo entries for decomposed ATen ops, one module per op family."""
from opinfo.definitions import (aliases, backward, creation, elementwise, fft, indexing, linalg, nn, nn_extra, random,
                                reductions, shape, shape_extra, sorting)

ENTRIES = [e for m in (elementwise, reductions, shape, creation, indexing, linalg, nn, aliases, shape_extra, fft,
                       sorting, nn_extra, random, backward) for e in m.ENTRIES]
