"""OpInfo entries: low-precision arithmetic (decompositions/quantized.py).

- torch.ao's ``quantized_decomposed`` ops, as PT2E's convert_pt2e writes them (this module imports
  ``torch.ao.quantization.fx._decomposed``, which defines them, as PT2E does).
- aten's fake quantization per tensor and per channel, with and without the mask.
- ``_int_mm`` and ``_scaled_mm``.

Every result is compared bit for bit (tolerance 0): the decompositions round where eager's kernels
round. Samples put values on the rounding ties (x / scale = k + 0.5), past quant_min and quant_max,
and at inf and nan; zero points are nonzero, scales not powers of two.
"""
from __future__ import annotations

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines torch.ops.quantized_decomposed, as PT2E does)

from primkit.opinfo.core import OpInfo, SampleInput
from primkit.opinfo.definitions.common import error_rows, through_table
from primkit.opinfo.dtypes import FLOATING
from primkit.opinfo.samples import layouts, make

qd = torch.ops.quantized_decomposed
aten = torch.ops.aten

QUANTIZABLE = frozenset({torch.float32, torch.float16, torch.bfloat16})   # torch.ao upcasts 16-bit to float32
QDTYPES = frozenset({torch.uint8, torch.int8, torch.int16, torch.int32})
FLOAT8 = frozenset({torch.float8_e4m3fn, torch.float8_e5m2})
# bit for bit: each decomposition rounds where eager's kernel rounds
EXACT = {d: (0.0, 0.0) for d in FLOATING | QUANTIZABLE | QDTYPES | FLOAT8 | {torch.int64}}

# (quant_min, quant_max, dtype, scale, zero_point) as PT2E's quantizers choose them
QPARAMS = ((-128, 127, torch.int8, 0.05, 3), (0, 255, torch.uint8, 0.07, 128), (-127, 127, torch.int8, 0.013, 0),
           (-448, 448, torch.float8_e4m3fn, 0.01, 0))


def _ties(device, dtype, scale):
    """Values on the rounding ties of x / scale, past the int8 range, inf and nan."""
    ks = torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, 126.5, 127.5, -128.5, 300.0, -300.0, 0.0, 1e6], device=device)
    special = torch.tensor([float("inf"), float("-inf"), float("nan")], device=device)
    return torch.cat([ks * scale, special]).to(dtype)


def _values(shape, device, dtype, spread=6.0):
    return make(shape, device, dtype, low=-spread, high=spread)


# ----------------------------------------------------------------------------- quantized_decomposed

def quantize_per_tensor_samples(op, device, dtype):
    for qmin, qmax, qdtype, scale, zp in QPARAMS:
        for name, x in layouts((3, 4, 5), device, dtype, low=-6, high=6):
            yield SampleInput(x, (scale, zp, qmin, qmax, qdtype), name=f"{name} {qdtype}")
        yield SampleInput(_ties(device, dtype, scale), (scale, zp, qmin, qmax, qdtype), name=f"ties {qdtype}")
    yield SampleInput(_values((0, 3), device, dtype), (0.1, 0, -128, 127, torch.int8), name="empty")
    yield SampleInput(_values((), device, dtype), (0.1, 2, -128, 127, torch.int8), name="0-d")
    yield SampleInput(_values((4, 5), device, dtype, 2000.0), (0.3, -7, -32768, 32767, torch.int16), name="int16")


def _as_tensors(samples, bounds_as_tensors):
    """The .tensor / .tensor2 forms of per-tensor samples: scale and zero_point (and the bounds) as
    one-element tensors, as PT2E's dynamic quantization passes them."""
    def gen(op, device, dtype):
        for s in samples(op, device, dtype):
            scale, zp, qmin, qmax, qdtype = s.args[:5]
            bounds = (torch.tensor(qmin, device=device), torch.tensor(qmax, device=device)) if bounds_as_tensors \
                else (qmin, qmax)
            yield SampleInput(s.input, (torch.tensor([scale], device=device), torch.tensor([zp], device=device),
                                        *bounds, qdtype), s.kwargs, name=s.name)
    return gen


def dequantize_per_tensor_samples(op, device, dtype):
    info = torch.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    for out_dtype in (None, torch.float32, torch.bfloat16, torch.float16):
        kwargs = {} if out_dtype is None else {"out_dtype": out_dtype}
        for name, q in layouts((3, 4, 5), device, dtype, low=low, high=high):
            yield SampleInput(q, (0.037, 5, info.min, info.max, dtype), kwargs, name=f"{name} out {out_dtype}")
    q = make((4, 5), device, dtype, low=low, high=high)
    yield SampleInput(q, (1e-3, 0, info.min, info.max, dtype), name="zero point 0")
    yield SampleInput(make((0,), device, dtype), (0.1, 1, info.min, info.max, dtype), name="empty")


def dequantize_float8_samples(op, device, dtype):
    """float8 storage, as torch.ao's float8 quantization writes it."""
    bounds = int(torch.finfo(dtype).min), int(torch.finfo(dtype).max)
    for out_dtype in (torch.float32, torch.bfloat16):
        q = (torch.randn(3, 4, 5, device=device) * 100).to(dtype)
        yield SampleInput(q, (0.01, 0, *bounds, dtype), {"out_dtype": out_dtype}, name=f"out {out_dtype}")
        yield SampleInput(q.transpose(0, 2), (0.3, 2, *bounds, dtype), {"out_dtype": out_dtype},
                          name=f"transposed out {out_dtype}")


def _channels(device, n, scale_dtype=torch.float32):
    scales = (torch.rand(n, device=device) * 0.1 + 0.01).to(scale_dtype)
    zero_points = torch.randint(-5, 6, (n,), device=device)
    return scales, zero_points


def quantize_per_channel_samples(op, device, dtype):
    for axis in (0, 1, 2):
        for scale_dtype in (torch.float32, torch.float64):   # a float64 scale makes the product float64
            scales, zps = _channels(device, (3, 4, 5)[axis], scale_dtype)
            for name, x in layouts((3, 4, 5), device, dtype, low=-6, high=6):
                yield SampleInput(x, (scales, zps, axis, -128, 127, torch.int8), name=f"{name} axis {axis} "
                                                                                       f"{scale_dtype}")
    scales, zps = _channels(device, 4)
    yield SampleInput(_values((4,), device, dtype, 30.0), (scales, zps, 0, 0, 255, torch.uint8), name="1-d uint8")


def dequantize_per_channel_samples(op, device, dtype):
    info = torch.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    for axis in (0, 2):
        scales, zps = _channels(device, (3, 4, 5)[axis])
        for name, q in layouts((3, 4, 5), device, dtype, low=low, high=high):
            yield SampleInput(q, (scales, zps, axis, info.min, info.max, dtype), name=f"{name} axis {axis}")
        yield SampleInput(make((3, 4, 5), device, dtype, low=low, high=high),
                          (scales, None, axis, info.min, info.max, dtype), name=f"no zero points axis {axis}")
        yield SampleInput(make((3, 4, 5), device, dtype, low=low, high=high),
                          (scales.double(), zps, axis, info.min, info.max, dtype), {"out_dtype": torch.bfloat16},
                          name=f"float64 scales, bfloat16 out, axis {axis}")


def choose_qparams_samples(op, device, dtype):
    for name, x in layouts((3, 4, 5), device, dtype, low=-6, high=6):
        yield SampleInput(x, (-128, 127, 1e-5, torch.int8), name=f"{name} int8")
        yield SampleInput(x, (0, 255, 1e-5, torch.uint8), name=f"{name} uint8")
    yield SampleInput(make((7,), device, dtype, low=1, high=5), (-128, 127, 1e-5, torch.int8), name="all positive")
    yield SampleInput(make((7,), device, dtype, low=-5, high=-1), (0, 255, 1e-5, torch.uint8), name="all negative")
    yield SampleInput(torch.zeros(6, device=device, dtype=dtype), (-128, 127, 1e-5, torch.int8), name="zeros (eps)")
    yield SampleInput(make((), device, dtype), (-128, 127, 1e-3, torch.int8), name="0-d")


def choose_qparams_per_token_samples(op, device, dtype):
    for shape in ((4, 8), (2, 3, 8), (5,)):
        for name, x in layouts(shape, device, dtype, low=-6, high=6):
            yield SampleInput(x, (torch.int8,), name=f"{name} {shape}")
    yield SampleInput(make((3, 6), device, dtype, low=1, high=5), (torch.int8,), name="all positive rows")
    yield SampleInput(torch.zeros(2, 4, device=device, dtype=dtype), (torch.int8,), name="zero rows (eps)")


def quantize_per_token_samples(op, device, dtype):
    for shape in ((4, 8), (2, 3, 8)):
        rows = shape[:-1]
        scales = torch.rand(*rows, 1, device=device) * 0.1 + 0.01
        zps = torch.randint(-5, 6, (*rows, 1), device=device)
        for name, x in layouts(shape, device, dtype, low=-6, high=6):
            yield SampleInput(x, (scales, zps, -128, 127, torch.int8), name=f"{name} {shape}")


def dequantize_per_token_samples(op, device, dtype):
    info = torch.iinfo(dtype)
    for shape in ((4, 8), (2, 3, 8)):
        rows = shape[:-1]
        scales = (torch.rand(*rows, 1, device=device) * 0.1 + 0.01).double()   # float64, as torch.ao passes them
        zps = torch.randint(-5, 6, (*rows, 1), device=device)
        for out_dtype in (torch.float32, torch.bfloat16):
            q = make(shape, device, dtype, low=max(info.min, -1000), high=min(info.max, 1000))
            yield SampleInput(q, (scales, zps, info.min, info.max, dtype, out_dtype), name=f"{shape} out {out_dtype}")


def convert_no_fuse_samples(op, device, dtype):
    for name, x in layouts((3, 4, 5), device, dtype, low=-100, high=100):
        for to in (torch.int8, torch.float32, torch.bfloat16):
            yield SampleInput(x, (to,), name=f"{name} to {to}")


def _qd_entry(name, overload, samples, dtypes, errors=None, *, suffix=""):
    """``suffix``: a second entry of the same overload (other samples and dtypes)."""
    aten_name = f"quantized_decomposed::{name}" + ("" if overload == "default" else f".{overload}")
    return OpInfo(name=f"quantized_decomposed.{name}" + ("" if overload == "default" else f".{overload}") + suffix,
                  op=getattr(getattr(qd, name), overload), aten=(aten_name,), sample_inputs=samples,
                  dtypes=dtypes, error_inputs=errors, tolerances=EXACT, family="quantized",
                  # CompositeExplicitAutograd kernels without a derivative: eager's results never require grad
                  supports_autograd=False)


_quantize_errors = error_rows(
    (lambda d: (torch.ones(3, device=d, dtype=torch.float64), (0.1, 0, -128, 127, torch.int8), {}),
     AssertionError, "Expecting input to have dtype torch.float32"),
    (lambda d: (torch.ones(3, device=d), (0.1, 0, -129, 127, torch.int8), {}), AssertionError,
     "quant_min out of bounds"),
)
_dequantize_errors = error_rows(
    (lambda d: (torch.ones(3, device=d, dtype=torch.uint8), (0.1, 0, -128, 127, torch.int8), {}),
     AssertionError, "Expecting input to have dtype: torch.int8"),
)
_per_channel_errors = error_rows(
    (lambda d: (torch.ones(3, 4, device=d), (torch.ones(4, device=d), torch.zeros(4, device=d, dtype=torch.int64),
                                             2, -128, 127, torch.int8), {}), AssertionError, "axis to be < 2"),
)
_choose_errors = error_rows(
    (lambda d: (torch.ones(3, device=d, dtype=torch.float64), (-128, 127, 1e-5, torch.int8), {}), AssertionError,
     "Expecting input to have dtype torch.float32/16/b16"),
)

QUANTIZED_DECOMPOSED = [
    _qd_entry("quantize_per_tensor", "default", quantize_per_tensor_samples, QUANTIZABLE, _quantize_errors),
    _qd_entry("quantize_per_tensor", "tensor", _as_tensors(quantize_per_tensor_samples, False), QUANTIZABLE),
    _qd_entry("quantize_per_tensor", "tensor2", _as_tensors(quantize_per_tensor_samples, True), QUANTIZABLE),
    _qd_entry("dequantize_per_tensor", "default", dequantize_per_tensor_samples, QDTYPES, _dequantize_errors),
    _qd_entry("dequantize_per_tensor", "default", dequantize_float8_samples, FLOAT8, suffix=".float8"),
    _qd_entry("dequantize_per_tensor", "tensor", _as_tensors(dequantize_per_tensor_samples, False), QDTYPES),
    _qd_entry("dequantize_per_tensor", "tensor2", _as_tensors(dequantize_per_tensor_samples, True), QDTYPES),
    _qd_entry("quantize_per_channel", "default", quantize_per_channel_samples, QUANTIZABLE, _per_channel_errors),
    _qd_entry("dequantize_per_channel", "default", dequantize_per_channel_samples, QDTYPES),
    _qd_entry("choose_qparams", "tensor", choose_qparams_samples, QUANTIZABLE, _choose_errors),
    _qd_entry("choose_qparams_symmetric", "tensor", choose_qparams_samples, QUANTIZABLE, _choose_errors),
    _qd_entry("choose_qparams_per_token_asymmetric", "default", choose_qparams_per_token_samples, QUANTIZABLE),
    _qd_entry("choose_qparams_per_token", "default", choose_qparams_per_token_samples, QUANTIZABLE),
    _qd_entry("quantize_per_token", "default", quantize_per_token_samples, QUANTIZABLE),
    _qd_entry("convert_element_type", "no_fuse", convert_no_fuse_samples, QUANTIZABLE),
    _qd_entry("dequantize_per_token", "default", dequantize_per_token_samples, QDTYPES),
]


# ----------------------------------------------------------------------------- fake quantization

def fake_quantize_per_tensor_samples(op, device, dtype):
    for qmin, qmax, _, scale, zp in QPARAMS:
        for name, x in layouts((3, 4, 5), device, dtype, low=-6, high=6):
            yield SampleInput(x, (scale, zp, qmin, qmax), name=f"{name} [{qmin}, {qmax}]")
        yield SampleInput(_ties(device, dtype, scale), (scale, zp, qmin, qmax), name=f"ties, inf, nan [{qmin}, {qmax}]")
    yield SampleInput(_values((0, 3), device, dtype), (0.1, 0, -128, 127), name="empty")
    yield SampleInput(_values((), device, dtype), (0.1, 2, -128, 127), name="0-d")
    yield SampleInput(_ties(device, dtype, 0.1), (-0.1, 0, -128, 127), name="negative scale (-0.0 results)")


def _tensor_qparams(samples, enabled=None):
    """scale (float32) and zero_point (int32) as one-element tensors; ``enabled``: the
    fake_quant_enabled tensor of the cachemask form (0.0 passes input through). On CUDA the flag is int64, as
    fake_quantize_per_tensor_affine passes it: eager's CUDA kernel reads it as int64 and refuses a float one
    ("expected scalar type Long but found Float"); CPU's reads either."""
    def gen(op, device, dtype):
        flag_dtype = torch.int64 if torch.device(device).type == "cuda" else None
        for s in samples(op, device, dtype):
            scale, zp, qmin, qmax = s.args
            qparams = (torch.tensor([scale], device=device), torch.tensor([zp], device=device, dtype=torch.int32))
            for on in ((None,) if enabled is None else enabled):
                flag = () if on is None else (torch.tensor([on], device=device, dtype=flag_dtype),)
                yield SampleInput(s.input, (*qparams, *flag, qmin, qmax),
                                  name=s.name + ("" if on is None else f" enabled {on}"))
    return gen


def fake_quantize_per_channel_samples(op, device, dtype):
    for axis in (0, 1, 2):
        n = (3, 4, 5)[axis]
        scales = torch.rand(n, device=device) * 0.1 + 0.01
        for zp_dtype in (torch.int32, torch.float32, torch.float16):   # a float zero point rounds after adding
            zps = torch.randint(-5, 6, (n,), device=device).to(zp_dtype)
            for name, x in layouts((3, 4, 5), device, dtype, low=-6, high=6):
                yield SampleInput(x, (scales, zps, axis, -128, 127), name=f"{name} axis {axis} {zp_dtype}")
    for zp_dtype in (torch.int32, torch.float32):
        ties = _ties(device, dtype, 0.1)[None]
        yield SampleInput(ties, (torch.tensor([0.1], device=device), torch.tensor([3], device=device).to(zp_dtype), 0,
                                 -128, 127), name=f"ties, inf, nan {zp_dtype}")
    yield SampleInput(_values((0, 3), device, dtype), (torch.ones(3, device=device) * 0.1,
                                                        torch.zeros(3, device=device, dtype=torch.int32), 1, 0, 255),
                      name="empty")


_fake_per_tensor_errors = error_rows(
    (lambda d: (torch.ones(3, device=d), (0.1, 3, 5, 4), {}), RuntimeError, "`quant_min` should be less than"),
    (lambda d: (torch.ones(3, device=d), (0.1, 300, -128, 127), {}), RuntimeError,
     "`zero_point` must be between `quant_min` and `quant_max`"),
)
_fake_per_channel_errors = error_rows(
    (lambda d: (torch.ones(3, 4, device=d), (torch.ones(3, device=d), torch.zeros(3, device=d, dtype=torch.int32),
                                             1, -128, 127), {}),
     RuntimeError, "dimensions of scale and zero-point are not consistent"),
    (lambda d: (torch.ones(3, 4, device=d), (torch.ones(4, 1, device=d), torch.zeros(4, device=d, dtype=torch.int32),
                                             1, -128, 127), {}), RuntimeError, "scale should be a 1-D tensor"),
    (lambda d: (torch.ones(3, 4, device=d), (torch.ones(4, device=d, dtype=torch.float64),
                                             torch.zeros(4, device=d, dtype=torch.int32), 1, -128, 127), {}),
     RuntimeError, "Scale must be Float or BFloat16"),
    (lambda d: (torch.ones(3, 4, device=d), (torch.ones(4, device=d), torch.zeros(4, device=d, dtype=torch.int64),
                                             1, -128, 127), {}), RuntimeError, "Zero-point must be Int32, Float"),
)


def _fake_entry(name, op, aten_names, samples, errors=None):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, dtypes=FLOATING,
                  error_inputs=errors, tolerances=EXACT, family="quantized")


FAKE_QUANTIZE = [
    _fake_entry("fake_quantize_per_tensor_affine", through_table("fake_quantize_per_tensor_affine"),
                ["aten::fake_quantize_per_tensor_affine"], fake_quantize_per_tensor_samples, _fake_per_tensor_errors),
    _fake_entry("fake_quantize_per_tensor_affine.tensor_qparams", through_table("fake_quantize_per_tensor_affine"),
                ["aten::fake_quantize_per_tensor_affine.tensor_qparams"],
                _tensor_qparams(fake_quantize_per_tensor_samples)),
    _fake_entry("fake_quantize_per_tensor_affine_cachemask", aten.fake_quantize_per_tensor_affine_cachemask.default,
                ["aten::fake_quantize_per_tensor_affine_cachemask"], fake_quantize_per_tensor_samples,
                _fake_per_tensor_errors),
    _fake_entry("_fake_quantize_per_tensor_affine_cachemask_tensor_qparams",
                aten._fake_quantize_per_tensor_affine_cachemask_tensor_qparams.default,
                ["aten::_fake_quantize_per_tensor_affine_cachemask_tensor_qparams"],
                _tensor_qparams(fake_quantize_per_tensor_samples, enabled=(1.0, 0.0))),
    _fake_entry("fake_quantize_per_channel_affine", through_table("fake_quantize_per_channel_affine"),
                ["aten::fake_quantize_per_channel_affine"], fake_quantize_per_channel_samples, _fake_per_channel_errors),
    _fake_entry("fake_quantize_per_channel_affine_cachemask", aten.fake_quantize_per_channel_affine_cachemask.default,
                ["aten::fake_quantize_per_channel_affine_cachemask"], fake_quantize_per_channel_samples),
]


# ----------------------------------------------------------------------------- low-precision matmuls

def int_mm_samples(op, device, dtype):
    """On CUDA only contiguous operands of the sizes eager's cuBLASLt kernel accepts (self.size(0) > 16; self.size(1)
    and mat2.size(1) multiples of 8)."""
    low, high = (0, 255) if dtype == torch.uint8 else (-128, 127)
    cuda = torch.device(device).type == "cuda"
    sizes = ((17, 32, 8), (24, 4096, 16)) if cuda else ((17, 32, 8), (1, 1, 1), (4, 4096, 3), (0, 4, 3), (2, 0, 3))
    for m, k, n in sizes:   # 4096: sums past int16
        a = make((m, k), device, dtype, low=low, high=high)
        b = make((k, n), device, torch.int8, low=-128, high=127)
        yield SampleInput(a, (b,), name=f"{m}x{k} @ {k}x{n}")
    if cuda:
        return
    a = make((16, 32), device, dtype, low=low, high=high)
    yield SampleInput(a, (make((8, 32), device, torch.int8, low=-128, high=127).t(),), name="transposed mat2")
    yield SampleInput(make((32, 16), device, dtype, low=low, high=high).t(),
                      (make((32, 8), device, torch.int8, low=-128, high=127),), name="transposed self")


def _float8(shape, device, dtype, spread=4.0):
    return (torch.randn(shape, device=device) * spread).to(dtype)


def scaled_mm_samples(op, device, dtype):
    other = torch.float8_e5m2 if dtype == torch.float8_e4m3fn else torch.float8_e4m3fn
    a = _float8((16, 32), device, dtype)
    b = _float8((8, 32), device, dtype).t()           # eager's layout: mat2 column-major
    s_a, s_b = torch.tensor(0.5, device=device), torch.tensor(1.7, device=device)
    for out_dtype in (torch.float32, torch.bfloat16, torch.float16, dtype):
        yield SampleInput(a, (b, s_a, s_b), {"out_dtype": out_dtype}, name=f"out {out_dtype}")
        yield SampleInput(a, (b, s_a, s_b, _float8((8,), device, torch.bfloat16)), {"out_dtype": out_dtype},
                          name=f"bfloat16 bias, out {out_dtype}")
    yield SampleInput(a, (b, s_a, s_b), name="default out dtype (self's)")
    yield SampleInput(a, (b, s_a, s_b), {"out_dtype": torch.bfloat16, "use_fast_accum": True}, name="fast accum")
    yield SampleInput(a, (_float8((32, 8), device, other), s_a, s_b), {"out_dtype": torch.float32},
                      name=f"mixed {other}, row-major mat2")
    yield SampleInput(a, (b, torch.rand(16, 1, device=device), torch.rand(1, 8, device=device)),
                      {"out_dtype": torch.bfloat16}, name="row-wise scales")
    yield SampleInput(a, (b, s_a, s_b), {"scale_result": torch.tensor(3.0, device=device), "out_dtype": dtype},
                      name="scale_result, float8 out")
    yield SampleInput(a, (b, s_a, s_b, torch.randn(8, device=device)), {"out_dtype": torch.float32},
                      name="float32 bias")


_int_mm_errors = error_rows(
    (lambda d: (torch.ones(4, 4, device=d), (torch.ones(4, 4, device=d),), {}), RuntimeError,
     "Expected self dtype to be int8 or uint8"),
    (lambda d: (torch.ones(4, 4, device=d, dtype=torch.int8), (torch.ones(3, 4, device=d, dtype=torch.int8),), {}),
     RuntimeError, "needs to match"),
    (lambda d: (torch.ones(4, device=d, dtype=torch.int8), (torch.ones(4, 4, device=d, dtype=torch.int8),), {}),
     RuntimeError, "Expected self to be of dimension 2"),
)


def _fp8(*shape):
    return lambda d: torch.ones(*shape, device=d).to(torch.float8_e4m3fn)


_scaled_mm_errors = error_rows(
    (lambda d: (torch.ones(4, 4, device=d), (torch.ones(4, 4, device=d), torch.tensor(1.0, device=d),
                                             torch.tensor(1.0, device=d)), {"out_dtype": torch.float32}),
     ValueError, "Invalid scaling configuration"),
    (lambda d: (_fp8(4, 4)(d), (_fp8(4, 4)(d).t(), torch.tensor(1.0, device=d, dtype=torch.float64),
                                torch.tensor(1.0, device=d)), {"out_dtype": torch.float32}),
     ValueError, "Invalid scaling configuration"),
    (lambda d: (_fp8(4, 4)(d), (_fp8(3, 4)(d), torch.tensor(1.0, device=d), torch.tensor(1.0, device=d)),
                {"out_dtype": torch.float32}), RuntimeError, "shapes cannot be multiplied"),
    (lambda d: (_fp8(4, 4)(d), (_fp8(4, 4)(d).t(), torch.tensor(1.0, device=d), torch.tensor(1.0, device=d),
                                torch.ones(3, device=d)), {"out_dtype": torch.float32}),
     RuntimeError, "Bias must be size 4"),
)

MATMULS = [
    OpInfo(name="_int_mm", op=aten._int_mm.default, aten=("aten::_int_mm",), sample_inputs=int_mm_samples,
           dtypes=frozenset({torch.int8, torch.uint8}), dtypes_cuda=frozenset({torch.int8}),   # CUDA: self int8 only
           error_inputs=_int_mm_errors, tolerances=EXACT,
           family="quantized", supports_autograd=False),
    # eager's CPU kernel: float32 products of the upcast operands (on CPUs with AMX, oneDNN's instead)
    OpInfo(name="_scaled_mm", op=aten._scaled_mm.default, aten=("aten::_scaled_mm",), sample_inputs=scaled_mm_samples,
           dtypes=FLOAT8, error_inputs=_scaled_mm_errors, tolerances=EXACT, family="quantized",
           supports_autograd=False),
]

ENTRIES = QUANTIZED_DECOMPOSED + FAKE_QUANTIZE + MATMULS
