"""primkit's decomposition registry: ATen ops written in prims.

    from primkit import decompositions
    decompositions.get_decompositions(ops=None, *, target=None, keep=None)   # dict[OpOverload, Callable]
    decompositions.DecompositionError
    decompositions.register(*ops), decompositions.registered()

The tracer lives one layer up, in ``primkit.graph``; ``decompositions.trace``, ``check_prim_only`` and
``tracing`` are re-exported here because they are public API (``from primkit.decompositions import
trace``), the one import of a higher layer this layer makes (import-linter's contract lists it).
"""
from __future__ import annotations

from primkit import prims  # noqa: F401  (defines torch.ops.primkit before any decomposition uses it)
from primkit.decompositions.registry import DecompositionError, register, registered
from primkit.decompositions.table import get_decompositions

# Each module registers its decompositions on import; one module (nn, collective: one package) per op family.
from primkit.decompositions import (  # noqa: E402,F401
    aliases, backward, collective, complex, creation, elementwise, fft, indexing, linalg, nn, quantized,
    random, reductions, shape, sorting, special, torch_prims,
)

# Public API kept where users import it from (the tracer is primkit.graph's).
from primkit.graph.trace import check_prim_only, trace, tracing  # noqa: E402

__all__ = ["get_decompositions", "trace", "DecompositionError", "register", "registered",
           "check_prim_only", "tracing"]
