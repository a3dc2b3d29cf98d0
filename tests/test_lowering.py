"""Lowering to a backend's prim set: every lowering matches its prim, the model zoo lowers to the
minimal closure and still equals eager, and a target that cannot be reached is refused."""
from __future__ import annotations

import pytest
import torch

import opinfo
import prims
from decompositions import DecompositionError, get_decompositions, trace
from decompositions.lowering import LOWERINGS, MINIMAL_PRIMS, reaches, unreachable
from models import zoo

P = torch.ops.primkit


def _inputs(name):
    """Values across the prim's domain, extremes included, as its Tensor arguments."""
    base = torch.tensor([-1e30, -50.0, -3.0, -1.0, -1e-6, -0.0, 0.0, 1e-8, 1e-3, 0.5, 1.0, 2.0, 30.0, 80.0, 1e30,
                         float("inf"), float("-inf"), float("nan")])
    n_tensors = sum(isinstance(a.type, torch.TensorType) for a in prims.get(name).op._schema.arguments)
    if name == "var":
        return (torch.randn(5, 4, dtype=torch.float64) * 10, [0], 1.0)
    if n_tensors == 2:
        return (base, base.flip(0))
    return (base,)


@pytest.mark.parametrize("name", sorted(LOWERINGS))
def test_lowering_matches_prim(name):
    args = _inputs(name)
    expected = getattr(P, name)(*args)
    actual = LOWERINGS[name][0](*args)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    # float32 formulas built from other prims: a few ulps apart, more where results are huge.
    torch.testing.assert_close(actual, expected, atol=1e-6, rtol=4e-6, equal_nan=True)


PRIM_ENTRIES = {e.name.removeprefix("primkit."): e for e in opinfo.op_db if e.is_prim}


@pytest.mark.parametrize("name,dtype", [(n, d) for n in sorted(LOWERINGS)
                                        for d in sorted(PRIM_ENTRIES[n].supported_dtypes("cpu"), key=str)])
def test_lowering_matches_prim_on_its_samples(name, dtype):
    # every dtype the prim takes (a lowering may branch on complex or integer inputs), on the
    # prim's OpInfo samples: non-contiguous, empty, 0-d, extreme values
    entry = PRIM_ENTRIES[name]
    atol, rtol = entry.tolerance(dtype)
    for s in entry.samples("cpu", dtype):
        expected = entry.op(s.input, *s.args, **s.kwargs)
        actual = LOWERINGS[name][0](s.input, *s.args, **s.kwargs)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape, s.name
        torch.testing.assert_close(actual, expected, atol=atol, rtol=rtol, equal_nan=True, msg=lambda m: f"{s.name}: {m}")


def test_minimal_set_is_closed():
    assert MINIMAL_PRIMS and not unreachable(MINIMAL_PRIMS)
    assert all(n not in MINIMAL_PRIMS for n in LOWERINGS)
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
    for a, e in zip(torch.utils._pytree.tree_leaves(gm(*args)), torch.utils._pytree.tree_leaves(expected)):
        torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)


def test_unreachable_target_is_refused():
    with pytest.raises(DecompositionError, match="outside the target and have no lowering") as info:
        get_decompositions(target={"add", "mul"})
    assert "primkit::exp" in info.value.missing and "primkit::add" not in info.value.missing


def test_unknown_target_prim():
    with pytest.raises(ValueError, match="not prims"):
        get_decompositions(target=MINIMAL_PRIMS | {"no_such_prim"})
