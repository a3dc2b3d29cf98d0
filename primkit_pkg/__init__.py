"""primkit: a closed catalog of primitive ops for PyTorch, decompositions of ATen into them, and an
OpInfo test database.

    import primkit
    primkit.__version__
    primkit.trace(fn_or_module, *args, dynamic=False, **kwargs)   # prim-only GraphModule
    primkit.get_decompositions(ops=None, *, target=None)          # dict[OpOverload, Callable]
    primkit.DecompositionError                                     # lists every op without a decomposition
    primkit.catalog()                                              # the prims: tuple of PrimDef, catalog order
    from primkit import prims, decompositions, graph, runtime, export, opinfo, tools   # the layers

``catalog`` is ``primkit.prims.catalog`` (a function, as in ``prims.catalog()``), so that
``primkit.catalog()`` and ``prims.catalog()`` are one call. ``import primkit`` defines the prims
(``torch.ops.primkit.*``), registers every decomposition and imports the graph pipeline
(``primkit.graph``); ``primkit.runtime`` (executor, eager mode, torch.compile backends),
``primkit.export`` (exporters: ONNX),
``primkit.opinfo`` (the test database) and ``primkit.tools`` (the console command) are imported on
first use.

This file is the package's top level; in the repository it lives in ``primkit_pkg/`` (see
setup.py), and each layer is its own top-level folder mapped into the package.
"""
from __future__ import annotations

import gc as _gc
import importlib
from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("primkit")
except PackageNotFoundError:   # not installed (primkit is imported only through an install: see setup.py)
    __version__ = "0+unknown"

# Importing the layers makes tens of thousands of long-lived objects and next to no garbage: the cyclic collector,
# which would walk all of torch's objects on each full pass meanwhile, is paused until they are in (a fifth of
# the import's time).
_collecting = _gc.isenabled()
_gc.disable()
try:
    from primkit import decompositions, graph, prims
    from primkit.decompositions import DecompositionError, get_decompositions
    from primkit.graph import trace
    from primkit.prims import catalog
finally:
    if _collecting:
        _gc.enable()

__all__ = ["trace", "get_decompositions", "DecompositionError", "catalog",
           "prims", "decompositions", "graph", "runtime", "export", "opinfo", "tools"]

_LAZY = ("runtime", "export", "opinfo", "tools")


def __getattr__(name):
    """``primkit.runtime``, ``primkit.opinfo`` and ``primkit.tools`` import on first use (the OpInfo database takes seconds)."""
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
