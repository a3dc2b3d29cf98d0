"""What the fuzz strategies of the family modules share (tests/test_fuzz_meta.py runs them):
operands as random strided views, shapes, dtypes, dims and arguments mostly valid, sometimes not.

hypothesis is a test dependency: ``st`` and ``composite`` import it when a strategy is first
built, so ``primkit.opinfo`` imports these modules without it.
"""
from __future__ import annotations

import functools

import torch


class _Strategies:
    """hypothesis.strategies, imported on first use."""

    def __getattr__(self, name):
        from hypothesis import strategies
        return getattr(strategies, name)


st = _Strategies()


def composite(fn):
    """hypothesis.strategies.composite, applied when the strategy is first called."""
    built = []

    @functools.wraps(fn)
    def strategy(*args, **kwargs):
        if not built:
            built.append(st.composite(fn))
        return built[0](*args, **kwargs)
    return strategy


DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]


FLOATS = [torch.float32, torch.float64]


@composite
def strided(draw, shape, dtype, values=None, low=0.5, high=3, expand=True):
    """A tensor of the given shape whose strides are random: a view of a larger base tensor,
    permuted, sliced with steps, or expanded along size-1 dims (not when values are given: the
    view then holds exactly those values)."""
    n = len(shape)
    perm = draw(st.permutations(range(n))) if n else []
    steps = [draw(st.integers(1, 2)) for _ in range(n)]
    expand = [expand and values is None and draw(st.booleans()) and shape[d] > 1 for d in range(n)]
    base_shape = [1 if expand[d] else shape[d] * steps[d] for d in range(n)]
    base = torch.testing.make_tensor([base_shape[d] for d in perm], dtype=dtype, device="cpu", low=low, high=high)
    inverse = [perm.index(d) for d in range(n)]
    t = base.permute(inverse) if n else base
    t = t[tuple(slice(None, None, steps[d]) if not expand[d] else slice(None) for d in range(n))]
    if values is not None:
        t.copy_(values)
        return t
    return t.expand(shape) if n else t


def laid_out(values):
    """The given values in a random strided layout."""
    return strided(tuple(values.shape), values.dtype, values=values)


@composite
def shapes(draw, min_dims=0, max_dims=4, max_size=4):
    return tuple(draw(st.lists(st.integers(0, max_size), min_size=min_dims, max_size=max_dims)))


def invalid(draw) -> bool:
    """Whether to draw an argument from outside its valid range: about one call in eight. (Not a
    boundary value of the draw, which hypothesis favours.)"""
    return draw(st.integers(0, 15)) in (5, 11)


def dtype_of(draw, prim, among=None):
    """A dtype of the prim (among the given ones when they meet it), sometimes any dtype."""
    allowed = [d for d in (among or DTYPES) if d in prim.dtypes] or [d for d in DTYPES if d in prim.dtypes]
    if invalid(draw):
        return draw(st.sampled_from(DTYPES))
    return draw(st.sampled_from(allowed))


def dim_of(draw, rank):
    """A dim of a rank-`rank` operand, negative sometimes, out of range sometimes."""
    r = max(rank, 1)
    if invalid(draw):
        return draw(st.sampled_from([-r - 1, r]))
    return draw(st.integers(-r, r - 1))


def maybe(draw, valid, invalid_value):
    return invalid_value if invalid(draw) else valid


def indices_into(size, shape):
    """int64 indices of the given shape, valid for a dim of `size` (empty when size is 0)."""
    if size == 0:
        return torch.zeros(shape, dtype=torch.int64)
    return torch.randint(0, size, shape, dtype=torch.int64)


def int_bound(dtype):
    return 1 if dtype == torch.bool else 3


def fuzz_fill(dtype):
    return True if dtype == torch.bool else (2 if not (dtype.is_floating_point or dtype.is_complex) else 1.5)
