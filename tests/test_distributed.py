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
    from primkit.decompositions import compile as backends
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
    from primkit.decompositions import non_prim_ops
    def collectives(g):
        return sorted({n.target._opname for n in g.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)
                       and prims.get(n.target._opname).family == "collective"})
    return [(non_prim_ops(g), collectives(g)) for g in graphs]


def _tensor_parallel_mlp():
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    mesh = init_device_mesh("cpu", (2,))
    plan = {"up": ColwiseParallel(), "down": RowwiseParallel()}
    torch.manual_seed(0)
    single = FeedForward()
    eager = parallelize_module(copy.deepcopy(single), mesh, plan)
    model = parallelize_module(copy.deepcopy(single), mesh, plan)
    x = torch.randn(4, 8, requires_grad=True)   # one seed: every rank holds the same (replicated) input
    with _primkit_graphs() as graphs:
        compiled = torch.compile(model, backend="primkit")
        y = compiled(x)
        y.sum().backward()
    x_eager = x.detach().clone().requires_grad_()
    y_eager = eager(x_eager)
    y_eager.sum().backward()
    torch.testing.assert_close(y, y_eager)
    torch.testing.assert_close(x.grad, x_eager.grad)
    for (name, p), q in zip(model.named_parameters(), eager.parameters()):
        torch.testing.assert_close(p.grad.to_local(), q.grad.to_local(), msg=name)
    y_single = single(x_eager)   # and tensor parallelism computes what one device computes
    torch.testing.assert_close(y, y_single)
    return _ops(graphs)


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
    for (name, p), q in zip(model.named_parameters(), eager.parameters()):
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


def _fsdp2_training():
    from torch.distributed.fsdp import fully_shard
    from primkit.decompositions.eager import through_prims
    torch.manual_seed(0)
    single = FeedForward()
    eager, model = copy.deepcopy(single), copy.deepcopy(single)
    for m in (eager, model):
        fully_shard(m.up)
        fully_shard(m)
    ran = collections.Counter()

    def step(x, target):
        with through_prims() as run:   # strict: an op without a decomposition raises
            loss = _eager_step(model, x, target)
        ran.update(run.prims)
        return loss
    losses = _train(model, step, steps=3)
    losses_eager = _train(eager, lambda x, target: _eager_step(eager, x, target), steps=3)
    torch.testing.assert_close(losses, losses_eager)
    for (name, p), q in zip(model.named_parameters(), eager.parameters()):
        torch.testing.assert_close(p.full_tensor(), q.full_tensor(), msg=name)
    return sorted(name for name in ran if name in {"all_gather", "reduce_scatter", "all_reduce", "wait"})


def test_tensor_parallel_mlp(gloo_pool):
    """DTensor column- then row-wise: forward and backward graphs of prims, each with its all_reduce."""
    results = gloo_pool.run(_tensor_parallel_mlp, timeout=120)
    assert results[0] == results[1]
    assert results[0] == [([], ["all_reduce", "wait"]), ([], ["all_reduce", "wait"])]


def test_ddp_training(gloo_pool):
    """Three DDP steps: the forward graph, and the compiled-autograd backward with its all_reduces, of
    prims (aten.copy_ writes the reduced gradient into param.grad: AOTAutograd's input mutation epilogue)."""
    results = gloo_pool.run(_ddp_training, timeout=180)
    assert results[0] == results[1]
    non_prims = {op for ops, _ in results[0] for op in ops}
    assert non_prims <= {"aten::copy_"}, non_prims
    assert ["all_reduce", "wait"] in [collectives for _, collectives in results[0]]


def test_fsdp2_training(gloo_pool):
    """Three fully_shard steps through primkit's eager mode: FSDP2's all_gather and reduce_scatter run as prims."""
    results = gloo_pool.run(_fsdp2_training, timeout=120)
    assert results[0] == results[1] == ["all_gather", "reduce_scatter", "wait"]
