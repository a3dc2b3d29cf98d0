"""Effectful ATen ops: eager's linalg error checks (aten._linalg_check_errors) stay checks in prim graphs.

Eager's linalg.inv, solve, lu_factor, cholesky ... check the factorization's LAPACK info after it runs
and raise on a singular (or not positive-definite) matrix. The check depends on the data, so it runs
where the graph runs: the item prim and aten._assert_scalar. AOTAutograd wraps the effectful op in a
with_effects node before the table is consulted; graph.lower_effects replaces it by the prims. The
OpInfo database's error inputs are checked when tracing (test_ops.test_errors); these errors come from
running the graph, so they are tested here: a singular input raises where eager raises, through
primkit.trace, aot_function and torch.compile(backend="primkit"), and a regular input still runs.
"""
from __future__ import annotations

import pytest
import torch
from functorch.compile import aot_function, make_boxed_func

from primkit import trace
from primkit.decompositions import check_prim_only, get_decompositions
from primkit.graph import lower_effects

TABLE = get_decompositions()
SINGULAR = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64)
BATCH_ONE_SINGULAR = torch.stack([torch.eye(2, dtype=torch.float64) * 2, SINGULAR])

# (name, program, the pattern eager's message and primkit's share)
CASES = [
    ("linalg.inv", torch.linalg.inv, "linalg.inv.*singular"),
    ("inverse", torch.inverse, "singular"),
    ("linalg.solve", lambda a: torch.linalg.solve(a, torch.ones_like(a[..., :1])), "linalg.solve.*singular"),
    ("linalg.lu_factor", lambda a: torch.linalg.lu_factor(a)[0], "lu_factor.*division by zero"),
    ("linalg.tensorinv", lambda a: torch.linalg.tensorinv(a, ind=a.dim() - 1), "singular"),
    ("linalg.cholesky", torch.linalg.cholesky, "cholesky.*positive-definite"),
]


def _cases():
    for name, fn, pattern in CASES:
        for label, bad in (("singular", SINGULAR), ("batch", BATCH_ONE_SINGULAR)):
            if name != "linalg.tensorinv" or label == "singular":
                yield pytest.param(fn, bad, pattern, id=f"{name}-{label}")


def _aot(fn):
    graphs = []

    def compiler(gm, example_inputs):
        graphs.append(check_prim_only(lower_effects(gm, TABLE)))
        return make_boxed_func(gm.forward)
    return aot_function(fn, compiler, compiler, decompositions=TABLE), graphs


@pytest.mark.parametrize("fn,bad,pattern", list(_cases()))
def test_trace_raises_where_eager_raises(fn, bad, pattern):
    with pytest.raises(RuntimeError, match=pattern):
        fn(bad)
    good = torch.eye(bad.shape[-1], dtype=bad.dtype).expand(bad.shape) * 3
    gm = trace(fn, good)
    torch.testing.assert_close(gm(good), fn(good))
    with pytest.raises(RuntimeError, match=pattern):
        gm(bad)


@pytest.mark.parametrize("fn,bad,pattern", list(_cases()))
def test_aot_function_raises_where_eager_raises(fn, bad, pattern):
    good = (torch.eye(bad.shape[-1], dtype=bad.dtype).expand(bad.shape) * 3).requires_grad_()
    compiled, graphs = _aot(fn)
    out = compiled(good)
    out.sum().backward()
    assert graphs, "aot_function compiled no graph"
    want = torch.func.grad(lambda a: fn(a).sum())(good.detach())
    torch.testing.assert_close(good.grad, want)
    with pytest.raises(RuntimeError, match=pattern):
        compiled(bad.clone().requires_grad_())


def test_lower_effects_leaves_no_with_effects():
    graphs = {}

    def compiler(gm, example_inputs):
        graphs["before"] = [str(n.target) for n in gm.graph.nodes]
        graphs["after"] = [str(n.target) for n in lower_effects(gm, TABLE).graph.nodes]
        return make_boxed_func(gm.forward)
    aot_function(torch.linalg.inv, compiler, compiler, decompositions=TABLE)(torch.eye(3, requires_grad=True))
    assert any("with_effects" in t for t in graphs["before"]), "AOTAutograd no longer makes with_effects here"
    assert not any("with_effects" in t for t in graphs["after"])
    assert "aten._assert_scalar.default" in graphs["after"], "the error check was dropped"
