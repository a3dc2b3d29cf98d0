"""The model zoo traces to prim-only graphs three ways, and the graphs equal eager."""
from __future__ import annotations

import pytest
import torch
import torch.utils._pytree as pytree
from torch.fx.experimental.proxy_tensor import make_fx

from primkit.graph import check_prim_only, trace

from primkit.decompositions import get_decompositions
from models import zoo

MODELS = zoo()


def assert_close_tree(actual, expected):
    for a, e in zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected), strict=True):
        torch.testing.assert_close(a, e, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_trace(name, model, args):
    with torch.no_grad():
        expected = model(*args)
    gm = trace(model, *args)
    assert_close_tree(gm(*args), expected)


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_make_fx_with_table(name, model, args):
    with torch.no_grad():
        expected = model(*args)
        gm = make_fx(model, decomposition_table=get_decompositions())(*args)
    check_prim_only(gm)
    with torch.no_grad():    # a raw make_fx graph keeps in-place writes (copy_to): not differentiable
        actual = gm(*args)
    assert_close_tree(actual, expected)


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_export_run_decompositions(name, model, args):
    with torch.no_grad():
        expected = model(*args)
    ep = torch.export.export(model, args).run_decompositions(get_decompositions())
    check_prim_only(ep.graph_module)
    with torch.no_grad():
        assert_close_tree(ep.module()(*args), expected)
