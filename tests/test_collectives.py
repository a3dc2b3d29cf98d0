"""The collective prims on one process: meta rules and their numbered constraints under fake tensors,
the decompositions of torch's functional collectives traced to prim-only graphs, the per-rank oracle
against hand-computed cases, the derivative formulas against finite differences of the oracle, the
passes that must keep every collective (dead code, common subexpressions, order), and the reference
backend and the executor on a gloo world of one rank (``world_group``, started once per process).
Runs on several ranks are tests/ of the process pool (the multi-process suite)."""
from __future__ import annotations

import re

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.proxy_tensor import make_fx

from primkit import decompositions, graph, opinfo, prims
from primkit.graph import canonicalize
from primkit.runtime import executor
from primkit.opinfo.prims.collective import oracle, output_splits, reduce_ranks, world_group
from primkit.prims.errors import PrimConstraintError

P = torch.ops.primkit
C = torch.ops._c10d_functional
COLLECTIVE = [p for p in prims.catalog() if p.family == "collective"]
ENTRIES = {e.prim.name: e for e in opinfo.op_db if e.is_prim and e.prim.family == "collective"}
# torch 2.11's functional collectives take a group by name only (2.13's schemas say `Any group_name`), and its
# shard_dim_alltoall takes a contiguous input only: those programs are not valid there, in eager either.
OLD_FUNCTIONAL = "str group_name" in str(C.all_reduce.default._schema)


@pytest.fixture(scope="module")
def group():
    return world_group()


def _collectives(gm):
    return [n.target._opname for n in gm.graph.nodes
            if n.op == "call_function" and prims.is_prim(n.target) and "collective" in prims.get(n.target._opname).tags]


# --- meta rules and constraints ------------------------------------------------------------------

@pytest.mark.parametrize("prim", COLLECTIVE, ids=lambda p: p.name)
def test_every_constraint_raises_under_fake_tensors(prim, group):
    """Each error input raises its constraint from the fake kernel, as from the real one."""
    cited = set()
    for err in ENTRIES[prim.name].errors("cpu"):
        s = err.sample
        with FakeTensorMode() as mode:
            a = mode.from_tensor(s.input)
            with pytest.raises(err.error_type, match=err.match):
                prim.op(a, *s.args, **s.kwargs)
        cited.add(re.match(rf"{prim.name}: (C\d+):", err.match).group(1))
    assert cited == {c.id for c in prim.constraints}


@pytest.mark.parametrize("op, dtype, ok", [
    ("sum", torch.bool, True), ("sum", torch.complex64, True), ("avg", torch.int64, False), ("avg", torch.bfloat16, True),
    ("product", torch.complex64, False), ("max", torch.complex64, False), ("min", torch.bool, True),
    ("band", torch.float32, False), ("bxor", torch.bool, True), ("bor", torch.uint8, True), ("sum", torch.int16, False)])
def test_reduce_op_per_dtype(op, dtype, ok):
    with FakeTensorMode():
        a = torch.empty(4, dtype=dtype)
        if ok:
            assert P.all_reduce(a, op, "any group").dtype == dtype
        else:
            with pytest.raises(PrimConstraintError, match=r"all_reduce: C[23]:"):
                P.all_reduce(a, op, "any group")


def test_shapes_without_a_registered_group():
    """Meta rules need no process group: an unknown group name traces (its size is an argument)."""
    with FakeTensorMode():
        a = torch.empty(6, 5).t()
        assert P.all_gather(a, 3, "elsewhere").shape == (15, 6)
        assert P.reduce_scatter(a, "sum", 5, "elsewhere").shape == (1, 6)
        assert P.all_to_all(a, [2, 0, 7], [1, 1, 3], "elsewhere").shape == (9, 6)
        out = P.wait(P.broadcast(a, 2, 3, "elsewhere"))
        assert out.shape == (5, 6) and out.stride() == (6, 1)


def test_all_to_all_with_data_dependent_output_splits():
    """Output splits read from a tensor (.tolist()) are unbacked SymInts; the result's dim 0 is their sum."""
    def f(a, splits):
        sizes = splits.tolist()
        for s in sizes:
            torch._check(s >= 0)
        return P.wait(P.all_to_all(a, sizes, [2, 2], "elsewhere"))
    gm = make_fx(f, tracing_mode="symbolic")(torch.randn(4, 3), torch.tensor([1, 5]))
    out = [n for n in gm.graph.nodes if n.op == "output"][0].args[0]
    size0 = out.meta["val"].shape[0]
    assert isinstance(size0, torch.SymInt) and not size0.node.has_hint(), size0


# --- decompositions --------------------------------------------------------------------------------

def _programs(g):
    x, y = torch.randn(4, 3), torch.randn(2, 3)
    A = torch.ops._c10d_functional_autograd
    return {
        "all_reduce": (lambda x: C.wait_tensor(C.all_reduce(x, "sum", g)), (x,)),
        "all_reduce_": (lambda x: C.wait_tensor(C.all_reduce_(x, "max", g)), (x,)),
        "all_reduce_coalesced": (lambda x, y: [C.wait_tensor(t) for t in C.all_reduce_coalesced([x, y], "avg", g)], (x, y)),
        "all_reduce_coalesced_": (lambda x, y: [C.wait_tensor(t) for t in C.all_reduce_coalesced_([x, y], "sum", g)],
                                  (x, y)),
        "all_gather_into_tensor": (lambda x: C.wait_tensor(C.all_gather_into_tensor(x, 1, g)), (x,)),
        "all_gather_into_tensor_out": (lambda x, y: C.wait_tensor(C.all_gather_into_tensor_out(x, 1, g, out=y[:1].expand(4, 3).clone())), (x, y)),
        "all_gather_into_tensor_coalesced": (lambda x, y: [C.wait_tensor(t) for t in C.all_gather_into_tensor_coalesced([x, y], 1, g)], (x, y)),
        "reduce_scatter_tensor": (lambda x: C.wait_tensor(C.reduce_scatter_tensor(x, "product", 1, g)), (x,)),
        "reduce_scatter_tensor_out": (lambda x: C.wait_tensor(C.reduce_scatter_tensor_out(x, "sum", 1, g, out=torch.empty(4, 3))), (x,)),
        "reduce_scatter_tensor_coalesced": (lambda x, y: [C.wait_tensor(t) for t in C.reduce_scatter_tensor_coalesced([x, y], "min", 1, g)], (x, y)),
        "all_to_all_single": (lambda x: C.wait_tensor(C.all_to_all_single(x, [4], [4], g)), (x,)),
        "broadcast": (lambda x: C.wait_tensor(C.broadcast(x, 0, g)), (x,)),
        "broadcast_": (lambda x: C.wait_tensor(C.broadcast_(x, 0, g)), (x,)),
        "autograd.all_gather_into_tensor": (lambda x: C.wait_tensor(A.all_gather_into_tensor(x, 1, g)), (x,)),
        "autograd.reduce_scatter_tensor": (lambda x: C.wait_tensor(A.reduce_scatter_tensor(x, "sum", 1, g)), (x,)),
        "autograd.all_to_all_single": (lambda x: C.wait_tensor(A.all_to_all_single(x, [4], [4], g)), (x,)),
        "shard_dim_alltoall": (lambda x: torch.ops._dtensor.shard_dim_alltoall(x, 0, 1, g), (x,)),
        "shard_dim_alltoall same dim": (lambda x: torch.ops._dtensor.shard_dim_alltoall(x, 1, 1, g), (x,)),
        "process group argument": (lambda x: C.wait_tensor(C.all_reduce(x, "sum", torch.distributed.group.WORLD)), (x,)),
        "_wrap_tensor_autograd": (lambda x: C._wrap_tensor_autograd(C.all_reduce(x, "sum", g)) * 2, (x,)),
    }


PROGRAMS = [pytest.param(name, marks=pytest.mark.xfail(
                 OLD_FUNCTIONAL, strict=True, raises=RuntimeError,
                 reason="this torch's _c10d_functional ops take a group name, not a ProcessGroup (eager refuses)"))
            if name == "process group argument" else name for name in _programs("0")]


@pytest.mark.parametrize("name", PROGRAMS)
def test_decomposition_is_prim_only_and_runs_as_eager(name, group):
    fn, args = _programs(group)[name]
    gm = make_fx(fn, decomposition_table=decompositions.get_decompositions(), tracing_mode="fake")(*args)
    assert graph.non_prim_ops(gm) == []
    assert _collectives(gm), gm.code
    for got, want in zip(torch.utils._pytree.tree_leaves(gm(*[a.clone() for a in args])),
                         torch.utils._pytree.tree_leaves(fn(*[a.clone() for a in args])), strict=True):
        torch.testing.assert_close(got, want)
        assert got.stride() == want.stride()


def test_every_functional_collective_has_a_decomposition():
    """Every _c10d_functional overload decomposes, except the point-to-point ops (listed, with the reason)."""
    from primkit.decompositions.collective.functional import NOT_DECOMPOSED
    table = decompositions.get_decompositions()
    names = {n for n in torch._C._dispatch_get_all_op_names() if n.startswith(("_c10d_functional", "_dtensor::shard"))}
    missing = {n for n in names if torch.ops._c10d_functional is not None
               and getattr(getattr(torch.ops, n.split("::")[0]), n.split("::")[1].split(".")[0]).default not in table}
    assert missing == set(NOT_DECOMPOSED) & names   # torch 2.11 has no point-to-point functional ops


# --- the oracle ------------------------------------------------------------------------------------

def test_oracle_by_hand():
    x = [torch.tensor([1.0, -2.0, 4.0, 0.5]), torch.tensor([3.0, 5.0, -4.0, 0.5]), torch.tensor([2.0, 0.0, 1.0, 2.0])]
    assert oracle("all_reduce", x, "sum")[2].tolist() == [6.0, 3.0, 1.0, 3.0]
    torch.testing.assert_close(oracle("all_reduce", x, "avg")[0], torch.tensor([2.0, 1.0, 1 / 3, 1.0]))
    assert oracle("all_reduce", x, "max")[1].tolist() == [3.0, 5.0, 4.0, 2.0]
    assert oracle("all_reduce", x, "product")[0].tolist() == [6.0, -0.0, -16.0, 0.5]
    assert oracle("all_gather", x[:2])[1].tolist() == [1.0, -2.0, 4.0, 0.5, 3.0, 5.0, -4.0, 0.5]
    assert [t.tolist() for t in oracle("reduce_scatter", x[:2], "min")] == [[1.0, -2.0], [-4.0, 0.5]]
    assert [t.tolist() for t in oracle("broadcast", x, 1)] == [[3.0, 5.0, -4.0, 0.5]] * 3
    assert [t.tolist() for t in oracle("reduce", x[:2], "sum", 1)] == [[0.0] * 4, [4.0, 3.0, 0.0, 1.0]]
    ints = [torch.tensor([6, 3], dtype=torch.uint8), torch.tensor([5, 250], dtype=torch.uint8)]
    assert oracle("all_reduce", ints, "band")[0].tolist() == [4, 2]
    assert oracle("all_reduce", ints, "bxor")[0].tolist() == [3, 249]
    assert oracle("all_reduce", ints, "sum")[0].tolist() == [11, 253 % 256]
    bools = [torch.tensor([True, False, True]), torch.tensor([False, False, True])]
    assert oracle("all_reduce", bools, "sum")[0].tolist() == [True, False, True]
    assert oracle("all_reduce", bools, "product")[0].tolist() == [False, False, True]
    # all_to_all: rank 0 sends rows [0] to itself and [1, 2] to rank 1; rank 1 sends [] and [0, 1]
    a2a = oracle("all_to_all", [torch.tensor([10, 11, 12]), torch.tensor([20, 21])], [[1, 2], [0, 2]])
    assert [t.tolist() for t in a2a] == [[10], [11, 12, 20, 21]]
    assert output_splits([[1, 2], [0, 2]], 1) == [2, 2]


# --- derivative formulas against the oracle --------------------------------------------------------

def _numeric_grad(f, xs, gs, eps=1e-6):
    """d/dx_r[i] of sum_s <g_s, f(xs)_s>, by central differences (float64)."""
    grads = []
    for r, x in enumerate(xs):
        g = torch.zeros_like(x)
        for i in range(x.numel()):
            def loss(delta):
                moved = [y.clone() for y in xs]
                moved[r].view(-1)[i] += delta
                return sum((gs_ * out).sum() for gs_, out in zip(gs, f(moved), strict=True))
            g.view(-1)[i] = (loss(eps) - loss(-eps)) / (2 * eps)
        grads.append(g)
    return grads


def _backward(name, xs, gs, *args):
    """The catalog's derivative of the collective, written with the oracle in place of each backward
    collective: what derivative_helpers.collective computes on each rank."""
    n = len(xs)
    if name == "all_reduce":
        (op,) = args
        y = oracle("all_reduce", xs, op)
        g_sum = oracle("all_reduce", gs, "avg" if op == "avg" else "sum")
        return [_per_op(op, g_sum[r], xs, r, y[r]) for r in range(n)]
    if name == "all_gather":
        return oracle("reduce_scatter", gs, "sum")
    if name == "reduce_scatter":
        (op,) = args
        g_all = oracle("all_gather", gs)
        y_all = oracle("all_gather", oracle("reduce_scatter", xs, op))
        return [_per_op(op, g_all[r], xs, r, y_all[r], n) for r in range(n)]
    if name == "all_to_all":
        (input_splits,) = args
        return oracle("all_to_all", gs, [output_splits(input_splits, r) for r in range(n)])
    if name == "broadcast":
        (src,) = args
        return oracle("reduce", gs, "sum", src)
    if name == "reduce":
        op, dst = args
        g_dst = oracle("broadcast", gs, dst)
        y = oracle("broadcast", oracle("reduce", xs, op, dst), dst)
        return [_per_op(op, g_dst[r], xs, r, y[r], n) for r in range(n)]
    raise KeyError(name)


def _per_op(op, g, xs, r, y, n=None):
    if op in ("sum",) or op == "avg" and n is None:
        return g
    if op == "avg":
        return g / n
    if op in ("min", "max"):
        holds = [(x == y).to(x.dtype) for x in xs]
        return g * holds[r] / reduce_ranks("sum", holds)
    others = [x for s, x in enumerate(xs) if s != r]
    return g * reduce_ranks("product", others)       # product: the other ranks' elements


CASES = [("all_reduce", ("sum",)), ("all_reduce", ("avg",)), ("all_reduce", ("max",)), ("all_reduce", ("min",)),
         ("all_reduce", ("product",)), ("all_gather", ()), ("reduce_scatter", ("sum",)), ("reduce_scatter", ("avg",)),
         ("reduce_scatter", ("max",)), ("reduce_scatter", ("product",)), ("all_to_all", ([[1, 2, 0], [0, 1, 1], [2, 0, 2]],)),
         ("broadcast", (1,)), ("reduce", ("sum", 2)), ("reduce", ("max", 0)), ("reduce", ("product", 1))]


@pytest.mark.parametrize("name, args", CASES, ids=lambda c: str(c))
def test_derivative_matches_finite_differences_of_the_oracle(name, args):
    torch.manual_seed(0)
    n = 3
    xs = [torch.randn(6, 2, dtype=torch.float64) for _ in range(n)] if name != "all_to_all" else \
        [torch.randn(sum(s), 2, dtype=torch.float64) for s in args[0]]
    outs = oracle(name, xs, *args)
    gs = [torch.randn_like(o) for o in outs]
    numeric = _numeric_grad(lambda ys: oracle(name, ys, *args), xs, gs)
    for r, (got, want) in enumerate(zip(_backward(name, xs, gs, *args), numeric, strict=True)):
        torch.testing.assert_close(got, want, atol=1e-6, rtol=1e-6, msg=f"rank {r}")


def test_max_gradient_splits_ties_evenly_as_amax():
    """Rank r's gradient of all_reduce(max) is amax's over a stack of the ranks' tensors, for the summed
    upstream gradient: a tie shares it evenly."""
    xs = [torch.tensor([1.0, 2.0], dtype=torch.float64), torch.tensor([1.0, 0.0], dtype=torch.float64)]
    gs = [torch.tensor([1.0, 1.0], dtype=torch.float64), torch.tensor([3.0, 1.0], dtype=torch.float64)]
    got = _backward("all_reduce", xs, gs, "max")
    stacked = torch.stack(xs).requires_grad_()
    torch.amax(stacked, 0).backward(gs[0] + gs[1])
    assert [g.tolist() for g in got] == stacked.grad.tolist() == [[2.0, 2.0], [2.0, 0.0]]


@pytest.mark.parametrize("name, args", [("all_reduce", ("sum",)), ("all_reduce", ("max",)), ("all_reduce", ("product",)),
                                        ("all_reduce", ("avg",)), ("all_gather", (1,)), ("reduce_scatter", ("min", 1)),
                                        ("all_to_all", ([4], [4])), ("broadcast", (0, 1)), ("reduce", ("product", 0, 1))])
def test_backward_is_made_of_waited_collectives(name, args, group):
    """The formulas run on a rank: traced through AOTAutograd-style make_fx of the backward, each
    collective's result passes through wait, and on one rank the gradient is the upstream gradient."""
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)

    def f(x, g):
        y = P.wait(getattr(P, name)(x, *args, group))
        return torch.autograd.grad(y, x, g)[0]
    g = torch.randn(4, 3, dtype=torch.float64)
    torch.testing.assert_close(f(x, g), g)
    gm = make_fx(f)(x, g)
    collectives = [n for n in gm.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)
                   and "collective" in prims.get(n.target._opname).tags and n.target._opname != "wait"]
    assert len(collectives) >= 2, gm.code
    for node in collectives:   # read only through wait (autograd saves a forward result with detach)
        readers, stack = [], list(node.users)
        while stack:
            u = stack.pop()
            stack += list(u.users) if u.target._opname == "detach" else []
            readers += [] if u.target._opname == "detach" else [u]
        assert readers and all(r.target._opname == "wait" for r in readers), (node, gm.code)


# --- passes keep every collective ------------------------------------------------------------------

def _two_identical(x):
    return C.wait_tensor(C.all_reduce(x, "sum", "0")) + C.wait_tensor(C.all_reduce(x, "sum", "0"))


def test_common_subexpressions_keep_two_identical_collectives(group):
    gm = decompositions.trace(_two_identical, torch.randn(3))      # trace canonicalizes (CSE included)
    assert _collectives(gm).count("all_reduce") == 2, gm.code
    canon = canonicalize(gm)
    assert _collectives(canon).count("all_reduce") == 2, canon.code


def test_dead_code_keeps_an_unused_collective(group):
    def f(x):
        C.all_reduce(x, "sum", "0")         # its value is never read: the communication still happens
        return x * 2
    gm = decompositions.trace(f, torch.randn(3))
    assert "all_reduce" in _collectives(gm), gm.code
    req = graph.requirements(f, torch.randn(3))
    assert "all_reduce" in req["prims"]
    made = make_fx(f, decomposition_table=decompositions.get_decompositions())(torch.randn(3))
    made.graph.eliminate_dead_code()
    assert "all_reduce" in _collectives(made)


@pytest.mark.parametrize("first", ["all_reduce", "all_gather"])
def test_canonical_order_keeps_the_order_of_collectives(first, group):
    """Two collectives on independent inputs, in either order: canonical form keeps the program's order
    (sorting by structural key alone would put one of the two programs in the other's order)."""
    def f(x, y):
        calls = {"all_reduce": lambda: C.all_reduce(x, "sum", "0"), "all_gather": lambda: C.all_gather_into_tensor(y, 1, "0")}
        second = "all_gather" if first == "all_reduce" else "all_reduce"
        a = calls[first]()
        b = calls[second]()
        return C.wait_tensor(a), C.wait_tensor(b)
    gm = decompositions.trace(f, torch.randn(3), torch.randn(2))
    order = [c for c in _collectives(gm) if c != "wait"]
    assert order == [first, "all_gather" if first == "all_reduce" else "all_reduce"], gm.code


def test_graph_hash_tells_collective_programs_apart(group):
    one = decompositions.trace(lambda x: C.wait_tensor(C.all_reduce(x, "sum", "0")) * 2, torch.randn(3))
    two = decompositions.trace(_two_identical, torch.randn(3))
    assert graph.graph_hash(one) != graph.graph_hash(two)


def test_executor_keeps_collectives_of_constants_and_starts_them_async(group):
    """A collective of a constant is not computed once at compile time (it is a communication per call);
    the executor runs torch's functional collective, waited at the wait node."""
    def f(x):
        return x + C.wait_tensor(C.all_reduce(torch.ones(3), "sum", "0"))
    gm = decompositions.trace(f, torch.randn(3))
    run = executor.compile(gm)
    targets = [n.target for n in run.graph.nodes if n.op == "call_function"]
    from primkit.prims.reference.collective import start_all_reduce, wait_tensor
    assert start_all_reduce in targets and wait_tensor in targets, run.code
    x = torch.randn(3)
    torch.testing.assert_close(run(x), x + 1)


# --- reference backend and executor on one rank ----------------------------------------------------

@pytest.mark.xfail(OLD_FUNCTIONAL, strict=True, raises=RuntimeError,
                   reason="this torch's shard_dim_alltoall takes a contiguous input only (eager refuses y)")
def test_reference_and_executor_agree_with_eager_on_one_rank(group):
    def f(x, y):
        a = C.all_reduce(x, "avg", "0")
        b = C.all_gather_into_tensor(y, 1, "0")
        z = torch.sin(x)                     # compute between start and wait
        c = C.reduce_scatter_tensor(C.wait_tensor(b), "max", 1, "0")
        return C.wait_tensor(a) + z, C.wait_tensor(c), torch.ops._dtensor.shard_dim_alltoall(y, 0, 1, "0")
    x, y = torch.randn(4, 3), torch.randn(2, 6).t()
    gm = decompositions.trace(f, x, y)
    want = f(x, y)
    for got in (gm(x, y), executor.compile(gm)(x, y)):
        for g, w in zip(got, want, strict=True):
            torch.testing.assert_close(g, w)
            assert g.stride() == w.stride()


def test_group_size_must_match_the_registered_group(group):
    with pytest.raises(PrimConstraintError, match="all_gather: C4: group_size is 2, but group '0' has 1 ranks"):
        P.all_gather(torch.randn(3), 2, group)
    with FakeTensorMode():      # a trace on a rank checks it too
        with pytest.raises(PrimConstraintError, match="all_gather: C4:"):
            P.all_gather(torch.empty(3), 2, group)


def test_compiled_training_step_through_prims_equals_eager(group):
    """torch.compile(backend="primkit") of a step with a functional all_reduce: forward and backward
    through the collective prims on the executor, the gradient equal to eager's."""
    import torch.distributed._functional_collectives as funcol

    def step(x, w):
        return (funcol.all_reduce(x @ w, "sum", group).sin() * 2).sum()
    x, w = torch.randn(4, 3), torch.randn(3, 5, requires_grad=True)
    torch.compile(step, backend="primkit")(x, w).backward()
    compiled = w.grad
    w.grad = None
    step(x, w).backward()
    torch.testing.assert_close(compiled, w.grad)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_through_prims_runs_collectives(lazy, group):
    """The eager mode runs a program's functional collectives through the prims; the lazy mode runs each
    collective at once, in program order (tag collective), and the compute around it lazily."""
    from primkit.runtime import through_prims

    def f(x):
        y = C.all_gather_into_tensor(torch.sin(x), 1, group)
        return torch.cos(C.wait_tensor(y)) + C.wait_tensor(C.all_reduce(x, "max", group))
    x = torch.randn(4, 3)
    with torch.no_grad(), through_prims(lazy=lazy) as mode:
        got = f(x)
    torch.testing.assert_close(got, f(x))
    if lazy:
        assert mode.lazy.flushes >= 2     # the compute before the first collective, and after


def test_dynamic_shapes_trace(group):
    """A trace with dynamic shapes: all_gather's dim 0 is group_size times the symbolic size."""
    def f(x):
        return C.wait_tensor(C.all_gather_into_tensor(x, 1, group)) * 2
    gm = decompositions.trace(f, torch.randn(4, 3), dynamic=True)
    for n in (2, 7):
        x = torch.randn(n, 3)
        torch.testing.assert_close(gm(x), f(x))


def test_executor_waits_for_a_result_read_without_wait(group):
    """A graph that reads a collective's result without a wait (the bare prim, as the OpInfo samples
    call it) gets it complete: the executor waits where it is made."""
    def f(x):
        return P.reduce_scatter(x, "sum", 1, group) * 2
    gm = make_fx(f)(torch.randn(4, 3))
    run = executor.compile(gm)
    assert not any(n.target is executor.kernel_of("reduce_scatter") for n in run.graph.nodes), run.code
    x = torch.randn(4, 3)
    torch.testing.assert_close(run(x), x * 2)
