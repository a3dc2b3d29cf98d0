"""Samples and constraint error inputs of the fft family (fft_c2c, fft_r2c, fft_c2r)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.strategies import composite, dtype_of, FLOATS, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError

# (operand shape, dims): odd and even sizes, size 1, batch dims of size 0, negative and unordered dims
FFT_CASES = [((8,), [0]), ((7,), [-1]), ((3, 6), [1]), ((3, 6), [0, 1]), ((4, 5), [1, 0]), ((4, 1), [0, 1]),
             ((2, 3, 4, 5), [-1, -2]), ((2, 3, 4, 5), [1]), ((0, 6), [1]), ((2, 3, 5), [0, 1, 2])]


def samples_fft_c2c(op, device, dtype):
    for shape, dims in FFT_CASES:
        for name, a in layouts(shape, device, dtype):
            for forward, norm in ((True, 0), (False, 2), (True, 1)):
                yield SampleInput(a, (dims, forward, norm), name=f"{name} {shape} dims={dims} forward={forward} "
                                  f"norm={norm}")


def samples_fft_r2c(op, device, dtype):
    for shape, dims in FFT_CASES:
        for name, a in layouts(shape, device, dtype):
            for onesided, norm in ((True, 0), (False, 1), (True, 2)):
                yield SampleInput(a, (dims, onesided, norm), name=f"{name} {shape} dims={dims} onesided={onesided} "
                                  f"norm={norm}")


def samples_fft_c2r(op, device, dtype):
    for shape, dims in FFT_CASES:
        last = dims[-1]
        for last_dim_size in {2 * (shape[last] - 1), 2 * shape[last] - 1} - {0}:
            for name, a in layouts(shape, device, dtype):
                for norm in (0, 2):
                    yield SampleInput(a, (dims, last_dim_size, norm), name=f"{name} {shape} dims={dims} "
                                      f"last_dim_size={last_dim_size} norm={norm}")


def errors_fft(op, device):
    prim = op.prim
    dtype = sorted(prim.dtypes, key=str)[0]
    a = make((4, 6), device, dtype)
    third = {"c2c": True, "r2c": True, "c2r": 10}[prim.params["kind"]]

    def err(cid, name, t, dims, mode=third, norm=0, exc=PrimConstraintError):
        return ErrorInput(SampleInput(t, (dims, mode, norm), name=f"{cid}: {name}"), exc, f"{prim.name}: {cid}:")
    yield err("C1", "no dims", a, [])
    yield err("C1", "repeated dim", a, [1, -1])
    yield err("C1", "dim out of range", a, [2], exc=PrimIndexError)
    yield err("C1", "0-d operand", make((), device, dtype), [0])
    bad = torch.float32 if dtype.is_complex else torch.complex64
    yield err("C2", f"{bad} operand", make((4, 6), device, bad), [1])
    yield err("C2", "float16 operand", make((4, 6), device, torch.float16), [1])
    yield err("C3", "normalization 3", a, [1], norm=3)
    yield err("C4", "empty transformed dim", make((0, 6), device, dtype), [0, 1])
    if prim.params["kind"] == "c2r":
        yield err("C4", "last_dim_size 0", make((4, 1), device, dtype), [1], mode=0)
        yield err("C4", "input size does not match last_dim_size", a, [1], mode=8)


SPECIFIC = {
    "fft_c2c": (samples_fft_c2c, errors_fft),
    "fft_r2c": (samples_fft_r2c, errors_fft),
    "fft_c2r": (samples_fft_c2r, errors_fft),
}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def fft_call(draw, prim):
    kind = prim.params["kind"]
    shape = list(draw(shapes(min_dims=1, max_dims=3)))
    rank = len(shape)
    dims = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                         unique_by=lambda d: d % rank))
    for d in dims:      # C4: transformed dims have elements
        shape[d] = max(shape[d], 1)
    among = [torch.complex64, torch.complex128] if kind != "r2c" else FLOATS
    normalization = maybe(draw, draw(st.integers(0, 2)), 3)
    if kind == "c2r":
        last = draw(st.integers(1, 6))
        shape[dims[-1]] = maybe(draw, last // 2 + 1, last // 2 + 2)
        mode = last
    else:
        mode = draw(st.booleans())
    return SampleInput(draw(strided(tuple(shape), dtype_of(draw, prim, among))), (dims, mode, normalization))


STRATEGIES = {"fft": fft_call}
