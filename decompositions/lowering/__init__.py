"""Lowering to a backend's own prim set: prims that decompose into other prims.

A lowering is a function written in other prims, registered with ``@lowers("<prim>")``.
``get_decompositions(target=SET)`` returns the ATen table plus the lowering of every prim
outside SET (make_fx applies table entries to primkit ops as to ATen ops), where it reaches SET;
``trace(..., target=SET)`` checks each graph. Which prims a lowering reaches is read off a run of
the lowering itself on meta tensors.

Layout: ``core.py`` (the registry and shared helpers), one module per prim family holding its
lowerings (``elementwise.py``, ``complex.py``, ``conversion.py``, ``reductions.py``, ``memory.py``,
``creation.py``, ``shape.py``, ``scan.py``, ``windowed.py``, ``indexing.py``), ``reach.py`` (reachability,
the core set and the prims a backend may leave out). Importing the package registers every lowering.

``MINIMAL_PRIMS`` is the smallest closure: the prims that have no lowering valid at every dtype
they take.

Lowerings keep eager's numerics where a naive formula would not: log1p and expm1 use the
u = 1 + x correction (Goldberg), tanh is computed from expm1 of -2x on the half plane
Re x >= 0 (and its odd symmetry), complex inverse functions and tanh by Kahan's formulas, float
fmod by exact long division (Dekker's product).
"""
from __future__ import annotations

from primkit.decompositions.lowering import complex, conversion, elementwise, memory, reductions  # noqa: F401  (registration)
from primkit.decompositions.lowering import creation, indexing, scan, shape, windowed  # noqa: F401  (registration)
from primkit.decompositions.lowering.core import LOWERINGS, lowers
from primkit.decompositions.lowering.reach import (  # noqa: F401
    CORE_PRIMS, HOST_PRIMS, MINIMAL_PRIMS, OPTIONAL_FAMILIES, OPTIONAL_PRIMS, OPTIONAL_SPECIAL, REINTERPRETING_PRIMS, core_gap, lower_to, node_dtype,
    prim_set, prims_called, reachable_pairs, reaches, reaches_at, unreachable, valid_dtypes,
)

__all__ = ["LOWERINGS", "lowers", "CORE_PRIMS", "HOST_PRIMS", "MINIMAL_PRIMS", "OPTIONAL_FAMILIES", "OPTIONAL_PRIMS", "OPTIONAL_SPECIAL", "REINTERPRETING_PRIMS",
           "core_gap", "lower_to", "node_dtype", "prim_set", "prims_called", "reachable_pairs", "reaches",
           "reaches_at", "unreachable", "valid_dtypes"]
