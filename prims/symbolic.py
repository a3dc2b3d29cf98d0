"""Symbolic shapes with sympy: run the prims' meta rules on shapes that are expressions.

    spec = TensorSpec(("B", "S"), torch.int64)          # a string is a positive integer symbol
    out, assumptions = propagate(gm, spec)              # gm: a prim graph (e.g. trace(dynamic=True))
    out.sympy_shape                                     # (B, S, 768) as sympy expressions

The outputs come back in the graph's output structure: one TensorSpec for a graph that returns
one tensor, a tuple (or list) of them for a graph that returns several.

The meta rules are the same functions that serve real and fake tensors: a TensorSpec's sizes and
strides are ``SymDim``s, numbers that compare by proving. Symbols stand for integers >= 2 (as
PyTorch's dynamic shapes assume: sizes 0 and 1 are specialized). A relation that follows from
that is decided; one that does not (``B == S``) is assumed true and recorded, so the caller sees
every assumption a result rests on; one that is provably false fails the rule's constraint check,
which raises an error citing prim and constraint.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field

import sympy
import torch
import torch.fx as fx

from primkit import prims
from primkit.prims.meta import RULES, TensorMeta
from primkit.prims.layout import contiguous_strides
from primkit.prims.symdim import SymDim, recording, symbol

def _dim(x):
    if isinstance(x, SymDim):
        return x
    if isinstance(x, str):
        return SymDim(symbol(x))
    if isinstance(x, (int, sympy.Basic)):
        return SymDim(x)
    raise TypeError(f"TensorSpec: a dim is an int, a str (symbol) or a sympy expression, got {type(x).__name__}")


def _plain(x):
    """SymDim -> int when constant, else the sympy expression."""
    if isinstance(x, SymDim):
        return int(x.expr) if x.expr.is_Integer else x.expr
    return x


@dataclass
class TensorSpec:
    """A tensor described by shape (ints, symbol names or sympy expressions), dtype, device,
    and strides (contiguous unless given)."""
    shape: tuple
    dtype: torch.dtype
    device: object = "cpu"
    strides: tuple | None = field(default=None)

    def __post_init__(self):
        self.shape = tuple(_dim(s) for s in self.shape)
        self.strides = tuple(_dim(s) for s in (self.strides if self.strides is not None
                                                else contiguous_strides(self.shape)))
        self.device = torch.device(self.device)

    def stride(self, dim=None):
        return self.strides if dim is None else self.strides[dim]

    def dim(self) -> int:
        return len(self.shape)

    def numel(self):
        n = SymDim(1)
        for s in self.shape:
            n = n * s
        return n

    @property
    def sympy_shape(self) -> tuple:
        return tuple(_plain(s) for s in self.shape)

    def __repr__(self):
        return f"TensorSpec(shape={self.sympy_shape}, dtype={self.dtype}, device={self.device})"


def _spec_of(meta: TensorMeta) -> TensorSpec:
    return TensorSpec(tuple(meta.shape), meta.dtype, meta.device, tuple(meta.strides))


def _as_spec_tree(out):
    if isinstance(out, TensorMeta):
        return _spec_of(out)
    if isinstance(out, tuple):
        return tuple(_as_spec_tree(o) for o in out)
    return out


def _max(a, b):
    return a if _dim(a) >= _dim(b) else b


def _min(a, b):
    return a if _dim(a) <= _dim(b) else b


_SYM_CALLS = {
    torch.sym_max: _max,
    torch.sym_min: _min,
    torch.ops.aten.sym_size.int: lambda t, d: t.shape[d],
    torch.ops.aten.sym_stride.int: lambda t, d: t.strides[d],
    torch.ops.aten.sym_numel.default: lambda t: t.numel(),
    torch.sym_sum: sum,
    # checks on numbers read from data: they constrain the values a graph runs on, not its shapes
    torch.ops.aten._assert_scalar.default: lambda *args: None,
    torch.ops.aten.sym_constrain_range.default: lambda *args, **kwargs: None,
    torch.ops.aten.sym_constrain_range_for_size.default: lambda *args, **kwargs: None,
}


def propagate(gm: fx.GraphModule, *specs):
    """Run gm's prim graph on TensorSpecs. Returns (outputs, assumptions made): the outputs as
    TensorSpecs in the graph's output structure (a bare TensorSpec for a single output)."""
    with recording() as assumptions:
        env = {}
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        if len(placeholders) != len(specs):
            raise TypeError(f"propagate: the graph takes {len(placeholders)} inputs, got {len(specs)} specs")
        for node, spec in zip(placeholders, specs):
            env[node] = spec
        for node in gm.graph.nodes:
            if node.op in ("placeholder",):
                continue
            load = lambda a: env[a] if isinstance(a, fx.Node) else a  # noqa: E731
            args = fx.node.map_aggregate(node.args, load)
            kwargs = fx.node.map_aggregate(node.kwargs, load)
            if node.op == "get_attr":
                t = getattr(gm, node.target)
                env[node] = TensorSpec(tuple(t.shape), t.dtype, t.device, tuple(t.stride()))
            elif node.op == "output":
                outs = args[0]
            elif prims.is_prim(node.target):
                prim = prims.get(node.target._opname)
                env[node] = _as_spec_tree(RULES[prim.meta].fn(prim, *prim.bind(args, kwargs)))
            elif node.target in _SYM_CALLS:
                env[node] = _SYM_CALLS[node.target](*args, **kwargs)
            elif node.op == "call_function" and node.target.__module__ in ("_operator", "operator"):
                env[node] = node.target(*[_dim(a) if isinstance(a, int) and not isinstance(a, bool) else a
                                          for a in args])
            elif node.op == "call_function" and node.target is operator.getitem:
                env[node] = args[0][args[1]]
            else:
                raise TypeError(f"propagate: {node.format_node()} is not a prim or size arithmetic")
        return outs, list(assumptions)
