"""Samples and constraint error inputs of the windowed family (reduce_window_*, argmax_window,
select_and_scatter_add, im2col, col2im)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.common import other_device
from primkit.opinfo.prims.strategies import composite, dtype_of, invalid, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError
from primkit.prims.meta.windowed import blocks_shape, window_output_size

# (name, operand shape, window_dimensions, window_strides, padding_low, padding_high, window_dilation)
WINDOW_CASES = [
    ("2-d overlapping, padded", (3, 4), [2, 2], [1, 2], [0, 1], [1, 0], [1, 1]),
    ("max_pool2d-like, dilated", (2, 3, 7, 8), [1, 1, 3, 3], [1, 1, 2, 2], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 2, 2]),
    ("avg_pool2d-like, ceil-mode padding", (2, 3, 5, 6), [1, 1, 2, 2], [1, 1, 2, 2], [0, 0, 0, 0], [0, 0, 1, 0],
     [1, 1, 1, 1]),
    ("1-d disjoint", (9,), [3], [3], [0], [0], [1]),
    ("1-d stride larger than window", (10,), [2], [3], [1], [0], [1]),
    ("3-d dilation and stride", (4, 5, 6), [2, 1, 3], [2, 1, 1], [1, 0, 0], [0, 2, 1], [2, 1, 2]),
    ("windows wholly in padding", (2,), [2], [1], [3], [2], [1]),
    ("window larger than the padded size", (2, 3), [3, 1], [1, 1], [0, 0], [0, 0], [1, 1]),
    ("empty operand", (0, 5), [1, 2], [1, 1], [0, 0], [0, 0], [1, 1]),
    ("0-d", (), [], [], [], [], []),
]


def samples_reduce_window(op, device, dtype):
    for name, shape, *window in WINDOW_CASES:
        for layout, a in layouts(shape, device, dtype):
            yield SampleInput(a, tuple(window), name=f"{name}, {layout} {shape}")
    if dtype.is_floating_point:
        a = make((2, 6), device, dtype)
        a[0, 1], a[0, 3], a[1] = float("nan"), float("nan"), -float("inf")
        yield SampleInput(a, ([1, 3], [1, 1], [0, 1], [0, 1], [1, 1]), name="nan and -inf")


def errors_reduce_window(op, device):
    prim = op.prim
    a = make((4, 5), device, torch.float32)

    def err(cid, name, t, *window):
        return ErrorInput(SampleInput(t, window, name=f"{cid}: {name}"), PrimConstraintError, f"{prim.name}: {cid}:")
    good = ([2, 2], [1, 1], [0, 0], [0, 0], [1, 1])
    for i, arg in enumerate(("window_dimensions", "window_strides", "padding_low", "padding_high",
                             "window_dilation")):
        bad = list(good)
        bad[i] = bad[i][:1]
        yield err("C1", f"{arg} one entry short", a, *bad)
    for i, value, what in ((0, [0, 2], "zero window"), (1, [1, 0], "zero stride"), (2, [-1, 0], "negative padding"),
                           (3, [0, -2], "negative high padding"), (4, [1, 0], "zero dilation")):
        bad = list(good)
        bad[i] = value
        yield err("C2", what, a, *bad)
    unsupported = next(d for d in (torch.bool, torch.complex64, torch.uint16) if d not in prim.dtypes)
    yield err("C3", f"unsupported dtype {unsupported}", torch.zeros(4, 5, dtype=unsupported, device=device), *good)


# --- select_and_scatter_add ---------------------------------------------------------------------

def _positions(shape, window):
    return tuple(window_output_size(*d) for d in zip(shape, *window))


def samples_select_and_scatter_add(op, device, dtype):
    for name, shape, *window in WINDOW_CASES:
        source = make(_positions(shape, window), device, dtype)
        for layout, operand in layouts(shape, device, dtype):
            yield SampleInput(source, (operand, *window), name=f"{name}, {layout} operand {shape}")
        for layout, src in layouts(source.shape, device, dtype):
            if layout != "contiguous":
                yield SampleInput(src, (make(shape, device, dtype), *window), name=f"{name}, {layout} source")
    # ties everywhere (values 0 and 1): the first maximum of each window is selected
    window = ([1, 1, 3, 3], [1, 1, 2, 2], [0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 1, 1])
    operand = make((2, 3, 7, 8), device, torch.int8, low=0, high=2).to(dtype)
    yield SampleInput(make(_positions((2, 3, 7, 8), window), device, dtype), (operand, *window), name="ties")
    if dtype.is_floating_point:
        a = make((2, 6), device, dtype)
        a[0, 1], a[0, 3], a[1] = float("nan"), float("nan"), -float("inf")
        window = ([1, 3], [1, 1], [0, 1], [0, 1], [1, 1])
        yield SampleInput(make(_positions((2, 6), window), device, dtype), (a, *window), name="nan and -inf")


def errors_select_and_scatter_add(op, device):
    operand = make((4, 5), device, torch.float32)
    good = ([2, 2], [1, 1], [0, 0], [0, 0], [1, 1])
    source = make((3, 4), device, torch.float32)

    def err(cid, name, src, t, *window):
        return ErrorInput(SampleInput(src, (t, *window), name=f"{cid}: {name}"), PrimConstraintError,
                          f"select_and_scatter_add: {cid}:")
    for i, arg in enumerate(("window_dimensions", "window_strides", "padding_low", "padding_high",
                             "window_dilation")):
        bad = list(good)
        bad[i] = bad[i][:1]
        yield err("C1", f"{arg} one entry short", source, operand, *bad)
    for i, value, what in ((0, [0, 2], "zero window"), (1, [1, 0], "zero stride"), (2, [-1, 0], "negative padding"),
                           (4, [1, 0], "zero dilation")):
        bad = list(good)
        bad[i] = value
        yield err("C2", what, source, operand, *bad)
    odd = torch.zeros(4, 5, dtype=torch.bool, device=device)
    yield err("C3", "bool operand", torch.zeros(3, 4, dtype=torch.bool, device=device), odd, *good)
    yield err("C4", "source dtype differs", source.double(), operand, *good)
    yield err("C5", "source shape differs from the window positions", make((4, 5), device, torch.float32), operand,
              *good)
    yield err("C6", "source on another device", source.to(other_device(device)), operand, *good)


# --- im2col, col2im ---------------------------------------------------------------------------

# (name, (N, C, H, W), kernel_size, dilation, padding, stride)
BLOCK_CASES = [
    ("2x2 blocks", (2, 3, 5, 6), [2, 2], [1, 1], [0, 0], [1, 1]),
    ("dilated, padded, strided", (2, 2, 7, 8), [3, 2], [2, 1], [1, 2], [2, 3]),
    ("1x1 kernel, stride 2", (1, 3, 4, 5), [1, 1], [1, 1], [0, 0], [2, 2]),
    ("kernel as large as the padded image", (1, 2, 3, 4), [5, 4], [1, 1], [1, 0], [1, 1]),
    ("no block fits", (1, 2, 3, 4), [5, 1], [1, 1], [0, 0], [1, 1]),
    ("empty batch", (0, 2, 4, 4), [2, 2], [1, 1], [1, 1], [1, 1]),
    ("no channels", (2, 0, 4, 4), [2, 2], [1, 1], [0, 0], [1, 1]),
    ("1x1 image", (2, 3, 1, 1), [1, 1], [1, 1], [0, 0], [1, 1]),
]


def samples_im2col(op, device, dtype):
    for name, shape, *blocks in BLOCK_CASES:
        for layout, a in layouts(shape, device, dtype):
            yield SampleInput(a, tuple(blocks), name=f"{name}, {layout} {shape}")


def _cols_shape(shape, kernel_size, dilation, padding, stride):
    n, c, h, w = shape
    oh, ow = blocks_shape((h, w), kernel_size, dilation, padding, stride)
    return (n, c * kernel_size[0] * kernel_size[1], oh * ow)


def samples_col2im(op, device, dtype):
    for name, shape, *blocks in BLOCK_CASES:
        cols = _cols_shape(shape, *blocks)
        for layout, a in layouts(cols, device, dtype):
            yield SampleInput(a, (list(shape[2:]), *blocks), name=f"{name}, {layout} {cols}")


def _block_errors(op, device, a, *head):
    good = ([2, 2], [1, 1], [0, 0], [1, 1])

    def err(cid, name, *blocks):
        return ErrorInput(SampleInput(a, (*head, *blocks), name=f"{cid}: {name}"), PrimConstraintError,
                          f"{op.prim.name}: {cid}:")
    for i, arg in enumerate(("kernel_size", "dilation", "padding", "stride")):
        bad = list(good)
        bad[i] = bad[i][:1]
        yield err("C2", f"{arg} of one entry", *bad)
    for i, value, what in ((0, [0, 2], "zero kernel size"), (1, [1, 0], "zero dilation"),
                           (2, [-1, 0], "negative padding"), (3, [0, 1], "zero stride")):
        bad = list(good)
        bad[i] = value
        yield err("C3", what, *bad)


def errors_im2col(op, device):
    good = ([2, 2], [1, 1], [0, 0], [1, 1])
    yield ErrorInput(SampleInput(make((3, 5, 6), device, torch.float32), good, name="C1: 3-d operand"),
                     PrimConstraintError, "im2col: C1:")
    yield from _block_errors(op, device, make((1, 2, 5, 6), device, torch.float32))


def errors_col2im(op, device):
    good = ([2, 2], [1, 1], [0, 0], [1, 1])
    a = make((1, 8, 20), device, torch.float32)     # output (5, 6): 4 * 5 blocks of 2 * 2

    def err(cid, name, t, output_size, blocks=good):
        return ErrorInput(SampleInput(t, (output_size, *blocks), name=f"{cid}: {name}"), PrimConstraintError,
                          f"col2im: {cid}:")
    yield err("C1", "4-d operand", make((1, 8, 4, 5), device, torch.float32), [5, 6])
    yield err("C2", "output_size of one entry", a, [5])
    yield from _block_errors(op, device, a, [5, 6])
    yield err("C3", "negative output size", a, [-1, 6])
    yield err("C4", "a.size(1) not a multiple of the kernel", make((1, 7, 20), device, torch.float32), [5, 6])
    yield err("C5", "a.size(2) differs from the block positions", make((1, 8, 21), device, torch.float32), [5, 6])
    yield err("C6", "bool operand", torch.zeros(1, 8, 20, dtype=torch.bool, device=device), [5, 6])


SPECIFIC = {name: (samples_reduce_window, errors_reduce_window)
            for name in ("reduce_window_max", "reduce_window_min", "reduce_window_sum", "reduce_window_prod",
                         "argmax_window")}
SPECIFIC.update({
    "select_and_scatter_add": (samples_select_and_scatter_add, errors_select_and_scatter_add),
    "im2col": (samples_im2col, errors_im2col),
    "col2im": (samples_col2im, errors_col2im),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def window_args(draw, rank):
    window = [draw(st.integers(1, 3)) for _ in range(rank)]
    strides = [draw(st.integers(1, 2)) for _ in range(rank)]
    low = [draw(st.integers(0, 1)) for _ in range(rank)]
    high = [draw(st.integers(0, 1)) for _ in range(rank)]
    dilation = [draw(st.integers(1, 2)) for _ in range(rank)]
    if invalid(draw):
        (window if draw(st.booleans()) else low).append(draw(st.sampled_from([0, -1])))
    return [window, strides, low, high, dilation]


@composite
def reduce_window_call(draw, prim):
    shape = draw(shapes(max_dims=3))
    return SampleInput(draw(strided(shape, dtype_of(draw, prim))), tuple(draw(window_args(len(shape)))))


@composite
def select_and_scatter_add_call(draw, prim):
    from primkit.prims.meta.windowed import window_output_size
    shape = draw(shapes(max_dims=3))
    dtype = dtype_of(draw, prim)
    window = draw(window_args(len(shape)))
    positions = tuple(window_output_size(*dim) for dim in zip(shape, *window)) if len(window[0]) == len(shape) \
        else shape
    operand = draw(strided(shape, dtype))
    source = draw(strided(maybe(draw, positions, positions + (1,)), dtype))
    return SampleInput(source, (operand, *window))


@composite
def _pairs(draw, least, most):
    return [draw(st.integers(least, most)) for _ in range(2)]


@composite
def im2col_call(draw, prim):
    shape = (draw(st.integers(0, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    kernel, dilation, padding, stride = draw(_pairs(1, 3)), draw(_pairs(1, 2)), draw(_pairs(0, 1)), draw(_pairs(1, 2))
    # torch.nn.functional.unfold rejects a size with no block position, which the rule accepts (see report)
    for d in range(2):
        while shape[2 + d] + 2 * padding[d] < dilation[d] * (kernel[d] - 1) + 1:
            kernel[d] -= 1
    a = draw(strided(shape, dtype_of(draw, prim)))
    return SampleInput(a, (maybe(draw, kernel, kernel + [1]), dilation, padding, stride))


@composite
def col2im_call(draw, prim):
    from primkit.prims.meta.windowed import blocks_shape
    output_size = draw(_pairs(1, 5))
    kernel, dilation, padding, stride = draw(_pairs(1, 3)), draw(_pairs(1, 2)), draw(_pairs(0, 1)), draw(_pairs(1, 2))
    for d in range(2):      # at least one block position per dim, as torch's fold needs
        while output_size[d] + 2 * padding[d] < dilation[d] * (kernel[d] - 1) + 1:
            kernel[d] -= 1
    oh, ow = blocks_shape(output_size, kernel, dilation, padding, stride)
    channels = draw(st.integers(1, 2))
    length = maybe(draw, oh * ow, oh * ow + 1)
    a = draw(strided((draw(st.integers(0, 2)), channels * kernel[0] * kernel[1], length), dtype_of(draw, prim)))
    return SampleInput(a, (output_size, kernel, dilation, padding, stride))


STRATEGIES = {"reduce_window": reduce_window_call, "select_and_scatter_add": select_and_scatter_add_call, "im2col": im2col_call, "col2im": col2im_call}
