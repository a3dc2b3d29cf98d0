"""Helpers that derivative formulas may call: one module per family of prims, named as the family
(``elementwise`` serves the elementwise families; ``common`` holds what the modules share), each
listing its helpers in a ``HELPERS`` tuple. Each helper is small, documented and written in prims
(``torch.ops.primkit.<name>``), so a backward made of helpers is itself a prim graph.
"""
from __future__ import annotations

import importlib
import pkgutil


def collect() -> dict:
    """name -> helper function, over every module of this package; a name defined twice is an error."""
    found: dict = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for f in getattr(module, "HELPERS", ()):
            if f.__name__ in found:
                raise RuntimeError(f"prims.derivative_helpers: helper {f.__name__!r} is defined in "
                                   f"{found[f.__name__].__module__} and {module.__name__}")
            found[f.__name__] = f
    return found
