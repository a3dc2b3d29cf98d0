"""OpInfo entries: diag_embed, diagflat, diag, rot90, meshgrid, _chunk_cat."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.shape.common import _packet_entry, _table_entry, cases, errors
from primkit.opinfo.samples import layouts, make


def _diag_embed_samples(op, device, dtype):
    yield from cases(((3,), ()), ((2, 3), (1,)), ((2, 3), (-2, 0, 2)), ((2, 3, 4), (0, -1, 0)), ((0,), ()),
                     ((2, 0), (1,)))(op, device, dtype)


def _meshgrid_samples(op, device, dtype):
    for shapes in (((3,), (2,)), ((3,), (), (4,)), ((0,), (2,)), ((5,),)):
        for kw in ({"indexing": "ij"}, {"indexing": "xy"}):
            yield SampleInput([make(s, device, dtype) for s in shapes], (), kw, name=f"{shapes} {kw}")


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


ENTRIES = [
    _table_entry("diag_embed", _diag_embed_samples, out=True,
                 errs=errors(((2, 3), (0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"))),
    _table_entry("diagflat", cases(((3,), ()), ((2, 3), (1,)), ((2, 2), (-2,)), ((), ()), ((0,), ()))),
    _table_entry("diag", cases(((3,), ()), ((3,), (1,)), ((4, 5), ()), ((4, 5), (-2,)), ((4, 5), (7,)), ((0,), ())),
                 out=True, errs=errors(((2, 3, 4), (), RuntimeError, "Supports 1D or 2D tensors"))),
    _table_entry("rot90", cases(((4, 5), ()), ((4, 5), (2,)), ((4, 5), (3,)), ((4, 5), (4,)), ((4, 5), (-1,)),
                                ((2, 3, 4), (1, [2, 0])), ((0, 3), (1,))), out=True,
                 errs=errors(((4,), (), RuntimeError, "expected total dims >= 2"),
                             ((4, 5), (1, [0, 0]), RuntimeError, "expected rotation dims to be different"),
                             ((4, 5), (1, [0]), RuntimeError, "expected total rotation dims == 2"))),
    _table_entry("meshgrid", _meshgrid_samples,
                 errs=lambda op, device: iter([ErrorInput(
                     SampleInput([make((2, 2), device, torch.float32)], (), {"indexing": "ij"}), RuntimeError,
                     "Expected 0D or 1D tensor")])),
    _packet_entry("_chunk_cat", torch.ops.aten._chunk_cat, _chunk_cat_samples, errs=_chunk_cat_errors),
]
