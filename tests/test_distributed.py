"""Distributed programs on 2 gloo ranks (CPU): the rank pool itself, then tensor-parallel, DDP and FSDP2
training through primkit, against eager.

Every test runs a module-level function of this file on both ranks through ``gloo_pool`` (see
tests/distributed.py): the ranks import this module by name, and with it the installed primkit. All of
them are one xdist_group, so one worker spawns the ranks, once.
"""
from __future__ import annotations

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


def test_ordinary_errors_keep_the_pool(gloo_pool):
    gloo_pool.run(_rank_and_sum)
    starts = gloo_pool.starts
    with pytest.raises(KeyError, match="rank 0"):   # every rank raised its own error: rank 0's is reported
        gloo_pool.run(_both_raise)
    assert gloo_pool.run(_rank_and_sum)[0][2] == 3.0 and gloo_pool.starts == starts
