"""Meta rules: output shape, dtype, device and strides of a prim, computed without data.

A rule is written once per family against duck-typed tensors (``.shape``, ``.dtype``,
``.device``, ``.stride()``), so it runs on real tensors, FakeTensors with SymInts and
``prims.symbolic.TensorSpec``. It is called as ``rule(prim, *args)`` with the prim's
arguments in schema order (defaults filled in) and returns a ``TensorMeta``, a tuple of
them, or an input argument itself (for a prim that writes into its input).

A rule cites constraint ids from the prim's YAML entry in its errors; ``meta_rule`` declares
which ids and which YAML ``params`` it reads, and the loader checks every entry against that.
"""
from __future__ import annotations

from primkit.prims.meta.rules import (  # noqa: F401  (the package's public names)
    RULES, MetaRule, TensorMeta, count, dtype_class_per_argument, flag, is_tensor_like, listed, meta_rule, one_of)


def _import_families():
    """Every module of this package is a family of rules; each registers its rules on import."""
    import importlib
    import pkgutil
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        importlib.import_module(f"{__name__}.{info.name}")


_import_families()
