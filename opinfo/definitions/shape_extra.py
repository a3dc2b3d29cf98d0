"""OpInfo entries: functional copies of views (<view>_copy) and the *_scatter ops.

The copies share their view's samples and errors (opinfo.definitions.shape): the result is the
view's values in a fresh contiguous tensor, whatever the input's layout.
"""
from __future__ import annotations

import dataclasses

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.aliases import through_table
from primkit.opinfo.definitions import shape as views
from primkit.opinfo.definitions.shape import DENSE, EVERY, cases, errors
from primkit.opinfo.dtypes import ALL, COMPLEX, FLOAT32_64, FLOATING
from primkit.opinfo.samples import layouts, make


def entry(name, op, samples, *, errs=None, dtypes=ALL, out=True, entry_name=None, aten_names=None, **kw):
    """An entry (named ``entry_name`` or ``name``) whose ``aten`` is ``aten_names`` or every overload
    of aten.<name>."""
    packet = getattr(torch.ops.aten, name)
    names = tuple(aten_names or (f"aten::{name}" + ("" if o == "default" else f".{o}") for o in packet.overloads()))
    return OpInfo(name=entry_name or name, op=op, aten=names, sample_inputs=samples, error_inputs=errs,
                  dtypes=frozenset(dtypes), supports_out=out, family="shape_extra", **kw)


def _unfold_samples(op, device, dtype):
    yield from cases(((7,), (0, 2, 1)), ((7,), (0, 3, 2)), ((4, 5), (1, 2, 2)), ((4, 5), (-2, 4, 1)),
                     ((2, 3, 4, 5), (2, 1, 3)), ((4, 5), (0, 0, 1)), ((), (0, 1, 1)))(op, device, dtype)


def _view_as_complex_samples(op, device, dtype):
    for shape in ((3, 2), (2, 4, 2), (0, 2), (2,)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    yield SampleInput(make((4, 3, 2), device, dtype).transpose(0, 1), name="transposed outer dims")


def _complex_samples(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, name=f"{name} {shape}")


def _src_like(view, device, dtype):
    return make(tuple(view.shape), device, dtype)


def _select_scatter_samples(op, device, dtype):
    for shape in ((2, 3, 4), (5,), (4, 5), (0, 3)):
        for name, t in layouts(shape, device, dtype):
            for dim in range(-t.dim(), t.dim()):
                for index in (0, -1):
                    if t.shape[dim] == 0:
                        continue
                    src = _src_like(t.select(dim, index), device, dtype)
                    yield SampleInput(t, (src, dim, index), name=f"{name} {shape} dim {dim} index {index}")
    t = make((4, 5), device, dtype)
    yield SampleInput(t, (make((5,), device, torch.float64), 0, 1), name="float64 src")


def _slice_scatter_samples(op, device, dtype):
    for shape in ((7,), (4, 6), (2, 3, 4, 5), (0, 4)):
        for name, t in layouts(shape, device, dtype):
            for args in ((0, 1, 3, 1), (-1, None, None, 2), (0, -3, None, 1), (-1, 5, 2, 1), (0, -100, 100, 3),
                         (0, 0, 0, 1)):
                src = _src_like(torch.slice_copy(t, *args), device, dtype)
                yield SampleInput(t, (src, *args), name=f"{name} {shape} {args}")


def _diagonal_scatter_samples(op, device, dtype):
    for shape in ((4, 5), (5, 4), (2, 3, 4, 5), (3, 3), (0, 3), (1, 4)):
        for name, t in layouts(shape, device, dtype):
            for args in ((0, 0, 1), (1, 0, 1), (-1, 0, 1), (-2, 1, 0), (10, 0, 1)):
                src = _src_like(torch.diagonal(t, *args), device, dtype)
                yield SampleInput(t, (src, *args), name=f"{name} {shape} {args}")
    x = make((2, 3, 4, 5), device, dtype)
    yield SampleInput(x, (_src_like(torch.diagonal(x, 1, 1, 3), device, dtype), 1, 1, 3), name="outer dims 1 and 3")


def scatter_errors(*rows):
    """Error rows (self shape, src shape, args, exception, regex)."""
    def gen(op, device):
        for shape, src_shape, args, exc, match in rows:
            sample = SampleInput(make(shape, device, torch.float32), (make(src_shape, device, torch.float32), *args),
                                 name=match)
            yield ErrorInput(sample, exc, match)
    return gen


SIZE = "expected src to have a size equal to the slice of self"

ENTRIES = [
    entry("alias_copy", torch.alias_copy, views.ALIAS),
    entry("detach_copy", torch.detach_copy, views.ALIAS),
    entry("as_strided_copy", torch.as_strided_copy, views._as_strided_samples,
          errs=errors(((4, 6), ([2, 2], [1]), RuntimeError, "mismatch in length of strides and shape"))),
    entry("diagonal_copy", torch.diagonal_copy, views.diagonal_samples(EVERY),
          errs=errors(((3, 3), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"),
                      ((3, 3), (0, 0, 2), IndexError, "Dimension out of range"))),
    entry("expand_copy", torch.expand_copy, views._expand_samples,
          errs=errors(((3, 2), ([3, 4],), RuntimeError, "must match the existing size"))),
    entry("permute_copy", torch.permute_copy, views.PERMUTE,
          errs=errors(((2, 3), ([0, 0],), RuntimeError, "duplicate dims are not allowed"))),
    entry("select_copy", torch.select_copy, views._select_like,
          errs=errors(((2, 3), (1, 3), IndexError, "out of range"))),
    entry("slice_copy", torch.slice_copy, views._slice_samples,
          errs=errors(((4,), (0, 0, 2, 0), RuntimeError, "slice step must be positive"))),
    entry("split_copy", torch.split_copy, views._split_samples,
          errs=errors(((4,), (-1,), RuntimeError, "split_size be non-negative"))),
    entry("split_with_sizes_copy", torch.split_with_sizes_copy, views._split_sizes_samples,
          errs=errors(((4,), ([1, 2],), RuntimeError, "to sum exactly to 4"))),
    entry("squeeze_copy", torch.squeeze_copy, views._squeeze_samples,
          errs=errors(((2, 3), (2,), IndexError, "Dimension out of range"))),
    entry("t_copy", torch.t_copy, cases(((4, 5), ()), ((7,), ()), ((), ()), ((0, 3), ())),
          errs=errors(((2, 3, 4), (), RuntimeError, "expects a tensor with <= 2 dimensions"))),
    entry("transpose_copy", torch.transpose_copy,
          cases(((2, 3, 4), (0, 2)), ((2, 3, 4, 5), (-1, 1)), ((4, 5), (1, 1)), ((), (0, -1)), ((0, 3), (0, 1))),
          errs=errors(((2, 3), (0, 2), IndexError, "Dimension out of range"))),
    entry("unsqueeze_copy", torch.unsqueeze_copy,
          cases(*[(s, (d,)) for s in ((2, 3, 4), (), (0, 3)) for d in (0, -1, len(s))]),
          errs=errors(((2, 3), (3,), IndexError, "Dimension out of range"))),
    entry("unbind_copy", torch.unbind_copy, cases(((3, 4), ()), ((2, 3, 4, 5), (-1,)), ((0, 3), (1,)), ((1,), ())),
          errs=errors(((2, 3), (2,), IndexError, "Dimension out of range"))),
    entry("unfold_copy", torch.unfold_copy, _unfold_samples,
          errs=errors(((4,), (0, 5, 1), RuntimeError, "maximum size for tensor at dimension 0 is 4 but size is 5"),
                      ((4,), (0, 2, 0), RuntimeError, "step is 0 but must be > 0"))),
    entry("view_copy", torch.view_copy, views._view_samples, errs=views.VIEW_ERRORS),
    entry("view_copy", torch.view_copy, views.view_dtype_samples(
        ("contiguous", "outer dims transposed", "rows sliced", "empty", "expanded", "noncontiguous", "transposed",
         "0-d")), entry_name="view_copy.dtype", aten_names=["aten::view_copy.dtype", "aten::view_copy.dtype_out"],
          dtypes=ALL | COMPLEX, errs=views.view_dtype_errors,
          supports_autograd=False),   # as view(dtype): eager's output has no derivative
    entry("narrow_copy", torch.narrow_copy, cases(((7, 4), (0, 1, 3)), ((4, 6), (-1, 2, 4)), ((2, 3, 4, 5), (1, 1, 2)),
                                                  ((4, 6), (1, 0, 0)), ((0, 3), (1, 1, 2)), ((2, 0, 4), (2, 1, 3))),
          errs=errors(((4, 6), (1, 3, 5), RuntimeError, "exceeds dimension size"),
                      ((4, 6), (0, -7, 3), IndexError, "start out of range"),
                      ((4, 6), (2, 0, 1), RuntimeError, "Expected dim < "))),
    # a negative start: eager's narrow_copy backward does not wrap it and fails ("The size of tensor a (0) must
    # match the size of tensor b (2)"), so values only, no gradient test
    entry("narrow_copy", torch.narrow_copy, cases(((2, 3, 4, 5), (1, -2, 2)), ((4, 6), (0, -4, 4))),
          entry_name="narrow_copy.negative_start", supports_autograd=False),
    entry("unfold", torch.Tensor.unfold, _unfold_samples, out=False,
          errs=errors(((4,), (0, 5, 1), RuntimeError, "maximum size for tensor at dimension 0 is 4 but size is 5"),
                      ((4,), (0, 2, 0), RuntimeError, "step is 0 but must be > 0"),
                      ((4, 5), (2, 2, 1), IndexError, "Dimension out of range"))),
    entry("view_as_real_copy", torch.view_as_real_copy, _complex_samples, dtypes=COMPLEX),
    entry("view_as_complex_copy", torch.view_as_complex_copy, _view_as_complex_samples, dtypes=FLOAT32_64,
          errs=errors(((3, 3), (), RuntimeError, "Tensor must have a last dimension of size 2"))),
    # *_scatter: a copy of self with src written into one view of it.
    entry("select_scatter", through_table("select_scatter"), _select_scatter_samples,
          errs=scatter_errors(((3, 4), (3,), (0, 1), RuntimeError, SIZE),
                              ((3, 4), (4,), (0, 5), IndexError, "out of range"))),
    entry("slice_scatter", through_table("slice_scatter"), _slice_scatter_samples,
          errs=scatter_errors(((3, 4), (2, 4), (0, 0, 1), RuntimeError, SIZE))),
    entry("diagonal_scatter", through_table("diagonal_scatter"), _diagonal_scatter_samples,
          errs=scatter_errors(((3, 4), (4,), (), RuntimeError, SIZE),
                              ((3, 3), (3,), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"))),
]


# ------------------------------------------------------------------ conveniences (CompositeImplicitAutograd)
# Called through through_table: under a tracer, our decomposition rather than torch's composite
# (entries named "<op>.table" sit beside shape.py's entries of the same op, which trace torch's).


def table_entry(name, samples, *, out=False, **kw):
    return entry(name, through_table(name), samples, out=out, **kw)


def _lists(*rows):
    """Samples whose input is a list of tensors: rows of shapes."""
    def gen(op, device, dtype):
        for shapes in rows:
            yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
        t = make((5, 4), device, dtype).t()
        yield SampleInput([t, t], name="transposed inputs")
    return gen


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


def _type_as_samples(op, device, dtype):
    for name, t in layouts((4, 5), device, dtype):
        for other in (torch.float64, torch.int64, dtype):
            yield SampleInput(t, (make((2,), device, other),), name=f"{name} as {other}")


SPLIT_ERRORS = errors(((), (2,), RuntimeError, "tensor_split expected at least a 1-dimensional tensor"),
                      ((4,), (0,), RuntimeError, "number of sections must be larger than 0"))
MATRIX_ERRORS = errors(((3,), (), RuntimeError, "only supported on matrices or batches of matrices"))
MATRICES = cases(((4, 5), ()), ((2, 3, 4), ()), ((0, 3), ()), ((2, 3, 4, 5), ()))
ATLEAST = cases(((), ()), ((3,), ()), ((4, 5), ()), ((2, 3, 4), ()), ((0,), ()))

ENTRIES += [
    table_entry("movedim", views._movedim_samples, entry_name="movedim.table",
                errs=errors(((2, 3), (0, 2), IndexError, "Dimension out of range"),
                            ((2, 3), ((0, 1), (0,)), RuntimeError, "Invalid source or destination dims"),
                            ((2, 3), ((0, 0), (0, 1)), RuntimeError, "repeated dim"))),
    table_entry("moveaxis", views._movedim_samples),
    table_entry("ravel", cases(((2, 3, 4), ()), ((), ()), ((0, 3), ()), ((4, 5), ()))),
    table_entry("flatten", cases(((2, 3, 4), ()), ((2, 3, 4, 5), (1, 2)), ((), ()), ((0, 3), (0, -1)), ((4, 5), (-1,)),
                                 ((4, 5), (1, 1))), entry_name="flatten.table",
                errs=errors(((2, 3, 4), (2, 1), RuntimeError, "start_dim cannot come after end_dim"))),
    table_entry("unflatten", cases(((6, 4), (0, (2, 3))), ((4, 6), (-1, (3, -1))), ((2, 3, 4, 5), (1, (3, 1)))),
                entry_name="unflatten.table", errs=errors(((6,), (0, ()), RuntimeError, "sizes must be non-empty"))),
    table_entry("narrow", cases(((7, 4), (0, 1, 3)), ((4, 6), (-1, 2, 4)), ((2, 3, 4, 5), (1, -2, 2)),
                                ((4, 6), (1, 0, 0))), entry_name="narrow.table",
                errs=errors(((4, 6), (1, 3, 5), RuntimeError, "exceeds dimension size"),
                            ((), (0, 0, 1), RuntimeError, "cannot be applied to a 0-dim tensor"))),
    table_entry("tile", cases(((4, 5), ((2,),)), ((4, 5), ((2, 1, 3),)), ((), ((2,),)), ((0, 3), ((2, 2),))),
                entry_name="tile.table"),
    table_entry("chunk", cases(((7, 4), (3,)), ((7, 4), (2, 1)), ((2, 3, 4, 5), (5, -1)), ((0, 4), (2,)),
                               ((6,), (4,))), entry_name="chunk.table",
                errs=errors(((4,), (0,), RuntimeError, "chunk expects `chunks` to be greater than 0"),
                            ((), (1,), RuntimeError, "chunk expects at least a 1-dimensional tensor"))),
    table_entry("unsafe_chunk", cases(((7, 4), (3,)), ((2, 3, 4, 5), (5, -1)))),
    table_entry("tensor_split", cases(((7, 4), (3,)), ((7, 4), ([1, 5],)), ((7, 4), ([2, 2, 9], 1)),
                                      ((4, 6), (4, -1)), ((4, 6), ([5, 1],))), entry_name="tensor_split.table",
                errs=SPLIT_ERRORS),
    table_entry("hsplit", cases(((4, 6), (3,)), ((6,), (2,)), ((4, 6), ([1, 4],)))),
    table_entry("vsplit", cases(((4, 6), (2,)), ((4, 6), ([1, 3],)))),
    table_entry("dsplit", cases(((2, 3, 4), (2,)), ((2, 3, 4), ([1],))),
                errs=errors(((2, 3), (1,), RuntimeError, "requires a tensor with at least 3 dimension"))),
    table_entry("hstack", _lists([(2, 3), (2, 4)], [(3,), (2,)]), entry_name="hstack.table", out=True),
    table_entry("vstack", _lists([(2, 3), (4, 3)], [(3,), (3,)]), entry_name="vstack.table", out=True),
    table_entry("row_stack", _lists([(2, 3), (4, 3)], [(3,), (3,)]), out=True),
    table_entry("dstack", _lists([(2, 3), (2, 3)], [(3,), (3,)], [(2, 3, 1), (2, 3, 2)]), out=True),
    table_entry("column_stack", _lists([(3,), (3, 2)], [(), ()], [(4,), (4,)]), out=True),
    table_entry("atleast_1d", ATLEAST), table_entry("atleast_2d", ATLEAST), table_entry("atleast_3d", ATLEAST),
    table_entry("broadcast_to", cases(((3, 1), ([3, 4],)), ((), ([2, 3],)), ((4, 5), ([2, 4, 5],))),
                errs=errors(((3, 2), ([3, 4],), RuntimeError, "must match the existing size"))),
    table_entry("broadcast_tensors", _broadcast_tensors_samples),
    table_entry("fliplr", cases(((4, 5), ()), ((2, 3, 4), ()), ((0, 3), ())),
                errs=errors(((3,), (), RuntimeError, "Input must be >= 2-d"))),
    table_entry("flipud", cases(((4, 5), ()), ((7,), ()), ((0, 3), ())),
                errs=errors(((), (), RuntimeError, "Input must be >= 1-d"))),
    table_entry("mT", MATRICES, errs=MATRIX_ERRORS), table_entry("mH", MATRICES, errs=MATRIX_ERRORS),
    table_entry("adjoint", MATRICES, errs=MATRIX_ERRORS), table_entry("matrix_H", cases(((4, 5), ()), ((0, 3), ())),
                errs=errors(((2, 3, 4), (), RuntimeError, "only supported on matrices \\(2-D tensors\\)"))),
    table_entry("numpy_T", cases(((4, 5), ()), ((2, 3, 4), ()), ((), ()), ((7,), ()))),
    table_entry("view_as", _other_samples((((2, 3, 4), (6, 4)), ((), (1,)), ((0, 3), (3, 0))), on=DENSE),
                errs=lambda op, device: iter([ErrorInput(
                    SampleInput(make((3, 4), device, torch.float32).t(), (make((12,), device, torch.float32),)),
                    RuntimeError, "view size is not compatible")])),
    table_entry("reshape_as", _other_samples((((2, 3, 4), (6, 4)), ((4, 5), (5, 4)), ((), (1, 1))))),
    table_entry("expand_as", _other_samples((((3, 1), (2, 3, 4)), ((), (2, 3)))), entry_name="expand_as.table"),
    table_entry("type_as", _type_as_samples, entry_name="type_as.table"),
    table_entry("contiguous", cases(((4, 5), ()), ((2, 3, 4, 5), ()), ((), ()),
                                    ((2, 3, 4, 5), (), {"memory_format": torch.channels_last})),
                entry_name="contiguous.table"),
]


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


WHERE_STRIDES = ("eager's index tensors are dense columns of its column-major nonzero; the decomposition's are "
                 "columns of the prim's row-major (count, dims) result (stride dims), and a dense copy needs a "
                 "meta rule (clone, copy_strided) that does not guard on the data-dependent count")


def _diag_embed_samples(op, device, dtype):
    yield from cases(((3,), ()), ((2, 3), (1,)), ((2, 3), (-2, 0, 2)), ((2, 3, 4), (0, -1, 0)), ((0,), ()),
                     ((2, 0), (1,)))(op, device, dtype)


def _integer_pairs(op, device, dtype):
    for sa, sb in (((), ()), ((5,), ()), ((4, 5), (4, 5)), ((4, 1), (1, 5)), ((0,), (0,))):
        yield SampleInput(make(sa, device, dtype, low=-20, high=20), (make(sb, device, dtype, low=-20, high=20),),
                          name=f"{sa} {sb}")
    t = make((4, 5), device, dtype, low=-20, high=20).t()
    yield SampleInput(t, (torch.tensor([0, 7, -6, 12], device=device, dtype=dtype),), name="transposed, zero")


def _frexp_errors(op, device):
    x = make((3,), device, torch.int64)
    yield ErrorInput(SampleInput(x, name="integer input"), RuntimeError, "only supports floating-point dtypes")


NUMERIC_NO_BOOL = ALL - {torch.bool}
INT64 = frozenset({torch.int64})

ENTRIES += [
    table_entry("diag_embed", _diag_embed_samples, out=True,
                errs=errors(((2, 3), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"))),
    table_entry("diagflat", cases(((3,), ()), ((2, 3), (1,)), ((2, 2), (-2,)), ((), ()), ((0,), ()))),
    table_entry("diag", cases(((3,), ()), ((3,), (1,)), ((4, 5), ()), ((4, 5), (-2,)), ((4, 5), (7,)), ((0,), ())),
                out=True, errs=errors(((2, 3, 4), (), RuntimeError, "Supports 1D or 2D tensors"))),
    table_entry("rot90", cases(((4, 5), ()), ((4, 5), (2,)), ((4, 5), (3,)), ((4, 5), (4,)), ((4, 5), (-1,)),
                               ((2, 3, 4), (1, [2, 0])), ((0, 3), (1,))), out=True,
                errs=errors(((4,), (), RuntimeError, "expected total dims >= 2"),
                            ((4, 5), (1, [0, 0]), RuntimeError, "expected rotation dims to be different"),
                            ((4, 5), (1, [0]), RuntimeError, "expected total rotation dims == 2"))),
    table_entry("trace", cases(((4, 5), ()), ((5, 4), ()), ((0, 3), ()), ((1, 1), ())), out=True,
                dtypes=NUMERIC_NO_BOOL, errs=errors(((2, 3, 4), (), RuntimeError, "expected a matrix"))),
    dataclasses.replace(table_entry("square", views.ALIAS, out=True, dtypes=NUMERIC_NO_BOOL),
                        name="square.table", inplace=through_table("square_")),
    dataclasses.replace(table_entry("gcd", _integer_pairs, out=True, dtypes=INT64), inplace=through_table("gcd_")),
    dataclasses.replace(table_entry("lcm", _integer_pairs, out=True, dtypes=INT64), inplace=through_table("lcm_")),
    table_entry("frexp", cases(((), ()), ((4, 5), ()), ((0, 3), ()), ((7,), ())), dtypes=FLOATING,
                errs=_frexp_errors),
    table_entry("isreal", cases(((), ()), ((4, 5), ()), ((0, 3), ())), dtypes=ALL | COMPLEX),
    table_entry("resolve_conj", views.ALIAS), table_entry("resolve_neg", views.ALIAS),
    # eager's lazy conjugate (a view with the conj bit set; eager asserts on a real input); primkit computes it
    entry("_conj", torch.ops.aten._conj, _complex_samples, dtypes=COMPLEX, out=False),
]


ENTRIES += [
    # start as a 0-d tensor: eager reads it with .item(), the decomposition keeps it as data
    entry("narrow", torch.narrow, _narrow_tensor_samples(("contiguous", "noncontiguous", "transposed",
                                                          "channels_last")),
                entry_name="narrow.Tensor", out=False, errs=_narrow_tensor_errors,
                aten_names=["aten::narrow.Tensor"]),
    entry("narrow", torch.narrow, _narrow_tensor_samples(("expanded",)), entry_name="narrow.Tensor.expanded", out=False,
                aten_names=["aten::narrow.Tensor"],
                xfails=[XFail("strides", "eager's view keeps the input's stride 0; dynamic_slice copies the block, "
                              "laid out dense in the input's dim order", raises=AssertionError)]),
    entry("split", torch.ops.aten.split.sizes, views._split_sizes_samples, entry_name="split.sizes", out=False,
          aten_names=["aten::split.sizes"],
          errs=errors(((4,), ([1, 2],), RuntimeError, "to sum exactly to 4"),
                      ((4,), ([5, -1],), RuntimeError, "non-negative entries"))),
    # the one-argument torch.where: nonzero(as_tuple=True)
    entry("where", torch.where, _where_condition_samples, entry_name="where.condition", out=False,
          aten_names=["aten::where"],
          supports_autograd=False, xfails=[XFail("strides", WHERE_STRIDES, raises=AssertionError)]),   # int64 indices
    entry("nonzero_numpy", torch.ops.aten.nonzero_numpy, _where_condition_samples, out=False,
          supports_autograd=False, xfails=[XFail("strides", WHERE_STRIDES, raises=AssertionError)]),   # int64 indices
]


def _pairs(*rows, on=EVERY):
    """Samples of binary ops: rows (shape, other shape[, kwargs]) on the layouts ``on`` of the input."""
    def gen(op, device, dtype):
        for shape, other, *kw in rows:
            for name, t in layouts(shape, device, dtype):
                if name in on:
                    yield SampleInput(t, (make(other, device, dtype),), kw[0] if kw else {},
                                      name=f"{name} {shape} {other} {kw}")
    return gen


def _diff_samples(op, device, dtype):
    yield from cases(((7,), ()), ((4, 5), (1, 0)), ((4, 5), (2, -1)), ((2, 3, 4), (3, 1)), ((4, 5), (0,)),
                     ((0, 3), (1, 0)), ((4, 5), (7, -1)))(op, device, dtype)
    x = make((4, 5), device, dtype)
    yield SampleInput(x, (1, 1, make((4, 2), device, dtype), make((4, 1), device, dtype)), name="prepend, append")


def _meshgrid_samples(op, device, dtype):
    for shapes in (((3,), (2,)), ((3,), (), (4,)), ((0,), (2,)), ((5,),)):
        for kw in ({"indexing": "ij"}, {"indexing": "xy"}):
            yield SampleInput([make(s, device, dtype) for s in shapes], (), kw, name=f"{shapes} {kw}")


CROSS = _pairs(((4, 3), (4, 3)), ((3, 5), (3, 5), {"dim": 0}), ((2, 1, 3), (1, 4, 3)), ((0, 3), (0, 3)))

ENTRIES += [
    table_entry("kron", _pairs(((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (2,)), ((), (3,)), ((0, 2), (3, 1)),
                               on=DENSE), out=True),
    table_entry("linalg_cross", CROSS, out=True, dtypes=ALL - {torch.bool},
                errs=lambda op, device: iter([ErrorInput(
                    SampleInput(make((4, 2), device, torch.float32), (make((4, 2), device, torch.float32),)),
                    RuntimeError, "must have length 3")])),
    table_entry("cross", _pairs(((4, 3), (4, 3)), ((3, 5), (3, 5), {"dim": 0}), ((3, 3), (3, 3))), out=True,
                dtypes=ALL - {torch.bool}),
    table_entry("diff", _diff_samples, out=True, xfails=[XFail(
                "out", "eager's diff.out raises IndexError (narrow: start out of range) for the empty (0, 3) input "
                "along dim 0, where the functional diff returns an empty tensor; the sample is kept for the latter",
                raises=IndexError)],
                errs=errors(((), (), RuntimeError, "diff expects input to be at least one-dimensional"),
                            ((3,), (-1,), RuntimeError, "order must be non-negative"))),
    table_entry("sum_to_size", cases(((2, 3, 4), ([3, 1],)), ((2, 3, 4), ([1, 3, 4],)), ((4, 5), ([4, 5],)),
                                     ((4, 5), ([1],)), ((), ([],)), ((0, 3), ([1, 3],))),
                dtypes=ALL - {torch.bool}, tolerances={
                    # a sum of a handful of terms in float16/bfloat16, accumulated in a different order
                    torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}),
    table_entry("meshgrid", _meshgrid_samples,
                errs=lambda op, device: iter([ErrorInput(
                    SampleInput([make((2, 2), device, torch.float32)], (), {"indexing": "ij"}), RuntimeError,
                    "Expected 0D or 1D tensor")])),
]


def _chunk_cat_samples(op, device, dtype):
    """aten._chunk_cat(tensors, dim, num_chunks): sizes that divide and that need padding, tensors of
    other ranks after dim, a negative dim, layouts of the first tensor."""
    for shapes, dim, chunks in ((((2, 6), (2, 4)), 1, 2), (((2, 5), (2, 3, 2)), 1, 2), (((5, 3),), 0, 3),
                                (((2, 5),), -1, 4), (((3, 4, 5), (3, 2)), 1, 1), (((7,), (2,)), 0, 3)):
        for name, first in layouts(shapes[0], device, dtype):
            rest = [make(s, device, dtype) for s in shapes[1:]]
            yield SampleInput([first, *rest], (dim, chunks), name=f"{name} {shapes} dim={dim} chunks={chunks}")


def _chunk_cat_errors(op, device):
    x = make((2, 5), device, torch.float32)
    yield ErrorInput(SampleInput([], (0, 2)), RuntimeError, "expects a non-empty input tensor list")
    yield ErrorInput(SampleInput([x], (1, 0)), RuntimeError, "expects positive num_chunks")
    yield ErrorInput(SampleInput([x, x.double()], (1, 2)), RuntimeError, "with the same dtype")
    yield ErrorInput(SampleInput([x, make((3, 5), device, torch.float32)], (1, 2)), RuntimeError,
                     "same sizes of 0,...,dim-1 dimensions")
    yield ErrorInput(SampleInput([make((2, 0), device, torch.float32)], (1, 2)), RuntimeError, "non-empty tensor")


ENTRIES += [
    entry("_chunk_cat", torch.ops.aten._chunk_cat, _chunk_cat_samples, errs=_chunk_cat_errors),
]
