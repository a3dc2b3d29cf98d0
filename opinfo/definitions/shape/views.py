"""OpInfo entries: views (view, view(dtype), reshape, permute, transpose, expand, squeeze, slice, select,
as_strided, diagonal, alias, ...)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput, XFail
from primkit.opinfo.definitions.shape.common import (ALIAS, PERMUTE, PROGRAM_VIEWS, VIEW_ERRORS, _as_strided_samples,
    _expand_samples, _of_view_samples, _packet_entry, _reshape_alias_samples, _select_like, _slice_samples,
    _squeeze_samples, _unfold_samples, _view_samples, aten, cases, diagonal_samples, entry, errors,
    view_dtype_errors, view_dtype_samples)
from primkit.opinfo.dtypes import ALL, COMPLEX
from primkit.opinfo.samples import make


BAD_DIM = ((2, 3), (5,), IndexError, "Dimension out of range")


def _view_errors(op, device):
    yield from VIEW_ERRORS(op, device)
    t = make((3, 4), device, torch.float32).t()
    yield ErrorInput(SampleInput(t, ([12],), name="not viewable"), RuntimeError, "view size is not compatible")


RESHAPE = cases(((2, 3, 4), ([6, 4],)), ((2, 3, 4), ([-1],)), ((2, 3, 4, 5), ([2, 3, 20],)), ((), ([1, 1],)),
                ((0, 3), ([3, 0],)), ((4, 5), ([5, 4],)))


def as_strided_of_view(a, view, size, stride, storage_offset=None):
    return torch.as_strided(PROGRAM_VIEWS[view](a), size, stride, storage_offset)


def reshape_alias_of_view(a, view, size, stride):
    return aten._reshape_alias(PROGRAM_VIEWS[view](a), size, stride)


def _reshape_alias_of_view_samples(op, device, dtype):
    """_reshape_alias of each program view to its own geometry, and of a contiguous one split."""
    x = make((4, 6), device, dtype)
    for view, fn in PROGRAM_VIEWS.items():
        v = fn(x)
        yield SampleInput(x, (view, list(v.shape), list(v.stride())), name=f"{view} as itself")
    yield SampleInput(x, ("select", [2, 3], [3, 1]), name="select split")


def _aten_slice(t, dim=0, start=None, end=None, step=1):
    return aten.slice.Tensor(t, dim, start, end, step)


ENTRIES = [
    entry("view", torch.Tensor.view, ["aten::view"], _view_samples, errs=_view_errors),
    # view(dtype): eager's output has no derivative (output_differentiability False)
    entry("view.dtype", torch.Tensor.view, ["aten::view.dtype"], view_dtype_samples(
        ("contiguous", "outer dims transposed", "rows sliced", "empty", "noncontiguous", "transposed", "0-d")),
          dtypes=ALL | COMPLEX, errs=view_dtype_errors, supports_autograd=False),
    entry("view.dtype.expanded", torch.Tensor.view, ["aten::view.dtype"], view_dtype_samples(("expanded",)),
          dtypes=ALL | COMPLEX, supports_autograd=False, xfails=[XFail(
              "strides", "eager's view keeps the input's stride 0; the bits are regrouped in a new tensor, dense in "
              "the input's dim order", raises=AssertionError)]),
    entry("_unsafe_view", aten._unsafe_view, ["aten::_unsafe_view", "aten::_unsafe_view.out"], _view_samples,
          errs=VIEW_ERRORS, out=True),
    entry("reshape", torch.reshape, ["aten::reshape"], RESHAPE, errs=VIEW_ERRORS),
    entry("permute", torch.permute, ["aten::permute"], PERMUTE,
          errs=errors(((2, 3), ([0, 0],), RuntimeError, "duplicate dims are not allowed"),
                      ((2, 3), ([0, 2],), IndexError, "Dimension out of range"),
                      ((2, 3), ([0],), RuntimeError, "number of dimensions"))),
    entry("t", torch.t, ["aten::t"], cases(((4, 5), ()), ((7,), ()), ((), ()), ((0, 3), ())),
          errs=errors(((2, 3, 4), (), RuntimeError, "expects a tensor with <= 2 dimensions"))),
    entry("transpose", torch.transpose, ["aten::transpose.int"],
          cases(((2, 3, 4), (0, 2)), ((2, 3, 4, 5), (-1, 1)), ((4, 5), (1, 1)), ((), (0, -1)), ((0, 3), (0, 1))),
          errs=errors(((2, 3), (0, 2), IndexError, "Dimension out of range"))),
    entry("expand", torch.Tensor.expand, ["aten::expand"], _expand_samples,
          errs=errors(((3, 2), ([3, 4],), RuntimeError, "must match the existing size"),
                      ((3, 2), ([2],), RuntimeError, "must be greater or equal to the number of dimensions"),
                      ((3, 1), ([-1, 3, 4],), RuntimeError, "isn't allowed in a leading, non-existing dimension"))),
    entry("unsqueeze", torch.unsqueeze, ["aten::unsqueeze"],
          cases(*[(s, (d,)) for s in ((2, 3, 4), (), (0, 3), (2, 3, 4, 5)) for d in (0, -1, len(s))]),
          errs=errors(((2, 3), (3,), IndexError, "Dimension out of range"))),
    entry("squeeze", torch.squeeze, ["aten::squeeze", "aten::squeeze.dim", "aten::squeeze.dims"], _squeeze_samples,
          errs=errors(((2, 3), (2,), IndexError, "Dimension out of range"))),
    entry("slice", _aten_slice, ["aten::slice.Tensor"], _slice_samples,
          errs=errors(((4,), (0, 0, 2, 0), RuntimeError, "slice step must be positive"), ((4,), (1,), *BAD_DIM[2:]),
                      ((), (0,), IndexError, "cannot be applied to a 0-dim tensor"))),
    entry("select", torch.select, ["aten::select.int"], _select_like,
          errs=errors(((2, 3), (1, 3), IndexError, "out of range"), ((2, 3), (2, 0), *BAD_DIM[2:]),
                      ((), (0, 0), IndexError, "cannot be applied to a 0-dim tensor"))),
    entry("diagonal_unmergeable", torch.diagonal, ["aten::diagonal"],
          diagonal_samples(("noncontiguous", "expanded")),
          xfails=[XFail("strides", "the plane's dims do not merge into one strided dim, so no view prim but "
                        "as_strided reaches eager's strides, and as_strided needs a storage offset that fake "
                        "tensors of view prims do not carry; the decomposition takes the diagonal of a dense copy",
                        raises=AssertionError)]),
    entry("diagonal", torch.diagonal, ["aten::diagonal"],
          diagonal_samples(("contiguous", "transposed", "channels_last")),
          errs=errors(((3, 3), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"),
                      ((3, 3), (0, 0, 2), IndexError, "Dimension out of range"))),
    entry("as_strided", torch.as_strided, ["aten::as_strided"], _as_strided_samples,
          errs=errors(((4, 6), ([2, 2], [1]), RuntimeError, "mismatch in length of strides and shape"),
                      ((4, 6), ([2, -2], [1, 1]), RuntimeError, ""))),
    entry("as_strided.of_view", as_strided_of_view, ["aten::as_strided"], _of_view_samples(False)),
    entry("_reshape_alias", aten._reshape_alias, ["aten::_reshape_alias"], _reshape_alias_samples),
    entry("_reshape_alias.of_view", reshape_alias_of_view, ["aten::_reshape_alias"], _reshape_alias_of_view_samples),
    entry("alias", aten.alias, ["aten::alias"], ALIAS),
    entry("detach", torch.detach, ["aten::detach"], ALIAS),
    _packet_entry("unfold", torch.Tensor.unfold, _unfold_samples, out=False,
                  errs=errors(((4,), (0, 5, 1), RuntimeError, "maximum size for tensor at dimension 0 is 4 but size is 5"),
                              ((4,), (0, 2, 0), RuntimeError, "step is 0 but must be > 0"),
                              ((4, 5), (2, 2, 1), IndexError, "Dimension out of range"))),
]
