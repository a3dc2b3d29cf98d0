"""OpInfo entries: more linear algebra and the out_dtype products (decompositions.linalg).

Factorization samples are well conditioned (opinfo.definitions.linalg's ``_well_conditioned``);
the prims call the LAPACK routines eager calls, so most results agree to the last bit. Ops that
return a tuple get a second entry, ``<name>_out``, whose op allocates eager's outputs and calls
the out= form, so that those overloads are traced too (test_out runs single-tensor results only).
"""
from __future__ import annotations

import torch

from primkit.decompositions.linalg import MATRIX_EXP_THETAS
from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.linalg import LINALG_DTYPES, SQUARE_SHAPES, TALL_SHAPES, _matrices, _well_conditioned
from primkit.opinfo.dtypes import ALL, FLOAT32_64, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.harness import variant_samples
from primkit.opinfo.samples import make

aten = torch.ops.aten
F32, F64, C64 = torch.float32, torch.float64, torch.complex64
WIDE_SHAPES = ((3, 4), (2, 3, 5))


def entry(name, op, aten_names, samples, *, dtypes=LINALG_DTYPES, errors=None, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, error_inputs=errors,
                  dtypes=frozenset(dtypes), family="linalg", **kw)


def errors(*rows):
    """Error rows (sample, exception, regex on eager's message); a sample is (input, args, kwargs)
    built on the device by a function."""
    def gen(op, device):
        for build, exc, match in rows:
            input_, args, kwargs = build(device)
            yield ErrorInput(SampleInput(input_, args, kwargs, name=match), exc, match)
    return gen


def with_outs(fn):
    """fn called with out=: the out tensors are laid out as fn's results (eager's layout)."""
    def call(*args, **kwargs):
        results = fn(*args, **kwargs)
        return fn(*args, **kwargs, out=tuple(torch.empty_like(r) for r in results))
    call.__name__ = getattr(fn, "__name__", "op")
    return call


def _m(shape, device, dtype=F32, **kw):
    return make(shape, device, dtype, **kw)


# --- Householder QR -----------------------------------------------------------------------------------

def _geqrf_samples(op, device, dtype):
    yield from _matrices(SQUARE_SHAPES + TALL_SHAPES + WIDE_SHAPES)(op, device, dtype)
    yield SampleInput(make((0, 3), device, dtype), name="empty (0, 3)")


def _reflectors(shape, device, dtype):
    return torch.geqrf(make(shape, device, dtype, low=-1, high=1))


def _ormqr_samples(op, device, dtype):
    for shape in SQUARE_SHAPES + TALL_SHAPES + WIDE_SHAPES:
        a, tau = _reflectors(shape, device, dtype)
        m, batch = shape[-2], shape[:-2]
        for left in (True, False):
            for transpose in (False, True):
                other = make(batch + ((m, 2) if left else (2, m)), device, dtype)
                yield SampleInput(a, (tau, other, left, transpose), name=f"{shape} left={left} transpose={transpose}")
    a, tau = _reflectors((4, 3), device, dtype)
    yield SampleInput(a.mT.contiguous().mT, (tau, make((2, 4), device, dtype).mT), name="column-major operands")


def _householder_samples(op, device, dtype):
    for shape in SQUARE_SHAPES + TALL_SHAPES[:1] + TALL_SHAPES[2:]:
        a, tau = _reflectors(shape, device, dtype)
        yield SampleInput(a, (tau,), name=f"{shape}")
    a, tau = _reflectors((5, 3), device, dtype)
    yield SampleInput(a, (tau[..., :2],), name="fewer reflectors than columns")
    yield SampleInput(a.mT.contiguous().mT, (tau,), name="column-major")


_HOUSEHOLDER_ERRORS = errors(
    (lambda d: (_m((3, 4), d), (_m((3,), d),), {}), RuntimeError, "greater than or equal to input.shape\\[-1\\]"),
    (lambda d: (_m((4, 3), d), (_m((4,), d),), {}), RuntimeError, "greater than or equal to tau.shape\\[-1\\]"),
    (lambda d: (_m((2, 4, 3), d), (_m((3, 3), d),), {}), RuntimeError, "Expected batch dimensions of tau"),
    (lambda d: (_m((4, 3), d), (_m((3,), d, F64),), {}), RuntimeError, "does not match input dtype"),
    (lambda d: (_m((4,), d), (_m((1,), d),), {}), RuntimeError, "at least 2 dimensions"),
)

ENTRIES = [
    entry("geqrf", torch.geqrf, ("aten::geqrf",), _geqrf_samples,
          errors=errors((lambda d: (_m((3,), d), (), {}), RuntimeError, "at least 2 dimensions"),
                        (lambda d: (_m((3, 3), d, torch.int64), (), {}), NotImplementedError, "not implemented for")),
          supports_autograd=False),   # eager has no derivative for geqrf
    entry("geqrf_out", with_outs(torch.geqrf), ("aten::geqrf.a",), _geqrf_samples, supports_autograd=False),
    entry("ormqr", torch.ormqr, ("aten::ormqr", "aten::ormqr.out"), _ormqr_samples, supports_out=True,
          errors=errors(
              (lambda d: (_m((4,), d), (_m((1,), d), _m((4, 2), d)), {}), RuntimeError, "at least 2 dimensions"),
              (lambda d: (_m((4, 3), d), (_m((3,), d), _m((3, 2), d)), {}), RuntimeError,
               "other.shape\\[-2\\] must be equal to input.shape\\[-2\\]"),
              (lambda d: (_m((4, 3), d), (_m((2,), d), _m((4, 2), d)), {}), RuntimeError,
               "tau.shape\\[-1\\] must be equal to min"),
              (lambda d: (_m((2, 4, 3), d), (_m((2, 3), d), _m((3, 4, 2), d)), {}), RuntimeError,
               "Expected batch dimensions of other"),
              (lambda d: (_m((4, 3), d), (_m((3,), d), _m((4, 2), d, F64)), {}), RuntimeError, "same dtype"))),
    entry("linalg.householder_product", torch.linalg.householder_product,
          ("aten::linalg_householder_product", "aten::linalg_householder_product.out"), _householder_samples,
          supports_out=True, errors=_HOUSEHOLDER_ERRORS),
    entry("orgqr", torch.orgqr, ("aten::orgqr", "aten::orgqr.out"), _householder_samples, supports_out=True,
          errors=_HOUSEHOLDER_ERRORS),
]


# --- Cholesky, LDL, LU solves ---------------------------------------------------------------------------

def _cholesky_factor(shape, device, dtype, upper):
    return torch.linalg.cholesky(_well_conditioned(shape, device, dtype, hermitian=True), upper=upper)


def _cholesky_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        for upper in (False, True):
            factor = _cholesky_factor(shape, device, dtype, upper)
            yield SampleInput(make(shape[:-1] + (2,), device, dtype), (factor, upper), name=f"{shape} upper={upper}")
    factor = _cholesky_factor((3, 3), device, dtype, False)
    yield SampleInput(make((2, 3, 2), device, dtype), (factor,), name="batch of B, one factor")
    yield SampleInput(make((3, 2), device, dtype), (factor.expand(2, 3, 3),), name="one B, expanded factors")
    yield SampleInput(make((2, 3), device, dtype).mT, (factor.mT.contiguous().mT,), name="column-major operands")
    yield SampleInput(make((0, 2), device, dtype), (make((0, 0), device, dtype),), name="empty")


def _cholesky_inverse_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        for upper in (False, True):
            yield SampleInput(_cholesky_factor(shape, device, dtype, upper), (upper,), name=f"{shape} upper={upper}")
    yield SampleInput(make((0, 0), device, dtype), name="empty")


def _symmetric(shape, device, dtype):
    """A symmetric (complex symmetric, not Hermitian), indefinite, well-conditioned matrix."""
    a = make(shape, device, dtype, low=-1, high=1)
    n = shape[-1]
    signs = torch.tensor([(-1.0) ** i for i in range(n)], device=device).to(dtype)
    return a + a.mT + n * torch.diag_embed(signs.expand(*shape[:-1]))


def _ldl_factor_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        yield SampleInput(_symmetric(shape, device, dtype), name=f"{shape}")
    yield SampleInput(_symmetric((3, 3), device, dtype).mT.contiguous().mT, name="column-major")
    if dtype not in (C64,):
        yield SampleInput(_symmetric((3, 3), device, dtype), kwargs={"hermitian": True}, name="real, hermitian=True")


def _ldl_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        ld, pivots = torch.linalg.ldl_factor(_symmetric(shape, device, dtype))
        yield SampleInput(ld, (pivots, make(shape[:-1] + (2,), device, dtype)), name=f"{shape}")
    ld, pivots = torch.linalg.ldl_factor(_symmetric((3, 3), device, dtype))
    yield SampleInput(ld, (pivots, make((2, 3, 2), device, dtype)), name="batch of B, one factor")
    if dtype != C64:
        yield SampleInput(ld, (pivots, make((3, 2), device, dtype)), {"hermitian": True}, name="real, hermitian=True")


def _ldl_errors(op, device):
    yield ErrorInput(SampleInput(_m((3, 4), device)), RuntimeError, "square matrices")
    yield ErrorInput(SampleInput(_m((3, 3), device, torch.int64)), RuntimeError, "floating point or complex")


def _ldl_solve_errors(op, device):
    ld, pivots = torch.linalg.ldl_factor(_symmetric((3, 3), device, F32))
    yield ErrorInput(SampleInput(ld, (pivots[:2], _m((3, 2), device))), RuntimeError, "pivots.shape to be the same")
    yield ErrorInput(SampleInput(ld, (pivots, _m((4, 2), device))), RuntimeError, "Incompatible matrix sizes")
    yield ErrorInput(SampleInput(ld, (pivots, _m((3, 2), device, F64))), RuntimeError, "same dtype")


def _lu(shape, device, dtype):
    return torch.linalg.lu_factor(_well_conditioned(shape, device, dtype) if shape[-1] == shape[-2]
                                  else make(shape, device, dtype, low=-1, high=1))


def _lu_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        lu, pivots = _lu(shape, device, dtype)
        yield SampleInput(make(shape[:-1] + (2,), device, dtype), (lu, pivots), name=f"{shape}")
    lu, pivots = _lu((3, 3), device, dtype)
    yield SampleInput(make((2, 3), device, dtype).mT, (lu, pivots), name="column-major B")


def _lu_unpack_samples(op, device, dtype):
    for shape in SQUARE_SHAPES + TALL_SHAPES + WIDE_SHAPES:
        lu, pivots = _lu(shape, device, dtype)
        yield SampleInput(lu, (pivots,), name=f"{shape}")
    lu, pivots = _lu((2, 4, 4), device, dtype)
    yield SampleInput(lu, (pivots[0],), name="LU batched, pivots not")
    yield SampleInput(lu, (pivots, True, False), name="unpack_pivots=False")


def _lu_unpack_flag_samples(op, device, dtype):
    lu, pivots = _lu((2, 4, 4), device, dtype)
    for flags in ((False, True), (False, False)):
        yield SampleInput(lu, (pivots, *flags), name=f"unpack_data, unpack_pivots = {flags}")


def _linalg_lu_samples(op, device, dtype):
    yield from _matrices(SQUARE_SHAPES)(op, device, dtype)


def _linalg_lu_rectangular_samples(op, device, dtype):
    yield from _matrices(TALL_SHAPES + WIDE_SHAPES)(op, device, dtype)
    yield SampleInput(make((0, 3), device, dtype), name="empty")


def _lu_errors(op, device):
    yield ErrorInput(SampleInput(_m((3,), device)), RuntimeError, "2 or more dimensions")
    yield ErrorInput(SampleInput(_m((3, 3), device), kwargs={"pivot": False}), RuntimeError,
                     "LU without pivoting is not implemented on the CPU")


def _lu_unpack_errors(op, device):
    lu, pivots = torch.linalg.lu_factor(_well_conditioned((3, 3), device, F32))
    yield ErrorInput(SampleInput(lu, (pivots.long(),)), RuntimeError, "int32 dtype")
    yield ErrorInput(SampleInput(lu[0], (pivots,)), RuntimeError, "2 or more dimensions")


# The cholesky_solve prim reads one triangle of the factor and its derivative is that triangle's (what
# finite differences see); eager's cholesky_solve and cholesky_inverse return a full-matrix gradient,
# which agrees only on the triangle (as opinfo.gradients' cholesky entries): not compared.
TRIANGLE_GRADIENT = dict(supports_autograd=False)


ENTRIES += [
    entry("cholesky_solve", torch.cholesky_solve, ("aten::cholesky_solve", "aten::cholesky_solve.out"),
          _cholesky_solve_samples, supports_out=True, **TRIANGLE_GRADIENT,
          errors=errors(
              (lambda d: (_m((3,), d), (_m((3, 3), d),), {}), RuntimeError, "b should have at least 2 dimensions"),
              (lambda d: (_m((3, 2), d), (_m((3, 2), d),), {}), RuntimeError, "square matrices"),
              (lambda d: (_m((4, 2), d), (_m((3, 3), d),), {}), RuntimeError, "Incompatible matrix sizes"),
              (lambda d: (_m((3, 2), d, F64), (_m((3, 3), d),), {}), RuntimeError, "same dtype"))),
    entry("cholesky_inverse", torch.cholesky_inverse, ("aten::cholesky_inverse", "aten::cholesky_inverse.out"),
          _cholesky_inverse_samples, supports_out=True, **TRIANGLE_GRADIENT,
          errors=errors((lambda d: (_m((3, 4), d), (), {}), RuntimeError, "square matrices"),
                        (lambda d: (_m((3, 3), d, torch.int64), (), {}), NotImplementedError, "not implemented"))),
    entry("linalg.ldl_factor", torch.linalg.ldl_factor, ("aten::linalg_ldl_factor",),
          _ldl_factor_samples, errors=_ldl_errors, supports_autograd=False),   # eager has no derivative
    entry("linalg.ldl_factor_out", with_outs(torch.linalg.ldl_factor), ("aten::linalg_ldl_factor.out",),
          _ldl_factor_samples, supports_autograd=False),
    entry("linalg.ldl_factor_ex", torch.linalg.ldl_factor_ex, ("aten::linalg_ldl_factor_ex",), _ldl_factor_samples,
          errors=_ldl_errors, supports_autograd=False),
    entry("linalg.ldl_factor_ex_out", with_outs(torch.linalg.ldl_factor_ex), ("aten::linalg_ldl_factor_ex.out",),
          _ldl_factor_samples, supports_autograd=False),
    entry("linalg.ldl_factor_complex_hermitian", torch.linalg.ldl_factor, ("aten::linalg_ldl_factor",),
          lambda op, device, dtype: (SampleInput(_well_conditioned(s, device, dtype, hermitian=True),
                                                 kwargs={"hermitian": True}, name=f"{s}") for s in SQUARE_SHAPES[:2]),
          dtypes={C64}, supports_autograd=False,
          xfails=[XFail(t, "the ldl prims factor complex matrices as symmetric only (ldl_factor C3; cuSOLVER has no "
                           "complex Hermitian LDL): hermitian=True on a complex input has no decomposition",
                           raises=NotImplementedError)
                  for t in ("values", "strides")]),
    entry("linalg.ldl_solve", torch.linalg.ldl_solve, ("aten::linalg_ldl_solve", "aten::linalg_ldl_solve.out"),
          _ldl_solve_samples, supports_out=True, errors=_ldl_solve_errors,
          supports_autograd=False),   # eager has no derivative
    entry("lu_solve", torch.lu_solve, ("aten::lu_solve", "aten::lu_solve.out"), _lu_solve_samples,
          supports_out=True),
    entry("lu_unpack", torch.lu_unpack, ("aten::lu_unpack",), _lu_unpack_samples, errors=_lu_unpack_errors),
    entry("lu_unpack_no_data", torch.lu_unpack, ("aten::lu_unpack",), _lu_unpack_flag_samples,
          supports_autograd=False),   # eager's backward fails on the empty L and U ("triu: input tensor must have
                                      # at least 2 dimensions")
    entry("lu_unpack_out", with_outs(torch.lu_unpack), ("aten::lu_unpack.out",), _lu_unpack_samples,
          supports_autograd=False),   # eager autograd refuses out= arguments that require grad
    entry("linalg.lu", torch.linalg.lu, ("aten::linalg_lu",), _linalg_lu_samples, errors=_lu_errors),
    entry("linalg.lu_rectangular", torch.linalg.lu, ("aten::linalg_lu",), _linalg_lu_rectangular_samples),
    entry("linalg.lu_out", with_outs(torch.linalg.lu), ("aten::linalg_lu.out",), _linalg_lu_rectangular_samples,
          supports_autograd=False),
]


# --- least squares ----------------------------------------------------------------------------------------
# Full-rank systems only: every driver then has the same (unique) solution, and the rank is
# min(m, n). Rank-deficient systems have driver-dependent solutions (see the lstsq prim's doc).

def _lstsq_samples(op, device, dtype):
    drivers = (None, "gels", "gelsy", "gelsd", "gelss") if device == "cpu" else (None,)
    shapes = ((5, 3), (3, 3), (3, 5), (2, 5, 3), (2, 3, 5)) if device == "cpu" else ((5, 3), (3, 3), (2, 5, 3))
    for driver in drivers:
        for shape in shapes:
            a = make(shape, device, dtype, low=-1, high=1)
            yield SampleInput(a, (make(shape[:-1] + (2,), device, dtype),), {"driver": driver},
                              name=f"{shape} driver={driver}")
    a = make((2, 5, 3), device, dtype, low=-1, high=1)
    yield SampleInput(a, (make((2, 5), device, dtype),), name="batch of vectors")
    yield SampleInput(a[0], (make((5,), device, dtype),), {"driver": "gels"}, name="vector")
    yield SampleInput(a[:1], (make((2, 5, 2), device, dtype),), name="broadcast A")
    yield SampleInput(a.mT.contiguous().mT, (make((2, 2, 5), device, dtype).mT,), {"rcond": 1e-3},
                      name="column-major, rcond")


def _lstsq_errors(op, device):
    yield ErrorInput(SampleInput(_m((3,), device), (_m((3,), device),)), RuntimeError, "at least 2 dimensions")
    yield ErrorInput(SampleInput(_m((5, 3), device), (_m((4, 2), device),)), RuntimeError, "should match")
    yield ErrorInput(SampleInput(_m((5, 3), device), (_m((5, 2), device, F64),)), RuntimeError, "same dtype")
    yield ErrorInput(SampleInput(_m((5, 3), device), (_m((5, 2), device),), {"driver": "lu"}), RuntimeError,
                     "should be one of")


# The prim solves as gelsy does (QR with column pivoting); eager's gels, gelsd and gelss reach the same
# solution through other factorizations. Measured on these samples: the solutions differ by up to
# 5.7e-6 (float32) and 4.8e-6 (complex64) absolute, 1.6e-14 in float64.
LSTSQ_TOLERANCES = {F32: (1e-5, 1e-5), C64: (1e-5, 1e-5)}

ENTRIES += [
    entry("linalg.lstsq", torch.linalg.lstsq, ("aten::linalg_lstsq",), _lstsq_samples, errors=_lstsq_errors,
          tolerances=LSTSQ_TOLERANCES),
    entry("linalg.lstsq_out", with_outs(torch.linalg.lstsq), ("aten::linalg_lstsq.out",), _lstsq_samples,
          tolerances=LSTSQ_TOLERANCES, supports_autograd=False),
]


# --- pseudo-inverse, matrix exponential ---------------------------------------------------------------

def _pinv_samples(op, device, dtype):
    for shape in SQUARE_SHAPES + TALL_SHAPES + WIDE_SHAPES:
        yield SampleInput(make(shape, device, dtype, low=-1, high=1), name=f"{shape}")
    a = make((2, 4, 3), device, dtype, low=-1, high=1)
    # tolerances below the samples' smallest singular values: every overload, nothing dropped
    yield SampleInput(a, kwargs={"atol": 1e-3}, name="atol float")
    yield SampleInput(a, kwargs={"rtol": 1e-3}, name="rtol float")
    yield SampleInput(a, kwargs={"atol": 1e-3, "rtol": 1e-4}, name="atol and rtol float")
    yield SampleInput(a, kwargs={"atol": torch.rand(2, device=device, dtype=F64) * 1e-3}, name="atol tensor")
    yield SampleInput(a, kwargs={"rtol": torch.rand(2, 1, device=device, dtype=F32) * 1e-3},
                      name="rtol tensor, broadcast")
    yield SampleInput(a, (1e-3,), name="rcond float")
    yield SampleInput(a, (torch.rand(2, device=device, dtype=F64) * 1e-3,), name="rcond tensor")
    yield SampleInput(make((0, 3), device, dtype), name="empty")
    yield SampleInput(a.mT.contiguous().mT, name="column-major")


def _pinv_truncated_samples(op, device, dtype):
    rank_one = make((4, 1), device, dtype) @ make((1, 3), device, dtype)
    yield SampleInput(rank_one, name="rank 1: the zero singular values dropped")
    a = make((2, 4, 3), device, dtype, low=-1, high=1)
    yield SampleInput(a, kwargs={"atol": 0.5}, name="atol 0.5")
    yield SampleInput(a, kwargs={"atol": 0.1, "rtol": 0.6}, name="atol and rtol")
    yield SampleInput(a, kwargs={"rtol": torch.tensor([0.3, 0.8], device=device, dtype=F64)}, name="rtol tensor")
    yield SampleInput(a, (0.7,), name="rcond float")


def _pinv_errors(op, device):
    yield ErrorInput(SampleInput(_m((3,), device)), RuntimeError, "2 or more dimensions")
    yield ErrorInput(SampleInput(_m((3, 3), device, torch.int64)), RuntimeError, "2 or more dimensions")
    yield ErrorInput(SampleInput(_m((3, 4), device), kwargs={"hermitian": True}), RuntimeError, "square")
    yield ErrorInput(SampleInput(_m((3, 3), device), kwargs={"atol": torch.tensor(1j, device=device)}), RuntimeError,
                     "complex type is not supported")


def _matrix_exp_samples(op, device, dtype):
    # scaled so that none, a few and many (5-7) squarings are due
    for shape, scale in (((3, 3), 0.1), ((2, 3, 3), 1.0), ((1, 1), 20.0), ((2, 1, 4, 4), 20.0), ((3, 3), 20.0)):
        yield SampleInput(make(shape, device, dtype, low=-1, high=1) * scale, name=f"{shape} * {scale}")
    # A single matrix takes the Taylor degree its 1-norm selects: norms inside and at each bound.
    real = torch.float64 if dtype in (torch.float64, torch.complex128) else torch.float32
    for degree, theta in zip((1, 2, 4, 8, 12, 18), MATRIX_EXP_THETAS[real]):
        for where, norm in (("inside", theta / 2), ("at the bound", theta)):
            a = make((4, 4), device, dtype, low=-1, high=1)
            a = a * (norm / torch.linalg.matrix_norm(a, 1).item())
            yield SampleInput(a, name=f"* degree {degree}: 1-norm {where} ({norm:.3g})")
    yield SampleInput(torch.zeros(3, 3, device=device, dtype=dtype), name="zero")
    yield SampleInput(torch.triu(make((4, 4), device, dtype), 1), name="nilpotent")
    yield SampleInput(make((3, 3), device, dtype, low=-1, high=1).mT, name="transposed")
    yield SampleInput(make((0, 0), device, dtype), name="empty")


def linalg_matrix_exp(a, *, out=None):
    # torch.linalg.matrix_exp takes no out=: the overloads are called directly
    return aten.linalg_matrix_exp.default(a) if out is None else aten.linalg_matrix_exp.out(a, out=out)


MATRIX_EXP_DTYPES = FLOATING | {C64}
# Eager's CPU matrix_exp is wrong in float16/bfloat16: on these samples its diagonal holds -2.1e4
# (float16) or -1.3e30 (bfloat16) where the float32 result is ~1; primkit computes in float32 and
# rounds once, and agrees with eager's float32 result.
EAGER_HALF_MATRIX_EXP = [XFail(t, "eager's float16/bfloat16 CPU matrix_exp returns garbage (diagonal -2.1e4 / "
                                    "-1.3e30 where exp is ~1); primkit's agrees with eager's float32",
                               frozenset({torch.float16, torch.bfloat16}), "cpu", raises=AssertionError) for t in ("values",)]

ENTRIES += [
    # torch.linalg.pinv(A, rcond) calls linalg_pinv (float rcond) or .rcond_tensor; atol=/rtol= floats
    # .atol_rtol_float, tensors or neither .atol_rtol_tensor (the out= test's last sample: its _out).
    entry("linalg.pinv", torch.linalg.pinv,
          ("aten::linalg_pinv", "aten::linalg_pinv.rcond_tensor", "aten::linalg_pinv.atol_rtol_float",
           "aten::linalg_pinv.atol_rtol_tensor", "aten::linalg_pinv.atol_rtol_tensor_out"),
          _pinv_samples, errors=_pinv_errors, supports_out=True),
    # eigh's prim reads one triangle and its derivative is that triangle's; eager's is Hermitian (as
    # opinfo.gradients' linalg.eigh): gradients not compared.
    entry("linalg.pinv_hermitian", torch.linalg.pinv, ("aten::linalg_pinv.atol_rtol_tensor",),
          lambda op, device, dtype: (
              SampleInput(_well_conditioned(s, device, dtype, hermitian=True) - 2 * s[-1] *
                          torch.eye(s[-1], device=device, dtype=dtype), kwargs={"hermitian": True},
                          name=f"{s} indefinite") for s in SQUARE_SHAPES),
          supports_autograd=False),
    # Tolerances that drop singular values. Eager's pinv derivative is the constant-rank formula (as if
    # nothing were dropped), not the derivative of the truncated result that primkit's SVD path gives.
    entry("linalg.pinv_truncated", torch.linalg.pinv,
          ("aten::linalg_pinv", "aten::linalg_pinv.atol_rtol_float", "aten::linalg_pinv.atol_rtol_tensor"),
          _pinv_truncated_samples, supports_autograd=False),
    entry("pinverse", torch.pinverse, ("aten::pinverse",),
          lambda op, device, dtype: (SampleInput(make(s, device, dtype, low=-1, high=1), kwargs=kw, name=f"{s} {kw}")
                                     for s in ((4, 3), (2, 3, 5)) for kw in ({}, {"rcond": 1e-3})),
          errors=lambda op, device: [ErrorInput(SampleInput(_m((3,), device)), RuntimeError, "2 or more dimensions")]),
    entry("linalg.matrix_exp", linalg_matrix_exp, ("aten::linalg_matrix_exp", "aten::linalg_matrix_exp.out"),
          _matrix_exp_samples, dtypes=MATRIX_EXP_DTYPES, supports_out=True,
          xfails=EAGER_HALF_MATRIX_EXP,
          errors=errors((lambda d: (_m((3, 4), d), (), {}), RuntimeError, "square matrices"),
                        (lambda d: (_m((3, 3), d, torch.int64), (), {}), RuntimeError, "floating point or complex"))),
    # aten::matrix_exp is registered to linalg_matrix_exp's function, checked above on every sample
    # (each traces to ~500 prims): its routing is checked on a spread of them.
    entry("matrix_exp", torch.matrix_exp, ("aten::matrix_exp",),
          lambda op, device, dtype: variant_samples([s for s in _matrix_exp_samples(op, device, dtype)
                                                     if "*" in s.name], 6),
          dtypes=MATRIX_EXP_DTYPES,
          xfails=EAGER_HALF_MATRIX_EXP),
    # The CompositeImplicitAutograd backward torch.export keeps when a program calls it: exp of a 2n x 2n
    # block matrix, whose degree (a single matrix) and squarings follow from its norm as the forward's.
    # The block's exp is linalg_matrix_exp (every sample above); a spread of 8 samples checks the block.
    entry("aten.matrix_exp_backward", aten.matrix_exp_backward, ("aten::matrix_exp_backward",),
          lambda op, device, dtype: (SampleInput(s.input, (make(s.input.shape, device, dtype, low=-1, high=1),),
                                                 name=s.name)
                                     for s in variant_samples(list(_matrix_exp_samples(op, device, dtype)), 8)),
          dtypes=MATRIX_EXP_DTYPES, xfails=EAGER_HALF_MATRIX_EXP, supports_autograd=False),
]


# --- products: addr, inner, tensordot ------------------------------------------------------------------

def _addr_samples(op, device, dtype):
    v1, v2 = make((3,), device, dtype), make((4,), device, dtype)
    for shape in ((3, 4), (4,), (1, 4), ()):
        yield SampleInput(make(shape, device, dtype), (v1, v2), name=f"input {shape}")
    yield SampleInput(make((4, 3), device, dtype).T, (v1, v2), name="transposed input")
    yield SampleInput(make((3, 4), device, dtype), (v1, make((8,), device, dtype)[::2]), name="strided vec2")
    yield SampleInput(make((0, 4), device, dtype), (make((0,), device, dtype), v2), name="empty")
    if dtype == torch.bool:
        yield SampleInput(make((3, 4), device, dtype), (v1, v2), {"beta": False, "alpha": True}, name="beta=False")
        yield SampleInput(make((3, 4), device, dtype), (v1, v2), {"beta": True, "alpha": False}, name="alpha=False")
        return
    integral = dtype in INTEGRAL
    yield SampleInput(make((3, 4), device, dtype), (v1, v2), {"beta": 3 if integral else 0.5,
                                                               "alpha": -2 if integral else 1.5}, name="beta, alpha")
    if not integral:
        yield SampleInput(torch.full((3, 4), float("nan"), device=device, dtype=dtype), (v1, v2), {"beta": 0},
                          name="beta=0 ignores nan input")
        yield SampleInput(make((3, 4), device, torch.int64), (v1, v2), name="int64 input, float vectors")


def _addr_errors(op, device):
    yield ErrorInput(SampleInput(_m((3, 4), device), (_m((1, 3), device), _m((4,), device))), RuntimeError,
                     "Expected 1-D argument vec1")
    yield ErrorInput(SampleInput(_m((3, 4), device, torch.int64), (_m((3,), device, torch.int64),
                                                                    _m((4,), device, torch.int64)), {"beta": 0.5}),
                     RuntimeError, "must not be a floating point number")
    yield ErrorInput(SampleInput(_m((3, 4), device), (_m((3,), device), _m((4,), device)), {"beta": True}),
                     RuntimeError, "Boolean beta only supported for Boolean results")


def _inner_samples(op, device, dtype):
    for sa, sb in (((2, 3), (4, 3)), ((3,), (3,)), ((), (4, 3)), ((2, 3), ()), ((3,), (2, 4, 3)), ((2, 1, 3), (4, 3)),
                   ((0, 3), (4, 3)), ((2, 0), (4, 0))):
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype),), name=f"{sa} {sb}")
    yield SampleInput(make((3, 2), device, dtype).T, (make((3, 4), device, dtype).T,), name="transposed")


def _inner_errors(op, device):
    yield ErrorInput(SampleInput(_m((2, 3), device), (_m((4, 2), device),)), RuntimeError,
                     "the last dimension must match")
    yield ErrorInput(SampleInput(_m((2, 3), device), (_m((4, 3), device, F64),)), RuntimeError, "same dtype")


def _tensordot_samples(op, device, dtype):
    for sa, sb, dims in (((2, 3, 4), (3, 4, 5), 2), ((3, 4), (4, 5), 1), ((3, 4), (5, 6), 0),
                         ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (5, 3), ([-2], [-1])),
                         ((2, 1, 4), (3, 4), ([1, 2], [0, 1])), ((2, 3), (1, 5), ([1], [0])),
                         ((0, 3), (3, 2), 1), ((2, 3), (3, 0), 1)):
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype),), {"dims": dims},
                          name=f"{sa} {sb} dims={dims}")
    yield SampleInput(make((4, 3), device, dtype).T, (make((5, 4), device, dtype).T,), {"dims": 1}, name="transposed")


def _tensordot_errors(op, device):
    yield ErrorInput(SampleInput(_m((2, 3), device), (_m((3, 4), device),), {"dims": ([1], [0, 1])}), RuntimeError,
                     "same length")
    yield ErrorInput(SampleInput(_m((2, 3), device), (_m((3, 4), device, F64),), {"dims": 1}), RuntimeError,
                     "same dtype")
    yield ErrorInput(SampleInput(_m((2, 3), device), (_m((4, 4), device),), {"dims": 1}), RuntimeError,
                     "contracted dimensions need to match")


ENTRIES += [
    entry("addr", torch.addr, ("aten::addr", "aten::addr.out", "aten::addr_"), _addr_samples, dtypes=ALL,
          inplace=torch.Tensor.addr_, supports_out=True, errors=_addr_errors),
    entry("inner", torch.inner, ("aten::inner", "aten::inner.out"), _inner_samples, dtypes=NUMERIC, supports_out=True,
          errors=_inner_errors),
    entry("tensordot_dims", torch.tensordot, ("aten::tensordot", "aten::tensordot.out"), _tensordot_samples,
          dtypes=NUMERIC, supports_out=True, errors=_tensordot_errors),
]


# --- block_diag, cartesian_prod, combinations ----------------------------------------------------------------

def block_diag(tensors, *, out=None):
    # torch.block_diag takes no out=: the overloads are called directly
    return aten.block_diag.default(tensors) if out is None else aten.block_diag.out(tensors, out=out)


def _block_diag_samples(op, device, dtype):
    for shapes in ([(2, 3), (3,), (), (1, 2)], [(2, 2)], [(0, 2), (3, 0), (2, 2)], [(3,), (4,)]):
        yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
    yield SampleInput([make((3, 2), device, dtype).T, make((2, 2), device, dtype)], name="transposed block")
    other = torch.float64 if dtype != torch.float64 else torch.int64
    yield SampleInput([make((2, 2), device, dtype), make((2,), device, other)], name=f"mixed with {other}")


def _cartesian_samples(op, device, dtype):
    for shapes in ([(2,), (3,)], [(3,)], [(2,), (0,), (2,)], [(2,), (3,), (2,)]):
        yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
    yield SampleInput([make((6,), device, dtype)[::2], make((2,), device, dtype)], name="strided")


def _combination_samples(op, device, dtype):
    for n, r, replace in ((4, 2, False), (5, 3, False), (4, 1, False), (3, 0, False), (2, 3, False), (3, 2, True),
                          (3, 3, True), (0, 2, False), (1, 1, True)):
        yield SampleInput(make((n,), device, dtype), (r, replace), name=f"n={n} r={r} with_replacement={replace}")
    yield SampleInput(make((8,), device, dtype)[::2], name="strided")


ENTRIES += [
    entry("block_diag", block_diag, ("aten::block_diag", "aten::block_diag.out"), _block_diag_samples, dtypes=ALL,
          supports_out=True,
          errors=lambda op, device: [ErrorInput(SampleInput([_m((2, 2, 2), device)]), RuntimeError,
                                                "must have 2 or fewer dimensions")]),
    entry("cartesian_prod", lambda tensors: torch.cartesian_prod(*tensors), ("aten::cartesian_prod",),
          _cartesian_samples, dtypes=ALL,
          errors=lambda op, device: [ErrorInput(SampleInput([_m((2, 2), device)]), RuntimeError,
                                                "Expect a 1D vector")]),
    entry("combinations", torch.combinations, ("aten::combinations",), _combination_samples, dtypes=ALL,
          errors=lambda op, device: [ErrorInput(SampleInput(_m((2, 2), device)), RuntimeError, "Expect a 1D vector"),
                                     ErrorInput(SampleInput(_m((3,), device), (-1,)), RuntimeError,
                                                "Expect a non-negative number")]),
]


# --- trapezoid, trapz, cumulative_trapezoid -----------------------------------------------------------------

def _integration_samples(op, device, dtype):
    for shape, dim in (((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((3, 1), 1), ((3, 0), 1)):
        y = make(shape, device, dtype)
        yield SampleInput(y, kwargs={"dim": dim}, name=f"{shape} dim={dim}")
        yield SampleInput(y, kwargs={"dx": 0.5, "dim": dim}, name=f"{shape} dim={dim} dx=0.5")
        yield SampleInput(y, (make((shape[dim],), device, dtype),), {"dim": dim}, name=f"{shape} dim={dim} 1-d x")
    y = make((3, 4), device, dtype)
    yield SampleInput(y, (make((3, 4), device, dtype),), name="x shaped like y")
    yield SampleInput(y, (make((4,), device, torch.float64),), name="float64 x")
    yield SampleInput(make((2, 3, 4), device, dtype), (make((3, 4), device, dtype),), name="x of lower rank")
    yield SampleInput(make((4, 3), device, dtype).T, kwargs={"dx": 2}, name="transposed, int dx")


def _integration_errors(op, device):
    yield ErrorInput(SampleInput(_m((3,), device, torch.bool)), RuntimeError, "bool")
    yield ErrorInput(SampleInput(_m((3, 4), device), (_m((3,), device),)), RuntimeError,
                     "There must be one `x` value for each sample point")


def _trapz_samples(op, device, dtype):
    # torch.trapz takes dx only as a keyword and x only positionally
    yield from (s for s in _integration_samples(op, device, dtype) if not s.kwargs.get("dx") or not s.args)


ENTRIES += [
    entry("trapezoid", torch.trapezoid, ("aten::trapezoid.x", "aten::trapezoid.dx"), _integration_samples,
          dtypes=NUMERIC, errors=_integration_errors),
    entry("trapz", torch.trapz, ("aten::trapz.x", "aten::trapz.dx"), _trapz_samples, dtypes=NUMERIC,
          errors=_integration_errors),
    entry("cumulative_trapezoid", torch.cumulative_trapezoid,
          ("aten::cumulative_trapezoid.x", "aten::cumulative_trapezoid.dx"), _integration_samples, dtypes=NUMERIC,
          errors=lambda op, device: [ErrorInput(SampleInput(_m((3, 4), device), (_m((3,), device),)), RuntimeError,
                                                "There must be one `x` value for each sample point")]),
]


# --- cov, corrcoef ------------------------------------------------------------------------------------------------

def _cov_samples(op, device, dtype):
    for shape in ((3, 5), (5,), (1, 4), (3, 1), (2, 0)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    x = make((3, 5), device, dtype)
    yield SampleInput(make((5, 3), device, dtype).T, name="transposed")
    yield SampleInput(x, kwargs={"correction": 0}, name="correction=0")
    yield SampleInput(x, kwargs={"correction": 5}, name="correction = observations: divides by 0")
    freq = torch.tensor([1, 2, 0, 3, 1], device=device)
    weights = torch.rand(5, device=device, dtype=F64) + 0.5
    yield SampleInput(x, kwargs={"fweights": freq}, name="fweights")
    yield SampleInput(x, kwargs={"aweights": weights.to(F32)}, name="aweights")
    yield SampleInput(x, kwargs={"fweights": freq, "aweights": weights, "correction": 2}, name="both weights")


def _corrcoef_samples(op, device, dtype):
    for shape in ((3, 5), (5,), (1, 4), (2, 0)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    yield SampleInput(make((5, 3), device, dtype).T, name="transposed")
    yield SampleInput(torch.ones(2, 4, device=device, dtype=dtype), name="constant rows: 0 / 0")


def _cov_errors(op, device):
    yield ErrorInput(SampleInput(_m((2, 3, 4), device)), RuntimeError, "two or fewer dimensions")
    yield ErrorInput(SampleInput(_m((3, 4), device, torch.bool)), RuntimeError, "bool dtype is not supported")
    yield ErrorInput(SampleInput(_m((3, 4), device), kwargs={"fweights": _m((4,), device)}), RuntimeError,
                     "expected fweights to have integral dtype")
    yield ErrorInput(SampleInput(_m((3, 4), device), kwargs={"aweights": _m((3,), device)}), RuntimeError,
                     "same numel as there are observations")


# float16/bfloat16: eager's CPU mm rounds the products of the centered rows in the input dtype;
# primkit's matmul accumulates in float32 (one rounding): measured up to 2 units in the last place.
COV_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}

ENTRIES += [
    entry("cov", torch.cov, ("aten::cov",), _cov_samples, dtypes=NUMERIC, errors=_cov_errors,
          tolerances=COV_TOLERANCES),
    entry("corrcoef", torch.corrcoef, ("aten::corrcoef",), _corrcoef_samples, dtypes=NUMERIC,
          errors=lambda op, device: [ErrorInput(SampleInput(_m((2, 3, 4), device)), RuntimeError,
                                                "two or fewer dimensions")],
          tolerances=COV_TOLERANCES),
]


# --- Vandermonde ---------------------------------------------------------------------------------------------------

def _vander_samples(op, device, dtype):
    x = make((4,), device, dtype, low=-2, high=2)
    for args in ((), (3,), (1,), (0,), (5, True), (None, True)):
        yield SampleInput(x, args, name=f"{args}")
    yield SampleInput(make((8,), device, dtype, low=-2, high=2)[::2], name="strided")
    yield SampleInput(make((0,), device, dtype), name="empty")


def _linalg_vander_samples(op, device, dtype):
    for shape in ((4,), (2, 3)):
        yield SampleInput(make(shape, device, dtype, low=-2, high=2), name=f"{shape}")
    yield SampleInput(make((), device, dtype, low=-2, high=2), kwargs={"N": 3}, name="0-d, N=3")
    x = make((2, 3), device, dtype, low=-2, high=2)
    yield SampleInput(x, kwargs={"N": 5}, name="N=5")
    yield SampleInput(x.T, kwargs={"N": 2}, name="transposed N=2")


ENTRIES += [
    # eager's vander overwrites its cumprod's input in place, and its backward then refuses ("modified by
    # an inplace operation"): no gradient to compare
    entry("vander", torch.vander, ("aten::vander",), _vander_samples, dtypes=ALL, supports_autograd=False,
          errors=lambda op, device: [ErrorInput(SampleInput(_m((2, 2), device)), RuntimeError,
                                                "one-dimensional"),
                                     ErrorInput(SampleInput(_m((3,), device), (-1,)), RuntimeError,
                                                "N must be non-negative")]),
    entry("linalg.vander", torch.linalg.vander, ("aten::linalg_vander",), _linalg_vander_samples,
          dtypes=FLOAT32_64 | INTEGRAL | {C64},
          errors=lambda op, device: [ErrorInput(SampleInput(_m((3,), device, torch.bool)), RuntimeError,
                                                "supports floating point, complex, and integer"),
                                     ErrorInput(SampleInput(_m((3,), device), kwargs={"N": 1}), RuntimeError,
                                                "N must be greater than 1")]),
]


# --- einsum ----------------------------------------------------------------------------------------------------------

EINSUM_CASES = (
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->ji", [(3, 3, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("...i->...", [(2, 3, 4)]), ("i...->...", [(2, 3, 4)]), ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]), ("i,i->", [(3,), (3,)]), ("ijk,jk->ik", [(2, 3, 4), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("i,i->i", [(1,), (3,)]), ("ab,cd->cadb", [(2, 3), (4, 5)]),
    ("Ab,bA->", [(2, 3), (3, 2)]), ("ij,jk->ik", [(0, 4), (4, 5)]), ("ij,jk->ik", [(3, 0), (0, 5)]),
    ("b i j , b j k -> b k", [(2, 3, 4), (2, 4, 5)]),
)


def _einsum_samples(op, device, dtype):
    for equation, shapes in EINSUM_CASES:
        yield SampleInput(equation, tuple(make(s, device, dtype) for s in shapes), name=f"{equation} {shapes}")
    yield SampleInput("ij,jk->ik", (make((4, 3), device, dtype).T, make((5, 4), device, dtype).T), name="transposed")


def _einsum_errors(op, device):
    yield ErrorInput(SampleInput("i,i->i", (_m((2,), device), _m((3,), device))), RuntimeError,
                     "does not broadcast with previously seen size")
    yield ErrorInput(SampleInput("ij->i", (_m((3,), device),)), RuntimeError, "does not match the number of dimensions")
    yield ErrorInput(SampleInput("ii->i", (_m((2, 3), device),)), RuntimeError, "is repeated for operand 0")
    yield ErrorInput(SampleInput("i->j", (_m((3,), device),)), RuntimeError, "does not appear in the equation")


ENTRIES += [
    entry("einsum_labels", lambda equation, *operands: torch.einsum(equation, *operands), ("aten::einsum",),
          _einsum_samples, dtypes=NUMERIC, errors=_einsum_errors),
]


# --- out_dtype products ----------------------------------------------------------------------------------------------
# Eager implements mm/bmm/addmm/baddbmm with out_dtype on CUDA only; on CPU it has no kernel
# (NotImplementedError), and neither has the decomposition: the CPU runs only the error inputs.
# Their gradients are not compared: eager's are CUDA-only, and no CUDA device ran these entries yet.

OUT_DTYPE_CUDA = frozenset({torch.float16, torch.bfloat16, F32, F64})


def _out_dtype_samples(shapes, *, scaled=False):
    def gen(op, device, dtype):
        for out_dtype in {dtype, F32} if dtype in (torch.float16, torch.bfloat16) else {dtype}:
            operands = [make(s, device, dtype) for s in shapes]
            yield SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": out_dtype},
                              name=f"{shapes} -> {out_dtype}")
            if scaled:
                yield SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": out_dtype, "beta": 0.5, "alpha": 2},
                                  name=f"beta, alpha -> {out_dtype}")
    return gen


def _out_dtype_errors(shapes):
    def gen(op, device):
        operands = [_m(s, device, torch.float16) for s in shapes]
        if device == "cpu":
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": F32}), NotImplementedError,
                             "CPU")
        else:
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": F64}), RuntimeError,
                             "out_dtype must be the same as input dtype or fp32")
    return gen


def _out_dtype_entry(name, op, shapes, *, scaled=False):
    return entry(f"{name}_out_dtype", op, (f"aten::{name}.dtype", f"aten::{name}.dtype_out"),
                 _out_dtype_samples(shapes, scaled=scaled), dtypes=frozenset(), dtypes_cuda=OUT_DTYPE_CUDA,
                 supports_out=True, errors=_out_dtype_errors(shapes), supports_autograd=False)


ENTRIES += [
    _out_dtype_entry("mm", torch.mm, [(3, 4), (4, 5)]),
    _out_dtype_entry("bmm", torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    _out_dtype_entry("addmm", torch.addmm, [(3, 5), (3, 4), (4, 5)], scaled=True),
    _out_dtype_entry("baddbmm", torch.baddbmm, [(2, 3, 5), (2, 3, 4), (2, 4, 5)], scaled=True),
]
