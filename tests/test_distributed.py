"""Distributed programs on 2 gloo ranks (CPU): the rank pool itself, then tensor-parallel, DDP and FSDP2
training through primkit, against eager.

Every test runs a module-level function of this file on both ranks through ``gloo_pool`` (see
tests/distributed.py): the ranks import this module by name, and with it the installed primkit. All of
them are one xdist_group, so one worker spawns the ranks, once.
"""
from __future__ import annotations

import collections
import contextlib
import copy
import os
import time

import pytest
import torch
import torch.distributed as dist

import distributed
import primkit
from primkit.runtime import executor

pytestmark = pytest.mark.xdist_group("distributed")


# -- the pool

def _rank_and_sum():
    t = torch.tensor([float(dist.get_rank() + 1)])
    dist.all_reduce(t)
    return dist.get_rank(), dist.get_world_size(), t.item(), os.getpid()


def _rank_1_raises_while_rank_0_waits():
    if dist.get_rank() == 1:
        raise ValueError("rank 1's own error")
    dist.all_reduce(torch.ones(1))   # never joined by rank 1: ends with the group's timeout, or the restart


def _rank_0_hangs_in_a_collective():
    if dist.get_rank() == 0:
        dist.all_reduce(torch.ones(1))
    return "rank 1 returned"


def _both_raise():
    raise KeyError(f"rank {dist.get_rank()}")


def test_pool_runs_on_every_rank(gloo_pool):
    results = gloo_pool.run(_rank_and_sum)
    assert [r[:3] for r in results] == [(0, 2, 3.0), (1, 2, 3.0)]
    assert [r[3] for r in results] == gloo_pool.pids


def test_failing_rank_error_is_reported(gloo_pool):
    start = time.monotonic()
    with pytest.raises(ValueError, match="rank 1's own error") as info:
        gloo_pool.run(_rank_1_raises_while_rank_0_waits)
    assert time.monotonic() - start < distributed.GRACE_S + 10   # rank 0's group timeout is not waited for
    assert "(raised on rank 1)" in info.value.__notes__
    assert isinstance(info.value.__cause__, distributed.RemoteTraceback)
    assert "_rank_1_raises_while_rank_0_waits" in info.value.__cause__.text


def test_hang_is_reported_and_the_pool_recovers(gloo_pool):
    assert distributed.GROUP_TIMEOUT_S < 60 and distributed.RUN_TIMEOUT_S < 60   # a hang fails its test in < 60 s
    gloo_pool.run(_rank_and_sum)
    old_pids, starts = gloo_pool.pids, gloo_pool.starts
    start = time.monotonic()
    with pytest.raises(distributed.RankHung, match="rank 0 gave no answer within 3 s"):
        gloo_pool.run(_rank_0_hangs_in_a_collective, timeout=3)
    assert time.monotonic() - start < 15
    assert not gloo_pool.pids   # the hung ranks were stopped ...
    results = gloo_pool.run(_rank_and_sum)   # ... and the next run spawns fresh ones
    assert [r[2] for r in results] == [3.0, 3.0] and gloo_pool.starts == starts + 1
    for pid in old_pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


_ORPHAN_PARENT = """
import os, sys, time
sys.path.insert(0, {tests!r})
import distributed
if __name__ == "__main__":
    print(*distributed.Pool().run(os.getpid), flush=True)
    time.sleep(600)
"""


def _alive(pid):
    """Whether process pid runs (a zombie, ended but not reaped by its new parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads /proc (Linux)")
def test_ranks_end_with_their_parent(tmp_path):
    """A parent killed outright (no finalizer runs) takes its ranks with it."""
    import signal
    import subprocess
    import sys
    script = tmp_path / "parent.py"
    script.write_text(_ORPHAN_PARENT.format(tests=os.path.dirname(os.path.abspath(__file__))))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def _decomposition_error():
    from primkit.decompositions import DecompositionError
    raise DecompositionError(["aten::frobnicate"], f"rank {dist.get_rank()}: ")


def test_an_error_that_does_not_pickle_comes_back(gloo_pool):
    """DecompositionError's constructor takes the missing ops, not its message: it comes back as itself."""
    from primkit.decompositions import DecompositionError
    with pytest.raises(DecompositionError, match="rank 0: 1 op.s. have no decomposition") as info:
        gloo_pool.run(_decomposition_error)
    assert info.value.missing == ["aten::frobnicate"]


def test_ordinary_errors_keep_the_pool(gloo_pool):
    gloo_pool.run(_rank_and_sum)
    starts = gloo_pool.starts
    with pytest.raises(KeyError, match="rank 0"):   # every rank raised its own error: rank 0's is reported
        gloo_pool.run(_both_raise)
    assert gloo_pool.run(_rank_and_sum)[0][2] == 3.0 and gloo_pool.starts == starts


# -- every collective x reduce op x dtype, on the reference backend and the executor, against the oracle

# the dtypes gloo communicates (int16, uint16, uint32 and float8 it refuses; the prims' C3 says so)
DTYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8", "uint8", "int32", "int64",
          "bool")
WORLD = 2
# all_to_all with unequal splits: rank r sends IN_SPLITS[r][s] rows to rank s
IN_SPLITS = ([1, 3], [2, 2])


def _out_splits(rank):
    return [IN_SPLITS[s][rank] for s in range(WORLD)]


def _operand(rank, dtype, shape=(4, 6), salt=0):
    """Rank ``rank``'s operand: the parent makes every rank's again to compute the oracle."""
    g = torch.Generator().manual_seed(100 * salt + rank)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(shape, generator=g, dtype=dtype)
    return torch.randint(0 if dtype == torch.uint8 else -6, 7, shape, generator=g, dtype=dtype)


def _reduce_ops(dtype):
    """The reduce ops the collective prims take for dtype: their YAML's reduce_ops table."""
    from primkit import prims
    from primkit.prims import dtypes as dt
    return [op for op, classes in prims.get("all_reduce").params["reduce_ops"].items() if dtype in dt.resolve(classes)]


def _matrix_cases(dtype):
    """(label, prim, oracle arguments, program) for every collective x reduce op on one operand: each program
    calls torch's functional collective (as DTensor and DDP graphs hold them), or for reduce, which torch has
    none of, the prim, and waits."""
    c, P = torch.ops._c10d_functional, torch.ops.primkit
    cases = []
    for op in _reduce_ops(dtype):
        cases.append((f"all_reduce {op}", "all_reduce", (op,), lambda x, r, g, op=op: c.all_reduce(x, op, g)))
        cases.append((f"reduce_scatter {op}", "reduce_scatter", (op,),
                      lambda x, r, g, op=op: c.reduce_scatter_tensor(x, op, WORLD, g)))
        cases.append((f"reduce {op} to 1", "reduce", (op, 1), lambda x, r, g, op=op: P.reduce(x, op, 1, WORLD, g)))
    cases.append(("all_gather", "all_gather", (), lambda x, r, g: c.all_gather_into_tensor(x, WORLD, g)))
    for src in range(WORLD):
        cases.append((f"broadcast from {src}", "broadcast", (src,), lambda x, r, g, src=src: c.broadcast(x, src, g)))
    cases.append(("all_to_all, unequal splits", "all_to_all", (IN_SPLITS,),
                  lambda x, r, g: c.all_to_all_single(x, _out_splits(r), IN_SPLITS[r], g)))
    return [(label, prim, args, lambda x, r, g, call=call: c.wait_tensor(call(x, r, g)))
            for label, prim, args, call in cases]


def _form_cases():
    """The in-place, out= and coalesced forms, gathers and scatters along dim 1, and DTensor's
    shard_dim_alltoall, on float32: (label, oracle per rank from the ranks' operands, program)."""
    import torch.distributed._functional_collectives as fcol
    from primkit.opinfo.prims.collective import oracle
    c, world = torch.ops._c10d_functional, dist.group.WORLD

    def along(dim, name, *args):   # the oracle of a gather / scatter along dim: along dim 0 of x moved there
        return lambda xs: [y.movedim(0, dim) for y in oracle(name, [x.movedim(dim, 0) for x in xs], *args)]

    def in_place(x, r, g):
        y = x.clone()
        c.wait_tensor(c.all_reduce_(y, "max", g))
        return y

    def coalesced_in_place(x, r, g):
        ys = [x.clone(), 2 * x[1:]]
        for y in c.all_reduce_coalesced_(ys, "sum", g):
            c.wait_tensor(y)
        return ys

    def gather_out(x, r, g):
        out = torch.empty(WORLD * 4, 6)
        c.wait_tensor(c.all_gather_into_tensor_out(x, WORLD, g, out=out))
        return out

    def scatter_out(x, r, g):
        out = torch.empty(2, 6)
        c.wait_tensor(c.reduce_scatter_tensor_out(x, "avg", WORLD, g, out=out))
        return out

    def broadcast_in_place(src):
        def program(x, r, g):
            y = x.clone()
            c.wait_tensor(c.broadcast_(y, src, g))
            return y
        return program

    def pairs(name, *args):   # a coalesced collective of [x, 2 * x[1:]]: each tensor's own oracle
        return lambda xs: [list(t) for t in zip(oracle(name, xs, *args), oracle(name, [2 * x[1:] for x in xs], *args),
                                                strict=True)]

    return [
        ("all_reduce_ (max)", lambda xs: oracle("all_reduce", xs, "max"), in_place),
        ("all_reduce_coalesced (product)", pairs("all_reduce", "product"),
         lambda x, r, g: [c.wait_tensor(y) for y in c.all_reduce_coalesced([x, 2 * x[1:]], "product", g)]),
        ("all_reduce_coalesced_ (sum)", pairs("all_reduce", "sum"), coalesced_in_place),
        ("all_gather_into_tensor_out", lambda xs: oracle("all_gather", xs), gather_out),
        ("all_gather_into_tensor_coalesced", pairs("all_gather"),
         lambda x, r, g: [c.wait_tensor(y) for y in c.all_gather_into_tensor_coalesced([x, 2 * x[1:]], WORLD, g)]),
        ("reduce_scatter_tensor_out (avg)", lambda xs: oracle("reduce_scatter", xs, "avg"), scatter_out),
        ("reduce_scatter_tensor_coalesced (min)", lambda xs: [list(t) for t in zip(
            oracle("reduce_scatter", xs, "min"), oracle("reduce_scatter", [x[2:] for x in xs], "min"), strict=True)],
         lambda x, r, g: [c.wait_tensor(y) for y in c.reduce_scatter_tensor_coalesced([x, x[2:]], "min", WORLD, g)]),
        ("all_gather_tensor along dim 1", along(1, "all_gather"), lambda x, r, g: fcol.all_gather_tensor(x, 1, world)),
        ("reduce_scatter_tensor along dim 1", along(1, "reduce_scatter", "sum"),
         lambda x, r, g: fcol.reduce_scatter_tensor(x, "sum", 1, world)),
        ("shard_dim_alltoall (gather dim 0, shard dim 1)",
         lambda xs: list(torch.cat(xs).chunk(WORLD, 1)),
         lambda x, r, g: c.wait_tensor(torch.ops._dtensor.shard_dim_alltoall(x, 0, 1, g))),
    ] + [(f"broadcast_ from {src}", lambda xs, src=src: oracle("broadcast", xs, src), broadcast_in_place(src))
         for src in range(WORLD)]


def _run_cases(programs, x):
    """The programs, one prim graph (primkit.trace), on the reference backend (the graph's prims) and on the
    executor: each path's results, one per program."""
    rank, group = dist.get_rank(), dist.group.WORLD.group_name

    def program(x):
        return [p(x, rank, group) for p in programs]
    gm = primkit.trace(program, x)
    return {"reference": gm(x), "executor": executor.compile(gm)(x)}


def _collective_matrix(dtype_name):
    dtype = getattr(torch, dtype_name)
    return _run_cases([p for *_, p in _matrix_cases(dtype)], _operand(dist.get_rank(), dtype))


def _collective_forms():
    return _run_cases([p for *_, p in _form_cases()], _operand(dist.get_rank(), torch.float32))


def _assert_ranks_match(results, expected, labels):
    for rank, result in enumerate(results):
        for path, values in result.items():
            for label, actual, wanted in zip(labels, values, expected, strict=True):
                torch.testing.assert_close(actual, wanted[rank], equal_nan=True,
                                           msg=lambda m: f"{label}, rank {rank}, {path}: {m}")


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_collectives(gloo_pool, dtype_name):
    """Every collective x reduce op on 2 ranks, from torch's functional collectives through prims, on the
    reference backend and the executor, equal to the oracle's per-rank results."""
    from primkit.opinfo.prims.collective import oracle
    dtype = getattr(torch, dtype_name)
    cases = _matrix_cases(dtype)
    results = gloo_pool.run(_collective_matrix, dtype_name)
    inputs = [_operand(rank, dtype) for rank in range(WORLD)]
    _assert_ranks_match(results, [oracle(prim, inputs, *args) for _, prim, args, _ in cases],
                        [label for label, *_ in cases])


def test_collective_forms(gloo_pool):
    """In-place, out= and coalesced forms, other dims, shard_dim_alltoall: through prims, equal to the oracle."""
    cases = _form_cases()
    results = gloo_pool.run(_collective_forms)
    inputs = [_operand(rank, torch.float32) for rank in range(WORLD)]
    _assert_ranks_match(results, [expected(inputs) for _, expected, _ in cases], [label for label, *_ in cases])


def _constraint_errors():
    """What gloo refuses (an all_gather of a 0-d tensor, a reduce_scatter of 3 rows over 2 ranks) and what
    would hang (a group size that is not the group's), each raised by the prim on every rank before any
    communication; then the group still works."""
    from primkit.prims.errors import PrimConstraintError
    P, group = torch.ops.primkit, dist.group.WORLD.group_name
    calls = {"all_gather: C2": lambda: P.all_gather(torch.tensor(1.0), WORLD, group),
             "reduce_scatter: C5": lambda: P.reduce_scatter(torch.ones(3, 2), "sum", WORLD, group),
             "all_gather: C4": lambda: P.all_gather(torch.ones(2), 3, group),
             "broadcast: C2": lambda: P.broadcast(torch.ones(2), WORLD, WORLD, group),
             "all_to_all: C6": lambda: P.all_to_all(torch.ones(4), [2, 2], [3, 1], group)}
    raised = {}
    for cid, call in calls.items():
        try:
            call()
        except PrimConstraintError as e:
            raised[cid] = str(e).startswith(cid)
    return raised, P.wait(P.all_reduce(torch.ones(2), "sum", group)).tolist()


def test_constraint_errors_raise_on_every_rank(gloo_pool):
    results = gloo_pool.run(_constraint_errors)
    for raised, after in results:
        assert raised == dict.fromkeys(["all_gather: C2", "reduce_scatter: C5", "all_gather: C4", "broadcast: C2",
                                        "all_to_all: C6"], True)
        assert after == [2.0, 2.0]


def _gradient_cases():
    """(label, prim, oracle arguments, program) whose gradients AOTAutograd takes: the prims where torch's functional
    collective has no (right) gradient (all_reduce: none; broadcast: the identity), torch's differentiable
    functional collectives for the others."""
    import torch.distributed._functional_collectives as fcol
    P, world = torch.ops.primkit, dist.group.WORLD
    cases = [(f"all_reduce {op}", "all_reduce", (op,), lambda x, r, g, op=op: P.wait(P.all_reduce(x, op, g)))
             for op in ("sum", "avg", "product", "min", "max")]
    cases += [(f"broadcast from {src}", "broadcast", (src,),
               lambda x, r, g, src=src: P.wait(P.broadcast(x, src, WORLD, g))) for src in range(WORLD)]
    return cases + [
        ("reduce (sum) to 1", "reduce", ("sum", 1), lambda x, r, g: P.wait(P.reduce(x, "sum", 1, WORLD, g))),
        ("reduce_scatter avg", "reduce_scatter", ("avg",),
         lambda x, r, g: P.wait(P.reduce_scatter(x, "avg", WORLD, g))),
        ("all_gather_tensor_autograd", "all_gather", (), lambda x, r, g: fcol.all_gather_tensor_autograd(x, 0, world)),
        ("reduce_scatter_tensor_autograd (sum)", "reduce_scatter", ("sum",),
         lambda x, r, g: fcol.reduce_scatter_tensor_autograd(x, "sum", 0, world)),
        ("all_to_all_single_autograd, unequal splits", "all_to_all", (IN_SPLITS,),
         lambda x, r, g: fcol.all_to_all_single_autograd(x, _out_splits(r), IN_SPLITS[r], world)),
    ]


def _cotangent(rank, i, shape):
    return _operand(rank, torch.float64, tuple(shape), salt=50 + i)


def _collective_gradients():
    rank, group = dist.get_rank(), dist.group.WORLD.group_name
    cases = _gradient_cases()
    xs = [_operand(rank, torch.float64, salt=i).requires_grad_() for i in range(len(cases))]

    def program(*xs):
        return [p(x, rank, group) for (*_, p), x in zip(cases, xs, strict=True)]
    with _primkit_graphs() as graphs:
        outs = torch.compile(program, backend="primkit")(*xs)
        sum((o * _cotangent(rank, i, o.shape)).sum() for i, o in enumerate(outs)).backward()
    return [x.grad for x in xs], _ops(graphs)


def test_collective_gradients(gloo_pool):
    """Gradients through AOTAutograd (torch.compile(backend="primkit")), forward and backward graphs of prims, equal
    to the oracle's gradients; broadcast's is a reduce to its source, not torch's identity."""
    from primkit.opinfo.prims.collective import oracle
    cases = _gradient_cases()
    results = gloo_pool.run(_collective_gradients)
    expected = []
    for i, (label, prim, args, _) in enumerate(cases):
        inputs = [_operand(rank, torch.float64, salt=i).requires_grad_() for rank in range(WORLD)]
        outs = oracle(prim, inputs, *args)
        loss = sum((o * _cotangent(rank, i, o.shape)).sum() for rank, o in enumerate(outs))
        grads = torch.autograd.grad(loss, inputs, allow_unused=True)   # broadcast: only its source's is used
        expected.append([torch.zeros_like(x) if g is None else g for x, g in zip(inputs, grads, strict=True)])
    for rank, (grads, _) in enumerate(results):
        for (label, *_), actual, wanted in zip(cases, grads, expected, strict=True):
            torch.testing.assert_close(actual, wanted[rank], msg=lambda m: f"{label}, rank {rank}: {m}")
    for _, graphs in results:
        assert [ops for ops, _ in graphs] == [[], []]   # forward and backward: prims only
        assert all(collectives for _, collectives in graphs)


# -- distributed programs, as users write them

class FeedForward(torch.nn.Module):
    """A transformer's MLP block: the layers tensor parallelism splits column-wise, then row-wise."""

    def __init__(self, dim=8, hidden=32):
        super().__init__()
        self.up, self.down = torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, dim)

    def forward(self, x):
        return self.down(torch.nn.functional.gelu(self.up(x)))


@contextlib.contextmanager
def _primkit_graphs():
    """The graphs torch.compile(backend="primkit") hands its executor, recorded (as tests/test_compile.py does)."""
    from primkit.runtime import backends
    graphs, real = [], backends._executor_compiler

    def recording(gm, example_inputs):
        graphs.append(gm)
        return real(gm, example_inputs)
    backends._executor_compiler = recording
    try:
        torch._dynamo.reset()
        yield graphs
    finally:
        backends._executor_compiler = real
        torch._dynamo.reset()


def _ops(graphs):
    """Per graph: its ops outside the catalog, and its collective prims."""
    from primkit import prims
    from primkit.graph import non_prim_ops
    def collectives(g):
        return sorted({n.target._opname for n in g.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)
                       and prims.get(n.target._opname).family == "collective"})
    return [(non_prim_ops(g), collectives(g)) for g in graphs]


def _tensor_parallel_mlp(sequence_parallel):
    """The MLP column- then row-wise; with sequence parallelism its input and output are sharded by rows (the
    layer gathers them and scatters its result: all_gather and reduce_scatter), else replicated (all_reduce)."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor import Shard
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    from torch.fx.experimental.proxy_tensor import make_fx
    mesh, rank = init_device_mesh("cpu", (WORLD,)), dist.get_rank()
    plan = {"up": ColwiseParallel(input_layouts=Shard(0)), "down": RowwiseParallel(output_layouts=Shard(0))} \
        if sequence_parallel else {"up": ColwiseParallel(), "down": RowwiseParallel()}
    torch.manual_seed(0)
    single = FeedForward()
    eager = parallelize_module(copy.deepcopy(single), mesh, plan)
    model = parallelize_module(copy.deepcopy(single), mesh, plan)
    full = torch.randn(8, 8)   # one seed: every rank holds the same batch, and its own rows of it
    x = (full.chunk(WORLD)[rank] if sequence_parallel else full).clone().requires_grad_()
    with _primkit_graphs() as graphs:
        compiled = torch.compile(model, backend="primkit")
        y = compiled(x)
        y.sum().backward()
    x_eager = x.detach().clone().requires_grad_()
    y_eager = eager(x_eager)
    y_eager.sum().backward()
    torch.testing.assert_close(y, y_eager)
    torch.testing.assert_close(x.grad, x_eager.grad)
    for (name, p), q in zip(model.named_parameters(), eager.parameters(), strict=True):
        torch.testing.assert_close(p.grad.to_local(), q.grad.to_local(), msg=name)
    y_single = single(full)   # and tensor parallelism computes what one device computes
    torch.testing.assert_close(y, y_single.chunk(WORLD)[rank] if sequence_parallel else y_single)
    # make_fx with primkit's table (the DTensor parameters are the graph's constants): the forward, prim-only
    traced = make_fx(lambda x: model(x), decomposition_table=primkit.get_decompositions())(x.detach())
    torch.testing.assert_close(traced(x.detach()), y_eager)
    torch.testing.assert_close(executor.compile(traced)(x.detach()), y_eager)
    return _ops(graphs + [traced])


def _tensor_parallel_mlp_traced():
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    mesh = init_device_mesh("cpu", (2,))
    model = parallelize_module(FeedForward(), mesh, {"up": ColwiseParallel(), "down": RowwiseParallel()})
    return _ops([primkit.trace(model, torch.randn(4, 8))])


def _ddp_training():
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.manual_seed(0)
    single = FeedForward()
    eager = DDP(copy.deepcopy(single))   # torch's C++ reducer, as DDP runs by default
    # DDP's all_reduce reaches a graph through compiled autograd and DDP's Python reducer (torch's
    # documented pairing: optimize_ddp="python_reducer" before DDP(...) is built)
    with torch._dynamo.config.patch(optimize_ddp="python_reducer", compiled_autograd=True), \
            _primkit_graphs() as graphs:
        model = DDP(copy.deepcopy(single))

        @torch.compile(backend="primkit")
        def step(x, target):
            loss = torch.nn.functional.mse_loss(model(x), target)
            loss.backward()
            return loss

        losses = _train(model, step, steps=3)
    losses_eager = _train(eager, lambda x, target: _eager_step(eager, x, target), steps=3)
    torch.testing.assert_close(losses, losses_eager)
    for (name, p), q in zip(model.named_parameters(), eager.parameters(), strict=True):
        torch.testing.assert_close(p, q, msg=name)
    return _ops(graphs)


def _eager_step(model, x, target):
    loss = torch.nn.functional.mse_loss(model(x), target)
    loss.backward()
    return loss


def _train(model, step, steps):
    """``steps`` SGD steps on this rank's own batches (they differ between ranks: DDP averages the gradients)."""
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = torch.Generator().manual_seed(dist.get_rank())
    losses = []
    for _ in range(steps):
        x, target = torch.randn(4, 8, generator=batches), torch.randn(4, 8, generator=batches)
        opt.zero_grad()
        losses.append(step(x, target).detach())
        opt.step()
    return torch.stack(losses)


def _fsdp2_training(mode):
    from torch.distributed.fsdp import fully_shard
    from primkit.runtime.eager import through_prims
    torch.manual_seed(0)
    single = FeedForward()
    eager, model = copy.deepcopy(single), copy.deepcopy(single)
    for m in (eager, model):
        fully_shard(m.up)
        fully_shard(m)
    ran, undecomposed = collections.Counter(), collections.Counter()

    def step(x, target):
        with through_prims(mode) as run:
            loss = _eager_step(model, x, target)
        ran.update(run.prims)
        undecomposed.update(run.undecomposed)
        return loss
    losses = _train(model, step, steps=3)
    losses_eager = _train(eager, lambda x, target: _eager_step(eager, x, target), steps=3)
    torch.testing.assert_close(losses, losses_eager)
    for (name, p), q in zip(model.named_parameters(), eager.parameters(), strict=True):
        torch.testing.assert_close(p.full_tensor(), q.full_tensor(), msg=name)
    return sorted(name for name in ran if prims_family(name) == "collective"), dict(undecomposed)


def prims_family(name):
    from primkit import prims
    return prims.get(name).family


def _fsdp_op_calls():
    """FSDP2's own ops as it calls them around its collectives: name -> (its operands, a call that writes into
    fresh tensors and returns what it wrote or gave)."""
    fsdp = torch.ops.fsdp

    def copy_in(a, b):
        output = torch.zeros(16)
        return list(fsdp.all_gather_copy_in([a, b], output, [3, 5], 8, 1)) + [output]

    def split_copy(a):
        out = [torch.empty(3), torch.empty(5, 2), torch.empty(1)]
        fsdp.split_with_sizes_copy(a, [3, 10, 1], out=[o.view(-1) for o in out])
        return out

    def chunk_cat(a, b):
        out = torch.empty(2, 9)
        fsdp.chunk_cat([a, b], 0, 2, out=out)
        return [out]
    return {"all_gather_copy_in": ((torch.randn(3), torch.randn(5)), copy_in),
            "split_with_sizes_copy": ((torch.randn(14),), split_copy),
            "chunk_cat": ((torch.randn(4, 3), torch.randn(2, 3)), chunk_cat)}


@pytest.mark.parametrize("name", ["all_gather_copy_in", "split_with_sizes_copy", "chunk_cat"])
def test_fsdp_ops_through_prims(name):
    """FSDP2's copy ops (torch.ops.fsdp) through primkit's eager mode (strict) equal their own kernels; their
    decompositions register once FSDP2 is imported."""
    import torch.distributed.fsdp  # noqa: F401  (defines torch.ops.fsdp)
    from primkit.runtime.eager import through_prims
    args, call = _fsdp_op_calls()[name]
    expected = call(*args)
    with through_prims() as run:
        actual = call(*args)
    assert run.prims and not run.undecomposed
    for a, e in zip(actual, expected, strict=True):
        torch.testing.assert_close(a, e, rtol=0, atol=0)


@pytest.mark.parametrize("sequence_parallel", [False, True], ids=["replicated", "sequence_parallel"])
def test_tensor_parallel_mlp(gloo_pool, sequence_parallel):
    """DTensor column- then row-wise through torch.compile(backend="primkit") (forward and backward) and make_fx
    (forward): graphs of prims, equal to eager DTensor and to one device."""
    results = gloo_pool.run(_tensor_parallel_mlp, sequence_parallel)
    assert results[0] == results[1]
    collectives = ["all_gather", "reduce_scatter", "wait"] if sequence_parallel else ["all_reduce", "wait"]
    assert results[0] == [([], collectives)] * 3   # compile's forward and backward, make_fx's forward


@pytest.mark.xfail(strict=True, raises=NotImplementedError,
                   reason="primkit.trace runs its entries for CompositeImplicitAutograd ops (linear) above "
                          "torch's dispatch, so DTensor's __torch_dispatch__ sees prims (primkit.permute), for which "
                          "DTensor has no sharding strategy; make_fx / AOTAutograd desugar the DTensor first")
def test_tensor_parallel_mlp_primkit_trace(gloo_pool):
    gloo_pool.run(_tensor_parallel_mlp_traced)


def test_ddp_training(gloo_pool):
    """Three DDP steps: the forward graph, and the compiled-autograd backward with its all_reduces, of
    prims (aten.copy_ writes the reduced gradient into param.grad: AOTAutograd's input mutation epilogue)."""
    results = gloo_pool.run(_ddp_training)
    assert results[0] == results[1]
    non_prims = {op for ops, _ in results[0] for op in ops}
    assert non_prims <= {"aten::copy_"}, non_prims
    assert ["all_reduce", "wait"] in [collectives for _, collectives in results[0]]


def test_fsdp2_training(gloo_pool):
    """Three fully_shard steps through primkit's eager mode (strict): FSDP2's all_gather and reduce_scatter (c10d
    ops) and its copy ops (fsdp ops) run as prims, equal to eager."""
    results = gloo_pool.run(_fsdp2_training, "strict")
    assert results[0] == results[1] == (["all_gather", "reduce_scatter", "wait"], {})


def _c10d_calls():
    """torch.distributed's own calls, as an eager program makes them (in place, into out tensors, async or not),
    eager and through prims (strict): both results, per call."""
    from primkit.runtime.eager import through_prims
    rank = dist.get_rank()
    x = _operand(rank, torch.float32)

    def calls():
        out = {}
        for op in (dist.ReduceOp.SUM, dist.ReduceOp.MAX, dist.ReduceOp.AVG):
            y = x.clone()
            dist.all_reduce(y, op)
            out[f"all_reduce {op}"] = y
        for src in range(WORLD):
            y = x.clone()
            dist.broadcast(y, src)
            out[f"broadcast from {src}"] = y
        gathered = torch.empty(WORLD * 4, 6)
        dist.all_gather_into_tensor(gathered, x, async_op=True).wait()
        scattered = torch.empty(2, 6)
        dist.reduce_scatter_tensor(scattered, x, dist.ReduceOp.AVG)
        out.update({"all_gather_into_tensor (async)": gathered, "reduce_scatter_tensor avg": scattered})
        return out
    expected = calls()
    with through_prims() as run:
        actual = calls()
    return expected, actual, dict(run.undecomposed)


def test_c10d_calls_through_prims(gloo_pool):
    """dist.all_reduce / broadcast / all_gather_into_tensor / reduce_scatter_tensor in primkit's eager mode (strict):
    the collective prims, equal to torch.distributed's own."""
    for expected, actual, undecomposed in gloo_pool.run(_c10d_calls):
        assert undecomposed == {} and expected.keys() == actual.keys()
        for label in expected:
            torch.testing.assert_close(actual[label], expected[label], msg=lambda m: f"{label}: {m}")


def _readme_example():
    import io
    import pathlib
    import re
    readme = pathlib.Path(__file__).resolve().parent.parent / "docs" / "distributed.md"
    section = readme.read_text().split("## Distributed programs", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code = code.replace('dist.init_process_group("gloo")\n', "")   # the pool's ranks are in their group already
    out, namespace = io.StringIO(), {}
    config = torch._dynamo.config
    with config.patch(optimize_ddp=config.optimize_ddp, compiled_autograd=config.compiled_autograd), \
            _primkit_graphs() as graphs, contextlib.redirect_stdout(out):   # the example's settings end with it
        exec(compile(code, "docs/distributed.md", "exec"), namespace)
        namespace["step"](namespace["x"], torch.zeros(4, 8))
    return out.getvalue().splitlines(), _ops(graphs)


def test_readme_example_runs_as_written(gloo_pool):
    results = gloo_pool.run(_readme_example)
    assert results[0] == results[1]
    printed, graphs = results[0]
    assert printed == ["['primkit::all_reduce', 'primkit::wait']", "['all_gather', 'reduce_scatter']"]
    assert all(set(ops) <= {"aten::copy_"} for ops, _ in graphs) and ["all_reduce", "wait"] in [c for _, c in graphs]
