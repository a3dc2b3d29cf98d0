"""Sizes that are sympy expressions and compare by proof: ``SymDim``.

The meta rules run on them unchanged (prims/symbolic.py builds TensorSpecs of them). Symbols stand
for integers >= 2 (as PyTorch's dynamic shapes assume: sizes 0 and 1 are specialized). A relation
that follows from that is decided; one that does not (``B == S``) is assumed true and recorded
while ``recording()`` is active.
"""
from __future__ import annotations

import contextlib
import operator

import sympy

_ASSUMPTIONS: list | None = None     # where SymDim records what it assumed, inside recording()


@contextlib.contextmanager
def recording():
    """The relations SymDims assume inside the block, in a list (nested blocks record apart)."""
    global _ASSUMPTIONS
    previous, _ASSUMPTIONS = _ASSUMPTIONS, []
    try:
        yield _ASSUMPTIONS
    finally:
        _ASSUMPTIONS = previous


def symbol(name: str) -> sympy.Symbol:
    return sympy.Symbol(name, integer=True, positive=True)


def _decide(expr):
    """expr rewritten so that sympy's sign queries (is_zero, is_positive, ...) know every
    symbol is an integer >= 2: each symbol s becomes s' + 2 with s' a non-negative integer."""
    shifted = expr.subs({s: sympy.Symbol(f"_{s.name}", integer=True, nonnegative=True) + 2
                         for s in expr.free_symbols})
    # Expanded, a polynomial in non-negative symbols shows its sign term by term.
    return sympy.expand(shifted)


class SymDim:
    """An integer expression that compares by proof (see the module doc)."""
    __slots__ = ("expr",)

    def __init__(self, expr):
        self.expr = sympy.sympify(expr)

    # arithmetic -----------------------------------------------------------------------------
    def _wrap(self, other):
        return other.expr if isinstance(other, SymDim) else sympy.sympify(other)

    def __add__(self, o): return SymDim(self.expr + self._wrap(o))        # noqa: E704
    def __radd__(self, o): return SymDim(self._wrap(o) + self.expr)       # noqa: E704
    def __sub__(self, o): return SymDim(self.expr - self._wrap(o))        # noqa: E704
    def __rsub__(self, o): return SymDim(self._wrap(o) - self.expr)       # noqa: E704
    def __mul__(self, o): return SymDim(self.expr * self._wrap(o))        # noqa: E704
    def __rmul__(self, o): return SymDim(self._wrap(o) * self.expr)       # noqa: E704
    def __floordiv__(self, o): return SymDim(sympy.floor(self.expr / self._wrap(o)))   # noqa: E704
    def __rfloordiv__(self, o): return SymDim(sympy.floor(self._wrap(o) / self.expr))  # noqa: E704
    def __mod__(self, o): return SymDim(sympy.Mod(self.expr, self._wrap(o)))          # noqa: E704
    def __neg__(self): return SymDim(-self.expr)                          # noqa: E704
    def __index__(self): return self._concrete()                          # noqa: E704
    def __int__(self): return self._concrete()                            # noqa: E704
    def __hash__(self): return hash(self.expr)                            # noqa: E704
    def _sympy_(self): return self.expr                                   # noqa: E704  (sympy.sympify)

    def _concrete(self) -> int:
        if self.expr.is_Integer:
            return int(self.expr)
        raise TypeError(f"size {self.expr} is symbolic; an integer is needed here")

    # relations ------------------------------------------------------------------------------
    def _relation(self, other, op, text):
        diff = _decide(self.expr - self._wrap(other))
        truth = {"==": diff.is_zero, "!=": None if diff.is_zero is None else not diff.is_zero,
                 "<": diff.is_negative, "<=": diff.is_nonpositive, ">": diff.is_positive,
                 ">=": diff.is_nonnegative}[text]
        if truth is None:
            # Undecidable: assume the relation a valid program needs. For (in)equality that is
            # always equality, so `a != b` assumes a == b and answers False.
            rel = sympy.Eq(self.expr, self._wrap(other)) if text in ("==", "!=") else \
                op(self.expr, self._wrap(other))
            if _ASSUMPTIONS is not None and rel not in _ASSUMPTIONS:
                _ASSUMPTIONS.append(rel)
            return text != "!="
        return bool(truth)

    def __eq__(self, o):
        if not isinstance(o, (SymDim, int, sympy.Basic)) or isinstance(o, bool):
            return NotImplemented
        return self._relation(o, operator.eq, "==")

    def __ne__(self, o):
        if not isinstance(o, (SymDim, int, sympy.Basic)) or isinstance(o, bool):
            return NotImplemented
        return self._relation(o, operator.ne, "!=")

    def __lt__(self, o): return self._relation(o, operator.lt, "<")       # noqa: E704
    def __le__(self, o): return self._relation(o, operator.le, "<=")      # noqa: E704
    def __gt__(self, o): return self._relation(o, operator.gt, ">")       # noqa: E704
    def __ge__(self, o): return self._relation(o, operator.ge, ">=")      # noqa: E704

    def __repr__(self):
        return str(self.expr)
