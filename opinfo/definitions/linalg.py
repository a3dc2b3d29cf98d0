"""OpInfo entries: matrix products. Samples are operand shape lists; each shape list also runs
with transposed operands."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import FLOAT32_64, FLOATING, INTEGRAL
from primkit.opinfo.samples import make

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
ALIASED_OUT = ("eager's CompositeImplicit out= form calls mm.out on out and relies on the alias; the decomposed "
               "mm.out returns a new tensor (copy_to)")
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
            _multi_dot_samples, supports_out=True, tolerances=LU_TOLERANCES, xfails=[XFail("out", ALIASED_OUT, raises=AssertionError)]),
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
