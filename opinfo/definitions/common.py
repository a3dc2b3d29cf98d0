"""Helpers shared by the family modules of opinfo.definitions: entry builders (each takes the
entry's ``family``), error rows, sample generators used by more than one family, and
``through_table``. Imports no family module, so any of them may import it."""
from __future__ import annotations

import torch

from primkit.decompositions.composite import tracing_table
from primkit.decompositions.registry import DecompositionError
from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.dtypes import ALL, FLOATING
from primkit.opinfo.samples import layouts, make

aten = torch.ops.aten


def through_table(name):
    """aten.<name> as eager runs it; under a tracer, the decomposition the tracer's table holds
    for the overload eager picks. make_fx runs a CompositeImplicitAutograd op's own kernel before
    the table is consulted (torch.export keeps the op and its run_decompositions uses the table),
    so without this the tests would check torch's composite instead of our decomposition."""
    packet = getattr(aten, name)

    def op(*args, **kwargs):
        table = tracing_table()
        if table is None:
            return packet(*args, **kwargs)
        overload = getattr(packet, torch._C._jit_resolve_packet(packet._qualified_op_name, *args, **kwargs))
        if overload not in table:
            raise DecompositionError([overload.name()], f"through_table({name}): ")
        return table[overload](*args, **kwargs)
    op.__name__ = name
    return op


def aten_entry(name, op, aten_names, samples, errors=None, *, family, dtypes=ALL, **kw):
    """An entry whose ``aten`` is ``aten_names``."""
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, error_inputs=errors,
                  dtypes=frozenset(dtypes), family=family, **kw)


def packet_entry(name, op, samples, *, family, errs=None, dtypes=ALL, out=True, entry_name=None, aten_names=None,
                 **kw):
    """An entry (named ``entry_name`` or ``name``) whose ``aten`` is ``aten_names`` or every overload
    of aten.<name>."""
    packet = getattr(aten, name)
    names = tuple(aten_names or (f"aten::{name}" + ("" if o == "default" else f".{o}") for o in packet.overloads()))
    return OpInfo(name=entry_name or name, op=op, aten=names, sample_inputs=samples, error_inputs=errs,
                  dtypes=frozenset(dtypes), supports_out=out, family=family, **kw)


def table_entry(name, samples, *, family, out=False, **kw):
    """A ``packet_entry`` that calls aten.<name> ``through_table``."""
    return packet_entry(name, through_table(name), samples, family=family, out=out, **kw)


def functional_entry(name, op, aten_names, samples, *, family, dtypes=FLOATING, errors=None, tolerances=None,
                     xfails=(), inplace=None, out=False, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, dtypes=frozenset(dtypes),
                  error_inputs=errors, tolerances=tolerances or {}, xfails=tuple(xfails), inplace=inplace,
                  supports_out=out, family=family, **kw)


def error_rows(*rows):
    """Error rows (sample, exception, regex on eager's message); a sample is (input, args, kwargs)
    built on the device by a function."""
    def gen(op, device):
        for build, exc, match in rows:
            input_, args, kwargs = build(device)
            yield ErrorInput(SampleInput(input_, args, kwargs, name=match), exc, match)
    return gen


def positional_out(overload):
    """aten.<op>.<out overload> with out=, else the packet (which out= would resolve elsewhere)."""
    def op(*args, out=None, **kwargs):
        return overload.overloadpacket(*args, **kwargs) if out is None else overload(*args, out=out, **kwargs)
    op.__name__ = str(overload)
    return op


def make_f32(shape, device, dtype=torch.float32, **kw):
    """``make`` whose dtype defaults to float32 (for index and auxiliary tensors)."""
    return make(shape, device, dtype, **kw)


def complex_samples(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, name=f"{name} {shape}")


def list_samples(*rows):
    """Samples whose input is a list of tensors: rows of shapes."""
    def gen(op, device, dtype):
        for shapes in rows:
            yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
        t = make((5, 4), device, dtype).t()
        yield SampleInput([t, t], name="transposed inputs")
    return gen
