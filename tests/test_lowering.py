"""Lowering to a backend's prim set: every lowering matches its prim, the model zoo lowers to the
minimal closure and still equals eager; reachability is per graph and per dtype; kept ATen ops stay
whole and expand to their prims; ``requirements`` reports what a program needs."""
from __future__ import annotations

import pytest
import torch

from primkit import decompositions, opinfo, prims
from primkit.decompositions import DecompositionError, expand_kept, get_decompositions, requirements, trace
from primkit.decompositions.lowering import (CORE_PRIMS, LOWERINGS, MINIMAL_PRIMS, OPTIONAL_SPECIAL, core_gap, reaches,
                                             unreachable, valid_dtypes)
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


@pytest.mark.parametrize("name", sorted(n for n in LOWERINGS if torch.float32 in valid_dtypes(n)))
def test_lowering_matches_prim(name):
    args = _inputs(name)
    expected = getattr(P, name)(*args)
    actual = LOWERINGS[name][0](*args)
    for a, e in zip(torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected)):
        assert a.dtype == e.dtype and a.shape == e.shape
        # float32 formulas built from other prims: a few ulps apart, more where results are huge.
        torch.testing.assert_close(a, e, atol=1e-6, rtol=4e-6, equal_nan=True)
        if a.dtype.is_floating_point:     # zeros keep their sign (-0.0 in, -0.0 out where the prim gives it)
            assert torch.equal(torch.signbit(a[a == 0]), torch.signbit(e[a == 0]))


def _significant_strides(t):
    return [st for n, st in zip(t.shape, t.stride()) if n > 1] if t.numel() else []


PRIM_ENTRIES = {e.name.removeprefix("primkit."): e for e in opinfo.op_db if e.is_prim}


@pytest.mark.parametrize("name,dtype", [(n, d) for n in sorted(LOWERINGS)
                                        for d in sorted(PRIM_ENTRIES[n].supported_dtypes("cpu") & valid_dtypes(n), key=str)])
def test_lowering_matches_prim_on_its_samples(name, dtype):
    # every dtype the prim takes (a lowering may branch on complex or integer inputs), on the
    # prim's OpInfo samples: non-contiguous, empty, 0-d, extreme values
    entry = PRIM_ENTRIES[name]
    atol, rtol = entry.tolerance(dtype)
    for s in entry.samples("cpu", dtype):
        expected = entry.op(s.input, *s.args, **s.kwargs)
        actual = LOWERINGS[name][0](s.input, *s.args, **s.kwargs)
        for a, e in zip(torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(expected)):
            assert a.dtype == e.dtype and a.shape == e.shape, s.name
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


# The prims outside the optional families and OPTIONAL_SPECIAL that do not lower into the core set
# yet (scans, windowed reductions, indexing, dtype-reinterpreting views, ...): the figure may only fall.
CORE_GAP_AT_MOST = 42


def test_core_gap_does_not_grow():
    assert len(core_gap()) <= CORE_GAP_AT_MOST, core_gap()


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
