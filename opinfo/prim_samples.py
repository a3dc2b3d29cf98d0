"""Samples and constraint error inputs of the prims that are not covered by a family generator.

``SPECIFIC[name] = (samples, errors)``: samples call the prim directly and cover the layouts its
meta rule must model (non-contiguous, transposed, channels-last, expanded, 0-d, empty, size-1
dims, negative dims); errors violate one constraint each, and every constraint id of the prim's
YAML entry has at least one (a device mismatch uses the meta device where there is no GPU).
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError
from primkit.prims.meta.strides import channels_last_strides

SPECIFIC = {}

# A dtype no catalog class holds: "dtype is one of the prim's dtypes" fails for it even under [all].
ODD_DTYPE = torch.uint16


def _unsupported_dtype(prim):
    return next(d for d in (torch.bool, torch.complex64, torch.int64, torch.float32, ODD_DTYPE)
                if d not in prim.dtypes)


def _fill_value(dtype):
    """A Python scalar that the dtype holds exactly."""
    if dtype == torch.bool:
        return True
    if dtype.is_complex:
        return 1.5 - 2j
    return 3 if not dtype.is_floating_point else -1.5


def _error(op, cid, name, input, *args, exc=PrimConstraintError, **kwargs):
    return ErrorInput(SampleInput(input, args, kwargs, name=f"{cid}: {name}"), exc, f"{op.prim.name}: {cid}:")


def _other_device(device):
    """A second device for device-mismatch inputs: the other of cpu/cuda, or without a GPU the
    meta device (a meta tensor meets a cpu one: the prim's device check fires all the same)."""
    if not torch.cuda.is_available():
        return "meta" if torch.device(device).type != "meta" else "cpu"
    return "cpu" if torch.device(device).type == "cuda" else "cuda"


def _index(shape, high, device):
    """An int64 index of the given shape with values in [0, high)."""
    if high == 0 or 0 in shape:
        return torch.zeros(shape, device=device, dtype=torch.int64)
    return make(shape, device, torch.int64, low=0, high=high)


# --- creation --------------------------------------------------------------------------------

CREATION_SHAPES = ((), (0,), (3,), (2, 3), (1, 4, 1), (2, 0, 3))


def samples_full(op, device, dtype):
    for shape in CREATION_SHAPES:
        yield SampleInput(list(shape), (_fill_value(dtype),), {"dtype": dtype, "device": device}, name=f"{shape}")
    if dtype.is_floating_point:
        yield SampleInput([2], (-1e300,), {"dtype": dtype, "device": device}, name="beyond the range: rounds to -inf")
    if dtype == torch.uint8:
        yield SampleInput([2], (-1,), {"dtype": dtype, "device": device}, name="unsigned -1 wraps to 255")


def errors_full(op, device):
    kw = {"dtype": torch.float32, "device": device}
    yield _error(op, "C1", "negative size", [2, -1], 1.0, **kw)
    yield _error(op, "C2", "unsupported dtype", [2], 1, dtype=_unsupported_dtype(op.prim), device=device)
    yield _error(op, "C3", "int8 fill 200", [2], 200, dtype=torch.int8, device=device)
    yield _error(op, "C3", "uint8 fill -256", [2], -256, dtype=torch.uint8, device=device)
    yield _error(op, "C3", "int32 fill inf", [2], float("inf"), dtype=torch.int32, device=device)
    yield _error(op, "C3", "float32 fill 1j", [2], 1j, dtype=torch.float32, device=device)


def samples_scalar_tensor(op, device, dtype):
    yield SampleInput(_fill_value(dtype), (), {"dtype": dtype, "device": device}, name="value")
    yield SampleInput(False if dtype == torch.bool else 0, (), {"dtype": dtype, "device": device}, name="zero")
    if dtype.is_floating_point:
        yield SampleInput(1e300, (), {"dtype": dtype, "device": device}, name="beyond the range: rounds to inf")


def errors_scalar_tensor(op, device):
    yield _error(op, "C1", "unsupported dtype", 1, dtype=_unsupported_dtype(op.prim), device=device)
    yield _error(op, "C2", "int32 value 2**40", 2 ** 40, dtype=torch.int32, device=device)
    yield _error(op, "C2", "int8 value nan", float("nan"), dtype=torch.int8, device=device)


def samples_iota(op, device, dtype):
    for length, start, step in ((5, 0, 1), (0, 0, 1), (1, 7, 1), (6, -3, 2), (4, 3, -1)):
        yield SampleInput(length, (), {"start": start, "step": step, "dtype": dtype, "device": device},
                          name=f"length={length} start={start} step={step}")


def errors_iota(op, device):
    kw = {"start": 0, "device": device}
    yield _error(op, "C1", "negative length", -1, step=1, dtype=torch.int64, **kw)
    yield _error(op, "C2", "unsupported dtype", 3, step=1, dtype=_unsupported_dtype(op.prim), **kw)
    yield _error(op, "C3", "zero step", 3, step=0, dtype=torch.int64, **kw)
    yield _error(op, "C4", "int8 values past 127", 200, step=1, dtype=torch.int8, **kw)
    yield _error(op, "C4", "bound past int64", 4, start=3, step=-2 ** 63, dtype=torch.float32, device=device)


def samples_empty_strided(op, device, dtype):
    cases = {
        "contiguous": ([2, 3], [3, 1]), "transposed": ([2, 3], [1, 2]), "stride 0": ([2, 3], [0, 1]),
        "0-d": ([], []), "empty": ([0, 3], [3, 1]), "size-1 dim": ([4, 1], [1, 1]),
        "channels_last": ([2, 3, 4, 5], list(channels_last_strides((2, 3, 4, 5)))),
        "gaps": ([2, 3], [8, 2]),
    }
    for name, (shape, stride) in cases.items():
        yield SampleInput(shape, (stride,), {"dtype": dtype, "device": device}, name=name)


def errors_empty_strided(op, device):
    kw = {"dtype": torch.float32, "device": device}
    yield _error(op, "C1", "lengths differ", [2, 3], [1], **kw)
    yield _error(op, "C1", "negative stride", [2, 3], [3, -1], **kw)
    yield _error(op, "C1", "negative size", [-2, 3], [3, 1], **kw)
    yield _error(op, "C2", "unsupported dtype", [2], [1], dtype=_unsupported_dtype(op.prim), device=device)


def samples_empty_permuted(op, device, dtype):
    cases = {
        "identity": ([2, 3], [0, 1]), "transposed": ([2, 3], [1, 0]), "channels_last": ([2, 3, 4, 5], [0, 2, 3, 1]),
        "3-d permuted": ([2, 3, 4], [2, 0, 1]), "0-d": ([], []), "empty": ([0, 3], [1, 0]),
        "size-1 dims": ([4, 1, 1], [1, 2, 0]), "1-d": ([5], [0]),
    }
    for name, (shape, layout) in cases.items():
        yield SampleInput(shape, (layout,), {"dtype": dtype, "device": device}, name=name)


def errors_empty_permuted(op, device):
    kw = {"dtype": torch.float32, "device": device}
    yield _error(op, "C1", "negative size", [2, -3], [0, 1], **kw)
    yield _error(op, "C2", "a dim repeated", [2, 3], [0, 0], **kw)
    yield _error(op, "C2", "one dim short", [2, 3], [0], **kw)
    yield _error(op, "C3", "unsupported dtype", [2], [0], dtype=_unsupported_dtype(op.prim), device=device)


SPECIFIC.update({
    "empty_permuted": (samples_empty_permuted, errors_empty_permuted),
    "full": (samples_full, errors_full),
    "scalar_tensor": (samples_scalar_tensor, errors_scalar_tensor),
    "iota": (samples_iota, errors_iota),
    "empty_strided": (samples_empty_strided, errors_empty_strided),
})


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
        yield _error(op, cid, f"{shape} dims={dims}", make(shape, device, torch.float32), dims, exc=exc)


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
    yield _error(op, "C1", "one entry short", t, [3, 4], [0])
    yield _error(op, "C2", "not increasing", t, [4, 3, 3], [2, 1])
    yield _error(op, "C2", "beyond target rank", t, [3, 4], [0, 2])
    yield _error(op, "C3", "size mismatch", t, [4, 4], [0, 1])
    yield _error(op, "C4", "negative size of a broadcast dim", t, [3, -1], [0, 1])
    yield _error(op, "C4", "negative size of a new dim", t, [-2, 3, 1], [1, 2])


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
    yield _error(op, "C1", "negative size (no -1 inference)", t, [-1, 6])
    yield _error(op, "C2", "element count differs", t, [4, 2])


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
    yield _error(op, "C1", "one entry short", t, [0], [5], [1])
    yield _error(op, "C2", "start > limit", t, [3, 0], [2, 6], [1, 1])
    yield _error(op, "C2", "limit > size", t, [0, 0], [5, 7], [1, 1])
    yield _error(op, "C2", "negative start", t, [-1, 0], [5, 6], [1, 1])
    yield _error(op, "C3", "zero stride", t, [0, 0], [5, 6], [1, 0])


def samples_pad(op, device, dtype):
    value = _fill_value(dtype)
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
    yield _error(op, "C1", "one entry short", t, 0.0, [0], [0], [0])
    yield _error(op, "C2", "negative interior", t, 0.0, [0, 0], [0, 0], [-1, 0])
    yield _error(op, "C2", "negative output size", t, 0.0, [-2, 0], [-2, 0], [0, 0])
    yield _error(op, "C3", "int8 padding_value 200", make((3, 4), device, torch.int8), 200, [1, 0], [0, 0], [0, 0])
    yield _error(op, "C3", "uint8 padding_value -1.5 (only an int wraps)", make((3, 4), device, torch.uint8), -1.5,
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
    yield _error(op, "C1", "no tensors", [], 0)
    yield _error(op, "C2", "ranks differ", [a, make((3,), device, torch.float32)], 0)
    yield _error(op, "C2", "0-d", [make((), device, torch.float32), make((), device, torch.float32)], 0)
    yield _error(op, "C3", "sizes differ", [a, make((2, 4), device, torch.float32)], 0)
    yield _error(op, "C4", "dtypes differ", [a, make((2, 3), device, torch.float64)], 0)
    other = _other_device(device)
    if other:
        yield _error(op, "C4", "devices differ", [a, make((2, 3), other, torch.float32)], 0)
    yield _error(op, "C5", "dim out of range", [a, a], 2, exc=PrimIndexError)


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
    yield _error(op, "C1", "lengths differ", t, [2, 3], [1], 0)
    yield _error(op, "C2", "negative stride", t, [2, 3], [1, -1], 4)
    yield _error(op, "C2", "negative offset", t, [2, 3], [3, 1], -1)
    yield _error(op, "C3", "past the storage's end", t, [10, 10], [10, 1], 0)
    yield _error(op, "C3", "offset at the storage's end", t, [], [], 20)
    yield _error(op, "C3", "past the end of a slice's storage", make((4, 5), device, torch.float32)[1:2], [4, 5], [5, 1], 1)


SPECIFIC.update({
    "broadcast_in_dim": (samples_broadcast_in_dim, errors_broadcast_in_dim),
    "reshape": (samples_reshape, errors_reshape),
    "slice": (samples_slice, errors_slice),
    "pad": (samples_pad, errors_pad),
    "cat": (samples_cat, errors_cat),
    "as_strided": (samples_as_strided, errors_as_strided),
})


# --- linalg ----------------------------------------------------------------------------------

def samples_matmul(op, device, dtype):
    def m(shape):
        return make(shape, device, dtype, low=-2, high=2)
    for name, a in layouts((3, 4), device, dtype, low=-2, high=2):
        yield SampleInput(a, (m((4, 5)),), name=f"2-d, a {name}")
        yield SampleInput(m((5, 3)), (a,), name=f"2-d, b {name}")
    yield SampleInput(m((4, 3)).t(), (m((5, 4)).t(),), name="both transposed")
    for name, a in layouts((2, 3, 4), device, dtype, low=-2, high=2):
        yield SampleInput(a, (m((2, 4, 5)),), name=f"batched, a {name}")
        yield SampleInput(m((2, 5, 3)), (a,), name=f"batched, b {name}")
    yield SampleInput(m((2, 3, 4, 5)).contiguous(memory_format=torch.channels_last), (m((2, 3, 5, 2)),),
                      name="4-d, a channels_last")
    yield SampleInput(m((2, 3, 4)), (m((2, 5, 4)).transpose(1, 2),), name="batched, b transposed")
    yield SampleInput(m((1, 4)), (m((4, 1)),), name="size-1 m and n")
    yield SampleInput(m((3, 0)), (m((0, 5)),), name="empty contraction")
    yield SampleInput(m((0, 4)), (m((4, 5)),), name="empty m")
    yield SampleInput(m((0, 3, 4)), (m((0, 4, 2)),), name="empty batch")


def errors_matmul(op, device):
    f = lambda shape, dtype=torch.float32: make(shape, device, dtype)  # noqa: E731
    yield _error(op, "C1", "1-d operand", f((3,)), f((3, 4)))
    yield _error(op, "C1", "ranks differ", f((2, 3, 4)), f((4, 5)))
    yield _error(op, "C2", "batch dims differ", f((2, 3, 4)), f((3, 4, 5)))
    yield _error(op, "C3", "contraction sizes differ", f((3, 4)), f((5, 6)))
    yield _error(op, "C4", "dtypes differ", f((3, 4)), f((4, 5), torch.float64))
    bad = _unsupported_dtype(op.prim)
    yield _error(op, "C4", "unsupported dtype", f((3, 4), bad), f((4, 5), bad))
    other = _other_device(device)
    if other:
        yield _error(op, "C4", "devices differ", f((3, 4)), make((4, 5), other, torch.float32))


# (input shape, weight shape, bias, stride, padding, dilation, transposed, output_padding, groups)
CONV_CASES = {
    "1-d": ((2, 4, 9), (6, 4, 3), True, [1], [0], [1], False, [0], 1),
    "1-d stride/padding/dilation": ((2, 4, 9), (6, 4, 3), False, [2], [1], [2], False, [0], 1),
    "2-d groups": ((2, 4, 7, 8), (6, 2, 3, 3), True, [2, 1], [1, 0], [1, 2], False, [0, 0], 2),
    "2-d 1x1": ((1, 3, 4, 5), (2, 3, 1, 1), False, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    "2-d depthwise": ((2, 4, 5, 5), (4, 1, 3, 3), True, [1, 1], [1, 1], [1, 1], False, [0, 0], 4),
    "3-d": ((1, 2, 5, 6, 4), (4, 2, 3, 3, 2), True, [1, 2, 1], [1, 1, 0], [1, 1, 1], False, [0, 0, 0], 1),
    "1-d transposed": ((2, 4, 5), (4, 3, 3), True, [2], [1], [1], True, [1], 1),
    "2-d transposed groups": ((1, 4, 5, 5), (4, 3, 3, 3), False, [2, 3], [1, 0], [1, 1], True, [1, 2], 2),
    "2-d transposed dilation": ((2, 2, 4, 3), (2, 3, 2, 2), True, [1, 1], [0, 1], [2, 2], True, [1, 0], 1),
    "3-d transposed": ((1, 2, 3, 3, 3), (2, 2, 2, 2, 2), True, [2, 2, 2], [0, 0, 0], [1, 1, 1], True, [0, 1, 0], 1),
    "empty batch": ((0, 4, 7, 8), (6, 4, 3, 3), True, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    "size-1 output": ((2, 4, 3, 3), (6, 4, 3, 3), True, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
}


def _conv_args(case, device, dtype, x_layout=None, w_layout=None):
    xs, ws, bias, *rest = case
    x, w = make(xs, device, dtype, low=-2, high=2), make(ws, device, dtype, low=-2, high=2)
    x, w = (t if fmt is None else t.contiguous(memory_format=fmt) for t, fmt in ((x, x_layout), (w, w_layout)))
    cout = ws[1] * rest[-1] if rest[3] else ws[0]
    b = make((cout,), device, dtype, low=-2, high=2) if bias else None
    return x, (w, b, *rest)


def samples_convolution(op, device, dtype):
    for name, case in CONV_CASES.items():
        x, args = _conv_args(case, device, dtype)
        yield SampleInput(x, args, name=name)
    cl = torch.channels_last
    for name in ("2-d groups", "2-d 1x1", "2-d transposed groups", "empty batch"):
        for layout, fmts in (("input", (cl, None)), ("weight", (None, cl)), ("both", (cl, cl))):
            x, args = _conv_args(CONV_CASES[name], device, dtype, *fmts)
            yield SampleInput(x, args, name=f"{name}, {layout} channels_last")
    x, (w, *rest) = _conv_args(CONV_CASES["2-d groups"], device, dtype)
    yield SampleInput(x.transpose(2, 3).contiguous().transpose(2, 3), (w.transpose(2, 3).contiguous().transpose(2, 3),
                      *rest), name="2-d, spatially transposed input and weight")


def errors_convolution(op, device):
    def conv(xs, ws, bias=None, stride=(1,), padding=(0,), dilation=(1,), transposed=False, output_padding=(0,),
             groups=1, dtype=torch.float32, w_dtype=None, w_device=None):
        x = make(xs, device, dtype)
        w = make(ws, w_device or device, w_dtype or dtype)
        return x, w, bias, list(stride), list(padding), list(dilation), transposed, list(output_padding), groups
    yield _error(op, "C1", "no spatial dim", *conv((2, 4), (6, 4)))
    yield _error(op, "C1", "weight rank differs", *conv((2, 4, 9), (6, 4, 3, 3)))
    yield _error(op, "C2", "stride has 2 entries for N=1", *conv((2, 4, 9), (6, 4, 3), stride=(1, 1)))
    yield _error(op, "C2", "zero stride", *conv((2, 4, 9), (6, 4, 3), stride=(0,)))
    yield _error(op, "C2", "negative padding", *conv((2, 4, 9), (6, 4, 3), padding=(-1,)))
    yield _error(op, "C2", "zero groups", *conv((2, 4, 9), (6, 4, 3), groups=0))
    yield _error(op, "C2", "transposed, stride 2**40", *conv((2, 4, 5), (4, 3, 3), stride=(2 ** 40,), transposed=True))
    yield _error(op, "C3", "input channels differ", *conv((2, 5, 9), (6, 4, 3)))
    yield _error(op, "C3", "groups do not divide", *conv((2, 4, 9), (6, 2, 3), groups=3))
    yield _error(op, "C3", "bias size", *conv((2, 4, 9), (6, 4, 3), bias=make((5,), device, torch.float32)))
    yield _error(op, "C4", "kernel larger than input", *conv((2, 4, 2), (6, 4, 3)))
    yield _error(op, "C5", "dtypes differ", *conv((2, 4, 9), (6, 4, 3), w_dtype=torch.float64))
    yield _error(op, "C5", "unsupported dtype", *conv((2, 4, 9), (6, 4, 3), dtype=_unsupported_dtype(op.prim)))
    other = _other_device(device)
    if other:
        yield _error(op, "C5", "devices differ", *conv((2, 4, 9), (6, 4, 3), w_device=other))
    yield _error(op, "C6", "output_padding not below stride or dilation",
                 *conv((2, 4, 5), (4, 3, 3), stride=(2,), transposed=True, output_padding=(2,)))
    yield _error(op, "C6", "negative output_padding",
                 *conv((2, 4, 5), (4, 3, 3), stride=(2,), transposed=True, output_padding=(-1,)))
    yield _error(op, "C6", "negative output_padding, not transposed", *conv((2, 4, 9), (6, 4, 3), output_padding=(-1,)))


SPECIFIC.update({
    "matmul": (samples_matmul, errors_matmul),
    "convolution": (samples_convolution, errors_convolution),
})


# --- indexing --------------------------------------------------------------------------------

# (operand shape, dim, index shape); for gather/scatter index fits the operand but along dim.
GATHER_CASES = [((4, 5, 6), 0, (7, 5, 6)), ((4, 5, 6), 1, (3, 2, 6)), ((4, 5, 6), -1, (4, 5, 2)),
                ((4, 5, 6), 2, (0, 5, 6)), ((3, 1), 1, (3, 4)), ((), 0, ())]


def samples_gather(op, device, dtype):
    for shape, dim, ishape in GATHER_CASES:
        index = _index(ishape, shape[dim] if shape else 1, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index), name=f"{name} {shape} dim={dim} index {ishape}")
        if len(ishape) >= 2:
            yield SampleInput(make(shape, device, dtype), (dim, index.transpose(0, 1).contiguous().transpose(0, 1)),
                              name=f"{shape} dim={dim} transposed index")


def _index_errors(op, device, with_src):
    """Constraint errors shared by gather and scatter: index dtype, ranks, dim, index fit."""
    a = make((4, 5), device, torch.float32)
    src = (make((4, 5), device, torch.float32),) if with_src else ()
    yield _error(op, "C1", "int32 index", a, 0, _index((2, 5), 4, device).int(), *src)
    yield _error(op, "C2", "index rank differs", a, 0, _index((2,), 4, device), *src)
    other = _other_device(device)
    if other:
        yield _error(op, "C2", "devices differ", a, 0, _index((2, 5), 4, other), *src)
    yield _error(op, "C3", "dim out of range", a, 2, _index((2, 5), 4, device), *src, exc=PrimIndexError)
    yield _error(op, "C4", "index larger than the operand", a, 0, _index((2, 6), 4, device), *src)


def errors_gather(op, device):
    yield from _index_errors(op, device, with_src=False)


# (operand shape, dim, index shape, src shape)
SCATTER_CASES = [((4, 5, 6), 0, (2, 5, 6), (3, 5, 6)), ((4, 5, 6), 1, (4, 2, 3), (4, 3, 6)),
                 ((4, 5, 6), -1, (4, 5, 6), (4, 5, 6)), ((4, 5, 6), 0, (0, 5, 6), (2, 5, 6)),
                 ((2, 3, 4, 5), 1, (2, 3, 4, 5), (2, 3, 4, 5)), ((), 0, (), ())]


def samples_scatter(op, device, dtype):
    for shape, dim, ishape, sshape in SCATTER_CASES:
        index = _index(ishape, shape[dim] if shape else 1, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index, make(sshape, device, dtype)), name=f"{name} {shape} dim={dim}")
        for name, src in layouts(sshape, device, dtype):
            yield SampleInput(make(shape, device, dtype), (dim, index, src), name=f"src {name} {shape} dim={dim}")


def errors_scatter(op, device):
    yield from _index_errors(op, device, with_src=True)
    a, index = make((4, 5), device, torch.float32), _index((2, 5), 4, device)
    yield _error(op, "C4", "index larger than src", a, 0, index, make((1, 5), device, torch.float32))
    yield _error(op, "C5", "src dtype differs", a, 0, index, make((4, 5), device, torch.float64))
    bad = _unsupported_dtype(op.prim)
    yield _error(op, "C5", "unsupported dtype", torch.zeros(4, 5, dtype=bad, device=device), 0, index,
                 torch.zeros(4, 5, dtype=bad, device=device))


INDEX_SELECT_CASES = [((4, 5, 6), 0, 7), ((4, 5, 6), 1, 3), ((4, 5, 6), -1, 0), ((4, 5, 6), 2, 1), ((), 0, 1),
                      ((0, 3), 1, 2)]


def samples_index_select(op, device, dtype):
    for shape, dim, n in INDEX_SELECT_CASES:
        index = _index((n,), shape[dim] if shape else 1, device)
        for name, a in layouts(shape, device, dtype):
            yield SampleInput(a, (dim, index), name=f"{name} {shape} dim={dim} {n} indices")
    index = _index((6,), 4, device)[::2]
    yield SampleInput(make((4, 5), device, dtype), (0, index), name="strided index")


def errors_index_select(op, device):
    a = make((4, 5), device, torch.float32)
    yield _error(op, "C1", "int32 index", a, 0, _index((2,), 4, device).int())
    yield _error(op, "C2", "2-d index", a, 0, _index((2, 1), 4, device))
    other = _other_device(device)
    if other:
        yield _error(op, "C2", "devices differ", a, 0, _index((2,), 4, other))
    yield _error(op, "C3", "dim out of range", a, -3, _index((2,), 4, device), exc=PrimIndexError)


SPECIFIC.update({
    "gather": (samples_gather, errors_gather),
    "scatter": (samples_scatter, errors_scatter),
    "scatter_add": (samples_scatter, errors_scatter),
    "index_select": (samples_index_select, errors_index_select),
})


# --- memory ----------------------------------------------------------------------------------

MEMORY_SHAPES = ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def _every_layout(device, dtype):
    for shape in MEMORY_SHAPES:
        yield from ((f"{name} {shape}", t) for name, t in layouts(shape, device, dtype))
    yield "permuted 3-d", make((4, 2, 3), device, dtype).permute(1, 2, 0)
    yield "sliced transposed", make((6, 8), device, dtype)[::2, 1::3].t()


def errors_unsupported_dtype(op, device):
    """C1 of the prims that take every dtype class: a dtype in none of them."""
    yield ErrorInput(SampleInput(torch.zeros(3, dtype=ODD_DTYPE, device=device), name="C1: unsupported dtype"),
                     PrimConstraintError, f"{op.prim.name}: C1:")


def samples_clone(op, device, dtype):
    for name, t in _every_layout(device, dtype):
        yield SampleInput(t, name=name)


def errors_device_put(op, device):
    """C1: a dtype in none of the prim's classes (device_put also takes the target device)."""
    yield ErrorInput(SampleInput(torch.zeros(3, dtype=ODD_DTYPE, device=device), (device,),
                                 name="C1: unsupported dtype"), PrimConstraintError, f"{op.prim.name}: C1:")
    yield ErrorInput(SampleInput(torch.zeros(3, device="meta"), (device,), name="C2: from the meta device"),
                     PrimConstraintError, f"{op.prim.name}: C2:")


def samples_device_put(op, device, dtype):
    targets = [device] + ([_other_device(device)] if _other_device(device) else [])
    for name, t in _every_layout(device, dtype):
        for target in targets:
            yield SampleInput(t, (target,), name=f"{name} to {target}")


def samples_copy_to(op, device, dtype):
    for name, dst in _every_layout(device, dtype):
        if "expanded" in name:      # a dst with overlapping elements cannot be written
            continue
        yield SampleInput(dst, (make(dst.shape, device, dtype),), name=f"dst {name}")
    for name, src in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(make((2, 3, 4, 5), device, dtype), (src,), name=f"src {name}")


def errors_copy_to(op, device):
    dst = make((2, 3), device, torch.float32)
    yield _error(op, "C1", "shapes differ", dst, make((3,), device, torch.float32))
    yield _error(op, "C2", "dtypes differ", dst, make((2, 3), device, torch.float64))
    other = _other_device(device)
    if other:
        yield _error(op, "C3", "devices differ", dst, make((2, 3), other, torch.float32))


SPECIFIC.update({
    "clone": (samples_clone, errors_unsupported_dtype),
    "device_put": (samples_device_put, errors_device_put),
    "copy_to": (samples_copy_to, errors_copy_to),
})
