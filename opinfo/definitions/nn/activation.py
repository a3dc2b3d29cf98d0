"""OpInfo entries: activations (relu, gelu, hardtanh, ..., glu, prelu) and softmax / log_softmax."""
from __future__ import annotations

import math
import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.nn.common import REDUCTION_TOLERANCES, _entry, _writable, aten, entry, out_entry
from primkit.opinfo.dtypes import FLOATING, INTEGRAL
from primkit.opinfo.samples import extremal_unary, layouts, make


ACTIVATION_SHAPES = ((), (0,), (7,), (4, 5), (2, 3, 4, 5))


def _activation_samples(*kwargs_variants, args=()):
    """Every layout of every shape with the first kwargs; a small set with the other variants;
    extremal values (inf, nan, huge) with all of them."""
    def gen(op, device, dtype):
        for kwargs in kwargs_variants:
            shapes = ACTIVATION_SHAPES if kwargs is kwargs_variants[0] else ((4, 5),)
            for shape in shapes:
                for name, t in layouts(shape, device, dtype, low=-4, high=4):
                    yield SampleInput(t, args, dict(kwargs), name=f"{name} {shape} {kwargs}")
            for s in extremal_unary(op, device, dtype):
                yield SampleInput(s.input, args, dict(kwargs), name=f"extremal {kwargs}")
    return gen


def _inplace(fn, **fixed):
    return lambda t, *args, **kwargs: fn(t, *args, **{**kwargs, **fixed})


def _activation(name, *kwargs_variants, args=(), aten=None, dtypes=FLOATING, inplace=None, error_inputs=None,
                tolerances=None, xfails=(), domain=(None, None)):
    return OpInfo(name=f"nn.functional.{name}", op=getattr(F, name), aten=aten or (f"aten::{name}",), domain=domain,
                  sample_inputs=_activation_samples(*(kwargs_variants or ({},)), args=args), dtypes=frozenset(dtypes),
                  inplace=inplace, error_inputs=error_inputs, tolerances=tolerances or {}, xfails=tuple(xfails),
                  family="nn")


def _errors_floating_only(op, device):
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device)), RuntimeError, "not implemented for 'Long'")


def _errors_gelu(op, device):
    yield from _errors_floating_only(op, device)
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), kwargs={"approximate": "cubic"}), RuntimeError,
                     "approximate argument must be either none or tanh")


def sample_inputs_glu(op, device, dtype):
    for shape, dim in (((4, 6), -1), ((4, 6), 0), ((2, 4, 3), 1), ((0, 4), 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, kwargs={"dim": dim}, name=f"{name} {shape} dim={dim}")


def error_inputs_glu(op, device):
    yield ErrorInput(SampleInput(make((4, 3), device, torch.float32)), RuntimeError, "Halving dimension must be even")
    yield ErrorInput(SampleInput(make((), device, torch.float32)), RuntimeError, "glu does not support scalars")


def sample_inputs_softmax(op, device, dtype):
    for shape, dim in (((), 0), ((0,), 0), ((7,), 0), ((4, 5), 1), ((4, 5), 0), ((2, 3, 4), -1), ((2, 3, 4), 1),
                       ((2, 0, 3), 2)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (dim,), name=f"{name} {shape} dim={dim}")
    big = torch.finfo(dtype).max
    inf = math.inf
    extremes = {
        "huge": [[big, big / 2, -big], [1e4, 1e4 + 1, -1e4]],
        "-inf entries": [[-inf, 0.0, 1.0], [-inf, -inf, 3.0]],
        "all -inf row": [[-inf, -inf, -inf], [0.0, 1.0, 2.0]],
        "+inf and nan": [[inf, 0.0, 1.0], [math.nan, 0.0, 1.0]],
        "tiny": [[1e-30, -1e-30, 0.0], [0.0, -0.0, 1e-38]],
    }
    for name, rows in extremes.items():
        yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), (1,), name=name)
    if dtype in (torch.float16, torch.bfloat16):
        yield SampleInput(make((4, 5), device, dtype), (1,), {"dtype": torch.float32}, name="dtype=float32 upcast")
    if dtype == torch.float32:
        yield SampleInput(make((4, 5), device, dtype), (1,), {"dtype": torch.float64}, name="dtype=float64")


def error_inputs_softmax(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (2,)), IndexError, "Dimension out of range")
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device), (0,)), RuntimeError, "not implemented for 'Long'")


def sample_inputs_log_sigmoid_forward(op, device, dtype):
    for shape in ((), (0,), (7,), (4, 5)):
        for name, t in layouts(shape, device, dtype, low=-10, high=10):
            yield SampleInput(t, name=f"{name} {shape}")


def sample_inputs_safe_softmax(op, device, dtype):
    yield from sample_inputs_softmax(op, device, dtype)
    inf = math.inf
    rows = [[-inf, -inf, -inf, -inf], [0.0, -inf, 1.0, -inf], [-inf, -inf, -inf, 2.0]]
    yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), (1,), name="fully masked rows")
    yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), (0,), name="fully masked column")


def _eager_gelu_nan_at_inf() -> frozenset:
    """The dtypes whose eager CPU gelu gives nan at +inf on the extremal-value sample, on this machine: the
    vectorized erf path does (float32 and bfloat16; float16 too where the CPU has AVX-512, whose float16 kernel
    is vectorized as well), the scalar path gives +inf."""
    from types import SimpleNamespace
    from primkit.opinfo.samples import extremal_unary
    nan = set()
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        (sample,) = extremal_unary(SimpleNamespace(domain=(None, None)), "cpu", dtype)
        x = sample.input
        if torch.isnan(F.gelu(x)[torch.isposinf(x)]).any():
            nan.add(dtype)
    return frozenset(nan)


def _activation_kwargs_samples(*kwargs_variants):
    def gen(op, device, dtype):
        for i, kwargs in enumerate(kwargs_variants):
            for shape in ACTIVATION_SHAPES if i == 0 else ((4, 5),):
                for name, t in layouts(shape, device, dtype, low=-4, high=4):
                    yield SampleInput(t, (), dict(kwargs), name=f"{name} {shape} {kwargs}")
            for s in extremal_unary(op, device, dtype):
                yield SampleInput(s.input, (), dict(kwargs), name=f"extremal {kwargs}")
    return gen


def _errors_long(op, device):
    yield ErrorInput(SampleInput(torch.tensor([1, 2], device=device)), RuntimeError, "not implemented for 'Long'")


def _errors_softshrink(op, device):
    yield from _errors_long(op, device)
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (-1.0,)), RuntimeError,
                     "lambda must be")


def _inplace_true(fn):
    return lambda t, *args, **kwargs: fn(t, *args, **{**kwargs, "inplace": True})


def sample_inputs_prelu(op, device, dtype):
    for shape in ((2, 3, 4, 5), (4, 3), (3,), (2, 3, 0)):
        channels = shape[1] if len(shape) >= 2 else 1
        for name, t in layouts(shape, device, dtype, low=-3, high=3):
            yield SampleInput(t, (make((channels,), device, dtype),), name=f"{name} {shape} per channel")
            yield SampleInput(t, (make((1,), device, dtype),), name=f"{name} {shape} shared")
    yield SampleInput(make((), device, dtype), (make((1,), device, dtype),), name="0-d")


def error_inputs_prelu(op, device):
    yield ErrorInput(SampleInput(make((2, 3, 4), device, torch.float32), (make((4,), device, torch.float32),)),
                     RuntimeError, "Mismatch of parameter numbers and input channel size")
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (make((3, 1), device, torch.float32),)),
                     RuntimeError, "Expected `weight` to be a scalar or 1D tensor")


ENTRIES = [
    _activation("relu", dtypes=FLOATING | INTEGRAL, inplace=torch.relu_),
    _activation("gelu", {}, {"approximate": "tanh"}, error_inputs=_errors_gelu,
                xfails=[XFail("values", "eager's vectorized CPU gelu gives gelu(+inf) = nan (its erf path: float32 and "
                              "bfloat16, and float16 on AVX-512 machines; the dtypes are probed on this machine); "
                              "primkit's x / 2 (1 + erf(x / sqrt 2)) gives +inf, the limit, as eager's scalar path "
                              "does", _eager_gelu_nan_at_inf(), "cpu", raises=AssertionError)]),
    _activation("silu", inplace=_inplace(F.silu, inplace=True), error_inputs=_errors_floating_only),
    _activation("hardtanh", {}, {"min_val": -0.5, "max_val": 2.0}, dtypes=FLOATING | INTEGRAL,
                inplace=F.hardtanh_),
    _activation("leaky_relu", {}, {"negative_slope": 0.2}, inplace=F.leaky_relu_,
                error_inputs=_errors_floating_only),
    _activation("elu", {}, {"alpha": 0.5}, inplace=F.elu_, error_inputs=_errors_floating_only),
    _activation("softplus", {}, {"beta": 2, "threshold": 5}, error_inputs=_errors_floating_only),
    _activation("threshold", args=(0.5, -1.0), dtypes=FLOATING | INTEGRAL, inplace=F.threshold_),
    _activation("hardsigmoid", inplace=_inplace(F.hardsigmoid, inplace=True), error_inputs=_errors_floating_only),
    _activation("hardswish", inplace=_inplace(F.hardswish, inplace=True), error_inputs=_errors_floating_only),
    _activation("mish", inplace=_inplace(F.mish, inplace=True), error_inputs=_errors_floating_only),
    _activation("logsigmoid", aten=("aten::log_sigmoid_forward",), error_inputs=_errors_floating_only),
    _entry("nn.functional.glu", F.glu, ("aten::glu",), sample_inputs_glu, errors=error_inputs_glu),
    _entry("nn.functional.softmax", F.softmax, ("aten::_softmax",), sample_inputs_softmax,
           errors=error_inputs_softmax, tolerances=REDUCTION_TOLERANCES),
    _entry("nn.functional.log_softmax", F.log_softmax, ("aten::_log_softmax",), sample_inputs_softmax,
           errors=error_inputs_softmax, tolerances=REDUCTION_TOLERANCES),
    out_entry(aten.log_sigmoid_forward.output, aten.log_sigmoid_forward, sample_inputs_log_sigmoid_forward),
    # Ops with a decomposition of their own that the entries above do not reach.
    _entry("aten._safe_softmax", aten._safe_softmax, ("aten::_safe_softmax",), sample_inputs_safe_softmax,
           tolerances=REDUCTION_TOLERANCES),
    entry("nn.functional.celu", aten.celu, ("aten::celu", "aten::celu.out"), _activation_kwargs_samples({}, {"alpha": 0.5}),
                 errors=_errors_long, inplace=aten.celu_, out=True),
    entry("nn.functional.selu", F.selu, ("aten::selu", "aten::selu_"), _activation_kwargs_samples({}),
                 errors=_errors_long, inplace=_inplace_true(F.selu)),
    entry("nn.functional.relu6", F.relu6, ("aten::relu6",), _activation_kwargs_samples({}), dtypes=FLOATING | INTEGRAL),
    entry("nn.functional.hardshrink", aten.hardshrink, ("aten::hardshrink", "aten::hardshrink.out"),
          _activation_kwargs_samples({}, {"lambd": 1.5}), errors=_errors_long, out=True),
    entry("nn.functional.softshrink", aten.softshrink, ("aten::softshrink", "aten::softshrink.out"),
          _activation_kwargs_samples({}, {"lambd": 1.5}), errors=_errors_softshrink, out=True),
    entry("nn.functional.prelu", F.prelu, ("aten::prelu", "aten::_prelu_kernel"), sample_inputs_prelu,
          errors=error_inputs_prelu),
    entry("nn.functional.rrelu", lambda t, **kw: F.rrelu(t, 0.1, 0.3, training=False, **kw),
          ("aten::rrelu", "aten::rrelu_", "aten::rrelu_with_noise"), _activation_kwargs_samples({}),
          inplace=lambda t: F.rrelu(t, 0.1, 0.3, training=False, inplace=True)),
    entry("nn.functional.relu6_", lambda t: F.relu6(t, inplace=True), ("aten::relu6_",),
          _writable(_activation_kwargs_samples({})), dtypes=FLOATING | INTEGRAL),
]
