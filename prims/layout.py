"""The geometry of tensors, for every layer: element counts, strides of the memory formats
(contiguous, channels-last, eager's elementwise layout), density and overlap checks, and the reading
of size conditions that may be symbolic (``surely``, ``maybe``).

Everything here takes plain sequences of sizes and strides (ints, SymInts or sympy
expressions) so the same code serves real, fake and symbolic tensors: the meta rules, the
decompositions, the graph pipeline and the runtimes use it alike.
"""
from __future__ import annotations

import math

import torch


def numel(shape):
    """The number of elements of a tensor of ``shape`` (an int, SymInt or sympy expression)."""
    return math.prod(shape)


def surely(cond) -> bool:
    """cond where it can be decided; False where it depends on data. A comparison of an unbacked
    (data-dependent) size that the ShapeEnv cannot decide is not guarded on (guard_or_false): a rule
    takes its general path there (a nonzero count is not assumed to be 0 or 1), which holds whatever the
    size turns out to be. Backed sizes guard as before; ints and sympy sizes compare as they are."""
    if isinstance(cond, torch.SymBool):   # torch has loaded symbolic_shapes (and sympy) by then
        from torch.fx.experimental.symbolic_shapes import guard_or_false
        return guard_or_false(cond)
    return bool(cond)


class _Surely:
    """A sort key of sizes or strides that orders them where the order is known (``surely``) and
    leaves in place what depends on data."""
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        # a <= b known and a == b not known (1 before max(1, u0)): data-dependent sizes sort as if > 1
        return surely(self.v < other.v) or (surely(self.v <= other.v) and not surely(self.v == other.v))

    def __eq__(self, other):
        return surely(self.v == other.v)


def maybe(cond) -> bool:
    """cond unless it is known false: True where it depends on data (guard_or_true), the general case for
    a relation whose special case is equality (``size != 1``, ``stride != expected``). Backed sizes guard as
    before; ints and sympy sizes compare as they are."""
    if isinstance(cond, torch.SymBool):
        from torch.fx.experimental.symbolic_shapes import guard_or_true
        return guard_or_true(cond)
    return bool(cond)


def same_sizes(a, b) -> bool:
    """Two shapes (or stride tuples) known to be equal, element by element (``surely``)."""
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and all(surely(x == y) for x, y in zip(a, b))


def sizes_differ(a, b) -> bool:
    """Two shapes known to differ: other ranks, or a pair of sizes known unequal (``surely``); shapes
    whose sizes depend on data are taken to agree (the kernels check them when the graph runs)."""
    a, b = tuple(a), tuple(b)
    return len(a) != len(b) or any(surely(x != y) for x, y in zip(a, b))


def itemsize(dtype) -> int:
    return dtype.itemsize


def contiguous_strides(shape) -> tuple:
    strides, acc = [], 1
    for s in reversed(tuple(shape)):
        strides.append(acc)
        acc = acc * _at_least_1(s)
    return tuple(reversed(strides))


def channels_last_strides(shape) -> tuple:
    """NHWC (4-d) or NDHWC (5-d) strides for an NC... shape."""
    n = len(shape)
    order = [1] + list(range(n - 1, 1, -1)) + [0]   # fastest first: C, W, H, (D), N
    strides = [0] * n
    acc = 1
    for d in order:
        strides[d] = acc
        acc = acc * _at_least_1(shape[d])
    return tuple(strides)


def strides_from_perm(shape, perm_fastest_first) -> tuple:
    """Dense strides that lay dims out in the given order, fastest dim first."""
    strides = [0] * len(shape)
    acc = 1
    for d in perm_fastest_first:
        strides[d] = acc
        acc = acc * _at_least_1(shape[d])
    return tuple(strides)


def _at_least_1(s):
    # A zero-size dim still advances strides as if it had size 1 (as torch does).
    if isinstance(s, torch.SymInt):
        return torch.sym_max(s, 1)
    return s if s >= 1 else 1    # ints, and symbolic dims that compare by proof


def is_contiguous(shape, strides) -> bool:
    if _numel_is_zero(shape):
        return True
    expected = 1
    for size, stride in zip(reversed(tuple(shape)), reversed(tuple(strides))):
        if surely(size == 1):
            continue
        if maybe(stride != expected):
            return False
        expected = expected * size
    return True


def is_channels_last(shape, strides) -> bool:
    if len(shape) != 4:
        return False
    if _numel_is_zero(shape):
        return True
    expected = 1
    for d in (1, 3, 2, 0):
        if surely(shape[d] == 1):
            continue
        if maybe(strides[d] != expected):
            return False
        expected = expected * shape[d]
    return True


def is_non_overlapping_and_dense(shape, strides) -> bool:
    if _numel_is_zero(shape):
        return True
    dims = sorted((d for d in range(len(shape)) if maybe(shape[d] != 1)), key=lambda d: _Surely(strides[d]))
    expected = 1
    for d in dims:
        if maybe(strides[d] != expected):
            return False
        expected = expected * shape[d]
    return True


def _numel_is_zero(shape) -> bool:
    return any(surely(s == 0) for s in shape)


def elementwise_strides(shape, operands) -> tuple:
    """Output strides of an elementwise op over operands of one shape, as eager computes them.

    ``operands`` is a sequence of (strides, itemsize). The rule (TensorIterator's): all
    contiguous -> contiguous; all channels-last -> channels-last; all dense with equal
    strides -> those strides; otherwise dims are ordered by the operands' byte strides
    (ignoring broadcast zero strides, ties broken by size) and the output is dense in that order.
    """
    shape = tuple(shape)
    ndim = len(shape)
    ops = [(tuple(s), n) for s, n in operands]
    if not ops or ndim == 0:
        return contiguous_strides(shape)
    if all(is_contiguous(shape, s) for s, _ in ops):
        return contiguous_strides(shape)
    if all(is_channels_last(shape, s) for s, _ in ops):
        return channels_last_strides(shape)
    if all(is_non_overlapping_and_dense(shape, s) for s, _ in ops) and all(s == ops[0][0] for s, _ in ops):
        return ops[0][0]
    if ndim == 1:
        return (1,)
    byte_strides = [tuple(x * n for x in s) for s, n in ops]

    def should_swap(d0, d1) -> int:
        # decided where known (``surely``): a comparison of a size read from data (nonzero's count) takes the
        # next operand's word, or keeps the order, for any value (not a guard on the data)
        for bs in byte_strides:
            s0, s1 = bs[d0], bs[d1]
            if surely(s0 == 0) or surely(s1 == 0):
                continue
            if surely(s0 < s1):
                return -1
            if surely(s0 > s1):
                return 1
            if surely(s0 == s1) and surely(shape[d0] > shape[d1]):
                return 1
        return 0

    perm = list(range(ndim - 1, -1, -1))   # fastest first
    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return strides_from_perm(shape, perm)


def suggested_memory_format(shape, strides) -> str:
    """Eager's ``suggest_memory_format``: "channels_last" (4-d) or "channels_last_3d" (5-d) when the
    strides order dims like N(D)HWC, else "contiguous". Ambiguous layouts (size-1 or empty dims,
    stride-0 channels) count as contiguous, as in eager's heuristic."""
    n = len(shape)
    if n not in (4, 5) or strides[1] == 0:
        return "contiguous"
    order = (1, 3, 2, 0) if n == 4 else (1, 4, 3, 2, 0)
    least = 0
    for d in order:
        if shape[d] == 0 or strides[d] < least:
            return "contiguous"
        if d == 0 and least == strides[1]:
            return "contiguous"
        least = strides[d] * shape[d] if shape[d] > 1 else strides[d]
    return "channels_last" if n == 4 else "channels_last_3d"


def memory_format_strides(shape, inputs) -> tuple:
    """Dense strides of a new tensor from several inputs' layouts, as eager's cat picks them:
    the memory format every input (shape, strides) suggests, else contiguous."""
    formats = {suggested_memory_format(s, st) for s, st in inputs}
    if len(formats) == 1 and formats != {"contiguous"}:
        return channels_last_strides(shape)
    return contiguous_strides(shape)


def is_non_overlapping(shape, strides) -> bool:
    """No two indices address one element: the dims of size > 1, innermost first, each step past
    everything the inner ones span. An empty tensor has no elements to overlap."""
    if any(surely(n == 0) for n in shape):
        return True
    extent = 1
    for st, n in sorted(((st, n) for st, n in zip(strides, shape) if maybe(n != 1)),
                        key=lambda p: (_Surely(p[0]), _Surely(p[1]))):
        if surely(st < extent):
            return False
        extent = st * (n - 1) + extent
    return True
