"""Samples and constraint error inputs of the linalg prims (matmul, convolution)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error, other_device, unsupported_dtype
from primkit.opinfo.prims.strategies import composite, dtype_of, FLOATS, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make

SPECIFIC = {}


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
    yield error(op, "C1", "1-d operand", f((3,)), f((3, 4)))
    yield error(op, "C1", "ranks differ", f((2, 3, 4)), f((4, 5)))
    yield error(op, "C2", "batch dims differ", f((2, 3, 4)), f((3, 4, 5)))
    yield error(op, "C3", "contraction sizes differ", f((3, 4)), f((5, 6)))
    yield error(op, "C4", "dtypes differ", f((3, 4)), f((4, 5), torch.float64))
    bad = unsupported_dtype(op.prim)
    yield error(op, "C4", "unsupported dtype", f((3, 4), bad), f((4, 5), bad))
    other = other_device(device)
    if other:
        yield error(op, "C4", "devices differ", f((3, 4)), make((4, 5), other, torch.float32))


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
    # no input channels: a sum over nothing, the bias alone (torch's kernel gives no output channels instead)
    "no input channels": ((2, 0, 9), (6, 0, 3), True, [1], [0], [1], False, [0], 2),
    "no input channels, transposed": ((2, 0, 5), (0, 3, 3), True, [2], [1], [1], True, [1], 2),
    "no output channels": ((2, 4, 9), (0, 2, 3), True, [1], [0], [1], False, [0], 2),
    "no output channels, transposed": ((2, 4, 5), (4, 0, 3), True, [2], [1], [1], True, [1], 2),
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
    yield error(op, "C1", "no spatial dim", *conv((2, 4), (6, 4)))
    yield error(op, "C1", "weight rank differs", *conv((2, 4, 9), (6, 4, 3, 3)))
    yield error(op, "C2", "stride has 2 entries for N=1", *conv((2, 4, 9), (6, 4, 3), stride=(1, 1)))
    yield error(op, "C2", "zero stride", *conv((2, 4, 9), (6, 4, 3), stride=(0,)))
    yield error(op, "C2", "negative padding", *conv((2, 4, 9), (6, 4, 3), padding=(-1,)))
    yield error(op, "C2", "zero groups", *conv((2, 4, 9), (6, 4, 3), groups=0))
    yield error(op, "C2", "transposed, stride 2**40", *conv((2, 4, 5), (4, 3, 3), stride=(2 ** 40,), transposed=True))
    yield error(op, "C3", "input channels differ", *conv((2, 5, 9), (6, 4, 3)))
    yield error(op, "C3", "groups do not divide", *conv((2, 4, 9), (6, 2, 3), groups=3))
    yield error(op, "C3", "bias size", *conv((2, 4, 9), (6, 4, 3), bias=make((5,), device, torch.float32)))
    yield error(op, "C4", "kernel larger than input", *conv((2, 4, 2), (6, 4, 3)))
    yield error(op, "C5", "dtypes differ", *conv((2, 4, 9), (6, 4, 3), w_dtype=torch.float64))
    yield error(op, "C5", "unsupported dtype", *conv((2, 4, 9), (6, 4, 3), dtype=unsupported_dtype(op.prim)))
    other = other_device(device)
    if other:
        yield error(op, "C5", "devices differ", *conv((2, 4, 9), (6, 4, 3), w_device=other))
    yield error(op, "C6", "output_padding not below stride or dilation",
                 *conv((2, 4, 5), (4, 3, 3), stride=(2,), transposed=True, output_padding=(2,)))
    yield error(op, "C6", "negative output_padding",
                 *conv((2, 4, 5), (4, 3, 3), stride=(2,), transposed=True, output_padding=(-1,)))
    yield error(op, "C6", "negative output_padding, not transposed", *conv((2, 4, 9), (6, 4, 3), output_padding=(-1,)))


SPECIFIC.update({
    "matmul": (samples_matmul, errors_matmul),
    "convolution": (samples_convolution, errors_convolution),
})


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def matmul_call(draw, prim):
    batch = list(draw(shapes(max_dims=2)))
    m, k, n = (draw(st.integers(1, 4)) for _ in range(3))
    dtype = dtype_of(draw, prim, [torch.float32, torch.float64, torch.int64, torch.complex64])
    return SampleInput(draw(strided(tuple(batch + [m, k]), dtype)),
                       (draw(strided(tuple(batch + [maybe(draw, k, k + 1), n]), dtype)),))


@composite
def convolution_call(draw, prim):
    n = draw(st.integers(1, 3))
    dtype = dtype_of(draw, prim, FLOATS + [torch.complex64])
    groups = draw(st.integers(1, 2))
    transposed = draw(st.booleans())
    batch, cin_g, cout_g = draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = [draw(st.integers(1, 3)) for _ in range(n)]
    stride = [draw(st.integers(1, 2)) for _ in range(n)]
    dilation = [draw(st.integers(1, 2)) for _ in range(n)]
    padding = [draw(st.integers(0, 1)) for _ in range(n)]
    # torch wants output_padding < stride or < dilation; the prim's rule takes it unchecked (see report)
    output_padding = [draw(st.integers(0, max(s, d) - 1)) if transposed else 0 for s, d in zip(stride, dilation)]
    spatial = [draw(st.integers(1, 5)) for _ in range(n)]
    cin = cin_g * groups
    weight_shape = [cin, cout_g] if transposed else [cout_g * groups, cin_g]
    x = draw(strided(tuple([batch, maybe(draw, cin, cin + 1)] + spatial), dtype))
    w = draw(strided(tuple(weight_shape + kernel), dtype))
    cout = cout_g * groups
    bias = draw(strided((cout,), dtype)) if draw(st.booleans()) else None
    return SampleInput(x, (w, bias, stride, padding, dilation, transposed, output_padding, groups))


STRATEGIES = {"matmul": matmul_call, "convolution": convolution_call}
