"""Meta rules against execution on random shapes, strides, dtypes and arguments (hypothesis).

Per family: a strategy draws a call (operands as random strided views: permuted, sliced with
steps, expanded, of random dtype) and checks that the meta rule's geometry under FakeTensorMode
equals what the reference implementation returns. Bounded: a fixed number of examples per prim.
A falsifying call found here is kept in fuzz_regressions.json (prim, seed) and replayed first.
"""
from __future__ import annotations

import json
import pathlib

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

import prims
from opinfo.harness import fake_call, significant_strides
from opinfo.core import SampleInput

REGRESSIONS = pathlib.Path(__file__).with_name("fuzz_regressions.json")
DTYPES = [torch.bool, torch.uint8, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
          torch.float64, torch.complex64]


@st.composite
def strided(draw, shape, dtype):
    """A tensor of the given shape whose strides are random: a view of a larger base tensor,
    permuted, sliced with steps, or expanded along size-1 dims."""
    n = len(shape)
    perm = draw(st.permutations(range(n))) if n else []
    steps = [draw(st.integers(1, 2)) for _ in range(n)]
    expand = [draw(st.booleans()) and shape[d] > 1 for d in range(n)]
    base_shape = [1 if expand[d] else shape[d] * steps[d] for d in range(n)]
    base = torch.testing.make_tensor([base_shape[d] for d in perm], dtype=dtype, device="cpu", low=0.5, high=3)
    inverse = [perm.index(d) for d in range(n)]
    t = base.permute(inverse) if n else base
    t = t[tuple(slice(None, None, steps[d]) if not expand[d] else slice(None) for d in range(n))]
    return t.expand(shape) if n else t


@st.composite
def shapes(draw, min_dims=0, max_dims=4):
    return tuple(draw(st.lists(st.integers(0, 4), min_size=min_dims, max_size=max_dims)))


def _dtype_for(draw, prim):
    allowed = [d for d in DTYPES if d in prim.dtypes]
    return draw(st.sampled_from(allowed))


@st.composite
def elementwise_call(draw, prim):
    shape = draw(shapes())
    dtype = _dtype_for(draw, prim)
    fixed = prim.params.get("arg_dtypes", {})
    args = []
    for a in prim.op._schema.arguments:
        if isinstance(a.type, torch.TensorType):
            args.append(draw(strided(shape, torch.bool if a.name in fixed else dtype)))
        elif a.name == "dtype":
            args.append(draw(st.sampled_from(DTYPES)))
        elif a.name == "n":
            args.append(draw(st.integers(0, 2)))
        else:
            return None
    return args


@st.composite
def reduction_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    a = draw(strided(shape, _dtype_for(draw, prim)))
    if "dim" in prim.arg_names:    # arg reductions: one non-empty dim
        dims = [d for d in range(len(shape)) if shape[d] > 0]
        if not dims:
            return None
        return [a, draw(st.sampled_from(dims))]
    dims = draw(st.lists(st.integers(0, len(shape) - 1), unique=True))
    return [a, dims] + ([draw(st.sampled_from([0.0, 1.0]))] if "correction" in prim.arg_names else [])


@st.composite
def permute_call(draw, prim):
    shape = draw(shapes())
    return [draw(strided(shape, torch.float32)), list(draw(st.permutations(range(len(shape)))))]


@st.composite
def reshape_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    numel = 1
    for s in shape:
        numel *= s
    factors = [f for f in range(1, 9) if numel and numel % f == 0] or [1]
    first = draw(st.sampled_from(factors))
    target = [first, numel // first] if numel else [0, draw(st.integers(1, 3))]
    return [draw(strided(shape, torch.float32)), target]


@st.composite
def broadcast_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    extra = draw(st.integers(0, 2))
    target = [draw(st.integers(1, 3)) for _ in range(extra)] + [s if s != 1 else draw(st.integers(1, 3)) for s in shape]
    return [draw(strided(shape, torch.float32)), target, list(range(extra, extra + len(shape)))]


@st.composite
def slice_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    starts = [draw(st.integers(0, s)) for s in shape]
    limits = [draw(st.integers(b, s)) for b, s in zip(starts, shape)]
    return [draw(strided(shape, torch.float32)), starts, limits, [draw(st.integers(1, 3)) for _ in shape]]


@st.composite
def dims_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    a = draw(strided(shape, torch.float32))
    if prim.name == "squeeze":
        return [a, [d for d in range(len(shape)) if shape[d] == 1 and draw(st.booleans())]]
    if prim.name == "expand_dims":
        return [a, draw(st.lists(st.integers(0, len(shape)), unique=True, max_size=2))]
    return [a, draw(st.lists(st.integers(0, len(shape) - 1), unique=True))]


@st.composite
def unary_view_call(draw, prim):
    shape = draw(shapes())
    return [draw(strided(shape, draw(st.sampled_from([torch.float32, torch.int64, torch.bool]))))]


@st.composite
def cat_call(draw, prim):
    shape = list(draw(shapes(min_dims=1)))
    dim = draw(st.integers(0, len(shape) - 1))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(shape)
        s[dim] = draw(st.integers(0, 3))
        parts.append(draw(strided(tuple(s), torch.float32)))
    return [parts, dim]


@st.composite
def matmul_call(draw, prim):
    batch = list(draw(shapes(max_dims=2)))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    dtype = draw(st.sampled_from([torch.float32, torch.float64, torch.int64]))
    return [draw(strided(tuple(batch + [m, k]), dtype)), draw(strided(tuple(batch + [k, n]), dtype))]


STRATEGIES = {
    "elementwise": elementwise_call, "elementwise_unary": elementwise_call,
    "elementwise_unary_order": elementwise_call, "reduction": reduction_call,
    "arg_reduction": reduction_call, "permute": permute_call, "reshape": reshape_call,
    "broadcast_in_dim": broadcast_call, "slice": slice_call, "squeeze": dims_call, "expand_dims": dims_call,
    "rev": dims_call, "clone": unary_view_call, "cat": cat_call, "matmul": matmul_call,
}
FUZZED = [p for p in prims.catalog() if p.meta in STRATEGIES]


def check_meta_matches(prim, args):
    s = SampleInput(args[0], tuple(args[1:]))
    try:
        real = prim.op(*args)
    except Exception as e:
        if "not implemented for" in str(e):    # a dtype the CPU kernel lacks: not a meta question
            return
        # An invalid call: the meta rule must reject it too, with the same exception type.
        with pytest.raises(type(e)):
            fake_call(prim.op, s)
        return
    fake = fake_call(prim.op, s)
    for r, f in zip(torch.utils._pytree.tree_leaves(real), torch.utils._pytree.tree_leaves(fake)):
        assert (tuple(f.shape), f.dtype) == (tuple(r.shape), r.dtype), f"{prim.name}: meta {f.shape} {f.dtype} != " \
            f"real {r.shape} {r.dtype} for {s}"
        assert significant_strides(f) == significant_strides(r), \
            f"{prim.name}: meta strides {f.stride()} != real {r.stride()} for {s}"


def _regressions():
    return json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []


@pytest.mark.parametrize("prim", FUZZED, ids=lambda p: p.name)
@settings(max_examples=25, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_meta_matches_execution(prim, data):
    args = data.draw(STRATEGIES[prim.meta](prim))
    if args is not None:
        check_meta_matches(prim, args)


@pytest.mark.parametrize("case", _regressions(), ids=lambda c: f"{c['prim']}-{c['seed']}")
def test_kept_regressions(case):
    """Calls that once failed, replayed from their seed (hypothesis' own derandomized draw)."""
    prim = prims.get(case["prim"])
    from hypothesis import seed

    @seed(case["seed"])
    @settings(max_examples=case.get("examples", 25), deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def replay(data):
        args = data.draw(STRATEGIES[prim.meta](prim))
        if args is not None:
            check_meta_matches(prim, args)
    replay()


def test_strategies_cover_every_family():
    """Every prim family has at least one fuzzed prim (creation/indexing/conv have OpInfo samples)."""
    fuzzed_families = {p.family for p in FUZZED}
    for family in ("elementwise_unary", "elementwise_binary", "elementwise_ternary", "conversion", "reductions",
                   "shape", "linalg", "memory"):
        assert family in fuzzed_families, family
