"""OpInfo entries: copies and conversions (clone, contiguous, to, copy, ...) and the functional copies of views
(permute_copy, ..., view_as_complex_copy)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.common import complex_samples
from primkit.opinfo.definitions.shape.common import (ALIAS, EVERY, PERMUTE, VIEW_ERRORS, _as_strided_samples,
    _expand_samples, _packet_entry, _reshape_alias_samples, _select_like, _slice_samples, _split_samples,
    _split_sizes_samples, _squeeze_samples, _table_entry, _unfold_samples, _view_samples, aten, cases,
    diagonal_samples, entry, errors, view_dtype_errors, view_dtype_samples)
from primkit.opinfo.dtypes import ALL, COMPLEX, FLOAT32_64
from primkit.opinfo.samples import layouts, make


def _copy_samples(op, device, dtype):
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        if name != "expanded":   # eager's copy_ into an overlapping tensor is refused
            yield SampleInput(t, (make((2, 3, 4, 5), device, dtype),), name=f"self {name}")
    yield SampleInput(make((4, 5), device, dtype), (make((5,), device, dtype),), name="broadcast src")
    yield SampleInput(make((4, 5), device, dtype), (make((5, 4), device, dtype).t(),), name="transposed src")
    yield SampleInput(make((4, 5), device, dtype), (make((4, 5), device, torch.float64),), name="float64 src")
    yield SampleInput(make((4, 5), device, dtype), (make((), device, torch.int64),), name="0-d int src")
    yield SampleInput(make((0, 5), device, dtype), (make((5,), device, dtype),), name="empty self")


def _clone_samples(op, device, dtype):
    for shape in ((), (0, 3), (7,), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (), name=f"{name} {shape}")
            yield SampleInput(t, (), {"memory_format": torch.contiguous_format}, name=f"{name} {shape} contiguous")
            if t.dim() == 4:
                yield SampleInput(t, (), {"memory_format": torch.channels_last}, name=f"{name} channels_last")
    x5 = make((2, 3, 2, 4, 5), device, dtype)
    yield SampleInput(x5, (), {"memory_format": torch.channels_last_3d}, name="channels_last_3d")


def _to_samples(op, device, dtype):
    for shape in ((), (0, 3), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            for target in (torch.float64, torch.int64, torch.bool, torch.float16, dtype):
                yield SampleInput(t, (target,), name=f"{name} {shape} to {target}")
            if t.dim() == 4:
                yield SampleInput(t, (torch.float32,), {"memory_format": torch.channels_last}, name=f"{name} cl")
                yield SampleInput(t, (dtype,), {"memory_format": torch.contiguous_format}, name=f"{name} contig")
            yield SampleInput(t, (device,), {"copy": True}, name=f"{name} same device copy")


def _assert_tensor_metadata_samples(op, device, dtype):
    """Every layout checked against its own geometry (all fields); each field alone; none."""
    for shape in ((), (0, 3), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            full = {"size": list(t.shape), "stride": list(t.stride()), "dtype": t.dtype, "device": t.device,
                    "layout": torch.strided}
            yield SampleInput(t, (), full, name=f"{name} {shape} all fields")
    t = make((4, 5), device, dtype).t()
    for key, value in {"size": [5, 4], "stride": [1, 5], "dtype": dtype, "device": t.device}.items():
        yield SampleInput(t, (), {key: value}, name=f"transposed {key} only")
    yield SampleInput(t, (), name="no field")


def _assert_tensor_metadata_errors(op, device):
    t = make((2, 3), device, torch.float32)
    rows = (({"size": [2, 4], "dtype": torch.int64}, "sizes mismatch"),   # sizes are checked first
            ({"stride": [1, 2]}, "strides mismatch"), ({"size": [2, 3, 1]}, "sizes mismatch"),
            ({"dtype": torch.float64, "device": torch.device("meta")}, "dtype mismatch"),
            ({"device": torch.device("meta")}, "device mismatch"),
            ({"layout": torch.sparse_coo}, "layout mismatch"))
    for kwargs, match in rows:
        yield ErrorInput(SampleInput(t, (), kwargs, name=match), RuntimeError, match)


def _type_as_samples(op, device, dtype):
    for name, t in layouts((4, 5), device, dtype):
        for other in (torch.float64, torch.int64, dtype):
            yield SampleInput(t, (make((2,), device, other),), name=f"{name} as {other}")


def _view_as_complex_samples(op, device, dtype):
    for shape in ((3, 2), (2, 4, 2), (0, 2), (2,)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    yield SampleInput(make((4, 3, 2), device, dtype).transpose(0, 1), name="transposed outer dims")


ENTRIES = [
    # Copies and conversions.
    entry("clone", aten.clone, ["aten::clone", "aten::clone.out"], _clone_samples, out=True,
          errs=lambda op, device: iter([ErrorInput(SampleInput(make((2, 3), device, torch.float32), (),
                                                               {"memory_format": torch.channels_last}),
                                                   RuntimeError, "rank 4")])),
    entry("contiguous", torch.Tensor.contiguous, ["aten::contiguous"],
          cases(((4, 5), ()), ((2, 3, 4, 5), ()), ((), ()), ((2, 3, 4, 5), (), {"memory_format": torch.channels_last}))),
    entry("to", torch.Tensor.to, ["aten::to.dtype", "aten::to.device", "aten::_to_copy"], _to_samples),
    entry("_to_copy", aten._to_copy, ["aten::_to_copy", "aten::_to_copy.out"],
          cases(((4, 5), (), {"dtype": torch.float64}), ((2, 3, 4, 5), ()), ((), (), {"dtype": torch.int64}),
                ((2, 3, 4, 5), (), {"memory_format": torch.channels_last}),
                ((2, 3, 4, 5), (), {"dtype": torch.float16, "memory_format": torch.contiguous_format}))),
    entry("_assert_tensor_metadata", aten._assert_tensor_metadata, ["aten::_assert_tensor_metadata"],
          _assert_tensor_metadata_samples, errs=_assert_tensor_metadata_errors),
    entry("type_as", torch.Tensor.type_as, ["aten::type_as"], _type_as_samples),
    entry("copy", aten.copy, ["aten::copy", "aten::copy.out", "aten::copy_"], _copy_samples, inplace=torch.Tensor.copy_,
          out=True, errs=lambda op, device: iter([ErrorInput(
              SampleInput(make((4, 5), device, torch.float32), (make((4,), device, torch.float32),)),
              RuntimeError, "must match the size")])),
    _packet_entry("alias_copy", torch.alias_copy, ALIAS),
    _packet_entry("detach_copy", torch.detach_copy, ALIAS),
    _packet_entry("_reshape_alias_copy", aten._reshape_alias_copy, _reshape_alias_samples),
    _packet_entry("as_strided_copy", torch.as_strided_copy, _as_strided_samples,
                  errs=errors(((4, 6), ([2, 2], [1]), RuntimeError, "mismatch in length of strides and shape"))),
    _packet_entry("diagonal_copy", torch.diagonal_copy, diagonal_samples(EVERY),
                  errs=errors(((3, 3), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"),
                              ((3, 3), (0, 0, 2), IndexError, "Dimension out of range"))),
    _packet_entry("expand_copy", torch.expand_copy, _expand_samples,
                  errs=errors(((3, 2), ([3, 4],), RuntimeError, "must match the existing size"))),
    _packet_entry("permute_copy", torch.permute_copy, PERMUTE,
                  errs=errors(((2, 3), ([0, 0],), RuntimeError, "duplicate dims are not allowed"))),
    _packet_entry("select_copy", torch.select_copy, _select_like,
                  errs=errors(((2, 3), (1, 3), IndexError, "out of range"))),
    _packet_entry("slice_copy", torch.slice_copy, _slice_samples,
                  errs=errors(((4,), (0, 0, 2, 0), RuntimeError, "slice step must be positive"))),
    _packet_entry("split_copy", torch.split_copy, _split_samples,
                  errs=errors(((4,), (-1,), RuntimeError, "split_size be non-negative"))),
    _packet_entry("split_with_sizes_copy", torch.split_with_sizes_copy, _split_sizes_samples,
                  errs=errors(((4,), ([1, 2],), RuntimeError, "to sum exactly to 4"))),
    _packet_entry("squeeze_copy", torch.squeeze_copy, _squeeze_samples,
                  errs=errors(((2, 3), (2,), IndexError, "Dimension out of range"))),
    _packet_entry("t_copy", torch.t_copy, cases(((4, 5), ()), ((7,), ()), ((), ()), ((0, 3), ())),
                  errs=errors(((2, 3, 4), (), RuntimeError, "expects a tensor with <= 2 dimensions"))),
    _packet_entry("transpose_copy", torch.transpose_copy,
                  cases(((2, 3, 4), (0, 2)), ((2, 3, 4, 5), (-1, 1)), ((4, 5), (1, 1)), ((), (0, -1)), ((0, 3), (0, 1))),
                  errs=errors(((2, 3), (0, 2), IndexError, "Dimension out of range"))),
    _packet_entry("unsqueeze_copy", torch.unsqueeze_copy,
                  cases(*[(s, (d,)) for s in ((2, 3, 4), (), (0, 3)) for d in (0, -1, len(s))]),
                  errs=errors(((2, 3), (3,), IndexError, "Dimension out of range"))),
    _packet_entry("unbind_copy", torch.unbind_copy, cases(((3, 4), ()), ((2, 3, 4, 5), (-1,)), ((0, 3), (1,)), ((1,), ())),
                  errs=errors(((2, 3), (2,), IndexError, "Dimension out of range"))),
    _packet_entry("unfold_copy", torch.unfold_copy, _unfold_samples,
                  errs=errors(((4,), (0, 5, 1), RuntimeError, "maximum size for tensor at dimension 0 is 4 but size is 5"),
                              ((4,), (0, 2, 0), RuntimeError, "step is 0 but must be > 0"))),
    _packet_entry("view_copy", torch.view_copy, _view_samples, errs=VIEW_ERRORS),
    _packet_entry("view_copy", torch.view_copy, view_dtype_samples(
                ("contiguous", "outer dims transposed", "rows sliced", "empty", "expanded", "noncontiguous", "transposed",
                 "0-d")), entry_name="view_copy.dtype", aten_names=["aten::view_copy.dtype", "aten::view_copy.dtype_out"],
                  dtypes=ALL | COMPLEX, errs=view_dtype_errors,
                  supports_autograd=False),   # as view(dtype): eager's output has no derivative
    _packet_entry("narrow_copy", torch.narrow_copy, cases(((7, 4), (0, 1, 3)), ((4, 6), (-1, 2, 4)), ((2, 3, 4, 5), (1, 1, 2)),
                                                          ((4, 6), (1, 0, 0)), ((0, 3), (1, 1, 2)), ((2, 0, 4), (2, 1, 3))),
                  errs=errors(((4, 6), (1, 3, 5), RuntimeError, "exceeds dimension size"),
                              ((4, 6), (0, -7, 3), IndexError, "start out of range"),
                              ((4, 6), (2, 0, 1), RuntimeError, "Expected dim < "))),
    # a negative start: eager's narrow_copy backward does not wrap it and fails ("The size of tensor a (0) must
    # match the size of tensor b (2)"), so values only, no gradient test
    _packet_entry("narrow_copy", torch.narrow_copy, cases(((2, 3, 4, 5), (1, -2, 2)), ((4, 6), (0, -4, 4))),
                  entry_name="narrow_copy.negative_start", supports_autograd=False),
    _packet_entry("view_as_real_copy", torch.view_as_real_copy, complex_samples, dtypes=COMPLEX),
    _packet_entry("view_as_complex_copy", torch.view_as_complex_copy, _view_as_complex_samples, dtypes=FLOAT32_64,
                  errs=errors(((3, 3), (), RuntimeError, "Tensor must have a last dimension of size 2"))),
    _table_entry("type_as", _type_as_samples, entry_name="type_as.table"),
    _table_entry("contiguous", cases(((4, 5), ()), ((2, 3, 4, 5), ()), ((), ()),
                                     ((2, 3, 4, 5), (), {"memory_format": torch.channels_last})),
                 entry_name="contiguous.table"),
]
