"""OpInfo entries for decomposed ATen ops, one module per op family."""
from primkit.opinfo.definitions import (aliases, backward, complex, creation, elementwise, fft, indexing, indexing_extra, linalg,
                                linalg_extra, nn, nn_extra, random, reductions, shape, shape_extra, sorting, special)

ENTRIES = [e for m in (elementwise, reductions, shape, creation, indexing, linalg, nn, aliases, shape_extra, fft,
                       sorting, nn_extra, random, backward, special, complex, linalg_extra, indexing_extra)
           for e in m.ENTRIES]
