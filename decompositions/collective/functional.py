"""Decompositions of torch's functional collectives (``torch.ops._c10d_functional``, their
``_c10d_functional_autograd`` forms and ``_dtensor::shard_dim_alltoall``) to the collective prims.

A functional collective returns its result pending and ``wait_tensor`` waits for it: the prims do
the same (``wait``), so a graph keeps the program's overlap of communication and compute. The
in-place (``all_reduce_``, ``broadcast_``), out= and coalesced forms compute functionally, wait,
and write with ``copy_to``; a later ``wait_tensor`` of the written tensor is a ``wait`` of a value
that is already there. A ProcessGroup argument becomes the name torch.distributed registered it
under: the prims take group names.

Not decomposed: the point-to-point ops ``isend``, ``irecv`` and ``batch_p2p_ops`` (which rank talks to
which is a property of the rank, not of the program every rank runs; no collective prim expresses
it yet).
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, into_out, write_into
from primkit.decompositions.registry import register

__all__ = ["group_name", "NOT_DECOMPOSED"]

# overload name -> why it has no decomposition (the coverage report lists them so)
NOT_DECOMPOSED = {
    "_c10d_functional::isend": "point-to-point: the peer is a property of the rank, not of the program",
    "_c10d_functional::irecv": "point-to-point: the peer is a property of the rank, not of the program",
    "_c10d_functional::batch_p2p_ops": "point-to-point: the peers are properties of the rank, not of the program",
}


def group_name(group, op="collective") -> str:
    """The registered name of a process group argument: a name as it is, a ProcessGroup (or the opaque
    object a trace holds for one) by its ``group_name``."""
    if isinstance(group, str):
        return group
    from torch._library.fake_class_registry import maybe_unwrap_fake_script_object
    group = maybe_unwrap_fake_script_object(group)
    name = getattr(group, "group_name", None)
    if not isinstance(name, str):
        raise TypeError(f"{op}: group_name must be a group name (str) or a ProcessGroup, got "
                        f"{type(group).__name__}")
    return name


if torch.distributed.is_available():
    # defines the Python parts of the functional collectives (_wrap_tensor_autograd, the ProcessGroup
    # argument handling) that traced programs hold; 15 ms
    import torch.distributed._functional_collectives  # noqa: F401


def _ops(namespace, op):
    """torch.ops.<namespace>, or None where this torch lacks its op ``op`` (built without distributed)."""
    ns = getattr(torch.ops, namespace)
    return ns if hasattr(ns, op) else None


C = _ops("_c10d_functional", "all_reduce")
AUTOGRAD = _ops("_c10d_functional_autograd", "all_to_all_single")
DTENSOR = _ops("_dtensor", "shard_dim_alltoall")


# --- the functional collectives: a prim each, its result pending ----------------------------------

def all_reduce(input, reduce_op, group_name_):
    return P.all_reduce(input, reduce_op, group_name(group_name_, "all_reduce"))


def all_gather_into_tensor(input, group_size, group_name_):
    return P.all_gather(input, group_size, group_name(group_name_, "all_gather_into_tensor"))


def reduce_scatter_tensor(input, reduce_op, group_size, group_name_):
    return P.reduce_scatter(input, reduce_op, group_size, group_name(group_name_, "reduce_scatter_tensor"))


def all_to_all_single(input, output_split_sizes, input_split_sizes, group_name_):
    return P.all_to_all(input, list(output_split_sizes), list(input_split_sizes),
                        group_name(group_name_, "all_to_all_single"))


def broadcast(input, src, group_name_):
    name = group_name(group_name_, "broadcast")
    return P.broadcast(input, src, _group_size(name), name)


def wait_tensor(tensor):
    return P.wait(tensor)


def _wrap_tensor_autograd(input):
    """A collective's pending result wrapped as an AsyncCollectiveTensor, which waits when first used:
    waited here."""
    return P.wait(input)


def _group_size(name):
    """The size of the group registered as ``name`` (broadcast and shard_dim_alltoall do not pass it)."""
    from primkit.prims.reference.collective import process_group
    return process_group(name).size()


# --- coalesced forms: one prim per tensor, in order --------------------------------------------------

def all_reduce_coalesced(inputs, reduce_op, group_name_):
    return [all_reduce(x, reduce_op, group_name_) for x in inputs]


def all_gather_into_tensor_coalesced(inputs, group_size, group_name_):
    return [all_gather_into_tensor(x, group_size, group_name_) for x in inputs]


def reduce_scatter_tensor_coalesced(inputs, reduce_op, group_size, group_name_):
    return [reduce_scatter_tensor(x, reduce_op, group_size, group_name_) for x in inputs]


# --- in-place and out= forms: wait, then write ------------------------------------------------------

def _waited(fn):
    def waited(*args, **kwargs):
        return P.wait(fn(*args, **kwargs))
    waited.__name__ = waited.__qualname__ = fn.__name__
    waited.__module__ = fn.__module__
    return waited


def all_reduce_(input, reduce_op, group_name_):
    return write_into(input, P.wait(all_reduce(input, reduce_op, group_name_)), "all_reduce_")


def broadcast_(input, src, group_name_):
    return write_into(input, P.wait(broadcast(input, src, group_name_)), "broadcast_")


def all_reduce_coalesced_(inputs, reduce_op, group_name_):
    results = [P.wait(r) for r in all_reduce_coalesced(inputs, reduce_op, group_name_)]
    return [write_into(x, r, "all_reduce_coalesced_") for x, r in zip(inputs, results)]


# --- _dtensor::shard_dim_alltoall: a gather along one dim and a scatter along another ----------------

def shard_dim_alltoall(input, gather_dim, shard_dim, group_name_):
    """Rank r's result: chunk r (of size(shard_dim) // n, along shard_dim) of every rank's input,
    concatenated along gather_dim in rank order (gather_dim == shard_dim included, as torch runs it). One
    all_to_all: rank s sends its chunk r, flattened, to rank r."""
    aten = torch.ops.aten
    name = group_name(group_name_, "shard_dim_alltoall")
    n = _group_size(name)
    ndim = input.dim()
    gather_dim, shard_dim = gather_dim % ndim, shard_dim % ndim
    chunk = input.shape[shard_dim] // n
    pieces = [aten.narrow(input, shard_dim, r * chunk, chunk) for r in range(n)]
    piece_shape = list(pieces[0].shape)
    numel = pieces[0].numel()
    send = aten.cat([aten.reshape(p, [-1]) for p in pieces])
    received = P.wait(P.all_to_all(send, [numel] * n, [numel] * n, name))
    blocks = [aten.reshape(aten.narrow(received, 0, r * numel, numel), piece_shape) for r in range(n)]
    return aten.cat(blocks, gather_dim)


# --- registration ------------------------------------------------------------------------------------

if C is not None:
    for _fn in (all_reduce, all_gather_into_tensor, reduce_scatter_tensor, all_to_all_single, broadcast, wait_tensor,
                all_reduce_coalesced, all_gather_into_tensor_coalesced, reduce_scatter_tensor_coalesced,
                all_reduce_, broadcast_, all_reduce_coalesced_) + ((_wrap_tensor_autograd,) if hasattr(
                    C, "_wrap_tensor_autograd") else ()):
        register(getattr(C, _fn.__name__).default)(_fn)
    register(C.all_gather_into_tensor_out.default)(
        into_out(_waited(all_gather_into_tensor), C.all_gather_into_tensor_out.default))
    register(C.reduce_scatter_tensor_out.default)(
        into_out(_waited(reduce_scatter_tensor), C.reduce_scatter_tensor_out.default))
if AUTOGRAD is not None:
    for _fn in (all_gather_into_tensor, reduce_scatter_tensor, all_to_all_single):
        register(getattr(AUTOGRAD, _fn.__name__).default)(_fn)
if DTENSOR is not None:
    register(DTENSOR.shard_dim_alltoall.default)(shard_dim_alltoall)
