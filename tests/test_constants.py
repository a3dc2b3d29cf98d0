"""Constants made during forward (``torch.tensor(...)``, an empty cache, ``.item()`` of a constant,
an in-place write into one, ``lift_fresh_copy`` of a graph constant, ``scalar_tensor`` of Python
numbers) trace to prim-only graphs with the table under every tracer, and the graphs equal eager.

``torch.tensor`` makes a real tensor and hands it to ``aten.lift_fresh``: the decomposition of
the lift ops must hand that real value to a prim as the tracers hand it to the undecomposed lift
(a graph constant; faked by a fake mode, which refuses real tensors elsewhere). Before the fix,
AOTAutograd and make_fx's fake and symbolic modes failed with "Please convert all Tensors to
FakeTensors first ... Found in primkit.reshape.default(tensor([]), [0])": the default KV cache of
every transformers decoder.
"""
from __future__ import annotations

import pytest
import torch
from functorch.compile import aot_function, make_boxed_func
from torch.fx.experimental.proxy_tensor import make_fx

from primkit.graph import check_prim_only, trace

from primkit.decompositions import get_decompositions

TABLE = get_decompositions()


def tensor_constant(x):
    return x * torch.tensor([1.5, -2.0, 3.0]) + torch.tensor(0.25)


def empty_cache(x):
    # transformers' DynamicLayer starts as torch.tensor([]) and grows by cat (eager skips the
    # legacy 1-d empty operand).
    keys = torch.tensor([], dtype=x.dtype, device=x.device)
    return torch.cat([keys, x], dim=-2) * 2


def item_of_constant(x):
    return x * torch.tensor(3).item() + torch.tensor([0.5]).item()


def write_into_constant(x):
    # A fresh constant written in place: the graph's copy is written, never the constant it
    # keeps, so a second call gives the same result.
    c = torch.tensor([1.0, 2.0, 3.0])
    c.add_(x[0])
    return x * c


def scalar_tensors(x):
    return x * torch.scalar_tensor(2.5) + torch.scalar_tensor(1, dtype=torch.int64)


def _graph_of(fn):
    """fn traced by make_fx without a table: the graph holds lift_fresh_copy(_tensor_constant0),
    as a program retraced from such a graph (or an exported one) does."""
    def build(x):
        return make_fx(fn)(x)
    return build


# name -> the program, given the example input (a retraced graph is built from it)
KINDS = {
    "tensor": lambda x: tensor_constant,
    "empty_cache": lambda x: empty_cache,
    "item": lambda x: item_of_constant,
    "inplace": lambda x: write_into_constant,
    "lift_fresh_copy": _graph_of(tensor_constant),
    "scalar_tensor": lambda x: scalar_tensors,
}


class _Module(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _input():
    return torch.randn(2, 3)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("mode", ["real", "fake", "symbolic"])
def test_make_fx(kind, mode):
    x = _input()
    fn = KINDS[kind](x)
    gm = make_fx(fn, decomposition_table=TABLE, tracing_mode=mode)(x)
    check_prim_only(gm)
    for _ in range(2):   # a second call sees the constants unchanged
        torch.testing.assert_close(gm(x), fn(x), rtol=0, atol=0)


@pytest.mark.parametrize("kind", KINDS)
def test_trace(kind):
    x = _input()
    fn = KINDS[kind](x)
    gm = trace(fn, x)
    for _ in range(2):
        torch.testing.assert_close(gm(x), fn(x), rtol=0, atol=0)


@pytest.mark.parametrize("kind", KINDS)
def test_export(kind):
    x = _input()
    fn = KINDS[kind](x)
    ep = torch.export.export(_Module(fn), (x,)).run_decompositions(TABLE)
    check_prim_only(ep.graph_module)
    for _ in range(2):
        torch.testing.assert_close(ep.module()(x), fn(x), rtol=0, atol=0)


@pytest.mark.parametrize("kind", KINDS)
def test_aot_autograd(kind):
    x = _input()
    fn = KINDS[kind](x)
    graphs = {}

    def recorder(kind):
        def compiler(gm, example_inputs):
            graphs[kind] = gm
            return make_boxed_func(gm.forward)
        return compiler

    compiled = aot_function(fn, recorder("forward"), recorder("backward"), decompositions=TABLE)
    expected_x, actual_x = x.clone().requires_grad_(), x.clone().requires_grad_()
    expected = fn(expected_x)
    expected.sum().backward()
    for _ in range(2):
        actual_x.grad = None
        actual = compiled(actual_x)
        actual.sum().backward()
        torch.testing.assert_close(actual, expected, rtol=0, atol=0)
        torch.testing.assert_close(actual_x.grad, expected_x.grad, rtol=0, atol=0)
    assert set(graphs) == {"forward", "backward"}
    for gm in graphs.values():
        check_prim_only(gm)
