"""Reference implementations of the collective family: each collective runs synchronously through
torch.distributed's c10d calls on the process group registered under the name ``group``, into a
fresh contiguous tensor; ``wait`` is the identity (its operand's layout) (the registered kernel copies its result, which
may not alias its input). The executor's asynchronous kernels (torch's functional collectives, then
``wait_tensor`` at the ``wait`` node) are ``ASYNC`` here."""
from __future__ import annotations

import torch

# the reduce ops of the catalog that c10d names the same; avg is the sum divided by the group size
# (gloo has no AVG of its own for the c10d calls)
_REDUCE_OPS = {"sum": "SUM", "product": "PRODUCT", "min": "MIN", "max": "MAX", "band": "BAND", "bor": "BOR",
               "bxor": "BXOR", "avg": "SUM"}


def process_group(group: str):
    """The ProcessGroup torch.distributed registered under the name ``group``."""
    import torch.distributed as dist
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError(f"primkit collective on group {group!r}: torch.distributed is not initialized "
                           f"(call torch.distributed.init_process_group first)")
    from torch.distributed.distributed_c10d import _resolve_process_group
    return _resolve_process_group(group)


def _reduce_op(op):
    import torch.distributed as dist
    return getattr(dist.ReduceOp, _REDUCE_OPS[op])


def _averaged(out, op, group_size):
    return out.div_(group_size) if op == "avg" else out


def all_reduce(a, op, group):
    import torch.distributed as dist
    pg = process_group(group)
    out = a.clone(memory_format=torch.contiguous_format)
    dist.all_reduce(out, _reduce_op(op), group=pg)
    return _averaged(out, op, pg.size())


def all_gather(a, group_size, group):
    import torch.distributed as dist
    pg = process_group(group)
    out = a.new_empty((group_size * a.shape[0], *a.shape[1:]))
    dist.all_gather_into_tensor(out, a.contiguous(), group=pg)
    return out


def reduce_scatter(a, op, group_size, group):
    import torch.distributed as dist
    pg = process_group(group)
    out = a.new_empty((a.shape[0] // group_size, *a.shape[1:]))
    # reduce_scatter_tensor's new name (torch 2.13); torch 2.11 has only the old one
    reduce_scatter_single = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
    reduce_scatter_single(out, a.contiguous(), _reduce_op(op), group=pg)
    return _averaged(out, op, group_size)


def all_to_all(a, output_splits, input_splits, group):
    import torch.distributed as dist
    pg = process_group(group)
    out = a.new_empty((sum(output_splits), *a.shape[1:]))
    # gloo's alltoall takes no complex dtype: the rows of a complex tensor are those of its real view
    real = (lambda t: torch.view_as_real(t)) if a.is_complex() else (lambda t: t)
    dist.all_to_all_single(real(out), real(a.contiguous()), list(output_splits), list(input_splits), group=pg)
    return out


def broadcast(a, src, group_size, group):
    import torch.distributed as dist
    pg = process_group(group)
    out = a.clone(memory_format=torch.contiguous_format)
    dist.broadcast(out, group_src=src, group=pg)
    return out


def reduce(a, op, dst, group_size, group):
    import torch.distributed as dist
    pg = process_group(group)
    out = a.clone(memory_format=torch.contiguous_format)
    dist.reduce(out, group_dst=dst, op=_reduce_op(op), group=pg)
    if pg.rank() != dst:
        return out.zero_()      # c10d leaves partial results there
    return _averaged(out, op, group_size)


def wait(a):
    return a


# --- the executor's kernels: start the collective, wait where its value is needed -------------------

def _functional():
    import torch.distributed._functional_collectives  # noqa: F401  (defines the ops' Python parts)
    return torch.ops._c10d_functional


def start_all_reduce(a, op, group):
    return _functional().all_reduce(a.contiguous(), op, group)


def start_all_gather(a, group_size, group):
    return _functional().all_gather_into_tensor(a.contiguous(), group_size, group)


def start_reduce_scatter(a, op, group_size, group):
    return _functional().reduce_scatter_tensor(a.contiguous(), op, group_size, group)


def start_all_to_all(a, output_splits, input_splits, group):
    if a.is_complex():      # synchronously, on the real view (all_to_all's comment); its wait has nothing to wait for
        return all_to_all(a, output_splits, input_splits, group)
    return _functional().all_to_all_single(a.contiguous(), list(output_splits), list(input_splits), group)


def start_broadcast(a, src, group_size, group):
    return _functional().broadcast(a.contiguous(), src, group)


def wait_tensor(a):
    return _functional().wait_tensor(a)


# prim -> the executor's kernel; reduce has no functional collective in torch and runs synchronously
ASYNC = {"all_reduce": start_all_reduce, "all_gather": start_all_gather, "reduce_scatter": start_reduce_scatter,
         "all_to_all": start_all_to_all, "broadcast": start_broadcast, "wait": wait_tensor}
