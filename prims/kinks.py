"""Where a prim has no derivative: the point sets a catalog entry's ``kinks`` field names.

A catalog entry lists its kinks as data, each a point set of this vocabulary over some of its
tensor arguments and the reason the prim is not differentiable there:

    kinks:
      - {at: equal, args: [a, b], why: "a tie: the even split is a convention, not a derivative"}

The loader checks ``at`` against ``POINT_SETS`` and the arity, and that ``args`` are tensor
arguments; ``touches`` is the one predicate code reads (the gradient tests leave out samples that
touch a kink, since finite differences there measure a jump, not a derivative).
"""
from __future__ import annotations

import torch

TOLERANCE = 1e-3    # how near a point set an element counts as touching it


def _near(x, y):
    return bool(((x - y).abs() < TOLERANCE).any())


def _near_integer(x):
    return bool(((x - x.round()).abs() < TOLERANCE).any())


# name -> (number of arguments (None: one or more), predicate on those tensors, what it means)
POINT_SETS = {
    "equal": (2, lambda x, y: _near(x, y), "an element of x equals the one of y (a tie)"),
    "zero": (None, lambda *xs: all(_near(x, 0) for x in xs), "each listed argument has an element at 0"),
    "integer": (1, _near_integer, "an element of x is an integer"),
    "integer_ratio": (2, lambda x, y: _near_integer(x / y), "an element of x / y is an integer"),
    "power_of_two": (1, lambda x: _near_integer(torch.log2(x.abs().clamp_min(1e-30))),
                     "an element of |x| is a power of two"),
    "complex": (1, lambda x: x.is_complex(), "x is complex (a gauge: the result is unique only up to a phase)"),
}


def touches(prim, args) -> str | None:
    """The reason of the first kink of ``prim`` (a PrimDef) the call's ``args`` (schema order) touch,
    or None. A kink over an argument the call does not give as a tensor is not touched."""
    for kink in prim.kinks:
        tensors = [args[prim.arg_names.index(a)] if prim.arg_names.index(a) < len(args) else None for a in kink.args]
        if all(isinstance(t, torch.Tensor) for t in tensors) and POINT_SETS[kink.at][1](*tensors):
            return kink.why
    return None
