"""What the backward decompositions share: pointwise backward ops, sums to a shape, output masks.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, elementwise, like
from primkit.decompositions.layout import in_layout
from primkit.prims.layout import elementwise_strides


# ----------------------------------------------------------------------------- helpers


def _pointwise(name, math_fn, lead):
    """A backward op that is pointwise in its tensors: promote, upcast, ``math_fn(*ops, c)``, cast
    back (``c(v)`` is the constant v shaped like the operands). The result is laid out as eager's
    TensorIterator lays it out, which takes the operand order from the kernel: ``lead`` is the
    index of the tensor argument eager lists first."""
    def decomp(*args, **kwargs):
        tensors = [a for a in args if isinstance(a, torch.Tensor)]
        scalars = [a for a in args if not isinstance(a, torch.Tensor)]

        def fn(*ops):
            return math_fn(*ops, lambda v: like(ops[0], v), *scalars, **kwargs)
        out = elementwise(fn, *tensors)
        ordered = [tensors[lead]] + [t for i, t in enumerate(tensors) if i != lead]
        if all(tuple(t.shape) == tuple(out.shape) for t in ordered):
            out = in_layout(out, elementwise_strides(out.shape, [(t.stride(), t.element_size()) for t in ordered]))
        return out
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


def _sum_to(t, dims):
    return P.sum(t, list(dims)) if dims else t


def _maybe(mask, value):
    return value if mask else None


def _check_same_shape(name, *tensors):
    shapes = [list(t.shape) for t in tensors]
    if any(s != shapes[0] for s in shapes):
        raise RuntimeError(f"{name}: expected grad_output and the saved tensors to have one shape, got {shapes}")
