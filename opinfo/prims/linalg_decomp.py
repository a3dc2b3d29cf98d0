"""Samples and constraint error inputs of the linalg_decomp family: well-conditioned matrices
(Hermitian positive-definite M M^H + n I, triangular with a dominant diagonal, full-rank
M + 2n I, symmetric indefinite with a dominant diagonal) in every layout."""
from __future__ import annotations

import torch

from primkit.opinfo.core import SampleInput
from primkit.opinfo.prims.common import error, other_device
from primkit.opinfo.prims.strategies import composite, dtype_of, FLOATS, invalid, laid_out, maybe, shapes, st, strided
from primkit.opinfo.samples import make

# square shapes, batched and empty included
SQUARE = ((3, 3), (1, 1), (2, 4, 4), (2, 1, 3, 3), (0, 3, 3), (0, 0))
RECTANGULAR = ((4, 3), (3, 5), (2, 2, 4), (3, 0), (0, 2, 3))


def _matrix_layouts(t):
    """(name, tensor with t's values) in several layouts of the matrix dims."""
    yield "contiguous", t
    yield "transposed", t.mT.contiguous().mT
    wide = torch.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype, device=t.device)
    wide[..., ::2] = t
    yield "noncontiguous", wide[..., ::2]
    if t.dim() >= 3 and t.shape[0] > 1:
        yield "expanded", t[:1].expand(t.shape)


def _general(shape, device, dtype):
    return make(shape, device, dtype, low=-1, high=1)


def _hermitian_pd(shape, device, dtype):
    m = _general(shape, device, dtype)
    n = shape[-1]
    return m @ m.mH + n * torch.eye(n, device=device, dtype=dtype)


def _triangular(shape, device, dtype, upper, unit=False):
    m = _general(shape, device, dtype)
    n = shape[-1]
    t = m.triu() if upper else m.tril()
    return t if unit else t + 2 * n * torch.eye(n, device=device, dtype=dtype)


def _well_conditioned(shape, device, dtype):
    n = min(shape[-2:])
    m = _general(shape, device, dtype)
    return m + 2 * max(n, 1) * torch.eye(shape[-2], shape[-1], device=device, dtype=dtype)


def _rank_and_dtype_errors(op, device, square=True, extra=()):
    f = lambda shape, dtype=torch.float32: make(shape, device, dtype)  # noqa: E731
    yield error(op, "C1", "1-d operand", f((3,)), *extra)
    if square:
        yield error(op, "C1", "not square", f((3, 4)), *extra)
    yield error(op, "C2", "int64 operand", f((3, 3), torch.int64), *extra)
    yield error(op, "C2", "float16 operand", f((3, 3), torch.float16), *extra)


# --- one operand -------------------------------------------------------------------------------

def samples_cholesky(op, device, dtype):
    for shape in SQUARE:
        for name, a in _matrix_layouts(_hermitian_pd(shape, device, dtype)):
            for upper in (False, True):
                yield SampleInput(a, (upper,), name=f"{name} {shape} upper={upper}")


def samples_eigh(op, device, dtype):
    yield from samples_cholesky(op, device, dtype)


def samples_eig(op, device, dtype):
    for shape in SQUARE:
        for name, a in _matrix_layouts(_general(shape, device, dtype)):
            yield SampleInput(a, name=f"{name} {shape}")


def samples_lu_factor(op, device, dtype):
    for shape in SQUARE + RECTANGULAR:
        for name, a in _matrix_layouts(_well_conditioned(shape, device, dtype)):
            yield SampleInput(a, name=f"{name} {shape}")


def samples_qr(op, device, dtype):
    for shape in SQUARE + RECTANGULAR:
        for name, a in _matrix_layouts(_general(shape, device, dtype)):
            for mode in ("reduced", "complete"):
                yield SampleInput(a, (mode,), name=f"{name} {shape} {mode}")


def samples_svd(op, device, dtype):
    for shape in SQUARE + RECTANGULAR:
        for name, a in _matrix_layouts(_general(shape, device, dtype)):
            for full in (False, True):
                yield SampleInput(a, (full,), name=f"{name} {shape} full_matrices={full}")


def errors_cholesky(op, device):
    yield from _rank_and_dtype_errors(op, device, extra=(False,))


def errors_eig(op, device):
    yield from _rank_and_dtype_errors(op, device)


def errors_lu_factor(op, device):
    yield from _rank_and_dtype_errors(op, device, square=False)


def errors_qr(op, device):
    yield from _rank_and_dtype_errors(op, device, square=False, extra=("reduced",))
    yield error(op, "C3", "mode 'r'", make((3, 3), device, torch.float32), "r")


def errors_svd(op, device):
    yield from _rank_and_dtype_errors(op, device, square=False, extra=(True,))


# --- solves ------------------------------------------------------------------------------------

# (a shape, b shape when left, b shape when not left)
SOLVE_CASES = [((3, 3), (3, 2), (2, 3)), ((2, 4, 4), (2, 4, 1), (2, 5, 4)), ((1, 1), (1, 3), (3, 1)),
               ((0, 3, 3), (0, 3, 2), (0, 2, 3)), ((3, 3), (3, 0), (0, 3)), ((0, 0), (0, 2), (2, 0))]


def samples_triangular_solve(op, device, dtype):
    for ashape, left_b, right_b in SOLVE_CASES:
        for upper, left, unit in ((False, True, False), (True, True, False), (False, False, False),
                                  (True, False, True), (False, True, True)):
            a = _triangular(ashape, device, dtype, upper, unit)
            b = _general(left_b if left else right_b, device, dtype)
            flags = f"upper={upper} left={left} unitriangular={unit}"
            for name, a_layout in _matrix_layouts(a):
                yield SampleInput(a_layout, (b, upper, left, unit), name=f"a {name} {ashape} {flags}")
            for name, b_layout in _matrix_layouts(b):
                yield SampleInput(a, (b_layout, upper, left, unit), name=f"b {name} {tuple(b.shape)} {flags}")


def errors_triangular_solve(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    flags = (False, True, False)
    yield error(op, "C1", "1-d a", f((3,)), f((3, 2)), *flags)
    yield error(op, "C1", "a not square", f((3, 4)), f((3, 2)), *flags)
    yield error(op, "C2", "b's rank differs", f((3, 3)), f((3,)), *flags)
    yield error(op, "C2", "batch dims differ", f((2, 3, 3)), f((1, 3, 2)), *flags)
    yield error(op, "C3", "b's rows differ", f((3, 3)), f((4, 2)), *flags)
    yield error(op, "C3", "b's columns differ (right side)", f((3, 3)), f((3, 2)), False, False, False)
    yield error(op, "C4", "dtypes differ", f((3, 3)), f((3, 2), torch.float64), *flags)
    yield error(op, "C4", "unsupported dtype", f((3, 3), torch.int64), f((3, 2), torch.int64), *flags)
    yield error(op, "C4", "devices differ", f((3, 3)), f((3, 2), dev=other_device(device)), *flags)


def samples_lu_solve(op, device, dtype):
    for ashape, left_b, right_b in SOLVE_CASES:
        LU, pivots = torch.linalg.lu_factor(_well_conditioned(ashape, device, dtype))
        for left in (True, False):
            for adjoint in (False, True):
                b = _general(left_b if left else right_b, device, dtype)
                flags = f"left={left} adjoint={adjoint}"
                for name, lu_layout in _matrix_layouts(LU):
                    yield SampleInput(lu_layout, (pivots, b, left, adjoint), name=f"LU {name} {ashape} {flags}")
                for name, b_layout in _matrix_layouts(b):
                    yield SampleInput(LU, (pivots, b_layout, left, adjoint), name=f"b {name} {ashape} {flags}")


def errors_lu_solve(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    piv = torch.ones(3, dtype=torch.int32, device=device)
    flags = (True, False)
    yield error(op, "C1", "LU not square", f((3, 4)), piv, f((3, 2)), *flags)
    yield error(op, "C2", "int64 pivots", f((3, 3)), piv.long(), f((3, 2)), *flags)
    yield error(op, "C2", "pivots too short", f((3, 3)), piv[:2], f((3, 2)), *flags)
    yield error(op, "C3", "batch dims differ", f((3, 3)), piv, f((2, 3, 2)), *flags)
    yield error(op, "C3", "b's rows differ", f((3, 3)), piv, f((4, 2)), *flags)
    yield error(op, "C4", "dtypes differ", f((3, 3)), piv, f((3, 2), torch.float64), *flags)
    yield error(op, "C4", "unsupported dtype", f((3, 3), torch.float16), piv, f((3, 2), torch.float16), *flags)
    yield error(op, "C4", "devices differ", f((3, 3)), piv, f((3, 2), dev=other_device(device)), *flags)


# --- Householder QR: geqrf, householder_product, ormqr ------------------------------------------

# (..., m, n) with m >= n: householder_product's operands
TALL = ((3, 3), (1, 1), (2, 4, 4), (0, 3, 3), (0, 0), (4, 3), (2, 5, 2), (3, 0), (0, 4, 2))


def samples_geqrf(op, device, dtype):
    for shape in SQUARE + RECTANGULAR:
        for name, a in _matrix_layouts(_general(shape, device, dtype)):
            yield SampleInput(a, name=f"{name} {shape}")


def samples_householder_product(op, device, dtype):
    for shape in TALL:
        a, tau = torch.geqrf(_general(shape, device, dtype))
        for name, a_layout in _matrix_layouts(a):
            yield SampleInput(a_layout, (tau,), name=f"a {name} {shape}")
        if shape[-1] > 1:
            yield SampleInput(a, (tau[..., :1].clone(),), name=f"{shape}, fewer reflectors than columns")
        yield SampleInput(a, (tau[..., :0].clone(),), name=f"{shape}, no reflector (identity columns)")


def samples_ormqr(op, device, dtype):
    for shape in SQUARE + RECTANGULAR:
        a, tau = torch.geqrf(_general(shape, device, dtype))
        batch, m = shape[:-2], shape[-2]
        for left, transpose in ((True, False), (True, True), (False, False), (False, True)):
            other = _general(batch + ((m, 2) if left else (2, m)), device, dtype)
            flags = f"left={left} transpose={transpose}"
            for name, a_layout in _matrix_layouts(a):
                yield SampleInput(a_layout, (tau, other, left, transpose), name=f"a {name} {shape} {flags}")
            for name, o_layout in list(_matrix_layouts(other))[1:]:
                yield SampleInput(a, (tau, o_layout, left, transpose), name=f"other {name} {shape} {flags}")
        other = _general(batch + (m, 0), device, dtype)
        yield SampleInput(a, (tau, other, True, False), name=f"{shape} other with no columns")


def errors_geqrf(op, device):
    yield from _rank_and_dtype_errors(op, device, square=False)


def errors_householder_product(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    yield error(op, "C1", "1-d a", f((3,)), f((1,)))
    yield error(op, "C1", "more columns than rows", f((3, 4)), f((3,)))
    yield error(op, "C2", "tau's batch dims differ", f((2, 4, 3)), f((1, 3)))
    yield error(op, "C2", "tau without batch dims", f((2, 4, 3)), f((3,)))
    yield error(op, "C2", "more reflectors than columns", f((4, 3)), f((4,)))
    yield error(op, "C3", "dtypes differ", f((4, 3)), f((3,), torch.float64))
    yield error(op, "C3", "unsupported dtype", f((4, 3), torch.float16), f((3,), torch.float16))
    yield error(op, "C3", "devices differ", f((4, 3)), f((3,), dev=other_device(device)))


def errors_ormqr(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    flags = (True, False)
    yield error(op, "C1", "1-d a", f((3,)), f((1,)), f((3, 2)), *flags)
    yield error(op, "C1", "other's rank differs", f((2, 4, 3)), f((2, 3)), f((4, 2)), *flags)
    yield error(op, "C1", "other's batch dims differ", f((2, 4, 3)), f((2, 3)), f((1, 4, 2)), *flags)
    yield error(op, "C2", "other's rows differ (left)", f((4, 3)), f((3,)), f((3, 2)), *flags)
    yield error(op, "C2", "other's columns differ (right)", f((4, 3)), f((3,)), f((4, 2)), False, False)
    yield error(op, "C3", "tau shorter than min(m, n)", f((4, 3)), f((2,)), f((4, 2)), *flags)
    yield error(op, "C3", "tau's batch dims differ", f((2, 4, 3)), f((1, 3)), f((2, 4, 2)), *flags)
    yield error(op, "C4", "dtypes differ", f((4, 3)), f((3,)), f((4, 2), torch.float64), *flags)
    yield error(op, "C4", "unsupported dtype", f((4, 3), torch.int64), f((3,), torch.int64),
                 f((4, 2), torch.int64), *flags)
    yield error(op, "C4", "devices differ", f((4, 3)), f((3,)), f((4, 2), dev=other_device(device)), *flags)


# --- symmetric indefinite (LDL) and Cholesky solves ------------------------------------------------

def _symmetric_indefinite(shape, device, dtype):
    """M + M^T (symmetric, not Hermitian, when complex) plus a dominant diagonal of alternating sign."""
    m = _general(shape, device, dtype)
    n = shape[-1]
    signs = torch.tensor([(-1.0) ** i for i in range(n)], device=device).to(dtype)
    return m + m.mT + torch.diag_embed(2 * n * signs).expand(shape)


def _ldl_flags(dtype):
    # complex operands: only the symmetric (hermitian=False) factorization (constraint C3)
    return (False,) if dtype.is_complex else (False, True)


def samples_ldl_factor(op, device, dtype):
    for shape in SQUARE:
        for name, a in _matrix_layouts(_symmetric_indefinite(shape, device, dtype)):
            for hermitian in _ldl_flags(dtype):
                yield SampleInput(a, (hermitian,), name=f"{name} {shape} hermitian={hermitian}")


def samples_ldl_solve(op, device, dtype):
    for ashape, left_b, _ in SOLVE_CASES:
        for hermitian in _ldl_flags(dtype):
            LD, pivots = torch.linalg.ldl_factor(_symmetric_indefinite(ashape, device, dtype), hermitian=hermitian)
            B = _general(left_b, device, dtype)
            for name, ld_layout in _matrix_layouts(LD):
                yield SampleInput(ld_layout, (pivots, B, hermitian), name=f"LD {name} {ashape} hermitian={hermitian}")
            for name, b_layout in list(_matrix_layouts(B))[1:]:
                yield SampleInput(LD, (pivots, b_layout, hermitian), name=f"B {name} {ashape} hermitian={hermitian}")


def samples_cholesky_solve(op, device, dtype):
    for ashape, left_b, _ in SOLVE_CASES:
        for upper in (False, True):
            L = torch.linalg.cholesky(_hermitian_pd(ashape, device, dtype), upper=upper)
            B = _general(left_b, device, dtype)
            for name, l_layout in _matrix_layouts(L):
                yield SampleInput(B, (l_layout, upper), name=f"L {name} {ashape} upper={upper}")
            for name, b_layout in list(_matrix_layouts(B))[1:]:
                yield SampleInput(b_layout, (L, upper), name=f"B {name} {ashape} upper={upper}")


def errors_ldl_factor(op, device):
    yield from _rank_and_dtype_errors(op, device, extra=(False,))
    yield error(op, "C3", "complex64 with hermitian=True", make((3, 3), device, torch.complex64), True)


def errors_ldl_solve(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    piv = torch.ones(3, dtype=torch.int32, device=device)
    yield error(op, "C1", "LD not square", f((3, 4)), piv, f((3, 2)), False)
    yield error(op, "C2", "int64 pivots", f((3, 3)), piv.long(), f((3, 2)), False)
    yield error(op, "C2", "pivots too short", f((3, 3)), piv[:2], f((3, 2)), False)
    yield error(op, "C3", "batch dims differ", f((3, 3)), piv, f((2, 3, 2)), False)
    yield error(op, "C3", "B's rows differ", f((3, 3)), piv, f((4, 2)), False)
    yield error(op, "C4", "dtypes differ", f((3, 3)), piv, f((3, 2), torch.float64), False)
    yield error(op, "C4", "unsupported dtype", f((3, 3), torch.float16), piv, f((3, 2), torch.float16), False)
    yield error(op, "C4", "devices differ", f((3, 3)), piv, f((3, 2), dev=other_device(device)), False)
    yield error(op, "C5", "complex64 with hermitian=True", f((3, 3), torch.complex64), piv,
                 f((3, 2), torch.complex64), True)


def errors_cholesky_solve(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    yield error(op, "C1", "1-d L", f((3, 2)), f((3,)), False)
    yield error(op, "C1", "L not square", f((3, 2)), f((3, 4)), False)
    yield error(op, "C2", "B's rank differs", f((3,)), f((3, 3)), False)
    yield error(op, "C2", "batch dims differ", f((1, 3, 2)), f((2, 3, 3)), False)
    yield error(op, "C2", "B's rows differ", f((4, 2)), f((3, 3)), False)
    yield error(op, "C3", "dtypes differ", f((3, 2), torch.float64), f((3, 3)), False)
    yield error(op, "C3", "unsupported dtype", f((3, 2), torch.int64), f((3, 3), torch.int64), False)
    yield error(op, "C3", "devices differ", f((3, 2), dev=other_device(device)), f((3, 3)), False)


# --- least squares -------------------------------------------------------------------------------

def samples_lstsq(op, device, dtype):
    for shape in SQUARE + RECTANGULAR:
        a = _well_conditioned(shape, device, dtype)   # full rank min(m, n)
        b = _general(shape[:-1] + (2,), device, dtype)
        for name, a_layout in _matrix_layouts(a):
            yield SampleInput(a_layout, (b,), name=f"a {name} {shape}")
        for name, b_layout in list(_matrix_layouts(b))[1:]:
            yield SampleInput(a, (b_layout,), name=f"b {name} {tuple(b.shape)}")
        yield SampleInput(a, (_general(shape[:-1] + (0,), device, dtype),), name=f"{shape}, b with no columns")


def errors_lstsq(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    yield error(op, "C1", "1-d a", f((3,)), f((3, 2)))
    yield error(op, "C2", "b's rank differs", f((4, 3)), f((4,)))
    yield error(op, "C2", "batch dims differ", f((2, 4, 3)), f((1, 4, 2)))
    yield error(op, "C2", "b's rows differ", f((4, 3)), f((3, 2)))
    yield error(op, "C3", "dtypes differ", f((4, 3)), f((4, 2), torch.float64))
    yield error(op, "C3", "unsupported dtype", f((4, 3), torch.float16), f((4, 2), torch.float16))
    yield error(op, "C3", "devices differ", f((4, 3)), f((4, 2), dev=other_device(device)))


SPECIFIC = {
    "cholesky": (samples_cholesky, errors_cholesky),
    "triangular_solve": (samples_triangular_solve, errors_triangular_solve),
    "lu_factor": (samples_lu_factor, errors_lu_factor),
    "lu_solve": (samples_lu_solve, errors_lu_solve),
    "qr": (samples_qr, errors_qr),
    "svd": (samples_svd, errors_svd),
    "eigh": (samples_eigh, errors_cholesky),
    "eig": (samples_eig, errors_eig),
    "geqrf": (samples_geqrf, errors_geqrf),
    "householder_product": (samples_householder_product, errors_householder_product),
    "ormqr": (samples_ormqr, errors_ormqr),
    "ldl_factor": (samples_ldl_factor, errors_ldl_factor),
    "ldl_solve": (samples_ldl_solve, errors_ldl_solve),
    "cholesky_solve": (samples_cholesky_solve, errors_cholesky_solve),
    "lstsq": (samples_lstsq, errors_lstsq),
}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def square_matrices(draw, prim, *, spd=False, min_size=0):
    """A batch of well-conditioned square matrices (symmetric positive definite with spd)."""
    batch = draw(shapes(max_dims=1, max_size=2))
    n = draw(st.integers(min_size, 3))
    dtype = dtype_of(draw, prim, FLOATS + [torch.complex64])
    b = torch.testing.make_tensor(batch + (n, n), dtype=dtype, device="cpu", low=-1, high=1) \
        if dtype.is_floating_point or dtype.is_complex else torch.zeros(batch + (n, n), dtype=dtype)
    eye = torch.eye(n, dtype=dtype) * (n + 1)
    a = (b @ b.mH if spd else b) + eye if (dtype.is_floating_point or dtype.is_complex) else b
    return draw(laid_out(a)), batch, n, dtype


@composite
def cholesky_call(draw, prim):
    a, *_ = draw(square_matrices(prim, spd=True))
    if invalid(draw):
        a = a[..., :1, :]
    return SampleInput(a, (draw(st.booleans()),))


@composite
def eigh_call(draw, prim):
    a, *_ = draw(square_matrices(prim, spd=True))
    return SampleInput(a, (draw(st.booleans()),))


@composite
def eig_call(draw, prim):
    a, *_ = draw(square_matrices(prim))
    return SampleInput(maybe(draw, a, a[..., :0]))


@composite
def rectangular_call(draw, prim):
    """qr / svd / lu_factor: any (..., m, n) matrix."""
    batch = draw(shapes(max_dims=1, max_size=2))
    m, n = draw(st.integers(0, 3)), draw(st.integers(0, 3))
    shape, dtype = maybe(draw, batch + (m, n), (n,)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    # full rank (lu_factor rejects a singular matrix): small values plus a dominant diagonal
    values = torch.testing.make_tensor(shape, dtype=dtype, device="cpu", low=-1, high=1)
    if len(shape) >= 2 and (dtype.is_floating_point or dtype.is_complex):
        values = values + torch.eye(m, n, dtype=dtype) * (max(m, n) + 1)
    a = draw(laid_out(values))
    if prim.meta == "qr":
        return SampleInput(a, (maybe(draw, draw(st.sampled_from(["reduced", "complete"])), "r"),))
    if prim.meta == "svd":
        return SampleInput(a, (draw(st.booleans()),))
    return SampleInput(a)


@composite
def _rhs(draw, batch, n, dtype, left):
    k = draw(st.integers(0, 3))
    shape = batch + ((maybe(draw, n, n + 1), k) if left else (k, maybe(draw, n, n + 1)))
    return draw(strided(shape, dtype, low=-1, high=1))


@composite
def triangular_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim))
    left = draw(st.booleans())
    b = draw(_rhs(batch, n, dtype, left))
    return SampleInput(a, (b, draw(st.booleans()), left, draw(st.booleans())))


@composite
def lu_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, min_size=1))
    if dtype not in prim.dtypes:    # no factorization of it: LU's dtype is the point (C4)
        lu, pivots = a, torch.ones(batch + (n,), dtype=torch.int32)
    else:
        lu, pivots = torch.linalg.lu_factor(a)
    left = draw(st.booleans())
    b = draw(_rhs(batch, n, dtype, left))
    pivots = draw(laid_out(pivots))
    return SampleInput(draw(laid_out(lu)), (maybe(draw, pivots, pivots.to(torch.int64)), b, left, draw(st.booleans())))


@composite
def _matrix(draw, batch, m, n, dtype):
    """A (batch..., m, n) matrix of dtype in a random layout, of small values (-1 .. 1)."""
    return draw(strided(batch + (m, n), dtype, low=-1, high=1))


@composite
def householder_product_call(draw, prim):
    batch, dtype = draw(shapes(max_dims=1, max_size=2)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    n = draw(st.integers(0, 3))
    m = maybe(draw, n + draw(st.integers(0, 2)), max(n - 1, 0))
    tau = draw(strided(batch + (draw(st.integers(0, n)),), dtype, low=-1, high=1))
    return SampleInput(draw(_matrix(batch, m, n, dtype)), (tau,))


@composite
def ormqr_call(draw, prim):
    batch, dtype = draw(shapes(max_dims=1, max_size=2)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    m, n, k = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
    left = draw(st.booleans())
    other = draw(_matrix(batch, *(((maybe(draw, m, m + 1), k) if left else (k, maybe(draw, m, m + 1)))), dtype))
    tau = draw(strided(batch + (min(m, n),), dtype, low=-1, high=1))
    return SampleInput(draw(_matrix(batch, m, n, dtype)), (tau, other, left, draw(st.booleans())))


@composite
def ldl_factor_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, spd=True))
    return SampleInput(a, (maybe(draw, not dtype.is_complex and draw(st.booleans()), True),))


@composite
def ldl_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, spd=True))
    hermitian = maybe(draw, not dtype.is_complex and draw(st.booleans()), True)
    if dtype in prim.dtypes:
        ld, pivots = torch.linalg.ldl_factor(a, hermitian=hermitian and not dtype.is_complex)
    else:   # no factorization of it: LD's dtype is the point (C4)
        ld, pivots = a, torch.ones(batch + (n,), dtype=torch.int32)
    pivots = draw(laid_out(pivots))
    b = draw(_rhs(batch, n, dtype, True))
    return SampleInput(draw(laid_out(ld)), (maybe(draw, pivots, pivots.to(torch.int64)), b, hermitian))


@composite
def cholesky_solve_call(draw, prim):
    a, batch, n, dtype = draw(square_matrices(prim, spd=True))
    upper = draw(st.booleans())
    if dtype in prim.dtypes:
        a = torch.linalg.cholesky(a, upper=upper)
    b = draw(_rhs(batch, n, dtype, True))
    return SampleInput(b, (draw(laid_out(a)), upper))


@composite
def lstsq_call(draw, prim):
    batch, dtype = draw(shapes(max_dims=1, max_size=2)), dtype_of(draw, prim, FLOATS + [torch.complex64])
    m, n, k = draw(st.integers(0, 3)), draw(st.integers(0, 3)), draw(st.integers(0, 3))
    return SampleInput(draw(_matrix(batch, m, n, dtype)), (draw(_matrix(batch, maybe(draw, m, m + 1), k, dtype)),))


STRATEGIES = {"cholesky": cholesky_call, "eigh": eigh_call, "eig": eig_call, "qr": rectangular_call, "svd": rectangular_call, "lu_factor": rectangular_call, "triangular_solve": triangular_solve_call, "lu_solve": lu_solve_call, "householder_product": householder_product_call, "ormqr": ormqr_call, "ldl_factor": ldl_factor_call, "ldl_solve": ldl_solve_call, "cholesky_solve": cholesky_solve_call, "lstsq": lstsq_call}
