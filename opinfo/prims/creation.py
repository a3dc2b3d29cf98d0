"""Samples and constraint error inputs of the creation prims."""
from __future__ import annotations

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error, fill_value, unsupported_dtype
from primkit.opinfo.prims.strategies import composite, dtype_of, fuzz_fill, invalid, maybe, shapes, st
from primkit.prims.layout import channels_last_strides

SPECIFIC = {}


CREATION_SHAPES = ((), (0,), (3,), (2, 3), (1, 4, 1), (2, 0, 3))


def samples_full(op, device, dtype):
    for shape in CREATION_SHAPES:
        yield SampleInput(list(shape), (fill_value(dtype),), {"dtype": dtype, "device": device}, name=f"{shape}")
    if dtype.is_floating_point:
        yield SampleInput([2], (-1e300,), {"dtype": dtype, "device": device}, name="beyond the range: rounds to -inf")
    if dtype == torch.uint8:
        yield SampleInput([2], (-1,), {"dtype": dtype, "device": device}, name="unsigned -1 wraps to 255")


def errors_full(op, device):
    kw = {"dtype": torch.float32, "device": device}
    yield error(op, "C1", "negative size", [2, -1], 1.0, **kw)
    yield error(op, "C2", "unsupported dtype", [2], 1, dtype=unsupported_dtype(op.prim), device=device)
    yield error(op, "C3", "int8 fill 200", [2], 200, dtype=torch.int8, device=device)
    yield error(op, "C3", "uint8 fill -256", [2], -256, dtype=torch.uint8, device=device)
    yield error(op, "C3", "int32 fill inf", [2], float("inf"), dtype=torch.int32, device=device)
    yield error(op, "C3", "float32 fill 1j", [2], 1j, dtype=torch.float32, device=device)


def samples_scalar_tensor(op, device, dtype):
    yield SampleInput(fill_value(dtype), (), {"dtype": dtype, "device": device}, name="value")
    yield SampleInput(False if dtype == torch.bool else 0, (), {"dtype": dtype, "device": device}, name="zero")
    if dtype.is_floating_point:
        yield SampleInput(1e300, (), {"dtype": dtype, "device": device}, name="beyond the range: rounds to inf")


def errors_scalar_tensor(op, device):
    yield error(op, "C1", "unsupported dtype", 1, dtype=unsupported_dtype(op.prim), device=device)
    yield error(op, "C2", "int32 value 2**40", 2 ** 40, dtype=torch.int32, device=device)
    yield error(op, "C2", "int8 value nan", float("nan"), dtype=torch.int8, device=device)


def samples_iota(op, device, dtype):
    for length, start, step in ((5, 0, 1), (0, 0, 1), (1, 7, 1), (6, -3, 2), (4, 3, -1)):
        yield SampleInput(length, (), {"start": start, "step": step, "dtype": dtype, "device": device},
                          name=f"length={length} start={start} step={step}")


def errors_iota(op, device):
    kw = {"start": 0, "device": device}
    yield error(op, "C1", "negative length", -1, step=1, dtype=torch.int64, **kw)
    yield error(op, "C2", "unsupported dtype", 3, step=1, dtype=unsupported_dtype(op.prim), **kw)
    yield error(op, "C3", "zero step", 3, step=0, dtype=torch.int64, **kw)
    yield error(op, "C4", "int8 values past 127", 200, step=1, dtype=torch.int8, **kw)
    yield error(op, "C4", "bound past int64", 4, start=3, step=-2 ** 63, dtype=torch.float32, device=device)


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
    yield error(op, "C1", "lengths differ", [2, 3], [1], **kw)
    yield error(op, "C1", "negative stride", [2, 3], [3, -1], **kw)
    yield error(op, "C1", "negative size", [-2, 3], [3, 1], **kw)
    yield error(op, "C2", "unsupported dtype", [2], [1], dtype=unsupported_dtype(op.prim), device=device)


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
    yield error(op, "C1", "negative size", [2, -3], [0, 1], **kw)
    yield error(op, "C2", "a dim repeated", [2, 3], [0, 0], **kw)
    yield error(op, "C2", "one dim short", [2, 3], [0], **kw)
    yield error(op, "C3", "unsupported dtype", [2], [0], dtype=unsupported_dtype(op.prim), device=device)


SPECIFIC.update({
    "empty_permuted": (samples_empty_permuted, errors_empty_permuted),
    "full": (samples_full, errors_full),
    "scalar_tensor": (samples_scalar_tensor, errors_scalar_tensor),
    "iota": (samples_iota, errors_iota),
    "empty_strided": (samples_empty_strided, errors_empty_strided),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def full_call(draw, prim):
    dtype = dtype_of(draw, prim)
    shape = list(draw(shapes()))
    if shape and invalid(draw):
        shape[0] = -1
    return SampleInput(shape, (fuzz_fill(dtype),), {"dtype": dtype, "device": "cpu"})


@composite
def scalar_tensor_call(draw, prim):
    dtype = dtype_of(draw, prim)
    return SampleInput(fuzz_fill(dtype), (), {"dtype": dtype, "device": "cpu"})


@composite
def iota_call(draw, prim):
    dtype = dtype_of(draw, prim, [torch.int32, torch.int64, torch.float32, torch.float64, torch.uint8])
    length = maybe(draw, draw(st.integers(0, 6)), -1)
    return SampleInput(length, (), {"start": draw(st.integers(0, 3)), "step": maybe(draw, draw(st.integers(1, 3)), 0),
                                    "dtype": dtype, "device": "cpu"})


@composite
def empty_strided_call(draw, prim):
    shape = list(draw(shapes()))
    stride = [draw(st.integers(0, 6)) for _ in shape]
    if invalid(draw):
        stride.append(1)
    return SampleInput(shape, (stride,), {"dtype": dtype_of(draw, prim), "device": "cpu"})


@composite
def empty_permuted_call(draw, prim):
    shape = list(draw(shapes()))
    layout = list(draw(st.permutations(range(len(shape)))))
    if invalid(draw):
        layout = layout + [len(shape)]
    return SampleInput(shape, (layout,), {"dtype": dtype_of(draw, prim), "device": "cpu"})


STRATEGIES = {"full": full_call, "scalar_tensor": scalar_tensor_call, "iota": iota_call, "empty_strided": empty_strided_call, "empty_permuted": empty_permuted_call}
