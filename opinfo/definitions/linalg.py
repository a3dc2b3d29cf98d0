"""OpInfo entries: matrix products, factorizations and solvers, and the out_dtype products.
Product samples are operand shape lists; each shape list also runs with transposed operands.

Factorization samples are well conditioned (``_well_conditioned``); the prims call the LAPACK
routines eager calls, so most results agree to the last bit. Ops that return a tuple get a second
entry, ``<name>_out``, whose op allocates eager's outputs and calls the out= form, so that those
overloads are traced too (test_out runs single-tensor results only)."""
from __future__ import annotations

import functools

import torch

from primkit.decompositions.linalg import MATRIX_EXP_THETAS
from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.common import aten_entry, error_rows, make_f32, table_entry
from primkit.opinfo.definitions.shape import DENSE, EVERY, cases, errors
from primkit.opinfo.dtypes import ALL, FLOAT32_64, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.harness import variant_samples
from primkit.opinfo.samples import layouts, make

# Integer products run on CPU only: eager's CUDA matmul kernels take floating dtypes.
DTYPES = FLOATING | INTEGRAL


def _transposed(t):
    """The same values laid out column-major in the last two dims."""
    return t.mT.contiguous().mT if t.dim() >= 2 else t


def _products(shape_lists):
    """Knob-free generator of samples from operand shape lists, each also with transposed operands."""
    def gen(op, device, dtype):
        for shapes in shape_lists:
            operands = [make(s, device, dtype) for s in shapes]
            yield SampleInput(operands[0], tuple(operands[1:]), name=f"{shapes}")
            if any(len(s) >= 2 for s in shapes):
                yield SampleInput(_transposed(operands[0]), tuple(_transposed(t) for t in operands[1:]),
                                  name=f"{shapes} transposed")
            if all(len(s) >= 1 and min(s, default=1) > 1 for s in shapes):
                noncontig = [make(s, device, dtype, noncontiguous=True) for s in shapes]
                yield SampleInput(noncontig[0], tuple(noncontig[1:]), name=f"{shapes} noncontiguous")
    return gen


def _scaled(shape_lists):
    """add* ops: the products above, then beta/alpha variants; beta=0 ignores a nan input."""
    products = _products(shape_lists)

    def gen(op, device, dtype):
        yield from products(op, device, dtype)
        shapes = shape_lists[0]
        operands = [make(s, device, dtype) for s in shapes]
        floating = dtype.is_floating_point
        yield SampleInput(operands[0], tuple(operands[1:]), {"beta": 0.5 if floating else 3,
                                                              "alpha": 2 if floating else -2}, name="beta, alpha")
        if floating:
            nan_input = torch.full(shapes[0], float("nan"), device=device, dtype=dtype)
            yield SampleInput(nan_input, tuple(operands[1:]), {"beta": 0}, name="beta=0 ignores nan input")
    return gen


def _errors(cases):
    def gen(op, device):
        for shapes, dtypes, error, match in cases:
            dtypes = dtypes or (torch.float32,) * len(shapes)
            operands = [make(s, device, d) for s, d in zip(shapes, dtypes)]
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:])), error, match)
    return gen


def _product(name, op, shape_lists, *, aten=None, errors=(), inplace=None, supports_out=True, scaled=False,
             dtypes=DTYPES, tolerances=None, xfails=()):
    return OpInfo(name=name, op=op, aten=aten or (f"aten::{name}",),
                  sample_inputs=(_scaled if scaled else _products)(shape_lists), error_inputs=_errors(errors),
                  dtypes=frozenset(dtypes), dtypes_cuda=FLOATING, inplace=inplace, supports_out=supports_out,
                  tolerances=tolerances or {}, xfails=tuple(xfails), family="linalg")


F32, F64 = torch.float32, torch.float64
MATMUL_SHAPES = (
    [(4,), (4,)], [(3, 4), (4,)], [(3, 4), (4, 5)], [(2, 3, 4), (4,)], [(4,), (2, 4, 5)],
    [(2, 3, 4), (4, 5)], [(3, 4), (2, 4, 5)], [(2, 3, 4), (2, 4, 5)], [(2, 1, 3, 4), (5, 4, 6)],
    [(0, 3, 4), (4, 5)], [(3, 0), (0, 5)], [(1, 1), (1, 1)],
)
# add* ops with float16/bfloat16 round once after scaling (eager) or after the product and
# again after scaling (where a backend's kernel differs): allow one more rounding.
SCALED_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}

# eager's addbmm rounds to float16/bfloat16 after each batch's product; the decomposition
# accumulates the batch in float32 and rounds once.
ADDBMM_TOLERANCES = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2)}

ENTRIES = [
    _product("mm", torch.mm, [[(3, 4), (4, 5)], [(0, 4), (4, 5)], [(3, 0), (0, 5)], [(1, 1), (1, 1)]],
             errors=[([(3,), (4, 5)], None, RuntimeError, "self must be a matrix"),
                     ([(3, 4), (3, 4)], None, RuntimeError, "cannot be multiplied"),
                     ([(3, 4), (4, 5)], (F32, F64), RuntimeError, "same dtype"),
                     ([(3, 4), (4, 5)], (torch.bool, torch.bool), RuntimeError, "")]),
    _product("bmm", torch.bmm, [[(2, 3, 4), (2, 4, 5)], [(0, 3, 4), (0, 4, 5)], [(2, 3, 0), (2, 0, 5)]],
             errors=[([(3, 4), (4, 5)], None, RuntimeError, "must be a 3D tensor"),
                     ([(2, 3, 4), (3, 4, 5)], None, RuntimeError, "Expected size for first two dimensions")]),
    _product("matmul", torch.matmul, MATMUL_SHAPES, aten=("aten::matmul",),
             errors=[([(), (3, 4)], None, RuntimeError, "need to be at least 1D"),
                     ([(3, 4), (3, 4)], None, RuntimeError, "cannot be multiplied"),
                     ([(2, 3, 4), (3, 4, 5)], None, RuntimeError, "must match the size")]),
    _product("nn.functional.linear", torch.nn.functional.linear,
             [[(3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4)],
              [(0, 4), (5, 4), (5,)]],
             aten=("aten::linear",), supports_out=False,
             # bfloat16: the decomposition rounds x @ w.T to bfloat16 before adding the bias, eager's addmm
             # adds it first (one rounding); measured 0.0176 on a result near 0 (bias cancels the product)
             tolerances={torch.bfloat16: (2e-2, 1.6e-2)},
             errors=[([(3, 4), (5, 3)], None, RuntimeError, "cannot be multiplied")]),
    # vector @ matrix: eager's CompositeImplicit matmul ends in an in-place squeeze_ (the table's matmul
    # entry runs instead; see decompositions.composite).
    _product("matmul_vector_matrix", torch.matmul, [[(4,), (4, 5)], [(0,), (0, 5)]], aten=("aten::matmul",)),
    _product("nn.functional.linear_vector_input", torch.nn.functional.linear, [[(4,), (5, 4), (5,)], [(4,), (5, 4)]],
             aten=("aten::linear",), supports_out=False),
    _product("dot", torch.dot, [[(5,), (5,)], [(0,), (0,)], [(1,), (1,)]],
             errors=[([(3, 4), (3, 4)], None, RuntimeError, "1D tensors expected"),
                     ([(3,), (4,)], None, RuntimeError, "inconsistent tensor size"),
                     ([(3,), (3,)], (F32, F64), RuntimeError, "same dtype")]),
    _product("vdot", torch.vdot, [[(5,), (5,)], [(0,), (0,)]],
             errors=[([(3,), (4,)], None, RuntimeError, "inconsistent tensor size")]),
    _product("mv", torch.mv, [[(3, 4), (4,)], [(0, 4), (4,)], [(3, 0), (0,)]],
             errors=[([(3,), (3,)], None, RuntimeError, "vector \\+ matrix @ vector expected"),
                     ([(3, 4), (3,)], None, RuntimeError, "size mismatch")]),
    _product("outer", torch.outer, [[(3,), (4,)], [(0,), (4,)], [(1,), (1,)]], aten=("aten::outer",),
             errors=[([(3, 1), (3,)], None, RuntimeError, "Expected 1-D argument")]),
    _product("addmm", torch.addmm, [[(3, 5), (3, 4), (4, 5)], [(5,), (3, 4), (4, 5)], [(1, 5), (3, 4), (4, 5)],
                                    [(), (3, 4), (4, 5)], [(3, 5), (3, 0), (0, 5)]],
             scaled=True, inplace=torch.Tensor.addmm_, tolerances=SCALED_TOLERANCES,
             errors=[([(4,), (3, 4), (4, 5)], None, RuntimeError, "The expanded size"),
                     ([(3, 5), (3, 4), (3, 5)], None, RuntimeError, "cannot be multiplied")]),
    _product("addmv", torch.addmv, [[(3,), (3, 4), (4,)], [(), (3, 4), (4,)], [(3,), (3, 0), (0,)]],
             scaled=True, inplace=torch.Tensor.addmv_, tolerances=SCALED_TOLERANCES,
             errors=[([(3,), (3, 4), (3,)], None, RuntimeError, "size mismatch")]),
    _product("baddbmm", torch.baddbmm, [[(2, 3, 5), (2, 3, 4), (2, 4, 5)], [(3, 5), (2, 3, 4), (2, 4, 5)],
                                        [(5,), (2, 3, 4), (2, 4, 5)]],
             scaled=True, inplace=torch.Tensor.baddbmm_, tolerances=SCALED_TOLERANCES,
             errors=[([(2, 3, 5), (2, 3, 4), (3, 4, 5)], None, RuntimeError, "")]),
    _product("addbmm", torch.addbmm, [[(3, 5), (2, 3, 4), (2, 4, 5)], [(3, 5), (0, 3, 4), (0, 4, 5)]],
             scaled=True, inplace=torch.Tensor.addbmm_, tolerances=ADDBMM_TOLERANCES,
             errors=[([(3, 5), (2, 3, 4), (3, 4, 5)], None, RuntimeError, "")]),
    _product("addbmm_broadcast_input", torch.addbmm, [[(5,), (2, 3, 4), (2, 4, 5)]], aten=("aten::addbmm",),
             inplace=torch.Tensor.addbmm_, tolerances=ADDBMM_TOLERANCES,
             xfails=[XFail("inplace", "eager's addbmm_ resizes a broadcastable self of shape (5,) to the product's "
                                      "(3, 5); primkit does not resize in-place or out= tensors", raises=RuntimeError)]),
    OpInfo(name="einsum", op=lambda equation, *operands: torch.einsum(equation, *operands), aten=("aten::einsum",),
           sample_inputs=lambda op, device, dtype: (
               SampleInput(eq, tuple(make(s, device, dtype) for s in shapes), name=eq) for eq, shapes in (
                   ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                   ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]), ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
                   ("ij,ij->ij", [(3, 4), (3, 4)]))),
           dtypes=FLOATING, family="linalg"),
    _product("tensordot", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])),
             [[(2, 3, 4), (3, 4, 5)]], aten=("aten::tensordot",), supports_out=False),
]


# --- factorizations, solves and the composites on them -------------------------------------------
# Samples are well conditioned: a + n*I (general), a a^H + n*I (Hermitian positive definite).
# The factorization prims call the same LAPACK kernels as eager, so most results agree to the
# last bit; where the decomposition combines them differently (det as a product of LU's
# diagonal, inverses through lu_solve), float32 gets the tolerances stated beside the entry.
LINALG_DTYPES = frozenset({torch.float32, torch.float64, torch.complex64})
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
RESIZED_SCRATCH = "eager's out= form passes an empty scratch tensor for the kernel to resize; primkit does not resize"
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


ENTRIES += [
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
            _matrices(), errors=_square_errors(), supports_out=True, tolerances=LU_TOLERANCES,
            xfails=[XFail("out", RESIZED_SCRATCH, raises=RuntimeError)]),
    _linalg("det", torch.det, ("aten::det",), _matrices(), errors=_square_errors(), tolerances=LU_TOLERANCES),
    _linalg("logdet", torch.logdet, ("aten::logdet",), _matrices(hermitian=True), tolerances=LU_TOLERANCES,
            dtypes=FLOAT32_64),
    _linalg("linalg.slogdet", LA.slogdet, ("aten::linalg_slogdet", "aten::linalg_slogdet.out", "aten::_linalg_slogdet",
                                           "aten::_linalg_slogdet.sign"),
            _matrices(), errors=_square_errors(), tolerances=LU_TOLERANCES),
    _linalg("slogdet", torch.slogdet, ("aten::slogdet", "aten::slogdet.out"), _matrices(), tolerances=LU_TOLERANCES),
    _linalg("linalg.inv", LA.inv, ("aten::linalg_inv", "aten::linalg_inv.out", "aten::linalg_inv_ex"),
            _matrices(), errors=_square_errors(), supports_out=True, tolerances=LU_TOLERANCES,
            xfails=[XFail("out", RESIZED_SCRATCH, raises=RuntimeError)]),
    _linalg("linalg.inv_ex", LA.inv_ex, ("aten::linalg_inv_ex", "aten::linalg_inv_ex.inverse"), _matrices(),
            errors=_square_errors(), tolerances=LU_TOLERANCES),
    _linalg("inverse", torch.inverse, ("aten::inverse", "aten::inverse.out"), _matrices(), supports_out=True,
            tolerances=LU_TOLERANCES, xfails=[XFail("out", RESIZED_SCRATCH, raises=RuntimeError)]),
    _linalg("linalg.solve", LA.solve, ("aten::linalg_solve", "aten::linalg_solve.out", "aten::_linalg_solve_ex",
                                       "aten::_linalg_solve_ex.result"),
            _solve_samples, supports_out=True, tolerances=LU_TOLERANCES, xfails=[XFail("out", RESIZED_SCRATCH, raises=RuntimeError)]),
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


aten = torch.ops.aten
NUMERIC_NO_BOOL = ALL - {torch.bool}
_linalg_entry = functools.partial(aten_entry, family="linalg", dtypes=LINALG_DTYPES)
_table_entry = functools.partial(table_entry, family="linalg")


WIDE_SHAPES = ((3, 4), (2, 3, 5))


def with_outs(fn):
    """fn called with out=: the out tensors are laid out as fn's results (eager's layout)."""
    def call(*args, **kwargs):
        results = fn(*args, **kwargs)
        return fn(*args, **kwargs, out=tuple(torch.empty_like(r) for r in results))
    call.__name__ = getattr(fn, "__name__", "op")
    return call


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


def _ldl_solve_samples(op, device, dtype):
    for shape in SQUARE_SHAPES:
        ld, pivots = torch.linalg.ldl_factor(_symmetric(shape, device, dtype))
        yield SampleInput(ld, (pivots, make(shape[:-1] + (2,), device, dtype)), name=f"{shape}")
    ld, pivots = torch.linalg.ldl_factor(_symmetric((3, 3), device, dtype))
    yield SampleInput(ld, (pivots, make((2, 3, 2), device, dtype)), name="batch of B, one factor")
    if dtype != torch.complex64:
        yield SampleInput(ld, (pivots, make((3, 2), device, dtype)), {"hermitian": True}, name="real, hermitian=True")


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
    yield ErrorInput(SampleInput(make_f32((3, 4), device), (make_f32((1, 3), device), make_f32((4,), device))), RuntimeError,
                     "Expected 1-D argument vec1")
    yield ErrorInput(SampleInput(make_f32((3, 4), device, torch.int64), (make_f32((3,), device, torch.int64),
                                                                    make_f32((4,), device, torch.int64)), {"beta": 0.5}),
                     RuntimeError, "must not be a floating point number")
    yield ErrorInput(SampleInput(make_f32((3, 4), device), (make_f32((3,), device), make_f32((4,), device)), {"beta": True}),
                     RuntimeError, "Boolean beta only supported for Boolean results")


def _inner_samples(op, device, dtype):
    for sa, sb in (((2, 3), (4, 3)), ((3,), (3,)), ((), (4, 3)), ((2, 3), ()), ((3,), (2, 4, 3)), ((2, 1, 3), (4, 3)),
                   ((0, 3), (4, 3)), ((2, 0), (4, 0))):
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype),), name=f"{sa} {sb}")
    yield SampleInput(make((3, 2), device, dtype).T, (make((3, 4), device, dtype).T,), name="transposed")


def _inner_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((4, 2), device),)), RuntimeError,
                     "the last dimension must match")
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((4, 3), device, F64),)), RuntimeError, "same dtype")


def _tensordot_samples(op, device, dtype):
    for sa, sb, dims in (((2, 3, 4), (3, 4, 5), 2), ((3, 4), (4, 5), 1), ((3, 4), (5, 6), 0),
                         ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (5, 3), ([-2], [-1])),
                         ((2, 1, 4), (3, 4), ([1, 2], [0, 1])), ((2, 3), (1, 5), ([1], [0])),
                         ((0, 3), (3, 2), 1), ((2, 3), (3, 0), 1)):
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype),), {"dims": dims},
                          name=f"{sa} {sb} dims={dims}")
    yield SampleInput(make((4, 3), device, dtype).T, (make((5, 4), device, dtype).T,), {"dims": 1}, name="transposed")


def _tensordot_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((3, 4), device),), {"dims": ([1], [0, 1])}), RuntimeError,
                     "same length")
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((3, 4), device, F64),), {"dims": 1}), RuntimeError,
                     "same dtype")
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((4, 4), device),), {"dims": 1}), RuntimeError,
                     "contracted dimensions need to match")


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
    yield ErrorInput(SampleInput("i,i->i", (make_f32((2,), device), make_f32((3,), device))), RuntimeError,
                     "does not broadcast with previously seen size")
    yield ErrorInput(SampleInput("ij->i", (make_f32((3,), device),)), RuntimeError, "does not match the number of dimensions")
    yield ErrorInput(SampleInput("ii->i", (make_f32((2, 3), device),)), RuntimeError, "is repeated for operand 0")
    yield ErrorInput(SampleInput("i->j", (make_f32((3,), device),)), RuntimeError, "does not appear in the equation")


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
        operands = [make_f32(s, device, torch.float16) for s in shapes]
        if device == "cpu":
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": F32}), NotImplementedError,
                             "CPU")
        else:
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": F64}), RuntimeError,
                             "out_dtype must be the same as input dtype or fp32")
    return gen


def _out_dtype_entry(name, op, shapes, *, scaled=False):
    return _linalg_entry(f"{name}_out_dtype", op, (f"aten::{name}.dtype", f"aten::{name}.dtype_out"),
                 _out_dtype_samples(shapes, scaled=scaled), dtypes=frozenset(), dtypes_cuda=OUT_DTYPE_CUDA,
                 supports_out=True, errors=_out_dtype_errors(shapes), supports_autograd=False)


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
                  lambda op, device, dtype: (SampleInput(_well_conditioned(s, device, dtype, hermitian=True),
                                                         kwargs={"hermitian": True}, name=f"{s}") for s in SQUARE_SHAPES[:2]),
                  dtypes={torch.complex64}, supports_autograd=False,
                  xfails=[XFail(t, "the ldl prims factor complex matrices as symmetric only (ldl_factor C3; cuSOLVER has no "
                                   "complex Hermitian LDL): hermitian=True on a complex input has no decomposition",
                                   raises=NotImplementedError)
                          for t in ("values", "strides")]),
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
    _linalg_entry("addr", torch.addr, ("aten::addr", "aten::addr.out", "aten::addr_"), _addr_samples, dtypes=ALL,
                  inplace=torch.Tensor.addr_, supports_out=True, errors=_addr_errors),
    _linalg_entry("inner", torch.inner, ("aten::inner", "aten::inner.out"), _inner_samples, dtypes=NUMERIC, supports_out=True,
                  errors=_inner_errors),
    _linalg_entry("tensordot_dims", torch.tensordot, ("aten::tensordot", "aten::tensordot.out"), _tensordot_samples,
                  dtypes=NUMERIC, supports_out=True, errors=_tensordot_errors),
    # eager's vander overwrites its cumprod's input in place, and its backward then refuses ("modified by
    # an inplace operation"): no gradient to compare
    _linalg_entry("vander", torch.vander, ("aten::vander",), _vander_samples, dtypes=ALL, supports_autograd=False,
                  errors=lambda op, device: [ErrorInput(SampleInput(make_f32((2, 2), device)), RuntimeError,
                                                        "one-dimensional"),
                                             ErrorInput(SampleInput(make_f32((3,), device), (-1,)), RuntimeError,
                                                        "N must be non-negative")]),
    _linalg_entry("linalg.vander", torch.linalg.vander, ("aten::linalg_vander",), _linalg_vander_samples,
                  dtypes=FLOAT32_64 | INTEGRAL | {torch.complex64},
                  errors=lambda op, device: [ErrorInput(SampleInput(make_f32((3,), device, torch.bool)), RuntimeError,
                                                        "supports floating point, complex, and integer"),
                                             ErrorInput(SampleInput(make_f32((3,), device), kwargs={"N": 1}), RuntimeError,
                                                        "N must be greater than 1")]),
    _linalg_entry("einsum_labels", lambda equation, *operands: torch.einsum(equation, *operands), ("aten::einsum",),
                  _einsum_samples, dtypes=NUMERIC, errors=_einsum_errors),
    _out_dtype_entry("mm", torch.mm, [(3, 4), (4, 5)]),
    _out_dtype_entry("bmm", torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    _out_dtype_entry("addmm", torch.addmm, [(3, 5), (3, 4), (4, 5)], scaled=True),
    _out_dtype_entry("baddbmm", torch.baddbmm, [(2, 3, 5), (2, 3, 4), (2, 4, 5)], scaled=True),
]


def _pairs(*rows, on=EVERY):
    """Samples of binary ops: rows (shape, other shape[, kwargs]) on the layouts ``on`` of the input."""
    def gen(op, device, dtype):
        for shape, other, *kw in rows:
            for name, t in layouts(shape, device, dtype):
                if name in on:
                    yield SampleInput(t, (make(other, device, dtype),), kw[0] if kw else {},
                                      name=f"{name} {shape} {other} {kw}")
    return gen


CROSS = _pairs(((4, 3), (4, 3)), ((3, 5), (3, 5), {"dim": 0}), ((2, 1, 3), (1, 4, 3)), ((0, 3), (0, 3)))


ENTRIES += [
    _table_entry("trace", cases(((4, 5), ()), ((5, 4), ()), ((0, 3), ()), ((1, 1), ())), out=True,
                 dtypes=NUMERIC_NO_BOOL, errs=errors(((2, 3, 4), (), RuntimeError, "expected a matrix"))),
    _table_entry("kron", _pairs(((2, 3), (4, 5)), ((3,), (2, 2)), ((2, 1, 3), (2,)), ((), (3,)), ((0, 2), (3, 1)),
                                on=DENSE), out=True),
    _table_entry("linalg_cross", CROSS, out=True, dtypes=ALL - {torch.bool},
                 errs=lambda op, device: iter([ErrorInput(
                     SampleInput(make((4, 2), device, torch.float32), (make((4, 2), device, torch.float32),)),
                     RuntimeError, "must have length 3")])),
    _table_entry("cross", _pairs(((4, 3), (4, 3)), ((3, 5), (3, 5), {"dim": 0}), ((3, 3), (3, 3))), out=True,
                 dtypes=ALL - {torch.bool}),
]
