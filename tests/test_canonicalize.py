"""Canonical prim graphs: equivalent spellings hash equally, near misses do not, canonical graphs
still equal eager, and module scopes survive."""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from primkit.decompositions import DecompositionError

from primkit.graph import canonicalize, graph_hash, group_by_module, non_prim_ops, trace
from primkit.runtime import executor
from models import zoo

torch.manual_seed(0)
X, Y, W, B = torch.randn(3, 4), torch.randn(3, 4), torch.randn(4, 4), torch.randn(4)
SQ = torch.randn(4, 4)
C = torch.rand(3, 4) > 0.5


def h(fn, *args):
    return graph_hash(trace(fn, *args))


EQUIVALENT = [
    ("absolute vs abs", lambda x: torch.absolute(x), lambda x: torch.abs(x), (X,)),
    ("add_ vs +", lambda x, y: x.add_(y), lambda x, y: x + y, (X, Y)),
    ("linear vs matmul+bias", lambda x, w, b: F.linear(x, w, b), lambda x, w, b: x @ w.T + b, (X, W, B)),
    ("softmax -1 vs 1 on 2-d", lambda x: x.softmax(dim=-1), lambda x: x.softmax(dim=1), (X,)),
    ("alpha=1 vs default", lambda x, y: torch.add(x, y, alpha=1), lambda x, y: x + y, (X, Y)),
    ("sum keyword vs positional", lambda x: torch.sum(x, dim=1), lambda x: x.sum(1), (X,)),
    ("sum tuple vs int dim", lambda x: torch.sum(x, (1,)), lambda x: x.sum(1), (X,)),
    ("mul 2 vs 2.0", lambda x: x * 2, lambda x: x * 2.0, (X,)),
    ("scalar left vs right", lambda x: 2.0 * x, lambda x: x * 2.0, (X,)),
    ("t vs transpose", lambda x: x.t(), lambda x: x.transpose(0, 1), (X,)),
    ("transpose vs permute", lambda x: x.transpose(1, 0), lambda x: x.permute(1, 0), (X,)),
    ("view -1 vs reshape", lambda x: x.view(-1), lambda x: x.reshape(12), (X,)),
    ("flatten vs view", lambda x: x.flatten(), lambda x: x.view(12), (X,)),
    ("cat of one vs identity", lambda x: torch.cat([x], 0) * 1.5, lambda x: x * 1.5, (X,)),
    ("float() of float vs identity", lambda x: x.float() + 1, lambda x: x + 1, (X,)),
    ("maximum operand order", lambda x, y: torch.maximum(x, y), lambda x, y: torch.maximum(y, x), (X, Y)),
    ("add operand order", lambda x, y: x.add(y), lambda x, y: y.add(x), (X, Y)),
    ("common subexpression", lambda x, y: (x + y) * (x + y), lambda x, y: (lambda z: z * z)(x + y), (X, Y)),
    ("div vs / vs true_divide", lambda x, y: torch.true_divide(x, y), lambda x, y: x / y, (X, Y)),
    ("neg vs -", lambda x: torch.negative(x), lambda x: -x, (X,)),
    ("mean keyword", lambda x: torch.mean(x, dim=1, keepdim=False), lambda x: x.mean(1), (X,)),
    ("method vs function", lambda x: x.exp(), lambda x: torch.exp(x), (X,)),
    ("full slice vs identity", lambda x: x[:, :] + 1, lambda x: x + 1, (X,)),
    ("contiguous of contiguous", lambda x: x.contiguous() + 1, lambda x: x + 1, (X,)),
    ("expand to same shape", lambda x: x.expand(3, 4) + 1, lambda x: x + 1, (X,)),
    ("matmul vs @ vs mm", lambda x, w: torch.matmul(x, w), lambda x, w: torch.mm(x, w), (X, W)),
    ("relu spellings", lambda x: F.relu(x), lambda x: x.relu(), (X,)),
    ("expit vs sigmoid", lambda x: torch.special.expit(x), lambda x: torch.sigmoid(x), (X,)),
    ("to vs type", lambda x: x.to(torch.float64), lambda x: x.type(torch.float64), (X,)),
    ("gt vs >", lambda x, y: torch.gt(x, y), lambda x, y: x > y, (X, Y)),
    ("gelu default", lambda x: F.gelu(x), lambda x: F.gelu(x, approximate="none"), (X,)),
    ("pow vs **", lambda x: torch.pow(x, 2), lambda x: x ** 2, (X,)),
    ("folded constant", lambda x: x * (torch.tensor(1.0) + 1.0), lambda x: x * 2.0, (X,)),
    ("sum() vs all dims", lambda x: x.sum(), lambda x: x.sum((0, 1)), (X,)),
    ("clone().mul_ vs mul", lambda x: x.clone().mul_(3), lambda x: x * 3, (X,)),
    ("identity permute", lambda x: x.permute(0, 1) + 1, lambda x: x + 1, (X,)),
    ("reshape to own shape", lambda x: x.reshape(3, 4) + 1, lambda x: x + 1, (X,)),
    ("dead code", lambda x: (x.exp(), x + 1)[1], lambda x: x + 1, (X,)),
    ("out= vs functional", lambda x, y: torch.add(x, y, out=torch.empty(3, 4)), lambda x, y: x + y, (X, Y)),
    ("relu_ of a clone vs relu", lambda x: x.clone().relu_(), lambda x: x.relu(), (X,)),
]

NEAR_MISS = [
    ("softmax dim", lambda x: x.softmax(0), lambda x: x.softmax(1), (X,)),
    ("constant", lambda x: x + 1, lambda x: x + 2, (X,)),
    ("sum dim", lambda x: x.sum(0), lambda x: x.sum(1), (X,)),
    ("cast dtype", lambda x: x.to(torch.float16), lambda x: x.to(torch.bfloat16), (X,)),
    ("sub order", lambda x, y: x - y, lambda x, y: y - x, (X, Y)),
    ("div order", lambda x, y: x / y, lambda x, y: y / x, (X, Y)),
    ("transpose or not", lambda x: x.t() + 1, lambda x: x + 1, (SQ,)),
    ("gelu approximation", lambda x: F.gelu(x), lambda x: F.gelu(x, approximate="tanh"), (X,)),
    ("power", lambda x: x.pow(2), lambda x: x.pow(3), (X,)),
    ("clamp bound", lambda x: x.clamp(0, 1), lambda x: x.clamp(0, 2), (X,)),
    ("amax dim", lambda x: x.amax(0), lambda x: x.amax(1), (X,)),
    ("gt vs ge", lambda x, y: x > y, lambda x, y: x >= y, (X, Y)),
    ("cat order", lambda x, y: torch.cat([x, y]), lambda x, y: torch.cat([y, x]), (X, Y)),
    ("cat dim", lambda x, y: torch.cat([x, y], 0), lambda x, y: torch.cat([x, y], 1), (X, Y)),
    ("mean vs sum", lambda x: x.mean(1), lambda x: x.sum(1), (X,)),
    ("exp vs expm1", lambda x: x.exp(), lambda x: x.expm1(), (X,)),
    ("matmul transposed", lambda x, w: x @ w, lambda x, w: x @ w.t(), (X, W)),
    ("variance correction", lambda x: x.var(1), lambda x: x.var(1, unbiased=False), (X,)),
    ("where branches", lambda c, x, y: torch.where(c, x, y), lambda c, x, y: torch.where(c, y, x), (C, X, Y)),
    ("view shape", lambda x: x.view(2, 6), lambda x: x.view(6, 2), (X,)),
    ("flip dim", lambda x: x.flip(0), lambda x: x.flip(1), (X,)),
    ("amax vs amin", lambda x: x.amax(0), lambda x: x.amin(0), (X,)),
    ("slice start", lambda x: x[1:], lambda x: x[:-1], (X,)),
    ("layer norm eps", lambda x: F.layer_norm(x, (4,), eps=1e-5), lambda x: F.layer_norm(x, (4,), eps=1e-6), (X,)),
    ("log_softmax vs softmax", lambda x: x.log_softmax(1), lambda x: x.softmax(1), (X,)),
    ("argmax dim", lambda x: x.argmax(0), lambda x: x.argmax(1), (X,)),
    ("abs vs neg", lambda x: x.abs(), lambda x: x.neg(), (X,)),
    ("relu vs sigmoid", lambda x: x.relu(), lambda x: x.sigmoid(), (X,)),
    ("integer constant", lambda x: x.long() * 2, lambda x: x.long() * 3, (X,)),
    ("0-d tensor constant", lambda x: x + torch.tensor(2.0), lambda x: x + torch.tensor(3.0), (X,)),
    ("tensor constant values", lambda x: x * torch.tensor([1.0, 2.0, 3.0, 4.0]),
     lambda x: x * torch.tensor([1.0, 2.0, 3.0, 5.0]), (X,)),
    ("input layout", lambda x: x.exp(), lambda x: x.exp(), (X, X.t().contiguous().t())),
    ("write into another view", lambda x: torch.zeros(3, 4).index_put_((torch.tensor([0]),), x[0]),
     lambda x: torch.zeros(3, 4).index_put_((torch.tensor([1]),), x[0]), (X,)),
]


@pytest.mark.parametrize("name,f,g,args", EQUIVALENT, ids=[p[0] for p in EQUIVALENT])
def test_equivalent_programs_hash_equally(name, f, g, args):
    assert h(f, *[a.clone() for a in args]) == h(g, *[a.clone() for a in args])


@pytest.mark.parametrize("name,f,g,args", NEAR_MISS, ids=[p[0] for p in NEAR_MISS])
def test_near_misses_hash_differently(name, f, g, args):
    f_args, g_args = (args[:1], args[1:]) if name == "input layout" else (args, args)
    assert h(f, *f_args) != h(g, *g_args)


@pytest.mark.parametrize("shapes", [((3, 4), (4, 3)), ((3, 4), (3, 4, 1))])
def test_input_shape_changes_the_hash(shapes):
    f = lambda x: x.exp()  # noqa: E731
    assert h(f, torch.randn(shapes[0])) != h(f, torch.randn(shapes[1]))


def test_input_dtype_changes_the_hash():
    f = lambda x: x * 2  # noqa: E731
    assert h(f, X) != h(f, X.double())


def test_canonicalize_is_idempotent_and_deterministic():
    gm = trace(lambda x, y: (x + y).softmax(-1) * (x + y), X, Y, canonical=False)
    once = canonicalize(gm)
    assert canonicalize(once).code == once.code
    assert canonicalize(gm).code == once.code
    names = [n.name for n in once.graph.nodes]
    assert names[:2] == ["arg0", "arg1"]


WRITES_INTO_VIEWS = [
    ("row of an intermediate", lambda x: (lambda y: (y[0].add_(1), y)[1])(x * 1)),
    ("column of a fresh tensor", lambda x: (lambda y: (y[:, 1].copy_(x[:, 0]), y)[1])(torch.zeros(3, 4))),
    ("setitem on a fresh tensor", lambda x: (lambda y: (y.__setitem__((slice(None), 1), x[:, 0]), y)[1])(
        torch.zeros(3, 4))),
    ("row of an input", lambda x: (x[0].add_(1), x.sum())[1]),
]


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "raw"])
@pytest.mark.parametrize("name,f", WRITES_INTO_VIEWS, ids=[w[0] for w in WRITES_INTO_VIEWS])
def test_writes_into_views_reach_their_base(name, f, canonical):
    # prims own their storage: trace functionalizes a program that writes through a view
    gm = trace(f, X.clone(), canonical=canonical)
    mine, eager = X.clone(), X.clone()
    torch.testing.assert_close(gm(mine), f(eager))
    torch.testing.assert_close(mine, eager)


# In-place view ops (tagged inplace_view) change a tensor's sizes and strides; prims are functional,
# so trace functionalizes a program that applies them, and they become their out-of-place views.
INPLACE_VIEWS = {
    "t_": lambda y: y.t_(), "transpose_": lambda y: y.transpose_(0, 1), "swapdims_": lambda y: y.swapdims_(0, 1),
    "swapaxes_": lambda y: y.swapaxes_(1, 0), "unsqueeze_": lambda y: y.unsqueeze_(1),
    "squeeze_": lambda y: y[None].squeeze_(0), "squeeze_.dims": lambda y: y[None, :, None].squeeze_((0, 2)),
    "as_strided_": lambda y: y.as_strided_((2, 3), (1, 4)),
}


@pytest.mark.parametrize("name", sorted(INPLACE_VIEWS))
def test_inplace_view_ops_on_intermediates(name):
    f = lambda x: INPLACE_VIEWS[name](x * 2) + 1   # noqa: E731
    gm = trace(f, X)
    assert non_prim_ops(gm) == []
    out, want = gm(X), f(X)
    assert out.shape == want.shape and out.stride() == want.stride()
    torch.testing.assert_close(out, want, rtol=0, atol=0)


def test_inplace_view_op_on_an_input_is_refused_by_name():
    with pytest.raises(DecompositionError, match=r"change an input's sizes or strides in place"):
        trace(lambda x: x.t_(), X.clone())


def test_canonical_graph_keeps_input_mutation():
    x = X.clone()
    gm = trace(lambda x, y: x.mul_(2).add_(y), x.clone(), Y)
    out = gm(x, Y)
    torch.testing.assert_close(out, X * 2 + Y)
    torch.testing.assert_close(x, X * 2 + Y)     # the epilogue still writes the input


class _TwinLinears(torch.nn.Module):
    """Two layers whose parameters are equal at trace time (as zero biases or unit norm weights are)."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
        self.b.load_state_dict(self.a.state_dict())

    def forward(self, x):
        return self.a(x) - self.b(x)


def test_equal_parameters_stay_two_values():
    # Module state is read by reference: merging x @ a.weight with x @ b.weight would be wrong on the next call.
    model = _TwinLinears()
    gm = trace(model, X)
    with torch.no_grad():
        model.b.bias.add_(1.0)
    torch.testing.assert_close(gm(X), model(X))


MODELS = zoo()


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_module_scopes_survive_trace(name, model, args):
    gm = trace(model, *args)
    nodes = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert nodes and all("nn_module_stack" in n.meta for n in nodes)
    paths = {g.path for g in group_by_module(gm)}
    submodules = {p for p, _ in model.named_modules()}
    assert paths <= submodules and len(paths - {""}) >= 2, paths


@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_module_scopes_survive_export(name, model, args):
    from primkit.decompositions import get_decompositions
    ep = torch.export.export(model, args).run_decompositions(get_decompositions())
    gm = canonicalize(ep.graph_module)
    nodes = [n for n in gm.graph.nodes if n.op == "call_function"]
    assert all("nn_module_stack" in n.meta for n in nodes)
    assert len({g.path for g in group_by_module(gm)} - {""}) >= 2


def test_group_inputs_and_outputs():
    model = MODELS[0][1]
    gm = trace(model, *MODELS[0][2])
    groups = {g.path: g for g in group_by_module(gm)}
    fc1 = groups["fc1"]
    # fc1 reads the model's input and its own weight and bias (constants in the graph), nothing else.
    assert [n for n in fc1.inputs if n.op == "placeholder"] == [n for n in gm.graph.nodes if n.op == "placeholder"]
    params = [getattr(gm, n.target) for n in fc1.inputs if n.op == "get_attr"]
    assert len(fc1.inputs) == 3 and len(params) == 2, fc1.inputs
    assert any(torch.equal(p, model.fc1.weight) for p in params) and any(torch.equal(p, model.fc1.bias) for p in params)
    assert fc1.outputs and all(any(u not in fc1.nodes for u in n.users) for n in fc1.outputs)
    # Call order: fc1 before fc2 before fc3.
    order = [g.path for g in group_by_module(gm)]
    assert order.index("fc1") < order.index("fc2") < order.index("fc3")


def test_a_trailing_write_into_a_copy_keeps_the_copy():
    # x.clone().index_put_(..., accumulate=True) ends with a write into the clone: not an epilogue (no
    # graph input is written), so the clone stays a copy and the graph never writes into x
    def f(x, i, v):
        return x.clone().index_put_((i,), v, accumulate=True)
    x, i, v = torch.zeros(5), torch.tensor([0, 0, 2]), torch.ones(3)
    gm = trace(f, x, i, v)
    for run in (gm, executor.compile(gm)):
        before = x.clone()
        torch.testing.assert_close(run(x, i, v), f(x, i, v))
        assert torch.equal(x, before)
