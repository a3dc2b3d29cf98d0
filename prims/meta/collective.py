"""Meta rules of the collective family (all_reduce, all_gather, reduce_scatter, all_to_all, broadcast,
reduce, wait): the result's shape on one rank, from the arguments every rank passes. Group sizes the
shape depends on are arguments, so a rule needs no process group. Results are contiguous."""
from __future__ import annotations

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.common import check_dtype, contiguous_meta, shape_str
from primkit.prims.meta.rules import TensorMeta, meta_rule


def reduce_ops_table(value):
    """The YAML check of ``params.reduce_ops``: reduce op name -> the dtype classes it takes."""
    if not isinstance(value, dict) or not value:
        return f"expected a mapping of reduce op to dtype classes, got {value!r}"
    for op, classes in value.items():
        try:
            dt.resolve(classes)
        except (KeyError, TypeError):
            return f"reduce op {op!r}: {classes!r} is not a list of dtype classes or dtype names"
    return None


def check_reduce_op(prim, op, a, cids=("C1", "C2")):
    """op is a reduce op of the prim's table (``params.reduce_ops``), and it takes a's dtype."""
    table = prim.params["reduce_ops"]
    check(op in table, prim, cids[0], lambda: f"op is {op!r}, expected one of {', '.join(table)}")
    allowed = dt.resolve(table[op])
    check(a.dtype in allowed, prim, cids[1], lambda: f"op {op!r} does not take dtype {dt.short(a.dtype)} "
          f"(it takes {{{', '.join(sorted(dt.short(d) for d in allowed))}}})")


def _check_group_size(prim, cid, group_size):
    check(group_size >= 1, prim, cid, lambda: f"group_size is {group_size}, expected group_size >= 1")


def registered_group(group):
    """The process group this process registered as ``group``, or None where it has none (a trace made
    without torch.distributed, or for another process's group)."""
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return None
    from torch.distributed.distributed_c10d import _resolve_process_group
    try:
        return _resolve_process_group(group)
    except (ValueError, RuntimeError, KeyError):
        return None


def _check_registered_size(prim, cid, group_size, group, what="group_size"):
    pg = registered_group(group)
    check(pg is None or group_size == pg.size(), prim, cid, lambda: f"{what} is {group_size}, but group "
          f"{group!r} has {pg.size()} ranks")
    return pg


def _check_rank_in_group(prim, cid, name, rank, group_size):
    check(0 <= rank < group_size, prim, cid, lambda: f"{name} is {rank}, expected 0 <= {name} < group_size "
          f"({group_size})")


def _check_not_scalar(prim, cid, a):
    check(len(a.shape) >= 1, prim, cid, lambda: f"a has shape {shape_str(a.shape)}, expected rank >= 1 "
          f"(the collective splits or concatenates along dim 0)")


def _like(a, shape=None):
    """A contiguous result of a's dtype and device."""
    return contiguous_meta(a.shape if shape is None else shape, a.dtype, a.device)


@meta_rule("all_reduce", params={"reduce_ops": reduce_ops_table}, constraints=("C1", "C2", "C3"))
def all_reduce(prim, a, op, group):
    check_dtype(prim, "C3", a, prim.dtypes)
    check_reduce_op(prim, op, a)
    return _like(a)


@meta_rule("all_gather", constraints=("C1", "C2", "C3", "C4"))
def all_gather(prim, a, group_size, group):
    check_dtype(prim, "C3", a, prim.dtypes)
    _check_group_size(prim, "C1", group_size)
    _check_not_scalar(prim, "C2", a)
    _check_registered_size(prim, "C4", group_size, group)
    return _like(a, (group_size * a.shape[0], *a.shape[1:]))


@meta_rule("reduce_scatter", params={"reduce_ops": reduce_ops_table}, constraints=("C1", "C2", "C3", "C4", "C5", "C6", "C7"))
def reduce_scatter(prim, a, op, group_size, group):
    check_dtype(prim, "C6", a, prim.dtypes)
    check_reduce_op(prim, op, a)
    _check_group_size(prim, "C3", group_size)
    _check_not_scalar(prim, "C4", a)
    check(a.shape[0] % group_size == 0, prim, "C5", lambda: f"a.shape[0] is {a.shape[0]}, not divisible by "
          f"group_size {group_size}")
    _check_registered_size(prim, "C7", group_size, group)
    return _like(a, (a.shape[0] // group_size, *a.shape[1:]))


@meta_rule("all_to_all", constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def all_to_all(prim, a, output_splits, input_splits, group):
    check_dtype(prim, "C5", a, prim.dtypes)
    _check_not_scalar(prim, "C1", a)
    check(len(output_splits) == len(input_splits) >= 1, prim, "C2", lambda: f"output_splits has "
          f"{len(output_splits)} entries and input_splits {len(input_splits)}, expected one per rank of the group")
    for name, splits in (("output_splits", output_splits), ("input_splits", input_splits)):
        for i, s in enumerate(splits):
            check(s >= 0, prim, "C3", lambda: f"{name}[{i}] is {s}, expected >= 0")
    total = sum(input_splits)
    check(total == a.shape[0], prim, "C4", lambda: f"input_splits sum to {total} but a.shape[0] is {a.shape[0]}")
    pg = _check_registered_size(prim, "C6", len(input_splits), group, "the number of splits")
    if pg is not None:
        r = pg.rank()
        check(output_splits[r] == input_splits[r], prim, "C6", lambda: f"this rank ({r}) sends itself "
              f"input_splits[{r}] = {input_splits[r]} rows but receives output_splits[{r}] = {output_splits[r]}")
    return _like(a, (sum(output_splits), *a.shape[1:]))


@meta_rule("broadcast", constraints=("C1", "C2", "C3", "C4"))
def broadcast(prim, a, src, group_size, group):
    check_dtype(prim, "C3", a, prim.dtypes)
    _check_group_size(prim, "C1", group_size)
    _check_rank_in_group(prim, "C2", "src", src, group_size)
    _check_registered_size(prim, "C4", group_size, group)
    return _like(a)


@meta_rule("reduce", params={"reduce_ops": reduce_ops_table}, constraints=("C1", "C2", "C3", "C4", "C5", "C6"))
def reduce(prim, a, op, dst, group_size, group):
    check_dtype(prim, "C5", a, prim.dtypes)
    check_reduce_op(prim, op, a)
    _check_group_size(prim, "C3", group_size)
    _check_rank_in_group(prim, "C4", "dst", dst, group_size)
    _check_registered_size(prim, "C6", group_size, group)
    return _like(a)


@meta_rule("wait", constraints=("C1",))
def wait(prim, a):
    check_dtype(prim, "C1", a, prim.dtypes)
    return TensorMeta(tuple(a.shape), tuple(a.stride()), a.dtype, a.device)     # a's layout: wait returns a
