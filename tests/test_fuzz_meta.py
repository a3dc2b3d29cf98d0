"""Meta rules against execution on random shapes, strides, dtypes and arguments (hypothesis).

Per meta rule: a strategy draws a call (operands as random strided views: permuted, sliced with
steps, expanded, of random dtype; arguments mostly valid, sometimes not) and checks that the meta
rule's geometry under FakeTensorMode equals what the reference implementation returns, or that
both reject the call with one exception type. Every meta rule of the catalog has a strategy
(test_every_meta_rule_has_a_strategy). Bounded: a fixed number of derandomized examples per prim,
fewer where a call is costly (EXAMPLES). Operand values come from torch's generator seeded by the
draw, so a drawn call is reproducible. A falsifying call found here is kept in
fuzz_regressions.json, either as a seed (replayed through its strategy) or as an explicit call
(operand geometry and values, for calls that must outlive changes of the strategies), and
replayed: test_meta_matches_execution appends the shrunk falsifying call itself (keep_regression),
so a failure found once is replayed ever after; a known bug is kept there with an "xfail" reason and runs as a strict xfail.
"""
from __future__ import annotations

import json
import math
import pathlib
import sys

import pytest
import torch
import torch.utils._pytree as pytree
from hypothesis import HealthCheck, given, settings, strategies as st

from primkit import prims
from primkit.opinfo.core import SampleInput
from primkit.opinfo.harness import call, fake_call, significant_strides

REGRESSIONS = pathlib.Path(__file__).with_name("fuzz_regressions.json")
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
          torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128]
FLOATS = [torch.float32, torch.float64]


# ---- operands -------------------------------------------------------------------------------

@st.composite
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


@st.composite
def shapes(draw, min_dims=0, max_dims=4, max_size=4):
    return tuple(draw(st.lists(st.integers(0, max_size), min_size=min_dims, max_size=max_dims)))


def _numel(shape):
    return math.prod(shape)


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


def _int_bound(dtype):
    return 1 if dtype == torch.bool else 3


def fill_value(dtype):
    return True if dtype == torch.bool else (2 if not (dtype.is_floating_point or dtype.is_complex) else 1.5)


# ---- strategies, one per meta rule ------------------------------------------------------------

@st.composite
def elementwise_call(draw, prim):
    shape = draw(shapes())
    dtype = dtype_of(draw, prim)
    fixed = prim.params.get("arg_dtypes", {})
    args = []
    for a in prim.op._schema.arguments:
        if isinstance(a.type, torch.TensorType):
            arg_dtype = torch.bool if a.name in fixed else dtype
            args.append(draw(strided(shape, arg_dtype)))
        elif a.name == "dtype":
            args.append(draw(st.sampled_from(DTYPES)))
        elif a.name in ("n", "p"):      # polygamma's n, mvlgamma's p (its operand > (p - 1) / 2: low=0.5 with p=1)
            least = prim.params.get("min_order", 0)
            args.append(maybe(draw, draw(st.integers(least, least + (2 if a.name == "n" else 0))), least - 1))
        elif a.name in ("nan", "posinf", "neginf"):
            args.append(draw(st.sampled_from([0.0, 1.0, -2.5])))
        elif a.name == "exponent_bits":
            args.append(maybe(draw, draw(st.integers(1, 8)), 0))
        elif a.name == "mantissa_bits":
            args.append(maybe(draw, draw(st.integers(0, 23)), -1))
        else:
            raise AssertionError(f"{prim.name}: no strategy for argument {a.name}")
    return SampleInput(args[0], tuple(args[1:]))


@st.composite
def reduction_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    a = draw(strided(shape, dtype_of(draw, prim)))
    if "dim" in prim.arg_names:    # arg reductions: one dim
        return SampleInput(a, (dim_of(draw, len(shape)),))
    dims = draw(st.lists(st.integers(0, len(shape) - 1), unique=True))
    rest = (draw(st.sampled_from([0.0, 1.0])),) if "correction" in prim.arg_names else ()
    return SampleInput(a, (dims, *rest))


@st.composite
def permute_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(strided(shape, torch.float32)), (list(draw(st.permutations(range(len(shape))))),))


@st.composite
def reshape_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    numel = _numel(shape)
    factors = [f for f in range(1, 9) if numel and numel % f == 0] or [1]
    first = draw(st.sampled_from(factors))
    target = [first, numel // first] if numel else [0, draw(st.integers(1, 3))]
    return SampleInput(draw(strided(shape, torch.float32)), (maybe(draw, target, [numel + 1]),))


@st.composite
def broadcast_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    extra = draw(st.integers(0, 2))
    target = [draw(st.integers(1, 3)) for _ in range(extra)] + [s if s != 1 else draw(st.integers(1, 3)) for s in shape]
    return SampleInput(draw(strided(shape, torch.float32)), (target, list(range(extra, extra + len(shape)))))


@st.composite
def slice_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    starts = [draw(st.integers(0, s)) for s in shape]
    limits = [draw(st.integers(b, s)) for b, s in zip(starts, shape)]
    return SampleInput(draw(strided(shape, torch.float32)), (starts, limits, [draw(st.integers(1, 3)) for _ in shape]))


@st.composite
def dims_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    a = draw(strided(shape, torch.float32))
    if prim.meta == "squeeze":
        return SampleInput(a, ([d for d in range(len(shape)) if shape[d] == 1 and draw(st.booleans())],))
    if prim.meta == "expand_dims":
        return SampleInput(a, (draw(st.lists(st.integers(0, len(shape)), unique=True, max_size=2)),))
    return SampleInput(a, (draw(st.lists(st.integers(0, len(shape) - 1), unique=True)),))


@st.composite
def unary_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(strided(shape, dtype_of(draw, prim, [torch.float32, torch.int64, torch.bool]))))


@st.composite
def device_put_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes()), draw(st.sampled_from(DTYPES)))), ("cpu",))


@st.composite
def copy_to_call(draw, prim):
    shape = draw(shapes())
    dtype = draw(st.sampled_from(DTYPES))
    src = draw(strided(maybe(draw, shape, shape + (2,)), maybe(draw, dtype, torch.float64)))
    dst = draw(strided(shape, dtype, values=torch.zeros(shape, dtype=dtype)))   # written: no expanded dims
    return SampleInput(dst, (src,))


@st.composite
def copy_strided_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    a = draw(strided(shape, draw(st.sampled_from(DTYPES))))
    # Dense strides in a random dim order, with gaps sometimes; overlapping ones sometimes (C2).
    order = draw(st.permutations(range(len(shape))))
    stride, step = [0] * len(shape), 1
    for d in reversed(order):
        stride[d] = step
        step *= max(shape[d], 1) * draw(st.integers(1, 2))
    if shape and invalid(draw):
        stride[draw(st.integers(0, len(shape) - 1))] = draw(st.sampled_from([0, -1]))
    return SampleInput(a, (stride,))


@st.composite
def as_strided_call(draw, prim):
    rank = draw(st.integers(0, 3))
    size = [draw(st.integers(0, 3)) for _ in range(rank)]
    stride = [draw(st.integers(0, 4)) for _ in range(rank)]
    offset = draw(st.integers(0, 3))
    if invalid(draw):
        stride = stride + [1]
    # The operand's storage holds every element the view addresses (torch checks that, not the rule).
    extent = offset + (sum((s - 1) * t for s, t in zip(size, stride)) + 1 if 0 not in size else 0)
    # (laid_out, not strided: an expanded view would have a storage of one element)
    dtype = draw(st.sampled_from(DTYPES))
    a = draw(laid_out(torch.testing.make_tensor((extent + draw(st.integers(0, 2)),), dtype=dtype, device="cpu")))
    return SampleInput(a, (size, stride, offset))


@st.composite
def pad_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    n = len(shape)
    low = [draw(st.integers(-2, 2)) for _ in range(n)]
    high = [draw(st.integers(-2, 2)) for _ in range(n)]
    interior = [maybe(draw, draw(st.integers(0, 2)), -1) for _ in range(n)]
    return SampleInput(draw(strided(shape, dtype)), (fill_value(dtype), low, high, interior))


@st.composite
def cat_call(draw, prim):
    shape = list(draw(shapes(min_dims=1)))
    dim = draw(st.integers(0, len(shape) - 1))
    dtype = dtype_of(draw, prim)
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(shape)
        s[dim] = draw(st.integers(0, 3))
        parts.append(draw(strided(tuple(s), dtype)))
    return SampleInput(parts, (maybe(draw, dim, len(shape)),))


@st.composite
def matmul_call(draw, prim):
    batch = list(draw(shapes(max_dims=2)))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    dtype = dtype_of(draw, prim, [torch.float32, torch.float64, torch.int64, torch.complex64])
    return SampleInput(draw(strided(tuple(batch + [m, k]), dtype)),
                       (draw(strided(tuple(batch + [maybe(draw, k, k + 1), n]), dtype)),))


@st.composite
def convolution_call(draw, prim):
    n = draw(st.integers(1, 3))
    dtype = dtype_of(draw, prim, FLOATS + [torch.complex64])
    groups = draw(st.integers(1, 2))
    transposed = draw(st.booleans())
    batch, cin_g, cout_g = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(n)]
    stride = [draw(st.integers(1, 2)) for _ in range(n)]
    dilation = [draw(st.integers(1, 2)) for _ in range(n)]
    padding = [draw(st.integers(0, 1)) for _ in range(n)]
    # torch wants output_padding < stride or < dilation; the prim's rule takes it unchecked (see report)
    output_padding = [draw(st.integers(0, max(s, d) - 1)) if transposed else 0 for s, d in zip(stride, dilation)]
    spatial = [draw(st.integers(1, 5)) for _ in range(n)]
    cin = cin_g * groups
    weight_shape = [cin, cout_g] if transposed else [cout_g * groups, cin_g]
    x = draw(strided(tuple([batch, maybe(draw, cin, cin + 1)] + spatial), dtype))
    w = draw(strided(tuple(weight_shape + kernel), dtype))
    cout = cout_g * groups
    bias = draw(strided((cout,), dtype)) if draw(st.booleans()) else None
    return SampleInput(x, (w, bias, stride, padding, dilation, transposed, output_padding, groups))


@st.composite
def scan_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (dim_of(draw, len(shape)),))


@st.composite
def sort_call(draw, prim):
    shape = draw(shapes())
    a = draw(strided(shape, dtype_of(draw, prim)))
    return SampleInput(a, (dim_of(draw, len(shape)), draw(st.booleans()), draw(st.booleans())))


@st.composite
def topk_call(draw, prim):
    shape = draw(shapes())
    a = draw(strided(shape, dtype_of(draw, prim)))
    dim = dim_of(draw, len(shape))
    size = shape[dim] if shape and -len(shape) <= dim < len(shape) else 1
    k = maybe(draw, draw(st.integers(0, size)) if shape else 1, size + 1)
    return SampleInput(a, (k, dim, draw(st.booleans()), draw(st.booleans())))


@st.composite
def window_args(draw, rank):
    window = [draw(st.integers(1, 3)) for _ in range(rank)]
    strides = [draw(st.integers(1, 2)) for _ in range(rank)]
    low = [draw(st.integers(0, 1)) for _ in range(rank)]
    high = [draw(st.integers(0, 1)) for _ in range(rank)]
    dilation = [draw(st.integers(1, 2)) for _ in range(rank)]
    if invalid(draw):
        (window if draw(st.booleans()) else low).append(draw(st.sampled_from([0, -1])))
    return [window, strides, low, high, dilation]


@st.composite
def reduce_window_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), tuple(draw(window_args(len(shape)))))


@st.composite
def select_and_scatter_add_call(draw, prim):
    from primkit.prims.meta.windowed import window_output_size
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    window = draw(window_args(len(shape)))
    positions = tuple(window_output_size(*dim) for dim in zip(shape, *window)) if len(window[0]) == len(shape) \
        else shape
    operand = draw(strided(shape, dtype))
    source = draw(strided(maybe(draw, positions, positions + (1,)), dtype))
    return SampleInput(source, (operand, *window))


@st.composite
def _pairs(draw, least, most):
    return [draw(st.integers(least, most)) for _ in range(2)]


@st.composite
def im2col_call(draw, prim):
    shape = (draw(st.integers(0, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    kernel, dilation, padding, stride = draw(_pairs(1, 3)), draw(_pairs(1, 2)), draw(_pairs(0, 1)), draw(_pairs(1, 2))
    # torch.nn.functional.unfold rejects a size with no block position, which the rule accepts (see report)
    for d in range(2):
        while shape[2 + d] + 2 * padding[d] < dilation[d] * (kernel[d] - 1) + 1:
            kernel[d] -= 1
    a = draw(strided(shape, dtype_of(draw, prim)))
    return SampleInput(a, (maybe(draw, kernel, kernel + [1]), dilation, padding, stride))


@st.composite
def col2im_call(draw, prim):
    from primkit.prims.meta.windowed import blocks_shape
    output_size = draw(_pairs(1, 5))
    kernel, dilation, padding, stride = draw(_pairs(1, 3)), draw(_pairs(1, 2)), draw(_pairs(0, 1)), draw(_pairs(1, 2))
    for d in range(2):      # at least one block position per dim, as torch's fold needs
        while output_size[d] + 2 * padding[d] < dilation[d] * (kernel[d] - 1) + 1:
            kernel[d] -= 1
    oh, ow = blocks_shape(output_size, kernel, dilation, padding, stride)
    channels = draw(st.integers(1, 2))
    length = maybe(draw, oh * ow, oh * ow + 1)
    a = draw(strided((draw(st.integers(0, 2)), channels * kernel[0] * kernel[1], length), dtype_of(draw, prim)))
    return SampleInput(a, (output_size, kernel, dilation, padding, stride))


@st.composite
def fft_call(draw, prim):
    kind = prim.params["kind"]
    shape = list(draw(shapes(min_dims=1, max_dims=3)))
    rank = len(shape)
    dims = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                         unique_by=lambda d: d % rank))
    for d in dims:      # C4: transformed dims have elements
        shape[d] = max(shape[d], 1)
    among = [torch.complex64, torch.complex128] if kind != "r2c" else FLOATS
    normalization = maybe(draw, draw(st.integers(0, 2)), 3)
    if kind == "c2r":
        last = draw(st.integers(1, 6))
        shape[dims[-1]] = maybe(draw, last // 2 + 1, last // 2 + 2)
        mode = last
    else:
        mode = draw(st.booleans())
    return SampleInput(draw(strided(tuple(shape), dtype_of(draw, prim, among))), (dims, mode, normalization))


@st.composite
def gather_call(draw, prim):
    shape = draw(shapes(min_dims=1, max_dims=3))
    a = draw(strided(shape, dtype_of(draw, prim)))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    index_shape = tuple((draw(st.integers(0, 3)) if s else 0) if d == dim % len(shape) else draw(st.integers(0, s))
                        for d, s in enumerate(shape))
    index = draw(laid_out(indices_into(shape[dim], index_shape)))
    return SampleInput(a, (dim, maybe(draw, index, index.to(torch.int32))))


@st.composite
def index_select_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    a = draw(strided(shape, dtype_of(draw, prim)))
    dim = draw(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1))
    size = shape[dim] if shape else 1
    index = draw(laid_out(indices_into(size, (draw(st.integers(0, 3)) if size else 0,) if shape else (1,))))
    return SampleInput(a, (dim, maybe(draw, index, index.reshape(-1, 1))))


@st.composite
def scatter_call(draw, prim):
    shape = draw(shapes(min_dims=1, max_dims=3))
    dtype = dtype_of(draw, prim)
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    d0 = dim % len(shape)
    src_shape = tuple(draw(st.integers(0, 3)) if d == d0 else s for d, s in enumerate(shape))
    index_shape = tuple(draw(st.integers(0, s)) for s in src_shape)
    if shape[d0] == 0:      # no position to write to: an empty index
        index_shape = tuple(0 if d == d0 else s for d, s in enumerate(index_shape))
    a = draw(strided(shape, dtype))
    index = draw(laid_out(indices_into(shape[d0], index_shape)))
    src = draw(strided(src_shape, maybe(draw, dtype, torch.float64 if dtype != torch.float64 else torch.int64)))
    extra = ()
    if prim.meta == "scatter_reduce":
        extra = (maybe(draw, draw(st.sampled_from(["sum", "prod", "mean", "amax", "amin"])), "max"), draw(st.booleans()))
    return SampleInput(a, (dim, index, src, *extra))


@st.composite
def _broadcastable_indices(draw, shape, count):
    """count int64 index tensors (valid for the first count dims of shape) whose shapes broadcast."""
    common = list(draw(shapes(max_dims=2, max_size=3)))
    if any(shape[d] == 0 for d in range(count)):
        common = [0] + common[1:]     # nothing to index in an empty dim: an empty index
    out = []
    for d in range(count):
        own = common[draw(st.integers(0, len(common))):] if 0 not in common else list(common)
        own = [1 if s != 0 and draw(st.booleans()) else s for s in own]
        out.append(draw(laid_out(indices_into(shape[d], tuple(own)) - (shape[d] if draw(st.booleans()) and shape[d]
                                                                          else 0))))
    return out


@st.composite
def advanced_index_call(draw, prim):
    shape = draw(shapes(min_dims=1, max_dims=3))
    dtype = dtype_of(draw, prim)
    count = draw(st.integers(1, len(shape)))
    indices = draw(_broadcastable_indices(shape, count))
    if invalid(draw):
        indices[0] = indices[0].to(torch.int32)
    a = draw(strided(shape, dtype))
    if prim.meta == "advanced_index":
        return SampleInput(a, (indices,))
    indexed = tuple(torch.broadcast_shapes(*(i.shape for i in indices))) + tuple(shape[count:])
    values = draw(strided(maybe(draw, indexed, indexed + (1,)), dtype))
    # accumulate=False with repeated indices writes one of them: the values differ, not the geometry
    return SampleInput(a, (indices, values, draw(st.booleans())))


@st.composite
def take_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    a = draw(strided(shape, dtype_of(draw, prim)))
    numel = _numel(shape)
    index_shape = draw(shapes(max_dims=2, max_size=3)) if numel else (0,)
    index = indices_into(2 * numel, index_shape) - numel if numel else indices_into(0, index_shape)
    index = draw(laid_out(index))
    return SampleInput(a, (maybe(draw, index, index.to(torch.int32)),))


@st.composite
def searchsorted_call(draw, prim):
    dtype = dtype_of(draw, prim, [torch.float32, torch.float64, torch.int64, torch.int32])
    values_shape = draw(shapes(max_dims=3))
    if values_shape and draw(st.booleans()):
        seq_shape = tuple(values_shape[:-1]) + (draw(st.integers(0, 4)),)
    else:
        seq_shape = (draw(st.integers(0, 4)),)
    seq = torch.testing.make_tensor(seq_shape, dtype=torch.float64, device="cpu", low=0, high=9).sort(dim=-1).values
    seq = seq.to(dtype)     # (sorted in float64: an invalid dtype drawn may have no sort kernel)
    seq = draw(laid_out(seq))
    values = draw(strided(maybe(draw, values_shape, values_shape + (2, 1)), dtype))
    return SampleInput(seq, (values, draw(st.booleans())))


@st.composite
def index_write_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    rank = len(shape)
    dim = draw(st.integers(-max(rank, 1), max(rank, 1) - 1))
    size = shape[dim] if rank else 1
    length = (draw(st.integers(0, 3)) if size else 0) if rank else 1
    index = draw(laid_out(indices_into(size, (length,))))
    source_shape = tuple(length if d == dim % max(rank, 1) else s for d, s in enumerate(shape))
    source = draw(strided(maybe(draw, source_shape, source_shape + (1,)), dtype))
    return SampleInput(draw(strided(shape, dtype)), (dim, index, source))


@st.composite
def masked_scatter_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    mask = draw(laid_out(torch.rand(shape) < 0.5))
    # source holds at least as many elements as the mask selects (eager checks that on the values)
    source = draw(strided(draw(st.sampled_from([shape, (_numel(shape) + draw(st.integers(0, 2)),)])), dtype))
    return SampleInput(draw(strided(shape, dtype)), (maybe(draw, mask, mask.to(torch.uint8)), source))


@st.composite
def nonzero_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(laid_out((torch.rand(shape) < 0.5).to(dtype_of(draw, prim)))))


@st.composite
def masked_select_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    mask = draw(laid_out(torch.rand(shape) < 0.5))
    a = draw(strided(maybe(draw, shape, shape + (2,)), dtype_of(draw, prim)))
    return SampleInput(a, (maybe(draw, mask, mask.to(torch.int64)),))


@st.composite
def unique_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    values = torch.testing.make_tensor(shape, dtype=dtype, device="cpu", low=0, high=_int_bound(dtype)) \
        if dtype.is_floating_point or dtype.is_complex else torch.randint(0, _int_bound(dtype) + 1, shape).to(dtype)
    return SampleInput(draw(laid_out(values)))


@st.composite
def bincount_call(draw, prim):
    values = torch.randint(0, 5, (draw(st.integers(0, 6)),))
    if invalid(draw):
        values = draw(st.sampled_from([values.to(torch.int32), values.reshape(1, -1)]))
    return SampleInput(draw(laid_out(values)), (maybe(draw, draw(st.integers(0, 7)), -1),))


@st.composite
def repeat_interleave_call(draw, prim):
    repeats = torch.randint(0, 3, (draw(st.integers(0, 5)),))
    if invalid(draw):
        repeats = draw(st.sampled_from([repeats.to(torch.int32), repeats.reshape(1, -1)]))
    return SampleInput(draw(laid_out(repeats)))


@st.composite
def histc_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim, FLOATS)))
    low = draw(st.sampled_from([0.0, 1.0, -1.0]))
    high = maybe(draw, low + draw(st.sampled_from([0.5, 2.0])), low)
    return SampleInput(a, (maybe(draw, draw(st.integers(1, 6)), 0), low, high))


@st.composite
def square_matrices(draw, prim, *, spd=False, min_size=0):
    """A batch of well-conditioned square matrices (symmetric positive definite with spd)."""
    batch = draw(shapes(max_dims=1, max_size=2))
    n = draw(st.integers(min_size, 3))
    dtype = dtype_of(draw, prim, FLOATS + [torch.complex64])
    b = torch.testing.make_tensor(batch + (n, n), dtype=dtype, device="cpu", low=-1, high=1) \
        if dtype.is_floating_point or dtype.is_complex else torch.zeros(batch + (n, n), dtype=dtype)
    eye = torch.eye(n, dtype=dtype) * (n + 1)
    a = (b @ b.mH if spd else b) + eye if (dtype.is_floating_point or dtype.is_complex) else b
    return draw(laid_out(a)), batch, n, dtype


@st.composite
def cholesky_call(draw, prim):
    a, *_ = draw(square_matrices(prim, spd=True))
    if invalid(draw):
        a = a[..., :1, :]
    return SampleInput(a, (draw(st.booleans()),))


@st.composite
def eigh_call(draw, prim):
    a, *_ = draw(square_matrices(prim, spd=True))
    return SampleInput(a, (draw(st.booleans()),))


@st.composite
def eig_call(draw, prim):
    a, *_ = draw(square_matrices(prim))
    return SampleInput(maybe(draw, a, a[..., :0]))


@st.composite
def rectangular_call(draw, prim):
    """qr / svd / lu_factor: any (..., m, n) matrix."""
    batch = draw(shapes(max_dims=1, max_size=2))
    m, n = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    shape, dtype = maybe(draw, batch + (m, n), (n,)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    # full rank (lu_factor rejects a singular matrix): small values plus a dominant diagonal
    values = torch.testing.make_tensor(shape, dtype=dtype, device="cpu", low=-1, high=1)
    if len(shape) >= 2 and (dtype.is_floating_point or dtype.is_complex):
        values = values + torch.eye(m, n, dtype=dtype) * (max(m, n) + 1)
    a = draw(laid_out(values))
    if prim.meta == "qr":
        return SampleInput(a, (maybe(draw, draw(st.sampled_from(["reduced", "complete"])), "r"),))
    if prim.meta == "svd":
        return SampleInput(a, (draw(st.booleans()),))
    return SampleInput(a)


@st.composite
def _rhs(draw, batch, n, dtype, left):
    k = draw(st.integers(0, 3))
    shape = batch + ((maybe(draw, n, n + 1), k) if left else (k, maybe(draw, n, n + 1)))
    return draw(strided(shape, dtype, low=-1, high=1))


@st.composite
def triangular_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim))
    left = draw(st.booleans())
    b = draw(_rhs(batch, n, dtype, left))
    return SampleInput(a, (b, draw(st.booleans()), left, draw(st.booleans())))


@st.composite
def lu_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, min_size=1))
    if dtype not in prim.dtypes:    # no factorization of it: LU's dtype is the point (C4)
        lu, pivots = a, torch.ones(batch + (n,), dtype=torch.int32)
    else:
        lu, pivots = torch.linalg.lu_factor(a)
    left = draw(st.booleans())
    b = draw(_rhs(batch, n, dtype, left))
    pivots = draw(laid_out(pivots))
    return SampleInput(draw(laid_out(lu)), (maybe(draw, pivots, pivots.to(torch.int64)), b, left, draw(st.booleans())))


def _device():
    return "cpu"


@st.composite
def full_call(draw, prim):
    dtype = dtype_of(draw, prim)
    shape = list(draw(shapes()))
    if shape and invalid(draw):
        shape[0] = -1
    return SampleInput(shape, (fill_value(dtype),), {"dtype": dtype, "device": _device()})


@st.composite
def scalar_tensor_call(draw, prim):
    dtype = dtype_of(draw, prim)
    return SampleInput(fill_value(dtype), (), {"dtype": dtype, "device": _device()})


@st.composite
def iota_call(draw, prim):
    dtype = dtype_of(draw, prim, [torch.int32, torch.int64, torch.float32, torch.float64, torch.uint8])
    length = maybe(draw, draw(st.integers(0, 6)), -1)
    return SampleInput(length, (), {"start": draw(st.integers(0, 3)), "step": maybe(draw, draw(st.integers(1, 3)), 0),
                                    "dtype": dtype, "device": _device()})


@st.composite
def empty_strided_call(draw, prim):
    shape = list(draw(shapes()))
    stride = [draw(st.integers(0, 6)) for _ in shape]
    if invalid(draw):
        stride.append(1)
    return SampleInput(shape, (stride,), {"dtype": dtype_of(draw, prim), "device": _device()})


def _counters(draw):
    return (draw(st.integers(0, 2**31)), draw(st.integers(0, 2**20)))


@st.composite
def random_call(draw, prim):
    """uniform, normal, exponential, random_bits, randint: a fresh tensor of a shape from (seed, offset)."""
    shape = list(draw(shapes()))
    if shape and invalid(draw):
        shape[-1] = -1
    dtype = dtype_of(draw, prim)
    params = {"uniform": lambda: (0.0, maybe(draw, 2.0, -1.0)), "normal": lambda: (0.0, maybe(draw, 1.0, -1.0)),
              "exponential": lambda: (maybe(draw, 1.5, 0.0),), "random_bits": lambda: (),
              "randint": lambda: (0, maybe(draw, draw(st.integers(1, 100)), draw(st.sampled_from([0, 1000]))))}
    return SampleInput(shape, (*params[prim.meta](), *_counters(draw)), {"dtype": dtype, "device": _device()})


@st.composite
def randperm_call(draw, prim):
    dtype = dtype_of(draw, prim)
    n = maybe(draw, draw(st.integers(0, 8)), draw(st.sampled_from([-1, 300])))
    return SampleInput(n, _counters(draw), {"dtype": dtype, "device": _device()})


@st.composite
def bernoulli_call(draw, prim):
    p = draw(strided(draw(shapes()), dtype_of(draw, prim, FLOATS), low=0, high=1))
    return SampleInput(p, _counters(draw))


@st.composite
def bernoulli_p_call(draw, prim):
    """A tensor of any layout to shape the draws after (empty_like's layout), p mostly in [0, 1]."""
    like = draw(strided(draw(shapes()), torch.float32))
    return SampleInput(like, (maybe(draw, 0.25, 1.5),), {"dtype": dtype_of(draw, prim)})


@st.composite
def exponential_p_call(draw, prim):
    like = draw(strided(draw(shapes()), torch.float32))
    return SampleInput(like, (maybe(draw, 1.5, 0.0),), {"dtype": dtype_of(draw, prim)})


@st.composite
def masked_uniform_call(draw, prim):
    mask = draw(strided(draw(shapes()), dtype_of(draw, prim)))
    return SampleInput(mask, (0.0, maybe(draw, 2.0, -1.0)))


@st.composite
def bitcast_call(draw, prim):
    dtype = dtype_of(draw, prim)
    same_size = [d for d in DTYPES if d in prim.dtypes and d.itemsize == dtype.itemsize] or [dtype]
    target = maybe(draw, draw(st.sampled_from(same_size)), draw(st.sampled_from(DTYPES)))
    return SampleInput(draw(strided(draw(shapes()), dtype)), (target,))


@st.composite
def alias_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes()), draw(st.sampled_from(DTYPES)))))


@st.composite
def split_dim_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    dim = dim_of(draw, len(shape))
    size = shape[dim] if -len(shape) <= dim < len(shape) else 0
    divisors = [f for f in range(1, size + 1) if size % f == 0] or [1]
    outer = maybe(draw, draw(st.sampled_from(divisors)), draw(st.sampled_from([0, size + 1])))
    return SampleInput(draw(strided(shape, torch.float32)), (dim, outer))


@st.composite
def collapse_call(draw, prim):
    """Random strides: merged dims that cannot be viewed as one are C2 errors on both sides."""
    shape = draw(shapes(min_dims=1))
    start = draw(st.integers(0, len(shape) - 1))
    end = maybe(draw, draw(st.integers(start + 1, len(shape))), start)
    return SampleInput(draw(strided(shape, torch.float32)), (start, end))


@st.composite
def diagonal_call(draw, prim):
    shape = draw(shapes(min_dims=2))
    rank = len(shape)
    dim1 = draw(st.integers(-rank, rank - 1))
    dim2 = maybe(draw, draw(st.sampled_from([d for d in range(-rank, rank) if d % rank != dim1 % rank])), dim1)
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (draw(st.integers(-3, 3)), dim1, dim2))


@st.composite
def unfold_call(draw, prim):
    shape = draw(shapes())
    dim = dim_of(draw, len(shape))
    size = (shape[dim] if -len(shape) <= dim < len(shape) else 0) if shape else 1
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))),
                       (dim, maybe(draw, draw(st.integers(0, size)), size + 1), maybe(draw, draw(st.integers(1, 3)), 0)))


@st.composite
def split_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    dim = dim_of(draw, len(shape))
    size = shape[dim] if -len(shape) <= dim < len(shape) else 0
    cuts = sorted(draw(st.lists(st.integers(0, size), max_size=3)))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [size])]
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (maybe(draw, sizes, sizes + [1]), dim))


@st.composite
def roll_call(draw, prim):
    shape = draw(shapes())
    dims = draw(st.lists(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1), min_size=1, max_size=3))
    shifts = [draw(st.integers(-5, 5)) for _ in dims]
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (maybe(draw, shifts, shifts + [1]), dims))


def _start_index(draw, bound):
    """A 0-d int32 / int64 start index, out of range sometimes (it is clamped)."""
    return torch.tensor(draw(st.integers(-1, bound + 1)), dtype=draw(st.sampled_from([torch.int32, torch.int64])))


@st.composite
def dynamic_slice_call(draw, prim):
    shape = draw(shapes())
    a = draw(strided(shape, dtype_of(draw, prim)))
    sizes = [draw(st.integers(0, s)) for s in shape]
    starts = [_start_index(draw, s) for s in shape]
    if invalid(draw):
        starts = starts + [torch.tensor(0)] if draw(st.booleans()) else [torch.zeros(1, dtype=torch.int64)] * len(shape)
    return SampleInput(a, (starts, maybe(draw, sizes, [s + 1 for s in shape])))


@st.composite
def dynamic_update_slice_call(draw, prim):
    shape = draw(shapes())
    dtype = dtype_of(draw, prim)
    update = draw(strided(maybe(draw, tuple(draw(st.integers(0, s)) for s in shape), shape + (1,)), dtype))
    starts = [_start_index(draw, s) for s in shape]
    return SampleInput(draw(strided(shape, dtype)), (update, maybe(draw, starts, starts + [torch.tensor(0)])))


@st.composite
def slice_update_call(draw, prim):
    shape = draw(shapes())
    dtype = dtype_of(draw, prim)
    starts = [draw(st.integers(0, s)) for s in shape]
    limits = [draw(st.integers(b, s)) for b, s in zip(starts, shape)]
    strides = [maybe(draw, draw(st.integers(1, 3)), 0) for _ in shape]
    sliced = tuple(len(range(b, e, max(t, 1))) for b, e, t in zip(starts, limits, strides))
    update = draw(strided(maybe(draw, sliced, sliced + (1,)), maybe(draw, dtype, torch.float64)))
    return SampleInput(draw(strided(shape, dtype)), (update, starts, limits, strides))


@st.composite
def view_as_real_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes()), dtype_of(draw, prim, [torch.complex64, torch.complex128]))))


@st.composite
def view_as_complex_call(draw, prim):
    """A real view of a random strided complex tensor (valid), or any strided float tensor whose last dim
    has size 2 (C3..C5 errors where its strides do not fit)."""
    shape = draw(shapes(max_dims=3))
    if invalid(draw):
        return SampleInput(draw(strided(shape + (2,), dtype_of(draw, prim))))
    c = draw(strided(shape, draw(st.sampled_from([torch.complex64, torch.complex128]))))
    return SampleInput(torch.view_as_real(c))


@st.composite
def empty_permuted_call(draw, prim):
    shape = list(draw(shapes()))
    layout = list(draw(st.permutations(range(len(shape)))))
    if invalid(draw):
        layout = layout + [len(shape)]
    return SampleInput(shape, (layout,), {"dtype": dtype_of(draw, prim), "device": _device()})


@st.composite
def item_call(draw, prim):
    shape = maybe(draw, draw(st.sampled_from([(), (1,), (1, 1)])), (2,))
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))))


@st.composite
def kthvalue_call(draw, prim):
    shape = draw(shapes())
    dim = dim_of(draw, len(shape))
    size = (shape[dim] if -len(shape) <= dim < len(shape) else 0) if shape else 1
    k = maybe(draw, draw(st.integers(1, size)) if size else 1, size + 1)
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (k, dim))


@st.composite
def _matrix(draw, batch, m, n, dtype):
    """A (batch..., m, n) matrix of dtype in a random layout, of small values (-1 .. 1)."""
    return draw(strided(batch + (m, n), dtype, low=-1, high=1))


@st.composite
def householder_product_call(draw, prim):
    batch, dtype = draw(shapes(max_dims=1, max_size=2)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    n = draw(st.integers(0, 3))
    m = maybe(draw, n + draw(st.integers(0, 2)), max(n - 1, 0))
    tau = draw(strided(batch + (draw(st.integers(0, n)),), dtype, low=-1, high=1))
    return SampleInput(draw(_matrix(batch, m, n, dtype)), (tau,))


@st.composite
def ormqr_call(draw, prim):
    batch, dtype = draw(shapes(max_dims=1, max_size=2)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    m, n, k = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
    left = draw(st.booleans())
    other = draw(_matrix(batch, *(((maybe(draw, m, m + 1), k) if left else (k, maybe(draw, m, m + 1)))), dtype))
    tau = draw(strided(batch + (min(m, n),), dtype, low=-1, high=1))
    return SampleInput(draw(_matrix(batch, m, n, dtype)), (tau, other, left, draw(st.booleans())))


@st.composite
def ldl_factor_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, spd=True))
    return SampleInput(a, (maybe(draw, not dtype.is_complex and draw(st.booleans()), True),))


@st.composite
def ldl_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, spd=True))
    hermitian = maybe(draw, not dtype.is_complex and draw(st.booleans()), True)
    if dtype in prim.dtypes:
        ld, pivots = torch.linalg.ldl_factor(a, hermitian=hermitian and not dtype.is_complex)
    else:   # no factorization of it: LD's dtype is the point (C4)
        ld, pivots = a, torch.ones(batch + (n,), dtype=torch.int32)
    pivots = draw(laid_out(pivots))
    b = draw(_rhs(batch, n, dtype, True))
    return SampleInput(draw(laid_out(ld)), (maybe(draw, pivots, pivots.to(torch.int64)), b, hermitian))


@st.composite
def cholesky_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, spd=True))
    upper = draw(st.booleans())
    if dtype in prim.dtypes:
        a = torch.linalg.cholesky(a, upper=upper)
    b = draw(_rhs(batch, n, dtype, True))
    return SampleInput(b, (draw(laid_out(a)), upper))


@st.composite
def lstsq_call(draw, prim):
    batch, dtype = draw(shapes(max_dims=1, max_size=2)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    m, n, k = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
    return SampleInput(draw(_matrix(batch, m, n, dtype)), (draw(_matrix(batch, maybe(draw, m, m + 1), k, dtype)),))


STRATEGIES = {
    "elementwise": elementwise_call, "elementwise_unary": elementwise_call,
    "elementwise_unary_order": elementwise_call, "reduce_precision": elementwise_call,
    "reduction": reduction_call, "arg_reduction": reduction_call,
    "permute": permute_call, "reshape": reshape_call, "broadcast_in_dim": broadcast_call, "slice": slice_call,
    "squeeze": dims_call, "expand_dims": dims_call, "rev": dims_call, "cat": cat_call, "pad": pad_call,
    "as_strided": as_strided_call,
    "clone": unary_call, "copy_to": copy_to_call, "device_put": device_put_call, "copy_strided": copy_strided_call,
    "matmul": matmul_call, "convolution": convolution_call,
    "scan": scan_call, "sort": sort_call, "topk": topk_call,
    "reduce_window": reduce_window_call, "select_and_scatter_add": select_and_scatter_add_call,
    "im2col": im2col_call, "col2im": col2im_call,
    "fft": fft_call,
    "gather": gather_call, "index_select": index_select_call, "scatter": scatter_call, "scatter_reduce": scatter_call,
    "advanced_index": advanced_index_call, "advanced_index_put": advanced_index_call, "take": take_call,
    "searchsorted": searchsorted_call, "index_write": index_write_call, "masked_scatter": masked_scatter_call,
    "nonzero": nonzero_call, "masked_select": masked_select_call, "unique": unique_call, "bincount": bincount_call,
    "repeat_interleave": repeat_interleave_call, "histc": histc_call,
    "cholesky": cholesky_call, "eigh": eigh_call, "eig": eig_call, "qr": rectangular_call, "svd": rectangular_call,
    "lu_factor": rectangular_call, "triangular_solve": triangular_solve_call, "lu_solve": lu_solve_call,
    "full": full_call, "scalar_tensor": scalar_tensor_call, "iota": iota_call, "empty_strided": empty_strided_call,
    "uniform": random_call, "normal": random_call, "exponential": random_call, "random_bits": random_call,
    "randint": random_call, "randperm": randperm_call, "bernoulli": bernoulli_call,
    "bernoulli_p": bernoulli_p_call, "exponential_p": exponential_p_call, "masked_uniform": masked_uniform_call,
    "bitcast": bitcast_call,
    "alias": alias_call, "split_dim": split_dim_call, "collapse": collapse_call, "diagonal": diagonal_call,
    "unfold": unfold_call, "split": split_call, "roll": roll_call, "dynamic_slice": dynamic_slice_call,
    "dynamic_update_slice": dynamic_update_slice_call, "slice_update": slice_update_call,
    "view_as_real": view_as_real_call, "view_as_complex": view_as_complex_call, "empty_permuted": empty_permuted_call,
    "item": item_call, "kthvalue": kthvalue_call,
    "householder_product": householder_product_call, "ormqr": ormqr_call, "ldl_factor": ldl_factor_call,
    "ldl_solve": ldl_solve_call, "cholesky_solve": cholesky_solve_call, "lstsq": lstsq_call,
}

# Examples per prim: the default, fewer where a call is costly or a rule serves many prims alike.
DEFAULT_EXAMPLES = 25
EXAMPLES = {"elementwise": 10, "elementwise_unary": 10, "cholesky": 8, "eigh": 8, "eig": 8, "qr": 8, "svd": 8,
            "lu_factor": 8, "triangular_solve": 8, "lu_solve": 8, "householder_product": 8, "ormqr": 8,
            "ldl_factor": 8, "ldl_solve": 8, "cholesky_solve": 8, "lstsq": 8, "convolution": 15, "fft": 15}
FUZZED = [p for p in prims.catalog() if p.meta in STRATEGIES]


# ---- the check ----------------------------------------------------------------------------------

def _same_size(meta, real) -> bool:
    """A data-dependent (unbacked) size in the meta output stands for any real size."""
    return isinstance(meta, torch.SymInt) and not meta.node.has_hint() or meta == real


def check_meta_matches(prim, s: SampleInput):
    dynamic = "data_dependent" in prim.tags
    try:
        real = call(prim.op, s)
    except Exception as e:
        if "not implemented for" in str(e):    # a dtype the CPU kernel lacks: not a meta question
            return
        # An invalid call: the meta rule must reject it too, with the same exception type.
        with pytest.raises(type(e)):
            fake_call(prim.op, s, dynamic_output=dynamic)
        return
    fake = fake_call(prim.op, s, dynamic_output=dynamic)
    reals, fakes = pytree.tree_leaves(real), pytree.tree_leaves(fake)
    assert len(reals) == len(fakes), f"{prim.name}: meta gives {len(fakes)} outputs, real {len(reals)} for {s}"
    for r, f in zip(reals, fakes):
        if not isinstance(r, torch.Tensor):     # item's Python scalar: a number of the same kind
            kinds = {bool: (bool, torch.SymBool), int: (int, torch.SymInt), float: (float, torch.SymFloat),
                     complex: (complex,)}
            assert isinstance(f, kinds[type(r)]), f"{prim.name}: meta gives {type(f).__name__}, real " \
                f"{type(r).__name__} for {s}"
            continue
        assert len(f.shape) == len(r.shape) and all(map(_same_size, f.shape, r.shape)) and f.dtype == r.dtype, \
            f"{prim.name}: meta {tuple(f.shape)} {f.dtype} != real {tuple(r.shape)} {r.dtype} for {s}"
        assert f.device.type == r.device.type, f"{prim.name}: meta device {f.device} != real {r.device} for {s}"
        if any(isinstance(n, torch.SymInt) for n in f.shape):
            continue    # strides of an unbacked size are symbolic; shape and dtype are what the rule states
        assert significant_strides(f) == significant_strides(r), \
            f"{prim.name}: meta strides {f.stride()} != real {r.stride()} for {s}"


def draw_and_check(prim, data, failing=None):
    """Draw a call and check it; a falsifying call is appended to ``failing`` (hypothesis replays
    the shrunk example last)."""
    # Operand values come from torch's generator, seeded from the draw: a call replays exactly.
    with torch.random.fork_rng():
        torch.manual_seed(data.draw(st.integers(0, 2**32 - 1), label="torch seed"))
        s = data.draw(STRATEGIES[prim.meta](prim), label="call")
        try:
            check_meta_matches(prim, s)
        except Exception:
            if failing is not None:
                failing.append(s)
            raise


def _fuzz_settings(prim, **extra):
    return settings(max_examples=EXAMPLES.get(prim.meta, DEFAULT_EXAMPLES), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), **extra)


@pytest.mark.parametrize("prim", FUZZED, ids=lambda p: p.name)
def test_meta_matches_execution(prim):
    failing = []

    @_fuzz_settings(prim, derandomize=True)
    @given(data=st.data())
    def fuzz(data):
        draw_and_check(prim, data, failing)
    try:
        fuzz()
    except Exception:
        if failing:
            keep_regression(prim, failing[-1])
        raise


def keep_regression(prim, s: SampleInput) -> None:
    """Append a falsifying call to fuzz_regressions.json as an explicit call, so that it is replayed
    (test_kept_regressions) from now on, whatever the strategies become."""
    case = {"prim": prim.name, "call": {"args": encode([s.input, *s.args]),
                                        "kwargs": {k: encode(v) for k, v in s.kwargs.items()}}}
    cases = json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []
    if case not in cases:
        REGRESSIONS.write_text(json.dumps(cases + [case], indent=1) + "\n")


# ---- kept regressions -------------------------------------------------------------------------

def decode(x):
    """A call argument from its JSON form: {"tensor": {shape, stride, dtype, offset?, storage?}} (a view
    of a storage holding the values given, ones otherwise, so any strides, overlapping ones included),
    {"dtype": name}, lists, scalars."""
    if isinstance(x, list):
        return [decode(v) for v in x]
    if isinstance(x, dict) and "dtype" in x and len(x) == 1:
        return getattr(torch, x["dtype"])
    if isinstance(x, dict) and "complex" in x:
        return complex(*x["complex"])
    if isinstance(x, dict) and "tensor" in x:
        spec = x["tensor"]
        dtype, offset = getattr(torch, spec["dtype"]), spec.get("offset", 0)
        extent = offset + sum(max(n - 1, 0) * st for n, st in zip(spec["shape"], spec["stride"])) + 1
        if "storage" in spec:
            storage = torch.tensor(spec["storage"], dtype=dtype)
        elif "storage_real_imag" in spec:
            storage = torch.view_as_complex(torch.tensor(spec["storage_real_imag"], dtype=dtype.to_real()))
        else:
            storage = torch.ones(extent, dtype=dtype)
        return storage.as_strided(spec["shape"], spec["stride"], offset)
    return x


def encode(x):
    """decode's inverse: a tensor keeps its geometry and its whole storage's values."""
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, torch.dtype):
        return {"dtype": str(x).removeprefix("torch.")}
    if isinstance(x, torch.Tensor):
        base = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage())
        spec = {"shape": list(x.shape), "stride": list(x.stride()), "dtype": str(x.dtype).removeprefix("torch."),
                "offset": x.storage_offset()}
        if x.dtype.is_complex:
            spec["storage_real_imag"] = torch.view_as_real(base).tolist()
        else:
            spec["storage"] = base.tolist()
        return {"tensor": spec}
    if isinstance(x, complex):
        return {"complex": [x.real, x.imag]}
    return x


def _regression_params():
    cases = json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []
    params = []
    for i, case in enumerate(cases):
        marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
        params.append(pytest.param(case, marks=marks, id=f"{case['prim']}-{case.get('seed', i)}"))
    return params


@pytest.mark.parametrize("case", _regression_params())
def test_kept_regressions(case):
    """Calls that once failed: an explicit call, or a seed replayed through the prim's strategy."""
    prim = prims.get(case["prim"])
    if "call" in case:
        args = decode(case["call"]["args"])
        kwargs = {k: decode(v) for k, v in case["call"].get("kwargs", {}).items()}
        check_meta_matches(prim, SampleInput(args[0], tuple(args[1:]), kwargs))
        return
    from hypothesis import seed

    @seed(case["seed"])
    @_fuzz_settings(prim)
    @given(data=st.data())
    def replay(data):
        draw_and_check(prim, data)
    replay()


def test_a_falsifying_call_is_kept(tmp_path, monkeypatch):
    """keep_regression writes a call that decode gives back, geometry and values alike."""
    kept = tmp_path / "kept.json"
    monkeypatch.setattr(sys.modules[__name__], "REGRESSIONS", kept)
    x = torch.arange(12, dtype=torch.float32).as_strided((2, 3), (1, 4), 1)
    z = torch.tensor([1 + 2j, 3 - 1j])
    keep_regression(prims.get("add"), SampleInput(x, (x, 2.5), {"dtype": torch.int16}))
    keep_regression(prims.get("add"), SampleInput(x, (x, 2.5), {"dtype": torch.int16}))   # kept once
    keep_regression(prims.get("neg"), SampleInput(z))
    cases = json.loads(kept.read_text())
    assert [c["prim"] for c in cases] == ["add", "neg"]
    args = decode(cases[0]["call"]["args"])
    assert args[0].stride() == (1, 4) and args[0].storage_offset() == 1 and torch.equal(args[0], x)
    assert args[2] == 2.5 and decode(cases[0]["call"]["kwargs"]["dtype"]) is torch.int16
    assert torch.equal(decode(cases[1]["call"]["args"])[0], z)


def test_every_meta_rule_has_a_strategy():
    """Every meta rule of the catalog (and so every prim family) is fuzzed."""
    missing = sorted({p.meta for p in prims.catalog()} - set(STRATEGIES))
    assert not missing, f"meta rules without a fuzz strategy in tests/test_fuzz_meta.py: {missing}"
