"""Samples and constraint error inputs of the shape prims that split, merge, alias or window dims
(split_dim, collapse, alias, diagonal, unfold, split), slice or update at data-given or static starts
(dynamic_slice, dynamic_update_slice, slice_update), roll, and of the complex views (view_as_real,
view_as_complex)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prim_samples import errors_unsupported_dtype
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError


def _error(prim, cid, name, input, *args, exc=PrimConstraintError):
    return ErrorInput(SampleInput(input, args, name=f"{cid}: {name}"), exc, f"{prim}: {cid}:")


def _other_device(device):
    """The other of cpu/cuda, or without a GPU the meta device (its device check fires all the same)."""
    if not torch.cuda.is_available():
        return "meta" if torch.device(device).type != "meta" else "cpu"
    return "cpu" if torch.device(device).type == "cuda" else "cuda"


def _starts(values, device, dtype=torch.int64):
    return [torch.tensor(v, dtype=dtype, device=device) for v in values]


# --- split_dim, collapse, alias ----------------------------------------------------------------

# (operand shape, dim, outer): every case in every layout of its shape.
SPLIT_DIM_CASES = [((6, 4), 0, 2), ((6, 4), 0, 6), ((4, 6), -1, 3), ((4, 6), 1, 1), ((2, 3, 4, 5), 2, 2),
                   ((2, 3, 4, 5), 1, 3), ((0, 4), 0, 3), ((1, 4), 0, 1), ((7,), 0, 7)]


def samples_split_dim(op, device, dtype):
    for shape, dim, outer in SPLIT_DIM_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (dim, outer), name=f"{name} {shape} dim={dim} outer={outer}")


def errors_split_dim(op, device):
    t = make((6, 4), device, torch.float32)
    yield _error("split_dim", "C1", "0-d operand", make((), device, torch.float32), 0, 1, exc=PrimIndexError)
    yield _error("split_dim", "C1", "dim out of range", t, 2, 2, exc=PrimIndexError)
    yield _error("split_dim", "C2", "outer 0", t, 0, 0)
    yield _error("split_dim", "C2", "outer does not divide the size", t, 0, 4)


# Mergeable [start, end) ranges per layout of (2, 3, 4, 5) (see opinfo.samples.layouts): transposed swaps
# the last two dims, channels_last keeps H and W adjacent, expanded has stride 0 in dim 0.
COLLAPSE_CASES = {
    "contiguous": [(0, 2), (1, 4), (0, 4), (3, 4)],
    "noncontiguous": [(0, 2), (1, 4), (0, 4)],
    "transposed": [(0, 2), (2, 3), (3, 4)],
    "channels_last": [(2, 4), (0, 1)],
    "expanded": [(1, 4), (0, 1)],
}


def samples_collapse(op, device, dtype):
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        for start, end in COLLAPSE_CASES[name]:
            yield SampleInput(t, (start, end), name=f"{name} (2, 3, 4, 5) [{start}, {end})")
    yield SampleInput(make((3, 1, 4), device, dtype, noncontiguous=True), (0, 3), name="size-1 dim inside")
    yield SampleInput(make((4, 1), device, dtype).t(), (0, 2), name="transposed with a size-1 dim")
    yield SampleInput(make((2, 0, 3), device, dtype), (0, 3), name="empty")
    yield SampleInput(make((4, 6), device, dtype)[:, ::2].t(), (1, 2), name="strided, one dim")


def errors_collapse(op, device):
    t = make((3, 4), device, torch.float32)
    yield _error("collapse", "C1", "start == end", t, 1, 1, exc=PrimIndexError)
    yield _error("collapse", "C1", "end beyond the rank", t, 0, 3, exc=PrimIndexError)
    yield _error("collapse", "C1", "0-d operand", make((), device, torch.float32), 0, 0, exc=PrimIndexError)
    yield _error("collapse", "C2", "transposed dims", t.t(), 0, 2)
    yield _error("collapse", "C2", "a gap between the dims", make((3, 8), device, torch.float32)[:, :4], 0, 2)


def samples_alias(op, device, dtype):
    for shape in ((), (0, 3), (5,), (3, 1, 4), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (), name=f"{name} {shape}")
    yield SampleInput(make((4, 6), device, dtype)[1:, 2::3], (), name="offset and steps")


# --- diagonal, unfold, split -------------------------------------------------------------------

# (operand shape, offset, dim1, dim2)
DIAGONAL_CASES = [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 0, 1), ((3, 4), 2, 1, 0), ((3, 4), 5, 0, 1),
                  ((3, 4), -3, -1, -2), ((2, 3, 4), 1, 0, 2), ((2, 3, 4), -1, 2, 1), ((2, 3, 4, 5), 0, 1, 3),
                  ((0, 3), 0, 0, 1), ((1, 4), 0, 0, 1)]


def samples_diagonal(op, device, dtype):
    for shape, offset, dim1, dim2 in DIAGONAL_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (offset, dim1, dim2), name=f"{name} {shape} offset={offset} dims=({dim1}, {dim2})")


def errors_diagonal(op, device):
    t = make((3, 4), device, torch.float32)
    yield _error("diagonal", "C1", "1-d operand", make((3,), device, torch.float32), 0, 0, 1, exc=PrimIndexError)
    yield _error("diagonal", "C1", "dim out of range", t, 0, 0, 2, exc=PrimIndexError)
    yield _error("diagonal", "C2", "dim1 == dim2", t, 0, 1, -1)


# (operand shape, dim, size, step)
UNFOLD_CASES = [((5, 6), 0, 2, 1), ((5, 6), 1, 3, 2), ((5, 6), -1, 6, 1), ((5, 6), 0, 5, 3), ((5, 6), 1, 0, 2),
                ((2, 3, 4, 5), 3, 2, 2), ((2, 3, 4, 5), 1, 3, 1), ((0, 3), 0, 0, 1), ((0, 3), 1, 2, 1), ((7,), 0, 3, 4),
                ((), 0, 1, 1), ((), -1, 0, 2)]


def samples_unfold(op, device, dtype):
    for shape, dim, size, step in UNFOLD_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (dim, size, step), name=f"{name} {shape} dim={dim} size={size} step={step}")


def errors_unfold(op, device):
    t = make((5, 6), device, torch.float32)
    yield _error("unfold", "C1", "dim out of range", t, 2, 2, 1, exc=PrimIndexError)
    yield _error("unfold", "C2", "window longer than the dim", t, 0, 6, 1)
    yield _error("unfold", "C2", "negative window", t, 0, -1, 1)
    yield _error("unfold", "C2", "0-d operand, window of 2", make((), device, torch.float32), 0, 2, 1)
    yield _error("unfold", "C3", "step 0", t, 0, 2, 0)


# (operand shape, sizes, dim)
SPLIT_CASES = [((5, 6), [2, 3], 0), ((5, 6), [1, 0, 5], 1), ((5, 6), [6], -1), ((2, 3, 4, 5), [1, 2], 1),
               ((2, 3, 4, 5), [2, 2, 1], 3), ((0, 3), [0, 0], 0), ((0, 3), [3], 1), ((4,), [1, 1, 1, 1], 0)]


def samples_split(op, device, dtype):
    for shape, sizes, dim in SPLIT_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (sizes, dim), name=f"{name} {shape} sizes={sizes} dim={dim}")


def errors_split(op, device):
    t = make((5, 6), device, torch.float32)
    yield _error("split", "C1", "0-d operand", make((), device, torch.float32), [1], 0, exc=PrimIndexError)
    yield _error("split", "C1", "dim out of range", t, [5], 2, exc=PrimIndexError)
    yield _error("split", "C2", "sizes sum short", t, [2, 2], 0)
    yield _error("split", "C2", "negative size", t, [6, -1], 0)
    yield _error("split", "C2", "no sizes", t, [], 0)


# --- dynamic_slice, dynamic_update_slice, slice_update ----------------------------------------

# (operand shape, starts, sizes): starts out of range are clamped.
DYNAMIC_CASES = [((5, 6), [1, 2], [3, 3]), ((5, 6), [-2, 7], [2, 2]), ((5, 6), [4, 4], [5, 6]),
                 ((5, 6), [3, 0], [0, 2]), ((5, 6), [9, -9], [1, 6]), ((2, 3, 4, 5), [1, 1, 2, 3], [1, 2, 2, 2]),
                 ((0, 3), [0, 2], [0, 2]), ((), [], [])]


def samples_dynamic_slice(op, device, dtype):
    for shape, starts, sizes in DYNAMIC_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (_starts(starts, device), sizes), name=f"{name} {shape} starts={starts} "
                              f"sizes={sizes}")
    yield SampleInput(make((5, 6), device, dtype), (_starts([2, 5], device, torch.int32), [2, 3]),
                      name="int32 starts")


def errors_dynamic_slice(op, device):
    t = make((5, 6), device, torch.float32)
    yield _error("dynamic_slice", "C1", "one start short", t, _starts([0], device), [2, 2])
    yield _error("dynamic_slice", "C1", "one size short", t, _starts([0, 0], device), [2])
    one_d = [torch.tensor([0], device=device), torch.tensor(0, device=device)]
    yield _error("dynamic_slice", "C2", "1-d start", t, one_d, [2, 2])
    yield _error("dynamic_slice", "C2", "float start", t, [torch.tensor(0.0, device=device)] * 2, [2, 2])
    yield _error("dynamic_slice", "C3", "slice larger than the dim", t, _starts([0, 0], device), [6, 2])
    yield _error("dynamic_slice", "C3", "negative size", t, _starts([0, 0], device), [-1, 2])
    yield _error("dynamic_slice", "C4", "start on another device", t, _starts([0, 0], _other_device(device)), [2, 2])


def samples_dynamic_update_slice(op, device, dtype):
    for shape, starts, sizes in DYNAMIC_CASES:
        for name, t in layouts(shape, device, dtype):
            for uname, u in layouts(tuple(sizes), device, dtype):
                if uname in ("contiguous", "transposed"):
                    yield SampleInput(t, (u, _starts(starts, device)), name=f"{name} {shape}, {uname} update "
                                      f"{tuple(sizes)} at {starts}")
    yield SampleInput(make((5, 6), device, dtype), (make((2, 3), device, dtype), _starts([4, 1], device, torch.int32)),
                      name="int32 starts")


def errors_dynamic_update_slice(op, device):
    t, u = make((5, 6), device, torch.float32), make((2, 2), device, torch.float32)
    yield _error("dynamic_update_slice", "C1", "update of another rank", t, make((2,), device, torch.float32),
                 _starts([0, 0], device))
    yield _error("dynamic_update_slice", "C1", "one start short", t, u, _starts([0], device))
    yield _error("dynamic_update_slice", "C2", "update larger than a", t, make((6, 2), device, torch.float32),
                 _starts([0, 0], device))
    yield _error("dynamic_update_slice", "C3", "update dtype differs", t, make((2, 2), device, torch.float64),
                 _starts([0, 0], device))
    yield _error("dynamic_update_slice", "C4", "float start", t, u, [torch.tensor(0.0, device=device)] * 2)
    yield _error("dynamic_update_slice", "C5", "update on another device", t,
                 make((2, 2), _other_device(device), torch.float32), _starts([0, 0], device))
    yield _error("dynamic_update_slice", "C5", "start on another device", t, u,
                 _starts([0, 0], _other_device(device)))


# (starts, limits, strides) into a (5, 6) operand
SLICE_UPDATE_CASES = [([0, 0], [5, 6], [1, 1]), ([1, 2], [4, 6], [1, 2]), ([0, 1], [5, 5], [2, 3]),
                      ([2, 0], [2, 6], [1, 1]), ([4, 5], [5, 6], [3, 4])]


def _slice_shape(starts, limits, strides):
    return tuple((lim - s + st - 1) // st for s, lim, st in zip(starts, limits, strides))


def samples_slice_update(op, device, dtype):
    for name, t in layouts((5, 6), device, dtype):
        for starts, limits, strides in SLICE_UPDATE_CASES:
            for uname, u in layouts(_slice_shape(starts, limits, strides), device, dtype):
                if uname in ("contiguous", "transposed"):
                    yield SampleInput(t, (u, starts, limits, strides), name=f"{name}, {uname} update "
                                      f"{starts}:{limits}:{strides}")
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        args = ([0, 1, 0, 1], [2, 3, 4, 5], [1, 1, 2, 2])
        yield SampleInput(t, (make(_slice_shape(*args), device, dtype), *args), name=f"{name} 4-d")
    yield SampleInput(make((), device, dtype), (make((), device, dtype), [], [], []), name="0-d")
    yield SampleInput(make((0, 3), device, dtype), (make((0, 2), device, dtype), [0, 1], [0, 3], [1, 1]),
                      name="empty")


def errors_slice_update(op, device):
    t, u = make((5, 6), device, torch.float32), make((5, 6), device, torch.float32)
    full = ([0, 0], [5, 6], [1, 1])
    yield _error("slice_update", "C1", "update of another rank", t, make((5,), device, torch.float32), *full)
    yield _error("slice_update", "C1", "one entry short", t, u, [0], [5], [1])
    yield _error("slice_update", "C2", "limit > size", t, make((5, 7), device, torch.float32), [0, 0], [5, 7], [1, 1])
    yield _error("slice_update", "C3", "zero stride", t, u, [0, 0], [5, 6], [1, 0])
    yield _error("slice_update", "C4", "update shape differs from the slice's", t, make((2, 6), device, torch.float32),
                 *full)
    yield _error("slice_update", "C5", "update dtype differs", t, make((5, 6), device, torch.float64), *full)
    yield _error("slice_update", "C6", "update on another device", t, make((5, 6), _other_device(device),
                                                                            torch.float32), *full)


# --- roll --------------------------------------------------------------------------------------

# (operand shape, shifts, dims)
ROLL_CASES = [((3, 4, 5), [1], [0]), ((3, 4, 5), [-2, 7], [1, 2]), ((3, 4, 5), [2, 1], [-1, -1]),
              ((2, 3, 4, 5), [1, -1], [1, 3]), ((0, 3), [2], [0]), ((0, 3), [2], [1]), ((1, 4), [3], [0]),
              ((), [1], [0])]


def samples_roll(op, device, dtype):
    for shape, shifts, dims in ROLL_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (shifts, dims), name=f"{name} {shape} shifts={shifts} dims={dims}")


def errors_roll(op, device):
    t = make((3, 4), device, torch.float32)
    yield _error("roll", "C1", "lengths differ", t, [1, 2], [0])
    yield _error("roll", "C1", "no dims", t, [1], [])
    yield _error("roll", "C2", "dim out of range", t, [1], [2], exc=PrimIndexError)


# --- view_as_real, view_as_complex ------------------------------------------------------------

def samples_view_as_real(op, device, dtype):
    for shape in ((), (0, 3), (5,), (3, 1, 4), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (), name=f"{name} {shape}")


def samples_view_as_complex(op, device, dtype):
    cases = [("contiguous", make((4, 2), device, dtype)), ("3-d", make((2, 3, 2), device, dtype)),
             ("one pair, 0-d result", make((2,), device, dtype)), ("empty", make((0, 2), device, dtype)),
             ("rows with gaps", make((4, 4), device, dtype)[:, :2]),
             ("transposed outer dims", make((3, 4, 2), device, dtype).transpose(0, 1)),
             ("expanded", make((1, 3, 2), device, dtype).expand(4, 3, 2)),
             ("permuted outer dims", make((2, 3, 4, 2), device, dtype).permute(0, 2, 1, 3)),
             ("size-1 dim", make((3, 1, 2), device, dtype))]
    for name, t in cases:
        yield SampleInput(t, (), name=name)


def errors_view_as_real(op, device):
    yield _error("view_as_real", "C1", "float32 operand", make((3,), device, torch.float32))


def errors_view_as_complex(op, device):
    yield _error("view_as_complex", "C1", "int64 operand", make((3, 2), device, torch.int64))
    yield _error("view_as_complex", "C1", "complex64 operand", make((3, 2), device, torch.complex64))
    yield _error("view_as_complex", "C2", "last dim of size 3", make((3, 3), device, torch.float32))
    yield _error("view_as_complex", "C2", "0-d operand", make((), device, torch.float32))
    yield _error("view_as_complex", "C3", "last stride 2", make((2, 4), device, torch.float32)[:, ::2])
    yield _error("view_as_complex", "C4", "odd row stride", make((3, 3), device, torch.float32)[:, :2])
    yield _error("view_as_complex", "C5", "odd storage offset", make((7,), device, torch.float32)[1:].view(3, 2))


SPECIFIC = {
    "split_dim": (samples_split_dim, errors_split_dim),
    "collapse": (samples_collapse, errors_collapse),
    "alias": (samples_alias, errors_unsupported_dtype),
    "stop_gradient": (samples_alias, errors_unsupported_dtype),
    "diagonal": (samples_diagonal, errors_diagonal),
    "unfold": (samples_unfold, errors_unfold),
    "split": (samples_split, errors_split),
    "dynamic_slice": (samples_dynamic_slice, errors_dynamic_slice),
    "dynamic_update_slice": (samples_dynamic_update_slice, errors_dynamic_update_slice),
    "slice_update": (samples_slice_update, errors_slice_update),
    "roll": (samples_roll, errors_roll),
    "view_as_real": (samples_view_as_real, errors_view_as_real),
    "view_as_complex": (samples_view_as_complex, errors_view_as_complex),
}
