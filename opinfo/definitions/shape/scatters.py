"""OpInfo entries: the *_scatter ops (as_strided_scatter, select_scatter, slice_scatter, diagonal_scatter)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput, XFail
from primkit.opinfo.definitions.common import through_table
from primkit.opinfo.definitions.shape.common import PROGRAM_VIEWS, _aten_entry, _of_view_samples, _packet_entry, aten
from primkit.opinfo.dtypes import ALL, FLOAT32_64
from primkit.opinfo.samples import layouts, make


def as_strided_scatter_of_view(a, view, src, size, stride, storage_offset=None):
    return torch.as_strided_scatter(PROGRAM_VIEWS[view](a), src, size, stride, storage_offset)


def _as_strided_scatter_samples(op, device, dtype):
    """Views of self's own storage: a block, a strided row, the diagonal, with an offset; self
    contiguous, transposed, non-dense (a slice: eager's result keeps its storage and offset),
    channels-last; an empty view."""
    for name, t in (("contiguous", make((3, 4), device, dtype)), ("transposed", make((4, 3), device, dtype).t()),
                    ("strided slice", make((3, 8), device, dtype)[:, ::2]),
                    ("offset slice", make((3, 6), device, dtype)[:, 1:5])):
        for size, stride, offset in (((2, 2), (1, 2), None), ((3,), (5, ), 0), ((2, 3), (4, 1), 1), ((3,), (1,), None)):
            if _reach_of(size, stride, t.storage_offset() if offset is None else offset) > _reach_of(
                    t.shape, t.stride(), t.storage_offset()):
                continue
            yield SampleInput(t, (make(size, device, dtype), size, stride, offset),
                              name=f"{name} self, view {size} {stride} offset {offset}")
    cl = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
    yield SampleInput(cl, (make((4, 2), device, dtype), (4, 2), (3, 1), 2), name="channels-last self")
    yield SampleInput(make((6,), device, dtype), (make((0,), device, dtype), (0,), (1,), 0), name="empty view")


def _reach_of(shape, strides, offset):
    return offset + sum((n - 1) * st for n, st in zip(shape, strides)) + 1


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
    _aten_entry("as_strided_scatter", torch.as_strided_scatter, ("aten::as_strided_scatter",),
                lambda op, device, dtype: (s for s in _as_strided_scatter_samples(op, device, dtype)
                                           if s.input.is_contiguous()), dtypes=ALL,
                xfails=[XFail("gradients", "eager's as_strided_scatter derivative for self is wrong (it fails "
                                           "torch.autograd.gradcheck: it keeps the gradient at the view's positions, which src "
                                           "overwrites, and zeroes it elsewhere); the traced graph's is the correct one",
                                           raises=AssertionError)]),
    # No gradients: eager's autograd refuses a non-contiguous self ("only supported for contiguous inputs").
    _aten_entry("as_strided_scatter.strided_self", torch.as_strided_scatter, ("aten::as_strided_scatter",),
                lambda op, device, dtype: (s for s in _as_strided_scatter_samples(op, device, dtype)
                                           if not s.input.is_contiguous()), dtypes=ALL, supports_autograd=False),
    # No gradients: eager's autograd refuses a non-contiguous self, and most of these views are not contiguous.
    _aten_entry("as_strided_scatter.of_view", as_strided_scatter_of_view, ("aten::as_strided_scatter",),
                _of_view_samples(True), dtypes=ALL, supports_autograd=False),
    _aten_entry("aten.as_strided_scatter", aten.as_strided_scatter,
                ("aten::as_strided_scatter", "aten::as_strided_scatter.out"), _as_strided_scatter_samples,
                dtypes=FLOAT32_64, supports_out=True, supports_autograd=False),
    # *_scatter: a copy of self with src written into one view of it.
    _packet_entry("select_scatter", through_table("select_scatter"), _select_scatter_samples,
                  errs=scatter_errors(((3, 4), (3,), (0, 1), RuntimeError, SIZE),
                                      ((3, 4), (4,), (0, 5), IndexError, "out of range"))),
    _packet_entry("slice_scatter", through_table("slice_scatter"), _slice_scatter_samples,
                  errs=scatter_errors(((3, 4), (2, 4), (0, 0, 1), RuntimeError, SIZE))),
    _packet_entry("diagonal_scatter", through_table("diagonal_scatter"), _diagonal_scatter_samples,
                  errs=scatter_errors(((3, 4), (4,), (), RuntimeError, SIZE),
                                      ((3, 3), (3,), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"))),
]
