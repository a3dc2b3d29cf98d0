"""Samples, constraint error inputs and the oracle of the collective family.

The prims run on a process group, so the samples run them on ``world_group()``: this process's
default group, or, where torch.distributed is not initialized, a gloo group of one rank (a FileStore
in a temporary directory) started once per process. On one rank every collective is exact: the
samples check meta rules against the kernels and the derivative formulas' plumbing; values on
several ranks are checked against ``oracle`` by the multi-process tests.

``oracle(name, inputs, *args)`` computes a collective over a list of per-rank tensors (``inputs[r]``
is rank r's operand) and returns each rank's result, with the prim's arguments after the operand
(without the group, and without group_size, which is ``len(inputs)``; all_to_all takes the list of
each rank's ``input_splits`` and works out the output splits)."""
from __future__ import annotations

import functools
import os
import tempfile

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error
from primkit.opinfo.prims.strategies import composite, dtype_of, maybe, shapes, st, strided
from primkit.opinfo.samples import make

REDUCE_OPS = ("sum", "avg", "product", "min", "max", "band", "bor", "bxor")
SHAPES = ((3,), (4, 3), (2, 3, 2), (0, 3))


# --- the oracle -------------------------------------------------------------------------------------

_COMBINE = {"sum": torch.add, "product": torch.mul, "min": torch.minimum, "max": torch.maximum,
            "band": torch.bitwise_and, "bor": torch.bitwise_or, "bxor": torch.bitwise_xor}


def reduce_ranks(op, inputs):
    """op over the ranks' tensors, elementwise, combined in rank order in their dtype (a bool sum is or,
    a bool product and; avg is the sum divided by the number of ranks)."""
    acc = inputs[0].clone()
    for x in inputs[1:]:
        if acc.dtype == torch.bool and op in ("sum", "product"):
            acc = (torch.logical_or if op == "sum" else torch.logical_and)(acc, x)
        else:
            acc = _COMBINE["sum" if op == "avg" else op](acc, x)
    return acc.div(len(inputs)) if op == "avg" else acc


def oracle(name, inputs, *args):
    """Each rank's result of the collective prim ``name`` over the per-rank operands ``inputs``."""
    n = len(inputs)
    if name == "all_reduce":
        (op,) = args
        return [reduce_ranks(op, inputs) for _ in range(n)]
    if name == "all_gather":
        return [torch.cat(inputs) for _ in range(n)]
    if name == "reduce_scatter":
        (op,) = args
        return [c.clone() for c in reduce_ranks(op, inputs).chunk(n)] if inputs[0].shape[0] else \
            [inputs[0].clone() for _ in range(n)]
    if name == "all_to_all":
        (input_splits,) = args     # input_splits[s]: rank s's splits
        pieces = [x.split(list(s)) for x, s in zip(inputs, input_splits)]
        return [torch.cat([pieces[s][r] for s in range(n)]) for r in range(n)]
    if name == "broadcast":
        (src,) = args
        return [inputs[src].clone() for _ in range(n)]
    if name == "reduce":
        op, dst = args
        return [reduce_ranks(op, inputs) if r == dst else torch.zeros_like(inputs[r]) for r in range(n)]
    if name == "wait":
        return [x.clone() for x in inputs]
    raise KeyError(f"oracle: {name!r} is not a collective prim")


def output_splits(input_splits, rank):
    """Rank ``rank``'s output splits, from every rank's input splits: what each rank sends it."""
    return [splits[rank] for splits in input_splits]


# --- a process group for the samples ---------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def world_group() -> str:
    """The name of this process's default process group; where none is initialized, a group of one rank
    (started once per process, its FileStore in a temporary directory): gloo for CPU tensors and, where a
    GPU and NCCL are present, NCCL for CUDA tensors, as a CUDA program runs its collectives (gloo's CUDA
    support covers few collectives, and the others crashed the process on the first CUDA run)."""
    import torch.distributed as dist
    if not dist.is_initialized():
        store = dist.FileStore(os.path.join(tempfile.mkdtemp(prefix="primkit_world_"), "store"), 1)
        cuda = torch.cuda.is_available() and dist.is_nccl_available()
        dist.init_process_group("cpu:gloo,cuda:nccl" if cuda else "gloo", store=store, rank=0, world_size=1)
    return dist.group.WORLD.group_name


def _world_size(group):
    import torch.distributed as dist
    return dist.get_world_size()


def _ops_for(dtype):
    from primkit import prims
    table = prims.get("all_reduce").params["reduce_ops"]
    from primkit.prims import dtypes as dt
    return [op for op in REDUCE_OPS if dtype in dt.resolve(table[op])]


def _operands(device, dtype):
    for shape in SHAPES:
        yield f"{shape}", make(shape, device, dtype)
    yield "transposed", make((3, 4), device, dtype).t()
    yield "expanded", make((1, 3), device, dtype).expand(4, 3)


def samples_all_reduce(op, device, dtype):
    group = world_group()
    for reduce_op in _ops_for(dtype):
        for name, a in _operands(device, dtype):
            yield SampleInput(a, (reduce_op, group), name=f"{reduce_op} {name}")
    yield SampleInput(make((), device, dtype), (_ops_for(dtype)[0], group), name="0-d")


def samples_all_gather(op, device, dtype):
    group = world_group()
    for name, a in _operands(device, dtype):
        yield SampleInput(a, (_world_size(group), group), name=name)


def samples_reduce_scatter(op, device, dtype):
    group = world_group()
    n = _world_size(group)
    for reduce_op in _ops_for(dtype):
        for name, a in _operands(device, dtype):
            if a.shape[0] % n == 0:
                yield SampleInput(a, (reduce_op, n, group), name=f"{reduce_op} {name}")


def samples_all_to_all(op, device, dtype):
    group = world_group()
    n = _world_size(group)
    for name, a in _operands(device, dtype):
        if n == 1:
            yield SampleInput(a, ([a.shape[0]], [a.shape[0]], group), name=name)


def samples_broadcast(op, device, dtype):
    group = world_group()
    n = _world_size(group)
    for name, a in _operands(device, dtype):
        yield SampleInput(a, (n - 1, n, group), name=name)
    yield SampleInput(make((), device, dtype), (0, n, group), name="0-d")


def samples_reduce(op, device, dtype):
    group = world_group()
    n = _world_size(group)
    for reduce_op in _ops_for(dtype):
        for name, a in _operands(device, dtype):
            yield SampleInput(a, (reduce_op, 0, n, group), name=f"{reduce_op} {name}")


def samples_wait(op, device, dtype):
    for name, a in _operands(device, dtype):
        yield SampleInput(a, name=name)


# --- error inputs: one per constraint, under fake and real tensors alike ----------------------------

def _group_size_error(op, cid, a, *args):
    """group_size (or the split lists) for two ranks, on this process's group (of one rank in the tests)."""
    if _world_size(world_group()) != 2:
        yield error(op, cid, "group size differs from the group's", a, *args)


def _reduce_op_errors(op, device, *rest):
    yield error(op, "C1", "unknown reduce op", make((4,), device, torch.float32), "mean", *rest)
    yield error(op, "C1", "premul_sum (not a prim op)", make((4,), device, torch.float32), "premul_sum", *rest)
    yield error(op, "C2", "band of floats", make((4,), device, torch.float32), "band", *rest)
    yield error(op, "C2", "avg of integers", make((4,), device, torch.int64), "avg", *rest)
    yield error(op, "C2", "max of complex", make((4,), device, torch.complex64), "max", *rest)


def _int16(device, shape=(4,)):
    """An operand of int16, which neither gloo nor NCCL communicates."""
    return make(shape, device, torch.int16)


def errors_all_reduce(op, device):
    yield from _reduce_op_errors(op, device, world_group())
    yield error(op, "C3", "int16 operand", _int16(device), "sum", world_group())


def errors_all_gather(op, device):
    yield error(op, "C1", "group_size 0", make((4,), device, torch.float32), 0, world_group())
    yield error(op, "C2", "0-d operand", make((), device, torch.float32), 1, world_group())
    yield error(op, "C3", "int16 operand", _int16(device), 1, world_group())
    yield from _group_size_error(op, "C4", make((4,), device, torch.float32), 2, world_group())


def errors_reduce_scatter(op, device):
    yield from _reduce_op_errors(op, device, 2, world_group())
    yield error(op, "C3", "group_size 0", make((4,), device, torch.float32), "sum", 0, world_group())
    yield error(op, "C4", "0-d operand", make((), device, torch.float32), "sum", 1, world_group())
    yield error(op, "C5", "dim 0 not divisible", make((3, 2), device, torch.float32), "sum", 2, world_group())
    yield error(op, "C6", "int16 operand", _int16(device), "sum", 2, world_group())
    yield from _group_size_error(op, "C7", make((4,), device, torch.float32), "sum", 2, world_group())


def errors_all_to_all(op, device):
    a = make((4, 2), device, torch.float32)
    yield error(op, "C1", "0-d operand", make((), device, torch.float32), [1], [1], world_group())
    yield error(op, "C2", "split lists of different lengths", a, [4], [2, 2], world_group())
    yield error(op, "C2", "empty split lists", a, [], [], world_group())
    yield error(op, "C3", "negative split", a, [2, 2], [5, -1], world_group())
    yield error(op, "C4", "input splits do not sum to dim 0", a, [2, 1], [2, 1], world_group())
    yield error(op, "C5", "int16 operand", _int16(device), [2, 2], [2, 2], world_group())
    yield from _group_size_error(op, "C6", a, [2, 2], [2, 2], world_group())


def errors_broadcast(op, device):
    a = make((4,), device, torch.float32)
    yield error(op, "C1", "group_size 0", a, 0, 0, world_group())
    yield error(op, "C2", "src out of range", a, 2, 2, world_group())
    yield error(op, "C2", "negative src", a, -1, 2, world_group())
    yield error(op, "C3", "int16 operand", _int16(device), 0, 2, world_group())
    yield from _group_size_error(op, "C4", a, 0, 2, world_group())


def errors_reduce(op, device):
    yield from _reduce_op_errors(op, device, 0, 2, world_group())
    a = make((4,), device, torch.float32)
    yield error(op, "C3", "group_size 0", a, "sum", 0, 0, world_group())
    yield error(op, "C4", "dst out of range", a, "sum", 2, 2, world_group())
    yield error(op, "C5", "int16 operand", _int16(device), "sum", 0, 2, world_group())
    yield from _group_size_error(op, "C6", a, "sum", 0, 2, world_group())


def errors_wait(op, device):
    yield error(op, "C1", "int16 operand", _int16(device))


SPECIFIC = {
    "all_reduce": (samples_all_reduce, errors_all_reduce),
    "all_gather": (samples_all_gather, errors_all_gather),
    "reduce_scatter": (samples_reduce_scatter, errors_reduce_scatter),
    "all_to_all": (samples_all_to_all, errors_all_to_all),
    "broadcast": (samples_broadcast, errors_broadcast),
    "reduce": (samples_reduce, errors_reduce),
    "wait": (samples_wait, errors_wait),
}


# --- fuzz strategies (tests/test_fuzz_meta.py): on this process's group, sizes valid or not --------

@composite
def all_reduce_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim)))
    return SampleInput(a, (draw(st.sampled_from(REDUCE_OPS + ("mean",))), world_group()))


@composite
def all_gather_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim)))
    return SampleInput(a, (maybe(draw, _world_size(None), 0), world_group()))


@composite
def reduce_scatter_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim)))
    return SampleInput(a, (draw(st.sampled_from(REDUCE_OPS)), maybe(draw, _world_size(None), 0), world_group()))


@composite
def all_to_all_call(draw, prim):
    a = draw(strided(draw(shapes(min_dims=1, max_dims=3)), dtype_of(draw, prim)))
    rows = a.shape[0]
    return SampleInput(a, ([rows], [maybe(draw, rows, rows + 1)], world_group()))


@composite
def broadcast_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim)))
    return SampleInput(a, (maybe(draw, 0, 1), _world_size(None), world_group()))


@composite
def reduce_call(draw, prim):
    a = draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim)))
    return SampleInput(a, (draw(st.sampled_from(REDUCE_OPS)), maybe(draw, 0, 1), _world_size(None), world_group()))


@composite
def wait_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes(max_dims=3)), dtype_of(draw, prim))))


STRATEGIES = {"all_reduce": all_reduce_call, "all_gather": all_gather_call, "reduce_scatter": reduce_scatter_call,
              "all_to_all": all_to_all_call, "broadcast": broadcast_call, "reduce": reduce_call, "wait": wait_call}
