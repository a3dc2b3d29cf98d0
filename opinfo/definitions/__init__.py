"""OpInfo entries for decomposed ATen ops, one module per op family (the family of the module in
primkit.decompositions where the op decomposes); shared helpers in ``common``."""
from primkit.opinfo.definitions import (aliases, backward, collective, complex, creation, elementwise, fft,
                                        grid_sample, indexing, linalg, nn, quantized, random, reductions, shape,
                                        sorting, special, torch_prims)

ENTRIES = [e for m in (elementwise, reductions, shape, creation, indexing, linalg, nn, aliases, fft, sorting, random,
                       backward, grid_sample, special, complex, collective, quantized, torch_prims)
           for e in m.ENTRIES]
