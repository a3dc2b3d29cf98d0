"""Samples and constraint error inputs of the shape family: dims lists (squeeze, expand_dims, rev,
permute), broadcast, reshape, slice, pad, cat, as_strided; split, merge, alias or window dims, slices
at data-given starts, slice updates, roll."""
from __future__ import annotations

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error, errors_unsupported_dtype, fill_value, other_device
from primkit.opinfo.prims.strategies import composite, dim_of, dtype_of, DTYPES, fuzz_fill, invalid, laid_out, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError
from primkit.prims.layout import numel


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
    yield error(op, "C1", "0-d operand", make((), device, torch.float32), 0, 1, exc=PrimIndexError)
    yield error(op, "C1", "dim out of range", t, 2, 2, exc=PrimIndexError)
    yield error(op, "C2", "outer 0", t, 0, 0)
    yield error(op, "C2", "outer does not divide the size", t, 0, 4)


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
    yield error(op, "C1", "start == end", t, 1, 1, exc=PrimIndexError)
    yield error(op, "C1", "end beyond the rank", t, 0, 3, exc=PrimIndexError)
    yield error(op, "C1", "0-d operand", make((), device, torch.float32), 0, 0, exc=PrimIndexError)
    yield error(op, "C2", "transposed dims", t.t(), 0, 2)
    yield error(op, "C2", "a gap between the dims", make((3, 8), device, torch.float32)[:, :4], 0, 2)


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
    yield error(op, "C1", "1-d operand", make((3,), device, torch.float32), 0, 0, 1, exc=PrimIndexError)
    yield error(op, "C1", "dim out of range", t, 0, 0, 2, exc=PrimIndexError)
    yield error(op, "C2", "dim1 == dim2", t, 0, 1, -1)


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
    yield error(op, "C1", "dim out of range", t, 2, 2, 1, exc=PrimIndexError)
    yield error(op, "C2", "window longer than the dim", t, 0, 6, 1)
    yield error(op, "C2", "negative window", t, 0, -1, 1)
    yield error(op, "C2", "0-d operand, window of 2", make((), device, torch.float32), 0, 2, 1)
    yield error(op, "C3", "step 0", t, 0, 2, 0)


# (operand shape, sizes, dim)
SPLIT_CASES = [((5, 6), [2, 3], 0), ((5, 6), [1, 0, 5], 1), ((5, 6), [6], -1), ((2, 3, 4, 5), [1, 2], 1),
               ((2, 3, 4, 5), [2, 2, 1], 3), ((0, 3), [0, 0], 0), ((0, 3), [3], 1), ((4,), [1, 1, 1, 1], 0)]


def samples_split(op, device, dtype):
    for shape, sizes, dim in SPLIT_CASES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (sizes, dim), name=f"{name} {shape} sizes={sizes} dim={dim}")


def errors_split(op, device):
    t = make((5, 6), device, torch.float32)
    yield error(op, "C1", "0-d operand", make((), device, torch.float32), [1], 0, exc=PrimIndexError)
    yield error(op, "C1", "dim out of range", t, [5], 2, exc=PrimIndexError)
    yield error(op, "C2", "sizes sum short", t, [2, 2], 0)
    yield error(op, "C2", "negative size", t, [6, -1], 0)
    yield error(op, "C2", "no sizes", t, [], 0)


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
    yield error(op, "C1", "one start short", t, _starts([0], device), [2, 2])
    yield error(op, "C1", "one size short", t, _starts([0, 0], device), [2])
    one_d = [torch.tensor([0], device=device), torch.tensor(0, device=device)]
    yield error(op, "C2", "1-d start", t, one_d, [2, 2])
    yield error(op, "C2", "float start", t, [torch.tensor(0.0, device=device)] * 2, [2, 2])
    yield error(op, "C3", "slice larger than the dim", t, _starts([0, 0], device), [6, 2])
    yield error(op, "C3", "negative size", t, _starts([0, 0], device), [-1, 2])
    yield error(op, "C4", "start on another device", t, _starts([0, 0], other_device(device)), [2, 2])


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
    yield error(op, "C1", "update of another rank", t, make((2,), device, torch.float32),
                 _starts([0, 0], device))
    yield error(op, "C1", "one start short", t, u, _starts([0], device))
    yield error(op, "C2", "update larger than a", t, make((6, 2), device, torch.float32),
                 _starts([0, 0], device))
    yield error(op, "C3", "update dtype differs", t, make((2, 2), device, torch.float64),
                 _starts([0, 0], device))
    yield error(op, "C4", "float start", t, u, [torch.tensor(0.0, device=device)] * 2)
    yield error(op, "C5", "update on another device", t,
                 make((2, 2), other_device(device), torch.float32), _starts([0, 0], device))
    yield error(op, "C5", "start on another device", t, u,
                 _starts([0, 0], other_device(device)))


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
    yield error(op, "C1", "update of another rank", t, make((5,), device, torch.float32), *full)
    yield error(op, "C1", "one entry short", t, u, [0], [5], [1])
    yield error(op, "C2", "limit > size", t, make((5, 7), device, torch.float32), [0, 0], [5, 7], [1, 1])
    yield error(op, "C3", "zero stride", t, u, [0, 0], [5, 6], [1, 0])
    yield error(op, "C4", "update shape differs from the slice's", t, make((2, 6), device, torch.float32),
                 *full)
    yield error(op, "C5", "update dtype differs", t, make((5, 6), device, torch.float64), *full)
    yield error(op, "C6", "update on another device", t, make((5, 6), other_device(device),
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
    yield error(op, "C1", "lengths differ", t, [1, 2], [0])
    yield error(op, "C1", "no dims", t, [1], [])
    yield error(op, "C2", "dim out of range", t, [1], [2], exc=PrimIndexError)


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
}


# --- shape: prims that take a list of dims ---------------------------------------------------

# (operand shape, dims): every case runs in every layout of its shape.
DIMS_CASES = {
    "permute": [((2, 3, 4), [2, 0, 1]), ((2, 3, 4), [-1, 0, -2]), ((2, 3, 4, 5), [0, 2, 3, 1]),
                ((4, 1), [1, 0]), ((0, 3), [1, 0]), ((), [])],
    "squeeze": [((3, 1, 4, 1), [1, 3]), ((3, 1, 4, 1), [-1]), ((3, 1, 4, 1), []), ((1, 1), [0, 1]),
                ((0, 1), [1]), ((1, 2, 1, 3), [0, 2]), ((), []), ((), [0])],
    "expand_dims": [((3, 4), [0]), ((3, 4), [2]), ((3, 4), [-1]), ((3, 4), [0, 3]), ((3, 4), [1, -2]),
                    ((2, 3, 4, 5), [1]), ((0, 3), [1]), ((), [0]), ((), [0, -1])],
    "rev": [((3, 4, 5), [0]), ((3, 4, 5), [1, 2]), ((3, 4, 5), [-1]), ((3, 4, 5), []),
            ((2, 3, 4, 5), [1, 3]), ((0, 3), [1]), ((1, 4), [0]), ((), [])],
}

# (constraint id, operand shape, dims, exception)
DIMS_ERRORS = {
    "permute": [("C1", (2, 3), [0, 0], PrimConstraintError), ("C1", (2, 3), [0], PrimConstraintError),
                ("C1", (2, 3), [0, 2], PrimConstraintError)],
    "squeeze": [("C1", (1, 3), [2], PrimIndexError), ("C1", (1, 1), [0, -2], PrimConstraintError),
                ("C2", (1, 3), [1], PrimConstraintError)],
    "expand_dims": [("C1", (2, 3), [3], PrimIndexError), ("C1", (2, 3), [0, 0], PrimConstraintError)],
    "rev": [("C1", (2, 3), [2], PrimIndexError), ("C1", (2, 3), [1, -1], PrimConstraintError)],
}


def samples_dims(op, device, dtype):
    for shape, dims in DIMS_CASES[op.prim.name]:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (dims,), name=f"{name} {shape} dims={dims}")


def errors_dims(op, device):
    for cid, shape, dims, exc in DIMS_ERRORS[op.prim.name]:
        yield error(op, cid, f"{shape} dims={dims}", make(shape, device, torch.float32), dims, exc=exc)


SPECIFIC.update({name: (samples_dims, errors_dims) for name in DIMS_CASES})


# --- shape: the others -----------------------------------------------------------------------

def samples_broadcast_in_dim(op, device, dtype):
    cases = [((3, 1, 4), (2, 3, 5, 4), [1, 2, 3]), ((3, 1, 4), (3, 6, 4), [0, 1, 2]),
             ((4,), (3, 4), [1]), ((4,), (4, 3), [0]), ((), (2, 3), []), ((1,), (0,), [0]),
             ((0, 4), (2, 0, 4), [1, 2]), ((2, 3, 4, 5), (2, 3, 4, 5), [0, 1, 2, 3]),
             ((2, 3, 4, 5), (2, 3, 2, 4, 5), [0, 1, 3, 4])]
    for shape, target, bd in cases:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (list(target), bd), name=f"{name} {shape} -> {target}")


def errors_broadcast_in_dim(op, device):
    t = make((3, 1), device, torch.float32)
    yield error(op, "C1", "one entry short", t, [3, 4], [0])
    yield error(op, "C2", "not increasing", t, [4, 3, 3], [2, 1])
    yield error(op, "C2", "beyond target rank", t, [3, 4], [0, 2])
    yield error(op, "C3", "size mismatch", t, [4, 4], [0, 1])
    yield error(op, "C4", "negative size of a broadcast dim", t, [3, -1], [0, 1])
    yield error(op, "C4", "negative size of a new dim", t, [-2, 3, 1], [1, 2])


def samples_reshape(op, device, dtype):
    base = make((4, 6), device, dtype)
    expanded = make((1, 4), device, dtype).expand(3, 4)
    cl = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
    cases = [
        ("contiguous split", make((3, 4), device, dtype), (2, 6)),
        ("contiguous flatten", make((2, 3, 4), device, dtype), (24,)),
        ("strided view", base[:, ::2], (2, 2, 3)),              # non-contiguous, dims split: a view
        ("strided copy", base[:, ::2], (12,)),                  # the gap makes a view impossible
        ("transposed view", make((4, 5), device, dtype).t(), (5, 2, 2)),
        ("transposed copy", make((4, 5), device, dtype).t(), (20,)),
        ("expanded view", expanded, (3, 2, 2)),
        ("expanded copy", expanded, (12,)),
        ("channels_last view", cl, (2, 3, 20)),                 # H and W stay adjacent
        ("channels_last copy", cl, (6, 20)),
        ("size-1 dims", make((3, 1, 4), device, dtype, noncontiguous=True), (3, 4)),
        ("add size-1 dims", make((4, 3), device, dtype).t(), (1, 3, 1, 4, 1)),
        ("0-d to (1, 1)", make((), device, dtype), (1, 1)),
        ("(1, 1) to 0-d", make((1, 1), device, dtype), ()),
        ("empty", make((0, 3), device, dtype), (3, 0)),
        ("empty flatten", make((2, 0, 3), device, dtype), (0,)),
    ]
    for name, t, shape in cases:
        yield SampleInput(t, (list(shape),), name=name)
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        for shape in ((6, 20), (120,), (2, 3, 2, 2, 5)):
            yield SampleInput(t, (list(shape),), name=f"{name} (2, 3, 4, 5) -> {shape}")


def errors_reshape(op, device):
    t = make((2, 3), device, torch.float32)
    yield error(op, "C1", "negative size (no -1 inference)", t, [-1, 6])
    yield error(op, "C2", "element count differs", t, [4, 2])


def samples_slice(op, device, dtype):
    cases = [([0, 0], [5, 6], [1, 1]), ([1, 2], [4, 6], [1, 2]), ([0, 1], [5, 5], [2, 3]),
             ([2, 0], [2, 6], [1, 1]), ([4, 5], [5, 6], [3, 4])]
    for name, t in layouts((5, 6), device, dtype):
        for start, limit, step in cases:
            yield SampleInput(t, (start, limit, step), name=f"{name} {start}:{limit}:{step}")
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(t, ([0, 1, 0, 1], [2, 3, 4, 5], [1, 1, 2, 2]), name=f"{name} 4-d")
    yield SampleInput(make((), device, dtype), ([], [], []), name="0-d")
    yield SampleInput(make((0, 3), device, dtype), ([0, 1], [0, 3], [1, 1]), name="empty")


def errors_slice(op, device):
    t = make((5, 6), device, torch.float32)
    yield error(op, "C1", "one entry short", t, [0], [5], [1])
    yield error(op, "C2", "start > limit", t, [3, 0], [2, 6], [1, 1])
    yield error(op, "C2", "limit > size", t, [0, 0], [5, 7], [1, 1])
    yield error(op, "C2", "negative start", t, [-1, 0], [5, 6], [1, 1])
    yield error(op, "C3", "zero stride", t, [0, 0], [5, 6], [1, 0])


def samples_pad(op, device, dtype):
    value = fill_value(dtype)
    cases = [([1, 0], [0, 2], [0, 0]), ([-1, 2], [1, -2], [1, 0]), ([0, 0], [0, 0], [2, 1]),
             ([-3, 0], [0, 0], [0, 0]), ([2, -1], [-1, 3], [1, 2]), ([0, 0], [0, 0], [0, 0])]
    for name, t in layouts((3, 4), device, dtype):
        for low, high, interior in cases:
            yield SampleInput(t, (value, low, high, interior), name=f"{name} low={low} high={high} int={interior}")
    for name, t in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(t, (value, [0, 0, 1, -1], [0, 1, 1, 0], [0, 0, 1, 0]), name=f"{name} 4-d")
    yield SampleInput(make((0, 3), device, dtype), (value, [1, 0], [2, 1], [1, 1]), name="empty dim padded")
    yield SampleInput(make((0, 3), device, dtype), (value, [0, -1], [0, -2], [0, 0]), name="empty dim cropped")
    yield SampleInput(make((1, 5), device, dtype), (value, [0, 0], [0, 0], [3, 0]), name="interior of size 1")
    yield SampleInput(make((), device, dtype), (value, [], [], []), name="0-d")


def errors_pad(op, device):
    t = make((3, 4), device, torch.float32)
    yield error(op, "C1", "one entry short", t, 0.0, [0], [0], [0])
    yield error(op, "C2", "negative interior", t, 0.0, [0, 0], [0, 0], [-1, 0])
    yield error(op, "C2", "negative output size", t, 0.0, [-2, 0], [-2, 0], [0, 0])
    yield error(op, "C3", "int8 padding_value 200", make((3, 4), device, torch.int8), 200, [1, 0], [0, 0], [0, 0])
    yield error(op, "C3", "uint8 padding_value -1.5 (only an int wraps)", make((3, 4), device, torch.uint8), -1.5,
                 [1, 0], [0, 0], [0, 0])


def samples_cat(op, device, dtype):
    def cl(shape):
        return make(shape, device, dtype).contiguous(memory_format=torch.channels_last)
    for name, t in layouts((4, 3), device, dtype):
        yield SampleInput([make((2, 3), device, dtype), t], (0,), name=f"dim 0, {name} second")
        yield SampleInput([t, make((4, 2), device, dtype).t()[:1].t()], (-1,), name=f"dim -1, {name} first")
    yield SampleInput([make((3, 2), device, dtype), make((3, 4), device, dtype), make((3, 1), device, dtype)], (1,),
                      name="three tensors")
    yield SampleInput([cl((2, 3, 4, 5)), cl((2, 2, 4, 5))], (1,), name="all channels_last")
    yield SampleInput([cl((2, 3, 4, 5)), cl((2, 3, 4, 5))], (-1,), name="all channels_last dim -1")
    yield SampleInput([cl((2, 3, 4, 5)), make((2, 3, 4, 5), device, dtype)], (0,), name="mixed channels_last")
    yield SampleInput([cl((2, 3, 4, 5))[:, :, ::2], cl((2, 3, 1, 5))], (2,), name="sliced channels_last")
    yield SampleInput([cl((2, 1, 4, 5)), cl((2, 1, 4, 5))], (1,), name="channels_last with one channel")
    yield SampleInput([make(s, device, dtype).contiguous(memory_format=torch.channels_last_3d)
                       for s in ((2, 3, 2, 3, 4), (1, 3, 2, 3, 4))], (0,), name="all channels_last_3d")
    yield SampleInput([make((4, 3), device, dtype).t()], (0,), name="one transposed tensor")
    yield SampleInput([make((0, 3), device, dtype), make((2, 3), device, dtype)], (0,), name="empty first")
    yield SampleInput([make((2, 0), device, dtype), make((2, 0), device, dtype)], (1,), name="all empty")
    yield SampleInput([make((3,), device, dtype), make((0,), device, dtype), make((2,), device, dtype)], (0,),
                      name="1-d")
    yield SampleInput([make((1, 3), device, dtype).expand(2, 3), make((1, 3), device, dtype)], (0,),
                      name="expanded")


def errors_cat(op, device):
    a = make((2, 3), device, torch.float32)
    yield error(op, "C1", "no tensors", [], 0)
    yield error(op, "C2", "ranks differ", [a, make((3,), device, torch.float32)], 0)
    yield error(op, "C2", "0-d", [make((), device, torch.float32), make((), device, torch.float32)], 0)
    yield error(op, "C3", "sizes differ", [a, make((2, 4), device, torch.float32)], 0)
    yield error(op, "C4", "dtypes differ", [a, make((2, 3), device, torch.float64)], 0)
    other = other_device(device)
    if other:
        yield error(op, "C4", "devices differ", [a, make((2, 3), other, torch.float32)], 0)
    yield error(op, "C5", "dim out of range", [a, a], 2, exc=PrimIndexError)


def samples_as_strided(op, device, dtype):
    cases = [((2, 3), (1, 2), 3), ((3, 3), (0, 1), 0), ((), (), 4), ((0, 3), (3, 1), 0),
             ((2, 2, 2), (10, 5, 1), 1), ((4, 1), (5, 7), 2), ((2, 3, 2, 2), (1, 4, 2, 1), 0)]
    for name, base in (("contiguous base", make((4, 5), device, dtype)),
                       ("transposed base", make((5, 4), device, dtype).t())):
        for size, stride, offset in cases:
            yield SampleInput(base, (list(size), list(stride), offset), name=f"{name} {size} {stride} +{offset}")
    base = make((4, 5), device, dtype)
    yield SampleInput(base[1:2], ([4, 5], [5, 1], 0), name="a slice's whole storage")
    yield SampleInput(base, ([0, 3], [3, 1], 100), name="empty view far past the end (reads nothing)")
    yield SampleInput(base, ([], [], 19), name="last element")


def errors_as_strided(op, device):
    t = make((4, 5), device, torch.float32)
    yield error(op, "C1", "lengths differ", t, [2, 3], [1], 0)
    yield error(op, "C2", "negative stride", t, [2, 3], [1, -1], 4)
    yield error(op, "C2", "negative offset", t, [2, 3], [3, 1], -1)
    yield error(op, "C3", "past the storage's end", t, [10, 10], [10, 1], 0)
    yield error(op, "C3", "offset at the storage's end", t, [], [], 20)
    yield error(op, "C3", "past the end of a slice's storage", make((4, 5), device, torch.float32)[1:2], [4, 5], [5, 1], 1)


SPECIFIC.update({
    "broadcast_in_dim": (samples_broadcast_in_dim, errors_broadcast_in_dim),
    "reshape": (samples_reshape, errors_reshape),
    "slice": (samples_slice, errors_slice),
    "pad": (samples_pad, errors_pad),
    "cat": (samples_cat, errors_cat),
    "as_strided": (samples_as_strided, errors_as_strided),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def permute_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(strided(shape, torch.float32)), (list(draw(st.permutations(range(len(shape))))),))


@composite
def reshape_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    count = numel(shape)
    factors = [f for f in range(1, 9) if count and count % f == 0] or [1]
    first = draw(st.sampled_from(factors))
    target = [first, count // first] if count else [0, draw(st.integers(1, 3))]
    return SampleInput(draw(strided(shape, torch.float32)), (maybe(draw, target, [count + 1]),))


@composite
def broadcast_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    extra = draw(st.integers(0, 2))
    target = [draw(st.integers(1, 3)) for _ in range(extra)] + [s if s != 1 else draw(st.integers(1, 3)) for s in shape]
    return SampleInput(draw(strided(shape, torch.float32)), (target, list(range(extra, extra + len(shape)))))


@composite
def slice_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    starts = [draw(st.integers(0, s)) for s in shape]
    limits = [draw(st.integers(b, s)) for b, s in zip(starts, shape)]
    return SampleInput(draw(strided(shape, torch.float32)), (starts, limits, [draw(st.integers(1, 3)) for _ in shape]))


@composite
def dims_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    a = draw(strided(shape, torch.float32))
    if prim.meta == "squeeze":
        return SampleInput(a, ([d for d in range(len(shape)) if shape[d] == 1 and draw(st.booleans())],))
    if prim.meta == "expand_dims":
        return SampleInput(a, (draw(st.lists(st.integers(0, len(shape)), unique=True, max_size=2)),))
    return SampleInput(a, (draw(st.lists(st.integers(0, len(shape) - 1), unique=True)),))


@composite
def as_strided_call(draw, prim):
    rank = draw(st.integers(0, 3))
    size = [draw(st.integers(0, 3)) for _ in range(rank)]
    stride = [draw(st.integers(0, 4)) for _ in range(rank)]
    offset = draw(st.integers(0, 3))
    if invalid(draw):
        stride = stride + [1]
    # The operand's storage holds every element the view addresses (torch checks that, not the rule).
    extent = offset + (sum((s - 1) * t for s, t in zip(size, stride)) + 1 if 0 not in size else 0)
    # (laid_out, not strided: an expanded view would have a storage of one element)
    dtype = draw(st.sampled_from(DTYPES))
    a = draw(laid_out(torch.testing.make_tensor((extent + draw(st.integers(0, 2)),), dtype=dtype, device="cpu")))
    return SampleInput(a, (size, stride, offset))


@composite
def pad_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    n = len(shape)
    low = [draw(st.integers(-2, 2)) for _ in range(n)]
    high = [draw(st.integers(-2, 2)) for _ in range(n)]
    interior = [maybe(draw, draw(st.integers(0, 2)), -1) for _ in range(n)]
    return SampleInput(draw(strided(shape, dtype)), (fuzz_fill(dtype), low, high, interior))


@composite
def cat_call(draw, prim):
    shape = list(draw(shapes(min_dims=1)))
    dim = draw(st.integers(0, len(shape) - 1))
    dtype = dtype_of(draw, prim)
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        s = list(shape)
        s[dim] = draw(st.integers(0, 3))
        parts.append(draw(strided(tuple(s), dtype)))
    return SampleInput(parts, (maybe(draw, dim, len(shape)),))


@composite
def alias_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes()), draw(st.sampled_from(DTYPES)))))


@composite
def split_dim_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    dim = dim_of(draw, len(shape))
    size = shape[dim] if -len(shape) <= dim < len(shape) else 0
    divisors = [f for f in range(1, size + 1) if size % f == 0] or [1]
    outer = maybe(draw, draw(st.sampled_from(divisors)), draw(st.sampled_from([0, size + 1])))
    return SampleInput(draw(strided(shape, torch.float32)), (dim, outer))


@composite
def collapse_call(draw, prim):
    """Random strides: merged dims that cannot be viewed as one are C2 errors on both sides."""
    shape = draw(shapes(min_dims=1))
    start = draw(st.integers(0, len(shape) - 1))
    end = maybe(draw, draw(st.integers(start + 1, len(shape))), start)
    return SampleInput(draw(strided(shape, torch.float32)), (start, end))


@composite
def diagonal_call(draw, prim):
    shape = draw(shapes(min_dims=2))
    rank = len(shape)
    dim1 = draw(st.integers(-rank, rank - 1))
    dim2 = maybe(draw, draw(st.sampled_from([d for d in range(-rank, rank) if d % rank != dim1 % rank])), dim1)
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (draw(st.integers(-3, 3)), dim1, dim2))


@composite
def unfold_call(draw, prim):
    shape = draw(shapes())
    dim = dim_of(draw, len(shape))
    size = (shape[dim] if -len(shape) <= dim < len(shape) else 0) if shape else 1
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))),
                       (dim, maybe(draw, draw(st.integers(0, size)), size + 1), maybe(draw, draw(st.integers(1, 3)), 0)))


@composite
def split_call(draw, prim):
    shape = draw(shapes(min_dims=1))
    dim = dim_of(draw, len(shape))
    size = shape[dim] if -len(shape) <= dim < len(shape) else 0
    cuts = sorted(draw(st.lists(st.integers(0, size), max_size=3)))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [size])]
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (maybe(draw, sizes, sizes + [1]), dim))


@composite
def roll_call(draw, prim):
    shape = draw(shapes())
    dims = draw(st.lists(st.integers(-max(len(shape), 1), max(len(shape), 1) - 1), min_size=1, max_size=3))
    shifts = [draw(st.integers(-5, 5)) for _ in dims]
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), (maybe(draw, shifts, shifts + [1]), dims))


def _start_index(draw, bound):
    """A 0-d int32 / int64 start index, out of range sometimes (it is clamped)."""
    return torch.tensor(draw(st.integers(-1, bound + 1)), dtype=draw(st.sampled_from([torch.int32, torch.int64])))


@composite
def dynamic_slice_call(draw, prim):
    shape = draw(shapes())
    a = draw(strided(shape, dtype_of(draw, prim)))
    sizes = [draw(st.integers(0, s)) for s in shape]
    starts = [_start_index(draw, s) for s in shape]
    if invalid(draw):
        starts = starts + [torch.tensor(0)] if draw(st.booleans()) else [torch.zeros(1, dtype=torch.int64)] * len(shape)
    return SampleInput(a, (starts, maybe(draw, sizes, [s + 1 for s in shape])))


@composite
def dynamic_update_slice_call(draw, prim):
    shape = draw(shapes())
    dtype = dtype_of(draw, prim)
    update = draw(strided(maybe(draw, tuple(draw(st.integers(0, s)) for s in shape), shape + (1,)), dtype))
    starts = [_start_index(draw, s) for s in shape]
    return SampleInput(draw(strided(shape, dtype)), (update, maybe(draw, starts, starts + [torch.tensor(0)])))


@composite
def slice_update_call(draw, prim):
    shape = draw(shapes())
    dtype = dtype_of(draw, prim)
    starts = [draw(st.integers(0, s)) for s in shape]
    limits = [draw(st.integers(b, s)) for b, s in zip(starts, shape)]
    strides = [maybe(draw, draw(st.integers(1, 3)), 0) for _ in shape]
    sliced = tuple(len(range(b, e, max(t, 1))) for b, e, t in zip(starts, limits, strides))
    update = draw(strided(maybe(draw, sliced, sliced + (1,)), maybe(draw, dtype, torch.float64)))
    return SampleInput(draw(strided(shape, dtype)), (update, starts, limits, strides))


STRATEGIES = {"permute": permute_call, "reshape": reshape_call, "broadcast_in_dim": broadcast_call, "slice": slice_call, "squeeze": dims_call, "expand_dims": dims_call, "rev": dims_call, "cat": cat_call, "pad": pad_call, "as_strided": as_strided_call, "alias": alias_call, "split_dim": split_dim_call, "collapse": collapse_call, "diagonal": diagonal_call, "unfold": unfold_call, "split": split_call, "roll": roll_call, "dynamic_slice": dynamic_slice_call, "dynamic_update_slice": dynamic_update_slice_call, "slice_update": slice_update_call}
