"""OpInfo entries: elementwise ops. Most are a row of a table; the generators below the
helpers cover what the shared ones in opinfo.samples cannot (extra arguments, scalar
operands of pow and where, operand pairs at the edges of a domain)."""
from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import operator

import torch

from primkit.opinfo.core import DEFAULT_TOLERANCES, ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.common import aten_entry, table_entry, through_table
from primkit.opinfo.definitions.shape.common import ALIAS, cases
from primkit.opinfo.dtypes import ALL, BOOL, COMPLEX, FLOAT32_64, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.samples import (BINARY_SHAPE_PAIRS, error_inputs_elementwise_binary, layouts, make,
                                    sample_inputs_elementwise_binary, sample_inputs_elementwise_unary)
from primkit.prims.errors import PrimConstraintError

NO_BOOL = FLOATING | INTEGRAL
EXACT = INTEGRAL | BOOL
HALF = frozenset({torch.float16, torch.bfloat16})
# Special functions eager has no float16/bfloat16 kernel for.
SPECIAL_32_64 = FLOAT32_64 | EXACT


def _torch_fn(name):
    """torch.<name>, with dotted names for submodules: "special.i0e"."""
    fn = torch
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn


def _inplace_of(name):
    return getattr(torch.Tensor, name + "_", None) if "." not in name else None


def _aten_name(name):
    return "aten::" + name.replace(".", "_")


def _entry(name, family, default_aten, sample_inputs, *, dtypes, domain=(None, None), fn=None, aten=None,
           inplace="default", supports_out=True, tolerances=None, xfails=(), error_inputs=None,
           reference_inputs=None, dtypes_cuda=None, **sample_kwargs):
    return OpInfo(name=name, op=fn or _torch_fn(name), aten=aten or (default_aten,), sample_inputs=sample_inputs,
                  error_inputs=error_inputs, reference_inputs=reference_inputs, dtypes=frozenset(dtypes),
                  dtypes_cuda=dtypes_cuda, domain=domain,
                  inplace=_inplace_of(name) if inplace == "default" else inplace, supports_out=supports_out,
                  tolerances=tolerances or {}, xfails=tuple(xfails), family=family, sample_kwargs=sample_kwargs)


def _unary(name, *, dtypes=ALL, sample_inputs=None, **kw):
    return _entry(name, "elementwise_unary", _aten_name(name), sample_inputs or sample_inputs_elementwise_unary,
                  dtypes=dtypes, **kw)


def _binary(name, *, dtypes=ALL, sample_inputs=None, error_inputs=error_inputs_elementwise_binary, **kw):
    aten = _aten_name(name) + ("" if "." in name else ".Tensor")
    return _entry(name, "elementwise_binary", aten, sample_inputs or sample_inputs_elementwise_binary,
                  dtypes=dtypes, error_inputs=error_inputs, **kw)


def _without(generator, *names):
    """A shared generator minus the samples of the named edge cases (those eager rejects for
    this op, e.g. a float shift amount)."""
    def gen(op, device, dtype):
        return (s for s in generator(op, device, dtype) if not s.name.startswith(names))
    gen.__name__ = f"{generator.__name__}_without"
    return gen


# The shared binary generator's samples that mix dtypes (for ops that require one dtype).
MIXED_DTYPES = ("python number", "python int", "0-d float64 operand", "mixed with float64", "int with float32")


def _extremal_values(op, dtype):
    info = torch.finfo(dtype)
    values = [info.max / 2, -info.max / 2, info.tiny, -info.tiny, 1e-3, -1e-3, 0.0, -0.0, 1.0, -1.0, 2.5,
              float("inf"), float("-inf"), float("nan")]
    low, high = op.domain
    return [v for v in values if math.isnan(v) or ((low is None or v >= low) and (high is None or v <= high))]


def extremal_binary(op, device, dtype):
    """Every pair of extremal values (huge, tiny, signed zeros, inf, nan) within the domain."""
    if dtype not in FLOATING:
        return
    values = _extremal_values(op, dtype)
    pairs = list(itertools.product(values, repeat=2))
    a = torch.tensor([p[0] for p in pairs], device=device, dtype=dtype)
    b = torch.tensor([p[1] for p in pairs], device=device, dtype=dtype)
    yield SampleInput(a, (b,), name="extremal pairs")


def _unary_with_kwargs(*kwarg_sets):
    """The shared unary samples and their extremal ones, once per set of keyword arguments."""
    def gen(op, device, dtype):
        for kwargs in kwarg_sets:
            for s in sample_inputs_elementwise_unary(op, device, dtype):
                yield SampleInput(s.input, s.args, dict(kwargs), name=f"{s.name} {kwargs}")
    return gen


# ---- generators of ops with extra operands ---------------------------------------------------

POW_EXPONENTS = (0.5, -0.5, 2, 3, -1, -2, 0, 1, 1.7, -2.3)


def sample_inputs_pow(op, device, dtype):
    """tensor ** tensor, tensor ** scalar (every exponent eager's kernel special-cases), and
    scalar ** tensor; integer exponents stay non-negative (eager rejects negative ones)."""
    exact = dtype in EXACT
    base_kw = {"low": 0 if exact else None}
    exp_kw = {"low": 0, "high": 5} if exact else {"low": -3, "high": 3}
    for sa, sb in BINARY_SHAPE_PAIRS:
        yield SampleInput(make(sa, device, dtype, **base_kw), (make(sb, device, dtype, **exp_kw),),
                          name=f"tensor ** tensor {sa} {sb}")
    for name, a in layouts((2, 3, 4, 5), device, dtype, **base_kw):
        yield SampleInput(a, (2,), name=f"tensor ** 2 {name}")
    exponents = [e for e in POW_EXPONENTS if not exact or (isinstance(e, int) and e >= 0)]
    base = (torch.tensor(_extremal_values(op, dtype), device=device, dtype=dtype) if dtype in FLOATING
            else make((4, 5), device, dtype, **base_kw))
    for e in exponents:
        yield SampleInput(base, (e,), name=f"tensor ** {e}")
    if dtype != torch.bool:
        yield SampleInput(base, (1.5,), name="python float exponent")
        yield SampleInput(2, (make((4, 5), device, dtype, **exp_kw),), name="python int ** tensor")
        yield SampleInput(1.5, (make((4, 5), device, dtype, **exp_kw),), name="python float ** tensor")
        yield SampleInput(make((3, 4), device, dtype, **base_kw), (make((), device, torch.float64, low=-2, high=2),),
                          name="0-d float64 exponent")
    if dtype in FLOATING and dtype != torch.float64:
        yield SampleInput(make((3, 4), device, dtype), (make((3, 4), device, torch.float64, low=-2, high=2),),
                          name="mixed with float64")


def error_inputs_pow(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.int64), (-2,), name="int ** negative int"),
                     RuntimeError, "Integers to negative integer powers are not allowed")


def sample_inputs_where(op, device, dtype):
    """where on tensors: broadcasting among all three, layouts, mixed dtypes."""
    cond = functools.partial(make, device=device, dtype=torch.bool)
    for sa, sb in BINARY_SHAPE_PAIRS:
        yield SampleInput(cond(sa), (make(sa, device, dtype), make(sb, device, dtype)), name=f"broadcast {sa} {sb}")
    yield SampleInput(cond((4, 1)), (make((1, 5), device, dtype), make((5,), device, dtype)), name="all broadcast")
    for name, a in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(cond((2, 3, 4, 5)), (a, make((2, 3, 4, 5), device, dtype)), name=f"x {name}")
        yield SampleInput(cond((2, 3, 4, 5)).transpose(0, 2), (a.transpose(0, 2), a.transpose(0, 2)),
                          name=f"condition transposed, x {name}")
    if dtype != torch.bool:
        yield SampleInput(cond((3, 4)), (make((3, 4), device, dtype), make((), device, torch.float64)),
                          name="0-d float64 other")
    yield SampleInput(cond((3, 4)), (make((3, 4), device, dtype), make((3, 4), device, torch.float64)),
                      name="mixed with float64")


def sample_inputs_where_scalar(op, device, dtype):
    """where with Python numbers for either or both operands (eager's out= takes tensors only)."""
    cond = functools.partial(make, device=device, dtype=torch.bool)
    number = {torch.bool: True}.get(dtype, 3 if dtype in INTEGRAL else 0.75)
    yield SampleInput(cond((3, 4)), (make((3, 4), device, dtype), number), name="python number other")
    yield SampleInput(cond((3, 4)), (number, make((3, 4), device, dtype)), name="python number self")
    yield SampleInput(cond((2, 3)).t(), (make((3, 2), device, dtype), number), name="transposed condition")
    yield SampleInput(cond((3, 4)), (2.5, -1), name="python numbers, int and float")
    yield SampleInput(cond((3, 4)), (number, number), name="python numbers")


def error_inputs_where(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (x, x), name="float condition"), RuntimeError,
                     "where expected condition to be a boolean tensor")
    yield ErrorInput(SampleInput(make((3,), device, torch.bool), (x, make((4,), device, torch.float32)),
                                 name="shapes do not broadcast"), RuntimeError, "must match the size")


def _bound(dtype, value):
    return int(value) if dtype in INTEGRAL else value


def sample_inputs_clamp_scalar(op, device, dtype):
    """clamp with Python bounds: both, min only, max only, min > max, nan bounds."""
    for shape in ((), (0,), (7,), (4, 5), (2, 3, 4, 5)):
        for name, x in layouts(shape, device, dtype):
            yield SampleInput(x, kwargs={"min": _bound(dtype, -2.5), "max": _bound(dtype, 3.5)},
                              name=f"both {name} {shape}")
    x = make((4, 5), device, dtype)
    yield SampleInput(x, kwargs={"min": _bound(dtype, -1.5)}, name="min only")
    yield SampleInput(x, kwargs={"max": _bound(dtype, 1.5)}, name="max only")
    yield SampleInput(x, kwargs={"min": _bound(dtype, 3), "max": _bound(dtype, -3)}, name="min > max")
    if dtype in INTEGRAL:
        yield SampleInput(x, kwargs={"min": 0.5, "max": 4.25}, name="float bounds on int")
    if dtype in FLOATING:
        ext = torch.tensor(_extremal_values(op, dtype), device=device, dtype=dtype)
        yield SampleInput(ext, kwargs={"min": -1.0, "max": 1.0}, name="extremal")
        yield SampleInput(x, kwargs={"min": float("nan")}, name="nan min")
        if dtype in FLOAT32_64:
            yield SampleInput(x, kwargs={"min": -1e30, "max": 1e30}, name="bounds beyond float16's range")


def sample_inputs_clamp_tensor(op, device, dtype):
    """clamp with tensor bounds, broadcast against the input (and the input against them)."""
    for sx, sb in (((4, 5), (4, 5)), ((4, 5), (5,)), ((4, 5), ()), ((4, 1), (1, 5)), ((0,), (0,))):
        yield SampleInput(make(sx, device, dtype), kwargs={"min": make(sb, device, dtype, high=0),
                                                           "max": make(sb, device, dtype, low=0)},
                          name=f"both {sx} {sb}")
    x = make((4, 5), device, dtype)
    yield SampleInput(x, kwargs={"min": make((4, 5), device, dtype)}, name="min only")
    yield SampleInput(x, kwargs={"max": make((5,), device, dtype)}, name="max only")
    yield SampleInput(x, kwargs={"min": make((4, 5), device, dtype, low=1), "max": make((4, 5), device, dtype, high=-1)},
                      name="min > max")
    yield SampleInput(make((5, 4), device, dtype).t(), kwargs={"min": make((4, 5), device, dtype, high=0)},
                      name="transposed input")
    yield SampleInput(x, kwargs={"min": make((), device, torch.float64, high=0)}, name="0-d float64 min")
    if dtype in FLOATING:
        bounds = torch.tensor([float("nan"), -1.0, 0.0, 1.0, float("inf")], device=device, dtype=dtype)
        yield SampleInput(make((4, 5), device, dtype), kwargs={"min": bounds[:, None].expand(5, 5)[:4]},
                          name="nan and inf bounds")


def _clamp_one_sided(bound):
    """clamp_min / clamp_max: a Python or a tensor bound."""
    def gen(op, device, dtype):
        for name, x in layouts((2, 3, 4, 5), device, dtype):
            yield SampleInput(x, (_bound(dtype, 0.5),), name=f"python bound {name}")
        x = make((4, 5), device, dtype)
        yield SampleInput(x, (make((4, 5), device, dtype),), name="tensor bound")
        yield SampleInput(x, (make((5,), device, dtype),), name="broadcast tensor bound")
        yield SampleInput(make((), device, dtype), (make((), device, dtype),), name="0-d")
        if dtype in FLOATING:
            ext = torch.tensor(_extremal_values(op, dtype), device=device, dtype=dtype)
            yield SampleInput(ext, (0.0,), name="extremal")
            yield SampleInput(x, (float("nan"),), name="nan bound")
    gen.__name__ = f"sample_inputs_clamp_{bound}"
    return gen


def error_inputs_clamp(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), name="no bounds"), RuntimeError,
                     "At least one of 'min' or 'max' must not be None")
    yield ErrorInput(SampleInput(make((3,), device, torch.float16), kwargs={"max": 1e30}, name="bound beyond float16"),
                     RuntimeError, "value cannot be converted to type c10::Half without overflow")


LERP_WEIGHTS = (0.3, 0.7, 0.0, 1.0, -0.5, 1.5)


def sample_inputs_lerp(op, device, dtype):
    """lerp with Python weights on both sides of 0.5 (eager's two formulas) and tensor weights."""
    for w in LERP_WEIGHTS:
        yield SampleInput(make((4, 5), device, dtype), (make((4, 5), device, dtype), w), name=f"weight {w}")
    for name, a in layouts((2, 3, 4, 5), device, dtype):
        yield SampleInput(a, (make((2, 3, 4, 5), device, dtype), 0.25), name=f"start {name}")
    for sa, sb in BINARY_SHAPE_PAIRS:
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype), make(sb, device, dtype, low=-1, high=2)),
                          name=f"tensor weight {sa} {sb}")
    yield SampleInput(make((4, 1), device, dtype), (make((1, 5), device, dtype), make((4, 5), device, dtype)),
                      name="weight sets the shape")
    yield SampleInput(make((4, 5), device, dtype), (make((4, 5), device, dtype), make((), device, torch.float64)),
                      name="0-d float64 weight")
    ext = torch.tensor(_extremal_values(op, dtype), device=device, dtype=dtype)
    yield SampleInput(ext, (ext.flip(0), 0.5), name="extremal")


def error_inputs_lerp(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (make((3,), device, torch.float64), 0.5), name="end of another dtype"),
                     RuntimeError, "expected dtype float for `end` but got dtype double")
    yield ErrorInput(SampleInput(x, (x, make((3,), device, torch.float64)), name="weight of another dtype"),
                     RuntimeError, "expected dtype float for `weight` but got dtype double")


def _sample_inputs_addc(divides):
    """addcmul / addcdiv: three broadcast operands, the value keyword, mixed dtypes."""
    def gen(op, device, dtype):
        kw = {"exclude_zero": True} if divides else {}
        shapes = (((4, 5), (4, 5), (4, 5)), ((4, 5), (5,), (4, 1)), ((), (3,), ()), ((1, 5), (4, 1), (5,)),
                  ((0,), (0,), (0,)))
        for sa, s1, s2 in shapes:
            yield SampleInput(make(sa, device, dtype), (make(s1, device, dtype), make(s2, device, dtype, **kw)),
                              name=f"broadcast {sa} {s1} {s2}")
        for name, a in layouts((2, 3, 4, 5), device, dtype):
            yield SampleInput(a, (a, make((2, 3, 4, 5), device, dtype, **kw)), name=f"{name}")
        value = 3 if dtype in INTEGRAL else 0.3
        x = make((4, 5), device, dtype)
        yield SampleInput(x, (make((4, 5), device, dtype), make((4, 5), device, dtype, **kw)), {"value": value},
                          name="value")
        if dtype in FLOATING and dtype != torch.float64:
            yield SampleInput(x, (make((4, 5), device, torch.float64), make((4, 5), device, dtype, **kw)),
                              {"value": value}, name="mixed with float64")
        if dtype in FLOATING and not divides:
            yield SampleInput(x, (make((4, 5), device, torch.int64), make((4, 5), device, torch.int64)),
                              name="integer tensors")
        if dtype in INTEGRAL and not divides:
            yield SampleInput(x, (x, x), {"value": 2.5}, name="float value on int (eager truncates it)")
    gen.__name__ = "sample_inputs_addcdiv" if divides else "sample_inputs_addcmul"
    return gen


def error_inputs_addcdiv(op, device):
    i = make((3,), device, torch.int64, exclude_zero=True)
    yield ErrorInput(SampleInput(i, (i, i), name="integer division"), RuntimeError,
                     "Integer division with addcdiv is no longer supported")


def sample_inputs_heaviside(op, device, dtype):
    yield from _without(sample_inputs_elementwise_binary, *MIXED_DTYPES)(op, device, dtype)
    x = make((4, 5), device, dtype)
    zeros = torch.zeros((4, 5), device=device, dtype=dtype)
    yield SampleInput(torch.where(make((4, 5), device, torch.bool), x, zeros), (x,), name="zeros take values")
    yield SampleInput(x, (make((), device, dtype),), name="0-d values")
    yield from extremal_binary(op, device, dtype)


def error_inputs_heaviside(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (make((3,), device, torch.float64),),
                                 name="values of another dtype"), RuntimeError, "different dtypes")


def sample_inputs_xlogy(op, device, dtype):
    yield from sample_inputs_elementwise_binary(op, device, dtype)
    if dtype in FLOATING:
        x = torch.tensor([0.0, 0.0, 0.0, 0.0, 1.0, 2.0, -1.0], device=device, dtype=dtype)
        y = torch.tensor([0.0, float("nan"), float("inf"), -1.0, 0.0, -1.0, float("nan")], device=device, dtype=dtype)
        yield SampleInput(x, (y,), name="zeros of x against log's poles and nan")
        yield SampleInput(1.5, (make((3, 4), device, dtype),), name="python number self")
    yield from extremal_binary(op, device, dtype)


def sample_inputs_logit(op, device, dtype):
    """logit without eps (its own domain) and with eps clamping values at and beyond 0 and 1."""
    yield from sample_inputs_elementwise_unary(op, device, dtype)
    if dtype in FLOATING:
        edges = torch.tensor([0.0, 1e-8, 1e-3, 0.5, 1 - 1e-3, 1.0, -0.5, 1.5, float("nan")], device=device,
                             dtype=dtype)
        for eps in (1e-6, 0.25, 0.0, -1.0):
            yield SampleInput(edges, kwargs={"eps": eps}, name=f"eps {eps}")
    for name, x in layouts((4, 5), device, dtype, low=0, high=1):
        yield SampleInput(x, kwargs={"eps": 0.1}, name=f"eps 0.1 {name}")


def _with_int_arg(arg_name, values):
    """Unary samples once per value of an integer argument (mvlgamma's p, polygamma's n)."""
    def gen(op, device, dtype):
        for value in values:
            for s in sample_inputs_elementwise_unary(op, device, dtype):
                yield SampleInput(s.input, (value,), name=f"{s.name} {arg_name}={value}")
    gen.__name__ = f"sample_inputs_with_{arg_name}"
    return gen


def error_inputs_mvlgamma(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32, low=2), (0,), name="p < 1"), RuntimeError,
                     "p has to be greater than or equal to 1")
    yield ErrorInput(SampleInput(make((3,), device, torch.bool), (2,), name="bool input"), RuntimeError,
                     "The input tensor may not be a boolean tensor")


def _polygamma(x, n, **kwargs):
    """torch.polygamma with the tensor first, as the sample generators and polygamma_ take it."""
    return torch.polygamma(n, x, **kwargs)


def sample_inputs_nan_to_num(op, device, dtype):
    for kwargs in ({}, {"nan": 1.5, "posinf": 100.0, "neginf": -100.0}, {"posinf": 1e30}, {"nan": None}):
        for s in sample_inputs_elementwise_unary(op, device, dtype):
            yield SampleInput(s.input, kwargs=kwargs, name=f"{s.name} {kwargs}")


def sample_inputs_logaddexp(op, device, dtype):
    yield from sample_inputs_elementwise_binary(op, device, dtype)
    big = torch.finfo(dtype).max / 2
    a = torch.tensor([big, -big, big, 1e3, -1e3], device=device, dtype=dtype)
    yield SampleInput(a, (a.flip(0),), name="huge magnitudes")


def _integer_operands_only(op, device, dtype):
    """Bitwise ops and shifts: eager has no floating kernel, so no float operand joins."""
    return _without(sample_inputs_elementwise_binary, "int with float32", "0-d float64 operand")(op, device, dtype)


def _bool_ignores_domain(generator):
    """A generator whose bool samples skip the domain (make_tensor has no range for bool)."""
    def gen(op, device, dtype):
        if dtype == torch.bool:
            op = dataclasses.replace(op, domain=(None, None))
        return generator(op, device, dtype)
    gen.__name__ = generator.__name__
    return gen


def error_inputs_div(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (x,), {"rounding_mode": "ceil"}, name="bad rounding mode"), RuntimeError,
                     "div expected rounding_mode to be one of None, 'trunc', or 'floor'")


def error_inputs_sub(op, device):
    b = make((3,), device, torch.bool)
    yield ErrorInput(SampleInput(b, (b,), name="bool operands"), RuntimeError,
                     "Subtraction, the `-` operator, with two bool tensors is not supported")
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (b,), name="a bool operand"), RuntimeError,
                     "Subtraction, the `-` operator, with a bool tensor is not supported")


# Integer and bool inputs of composite float ops compute in float32, where eager's scalar
# kernel calls std::log and the log prim runs torch's vectorized log: an ulp apart.
EXACT_IN_FLOAT32 = {torch.int64: DEFAULT_TOLERANCES[torch.float32], torch.bool: DEFAULT_TOLERANCES[torch.float32]}

NO_NEXTAFTER_HALF = XFail("values", "nextafter has no float16/bfloat16 prim and cannot be computed in float32 "
                          "(the next float32 is not the next half)", dtypes=HALF,
                          raises=PrimConstraintError)

ENTRIES = [
    # ---- unary math: prims, eager's promotion (integers and bool compute in float) -------------
    _unary("abs", dtypes=NO_BOOL),
    _unary("neg", dtypes=NO_BOOL),
    _unary("reciprocal"),
    _unary("exp"),
    _unary("exp2"),
    _unary("expm1"),
    _unary("log", domain=(0, None)),
    _unary("log2", domain=(0, None)),
    _unary("log10", domain=(0, None)),
    _unary("log1p", domain=(-1, None)),
    _unary("sqrt", domain=(0, None)),
    _unary("rsqrt", domain=(0, None)),
    _unary("sin"),
    _unary("cos"),
    _unary("tan"),
    _unary("asin", domain=(-1, 1)),
    _unary("acos", domain=(-1, 1)),
    _unary("atan"),
    _unary("sinh"),
    _unary("cosh"),
    _unary("tanh"),
    _unary("asinh"),
    _unary("acosh", domain=(1, None)),
    _unary("atanh", domain=(-1, 1)),
    _unary("sigmoid"),
    _unary("erf"),
    _unary("erfc"),
    _unary("erfinv", domain=(-1, 1)),
    _unary("lgamma"),
    _unary("digamma"),
    _unary("i0"),
    # eager's scalar and vectorized float16 i0e paths differ by an ulp (0.002 near 1) between layouts
    _unary("special.i0e", tolerances={torch.float16: (2e-3, 3e-3)}),
    _unary("special.i1"),
    _unary("special.i1e"),
    _unary("special.ndtri", dtypes=SPECIAL_32_64, domain=(0, 1)),
    _unary("special.log_ndtr", dtypes=SPECIAL_32_64),
    _unary("special.erfcx", dtypes=SPECIAL_32_64),
    _unary("special.entr", aten=("aten::special_entr",), tolerances=EXACT_IN_FLOAT32),
    _unary("sinc"),
    _unary("logit", sample_inputs=sample_inputs_logit, domain=(0, 1)),
    _unary("deg2rad"),
    _unary("rad2deg"),
    _unary("angle", dtypes=ALL | COMPLEX,
           xfails=(XFail("strides", "eager allocates complex angle's output empty and resizes it (contiguous); the "
                                    "atan2 prim keeps the input's layout and a contiguous copy (empty_strided + "
                                    "copy_to) is lost in traces today", dtypes=COMPLEX, raises=AssertionError),)),
    _unary("conj_physical", dtypes=COMPLEX, aten=("aten::_conj_physical",)),
    _unary("square", aten=("aten::pow.Tensor_Scalar",)),
    _unary("mvlgamma", dtypes=NO_BOOL, sample_inputs=_with_int_arg("p", (1, 2, 3)), domain=(1.5, None),
           error_inputs=error_inputs_mvlgamma),
    _unary("polygamma", fn=_polygamma, inplace=torch.Tensor.polygamma_, aten=("aten::polygamma",),
           sample_inputs=_with_int_arg("n", (0, 1, 2, 3)), domain=(0.5, None),
           # n! zeta(n + 1, x) grows fast near 0: float32's relative error shows in atol at 1e-5
           tolerances={torch.float32: (1e-4, 1e-5)}),
    # ---- rounding, sign, classification -------------------------------------------------------
    _unary("ceil", dtypes=NUMERIC),
    _unary("floor", dtypes=NUMERIC),
    _unary("trunc", dtypes=NUMERIC),
    _unary("round", dtypes=NUMERIC),
    _unary("round.decimals_2", fn=functools.partial(torch.round, decimals=2), dtypes=FLOATING,
           inplace=functools.partial(torch.Tensor.round_, decimals=2), aten=("aten::round.decimals",)),
    _unary("round.decimals_neg1", fn=functools.partial(torch.round, decimals=-1), dtypes=FLOATING,
           inplace=functools.partial(torch.Tensor.round_, decimals=-1), aten=("aten::round.decimals",)),
    _unary("frac", dtypes=FLOATING),
    _unary("sign"),
    _unary("sgn", dtypes=ALL | COMPLEX),
    _unary("signbit"),
    _unary("isnan", dtypes=ALL | COMPLEX, supports_out=False),
    _unary("isinf", dtypes=ALL | COMPLEX, supports_out=False),
    # complex isfinite is CompositeImplicit in eager and reaches the tracer as view_as_real (not an
    # elementwise op); integer isfinite reaches it as ones_like
    _unary("isfinite", supports_out=False),
    _unary("isposinf"),
    _unary("isneginf"),
    _unary("nan_to_num", sample_inputs=sample_inputs_nan_to_num),
    _unary("logical_not"),
    _unary("bitwise_not", dtypes=EXACT),
    # ---- arithmetic ---------------------------------------------------------------------------
    _binary("add"),
    _binary("mul"),
    _binary("sub", dtypes=NO_BOOL, error_inputs=error_inputs_sub),
    _binary("rsub", dtypes=NO_BOOL, supports_out=False, inplace=None),
    _binary("div", dtypes=NO_BOOL, rhs_exclude_zero=True, reference_inputs=extremal_binary),
    _binary("div.trunc", fn=functools.partial(torch.div, rounding_mode="trunc"), dtypes=NO_BOOL,
            inplace=functools.partial(torch.Tensor.div_, rounding_mode="trunc"), aten=("aten::div.Tensor_mode",),
            error_inputs=error_inputs_div, rhs_exclude_zero=True, reference_inputs=extremal_binary),
    _binary("div.floor", fn=functools.partial(torch.div, rounding_mode="floor"), dtypes=NO_BOOL,
            inplace=functools.partial(torch.Tensor.div_, rounding_mode="floor"), aten=("aten::div.Tensor_mode",),
            rhs_exclude_zero=True, reference_inputs=extremal_binary),
    _binary("floor_divide", dtypes=NO_BOOL, rhs_exclude_zero=True, aten=("aten::floor_divide",)),
    _binary("remainder", dtypes=NO_BOOL, rhs_exclude_zero=True, reference_inputs=extremal_binary),
    _binary("fmod", dtypes=NO_BOOL, rhs_exclude_zero=True, reference_inputs=extremal_binary),
    _binary("pow", dtypes=NO_BOOL, sample_inputs=sample_inputs_pow, error_inputs=error_inputs_pow,
            aten=("aten::pow.Tensor_Tensor", "aten::pow.Tensor_Scalar", "aten::pow.Scalar")),
    _binary("float_power", sample_inputs=sample_inputs_pow, error_inputs=None,
            aten=("aten::float_power.Tensor_Tensor", "aten::float_power.Tensor_Scalar", "aten::float_power.Scalar")),
    _binary("ldexp", python_scalars=False),
    _binary("addcmul", sample_inputs=_sample_inputs_addc(False), dtypes=NO_BOOL, error_inputs=None,
            aten=("aten::addcmul",)),
    _binary("addcdiv", sample_inputs=_sample_inputs_addc(True), dtypes=FLOATING, error_inputs=error_inputs_addcdiv,
            aten=("aten::addcdiv",)),
    _binary("lerp", sample_inputs=sample_inputs_lerp, dtypes=FLOATING, error_inputs=error_inputs_lerp,
            aten=("aten::lerp.Scalar", "aten::lerp.Tensor")),
    # ---- two-operand math ---------------------------------------------------------------------
    _binary("atan2", python_scalars=False, reference_inputs=extremal_binary),
    _binary("hypot", dtypes=FLOATING, python_scalars=False, aten=("aten::hypot",), reference_inputs=extremal_binary),
    _binary("copysign", reference_inputs=extremal_binary),
    _binary("nextafter", dtypes=FLOATING, python_scalars=False, aten=("aten::nextafter",),
            xfails=(NO_NEXTAFTER_HALF, XFail("strides", NO_NEXTAFTER_HALF.reason, dtypes=HALF, raises=PrimConstraintError),
                    XFail("inplace", NO_NEXTAFTER_HALF.reason, dtypes=HALF, raises=PrimConstraintError))),
    _binary("special.gammainc", dtypes=FLOATING, python_scalars=False, domain=(0, None), inplace=None,
            aten=("aten::igamma",)),
    _binary("special.gammaincc", dtypes=FLOATING, python_scalars=False, domain=(0, None), inplace=None,
            aten=("aten::igammac",)),
    _binary("special.zeta", dtypes=SPECIAL_32_64, domain=(1.5, None), aten=("aten::special_zeta",),
            sample_inputs=_bool_ignores_domain(sample_inputs_elementwise_binary)),
    _binary("xlogy", sample_inputs=sample_inputs_xlogy, tolerances=EXACT_IN_FLOAT32),
    _binary("special.xlog1py", sample_inputs=sample_inputs_xlogy, aten=("aten::special_xlog1py",),
            tolerances=EXACT_IN_FLOAT32),
    _binary("logaddexp", dtypes=FLOATING, python_scalars=False, sample_inputs=sample_inputs_logaddexp,
            aten=("aten::logaddexp",), reference_inputs=extremal_binary),
    _binary("logaddexp2", dtypes=FLOATING, python_scalars=False, sample_inputs=sample_inputs_logaddexp,
            aten=("aten::logaddexp2",), reference_inputs=extremal_binary),
    _binary("heaviside", sample_inputs=sample_inputs_heaviside, error_inputs=error_inputs_heaviside,
            aten=("aten::heaviside",)),
    _binary("maximum", python_scalars=False, aten=("aten::maximum",), reference_inputs=extremal_binary),
    _binary("minimum", python_scalars=False, aten=("aten::minimum",), reference_inputs=extremal_binary),
    _binary("fmax", python_scalars=False, aten=("aten::fmax",), reference_inputs=extremal_binary),
    _binary("fmin", python_scalars=False, aten=("aten::fmin",), reference_inputs=extremal_binary),
    # ---- comparisons and logic ----------------------------------------------------------------
    _binary("eq", reference_inputs=extremal_binary),
    _binary("ne", reference_inputs=extremal_binary),
    _binary("lt", reference_inputs=extremal_binary),
    _binary("le", reference_inputs=extremal_binary),
    _binary("gt", reference_inputs=extremal_binary),
    _binary("ge", reference_inputs=extremal_binary),
    _binary("logical_and", python_scalars=False, aten=("aten::logical_and",)),
    _binary("logical_or", python_scalars=False, aten=("aten::logical_or",)),
    _binary("logical_xor", python_scalars=False, aten=("aten::logical_xor",)),
    # ---- bitwise (integers and bool) ----------------------------------------------------------
    _binary("bitwise_and", dtypes=EXACT, sample_inputs=_integer_operands_only),
    _binary("bitwise_or", dtypes=EXACT, sample_inputs=_integer_operands_only),
    _binary("bitwise_xor", dtypes=EXACT, sample_inputs=_integer_operands_only),
    _binary("bitwise_left_shift", dtypes=INTEGRAL, sample_inputs=_integer_operands_only),
    _binary("bitwise_right_shift", dtypes=INTEGRAL, sample_inputs=_integer_operands_only),
    _binary("__lshift__", fn=operator.lshift, inplace=operator.ilshift, supports_out=False, dtypes=INTEGRAL,
            sample_inputs=_integer_operands_only),
    _binary("__rshift__", fn=operator.rshift, inplace=operator.irshift, supports_out=False, dtypes=INTEGRAL,
            sample_inputs=_integer_operands_only),
    _binary("__and__", fn=operator.and_, inplace=operator.iand, supports_out=False, dtypes=EXACT,
            sample_inputs=_integer_operands_only),
    _binary("__or__", fn=operator.or_, inplace=operator.ior, supports_out=False, dtypes=EXACT,
            sample_inputs=_integer_operands_only),
    _binary("__xor__", fn=operator.xor, inplace=operator.ixor, supports_out=False, dtypes=EXACT,
            sample_inputs=_integer_operands_only),
    # ---- selection ----------------------------------------------------------------------------
    _entry("where", "elementwise_ternary", "aten::where.self", sample_inputs_where, dtypes=ALL,
           error_inputs=error_inputs_where, inplace=None),
    _entry("where.scalar", "elementwise_ternary", "aten::where.self", sample_inputs_where_scalar, dtypes=ALL,
           fn=torch.where, inplace=None, supports_out=False),
    _entry("clamp", "elementwise_ternary", "aten::clamp", sample_inputs_clamp_scalar, dtypes=NUMERIC,
           error_inputs=error_inputs_clamp),
    _entry("clamp.Tensor", "elementwise_ternary", "aten::clamp.Tensor", sample_inputs_clamp_tensor, dtypes=NUMERIC,
           fn=torch.clamp, inplace=torch.Tensor.clamp_),
    _entry("clamp_min", "elementwise_binary", "aten::clamp_min", _clamp_one_sided("min"), dtypes=NUMERIC),
    _entry("clamp_max", "elementwise_binary", "aten::clamp_max", _clamp_one_sided("max"), dtypes=NUMERIC),
]


NAN = float("nan")
NUMERIC_NO_BOOL = ALL - {torch.bool}
_aten_entry = functools.partial(aten_entry, family="elementwise")
_table_entry = functools.partial(table_entry, family="elementwise")


def _isclose_samples(op, device, dtype):
    for a_shape, b_shape in (((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((0, 3), (3,))):
        for name, a in layouts(a_shape, device, dtype):
            b = make(b_shape, device, dtype)
            yield SampleInput(a, (b,), name=f"{a_shape} {b_shape} {name}")
            yield SampleInput(a, (a.clone(),), name=f"{a_shape} itself {name}")
    a = make((20,), device, dtype)
    b = a.clone()
    if dtype.is_floating_point or dtype.is_complex:
        b = a + (a.abs() * torch.logspace(-8, -1, 20, device=device).to(dtype))
    for kw in ({}, {"rtol": 0.0, "atol": 0.0}, {"rtol": 1e-3}, {"atol": 0.5}, {"rtol": 0.1, "atol": 0.0}):
        yield SampleInput(a, (b,), kw, name=f"near {kw}")
    if dtype.is_floating_point or dtype.is_complex:
        inf = float("inf")
        x = torch.tensor([NAN, NAN, inf, inf, -inf, 1.0, 0.0], device=device, dtype=dtype)
        y = torch.tensor([NAN, 1.0, inf, -inf, -inf, inf, -0.0], device=device, dtype=dtype)
        if dtype.is_complex:
            x, y = x * (1 + 1j), torch.complex(y.real, torch.tensor([NAN, 0, 0, 0, 0, 0, 0], device=device))
        for equal_nan in (False, True):
            yield SampleInput(x, (y,), {"equal_nan": equal_nan}, name=f"nan, inf equal_nan={equal_nan}")


def _isclose_errors(op, device):
    a = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (a.double(),)), RuntimeError, "did not match")
    yield ErrorInput(SampleInput(a, (a,), {"rtol": -1.0}), RuntimeError, "rtol must be greater than or equal to zero")
    yield ErrorInput(SampleInput(a, (a,), {"atol": -1.0}), RuntimeError, "atol must be greater than or equal to zero")


ENTRIES += [
    _aten_entry("isclose", torch.isclose, ("aten::isclose",), _isclose_samples, _isclose_errors, dtypes=ALL | COMPLEX,
                supports_autograd=False),
]


def _integer_pairs(op, device, dtype):
    for sa, sb in (((), ()), ((5,), ()), ((4, 5), (4, 5)), ((4, 1), (1, 5)), ((0,), (0,))):
        yield SampleInput(make(sa, device, dtype, low=-20, high=20), (make(sb, device, dtype, low=-20, high=20),),
                          name=f"{sa} {sb}")
    t = make((4, 5), device, dtype, low=-20, high=20).t()
    yield SampleInput(t, (torch.tensor([0, 7, -6, 12], device=device, dtype=dtype),), name="transposed, zero")


def _frexp_errors(op, device):
    x = make((3,), device, torch.int64)
    yield ErrorInput(SampleInput(x, name="integer input"), RuntimeError, "only supports floating-point dtypes")


INT64 = frozenset({torch.int64})


ENTRIES += [
    dataclasses.replace(_table_entry("square", ALIAS, out=True, dtypes=NUMERIC_NO_BOOL),
                         name="square.table", inplace=through_table("square_")),
    dataclasses.replace(_table_entry("gcd", _integer_pairs, out=True, dtypes=INT64), inplace=through_table("gcd_")),
    dataclasses.replace(_table_entry("lcm", _integer_pairs, out=True, dtypes=INT64), inplace=through_table("lcm_")),
    _table_entry("frexp", cases(((), ()), ((4, 5), ()), ((0, 3), ()), ((7,), ())), dtypes=FLOATING,
                 errs=_frexp_errors),
    _table_entry("isreal", cases(((), ()), ((4, 5), ()), ((0, 3), ())), dtypes=ALL | COMPLEX),
]
