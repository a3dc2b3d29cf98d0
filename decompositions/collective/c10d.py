"""Decompositions of c10d's process-group ops (``torch.ops.c10d``): what ``torch.distributed``'s calls
(``dist.all_reduce``, ``dist.broadcast``, ``dist.all_gather_into_tensor``, ``dist.reduce_scatter_tensor``) and
FSDP2 run. Each writes its result into its tensor arguments and returns a ``Work``: here the collective
prim, waited, is written with ``copy_to``, and the ``Work`` returned is already complete. They run in
primkit's eager mode (``through_prims``); a trace has no value for a ``Work``.

Under a dispatch mode the ProcessGroup and ReduceOp arguments are TorchScript objects:
``ProcessGroup.unbox`` gives the group, ``ReduceOp.op()`` the reduce op's number.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, write_into
from primkit.decompositions.registry import register

C10D = torch.ops.c10d if hasattr(torch.ops.c10d, "allreduce_") else None   # None: torch built without distributed


def process_group(group, op):
    import torch.distributed as dist
    if isinstance(group, dist.ProcessGroup):
        return group
    if isinstance(group, torch.ScriptObject):
        return dist.ProcessGroup.unbox(group)
    raise TypeError(f"{op}: process_group must be a ProcessGroup, got {type(group).__name__}")


def reduce_op_name(reduce_op, op) -> str:
    """The collective prims' name of a c10d ReduceOp (sum, avg, product, min, max, band, bor, bxor)."""
    import torch.distributed as dist
    number = reduce_op.op() if isinstance(reduce_op, torch.ScriptObject) else int(reduce_op.op)
    name = dist.ReduceOp.RedOpType(number).name.lower()
    if name == "premul_sum":
        raise NotImplementedError(f"{op}: reduce op PREMUL_SUM has no collective prim (it scales each rank's "
                                  f"tensor by a factor before the sum)")
    return name


def _completed(tensors):
    """A Work whose wait() returns at once: the prims ran synchronously (boxed, as the op returns it)."""
    future = torch.futures.Future()
    future.set_result(tensors)
    return torch._C._distributed_c10d._create_work_from_future(future).boxed()


def allreduce_(tensors, process_group_, reduce_op, sparse_indices=None, async_op=True, timeout=-1):
    name, group = "c10d::allreduce_", process_group(process_group_, "c10d::allreduce_")
    op = reduce_op_name(reduce_op, name)
    for t in tensors:
        write_into(t, P.wait(P.all_reduce(t, op, group.group_name)), name)
    return tensors, _completed(tensors)


def broadcast_(tensors, process_group_, root_rank, root_tensor, async_op=True, timeout=-1):
    name, group = "c10d::broadcast_", process_group(process_group_, "c10d::broadcast_")
    if root_tensor != 0:
        raise NotImplementedError(f"{name}: root_tensor is {root_tensor}; only one tensor per rank (0) is supported")
    for t in tensors:
        write_into(t, P.wait(P.broadcast(t, root_rank, group.size(), group.group_name)), name)
    return tensors, _completed(tensors)


def _allgather_base_(output_tensor, input_tensor, process_group_, async_op=True, timeout=-1):
    """The ranks' inputs, flat, one row each, in rank order: output_tensor's shape (n * d0, ...) or (n, ...)."""
    group = process_group(process_group_, "c10d::_allgather_base_")
    gathered = P.wait(P.all_gather(aten.reshape(input_tensor, [1, -1]), group.size(), group.group_name))
    write_into(output_tensor, aten.reshape(gathered, list(output_tensor.shape)), "c10d::_allgather_base_")
    return output_tensor, _completed([output_tensor])


def _reduce_scatter_base_(output_tensor, input_tensor, process_group_, reduce_op, async_op=True, timeout=-1):
    """Row r of the reduction of the ranks' inputs, each seen as n rows, on rank r."""
    name, group = "c10d::_reduce_scatter_base_", process_group(process_group_, "c10d::_reduce_scatter_base_")
    n = group.size()
    scattered = P.wait(P.reduce_scatter(aten.reshape(input_tensor, [n, -1]), reduce_op_name(reduce_op, name), n,
                                        group.group_name))
    write_into(output_tensor, aten.reshape(scattered, list(output_tensor.shape)), name)
    return output_tensor, _completed([output_tensor])


if C10D is not None:
    for _fn in (allreduce_, broadcast_, _allgather_base_, _reduce_scatter_base_):
        register(getattr(C10D, _fn.__name__).default)(_fn)
