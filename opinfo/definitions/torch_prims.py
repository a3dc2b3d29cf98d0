"""OpInfo entries: PyTorch's own prims (``torch.ops.prims``) called by a program
(decompositions/torch_prims.py), compared with eager's kernels for them.

torch's prims take operands of one dtype and shape, so samples are float32 (int64 for the bitwise
ops, complex64 for the complex ones) in several layouts, with a Python number where the prim takes
one. Autograd is not checked: eager differentiates few of torch's prims.
"""
from __future__ import annotations

import torch

from primkit.decompositions.torch_prims import BINARY, UNARY
from primkit.opinfo.core import OpInfo, SampleInput
from primkit.opinfo.samples import layouts, make

prims = torch.ops.prims

F32 = frozenset({torch.float32})
I64 = frozenset({torch.int64})
C64 = frozenset({torch.complex64})

INTEGER_OPS = {"bitwise_not", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "shift_left",
               "shift_right_arithmetic"}
COMPLEX_OPS = {"conj_physical"}
# the binary prims whose eager kernel takes a Python number as second operand
TAKE_NUMBERS = {"add", "sub", "mul", "div", "eq", "ne", "ge", "gt", "le", "lt", "pow", "remainder", "fmod"}
# (low, high) of the samples where the op's domain is narrower than [-5, 5]
DOMAINS = {"acosh": (1.1, 5), "acos": (-0.95, 0.95), "asin": (-0.95, 0.95), "atanh": (-0.95, 0.95),
           "erf_inv": (-0.95, 0.95), "ndtri": (0.05, 0.95), "igamma": (0.1, 5), "igammac": (0.1, 5),
           "zeta": (1.1, 5), "log": (0.1, 5), "log10": (0.1, 5), "log2": (0.1, 5), "log1p": (-0.9, 5),
           "sqrt": (0.1, 5), "rsqrt": (0.1, 5), "lgamma": (0.1, 5), "digamma": (0.1, 5), "pow": (0.1, 3),
           "shift_left": (0, 8), "shift_right_arithmetic": (0, 8), "gcd": (-20, 20)}


def _dtypes(name):
    return I64 if name in INTEGER_OPS else C64 if name in COMPLEX_OPS else F32


def _unary_samples(op, device, dtype):
    low, high = op.domain
    for shape in ((), (0,), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype, low=low, high=high):
            yield SampleInput(t, name=f"{name} {shape}")


def _binary_samples(op, device, dtype):
    low, high = op.domain
    for shape in ((), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype, low=low, high=high):
            yield SampleInput(t, (make(shape, device, dtype, low=low, high=high),), name=f"{name} {shape}")
    if op.name[len("prims."):] in TAKE_NUMBERS and dtype == torch.float32:
        yield SampleInput(make((4, 5), device, dtype, low=low, high=high), (1.5,), name="python number")


def _entry(name, samples, dtypes, domain=(None, None), op=None):
    return OpInfo(name=f"prims.{name}", op=op or getattr(prims, name).default, aten=(f"prims::{name}",),
                  sample_inputs=samples, dtypes=dtypes, domain=domain, family="torch_prims",
                  supports_autograd=False)


def _fixed(*rows):
    """Samples from rows (name, make_args(device, dtype) -> (input, args, kwargs))."""
    def gen(op, device, dtype):
        for name, build in rows:
            input_, args, kwargs = build(device, dtype)
            yield SampleInput(input_, args, kwargs, name=name)
    return gen


def _t(*shape, low=-5, high=5, noncontiguous=False):
    return lambda d, dt: make(shape, d, dt, low=low, high=high, noncontiguous=noncontiguous)


def _reduction_samples(op, device, dtype):
    """[]: every dim for sum, amax and amin (eager's kernels are torch's), none for prod; amax and amin
    of an empty dim are eager's IndexError."""
    empty = () if op.name in ("prims.amax", "prims.amin") else (((0, 3), [0]),)
    for shape, dims in (((4, 5), [1]), ((4, 5), [0, 1]), ((2, 3, 4), [0, 2]), *empty, ((3,), [])):
        for name, t in layouts(shape, device, dtype, low=-2, high=2):
            yield SampleInput(t, (dims,), name=f"{name} {shape} dims {dims}")


def _shape_rows():
    f = torch.float32
    return [
        ("broadcast_in_dim", _fixed(("(3, 4) -> (2, 3, 4)", lambda d, dt: (_t(3, 4)(d, dt), ([2, 3, 4], [1, 2]), {})),
                                    ("(3, 1) -> (3, 5)", lambda d, dt: (_t(3, 1)(d, dt), ([3, 5], [0, 1]), {})))),
        ("transpose", _fixed(("(2, 3, 4) [2, 0, 1]", lambda d, dt: (_t(2, 3, 4)(d, dt), ([2, 0, 1],), {})),
                             ("transposed input", lambda d, dt: (_t(3, 4)(d, dt).t(), ([1, 0],), {})))),
        ("squeeze", _fixed(("(3, 1, 4, 1)", lambda d, dt: (_t(3, 1, 4, 1)(d, dt), ([1, 3],), {})),)),
        ("reshape", _fixed(("(3, 4) -> (2, 6)", lambda d, dt: (_t(3, 4)(d, dt), ([2, 6],), {})),
                           ("transposed -> (12,)", lambda d, dt: (_t(3, 4)(d, dt).t(), ([12],), {})))),
        ("split_dim", _fixed(("(3, 4) dim 1 outer 2", lambda d, dt: (_t(3, 4)(d, dt), (1, 2), {})),)),
        ("collapse_view", _fixed(("(3, 2, 2) dims 0..1", lambda d, dt: (_t(3, 2, 2)(d, dt), (0, 1), {})),
                                 ("(2, 3, 4) dims 1..2", lambda d, dt: (_t(2, 3, 4)(d, dt), (1, 2), {})))),
        ("collapse", _fixed(("transposed dims 0..1", lambda d, dt: (_t(3, 4)(d, dt).t(), (0, 1), {})),
                            ("(2, 3, 4) dims 0..2", lambda d, dt: (_t(2, 3, 4)(d, dt), (0, 2), {})))),
        ("view_of", _fixed(("transposed", lambda d, dt: (_t(3, 4)(d, dt).t(), (), {})),)),
        ("view_of_dtype", _fixed(("float32 as int32", lambda d, dt: (_t(3, 4)(d, dt), (torch.int32,), {})),)),
        ("rev", _fixed(("dims [0, 2]", lambda d, dt: (_t(2, 3, 4)(d, dt), ([0, 2],), {})),)),
        ("cat", _fixed(("dim 1", lambda d, dt: ([_t(3, 4)(d, dt), _t(3, 2)(d, dt)], (1,), {})),)),
        ("where", _fixed(("tensors", lambda d, dt: (_t(3, 4)(d, dt) > 0, (_t(3, 4)(d, dt), _t(3, 4)(d, dt)), {})),
                         ("python number", lambda d, dt: (_t(3, 4)(d, dt) > 0, (_t(3, 4)(d, dt), 2.5), {})))),
        ("convert_element_type", _fixed(("transposed to float64", lambda d, dt: (_t(3, 4)(d, dt).t(), (torch.float64,),
                                                                                 {})),
                                        ("to int32", lambda d, dt: (_t(3, 4)(d, dt), (torch.int32,), {})))),
        ("clone", _fixed(("transposed", lambda d, dt: (_t(3, 4)(d, dt).t(), (), {})),
                         ("contiguous format", lambda d, dt: (_t(3, 4)(d, dt).t(), (),
                                                              {"memory_format": torch.contiguous_format})))),
        ("copy_strided", _fixed(("column-major", lambda d, dt: (_t(3, 4)(d, dt), ([1, 3],), {})),)),
        ("device_put", _fixed(("same device", lambda d, dt: (_t(3, 4)(d, dt), (d,), {})),)),
        ("frexp", _fixed(("(3, 4)", lambda d, dt: (_t(3, 4)(d, dt), (), {})),)),
        ("fill", _fixed(("transposed", lambda d, dt: (_t(3, 4)(d, dt).t(), (3.0,), {})),)),
        ("fft_r2c", _fixed(("onesided", lambda d, dt: (_t(4, 6)(d, dt), (), {"dim": [1], "onesided": True})),)),
        ("var", _fixed(("dims [1] correction 0", lambda d, dt: (_t(3, 4)(d, dt), ([1], 0.0), {})),
                       ("dims [0, 1] correction 1", lambda d, dt: (_t(3, 4)(d, dt), ([0, 1], 1.0), {})))),
        ("scalar_tensor", _fixed(("float", lambda d, dt: (2.5, (), {"dtype": f, "device": d})),)),
        ("full_like", _fixed(("transposed", lambda d, dt: (_t(3, 4)(d, dt).t(), (2.0,),
                                                           {"dtype": f, "device": d, "requires_grad": False})),)),
    ]


def _creation(name, fn, rows):
    return OpInfo(name=f"prims.{name}", op=fn, aten=(f"prims::{name}",), sample_inputs=_fixed(*rows), dtypes=F32,
                  family="torch_prims", supports_autograd=False)


def _iota(start, length, step=1, device="cpu"):
    return prims.iota(length, start=start, step=step, dtype=torch.int64, device=device, requires_grad=False)


def _full(shape, value, device="cpu"):
    return prims.full(shape, value, dtype=torch.float32, device=device, requires_grad=False)


def _clamp_to_extremes(x):
    """x clamped to its dtype's finite range, the bounds from prims.minimum_value / maximum_value."""
    return torch.clamp(x, prims.minimum_value(x.dtype), prims.maximum_value(x.dtype))


def _extremes_samples(op, device, dtype):
    yield SampleInput(make((4, 5), device, dtype), name="(4, 5)")
    if dtype == torch.float32:
        yield SampleInput(torch.tensor([float("inf"), float("-inf"), 1.0, float("nan")], device=device), name="inf")


CREATION = [
    OpInfo(name="prims.maximum_value", op=_clamp_to_extremes, aten=("prims::maximum_value", "prims::minimum_value"),
           sample_inputs=_extremes_samples, dtypes=F32 | I64, family="torch_prims", supports_autograd=False),
    _creation("iota", _iota, [("start 2 step 3", lambda d, dt: (2, (5, 3), {"device": d})),
                              ("negative step", lambda d, dt: (10, (4, -2), {"device": d}))]),
    _creation("full", _full, [("(3, 4)", lambda d, dt: ([3, 4], (2.5,), {"device": d}))]),
]

ENTRIES = (
    [_entry(name, _unary_samples, _dtypes(name), DOMAINS.get(name, (-5, 5))) for name in UNARY]
    + [_entry(name, _binary_samples, _dtypes(name), DOMAINS.get(name, (-5, 5))) for name in BINARY]
    + [_entry("div", _binary_samples, F32 | I64, (1, 5))]
    + [_entry(name, _reduction_samples, F32 | I64) for name in ("sum", "prod", "amax", "amin")]
    + [_entry(name, samples, C64 if name == "conj" else F32) for name, samples in _shape_rows()]
    + [_entry(name, _unary_samples, C64) for name in ("real", "imag", "conj")]
    + CREATION
)
