"""The decomposition registry: ATen OpOverload -> a Python function written in prims."""
from __future__ import annotations

from typing import Callable, Iterable

import torch

from primkit import prims

_REGISTRY: dict[torch._ops.OpOverload, Callable] = {}
# "namespace::name.overload" -> decomposition, for ops a library defines when the user imports it (FSDP2's
# torch.ops.fsdp): registered once the op exists, so that importing primkit does not import the library
_DEFERRED: dict[str, Callable] = {}


_SPARSE_GRADIENT = ("the weight's gradient is a sparse tensor (sparse=True), a layout no prim models: a backend "
                    "that runs ATen ops (backend=\"primkit\") runs it as eager does; sparse=False gives a dense "
                    "gradient of prims")
# ATen ops that stay whole by design, and why: the error naming one of them says it
WHY_NO_DECOMPOSITION = {
    "aten::_embedding_bag_backward": f"embedding_bag's backward: {_SPARSE_GRADIENT}",
    "aten::_embedding_bag_sparse_backward": f"embedding_bag's backward: {_SPARSE_GRADIENT}",
    "aten::_sparse_coo_tensor_with_dims_and_tensors": f"makes embedding's sparse gradient: {_SPARSE_GRADIENT}",
}


class DecompositionError(RuntimeError):
    """Ops with no decomposition to prims; ``missing`` lists every one of them (the message says why, for
    an op that stays whole by design: ``WHY_NO_DECOMPOSITION``)."""

    def __init__(self, missing: Iterable[str], context: str = "", what: str = "have no decomposition to prims"):
        self.missing = sorted(set(missing))
        lines = "\n".join(f"  - {m}" + (f" ({WHY_NO_DECOMPOSITION[m]})" if m in WHY_NO_DECOMPOSITION else "")
                          for m in self.missing)
        super().__init__(f"{context}{len(self.missing)} op(s) {what}:\n{lines}")


def overloads_of(op, context: str = "register") -> list:
    if isinstance(op, torch._ops.OpOverload):
        return [op]
    if isinstance(op, torch._ops.OpOverloadPacket):
        return [getattr(op, name) for name in op.overloads()]
    hint = ""
    if isinstance(op, str):
        qualified = op.replace("::", ".").split(".")
        hint = f" (for '{op}' pass torch.ops.{'.'.join(qualified) if len(qualified) > 1 else 'aten.' + op})"
    raise TypeError(f"{context}: expected an OpOverload or OpOverloadPacket such as torch.ops.aten.add or "
                    f"torch.ops.aten.add.Tensor, got {type(op).__name__} {op!r}{hint}")


def register(*ops):
    """Register the decorated function for every listed OpOverload (a packet means all of them)."""
    def deco(fn):
        for op in ops:
            for overload in overloads_of(op):
                if overload in _REGISTRY:
                    raise ValueError(f"{overload.name()} has two decompositions: "
                                     f"{_REGISTRY[overload].__qualname__} and {fn.__qualname__}")
                _REGISTRY[overload] = fn
        return fn
    return deco


def register_when_defined(*names: str):
    """Register the decorated function for each op named ``"namespace::name.overload"``, once that op
    exists: for ops of a library primkit does not import (it defines them when the user's program imports
    it). ``registered()`` registers those defined by then."""
    def deco(fn):
        for name in names:
            first = _DEFERRED.get(name) or next((f for op, f in _REGISTRY.items() if op.name() == name), None)
            if first is not None:
                raise ValueError(f"{name} has two decompositions: {first.__qualname__} and {fn.__qualname__}")
            _DEFERRED[name] = fn
        return fn
    return deco


def _register_defined() -> None:
    for name in list(_DEFERRED):
        namespace, _, rest = name.partition("::")
        packet, _, overload = rest.partition(".")
        try:
            op = getattr(getattr(getattr(torch.ops, namespace), packet), overload or "default")
        except (AttributeError, RuntimeError):   # not defined yet
            continue
        register(op)(_DEFERRED.pop(name))


def entry(op):
    """The registered decomposition of the OpOverload ``op``, or None."""
    if _DEFERRED:
        _register_defined()
    return _REGISTRY.get(op)


def registered() -> dict:
    """The full registry (read-only use)."""
    if _DEFERRED:
        _register_defined()
    return dict(_REGISTRY)


def kept_ops(keep, context="trace(keep=...)") -> dict:
    """``keep`` (OpOverloads or packets of ATen ops) -> {overload: its decomposition or None}."""
    if keep is None:
        return {}
    if isinstance(keep, (str, torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        keep = [keep]
    table = registered()
    out = {}
    for op in keep:
        for overload in overloads_of(op, context):
            if prims.is_prim(overload):
                raise TypeError(f"{context}: {overload.name()} is a prim; keep names ATen ops (a prim stays "
                                f"whole when it is in the target)")
            out[overload] = table.get(overload)
    return out
