"""What runs prim graphs: the executor (a prim graph as straight-line torch kernel calls), eager mode
through prims (``through_prims``), and the torch.compile backends (``backends``: ``primkit`` on the
executor, ``primkit_inductor`` on Inductor, with the re-fusion passes of ``fusion/``).

    from primkit import runtime
    runtime.through_prims(mode="strict")   # context: a program's ATen ops run through prims, eagerly
    runtime.executor.compile(gm)           # see executor.py
    torch.compile(model, backend="primkit")   # or "primkit_inductor" (entry points: runtime.backends)
"""
from __future__ import annotations

from primkit.runtime import executor
from primkit.runtime.eager import ThroughPrims, through_prims

__all__ = ["executor", "through_prims", "ThroughPrims"]
