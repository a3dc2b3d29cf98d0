"""OpInfo entries of the factorizations, solves and the functions of a matrix built on them
(decompositions/linalg/factorizations.py, matrix_functions.py). Samples are well conditioned
(``_well_conditioned``); the prims call the LAPACK routines eager calls, so most results agree to the
last bit. Ops that return a tuple get a second entry, ``<name>_out``, whose op allocates eager's outputs
and calls the out= form, so that those overloads are traced too (test_out runs single-tensor results only).
"""
from __future__ import annotations

import torch

from primkit.decompositions.linalg import MATRIX_EXP_THETAS
from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.common import error_rows, make_f32
from primkit.opinfo.definitions.linalg.common import (
    F32, F64, LINALG_DTYPES, WIDE_SHAPES, _linalg_entry, aten, with_outs)
from primkit.opinfo.definitions.shape.common import errors
from primkit.opinfo.dtypes import FLOAT32_64, FLOATING
from primkit.opinfo.harness import variant_samples
from primkit.opinfo.samples import make


# --- factorizations, solves and the composites on them -------------------------------------------
# Samples are well conditioned: a + n*I (general), a a^H + n*I (Hermitian positive definite).
# The factorization prims call the same LAPACK kernels as eager, so most results agree to the
# last bit; where the decomposition combines them differently (det as a product of LU's
# diagonal, inverses through lu_solve), float32 gets the tolerances stated beside the entry.
SQUARE_SHAPES = ((3, 3), (2, 3, 3), (1, 1), (2, 1, 4, 4))
TALL_SHAPES = ((4, 3), (3, 4), (2, 4, 3), (1, 1))


def _well_conditioned(shape, device, dtype, hermitian=False):
    a = make(shape, device, dtype, low=-1, high=1)
    n = shape[-1]
    eye = torch.eye(n, device=device, dtype=dtype)
    return a @ a.mH + n * eye if hermitian else a + n * eye


def _matrices(shapes=SQUARE_SHAPES, *, hermitian=False, kwargs=({},), extra=()):
    """One sample per shape and kwargs, and a column-major (transposed) operand."""
    def gen(op, device, dtype):
        for kw in kwargs:
            for shape in shapes:
                a = _well_conditioned(shape, device, dtype, hermitian) if shape[-1] == shape[-2] else \
                    make(shape, device, dtype, low=-1, high=1)
                yield SampleInput(a, tuple(extra), dict(kw), name=f"{shape} {kw}")
            shape = shapes[0]
            a = _well_conditioned(shape, device, dtype, hermitian) if shape[-1] == shape[-2] else \
                make(shape, device, dtype, low=-1, high=1)
            yield SampleInput(a.mT.contiguous().mT, tuple(extra), dict(kw), name=f"column-major {kw}")
    return gen


def _square_errors(name_pattern="square"):
    def gen(op, device):
        yield ErrorInput(SampleInput(make((3, 4), device, torch.float32)), RuntimeError, "square")
        yield ErrorInput(SampleInput(make((3,), device, torch.float32)), RuntimeError, "at least 2 dimensions")
    return gen


def _matrix_errors(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32)), RuntimeError, "2 dimensions|2 or more dimensions")


def _with_rhs(shapes, *, hermitian=False, kwargs=({},), rhs_cols=2, triangular=None):
    """(A, B) samples: A square and well conditioned, B (..., n, k); the triangle of A when
    ``triangular`` ('upper' / 'lower') is set."""
    def gen(op, device, dtype):
        for kw in kwargs:
            for shape in shapes:
                a = _well_conditioned(shape, device, dtype, hermitian)
                if triangular is not None:
                    a = a.triu() if kw.get("upper", triangular == "upper") else a.tril()
                left = kw.get("left", True)
                b_shape = shape[:-1] + (rhs_cols,) if left else shape[:-2] + (rhs_cols, shape[-1])
                yield SampleInput(a, (make(b_shape, device, dtype),), dict(kw), name=f"{shape} {kw}")
    return gen


def _linalg(name, op, aten, samples, *, errors=None, dtypes=LINALG_DTYPES, supports_out=False, tolerances=None,
            xfails=()):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, error_inputs=errors,
                  dtypes=frozenset(dtypes), supports_out=supports_out, tolerances=tolerances or {},
                  xfails=tuple(xfails), family="linalg")


# det / inverse / solve through LU: float32 rounding of a product of n pivots, or of a
# triangular solve against the identity, in another order than eager's kernel.
LU_TOLERANCES = {torch.float32: (1e-4, 1e-4), torch.complex64: (1e-4, 1e-4)}
LA = torch.linalg
# eager's CompositeImplicit out= form hands the _ex kernel an empty scratch tensor (info, LU,
# pivots) to resize; primkit does not resize out= tensors.
C64 = frozenset({torch.complex64})


def _solve_samples(op, device, dtype):
    yield from _with_rhs(SQUARE_SHAPES)(op, device, dtype)
    a = _well_conditioned((2, 3, 3), device, dtype)
    yield SampleInput(a, (make((2, 3), device, dtype),), name="batch of vectors")
    yield SampleInput(a, (make((3,), device, dtype),), name="vector")
    yield SampleInput(a, (make((3, 2), device, dtype),), name="broadcast B")
    yield SampleInput(a, (make((2, 2, 3), device, dtype),), {"left": False}, name="left=False")


def _lu_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        lu, pivots = torch.linalg.lu_factor(_well_conditioned(shape, device, dtype))
        for kw in ({}, {"adjoint": True}):
            yield SampleInput(lu, (pivots, make(shape[:-1] + (2,), device, dtype)), kw, name=f"{shape} {kw}")
        yield SampleInput(lu, (pivots, make(shape[:-2] + (2, shape[-1]), device, dtype)), {"left": False},
                          name=f"{shape} left=False")


def _triangular_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        for kw in ({}, {"upper": False}, {"transpose": True}, {"unitriangular": True}):
            a = _well_conditioned(shape, device, dtype)
            a = a.triu() if kw.get("upper", True) else a.tril()
            yield SampleInput(make(shape[:-1] + (2,), device, dtype), (a,), kw, name=f"{shape} {kw}")


def _multi_dot_samples(op, device, dtype):
    for shapes in ([(3, 4), (4, 5)], [(3,), (3, 4), (4, 2)], [(2, 3), (3, 4), (4,)], [(3, 4), (4, 5), (5, 2), (2, 3)]):
        yield SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")


ENTRIES = [
    _linalg("linalg.cholesky", LA.cholesky, ("aten::linalg_cholesky", "aten::linalg_cholesky.out",
                                             "aten::linalg_cholesky_ex", "aten::_linalg_check_errors"),
            _matrices(hermitian=True, kwargs=({}, {"upper": True})), errors=_square_errors(), supports_out=True),
    _linalg("linalg.cholesky_ex", LA.cholesky_ex, ("aten::linalg_cholesky_ex", "aten::linalg_cholesky_ex.L"),
            _matrices(hermitian=True, kwargs=({}, {"upper": True})), errors=_square_errors()),
    _linalg("cholesky", torch.cholesky, ("aten::cholesky", "aten::cholesky.out"),
            _matrices(hermitian=True, kwargs=({}, {"upper": True})), errors=_square_errors(), supports_out=True),
    _linalg("linalg.solve_triangular", LA.solve_triangular,
            ("aten::linalg_solve_triangular", "aten::linalg_solve_triangular.out"),
            _with_rhs(SQUARE_SHAPES, kwargs=({"upper": True}, {"upper": False}, {"upper": True, "left": False},
                                             {"upper": False, "unitriangular": True}), triangular="upper"),
            supports_out=True),
    _linalg("triangular_solve", torch.triangular_solve, ("aten::triangular_solve", "aten::triangular_solve.X"),
            _triangular_solve_samples),
    _linalg("linalg.lu_factor", LA.lu_factor, ("aten::linalg_lu_factor", "aten::linalg_lu_factor.out",
                                               "aten::linalg_lu_factor_ex"),
            _matrices(SQUARE_SHAPES + TALL_SHAPES), errors=_matrix_errors),
    _linalg("linalg.lu_factor_ex", LA.lu_factor_ex, ("aten::linalg_lu_factor_ex", "aten::linalg_lu_factor_ex.out"),
            _matrices(SQUARE_SHAPES + TALL_SHAPES), errors=_matrix_errors),
    _linalg("linalg.lu_solve", LA.lu_solve, ("aten::linalg_lu_solve", "aten::linalg_lu_solve.out"),
            _lu_solve_samples, supports_out=True),
    _linalg("linalg.qr", LA.qr, ("aten::linalg_qr", "aten::linalg_qr.out"),
            _matrices(SQUARE_SHAPES + TALL_SHAPES, kwargs=({}, {"mode": "complete"}, {"mode": "r"})),
            errors=_matrix_errors),
    _linalg("qr", torch.qr, ("aten::qr", "aten::qr.Q"), _matrices(TALL_SHAPES, kwargs=({}, {"some": False}))),
    _linalg("linalg.eigh", LA.eigh, ("aten::linalg_eigh", "aten::linalg_eigh.eigvals", "aten::_linalg_eigh",
                                     "aten::_linalg_eigh.eigenvalues"),
            _matrices(hermitian=True, kwargs=({}, {"UPLO": "U"})), errors=_square_errors()),
    _linalg("linalg.eigvalsh", LA.eigvalsh, ("aten::linalg_eigvalsh", "aten::linalg_eigvalsh.out"),
            _matrices(hermitian=True, kwargs=({}, {"UPLO": "U"})), errors=_square_errors(), supports_out=True),
    _linalg("linalg.svd", LA.svd, ("aten::linalg_svd", "aten::linalg_svd.U", "aten::_linalg_svd",
                                   "aten::_linalg_svd.U"),
            _matrices(SQUARE_SHAPES + TALL_SHAPES, kwargs=({}, {"full_matrices": False})), errors=_matrix_errors),
    _linalg("linalg.svdvals", LA.svdvals, ("aten::linalg_svdvals", "aten::linalg_svdvals.out"),
            _matrices(SQUARE_SHAPES + TALL_SHAPES), errors=_matrix_errors, supports_out=True),
    _linalg("svd", torch.svd, ("aten::svd", "aten::svd.U"),
            _matrices(TALL_SHAPES, kwargs=({}, {"some": False}, {"compute_uv": False}))),
    _linalg("linalg.eig", LA.eig, ("aten::linalg_eig", "aten::linalg_eig.out"), _matrices(), errors=_square_errors()),
    _linalg("linalg.eigvals", LA.eigvals, ("aten::linalg_eigvals", "aten::linalg_eigvals.out",
                                           "aten::_linalg_eigvals"),
            _matrices(), errors=_square_errors(), supports_out=True),
    _linalg("linalg.det", LA.det, ("aten::linalg_det", "aten::linalg_det.out", "aten::_linalg_det",
                                   "aten::_linalg_det.result"),
            _matrices(), errors=_square_errors(), supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("det", torch.det, ("aten::det",), _matrices(), errors=_square_errors(), tolerances=LU_TOLERANCES),
    _linalg("logdet", torch.logdet, ("aten::logdet",), _matrices(hermitian=True), tolerances=LU_TOLERANCES,
            dtypes=FLOAT32_64),
    _linalg("linalg.slogdet", LA.slogdet, ("aten::linalg_slogdet", "aten::linalg_slogdet.out", "aten::_linalg_slogdet",
                                           "aten::_linalg_slogdet.sign"),
            _matrices(), errors=_square_errors(), tolerances=LU_TOLERANCES),
    _linalg("slogdet", torch.slogdet, ("aten::slogdet", "aten::slogdet.out"), _matrices(), tolerances=LU_TOLERANCES),
    _linalg("linalg.inv", LA.inv, ("aten::linalg_inv", "aten::linalg_inv.out", "aten::linalg_inv_ex"),
            _matrices(), errors=_square_errors(), supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("linalg.inv_ex", LA.inv_ex, ("aten::linalg_inv_ex", "aten::linalg_inv_ex.inverse"), _matrices(),
            errors=_square_errors(), tolerances=LU_TOLERANCES),
    _linalg("inverse", torch.inverse, ("aten::inverse", "aten::inverse.out"), _matrices(), supports_out=True,
            tolerances=LU_TOLERANCES),
    _linalg("linalg.solve", LA.solve, ("aten::linalg_solve", "aten::linalg_solve.out", "aten::_linalg_solve_ex",
                                       "aten::_linalg_solve_ex.result"),
            _solve_samples, supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("linalg.solve_ex", LA.solve_ex, ("aten::linalg_solve_ex", "aten::linalg_solve_ex.out"), _solve_samples,
            tolerances=LU_TOLERANCES),
    _linalg("linalg.matrix_power", LA.matrix_power, ("aten::linalg_matrix_power", "aten::linalg_matrix_power.out"),
            lambda op, device, dtype: (s for n in (0, 1, 3, 6, -1, -2) for s in _matrices(extra=(n,))(op, device, dtype)),
            supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("matrix_power", torch.matrix_power, ("aten::matrix_power", "aten::matrix_power.out"),
            _matrices(extra=(2,)), supports_out=True),
    _linalg("linalg.matrix_rank", LA.matrix_rank, ("aten::linalg_matrix_rank",
                                                   "aten::linalg_matrix_rank.atol_rtol_float"),
            _matrices(SQUARE_SHAPES, kwargs=({}, {"hermitian": True}, {"atol": 1.0, "rtol": 0.0})),
            dtypes=FLOAT32_64),
    _linalg("linalg.matrix_norm", LA.matrix_norm, ("aten::linalg_matrix_norm", "aten::linalg_matrix_norm.str_ord",
                                                   "aten::linalg_matrix_norm.out", "aten::linalg_matrix_norm.str_ord_out"),
            _matrices(SQUARE_SHAPES + TALL_SHAPES, kwargs=({}, {"ord": "nuc"}, {"ord": 2}, {"ord": 1}, {"ord": -float("inf")},
                                                          {"ord": "fro", "keepdim": True})),
            supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("linalg.norm", LA.norm, ("aten::linalg_norm", "aten::linalg_norm.ord_str", "aten::linalg_norm.out",
                                     "aten::linalg_norm.ord_str_out"),
            _matrices(SQUARE_SHAPES, kwargs=({}, {"ord": "fro", "dim": (-2, -1)}, {"ord": 2, "dim": (-2, -1)},
                                             {"ord": 3, "dim": -1})),
            supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("nuclear_norm", torch.nuclear_norm, ("aten::nuclear_norm", "aten::nuclear_norm.out"),
            _matrices(((3, 3), (4, 3))), supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("linalg.cond", LA.cond, ("aten::linalg_cond", "aten::linalg_cond.p_str"),
            _matrices(kwargs=({}, {"p": "fro"}, {"p": 1}, {"p": "nuc"}, {"p": -2})), tolerances=LU_TOLERANCES),
    _linalg("linalg.multi_dot", LA.multi_dot, ("aten::linalg_multi_dot", "aten::linalg_multi_dot.out"),
            _multi_dot_samples, supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("chain_matmul", lambda ms: torch.chain_matmul(*ms), ("aten::chain_matmul",),
            lambda op, device, dtype: (SampleInput([make(s, device, dtype) for s in shapes], name=f"{shapes}")
                                       for shapes in ([(3, 4), (4, 5)], [(3, 4), (4, 5), (5, 2)])),
            tolerances=LU_TOLERANCES),
    _linalg("linalg.matmul", LA.matmul, ("aten::linalg_matmul", "aten::linalg_matmul.out"),
            lambda op, device, dtype: (SampleInput(make(a, device, dtype), (make(b, device, dtype),), name=f"{a}@{b}")
                                       for a, b in (((3, 4), (4, 5)), ((2, 3, 4), (4, 5)))),
            supports_out=True),
    _linalg("linalg.vecdot", LA.vecdot, ("aten::linalg_vecdot", "aten::linalg_vecdot.out"),
            lambda op, device, dtype: (SampleInput(make(a, device, dtype), (make(b, device, dtype),), kw,
                                                   name=f"{a} {b} {kw}")
                                       for a, b, kw in (((3, 4), (3, 4), {}), ((2, 3, 4), (3, 4), {}),
                                                        ((3, 4), (3, 4), {"dim": 0}))),
            supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("linalg.diagonal", LA.diagonal, ("aten::linalg_diagonal",),
            _matrices(SQUARE_SHAPES + TALL_SHAPES, kwargs=({}, {"offset": 1}, {"dim1": 0, "dim2": -1}))),
    _linalg("linalg.tensorsolve", LA.tensorsolve, ("aten::linalg_tensorsolve", "aten::linalg_tensorsolve.out"),
            lambda op, device, dtype: (SampleInput(_well_conditioned((6, 6), device, dtype).reshape(2, 3, 6),
                                                   (make((2, 3), device, dtype),), name="(2, 3, 6)"),),
            supports_out=True, tolerances=LU_TOLERANCES),
    _linalg("linalg.tensorinv", LA.tensorinv, ("aten::linalg_tensorinv", "aten::linalg_tensorinv.out"),
            lambda op, device, dtype: (SampleInput(_well_conditioned((6, 6), device, dtype).reshape(2, 3, 6),
                                                   kwargs={"ind": 2}, name="(2, 3, 6) ind=2"),),
            supports_out=True, tolerances=LU_TOLERANCES),
]


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


_HOUSEHOLDER_ERRORS = error_rows(
    (lambda d: (make_f32((3, 4), d), (make_f32((3,), d),), {}), RuntimeError, "greater than or equal to input.shape\\[-1\\]"),
    (lambda d: (make_f32((4, 3), d), (make_f32((4,), d),), {}), RuntimeError, "greater than or equal to tau.shape\\[-1\\]"),
    (lambda d: (make_f32((2, 4, 3), d), (make_f32((3, 3), d),), {}), RuntimeError, "Expected batch dimensions of tau"),
    (lambda d: (make_f32((4, 3), d), (make_f32((3,), d, F64),), {}), RuntimeError, "does not match input dtype"),
    (lambda d: (make_f32((4,), d), (make_f32((1,), d),), {}), RuntimeError, "at least 2 dimensions"),
)


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
    if dtype not in (torch.complex64,):
        yield SampleInput(_symmetric((3, 3), device, dtype), kwargs={"hermitian": True}, name="real, hermitian=True")


def _hermitian_small_diagonal(shape, device, dtype):
    """A Hermitian matrix whose diagonal is small beside its columns: Bunch-Kaufman takes 2x2 pivots and
    interchanges."""
    a = make(shape, device, dtype, low=-1, high=1)
    return a + a.mH - 0.99 * torch.diag_embed(torch.diagonal(a + a.mH, dim1=-2, dim2=-1))


def _ldl_hermitian_samples(op, device, dtype):
    """Complex Hermitian matrices: positive definite (1x1 pivots in place), indefinite with a small diagonal
    (interchanges and 2x2 pivots), column-major, and one whose upper triangle is not read."""
    for shape in SQUARE_SHAPES:
        yield SampleInput(_well_conditioned(shape, device, dtype, hermitian=True), kwargs={"hermitian": True},
                          name=f"{shape} positive definite")
        a = _hermitian_small_diagonal(shape, device, dtype)
        yield SampleInput(a, kwargs={"hermitian": True}, name=f"{shape} small diagonal")
    yield SampleInput(a.mT.contiguous().mT, kwargs={"hermitian": True}, name="small diagonal, column-major")
    yield SampleInput(torch.tril(a) + torch.triu(torch.full_like(a, 7 - 7j), 1), kwargs={"hermitian": True},
                      name="upper triangle not read")


def _ldl_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        ld, pivots = torch.linalg.ldl_factor(_symmetric(shape, device, dtype))
        yield SampleInput(ld, (pivots, make(shape[:-1] + (2,), device, dtype)), name=f"{shape}")
    ld, pivots = torch.linalg.ldl_factor(_symmetric((3, 3), device, dtype))
    yield SampleInput(ld, (pivots, make((2, 3, 2), device, dtype)), name="batch of B, one factor")
    if not dtype.is_complex:
        yield SampleInput(ld, (pivots, make((3, 2), device, dtype)), {"hermitian": True}, name="real, hermitian=True")
    if dtype.is_complex and torch.device(device).type == "cuda":
        return   # eager's CUDA kernel refuses complex tensors with hermitian=True (CPU's LAPACK path takes them)
    for shape in ((3, 3), (2, 1, 4, 4)):   # complex (and real) Hermitian: 2x2 pivots and interchanges
        ld, pivots = torch.linalg.ldl_factor(_hermitian_small_diagonal(shape, device, dtype), hermitian=True)
        yield SampleInput(ld, (pivots, make(shape[:-1] + (2,), device, dtype)), {"hermitian": True},
                          name=f"{shape} hermitian=True, small diagonal")


def _ldl_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((3, 4), device)), RuntimeError, "square matrices")
    yield ErrorInput(SampleInput(make_f32((3, 3), device, torch.int64)), RuntimeError, "floating point or complex")


def _ldl_solve_errors(op, device):
    ld, pivots = torch.linalg.ldl_factor(_symmetric((3, 3), device, F32))
    yield ErrorInput(SampleInput(ld, (pivots[:2], make_f32((3, 2), device))), RuntimeError, "pivots.shape to be the same")
    yield ErrorInput(SampleInput(ld, (pivots, make_f32((4, 2), device))), RuntimeError, "Incompatible matrix sizes")
    yield ErrorInput(SampleInput(ld, (pivots, make_f32((3, 2), device, F64))), RuntimeError, "same dtype")


def _lu(shape, device, dtype):
    return torch.linalg.lu_factor(_well_conditioned(shape, device, dtype) if shape[-1] == shape[-2]
                                  else make(shape, device, dtype, low=-1, high=1))


def _lu_solve_b_first_samples(op, device, dtype):
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
    yield ErrorInput(SampleInput(make_f32((3,), device)), RuntimeError, "2 or more dimensions")
    yield ErrorInput(SampleInput(make_f32((3, 3), device), kwargs={"pivot": False}), RuntimeError,
                     "LU without pivoting is not implemented on the CPU")


def _lu_unpack_errors(op, device):
    lu, pivots = torch.linalg.lu_factor(_well_conditioned((3, 3), device, F32))
    yield ErrorInput(SampleInput(lu, (pivots.long(),)), RuntimeError, "int32 dtype")
    yield ErrorInput(SampleInput(lu[0], (pivots,)), RuntimeError, "2 or more dimensions")


# The cholesky_solve prim reads one triangle of the factor and its derivative is that triangle's (what
# finite differences see); eager's cholesky_solve and cholesky_inverse return a full-matrix gradient,
# which agrees only on the triangle (as opinfo.gradients' cholesky entries): not compared.
TRIANGLE_GRADIENT = dict(supports_autograd=False)


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
    yield ErrorInput(SampleInput(make_f32((3,), device), (make_f32((3,), device),)), RuntimeError, "at least 2 dimensions")
    yield ErrorInput(SampleInput(make_f32((5, 3), device), (make_f32((4, 2), device),)), RuntimeError, "should match")
    yield ErrorInput(SampleInput(make_f32((5, 3), device), (make_f32((5, 2), device, F64),)), RuntimeError, "same dtype")
    yield ErrorInput(SampleInput(make_f32((5, 3), device), (make_f32((5, 2), device),), {"driver": "lu"}), RuntimeError,
                     "should be one of")


# The prim solves as gelsy does (QR with column pivoting); eager's gels, gelsd and gelss reach the same
# solution through other factorizations. Measured on these samples: the solutions differ by up to
# 5.7e-6 (float32) and 4.8e-6 (complex64) absolute, 1.6e-14 in float64.
LSTSQ_TOLERANCES = {F32: (1e-5, 1e-5), torch.complex64: (1e-5, 1e-5)}


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
    yield ErrorInput(SampleInput(make_f32((3,), device)), RuntimeError, "2 or more dimensions")
    yield ErrorInput(SampleInput(make_f32((3, 3), device, torch.int64)), RuntimeError, "2 or more dimensions")
    yield ErrorInput(SampleInput(make_f32((3, 4), device), kwargs={"hermitian": True}), RuntimeError, "square")
    yield ErrorInput(SampleInput(make_f32((3, 3), device), kwargs={"atol": torch.tensor(1j, device=device)}), RuntimeError,
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


MATRIX_EXP_DTYPES = FLOATING | {torch.complex64}


# Eager's CPU matrix_exp is wrong in float16/bfloat16: on these samples its diagonal holds -2.1e4
# (float16) or -1.3e30 (bfloat16) where the float32 result is ~1; primkit computes in float32 and
# rounds once, and agrees with eager's float32 result.
EAGER_HALF_MATRIX_EXP = [XFail(t, "eager's float16/bfloat16 CPU matrix_exp returns garbage (diagonal -2.1e4 / "
                                    "-1.3e30 where exp is ~1); primkit's agrees with eager's float32",
                               frozenset({torch.float16, torch.bfloat16}), "cpu", raises=AssertionError) for t in ("values",)]


ENTRIES += [
    _linalg_entry("geqrf", torch.geqrf, ("aten::geqrf",), _geqrf_samples,
                  errors=error_rows((lambda d: (make_f32((3,), d), (), {}), RuntimeError, "at least 2 dimensions"),
                                (lambda d: (make_f32((3, 3), d, torch.int64), (), {}), NotImplementedError, "not implemented for")),
                  supports_autograd=False),   # eager has no derivative for geqrf
    _linalg_entry("geqrf_out", with_outs(torch.geqrf), ("aten::geqrf.a",), _geqrf_samples, supports_autograd=False),
    _linalg_entry("ormqr", torch.ormqr, ("aten::ormqr", "aten::ormqr.out"), _ormqr_samples, supports_out=True,
                  errors=error_rows(
                      (lambda d: (make_f32((4,), d), (make_f32((1,), d), make_f32((4, 2), d)), {}), RuntimeError, "at least 2 dimensions"),
                      (lambda d: (make_f32((4, 3), d), (make_f32((3,), d), make_f32((3, 2), d)), {}), RuntimeError,
                       "other.shape\\[-2\\] must be equal to input.shape\\[-2\\]"),
                      (lambda d: (make_f32((4, 3), d), (make_f32((2,), d), make_f32((4, 2), d)), {}), RuntimeError,
                       "tau.shape\\[-1\\] must be equal to min"),
                      (lambda d: (make_f32((2, 4, 3), d), (make_f32((2, 3), d), make_f32((3, 4, 2), d)), {}), RuntimeError,
                       "Expected batch dimensions of other"),
                      (lambda d: (make_f32((4, 3), d), (make_f32((3,), d), make_f32((4, 2), d, F64)), {}), RuntimeError, "same dtype"))),
    _linalg_entry("linalg.householder_product", torch.linalg.householder_product,
                  ("aten::linalg_householder_product", "aten::linalg_householder_product.out"), _householder_samples,
                  supports_out=True, errors=_HOUSEHOLDER_ERRORS),
    _linalg_entry("orgqr", torch.orgqr, ("aten::orgqr", "aten::orgqr.out"), _householder_samples, supports_out=True,
                  errors=_HOUSEHOLDER_ERRORS),
    _linalg_entry("cholesky_solve", torch.cholesky_solve, ("aten::cholesky_solve", "aten::cholesky_solve.out"),
                  _cholesky_solve_samples, supports_out=True, **TRIANGLE_GRADIENT,
                  errors=error_rows(
                      (lambda d: (make_f32((3,), d), (make_f32((3, 3), d),), {}), RuntimeError, "b should have at least 2 dimensions"),
                      (lambda d: (make_f32((3, 2), d), (make_f32((3, 2), d),), {}), RuntimeError, "square matrices"),
                      (lambda d: (make_f32((4, 2), d), (make_f32((3, 3), d),), {}), RuntimeError, "Incompatible matrix sizes"),
                      (lambda d: (make_f32((3, 2), d, F64), (make_f32((3, 3), d),), {}), RuntimeError, "same dtype"))),
    _linalg_entry("cholesky_inverse", torch.cholesky_inverse, ("aten::cholesky_inverse", "aten::cholesky_inverse.out"),
                  _cholesky_inverse_samples, supports_out=True, **TRIANGLE_GRADIENT,
                  errors=error_rows((lambda d: (make_f32((3, 4), d), (), {}), RuntimeError, "square matrices"),
                                (lambda d: (make_f32((3, 3), d, torch.int64), (), {}), NotImplementedError, "not implemented"))),
    _linalg_entry("linalg.ldl_factor", torch.linalg.ldl_factor, ("aten::linalg_ldl_factor",),
                  _ldl_factor_samples, errors=_ldl_errors, supports_autograd=False),   # eager has no derivative
    _linalg_entry("linalg.ldl_factor_out", with_outs(torch.linalg.ldl_factor), ("aten::linalg_ldl_factor.out",),
                  _ldl_factor_samples, supports_autograd=False),
    _linalg_entry("linalg.ldl_factor_ex", torch.linalg.ldl_factor_ex, ("aten::linalg_ldl_factor_ex",), _ldl_factor_samples,
                  errors=_ldl_errors, supports_autograd=False),
    _linalg_entry("linalg.ldl_factor_ex_out", with_outs(torch.linalg.ldl_factor_ex), ("aten::linalg_ldl_factor_ex.out",),
                  _ldl_factor_samples, supports_autograd=False),
    _linalg_entry("linalg.ldl_factor_complex_hermitian", torch.linalg.ldl_factor, ("aten::linalg_ldl_factor",),
                  _ldl_hermitian_samples, dtypes={torch.complex64, torch.complex128}, supports_autograd=False),
    _linalg_entry("linalg.ldl_solve", torch.linalg.ldl_solve, ("aten::linalg_ldl_solve", "aten::linalg_ldl_solve.out"),
                  _ldl_solve_samples, supports_out=True, errors=_ldl_solve_errors,
                  supports_autograd=False),   # eager has no derivative
    _linalg_entry("lu_solve", torch.lu_solve, ("aten::lu_solve", "aten::lu_solve.out"), _lu_solve_b_first_samples,
                          supports_out=True),
    _linalg_entry("lu_unpack", torch.lu_unpack, ("aten::lu_unpack",), _lu_unpack_samples, errors=_lu_unpack_errors),
    _linalg_entry("lu_unpack_no_data", torch.lu_unpack, ("aten::lu_unpack",), _lu_unpack_flag_samples,
                  supports_autograd=False),   # eager's backward fails on the empty L and U ("triu: input tensor must have
                                      # at least 2 dimensions")
    _linalg_entry("lu_unpack_out", with_outs(torch.lu_unpack), ("aten::lu_unpack.out",), _lu_unpack_samples,
                  supports_autograd=False),   # eager autograd refuses out= arguments that require grad
    _linalg_entry("linalg.lu", torch.linalg.lu, ("aten::linalg_lu",), _linalg_lu_samples, errors=_lu_errors),
    _linalg_entry("linalg.lu_rectangular", torch.linalg.lu, ("aten::linalg_lu",), _linalg_lu_rectangular_samples),
    _linalg_entry("linalg.lu_out", with_outs(torch.linalg.lu), ("aten::linalg_lu.out",), _linalg_lu_rectangular_samples,
                  supports_autograd=False),
    _linalg_entry("linalg.lstsq", torch.linalg.lstsq, ("aten::linalg_lstsq",), _lstsq_samples, errors=_lstsq_errors,
                  tolerances=LSTSQ_TOLERANCES),
    _linalg_entry("linalg.lstsq_out", with_outs(torch.linalg.lstsq), ("aten::linalg_lstsq.out",), _lstsq_samples,
                  tolerances=LSTSQ_TOLERANCES, supports_autograd=False),
    # torch.linalg.pinv(A, rcond) calls linalg_pinv (float rcond) or .rcond_tensor; atol=/rtol= floats
    # .atol_rtol_float, tensors or neither .atol_rtol_tensor (the out= test's last sample: its _out).
    _linalg_entry("linalg.pinv", torch.linalg.pinv,
                  ("aten::linalg_pinv", "aten::linalg_pinv.rcond_tensor", "aten::linalg_pinv.atol_rtol_float",
                   "aten::linalg_pinv.atol_rtol_tensor", "aten::linalg_pinv.atol_rtol_tensor_out"),
                  _pinv_samples, errors=_pinv_errors, supports_out=True),
    # eigh's prim reads one triangle and its derivative is that triangle's; eager's is Hermitian (as
    # opinfo.gradients' linalg.eigh): gradients not compared.
    _linalg_entry("linalg.pinv_hermitian", torch.linalg.pinv, ("aten::linalg_pinv.atol_rtol_tensor",),
                  lambda op, device, dtype: (
                      SampleInput(_well_conditioned(s, device, dtype, hermitian=True) - 2 * s[-1] *
                                  torch.eye(s[-1], device=device, dtype=dtype), kwargs={"hermitian": True},
                                  name=f"{s} indefinite") for s in SQUARE_SHAPES),
                  supports_autograd=False),
    # Tolerances that drop singular values. Eager's pinv derivative is the constant-rank formula (as if
    # nothing were dropped), not the derivative of the truncated result that primkit's SVD path gives.
    _linalg_entry("linalg.pinv_truncated", torch.linalg.pinv,
                  ("aten::linalg_pinv", "aten::linalg_pinv.atol_rtol_float", "aten::linalg_pinv.atol_rtol_tensor"),
                  _pinv_truncated_samples, supports_autograd=False),
    _linalg_entry("pinverse", torch.pinverse, ("aten::pinverse",),
                  lambda op, device, dtype: (SampleInput(make(s, device, dtype, low=-1, high=1), kwargs=kw, name=f"{s} {kw}")
                                             for s in ((4, 3), (2, 3, 5)) for kw in ({}, {"rcond": 1e-3})),
                  errors=lambda op, device: [ErrorInput(SampleInput(make_f32((3,), device)), RuntimeError, "2 or more dimensions")]),
    _linalg_entry("linalg.matrix_exp", linalg_matrix_exp, ("aten::linalg_matrix_exp", "aten::linalg_matrix_exp.out"),
                  _matrix_exp_samples, dtypes=MATRIX_EXP_DTYPES, supports_out=True,
                  xfails=EAGER_HALF_MATRIX_EXP,
                  errors=error_rows((lambda d: (make_f32((3, 4), d), (), {}), RuntimeError, "square matrices"),
                                (lambda d: (make_f32((3, 3), d, torch.int64), (), {}), RuntimeError, "floating point or complex"))),
    # aten::matrix_exp is registered to linalg_matrix_exp's function, checked above on every sample
    # (each traces to ~500 prims): its routing is checked on a spread of them.
    _linalg_entry("matrix_exp", torch.matrix_exp, ("aten::matrix_exp",),
                  lambda op, device, dtype: variant_samples([s for s in _matrix_exp_samples(op, device, dtype)
                                                             if "*" in s.name], 6),
                  dtypes=MATRIX_EXP_DTYPES,
                  xfails=EAGER_HALF_MATRIX_EXP),
    # The CompositeImplicitAutograd backward torch.export keeps when a program calls it: exp of a 2n x 2n
    # block matrix, whose degree (a single matrix) and squarings follow from its norm as the forward's.
    # The block's exp is linalg_matrix_exp (every sample above); a spread of 8 samples checks the block.
    _linalg_entry("aten.matrix_exp_backward", aten.matrix_exp_backward, ("aten::matrix_exp_backward",),
                  lambda op, device, dtype: (SampleInput(s.input, (make(s.input.shape, device, dtype, low=-1, high=1),),
                                                         name=s.name)
                                             for s in variant_samples(list(_matrix_exp_samples(op, device, dtype)), 8)),
                  dtypes=MATRIX_EXP_DTYPES, xfails=EAGER_HALF_MATRIX_EXP, supports_autograd=False),
]
