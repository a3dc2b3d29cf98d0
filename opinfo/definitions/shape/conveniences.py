"""OpInfo entries: the CompositeImplicitAutograd conveniences of torch.* and Tensor (flatten, movedim, narrow,
chunk, tensor_split, hstack, atleast_2d, broadcast_to, mT, view_as, where, ...)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput, XFail
from primkit.opinfo.definitions.common import list_samples
from primkit.opinfo.definitions.shape.common import (DENSE, EVERY, _packet_entry, _table_entry, cases, entry, errors,
    tensor_lists)
from primkit.opinfo.samples import layouts, make


def _expand_as_samples(op, device, dtype):
    for name, t in layouts((3, 1), device, dtype):
        yield SampleInput(t, (make((2, 3, 4), device, dtype),), name=name)


def _movedim_samples(op, device, dtype):
    yield from cases(((2, 3, 4), (0, 2)), ((2, 3, 4, 5), ((0, 1), (-1, 2))), ((4, 5), (-1, 0)))(op, device, dtype)


def _other_samples(pairs, on=EVERY):
    """(input shape, other shape) pairs on the layouts ``on`` of the input."""
    def gen(op, device, dtype):
        for shape, other in pairs:
            for name, t in layouts(shape, device, dtype):
                if name in on:
                    yield SampleInput(t, (make(other, device, dtype),), name=f"{name} {shape} as {other}")
    return gen


def _broadcast_tensors_samples(op, device, dtype):
    for shapes in (((3, 1), (1, 4)), ((2, 3, 4), (4,), ()), ((0, 3), (1, 3)), ((5,),)):
        yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")


SPLIT_ERRORS = errors(((), (2,), RuntimeError, "tensor_split expected at least a 1-dimensional tensor"),
                      ((4,), (0,), RuntimeError, "number of sections must be larger than 0"))


MATRIX_ERRORS = errors(((3,), (), RuntimeError, "only supported on matrices or batches of matrices"))


MATRICES = cases(((4, 5), ()), ((2, 3, 4), ()), ((0, 3), ()), ((2, 3, 4, 5), ()))


ATLEAST = cases(((), ()), ((3,), ()), ((4, 5), ()), ((2, 3, 4), ()), ((0,), ()))


def _narrow_tensor_samples(on):
    """narrow with start a 0-d integer tensor (negative: from the end) on the layouts ``on``."""
    def gen(op, device, dtype):
        for shape, dim, start, length in (((7, 4), 0, 1, 3), ((4, 6), -1, 2, 4), ((2, 3, 4, 5), 1, -2, 2),
                                          ((4, 6), 1, 0, 0), ((4, 6), 1, -6, 6), ((4, 6), 0, 4, 0)):
            for name, t in layouts(shape, device, dtype):
                if name in on:
                    yield SampleInput(t, (dim, torch.tensor(start, device=device), length),
                                      name=f"{name} {shape} dim {dim} start {start} length {length}")
        if "contiguous" in on:
            yield SampleInput(make((5, 3), device, dtype), (0, torch.tensor(2, dtype=torch.int32, device=device), 3),
                              name="int32 start")
    return gen


def _narrow_tensor_errors(op, device):
    x, start = make((4, 6), device, torch.float32), torch.tensor(1, device=device)
    for args, exc, match in (((1, torch.tensor(1.0, device=device), 2), RuntimeError, "0-dim integral Tensor"),
                             ((1, torch.tensor([1], device=device), 2), RuntimeError, "0-dim integral Tensor"),
                             ((1, start, -1), RuntimeError, "length must be non-negative"),
                             ((1, torch.tensor(0, device=device), 7), RuntimeError, "exceeds dimension size"),
                             ((2, start, 1), IndexError, "Dimension out of range")):
        yield ErrorInput(SampleInput(x, args, name=match), exc, match)
    yield ErrorInput(SampleInput(make((), device, torch.float32), (0, start, 0), name="0-d"), RuntimeError,
                     "cannot be applied to a 0-dim tensor")


def _where_condition_samples(op, device, dtype):
    for shape in ((), (0,), (1,), (7,), (3, 4), (2, 3, 4)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    yield SampleInput(make((4, 5), device, dtype, noncontiguous=True), name="noncontiguous")
    yield SampleInput(make((5, 4), device, dtype).t(), name="transposed")
    yield SampleInput(torch.zeros(3, 4, device=device, dtype=dtype), name="all zero")
    yield SampleInput(torch.zeros((), device=device, dtype=dtype), name="0-d zero")


ENTRIES = [
    entry("flatten", torch.flatten, ["aten::flatten.using_ints"],
          cases(((2, 3, 4), ()), ((2, 3, 4, 5), (1, 2)), ((), ()), ((0, 3), (0, -1)), ((4, 5), (-1,)))),
    entry("unflatten", torch.unflatten, ["aten::unflatten.int"],
          cases(((6, 4), (0, (2, 3))), ((4, 6), (-1, (3, -1))), ((2, 3, 4, 5), (1, (3, 1))))),
    entry("swapaxes", torch.swapaxes, ["aten::swapaxes"], cases(((2, 3, 4), (0, 2)), ((4, 5), (-1, 0)))),
    entry("movedim", torch.movedim, ["aten::movedim.int", "aten::movedim.intlist"], _movedim_samples),
    entry("expand_as", torch.Tensor.expand_as, ["aten::expand_as"], _expand_as_samples),
    entry("narrow", torch.narrow, ["aten::narrow"], cases(((7, 4), (0, 1, 3)), ((4, 6), (-1, 2, 4)),
                                                         ((2, 3, 4, 5), (1, -2, 2)), ((4, 6), (1, 0, 0))),
          errs=errors(((4, 6), (1, 3, 5), RuntimeError, "exceeds dimension size"))),
    entry("chunk", torch.chunk, ["aten::chunk"],
          cases(((7, 4), (3,)), ((7, 4), (2, 1)), ((2, 3, 4, 5), (5, -1)), ((0, 4), (2,)))),
    entry("tensor_split", torch.tensor_split, ["aten::tensor_split.sections", "aten::tensor_split.indices"],
          cases(((7, 4), (3,)), ((7, 4), ([1, 5],)), ((7, 4), ([2, 2, 9], 1)), ((4, 6), (4, -1)))),
    entry("hstack", torch.hstack, ["aten::hstack"], tensor_lists(([(2, 3), (2, 4)], ()), ([(3,), (2,)], ()),
                                                                 extras=False)),
    entry("vstack", torch.vstack, ["aten::vstack"], tensor_lists(([(2, 3), (4, 3)], ()), ([(3,), (3,)], ()),
                                                                 extras=False)),
    entry("tile", torch.tile, ["aten::tile"], cases(((4, 5), ((2,),)), ((4, 5), ((2, 1, 3),)), ((), ((2,),)))),
    _table_entry("movedim", _movedim_samples, entry_name="movedim.table",
                 errs=errors(((2, 3), (0, 2), IndexError, "Dimension out of range"),
                             ((2, 3), ((0, 1), (0,)), RuntimeError, "Invalid source or destination dims"),
                             ((2, 3), ((0, 0), (0, 1)), RuntimeError, "repeated dim"))),
    _table_entry("ravel", cases(((2, 3, 4), ()), ((), ()), ((0, 3), ()), ((4, 5), ()))),
    _table_entry("flatten", cases(((2, 3, 4), ()), ((2, 3, 4, 5), (1, 2)), ((), ()), ((0, 3), (0, -1)), ((4, 5), (-1,)),
                                  ((4, 5), (1, 1))), entry_name="flatten.table",
                 errs=errors(((2, 3, 4), (2, 1), RuntimeError, "start_dim cannot come after end_dim"))),
    _table_entry("unflatten", cases(((6, 4), (0, (2, 3))), ((4, 6), (-1, (3, -1))), ((2, 3, 4, 5), (1, (3, 1)))),
                 entry_name="unflatten.table", errs=errors(((6,), (0, ()), RuntimeError, "sizes must be non-empty"))),
    _table_entry("narrow", cases(((7, 4), (0, 1, 3)), ((4, 6), (-1, 2, 4)), ((2, 3, 4, 5), (1, -2, 2)),
                                 ((4, 6), (1, 0, 0))), entry_name="narrow.table",
                 errs=errors(((4, 6), (1, 3, 5), RuntimeError, "exceeds dimension size"),
                             ((), (0, 0, 1), RuntimeError, "cannot be applied to a 0-dim tensor"))),
    _table_entry("tile", cases(((4, 5), ((2,),)), ((4, 5), ((2, 1, 3),)), ((), ((2,),)), ((0, 3), ((2, 2),))),
                 entry_name="tile.table"),
    _table_entry("chunk", cases(((7, 4), (3,)), ((7, 4), (2, 1)), ((2, 3, 4, 5), (5, -1)), ((0, 4), (2,)),
                                ((6,), (4,))), entry_name="chunk.table",
                 errs=errors(((4,), (0,), RuntimeError, "chunk expects `chunks` to be greater than 0"),
                             ((), (1,), RuntimeError, "chunk expects at least a 1-dimensional tensor"))),
    _table_entry("unsafe_chunk", cases(((7, 4), (3,)), ((2, 3, 4, 5), (5, -1)))),
    _table_entry("tensor_split", cases(((7, 4), (3,)), ((7, 4), ([1, 5],)), ((7, 4), ([2, 2, 9], 1)),
                                       ((4, 6), (4, -1)), ((4, 6), ([5, 1],))), entry_name="tensor_split.table",
                 errs=SPLIT_ERRORS),
    _table_entry("hsplit", cases(((4, 6), (3,)), ((6,), (2,)), ((4, 6), ([1, 4],)))),
    _table_entry("vsplit", cases(((4, 6), (2,)), ((4, 6), ([1, 3],)))),
    _table_entry("dsplit", cases(((2, 3, 4), (2,)), ((2, 3, 4), ([1],))),
                 errs=errors(((2, 3), (1,), RuntimeError, "requires a tensor with at least 3 dimension"))),
    _table_entry("hstack", list_samples([(2, 3), (2, 4)], [(3,), (2,)]), entry_name="hstack.table", out=True),
    _table_entry("vstack", list_samples([(2, 3), (4, 3)], [(3,), (3,)]), entry_name="vstack.table", out=True),
    _table_entry("dstack", list_samples([(2, 3), (2, 3)], [(3,), (3,)], [(2, 3, 1), (2, 3, 2)]), out=True),
    _table_entry("column_stack", list_samples([(3,), (3, 2)], [(), ()], [(4,), (4,)]), out=True),
    _table_entry("atleast_1d", ATLEAST), _table_entry("atleast_2d", ATLEAST), _table_entry("atleast_3d", ATLEAST),
    _table_entry("broadcast_to", cases(((3, 1), ([3, 4],)), ((), ([2, 3],)), ((4, 5), ([2, 4, 5],))),
                 errs=errors(((3, 2), ([3, 4],), RuntimeError, "must match the existing size"))),
    _table_entry("broadcast_tensors", _broadcast_tensors_samples),
    _table_entry("fliplr", cases(((4, 5), ()), ((2, 3, 4), ()), ((0, 3), ())),
                 errs=errors(((3,), (), RuntimeError, "Input must be >= 2-d"))),
    _table_entry("flipud", cases(((4, 5), ()), ((7,), ()), ((0, 3), ())),
                 errs=errors(((), (), RuntimeError, "Input must be >= 1-d"))),
    _table_entry("mT", MATRICES, errs=MATRIX_ERRORS), _table_entry("mH", MATRICES, errs=MATRIX_ERRORS),
    _table_entry("adjoint", MATRICES, errs=MATRIX_ERRORS), _table_entry("matrix_H", cases(((4, 5), ()), ((0, 3), ())),
                errs=errors(((2, 3, 4), (), RuntimeError, "only supported on matrices \\(2-D tensors\\)"))),
    _table_entry("numpy_T", cases(((4, 5), ()), ((2, 3, 4), ()), ((), ()), ((7,), ()))),
    _table_entry("view_as", _other_samples((((2, 3, 4), (6, 4)), ((), (1,)), ((0, 3), (3, 0))), on=DENSE),
                 errs=lambda op, device: iter([ErrorInput(
                     SampleInput(make((3, 4), device, torch.float32).t(), (make((12,), device, torch.float32),)),
                     RuntimeError, "view size is not compatible")])),
    _table_entry("reshape_as", _other_samples((((2, 3, 4), (6, 4)), ((4, 5), (5, 4)), ((), (1, 1))))),
    _table_entry("expand_as", _other_samples((((3, 1), (2, 3, 4)), ((), (2, 3)))), entry_name="expand_as.table"),
    # start as a 0-d tensor: eager reads it with .item(), the decomposition keeps it as data
    _packet_entry("narrow", torch.narrow, _narrow_tensor_samples(("contiguous", "noncontiguous", "transposed",
                                                                  "channels_last")),
                        entry_name="narrow.Tensor", out=False, errs=_narrow_tensor_errors,
                        aten_names=["aten::narrow.Tensor"]),
    _packet_entry("narrow", torch.narrow, _narrow_tensor_samples(("expanded",)), entry_name="narrow.Tensor.expanded", out=False,
                        aten_names=["aten::narrow.Tensor"],
                        xfails=[XFail("strides", "eager's view keeps the input's stride 0; dynamic_slice copies the block, "
                                      "laid out dense in the input's dim order", raises=AssertionError)]),
    # the one-argument torch.where: nonzero(as_tuple=True)
    _packet_entry("where", torch.where, _where_condition_samples, entry_name="where.condition", out=False,
                  aten_names=["aten::where"],
                  supports_autograd=False),   # int64 indices
    _packet_entry("nonzero_numpy", torch.ops.aten.nonzero_numpy, _where_condition_samples, out=False,
                  supports_autograd=False),   # int64 indices
]
