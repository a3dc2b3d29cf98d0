"""OpInfo entries: torch's functional collectives (``torch.ops._c10d_functional``, the
``_c10d_functional_autograd`` forms, ``_dtensor::shard_dim_alltoall``), each called as a program calls
it (the collective, then ``wait_tensor``) on this process's group (``world_group``: a gloo group of one
rank in the tests; several ranks are the multi-process tests'). Eager gives no gradient through the
plain functional collectives (only the ``_autograd`` forms have one), so only those entries check
gradients."""
from __future__ import annotations

import torch

from primkit.opinfo.core import OpInfo, SampleInput
from primkit.opinfo.prims.collective import world_group
from primkit.opinfo.samples import make

DTYPES = frozenset({torch.float32, torch.float64, torch.int64, torch.bool, torch.complex64})
# gloo's allgather (out= and coalesced forms) and alltoall refuse complex tensors in eager ("Invalid scalar
# type"); the prims communicate a complex tensor's real view
REAL = DTYPES - {torch.complex64}
SHAPES = ((4, 3), (2, 3, 2), (3,))


def _c10d():
    return torch.ops._c10d_functional


def _waited(t):
    return [_c10d().wait_tensor(x) for x in t] if isinstance(t, list) else _c10d().wait_tensor(t)


def _dense_only():
    """Whether this torch's gathering, scattering and all-to-all functional collectives refuse a
    non-contiguous input (torch 2.11's do, in eager: "Expected input.is_contiguous()"; 2.13's take any).
    2.11's schemas also name the group `str group_name`, where 2.13's say `Any`: that tells them apart."""
    return "str group_name" in str(_c10d().all_gather_into_tensor.default._schema)


def _operands(device, dtype, strided=True):
    for shape in SHAPES:
        yield str(shape), make(shape, device, dtype)
    if strided:
        yield "transposed", make((3, 4), device, dtype).t()


def _reduce_op(dtype):
    """A reduce op every dtype of DTYPES takes: max except for complex (sum)."""
    return "sum" if dtype.is_complex else "max"


def _samples(build, strided=True):
    """Samples on the group: ``build(a, dtype, group)`` -> the arguments after ``a``; a non-contiguous
    operand too unless ``strided`` is False."""
    def samples(op, device, dtype):
        group = world_group()
        for name, a in _operands(device, dtype, strided):
            yield SampleInput(a, build(a, dtype, group), name=name)
    return samples


def _pair_samples(build, strided=True):
    """Samples of a coalesced form: a list of two operands, the second transposed unless ``strided`` is False."""
    def samples(op, device, dtype):
        group = world_group()
        a, b = make((4, 3), device, dtype), make((2, 5), device, dtype).t()
        yield SampleInput([a, b if strided else b.contiguous()], build(a, dtype, group), name="two tensors")
    return samples


def _size():
    import torch.distributed as dist
    return dist.get_world_size()


def _entry(name, op, aten, samples, *, autograd=False, dtypes=DTYPES):
    return OpInfo(name=name, op=op, aten=tuple(aten), sample_inputs=samples, dtypes=dtypes, family="collective",
                  supports_autograd=autograd)


def _entries():
    C = _c10d()
    A = torch.ops._c10d_functional_autograd
    wait = "_c10d_functional::wait_tensor"
    dense = dict(strided=not _dense_only())   # the gathering, scattering and all-to-all ones
    return [
        _entry("_c10d_functional.all_reduce", lambda a, op, g: _waited(C.all_reduce(a, op, g)),
               ["_c10d_functional::all_reduce", wait], _samples(lambda a, d, g: (_reduce_op(d), g))),
        _entry("_c10d_functional.all_reduce_", lambda a, op, g: _waited(C.all_reduce_(a.clone(), op, g)),
               ["_c10d_functional::all_reduce_", wait], _samples(lambda a, d, g: (_reduce_op(d), g))),
        _entry("_c10d_functional.all_reduce_coalesced", lambda ts, op, g: _waited(C.all_reduce_coalesced(ts, op, g)),
               ["_c10d_functional::all_reduce_coalesced", wait], _pair_samples(lambda a, d, g: (_reduce_op(d), g))),
        _entry("_c10d_functional.all_reduce_coalesced_",
               lambda ts, op, g: _waited(C.all_reduce_coalesced_([t.clone() for t in ts], op, g)),
               ["_c10d_functional::all_reduce_coalesced_", wait], _pair_samples(lambda a, d, g: (_reduce_op(d), g))),
        _entry("_c10d_functional.all_gather_into_tensor", lambda a, n, g: _waited(C.all_gather_into_tensor(a, n, g)),
               ["_c10d_functional::all_gather_into_tensor", wait], _samples(lambda a, d, g: (_size(), g), **dense)),
        _entry("_c10d_functional.all_gather_into_tensor_out",
               lambda a, n, g: _waited(C.all_gather_into_tensor_out(a, n, g, out=a.new_empty((n * a.shape[0], *a.shape[1:])))),
               ["_c10d_functional::all_gather_into_tensor_out", wait], _samples(lambda a, d, g: (_size(), g), **dense),
               dtypes=REAL),
        _entry("_c10d_functional.all_gather_into_tensor_coalesced",
               lambda ts, n, g: _waited(C.all_gather_into_tensor_coalesced(ts, n, g)),
               ["_c10d_functional::all_gather_into_tensor_coalesced", wait], _pair_samples(lambda a, d, g: (_size(), g), **dense),
               dtypes=REAL),
        _entry("_c10d_functional.reduce_scatter_tensor", lambda a, op, n, g: _waited(C.reduce_scatter_tensor(a, op, n, g)),
               ["_c10d_functional::reduce_scatter_tensor", wait], _samples(lambda a, d, g: (_reduce_op(d), _size(), g), **dense)),
        _entry("_c10d_functional.reduce_scatter_tensor_out",
               lambda a, op, n, g: _waited(C.reduce_scatter_tensor_out(a, op, n, g, out=a.new_empty((a.shape[0] // n, *a.shape[1:])))),
               ["_c10d_functional::reduce_scatter_tensor_out", wait], _samples(lambda a, d, g: (_reduce_op(d), _size(), g), **dense)),
        _entry("_c10d_functional.reduce_scatter_tensor_coalesced",
               lambda ts, op, n, g: _waited(C.reduce_scatter_tensor_coalesced(ts, op, n, g)),
               ["_c10d_functional::reduce_scatter_tensor_coalesced", wait],
               _pair_samples(lambda a, d, g: (_reduce_op(d), _size(), g), **dense)),
        _entry("_c10d_functional.all_to_all_single", lambda a, o, i, g: _waited(C.all_to_all_single(a, o, i, g)),
               ["_c10d_functional::all_to_all_single", wait], _samples(lambda a, d, g: ([a.shape[0]], [a.shape[0]], g), **dense),
               dtypes=REAL),
        _entry("_c10d_functional.broadcast", lambda a, src, g: _waited(C.broadcast(a, src, g)),
               ["_c10d_functional::broadcast", wait], _samples(lambda a, d, g: (0, g))),
        _entry("_c10d_functional.broadcast_", lambda a, src, g: _waited(C.broadcast_(a.clone(), src, g)),
               ["_c10d_functional::broadcast_", wait], _samples(lambda a, d, g: (0, g))),
        _entry("_c10d_functional._wrap_tensor_autograd", lambda a, op, g: C._wrap_tensor_autograd(C.all_reduce(a, op, g)),
               ["_c10d_functional::_wrap_tensor_autograd"], _samples(lambda a, d, g: (_reduce_op(d), g))),
        _entry("_c10d_functional_autograd.all_gather_into_tensor",
               lambda a, n, g: _waited(A.all_gather_into_tensor(a, n, g)),
               ["_c10d_functional_autograd::all_gather_into_tensor", wait], _samples(lambda a, d, g: (_size(), g), **dense),
               autograd=True),
        _entry("_c10d_functional_autograd.reduce_scatter_tensor",
               lambda a, op, n, g: _waited(A.reduce_scatter_tensor(a, op, n, g)),
               ["_c10d_functional_autograd::reduce_scatter_tensor", wait], _samples(lambda a, d, g: ("sum", _size(), g), **dense),
               autograd=True, dtypes=DTYPES - {torch.bool}),
        _entry("_c10d_functional_autograd.all_to_all_single",
               lambda a, o, i, g: _waited(A.all_to_all_single(a, o, i, g)),
               ["_c10d_functional_autograd::all_to_all_single", wait],
               _samples(lambda a, d, g: ([a.shape[0]], [a.shape[0]], g), **dense), autograd=True, dtypes=REAL),
        _entry("_dtensor.shard_dim_alltoall", lambda a, gd, sd, g: torch.ops._dtensor.shard_dim_alltoall(a, gd, sd, g),
               ["_dtensor::shard_dim_alltoall"], _samples(lambda a, d, g: (0, a.dim() - 1, g))),
    ]


ENTRIES = _entries() if torch.distributed.is_available() and hasattr(torch.ops._c10d_functional, "all_reduce") else []
