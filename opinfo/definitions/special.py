"""OpInfo entries: torch.special's orthogonal polynomials p_n(x).

Three entries per polynomial, one per way of passing the operands: x and n tensors (the default
overload), a Python x (x_scalar) and a Python n (n_scalar), each with its out= form. The scalar
entries keep to 8 samples (opinfo.harness.VARIANT_SAMPLES), so the out= test runs every one of them.

Samples walk n through the base cases (0, 1), the recurrences (small and large n), truncation
of a non-integral n and negative n (0), and x over an interval wider than the polynomial's
interval of orthogonality (where the values grow fast), plus inf and nan.
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.dtypes import BOOL, FLOAT32_64, INTEGRAL
from primkit.opinfo.samples import layouts, make

# Eager has float32 and float64 kernels only; integer and bool operands compute in float32.
DTYPES = FLOAT32_64 | INTEGRAL | BOOL

# 0 and 1: base cases; up to 6 and beyond: Chebyshev T's recurrence and its cos(n acos x) form;
# 100: a long recurrence; negative n gives 0.
N_VALUES = (0, 1, 2, 3, 6, 7, 10, 100, -1, -4)

# name -> the x range of the samples: past the interval of orthogonality on both sides.
DOMAINS = {
    "chebyshev_polynomial_t": (-2, 2), "chebyshev_polynomial_u": (-2, 2), "chebyshev_polynomial_v": (-2, 2),
    "chebyshev_polynomial_w": (-2, 2), "shifted_chebyshev_polynomial_t": (-1, 2),
    "shifted_chebyshev_polynomial_u": (-1, 2), "shifted_chebyshev_polynomial_v": (-1, 2),
    "shifted_chebyshev_polynomial_w": (-1, 2), "hermite_polynomial_h": (-4, 4), "hermite_polynomial_he": (-4, 4),
    "laguerre_polynomial_l": (-2, 10), "legendre_polynomial_p": (-2, 2),
}


def _x(op, shape, device, dtype, **kw):
    low, high = op.domain
    return make(shape, device, dtype, low=low, high=high, **kw)


def _n(values, device, dtype):
    """n as a tensor of the sample dtype (bool keeps 0 and 1: n != 0)."""
    return torch.tensor(values, device=device).to(dtype)


def sample_inputs_polynomial(op, device, dtype):
    n_row = _n(N_VALUES, device, dtype)
    k = len(N_VALUES)
    yield SampleInput(_x(op, (k,), device, dtype), (n_row,), name="n row")
    yield SampleInput(_x(op, (4, 1), device, dtype), (n_row,), name="broadcast x (4, 1) n (10,)")
    for shape in ((4, 5), (2, 3, 4, 5)):
        for name, x in layouts(shape, device, dtype, low=op.domain[0], high=op.domain[1]):
            yield SampleInput(x, (_n(7, device, dtype),), name=f"{name} {shape} 0-d n")
    yield SampleInput(_x(op, (), device, dtype), (_n(3, device, dtype),), name="0-d x and n")
    yield SampleInput(_x(op, (), device, dtype), (n_row,), name="0-d x n row")
    yield SampleInput(_x(op, (0,), device, dtype), (_n([], device, dtype),), name="empty x and n")
    yield SampleInput(_x(op, (0, 3), device, dtype), (_n([2, 5, -1], device, dtype),), name="empty x (0, 3) n (3,)")
    n_grid = _n([[N_VALUES[(i + j) % k] for j in range(4)] for i in range(5)], device, dtype)
    yield SampleInput(_x(op, (5, 4), device, dtype).t(), (n_grid.t(),), name="both transposed")
    yield SampleInput(_x(op, (4, 5), device, dtype, noncontiguous=True), (n_grid.t(),), name="n transposed")
    if dtype in FLOAT32_64:
        yield SampleInput(_x(op, (k,), device, dtype), (_n(N_VALUES, device, torch.int64),), name="int64 n")
        yield SampleInput(_x(op, (4,), device, dtype), (_n([2.5, 3.9, -0.5, 6.99], device, dtype),),
                          name="non-integral n (truncated)")
        values = [float("inf"), float("-inf"), float("nan"), 1.0, -1.0, 0.0, 0.5, 1e30, -1e30]
        extremal = torch.tensor(values, device=device, dtype=dtype)
        for n in (0, 1, 3, 8):
            yield SampleInput(extremal, (_n(n, device, dtype),), name=f"extremal x n={n}")
    if dtype == torch.float32:
        yield SampleInput(_x(op, (3, 4), device, dtype), (_n(5, device, torch.float64),), name="0-d float64 n")
        yield SampleInput(_x(op, (3, 4), device, dtype), (_n([[3] * 4] * 3, device, torch.float64),),
                          name="float64 n")


def sample_inputs_polynomial_x_scalar(op, device, dtype):
    """A Python x (x_scalar): a wrapped number in type promotion."""
    n_row = _n(N_VALUES, device, dtype)
    yield SampleInput(0.5, (n_row,), name="x 0.5")
    yield SampleInput(-1.5, (n_row,), name="x -1.5 outside [-1, 1]")
    yield SampleInput(3, (n_row,), name="python int x")
    yield SampleInput(0.25, (_n(6, device, dtype),), name="0-d n")
    yield SampleInput(0.5, (_n([], device, dtype),), name="empty n")
    n_grid = _n([[N_VALUES[(i + j) % len(N_VALUES)] for j in range(4)] for i in range(5)], device, dtype)
    yield SampleInput(1.25, (n_grid.t(),), name="transposed n")
    yield SampleInput(-0.75, (_n([[2, 7, 0]], device, dtype).expand(4, 3),), name="expanded n")
    yield SampleInput(float("nan"), (_n([0, 1, 5], device, dtype),), name="x nan")


def sample_inputs_polynomial_n_scalar(op, device, dtype):
    """A Python n (n_scalar): a wrapped number in type promotion."""
    for (name, x), n in zip(layouts((4, 5), device, dtype, low=op.domain[0], high=op.domain[1]), (0, 1, 7, 100)):
        yield SampleInput(x, (n,), name=f"{name} n={n}")
    yield SampleInput(_x(op, (3, 4), device, dtype), (-2,), name="negative n")
    yield SampleInput(_x(op, (3, 4), device, dtype), (3.7,), name="python float n (truncated)")
    yield SampleInput(_x(op, (), device, dtype), (5,), name="0-d x")
    yield SampleInput(_x(op, (0, 4), device, dtype), (2,), name="empty x")


def error_inputs_polynomial(op, device):
    x = make((3,), device, torch.float32)
    yield ErrorInput(SampleInput(x, (make((2,), device, torch.float32),), name="shapes do not broadcast"),
                     RuntimeError, "must match the size")
    yield ErrorInput(SampleInput(x.to(torch.float16), (make((3,), device, torch.float16),), name="float16"),
                     NotImplementedError, "not implemented for 'Half'")
    yield ErrorInput(SampleInput(x, (make((3,), device, torch.complex64),), name="complex n"),
                     NotImplementedError, "not implemented for 'ComplexFloat'")


def _entries(name):
    base = f"aten::special_{name}"
    common = dict(dtypes=DTYPES, domain=DOMAINS[name], supports_out=True, family="special",
                  # eager's polynomials have no derivative: their results never require grad
                  supports_autograd=False)
    op = getattr(torch.special, name)
    return [
        OpInfo(name=f"special.{name}", op=op, aten=(base, f"{base}.out"), sample_inputs=sample_inputs_polynomial,
               error_inputs=error_inputs_polynomial, **common),
        OpInfo(name=f"special.{name}.x_scalar", op=op, aten=(f"{base}.x_scalar", f"{base}.x_scalar_out"),
               sample_inputs=sample_inputs_polynomial_x_scalar, **common),
        OpInfo(name=f"special.{name}.n_scalar", op=op, aten=(f"{base}.n_scalar", f"{base}.n_scalar_out"),
               sample_inputs=sample_inputs_polynomial_n_scalar, **common),
    ]


ENTRIES = [e for name in DOMAINS for e in _entries(name)]
