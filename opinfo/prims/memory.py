"""Samples and constraint error inputs of the memory family (clone, copy_to, device_put, item,
copy_strided)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.common import error, errors_unsupported_dtype, ODD_DTYPE, other_device
from primkit.opinfo.prims.strategies import composite, dtype_of, DTYPES, invalid, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError
from primkit.prims.layout import channels_last_strides, contiguous_strides, strides_from_perm

# (name, shape, target strides)
STRIDE_CASES = [
    ("contiguous", (3, 4), contiguous_strides((3, 4))),
    ("column-major", (3, 4), (1, 3)),
    ("gaps", (2, 3), (8, 2)),
    ("channels_last", (2, 3, 4, 5), channels_last_strides((2, 3, 4, 5))),
    ("permuted", (2, 3, 4), strides_from_perm((2, 3, 4), (1, 2, 0))),
    ("size-1 dim with any stride", (3, 1, 4), (4, 100, 1)),
    ("0-d", (), ()),
    ("empty", (0, 3), (0, 0)),
    ("1-d stride 3", (5,), (3,)),
]


def samples_copy_strided(op, device, dtype):
    for name, shape, stride in STRIDE_CASES:
        for layout, a in layouts(shape, device, dtype):
            yield SampleInput(a, (list(stride),), name=f"{layout} {shape} to {name} {tuple(stride)}")


def errors_copy_strided(op, device):
    a = torch.zeros(2, 3, device=device)
    for cid, name, stride in (("C1", "one entry short", [1]), ("C2", "negative stride", [3, -1]),
                              ("C2", "overlapping", [2, 1]), ("C2", "stride 0 on a dim of size 3", [1, 0])):
        yield ErrorInput(SampleInput(a, (stride,), name=f"{cid}: {name}"), PrimConstraintError, f"copy_strided: {cid}:")


def samples_item(op, device, dtype):
    yield SampleInput(make((), device, dtype), name="0-d")
    yield SampleInput(make((1,), device, dtype), name="1-d, one element")
    yield SampleInput(make((1, 1, 1), device, dtype).transpose(0, 2), name="transposed (1, 1, 1)")
    yield SampleInput(make((3, 4), device, dtype)[2:, 1:2], name="one element of a larger tensor (offset)")
    yield SampleInput(make((1,), device, dtype).expand(1), name="expanded")


def errors_item(op, device):
    yield ErrorInput(SampleInput(make((2,), device, torch.float32), name="C1: two elements"), PrimConstraintError,
                     "item: C1:")
    yield ErrorInput(SampleInput(make((0,), device, torch.float32), name="C1: no element"), PrimConstraintError,
                     "item: C1:")
    yield ErrorInput(SampleInput(make((), device, torch.complex64), name="C2: complex64 operand"),
                     PrimConstraintError, "item: C2:")


SPECIFIC = {"copy_strided": (samples_copy_strided, errors_copy_strided), "item": (samples_item, errors_item)}


MEMORY_SHAPES = ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def _every_layout(device, dtype):
    for shape in MEMORY_SHAPES:
        yield from ((f"{name} {shape}", t) for name, t in layouts(shape, device, dtype))
    yield "permuted 3-d", make((4, 2, 3), device, dtype).permute(1, 2, 0)
    yield "sliced transposed", make((6, 8), device, dtype)[::2, 1::3].t()


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
    targets = [device] + ([other_device(device)] if other_device(device) else [])
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
    yield error(op, "C1", "shapes differ", dst, make((3,), device, torch.float32))
    yield error(op, "C2", "dtypes differ", dst, make((2, 3), device, torch.float64))
    other = other_device(device)
    if other:
        yield error(op, "C3", "devices differ", dst, make((2, 3), other, torch.float32))


SPECIFIC.update({
    "clone": (samples_clone, errors_unsupported_dtype),
    "device_put": (samples_device_put, errors_device_put),
    "copy_to": (samples_copy_to, errors_copy_to),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def unary_call(draw, prim):
    shape = draw(shapes())
    return SampleInput(draw(strided(shape, dtype_of(draw, prim, [torch.float32, torch.int64, torch.bool]))))


@composite
def device_put_call(draw, prim):
    return SampleInput(draw(strided(draw(shapes()), draw(st.sampled_from(DTYPES)))), ("cpu",))


@composite
def copy_to_call(draw, prim):
    shape = draw(shapes())
    dtype = draw(st.sampled_from(DTYPES))
    src = draw(strided(maybe(draw, shape, shape + (2,)), maybe(draw, dtype, torch.float64)))
    dst = draw(strided(shape, dtype, values=torch.zeros(shape, dtype=dtype)))   # written: no expanded dims
    return SampleInput(dst, (src,))


@composite
def copy_strided_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    a = draw(strided(shape, draw(st.sampled_from(DTYPES))))
    # Dense strides in a random dim order, with gaps sometimes; overlapping ones sometimes (C2).
    order = draw(st.permutations(range(len(shape))))
    stride, step = [0] * len(shape), 1
    for d in reversed(order):
        stride[d] = step
        step *= max(shape[d], 1) * draw(st.integers(1, 2))
    if shape and invalid(draw):
        stride[draw(st.integers(0, len(shape) - 1))] = draw(st.sampled_from([0, -1]))
    return SampleInput(a, (stride,))


@composite
def item_call(draw, prim):
    shape = maybe(draw, draw(st.sampled_from([(), (1,), (1, 1)])), (2,))
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))))


STRATEGIES = {"clone": unary_call, "copy_to": copy_to_call, "device_put": device_put_call, "copy_strided": copy_strided_call, "item": item_call}
