"""Lowering to a backend's prim set: every lowering matches its prim, the model zoo lowers to the
minimal closure and still equals eager; reachability is per graph and per dtype; kept ATen ops stay
whole and expand to their prims; ``requirements`` reports what a program needs."""
from __future__ import annotations

import pytest
import torch

from primkit import decompositions, opinfo, prims
from primkit.decompositions import DecompositionError, get_decompositions
from primkit.graph import expand_kept, requirements, trace
from primkit.decompositions.lowering import (CORE_PRIMS, HOST_PRIMS, LOWERINGS, MINIMAL_PRIMS, OPTIONAL_SPECIAL, core_gap,
                                             prims_called, reaches, reaches_at, unreachable, valid_dtypes)
from models import zoo

P = torch.ops.primkit


def _inputs(name):
    """Values across the prim's domain, extremes included, as its Tensor arguments."""
    base = torch.tensor([-1e30, -50.0, -3.0, -1.0, -1e-6, -0.0, 0.0, 1e-8, 1e-3, 0.5, 1.0, 2.0, 30.0, 80.0, 1e30,
                         float("inf"), float("-inf"), float("nan")])
    n_tensors = sum(isinstance(a.type, torch.TensorType) for a in prims.get(name).op._schema.arguments)
    if name == "var":
        return (torch.randn(5, 4, dtype=torch.float64) * 10, [0], 1.0)
    if name == "nan_to_num":     # replacements: one beyond float32's range (it becomes inf)
        return (base, 0.5, 1e300, -7.0)
    if name == "reduce_precision":     # float16's format: overflow, flushed subnormals, ties
        return (torch.cat([base, torch.tensor([65520.0, 65519.0, 2.0 ** -15, 1.00048828125, 1.00146484375])]), 5, 10)
    if n_tensors == 3:
        return (base, base.flip(0), base.roll(5))
    if n_tensors == 2:
        return (base, base.flip(0))
    return (base,)


# values across the domain for the prims _inputs can feed (elementwise, aliases, var); the others on their samples
@pytest.mark.parametrize("name", sorted(n for n in LOWERINGS if torch.float32 in valid_dtypes(n) and (
    prims.get(n).meta.startswith("elementwise") or prims.get(n).meta == "alias" or n == "var")))
def test_lowering_matches_prim(name):
    args = _inputs(name)
    expected = getattr(P, name)(*args)
    actual = LOWERINGS[name][0](*args)
    for a, e in zip(torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected), strict=True):
        assert a.dtype == e.dtype and a.shape == e.shape
        # float32 formulas built from other prims: a few ulps apart, more where results are huge.
        torch.testing.assert_close(a, e, atol=1e-6, rtol=4e-6, equal_nan=True)
        if a.dtype.is_floating_point:     # zeros keep their sign (-0.0 in, -0.0 out where the prim gives it)
            assert torch.equal(torch.signbit(a[a == 0]), torch.signbit(e[a == 0]))


def _significant_strides(t):
    return [st for n, st in zip(t.shape, t.stride(), strict=True) if n > 1] if t.numel() else []


PRIM_ENTRIES = {e.name.removeprefix("primkit."): e for e in opinfo.op_db if e.is_prim}


def _leaves(x):
    return torch.utils._pytree.tree_leaves(x)


def _sums_in_any_order(name, dtype) -> bool:
    """index_add, index_put, select_and_scatter_add: the order in which repeats add up is unspecified (tagged
    nondeterministic);
    in float16 / bfloat16 each order rounds differently, so the lowering sums in float32 and rounds once."""
    return dtype in (torch.float16, torch.bfloat16) and "nondeterministic" in prims.get(name).tags \
        and not _uninitialized(name)


def _rounded_from_float32(op, dtype, s):
    """op on s with its dtype tensors upcast to float32, rounded back to dtype: the exactly rounded sum."""
    up = lambda t: t.to(torch.float32) if t.dtype == dtype else t   # noqa: E731
    args = torch.utils._pytree.tree_map_only(torch.Tensor, up, (s.input, s.args, s.kwargs))
    result = op(args[0], *args[1], **args[2])
    down = lambda t: t.to(dtype) if t.dtype == torch.float32 else t   # noqa: E731
    return torch.utils._pytree.tree_map_only(torch.Tensor, down, result)


def _uninitialized(name) -> bool:
    """empty_strided, empty_permuted: only the geometry of their output is defined."""
    return "nondeterministic" in prims.get(name).tags and name.startswith("empty")


@pytest.mark.parametrize("name,dtype", [(n, d) for n in sorted(LOWERINGS)
                                        for d in sorted(PRIM_ENTRIES[n].supported_dtypes("cpu") & valid_dtypes(n), key=str)])
def test_lowering_matches_prim_on_its_samples(name, dtype):
    # every dtype the prim takes (a lowering may branch on complex or integer inputs), on the
    # prim's OpInfo samples: non-contiguous, empty, 0-d, extreme values
    entry = PRIM_ENTRIES[name]
    atol, rtol = entry.tolerance(dtype)
    for s in entry.samples("cpu", dtype):
        expected = entry.op(s.input, *s.args, **s.kwargs)
        if _sums_in_any_order(name, dtype):
            expected = _rounded_from_float32(entry.op, dtype, s)
        actual = LOWERINGS[name][0](s.input, *s.args, **s.kwargs)
        for a, e in zip(_leaves(actual), _leaves(expected), strict=True):     # (cummax, var_mean, split: several)
            assert a.dtype == e.dtype and a.shape == e.shape, s.name
            if _uninitialized(name):
                continue
            # the layout too: a backend running the lowering must give the prim's strides (of the dims
            # of size > 1: a size-1 dim's stride addresses nothing, and eager sets it either way)
            assert _significant_strides(a) == _significant_strides(e), \
                f"{s.name}: strides {a.stride()} != the prim's {e.stride()}"
            torch.testing.assert_close(a, e, atol=atol, rtol=rtol, equal_nan=True, msg=lambda m: f"{s.name}: {m}")


def test_minimal_set_is_closed():
    assert MINIMAL_PRIMS and not unreachable(MINIMAL_PRIMS)
    assert all(n not in MINIMAL_PRIMS for n in LOWERINGS if valid_dtypes(n) == prims.get(n).dtypes)
    for name in LOWERINGS:     # no lowering reaches its own prim (no cycles of one)
        assert name not in reaches(name)


MODELS = zoo()


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_model_zoo_lowers_to_minimal_set(name, model, args):
    with torch.no_grad():
        expected = model(*args)
    gm = trace(model, *args, target=MINIMAL_PRIMS)
    used = {n.target._opname for n in gm.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)}
    assert used <= MINIMAL_PRIMS
    for a, e in zip(torch.utils._pytree.tree_leaves(gm(*args)), torch.utils._pytree.tree_leaves(expected), strict=True):
        torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)


# A small accelerator's prim set: arithmetic, a few transcendental functions, comparisons, shapes,
# reductions, matmul / convolution, indexing, creation; float dtypes only.
SMALL = {"add", "sub", "mul", "div", "neg", "abs", "maximum", "minimum", "pow", "exp", "log", "sqrt", "rsqrt",
         "erf", "sin", "cos", "eq", "lt", "le", "logical_not", "logical_and", "logical_or", "where",
         "convert_element_type", "broadcast_in_dim", "reshape", "permute", "squeeze", "expand_dims", "slice", "cat",
         "pad", "sum", "amax", "amin", "argmax", "matmul", "convolution", "gather", "index_select", "scatter_add",
         "full", "iota", "scalar_tensor", "clone", "copy_to"}
FLOATS = {torch.float16, torch.bfloat16, torch.float32, torch.float64}


def _used(gm):
    return {n.target._opname for n in gm.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)}


def test_small_target_gets_a_table():
    # reachability is a property of a graph: the table lowers what it can and never refuses
    table = get_decompositions(target=SMALL)
    assert P.sigmoid.default in table and torch.ops.aten.add.Tensor in table


def test_float_only_target_reaches_lowerings_valid_for_floats():
    # tanh, expm1, var, sigmoid lower for real floats (their complex paths need real / imag / complex)
    assert not {"tanh", "expm1", "var", "sigmoid", "log1p", "reciprocal"} & unreachable(SMALL, FLOATS)
    assert {"tanh", "expm1", "var"} <= unreachable(SMALL)   # complex64 / complex128 cannot be reached


def test_float_model_lowers_to_small_set():
    def fn(x):
        return torch.tanh(x) + torch.sigmoid(x) * torch.expm1(x) + x.var(0) + torch.log1p(x.abs())
    x = torch.randn(5, 4)
    gm = trace(fn, x, target=SMALL)
    assert _used(gm) <= SMALL
    torch.testing.assert_close(gm(x), fn(x), atol=1e-6, rtol=1e-5)   # formulas of several prims: a few ulps


def test_graph_needs_prim_outside_target():
    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Tanh()

        def forward(self, x):
            return self.inner(x) * 2
    x = torch.randn(3, dtype=torch.complex64)
    with pytest.raises(DecompositionError, match="outside the target prim set") as info:
        trace(Block(), x, target=SMALL)
    # the complex tanh has no lowering inside SMALL: the error names the prim, dtype, ATen op and module
    assert info.value.missing == ["primkit::tanh [complex64] from aten::tanh in inner"]


def test_dead_code_needs_nothing():
    def fn(x):
        torch.exp2(x).sort()          # unused: removed before the check
        return x + 1
    x = torch.randn(4)
    gm = trace(fn, x, target={"add", "broadcast_in_dim", "scalar_tensor", "convert_element_type"})
    torch.testing.assert_close(gm(x), x + 1)


def test_requirements_names_missing_and_origin():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Softplus())
    need = requirements(model, torch.randn(2, 4), target=SMALL - {"log"})
    assert need["prims"]["matmul"] == 1 and not need["kept"]
    # softplus needs log1p, whose lowering needs log: log1p is what this graph lacks
    assert need["missing"] == [{"prim": "log1p", "dtype": "float32", "aten": "aten::softplus", "module": "1"}]
    assert requirements(model, torch.randn(2, 4))["missing"] == []


def test_kept_ops_stay_whole_and_expand():
    model, x = next((m, a) for n, m, a in MODELS if n == "encoder")
    kept = [torch.ops.aten.scaled_dot_product_attention, torch.ops.aten.layer_norm.default]
    gm = trace(model, *x, keep=kept)
    nodes = [n for n in gm.graph.nodes if n.op == "call_function" and not prims.is_prim(n.target)
             and n.target in (torch.ops.aten.scaled_dot_product_attention.default, torch.ops.aten.layer_norm.default)]
    assert sorted(n.target.name() for n in nodes) == ["aten::layer_norm", "aten::layer_norm",
                                                     "aten::scaled_dot_product_attention"]
    assert all(n.meta["decomposition"] is decompositions.registered()[n.target] for n in nodes)
    with torch.no_grad():
        expected = model(*x)
    torch.testing.assert_close(gm(*x), expected)
    expanded = expand_kept(gm)
    decompositions.check_prim_only(expanded)
    torch.testing.assert_close(expanded(*x), expected)
    need = requirements(model, *x, target=SMALL, keep=kept)
    assert need["kept"] == {"aten::layer_norm": 2, "aten::scaled_dot_product_attention": 1}


def test_get_decompositions_leaves_kept_ops_out():
    table = get_decompositions(keep=[torch.ops.aten.gelu])
    assert torch.ops.aten.gelu.default not in table and torch.ops.aten.add.Tensor in table
    gm = trace(torch.nn.GELU(), torch.randn(3), keep=[torch.ops.aten.gelu])
    assert [n.target for n in gm.graph.nodes if n.op == "call_function"] == [torch.ops.aten.gelu.default]


def test_keep_names_aten_ops():
    with pytest.raises(TypeError, match="is a prim; keep names ATen ops"):
        trace(lambda x: x + 1, torch.randn(2), keep=[P.add.default])


def test_core_set_is_small():
    assert len(CORE_PRIMS) <= 64 and CORE_PRIMS <= {p.name for p in prims.catalog()}


def test_every_prim_outside_the_named_optional_sets_reaches_the_core_set():
    assert core_gap() == []


ELEMENTWISE_FAMILIES = {"elementwise_unary", "elementwise_binary", "elementwise_ternary", "complex", "conversion"}
# Views that reinterpret a complex tensor's storage as pairs of reals and back: no core prim changes
# a view's dtype (as_strided keeps it), and a copy would not alias.
REINTERPRETING_VIEWS = {"view_as_real", "view_as_complex"}


@pytest.mark.parametrize("name", sorted(p.name for p in prims.catalog() if p.family in ELEMENTWISE_FAMILIES
                                        and p.name not in CORE_PRIMS | OPTIONAL_SPECIAL | REINTERPRETING_VIEWS))
def test_elementwise_prim_reaches_core_at_every_real_dtype(name):
    real = {d for d in prims.get(name).dtypes if not d.is_complex}
    assert name not in unreachable(CORE_PRIMS, real), f"{name} does not lower into CORE_PRIMS at some of {real}"


def test_optional_special_functions_are_elementwise_prims_without_lowering():
    for name in OPTIONAL_SPECIAL:
        assert prims.get(name).family in ELEMENTWISE_FAMILIES and name not in LOWERINGS


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_model_zoo_traces_inside_core_set(name, model, args):
    with torch.no_grad():
        expected = model(*args)
    gm = trace(model, *args, target=CORE_PRIMS)
    assert _used(gm) <= CORE_PRIMS
    for a, e in zip(torch.utils._pytree.tree_leaves(gm(*args)), torch.utils._pytree.tree_leaves(expected), strict=True):
        torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)   # lowered formulas: a few float32 ulps


def test_unknown_target_prim():
    with pytest.raises(ValueError, match="not prims"):
        get_decompositions(target=MINIMAL_PRIMS | {"no_such_prim"})


# --- the non-elementwise families lower into the core set ---------------------------------------

STRUCTURAL_FAMILIES = {"creation", "memory", "reductions", "scan", "shape", "windowed", "indexing"}
STRUCTURAL = sorted(p.name for p in prims.catalog() if p.family in STRUCTURAL_FAMILIES)


@pytest.mark.parametrize("name,dtype", [(n, d) for n in STRUCTURAL if n in LOWERINGS for d in
                                        sorted(PRIM_ENTRIES[n].supported_dtypes("cpu") & valid_dtypes(n), key=str)])
def test_lowering_keeps_prim_strides(name, dtype):
    # the layout the prim's meta rule gives (contiguous, dense in the operand's order, a view's exact
    # strides and offset), on the prim's samples: non-contiguous, channels-last, empty, 0-d. The meta
    # rule, not eager: eager's strides of size-0 and size-1 dims vary by kernel, the meta rule is the contract
    entry, view = PRIM_ENTRIES[name], "view" in prims.get(name).tags
    for s in entry.samples("cpu", dtype):
        on_meta = torch.utils._pytree.tree_map_only(torch.Tensor, _on_meta, (s.input, s.args, s.kwargs))
        expected = _leaves(entry.op(on_meta[0], *on_meta[1], **on_meta[2]))
        actual = _leaves(LOWERINGS[name][0](s.input, *s.args, **s.kwargs))
        assert [a.stride() for a in actual] == [e.stride() for e in expected], s.name
        if view:     # the offset into the operand's storage, as eager's view (the meta rule leaves it out)
            real = _leaves(entry.op(s.input, *s.args, **s.kwargs))
            assert [a.storage_offset() for a in actual] == [e.storage_offset() for e in real], s.name


def _on_meta(t):
    """t's geometry (sizes, strides, storage offset, storage size) on the meta device."""
    storage = torch.empty(t.untyped_storage().nbytes() // t.element_size(), dtype=t.dtype, device="meta")
    return storage.as_strided(t.shape, t.stride(), t.storage_offset())


@pytest.mark.parametrize("name,dtype", [(n, d) for n in STRUCTURAL if n in LOWERINGS for d in
                                        sorted(PRIM_ENTRIES[n].supported_dtypes("cpu") & valid_dtypes(n), key=str)])
def test_lowering_reach_covers_its_samples(name, dtype):
    # reachability is read off the lowering's examples: every branch it takes on the prim's samples
    # (0-d, empty, strided operands, each mode) calls only prims those examples recorded, at their dtypes
    for s in PRIM_ENTRIES[name].samples("cpu", dtype):
        called = prims_called(LOWERINGS[name][0], s.input, *s.args, **s.kwargs)
        assert called <= reaches_at(name, dtype), f"{s.name}: {sorted(called - reaches_at(name, dtype), key=str)}"


@pytest.mark.parametrize("name", [n for n in STRUCTURAL if n not in CORE_PRIMS and n not in HOST_PRIMS])
def test_structural_prim_reaches_core_set(name):
    assert name in LOWERINGS and name not in unreachable(CORE_PRIMS)


def test_host_prims_are_outside_the_core_set():
    assert HOST_PRIMS.isdisjoint(CORE_PRIMS) and HOST_PRIMS.isdisjoint(LOWERINGS) and not set(core_gap()) & HOST_PRIMS


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_complex_logcumsumexp_follows_eager_branch(dtype):
    # eager's imaginary part is the branch its loop took (|imag| up to ~90 here, many turns of 2 pi):
    # the lowering's phase unwrapping must land on the same one; and its special values: a nan anywhere
    # in the prefix, an all -inf prefix (-inf + 0j, whatever the imaginary parts), one +inf real part
    gen = torch.Generator().manual_seed(0)
    a = torch.complex(3 * torch.randn(6, 40, generator=gen), 30 * torch.randn(6, 40, generator=gen)).to(dtype)
    nan, inf = float("nan"), float("inf")
    special = torch.tensor([[complex(-inf, 1), complex(-inf, 2), complex(1, 7), complex(-inf, 3), complex(2, -9), complex(nan, 0)],
                            [complex(1, 1), complex(inf, 2.5), complex(3, 1), complex(4, 40), complex(-inf, 1), complex(0, 1)],
                            [complex(-inf, 1), complex(0.5, nan), complex(1, 1), complex(2, 2), complex(3, 3), complex(4, 4)]],
                           dtype=dtype)
    lowered = LOWERINGS["logcumsumexp"][0]
    for t, dim in ((a, 1), (a, 0), (special, 1)):
        torch.testing.assert_close(lowered(t, dim), torch.logcumsumexp(t, dim), equal_nan=True)
