"""OpInfo entries: the backward ATen ops autograd emits for torch.nn (activations, softmax,
norms, convolution, pooling, embedding, attention, losses, view backwards).

Each entry calls the backward op directly, with the arguments autograd would pass: the saved
tensors come from running the forward op in eager (mean/rstd of layer norm, indices of max
pooling, logsumexp of attention, ...), grad_output is a random tensor of the output's shape.
"""
from __future__ import annotations

import math
import re

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.definitions.nn.common import ACCUMULATE_TOLERANCES, REDUCTION_TOLERANCES, out_entry
from primkit.opinfo.dtypes import FLOAT32_64, FLOATING
from primkit.opinfo.samples import layouts, make

aten = torch.ops.aten

# ----------------------------------------------------------------------------- activations

ACTIVATION_SHAPES = ((), (0,), (7,), (4, 5), (2, 3, 4, 5))


def _pointwise_samples(*variants, low=-4, high=4, saved=lambda x: x, saved_last=False):
    """grad_output and the saved tensor (``saved(x)``: the input, or the forward's output) in every
    layout with the first (args, kwargs) variant, the other variants on one shape, and a
    grad_output laid out unlike the saved tensor. The saved tensor comes right after grad_output,
    or after the scalars with ``saved_last`` (elu_backward's order)."""
    variants = variants or (((), {}),)

    def positional(t, args):
        return args + (t,) if saved_last else (t,) + args

    def gen(op, device, dtype):
        for i, (args, kwargs) in enumerate(variants):
            for shape in ACTIVATION_SHAPES if i == 0 else ((4, 5),):
                for name, x in layouts(shape, device, dtype, low=low, high=high):
                    yield SampleInput(make(shape, device, dtype), positional(saved(x), args), dict(kwargs),
                                      name=f"{name} {shape} {args} {kwargs}")
        args, kwargs = variants[0]
        x = make((4, 5), device, dtype, low=low, high=high)
        yield SampleInput(make((5, 4), device, dtype).t(), positional(saved(x), args), dict(kwargs),
                          name="transposed grad_output")
    return gen


def _errors_gelu_backward(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (x,), {"approximate": "cubic"}), RuntimeError,
                     "approximate argument must be either none or tanh")


def _errors_elu_backward(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (-0.5, 1.0, 1.0, True, x)), RuntimeError, "negative slope which is not supported")


def _errors_leaky_relu_backward(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (x, -0.1, True)), RuntimeError, "negative slope which is not supported")


def sample_inputs_log_sigmoid_backward(op, device, dtype):
    """(grad_output, self, buffer), the buffer exp(-|x|) from eager's forward."""
    for s in _pointwise_samples()(op, device, dtype):
        x = s.args[0]
        yield SampleInput(s.input, (x, aten.log_sigmoid_forward(x)[1]), name=s.name)


def sample_inputs_prelu_kernel_backward(op, device, dtype):
    """(grad_output, self, weight), weight shaped as prelu passes it: one per channel (dim 1), or one."""
    for shape, wshape in (((2, 3, 4), (3, 1)), ((4, 5), (5,)), ((2, 3, 4, 2), (1, 1, 1)), ((7,), ()), ((0, 3), (3,))):
        for name, x in layouts(shape, device, dtype):
            yield SampleInput(make(shape, device, dtype), (x, make(wshape, device, dtype)),
                              name=f"{name} {shape} weight {wshape}")


def sample_inputs_glu_backward(op, device, dtype):
    for shape, dim in (((4, 6), -1), ((6, 4), 0), ((2, 4, 3, 2), 1), ((0, 4), 1)):
        for name, x in layouts(shape, device, dtype):
            half = list(shape)
            half[dim] //= 2
            yield SampleInput(make(tuple(half), device, dtype), (x, dim), name=f"{name} {shape} dim={dim}")


def _errors_glu_backward(op, device):
    x = make((4, 5), device, torch.float32)
    yield ErrorInput(SampleInput(make((4, 2), device, torch.float32), (x, 1)), RuntimeError,
                     "Halving dimension must be even")


# ----------------------------------------------------------------------------- softmax


def sample_inputs_softmax_backward(log):
    def gen(op, device, dtype):
        forward = torch.log_softmax if log else torch.softmax
        for shape, dim in (((), 0), ((0,), 0), ((7,), 0), ((4, 5), 1), ((4, 5), 0), ((2, 3, 4), -1), ((2, 0, 3), 2)):
            for name, x in layouts(shape, device, dtype):
                y = forward(x, dim)
                yield SampleInput(make(shape, device, dtype), (y, dim, dtype), name=f"{name} {shape} dim={dim}")
    return gen


# ----------------------------------------------------------------------------- norms


def sample_inputs_layer_norm_backward(op, device, dtype):
    for shape, normalized in (((4, 5), (5,)), ((2, 3, 4), (3, 4)), ((3, 1, 4), (1, 4)), ((0, 4), (4,))):
        for name, x in layouts(shape, device, dtype):
            for affine in (True, False):
                w = make(normalized, device, dtype) if affine else None
                b = make(normalized, device, dtype) if affine else None
                _, mean, rstd = torch.native_layer_norm(x, normalized, w, b, 1e-5)
                # Without weight and bias eager can only return the input gradient.
                for mask in ([True, True, True], [False, True, True]) if affine else ([True, False, False],):
                    yield SampleInput(make(shape, device, dtype), (x, normalized, mean, rstd, w, b, mask),
                                      name=f"{name} {shape} affine={affine} mask={mask}")


def sample_inputs_group_norm_backward(op, device, dtype):
    """(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask), mean and rstd from eager's
    forward; the input contiguous or channels-last (eager's kernel takes no other layout) and grad_out
    laid out like it, as autograd passes it."""
    for shape, group in (((2, 6, 3, 4), 3), ((3, 4, 5), 2), ((2, 6, 3, 3, 2), 6), ((4, 2), 1), ((0, 4, 3), 2)):
        n, c, hw = shape[0], shape[1], math.prod(shape[2:])
        for name, x in layouts(shape, device, dtype):
            if name not in ("contiguous", "channels_last"):
                continue
            w = make((c,), device, dtype)
            _, mean, rstd = aten.native_group_norm(x, w, None, n, c, hw, group, 1e-5)
            for weight, mask in ((w, [True, True, True]), (w, [True, False, False]), (w, [False, True, True]),
                                 (None, [True, False, False])):
                if name == "channels_last" and not mask[0]:   # eager's CPU kernel crashes (segfault)
                    continue
                grad = torch.empty_like(x).copy_(make(shape, device, dtype))   # in x's layout, as autograd's
                yield SampleInput(grad, (x, mean, rstd, weight, n, c, hw, group, mask),
                                  name=f"{name} {shape} group={group} weight={weight is not None} mask={mask}")


def sample_inputs_batch_norm_backward(op, device, dtype):
    for shape in ((4, 3), (2, 3, 5), (2, 3, 4, 4)):
        for name, x in layouts(shape, device, dtype):
            if name == "expanded":   # equal rows: zero variance, a degenerate batch
                continue
            c = shape[1]
            w = make((c,), device, dtype)
            rm, rv = make((c,), device, dtype), make((c,), device, dtype, low=0.5, high=2)
            for train in (True, False):
                _, save_mean, save_invstd = torch.native_batch_norm(x, w, None, rm.clone(), rv.clone(), train, 0.1,
                                                                    1e-5)
                grad = make(shape, device, dtype, low=-1, high=1)
                yield SampleInput(grad, (x, w, rm, rv, save_mean, save_invstd, train, 1e-5, [True, True, True]),
                                  name=f"{name} {shape} train={train}")
    x = make((2, 3, 4), device, dtype)
    _, sm, si = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
    yield SampleInput(make((2, 3, 4), device, dtype), (x, None, None, None, sm, si, True, 1e-5, [True, False, True]),
                      name="no weight, no running stats, mask [T, F, T]")


def sample_inputs_batch_norm_backward_new(op, device, dtype):
    """aten.batch_norm_backward: the backward of _batch_norm_with_update / _batch_norm_no_update."""
    for shape in ((4, 3), (2, 3, 4, 4)):
        for name, x in layouts(shape, device, dtype):
            if name == "expanded":   # equal rows: zero variance, a degenerate batch
                continue
            c = shape[1]
            w, b = make((c,), device, dtype), make((c,), device, dtype)
            rm, rv = make((c,), device, dtype), make((c,), device, dtype, low=0.5, high=2)
            for update in (True, False):
                forward = aten._batch_norm_with_update if update else aten._batch_norm_no_update
                stats = (rm.clone(), rv.clone()) if update else (rm, rv)
                _, save_mean, save_var, reserve = forward(x, w, b, *stats, 0.1, 1e-5)
                grad = make(shape, device, dtype, low=-1, high=1)
                yield SampleInput(grad, (x, w, rm, rv, save_mean, save_var, update, 1e-5, [True, True, True], reserve),
                                  name=f"{name} {shape} update={update}")


# ----------------------------------------------------------------------------- convolution

CONV_CASES = (
    # (n, input shape, weight shape, stride, padding, dilation, groups)
    (1, (2, 4, 9), (6, 2, 3), 1, 1, 1, 2),
    (2, (2, 3, 7, 6), (4, 3, 3, 2), 2, 1, 1, 1),
    (2, (1, 4, 8, 8), (4, 1, 3, 3), 1, 2, 2, 4),
    (2, (2, 2, 5, 5), (3, 2, 1, 1), 1, 0, 1, 1),
    (2, (2, 4, 9, 7), (6, 2, 3, 3), (2, 3), (1, 0), (1, 2), 2),
    (3, (1, 2, 5, 4, 4), (2, 2, 2, 3, 2), 1, (1, 0, 1), 1, 1),
)


def _as_list(v, n):
    return list(v) if isinstance(v, tuple) else [v] * n


def sample_inputs_weight_norm_interface_backward(op, device, dtype):
    """(grad_w, v, g, norm, dim) with norm from eager's forward. Autograd passes every tensor
    contiguous (eager's kernel reads them as flat buffers), so the samples are contiguous."""
    for shape, dim in (((5, 3, 4), 0), ((5, 3, 4), 2), ((6,), 0), ((4, 3, 2, 2), 0), ((4, 3, 2, 2), 3), ((3, 0), 0)):
        v = make(shape, device, dtype)
        g = make(tuple(s if d == dim else 1 for d, s in enumerate(shape)), device, dtype)
        norm = aten._weight_norm_interface(v, g, dim)[1]
        yield SampleInput(make(shape, device, dtype), (v, g, norm, dim), name=f"v{shape} dim={dim}")


def sample_inputs_convolution_backward(op, device, dtype):
    masks = ([True, True, True], [True, False, False], [False, True, True])
    for i, (n, xs, ws, stride, padding, dilation, groups) in enumerate(CONV_CASES):
        stride, padding, dilation = (_as_list(v, n) for v in (stride, padding, dilation))
        layouts_x = [("contiguous", make(xs, device, dtype))]
        if n == 2:
            layouts_x.append(("channels_last", make(xs, device, dtype).contiguous(memory_format=torch.channels_last)))
        for name, x in layouts_x:
            for transposed in (False, True):
                # A transposed convolution's weight is (input channels, output channels / groups, *kernel).
                weight = make((xs[1], ws[1]) + ws[2:] if transposed else ws, device, dtype)
                out_pad = [0] * n
                y = aten.convolution(x, weight, None, stride, padding, dilation, transposed, out_pad, groups)
                bias_sizes = [y.shape[1]]
                mask = masks[i % len(masks)]
                grad = make(tuple(y.shape), device, dtype, low=-1, high=1)   # gradients' usual scale
                yield SampleInput(grad,
                                  (x, weight, bias_sizes, stride, padding, dilation, transposed, out_pad, groups, mask),
                                  name=f"{name} case {i} transposed={transposed} mask={mask}")
    # output_padding: a strided transposed convolution whose output is one longer.
    x, weight = make((1, 2, 4, 4), device, dtype), make((2, 3, 3, 3), device, dtype)
    y = aten.convolution(x, weight, None, [2, 2], [1, 1], [1, 1], True, [1, 0], 1)
    yield SampleInput(make(tuple(y.shape), device, dtype),
                      (x, weight, [3], [2, 2], [1, 1], [1, 1], True, [1, 0], 1, [True, True, True]),
                      name="transposed, output_padding [1, 0]")
    # Inputs of no elements (an empty batch, grouped or transposed; no input channels): eager's gradients are zeros.
    for xs, ws, transposed in (((0, 4, 9), (6, 2, 3), False), ((0, 4, 9), (4, 3, 3), True),
                               ((2, 0, 9), (6, 0, 3), False)):
        x, weight = make(xs, device, dtype), make(ws, device, dtype)
        y = aten.convolution(x, weight, None, [1], [0], [1], transposed, [0], 2)
        args = (x, weight, [6], [1], [0], [1], transposed, [0], 2, [True, True, True])
        yield SampleInput(make(tuple(y.shape), device, dtype), args, name=f"input {xs} transposed={transposed}")


# ----------------------------------------------------------------------------- pooling


def sample_inputs_max_pool2d_backward(op, device, dtype):
    cases = (((2, 3, 8, 8), 2, 2, 0, 1, False), ((1, 2, 7, 9), 3, 2, 1, 1, True), ((2, 5, 6), (2, 3), 1, 0, 2, False),
             ((1, 2, 6, 6), 3, 1, 1, 1, False))   # overlapping windows: one input feeds several outputs
    for shape, k, s, p, d, ceil in cases:
        for name, x in layouts(shape, device, dtype):
            if name in ("expanded",):
                continue
            y, idx = aten.max_pool2d_with_indices(x, k, s, p, d, ceil)
            k2, s2, p2, d2 = (_as_list(v, 2) for v in (k, s, p, d))
            yield SampleInput(make(tuple(y.shape), device, dtype), (x, k2, s2, p2, d2, ceil, idx),
                              name=f"{name} {shape} k={k} s={s} p={p} d={d} ceil={ceil}")


def sample_inputs_avg_pool2d_backward(op, device, dtype):
    cases = (((2, 3, 8, 8), 2, 2, 0, False, True, None), ((1, 2, 7, 9), 3, 2, 1, True, False, None),
             ((2, 5, 6), (2, 3), 1, (1, 1), False, True, None), ((1, 2, 6, 6), 3, 1, 1, False, True, 4),
             ((1, 1, 5, 5), 2, 2, 1, True, True, None))
    for shape, k, s, p, ceil, include, divisor in cases:
        for name, x in layouts(shape, device, dtype):
            y = aten.avg_pool2d(x, k, s, p, ceil, include, divisor)
            k2, s2, p2 = (_as_list(v, 2) for v in (k, s, p))
            yield SampleInput(make(tuple(y.shape), device, dtype), (x, k2, s2, p2, ceil, include, divisor),
                              name=f"{name} {shape} k={k} s={s} p={p} ceil={ceil} include_pad={include} "
                                   f"divisor={divisor}")


def sample_inputs_adaptive_avg_pool2d_backward(op, device, dtype):
    cases = (((2, 3, 8, 8), (2, 2), True), ((1, 2, 7, 5), (3, 4), True), ((3, 5, 5), (5, 5), False),
             ((1, 1, 4, 4), (1, 1), False), ((1, 2, 3, 3), (5, 2), False))
    for shape, out, all_layouts in cases:
        # Every layout of the first two cases only: each trace is a large graph.
        inputs = layouts(shape, device, dtype) if all_layouts else (("contiguous", make(shape, device, dtype)),)
        for name, x in inputs:
            y = aten._adaptive_avg_pool2d(x, out)
            yield SampleInput(make(tuple(y.shape), device, dtype), (x,), name=f"{name} {shape} -> {out}")


def sample_inputs_max_pool3d_backward(op, device, dtype):
    cases = (((1, 2, 4, 4, 4), 2, 2, 0, 1, False), ((1, 2, 5, 6, 5), 3, 2, 1, 1, True),
             ((2, 5, 4, 6), (2, 3, 2), 1, 0, (2, 1, 1), False),
             ((1, 1, 4, 4, 4), 3, 1, 1, 1, False))   # overlapping windows: one input feeds several outputs
    for shape, k, s, p, d, ceil in cases:
        for name, x in layouts(shape, device, dtype):
            # expanded: ties everywhere (which equal element takes the gradient is the kernel's choice);
            # channels_last: a 2-d memory format on an unbatched volume, which eager's kernel refuses.
            if name in ("expanded", "channels_last"):
                continue
            y, idx = aten.max_pool3d_with_indices(x, k, s, p, d, ceil)
            k3, s3, p3, d3 = (_as_list(v, 3) for v in (k, s, p, d))
            yield SampleInput(make(tuple(y.shape), device, dtype), (x, k3, s3, p3, d3, ceil, idx),
                              name=f"{name} {shape} k={k} s={s} p={p} d={d} ceil={ceil}")


def sample_inputs_fractional_max_pool_backward(n):
    """(grad_output, self, kernel_size, output_size, indices), the indices eager's forward gives for
    samples drawn here; windows overlap (more outputs than input size / kernel), so an input element
    can take several gradients."""
    cases = {2: (((2, 3, 7, 6), (2, 2), (4, 5)), ((3, 9, 7), (3, 2), (5, 3)), ((1, 2, 5, 5), (2, 2), (1, 4))),
             3: (((2, 2, 5, 6, 4), (2, 2, 2), (3, 4, 2)), ((3, 6, 5, 5), (3, 2, 2), (2, 3, 3)))}[n]
    forward = getattr(torch.ops.aten, f"fractional_max_pool{n}d")

    def gen(op, device, dtype):
        for shape, k, out in cases:
            batch = shape[0] if len(shape) == n + 2 else 1
            for name, x in layouts(shape, device, dtype):
                if n == 3 and name == "channels_last":   # a 2-d memory format on an unbatched volume
                    continue
                y, idx = forward(x, list(k), list(out), make((batch, shape[-n - 1], n), device, dtype, low=0, high=1))
                yield SampleInput(make(tuple(y.shape), device, dtype), (x, list(k), list(out), idx),
                                  name=f"{name} {shape} k={k} -> {out}")
    return gen


def sample_inputs_pad_backward(mode, n):
    """(grad_output, self, padding) for the forward pad's samples (every layout, zero, wide and
    negative paddings, unbatched, an empty batch)."""
    from primkit.opinfo.definitions.nn.padding import REFLECTION_PADS, REPLICATION_PADS, pad_samples
    forward = getattr(aten, f"{mode}_pad{n}d")
    pads = {"reflection": REFLECTION_PADS, "replication": REPLICATION_PADS}[mode][n]

    def gen(op, device, dtype):
        for s in pad_samples(n, pads)(op, device, dtype):
            y = forward(s.input, *s.args)
            yield SampleInput(make(tuple(y.shape), device, dtype), (s.input, *s.args), name=s.name)
    return gen


def error_inputs_pad_backward(n):
    def gen(op, device):
        x = make((2, 3) + (3, 3, 3)[:n], device, torch.float32)
        # eager: "gradOutput width unexpected. Expected: 5, Got: 3"
        yield ErrorInput(SampleInput(x, (x, [1] * (2 * n))), RuntimeError, "(grad_output|gradOutput) width unexpected")
    return gen


def sample_inputs_adaptive_max_pool_backward(n):
    """(grad_output, self, indices), the indices from eager's forward; bins overlap where the output
    does not divide the input (an input element can take several gradients)."""
    cases = {2: (((2, 3, 8, 8), (3, 3)), ((1, 2, 7, 5), (4, 2)), ((3, 5, 6), (5, 6)), ((1, 2, 3, 3), (5, 2))),
             3: (((1, 2, 5, 6, 5), (3, 3, 2)), ((2, 4, 4, 4), (2, 3, 3)), ((1, 1, 3, 2, 3), (4, 2, 5)))}[n]
    forward = getattr(aten, f"adaptive_max_pool{n}d")

    def gen(op, device, dtype):
        for shape, out in cases:
            for name, x in layouts(shape, device, dtype):
                if name == "expanded":   # ties everywhere: which equal element takes the gradient is the kernel's
                    continue
                y, idx = forward(x, list(out))
                yield SampleInput(make(tuple(y.shape), device, dtype), (x, idx), name=f"{name} {shape} -> {out}")
    return gen


def sample_inputs_segment_reduce_backward(op, device, dtype):
    """(grad, output, data, reduce, lengths or offsets, axis, initial) for torch.segment_reduce's samples."""
    from primkit.opinfo.definitions.reductions import sample_inputs_segment_reduce
    for s in sample_inputs_segment_reduce(op, device, dtype):
        out = torch.segment_reduce(s.input, *s.args, **s.kwargs)
        kw = {k: v for k, v in s.kwargs.items() if k != "unsafe"}
        yield SampleInput(make(tuple(out.shape), device, dtype), (out, s.input, *s.args), kw, name=s.name)
    # prod's zeros: one in a segment (its gradient is the product of the others and initial), two
    data = torch.tensor([0.0, 2.0, 0.0, 3.0, 0.0, -1.5], device=device, dtype=dtype)
    lengths = torch.tensor([2, 3, 1], device=device)
    for initial in (None, 1.5):
        out = torch.segment_reduce(data, "prod", lengths=lengths, initial=initial)
        yield SampleInput(make((3,), device, dtype), (out, data, "prod"), {"lengths": lengths, "initial": initial},
                          name=f"prod with zeros, initial={initial}")


def sample_inputs_avg_pool3d_backward(op, device, dtype):
    cases = (((1, 2, 4, 4, 4), 2, 2, 0, False, True, None), ((1, 2, 5, 6, 5), 3, 2, 1, True, False, None),
             ((2, 4, 5, 6), (2, 3, 2), 1, (1, 1, 0), False, True, None), ((1, 1, 4, 4, 4), 3, 1, 1, False, True, 4))
    for shape, k, s, p, ceil, include, divisor in cases:
        for name, x in layouts(shape, device, dtype):
            if name == "channels_last":   # a 2-d memory format on an unbatched volume
                continue
            y = aten.avg_pool3d(x, k, s, p, ceil, include, divisor)
            k3, s3, p3 = (_as_list(v, 3) for v in (k, s, p))
            yield SampleInput(make(tuple(y.shape), device, dtype), (x, k3, s3, p3, ceil, include, divisor),
                              name=f"{name} {shape} k={k} s={s} p={p} ceil={ceil} include_pad={include} "
                                   f"divisor={divisor}")


def sample_inputs_adaptive_avg_pool3d_backward(op, device, dtype):
    for shape, out, all_layouts in (((1, 2, 4, 4, 4), (2, 2, 2), True), ((1, 2, 5, 3, 4), (3, 2, 3), True),
                                    ((2, 3, 3, 3), (4, 2, 3), False)):
        inputs = layouts(shape, device, dtype) if all_layouts else (("contiguous", make(shape, device, dtype)),)
        for name, x in inputs:
            y = aten._adaptive_avg_pool3d(x, out)
            yield SampleInput(make(tuple(y.shape), device, dtype), (x,), name=f"{name} {shape} -> {out}")


# ----------------------------------------------------------------------------- dropout


def sample_inputs_native_dropout_backward(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4)):
        for name, g in layouts(shape, device, dtype):
            mask = torch.rand(shape, device=device) > 0.3
            for scale in (2.0, 1.0, 0.0):
                yield SampleInput(g, (mask, scale), name=f"{name} {shape} scale={scale}")


# ----------------------------------------------------------------------------- embedding, attention, losses


def sample_inputs_embedding_dense_backward(op, device, dtype):
    for idx_shape, num, padding_idx, freq in (((5,), 10, -1, False), ((2, 4), 6, 2, False), ((3, 3), 4, -1, True),
                                              ((2, 5), 3, 0, True), ((0,), 4, -1, False)):
        indices = torch.randint(0, num, idx_shape, device=device)
        if indices.numel() > 2:
            indices.view(-1)[1] = indices.view(-1)[0]   # a repeated index accumulates
        grad = make(idx_shape + (3,), device, dtype)
        yield SampleInput(grad, (indices, num, padding_idx, freq),
                          name=f"indices {idx_shape} num={num} padding_idx={padding_idx} scale_grad_by_freq={freq}")
    indices = torch.tensor([[0, 2], [2, 1]], device=device, dtype=torch.int32)
    yield SampleInput(make((2, 2, 4), device, dtype).transpose(0, 1), (indices, 3, -1, False),
                      name="int32 indices, transposed grad")


def sample_inputs_sdpa_cpu_backward(op, device, dtype):
    cases = (((2, 2, 5, 8), (2, 2, 6, 8), False, None), ((1, 2, 4, 8), (1, 2, 4, 8), True, None),
             ((2, 4, 3, 8), (2, 2, 5, 8), False, None),   # grouped-query: 2 key/value heads serve 4 query heads
             ((1, 2, 4, 8), (1, 2, 4, 8), False, "-inf"), ((1, 2, 4, 8), (1, 2, 6, 8), False, "float"))
    for qs, ks, causal, mask_kind in cases:
        q, k, v = make(qs, device, dtype), make(ks, device, dtype), make(ks, device, dtype)
        mask = None
        if mask_kind == "-inf":   # a boolean mask as F.scaled_dot_product_attention hands it to the kernel
            mask = torch.zeros(qs[2], ks[2], device=device, dtype=dtype)
            mask[torch.rand(qs[2], ks[2], device=device) > 0.6] = float("-inf")
            mask[:, 0] = 0
        elif mask_kind == "float":
            mask = make((qs[2], ks[2]), device, dtype)
        out, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, attn_mask=mask)
        yield SampleInput(make(tuple(out.shape), device, dtype), (q, k, v, out, lse, 0.0, causal),
                          {"attn_mask": mask}, name=f"q {qs} k {ks} causal={causal} mask={mask_kind}")
    q = make((1, 5, 2, 8), device, dtype).transpose(1, 2)   # (B, S, H, E) storage, as transformers passes it
    k = make((1, 5, 2, 8), device, dtype).transpose(1, 2)
    v = make((1, 5, 2, 8), device, dtype).transpose(1, 2)
    out, lse = aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, True, scale=0.5)
    yield SampleInput(make(tuple(out.shape), device, dtype), (q, k, v, out, lse, 0.0, True), {"scale": 0.5},
                      name="transposed q/k/v, scale 0.5")


def sample_inputs_nll_loss_backward(op, device, dtype):
    for shape, reduction, weighted, ignore in (((4, 5), 1, False, -100), ((4, 5), 2, True, 2), ((4, 5), 0, True, -100),
                                               ((5,), 1, True, -100), ((3, 4), 1, False, 1)):
        x = torch.log_softmax(make(shape, device, dtype), -1)
        target = torch.randint(0, shape[-1], shape[:-1], device=device)
        if target.dim() and ignore >= 0:
            target[0] = ignore
        weight = make((shape[-1],), device, dtype, low=0.1, high=2) if weighted else None
        _, total_weight = aten.nll_loss_forward(x, target, weight, reduction, ignore)
        grad = make(tuple(target.shape) if reduction == 0 else (), device, dtype)
        yield SampleInput(grad, (x, target, weight, reduction, ignore, total_weight),
                          name=f"{shape} reduction={reduction} weight={weighted} ignore_index={ignore}")
    # a single sample's grad_output and total_weight as eager also takes them: shape (1,)
    for reduction, weighted in ((1, False), (1, True), (2, False), (2, True)):
        x = torch.log_softmax(make((5,), device, dtype), -1)
        weight = make((5,), device, dtype, low=0.1, high=2) if weighted else None
        _, total_weight = aten.nll_loss_forward(x, torch.tensor(3, device=device), weight, reduction, -100)
        yield SampleInput(make((1,), device, dtype), (x, torch.tensor(3, device=device), weight, reduction, -100,
                                                      total_weight.reshape(1)),
                          name=f"(5,) grad_output (1,) total_weight (1,) reduction={reduction} weight={weighted}")


def error_inputs_nll_loss_backward(op, device):
    x = torch.log_softmax(make((3, 5), device, torch.float32), -1)
    target, one = torch.tensor([1, 2, 3], device=device), torch.tensor(1.0, device=device)
    yield ErrorInput(SampleInput(make((2,), device, torch.float32), (x, target, None, 0, -100, one)), RuntimeError,
                     r"size\[0\] == 3")
    yield ErrorInput(SampleInput(make((1, 1), device, torch.float32), (x[0], target[0], None, 1, -100, one)),
                     RuntimeError, "single element grad_output")
    two = make((2,), device, torch.float32)
    yield ErrorInput(SampleInput(make((), device, torch.float32), (x, target, None, 1, -100, two)), RuntimeError,
                     "single element tensor")


def sample_inputs_nll_loss2d_backward(op, device, dtype):
    for reduction in (0, 1, 2):
        x = torch.log_softmax(make((2, 3, 4, 2), device, dtype), 1)
        target = torch.randint(0, 3, (2, 4, 2), device=device)
        _, total_weight = aten.nll_loss2d_forward(x, target, None, reduction, -100)
        grad = make(tuple(target.shape) if reduction == 0 else (), device, dtype)
        yield SampleInput(grad, (x, target, None, reduction, -100, total_weight), name=f"reduction={reduction}")


def sample_inputs_mse_loss_backward(op, device, dtype):
    for reduction in (0, 1, 2):
        for name, x in layouts((4, 5), device, dtype):
            grad = make((4, 5) if reduction == 0 else (), device, dtype)
            yield SampleInput(grad, (x, make((4, 5), device, dtype), reduction), name=f"{name} reduction={reduction}")


def sample_inputs_binary_cross_entropy_backward(op, device, dtype):
    for reduction in (0, 1, 2):
        for name, x in layouts((4, 5), device, dtype, low=0.05, high=0.95):
            grad = make((4, 5) if reduction == 0 else (), device, dtype)
            target = make((4, 5), device, dtype, low=0, high=1)
            yield SampleInput(grad, (x, target, None, reduction), name=f"{name} reduction={reduction}")
        weight = make((4, 5), device, dtype, low=0.1, high=2)
        x = make((4, 5), device, dtype, low=0.05, high=0.95)
        grad = make((4, 5) if reduction == 0 else (), device, dtype)
        yield SampleInput(grad, (x, make((4, 5), device, dtype, low=0, high=1), weight, reduction),
                          name=f"weighted reduction={reduction}")
    # the clamp: x at 0 and 1, where eager's denominator is 1e-12
    x = torch.tensor([0.0, 1.0, 0.5, 1e-3], device=device, dtype=dtype)
    yield SampleInput(make((4,), device, dtype), (x, torch.tensor([0.0, 1.0, 0.25, 1.0], device=device, dtype=dtype),
                                                  None, 0), name="x at 0 and 1")


def sample_inputs_pointwise_loss_backward(*params, target=lambda t: t):
    """(grad_output, self, target, reduction, *params) in every reduction and layout, each of
    ``params`` on one reduction, and self equal to target in places (the branch points)."""
    def gen(op, device, dtype):
        for i, p in enumerate(params or ((),)):
            for reduction in (0, 1, 2) if i == 0 else (1,):
                for name, x in layouts((4, 5), device, dtype):
                    grad = make((4, 5) if reduction == 0 else (), device, dtype)
                    y = target(make((4, 5), device, dtype))
                    yield SampleInput(grad, (x, y, reduction, *p), name=f"{name} reduction={reduction} {p}")
            x = make((4, 5), device, dtype)
            y = target(make((4, 5), device, dtype))
            x[0] = y[0]
            yield SampleInput(make((4, 5), device, dtype), (x, y, 0, *p), name=f"self == target in row 0 {p}")
    return gen


def error_inputs_mse_loss_backward(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (x, make((4,), device, torch.float32), 0)), RuntimeError,
                     "must match the size of tensor")


# ----------------------------------------------------------------------------- view backwards


def sample_inputs_select_backward(op, device, dtype):
    for sizes, dim, index in (((3, 4), 0, 1), ((3, 4), 1, -1), ((2, 3, 4), 2, 0), ((5,), 0, 4)):
        grad_shape = tuple(s for i, s in enumerate(sizes) if i != dim % len(sizes))
        for name, g in layouts(grad_shape, device, dtype):
            yield SampleInput(g, (list(sizes), dim, index), name=f"{name} {sizes} dim={dim} index={index}")


def sample_inputs_slice_backward(op, device, dtype):
    for sizes, dim, start, end, step in (((6, 4), 0, 1, 5, 2), ((3, 10), 1, 0, 10, 3), ((3, 10), -1, -4, 100, 1),
                                         ((2, 5, 3), 1, 2, 2, 1)):
        count = len(range(*slice(start, end, step).indices(sizes[dim])))
        grad_shape = list(sizes)
        grad_shape[dim] = count
        for name, g in layouts(tuple(grad_shape), device, dtype):
            yield SampleInput(g, (list(sizes), dim, start, end, step),
                              name=f"{name} {sizes} dim={dim} [{start}:{end}:{step}]")


def error_inputs_select_backward(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), ([3, 4], 1, 7)), IndexError, "out of range")


# ----------------------------------------------------------------------------- entries

# Norm backward passes: sums of products that cancel ((n * g - sum(g) - xhat * sum(g * xhat)),
# sum(g * xhat)); eager's kernels round xhat and partial sums at other points than the
# decomposition (which computes in float32 and rounds once), and the cancellation turns an ulp of
# a term into a few percent of a small result. Batch norm's grad_output is in [-1, 1] (the
# gradients' usual scale) so its sums over the batch stay within these bounds.
NORM_TOLERANCES = {
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (1e-1, 5e-2),
}
# Convolution and attention gradients are matmul-sized sums (up to ~100 terms of magnitude ~10 here):
# float32 differs by accumulation order; float16/bfloat16 by eager's storage-dtype partial sums.
MATMUL_TOLERANCES = {
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 5e-3),
    torch.bfloat16: (1e-1, 2e-2),
}

# Eager's flash-attention backward works blockwise and, in float16/bfloat16, rounds the
# probabilities and their gradient to the storage dtype before its matmuls; the decomposition
# keeps them in float32. Float32 differs in the accumulation order of the exp-sums (~1e-4 rel).
# Eager's CPU pad backward adds each output's gradient into a float16/bfloat16 grad_input one at a
# time (a replication corner takes up to 18 terms here), rounding after each; the decomposition sums
# in float32 and rounds once: bfloat16 differs by up to ~14 ulps of the sum.
PAD_BACKWARD_TOLERANCES = {**ACCUMULATE_TOLERANCES, torch.bfloat16: (3e-1, 5e-2)}
ATTENTION_TOLERANCES = {
    torch.float32: (1e-4, 2e-4),
    torch.float16: (2e-2, 1e-2),
    torch.bfloat16: (2e-1, 5e-2),
}


def _with_out(overload, out_overload):
    """overload, or out_overload when test_out passes ``out=`` (whatever its out argument is named:
    the backward ops call it grad_input)."""
    (out_name,) = [a.name for a in out_overload._schema.arguments if a.is_out]

    def op(*args, out=None, **kwargs):
        return overload(*args, **kwargs) if out is None else out_overload(*args, **kwargs, **{out_name: out})
    op.__name__ = overload.name().split("::")[1]
    return op


def sample_inputs_upsample_aa_backward(op, device, dtype):
    """grad_output in every layout (eager's gradient takes its layout) for one output_size; then
    upsampling and downsampling (by more than 4 in a batch of 1), align_corners, scales given, a dim
    unchanged (eager's backward weights it all the same, with its scale where one is given), 1x1."""
    def args(input_size, output_size, align, *scales):
        return (output_size, list(input_size), align, *scales)
    for name, g in layouts((2, 3, 7, 3), device, dtype):
        yield SampleInput(g, args((2, 3, 4, 5), [7, 3], False), name=f"{name} [4, 5] -> [7, 3]")
    for input_size, output_size, align, scales in (
            ((2, 3, 4, 5), [3, 8], True, ()), ((2, 3, 4, 5), [7, 3], False, (1.8, 0.65)),
            ((2, 3, 4, 5), [4, 2], False, (None, 0.3)), ((2, 3, 4, 5), [4, 2], False, (0.5, 0.3)),
            ((2, 3, 4, 5), [1, 1], False, ()),
            ((1, 2, 19, 16), [3, 4], False, ()), ((1, 2, 19, 16), [5, 4], True, ())):
        g = make(input_size[:2] + tuple(output_size), device, dtype)
        yield SampleInput(g, args(input_size, output_size, align, *scales),
                          name=f"{list(input_size[2:])} -> {output_size} align_corners={align} scales={scales}")


def _sample_inputs_nearest_backward(n):
    """grad_output in every layout, upsampling, downsampling, and scales given (output_size, input_size, *scales)."""
    def samples(op, device, dtype):
        for name, g in layouts((2, 3) + (7,) * n, device, dtype):
            yield SampleInput(g, ([7] * n, [2, 3] + [5] * n), name=f"{name} 5 -> 7")
        for in_size, out_size, scales in ((6, 3, ()), (4, 9, (2.5,) * n), (5, 2, (0.3,) * n)):
            yield SampleInput(make((1, 2) + (out_size,) * n, device, dtype), ([out_size] * n, [1, 2] + [in_size] * n,
                                                                               *scales),
                              name=f"{in_size} -> {out_size} scales={scales}")
    return samples


def sample_inputs_pdist_backward(op, device, dtype):
    """(grad, input, p, pdist) for every branch of eager's formulas, rows repeated (zero distances)."""
    for p in (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, math.inf):
        for shape in ((5, 3), (1, 3)):
            x = make(shape, device, dtype)
            x[-1] = x[0]
            dist = aten._pdist_forward(x, p)
            yield SampleInput(make(tuple(dist.shape), device, dtype), (x, p, dist), name=f"{shape} p={p}")


def error_inputs_upsample_aa_backward(op, device):
    g = make((2, 3, 7, 3), device, torch.float32)
    rows = (
        ((g, ([7], [2, 3, 4, 5], False)), RuntimeError, "It is expected output_size equals to 2, but got size 1"),
        ((g, ([7, 3], [2, 3, 4], False)), RuntimeError, "It is expected input_size equals to 4, but got size 3"),
        ((g, ([7, 3], [2, 3, 0, 5], False)), RuntimeError, "Input and output sizes should be greater than 0"),
        ((g[0], ([7, 3], [2, 3, 4, 5], False)), RuntimeError, "Expected grad_output to be a tensor of dimension 4"),
        ((g, ([7, 4], [2, 3, 4, 5], False)), RuntimeError, "Expected grad_output to have the same shape as output; "
                                                            "output.size(3) = 4 but got grad_output.size(3) = 3"),
        ((g.half(), ([7, 3], [2, 3, 4, 5], False)), NotImplementedError, "not implemented for 'Half'"),
    )
    for (t, args), exc, match in rows:
        yield ErrorInput(SampleInput(t, args), exc, re.escape(match))


def _entry(overload, samples, *, errors=None, tolerances=None, xfails=(), dtypes=FLOATING, out=None, name=None):
    """``out``: the op's out= overload, which test_out then runs; ``name``: the entry's, when one op
    has two entries."""
    op_name = overload.name().split("::")[1]
    op_name = op_name[:-len(".default")] if op_name.endswith(".default") else op_name
    aten_names = (overload.name().replace(".default", ""),) + ((out.name(),) if out is not None else ())
    return OpInfo(name=name or f"aten.{op_name}", op=overload if out is None else _with_out(overload, out), aten=aten_names,
                  sample_inputs=samples, dtypes=frozenset(dtypes), error_inputs=errors,
                  tolerances=tolerances or {}, xfails=tuple(xfails), family="backward", supports_autograd=False,
                  supports_out=out is not None)


def _full_mask(samples):
    """The samples whose output_mask (the last argument) asks for every gradient: the out= overload
    writes one into each of its outs."""
    return lambda op, device, dtype: (s for s in samples(op, device, dtype) if all(s.args[-1]))


ENTRIES = [
    _entry(aten.gelu_backward.default, _pointwise_samples(((), {}), ((), {"approximate": "tanh"})),
           errors=_errors_gelu_backward),
    _entry(aten.silu_backward.default, _pointwise_samples()),
    _entry(aten.sigmoid_backward.default, _pointwise_samples(saved=torch.sigmoid)),
    _entry(aten.tanh_backward.default, _pointwise_samples(saved=torch.tanh)),
    _entry(aten.threshold_backward.default, _pointwise_samples(((0.0,), {}), ((0.5,), {}))),
    _entry(aten.leaky_relu_backward.default, _pointwise_samples(((0.01, False), {}), ((0.2, True), {})),
           errors=_errors_leaky_relu_backward),
    _entry(aten.hardtanh_backward.default, _pointwise_samples(((-1.0, 1.0), {}), ((-0.5, 2.0), {}))),
    _entry(aten.elu_backward.default, _pointwise_samples(((1.0, 1.0, 1.0, False), {}), ((0.5, 1.05, 2.0, False), {}),
                                                         saved_last=True), errors=_errors_elu_backward),
    _entry(aten.elu_backward.default, _pointwise_samples(((1.0, 1.0, 1.0, True), {}), ((0.5, 1.05, 2.0, True), {}),
                                                         saved=torch.nn.functional.elu, saved_last=True),
           name="aten.elu_backward.result"),
    _entry(aten.hardsigmoid_backward.default, _pointwise_samples()),
    _entry(aten.hardswish_backward.default, _pointwise_samples()),
    _entry(aten.softplus_backward.default, _pointwise_samples(((1.0, 20.0), {}), ((2.0, 1.0), {}))),
    _entry(aten.softshrink_backward.default, _pointwise_samples(((0.5,), {}), ((2.0,), {}))),
    _entry(aten.hardshrink_backward.default, _pointwise_samples(((0.5,), {}), ((2.0,), {}))),
    _entry(aten.mish_backward.default, _pointwise_samples()),
    _entry(aten.logit_backward.default, _pointwise_samples(((), {}), ((0.1,), {}), low=-0.5, high=1.5)),
    _entry(aten._softmax_backward_data.default, sample_inputs_softmax_backward(log=False),
           tolerances=REDUCTION_TOLERANCES),
    _entry(aten._log_softmax_backward_data.default, sample_inputs_softmax_backward(log=True),
           tolerances=REDUCTION_TOLERANCES),
    _entry(aten.native_layer_norm_backward.default, sample_inputs_layer_norm_backward, tolerances=NORM_TOLERANCES),
    _entry(aten.native_group_norm_backward.default, sample_inputs_group_norm_backward, tolerances=NORM_TOLERANCES),
    _entry(aten.native_batch_norm_backward.default, sample_inputs_batch_norm_backward, tolerances=NORM_TOLERANCES),
    _entry(aten.batch_norm_backward.default, sample_inputs_batch_norm_backward_new, tolerances=NORM_TOLERANCES),
    _entry(aten._weight_norm_interface_backward.default, sample_inputs_weight_norm_interface_backward,
           tolerances=NORM_TOLERANCES),
    _entry(aten.convolution_backward.default, sample_inputs_convolution_backward, tolerances=MATMUL_TOLERANCES),
    _entry(aten.max_pool2d_with_indices_backward.default, sample_inputs_max_pool2d_backward,
           tolerances=ACCUMULATE_TOLERANCES),
    _entry(aten.avg_pool2d_backward.default, sample_inputs_avg_pool2d_backward, tolerances=ACCUMULATE_TOLERANCES),
    _entry(aten._adaptive_avg_pool2d_backward.default, sample_inputs_adaptive_avg_pool2d_backward,
           tolerances=ACCUMULATE_TOLERANCES),
    _entry(aten.embedding_dense_backward.default, sample_inputs_embedding_dense_backward,
           tolerances=ACCUMULATE_TOLERANCES),
    _entry(aten._scaled_dot_product_flash_attention_for_cpu_backward.default, sample_inputs_sdpa_cpu_backward,
           tolerances=ATTENTION_TOLERANCES),
    _entry(aten.nll_loss_backward.default, sample_inputs_nll_loss_backward, errors=error_inputs_nll_loss_backward),
    _entry(aten.nll_loss2d_backward.default, sample_inputs_nll_loss2d_backward),
    _entry(aten.mse_loss_backward.default, sample_inputs_mse_loss_backward, errors=error_inputs_mse_loss_backward),
    _entry(aten.binary_cross_entropy_backward.default, sample_inputs_binary_cross_entropy_backward),
    _entry(aten.select_backward.default, sample_inputs_select_backward, errors=error_inputs_select_backward),
    _entry(aten.slice_backward.default, sample_inputs_slice_backward),
    _entry(aten.native_dropout_backward.default, sample_inputs_native_dropout_backward,
           out=aten.native_dropout_backward.out),
    # prod divides by each element; sums of ties: a few ulps in float16/bfloat16 (ACCUMULATE_TOLERANCES)
    _entry(aten._segment_reduce_backward.default, sample_inputs_segment_reduce_backward,
           tolerances=ACCUMULATE_TOLERANCES),
    _entry(aten.max_pool3d_with_indices_backward.default, sample_inputs_max_pool3d_backward,
           tolerances=ACCUMULATE_TOLERANCES, out=aten.max_pool3d_with_indices_backward.grad_input),
    *(_entry(getattr(aten, f"fractional_max_pool{n}d_backward").default, sample_inputs_fractional_max_pool_backward(n),
             tolerances=ACCUMULATE_TOLERANCES, out=getattr(aten, f"fractional_max_pool{n}d_backward").grad_input)
      for n in (2, 3)),
    # Eager's CPU avg_pool3d has no float16/bfloat16 kernels.
    _entry(aten.avg_pool3d_backward.default, sample_inputs_avg_pool3d_backward, dtypes=FLOAT32_64,
           out=aten.avg_pool3d_backward.grad_input),
    _entry(aten._adaptive_avg_pool3d_backward.default, sample_inputs_adaptive_avg_pool3d_backward,
           tolerances=ACCUMULATE_TOLERANCES, out=aten._adaptive_avg_pool3d_backward.out),
    # Eager has float32/float64 kernels only (as for the forward).
    _entry(aten._pdist_backward.default, sample_inputs_pdist_backward, dtypes=FLOAT32_64),   # eager: no half kernel
    *(_entry(getattr(aten, f"{name}{n}d_backward").default, _sample_inputs_nearest_backward(n),
             out=getattr(aten, f"{name}{n}d_backward").grad_input)
      for n in (1, 2, 3) for name in ("upsample_nearest", "_upsample_nearest_exact")),
    *(_entry(getattr(aten, f"_upsample_{mode}2d_aa_backward").default, sample_inputs_upsample_aa_backward,
             errors=error_inputs_upsample_aa_backward, dtypes=FLOAT32_64,
             out=getattr(aten, f"_upsample_{mode}2d_aa_backward").grad_input) for mode in ("bilinear", "bicubic")),
    *(_entry(getattr(aten, f"{mode}_pad{n}d_backward").default, sample_inputs_pad_backward(mode, n),
             errors=error_inputs_pad_backward(n), tolerances=PAD_BACKWARD_TOLERANCES,
             out=getattr(aten, f"{mode}_pad{n}d_backward").grad_input)
      for mode in ("reflection", "replication") for n in (1, 2, 3)),
    _entry(aten._prelu_kernel_backward.default, sample_inputs_prelu_kernel_backward),
    _entry(aten.log_sigmoid_backward.default, sample_inputs_log_sigmoid_backward,
           out=aten.log_sigmoid_backward.grad_input),
    _entry(aten.glu_backward.default, sample_inputs_glu_backward, errors=_errors_glu_backward,
           out=aten.glu_backward.grad_input),
    _entry(aten.huber_loss_backward.default, sample_inputs_pointwise_loss_backward((1.0,), (0.5,)),
           out=aten.huber_loss_backward.out),
    _entry(aten.smooth_l1_loss_backward.default, sample_inputs_pointwise_loss_backward((1.0,), (0.0,), (0.5,)),
           out=aten.smooth_l1_loss_backward.grad_input),
    _entry(aten.soft_margin_loss_backward.default, sample_inputs_pointwise_loss_backward(target=torch.sign),
           out=aten.soft_margin_loss_backward.grad_input),
    *(_entry(getattr(aten, f"adaptive_max_pool{n}d_backward").default, sample_inputs_adaptive_max_pool_backward(n),
             tolerances=ACCUMULATE_TOLERANCES, out=getattr(aten, f"adaptive_max_pool{n}d_backward").grad_input)
      for n in (2, 3)),
    # Multi-result out= overloads (see opinfo.definitions.nn.common.with_outs).
    out_entry(aten.convolution_backward.out, aten.convolution_backward.default,
              _full_mask(sample_inputs_convolution_backward), tolerances=MATMUL_TOLERANCES, family="backward"),
    out_entry(aten.native_batch_norm_backward.out, aten.native_batch_norm_backward.default,
              _full_mask(sample_inputs_batch_norm_backward), tolerances=NORM_TOLERANCES, family="backward"),
    out_entry(aten._weight_norm_interface_backward.out, aten._weight_norm_interface_backward.default,
              sample_inputs_weight_norm_interface_backward, tolerances=NORM_TOLERANCES, family="backward"),
    out_entry(aten.native_layer_norm_backward.out, aten.native_layer_norm_backward.default,
              _full_mask(sample_inputs_layer_norm_backward), tolerances=NORM_TOLERANCES, family="backward"),
    out_entry(aten.native_group_norm_backward.out, aten.native_group_norm_backward.default,
              _full_mask(sample_inputs_group_norm_backward), tolerances=NORM_TOLERANCES, family="backward"),
]
