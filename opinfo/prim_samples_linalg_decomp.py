"""Samples and constraint error inputs of the linalg_decomp family: well-conditioned matrices
(Hermitian positive-definite M M^H + n I, triangular with a dominant diagonal, full-rank
M + 2n I, symmetric indefinite with a dominant diagonal) in every layout."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.samples import make
from primkit.prims.errors import PrimConstraintError

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


def _error(op, cid, name, *args):
    return ErrorInput(SampleInput(args[0], args[1:], name=f"{cid}: {name}"), PrimConstraintError,
                      f"{op.prim.name}: {cid}:")


def _rank_and_dtype_errors(op, device, square=True, extra=()):
    f = lambda shape, dtype=torch.float32: make(shape, device, dtype)  # noqa: E731
    yield _error(op, "C1", "1-d operand", f((3,)), *extra)
    if square:
        yield _error(op, "C1", "not square", f((3, 4)), *extra)
    yield _error(op, "C2", "int64 operand", f((3, 3), torch.int64), *extra)
    yield _error(op, "C2", "float16 operand", f((3, 3), torch.float16), *extra)


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
    yield _error(op, "C3", "mode 'r'", make((3, 3), device, torch.float32), "r")


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
    yield _error(op, "C1", "1-d a", f((3,)), f((3, 2)), *flags)
    yield _error(op, "C1", "a not square", f((3, 4)), f((3, 2)), *flags)
    yield _error(op, "C2", "b's rank differs", f((3, 3)), f((3,)), *flags)
    yield _error(op, "C2", "batch dims differ", f((2, 3, 3)), f((1, 3, 2)), *flags)
    yield _error(op, "C3", "b's rows differ", f((3, 3)), f((4, 2)), *flags)
    yield _error(op, "C3", "b's columns differ (right side)", f((3, 3)), f((3, 2)), False, False, False)
    yield _error(op, "C4", "dtypes differ", f((3, 3)), f((3, 2), torch.float64), *flags)
    yield _error(op, "C4", "unsupported dtype", f((3, 3), torch.int64), f((3, 2), torch.int64), *flags)
    yield _error(op, "C4", "devices differ", f((3, 3)), f((3, 2), dev=_other_device(device)), *flags)


def _other_device(device):
    # without a GPU a meta tensor meets a cpu one: the device check fires all the same
    if not torch.cuda.is_available():
        return "meta" if torch.device(device).type != "meta" else "cpu"
    return "cpu" if torch.device(device).type == "cuda" else "cuda"


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
    yield _error(op, "C1", "LU not square", f((3, 4)), piv, f((3, 2)), *flags)
    yield _error(op, "C2", "int64 pivots", f((3, 3)), piv.long(), f((3, 2)), *flags)
    yield _error(op, "C2", "pivots too short", f((3, 3)), piv[:2], f((3, 2)), *flags)
    yield _error(op, "C3", "batch dims differ", f((3, 3)), piv, f((2, 3, 2)), *flags)
    yield _error(op, "C3", "b's rows differ", f((3, 3)), piv, f((4, 2)), *flags)
    yield _error(op, "C4", "dtypes differ", f((3, 3)), piv, f((3, 2), torch.float64), *flags)
    yield _error(op, "C4", "unsupported dtype", f((3, 3), torch.float16), piv, f((3, 2), torch.float16), *flags)
    yield _error(op, "C4", "devices differ", f((3, 3)), piv, f((3, 2), dev=_other_device(device)), *flags)


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
    yield _error(op, "C1", "1-d a", f((3,)), f((1,)))
    yield _error(op, "C1", "more columns than rows", f((3, 4)), f((3,)))
    yield _error(op, "C2", "tau's batch dims differ", f((2, 4, 3)), f((1, 3)))
    yield _error(op, "C2", "tau without batch dims", f((2, 4, 3)), f((3,)))
    yield _error(op, "C2", "more reflectors than columns", f((4, 3)), f((4,)))
    yield _error(op, "C3", "dtypes differ", f((4, 3)), f((3,), torch.float64))
    yield _error(op, "C3", "unsupported dtype", f((4, 3), torch.float16), f((3,), torch.float16))
    yield _error(op, "C3", "devices differ", f((4, 3)), f((3,), dev=_other_device(device)))


def errors_ormqr(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    flags = (True, False)
    yield _error(op, "C1", "1-d a", f((3,)), f((1,)), f((3, 2)), *flags)
    yield _error(op, "C1", "other's rank differs", f((2, 4, 3)), f((2, 3)), f((4, 2)), *flags)
    yield _error(op, "C1", "other's batch dims differ", f((2, 4, 3)), f((2, 3)), f((1, 4, 2)), *flags)
    yield _error(op, "C2", "other's rows differ (left)", f((4, 3)), f((3,)), f((3, 2)), *flags)
    yield _error(op, "C2", "other's columns differ (right)", f((4, 3)), f((3,)), f((4, 2)), False, False)
    yield _error(op, "C3", "tau shorter than min(m, n)", f((4, 3)), f((2,)), f((4, 2)), *flags)
    yield _error(op, "C3", "tau's batch dims differ", f((2, 4, 3)), f((1, 3)), f((2, 4, 2)), *flags)
    yield _error(op, "C4", "dtypes differ", f((4, 3)), f((3,)), f((4, 2), torch.float64), *flags)
    yield _error(op, "C4", "unsupported dtype", f((4, 3), torch.int64), f((3,), torch.int64),
                 f((4, 2), torch.int64), *flags)
    yield _error(op, "C4", "devices differ", f((4, 3)), f((3,)), f((4, 2), dev=_other_device(device)), *flags)


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
    yield _error(op, "C3", "complex64 with hermitian=True", make((3, 3), device, torch.complex64), True)


def errors_ldl_solve(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    piv = torch.ones(3, dtype=torch.int32, device=device)
    yield _error(op, "C1", "LD not square", f((3, 4)), piv, f((3, 2)), False)
    yield _error(op, "C2", "int64 pivots", f((3, 3)), piv.long(), f((3, 2)), False)
    yield _error(op, "C2", "pivots too short", f((3, 3)), piv[:2], f((3, 2)), False)
    yield _error(op, "C3", "batch dims differ", f((3, 3)), piv, f((2, 3, 2)), False)
    yield _error(op, "C3", "B's rows differ", f((3, 3)), piv, f((4, 2)), False)
    yield _error(op, "C4", "dtypes differ", f((3, 3)), piv, f((3, 2), torch.float64), False)
    yield _error(op, "C4", "unsupported dtype", f((3, 3), torch.float16), piv, f((3, 2), torch.float16), False)
    yield _error(op, "C4", "devices differ", f((3, 3)), piv, f((3, 2), dev=_other_device(device)), False)
    yield _error(op, "C5", "complex64 with hermitian=True", f((3, 3), torch.complex64), piv,
                 f((3, 2), torch.complex64), True)


def errors_cholesky_solve(op, device):
    f = lambda shape, dtype=torch.float32, dev=device: make(shape, dev, dtype)  # noqa: E731
    yield _error(op, "C1", "1-d L", f((3, 2)), f((3,)), False)
    yield _error(op, "C1", "L not square", f((3, 2)), f((3, 4)), False)
    yield _error(op, "C2", "B's rank differs", f((3,)), f((3, 3)), False)
    yield _error(op, "C2", "batch dims differ", f((1, 3, 2)), f((2, 3, 3)), False)
    yield _error(op, "C2", "B's rows differ", f((4, 2)), f((3, 3)), False)
    yield _error(op, "C3", "dtypes differ", f((3, 2), torch.float64), f((3, 3)), False)
    yield _error(op, "C3", "unsupported dtype", f((3, 2), torch.int64), f((3, 3), torch.int64), False)
    yield _error(op, "C3", "devices differ", f((3, 2), dev=_other_device(device)), f((3, 3)), False)


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
    yield _error(op, "C1", "1-d a", f((3,)), f((3, 2)))
    yield _error(op, "C2", "b's rank differs", f((4, 3)), f((4,)))
    yield _error(op, "C2", "batch dims differ", f((2, 4, 3)), f((1, 4, 2)))
    yield _error(op, "C2", "b's rows differ", f((4, 3)), f((3, 2)))
    yield _error(op, "C3", "dtypes differ", f((4, 3)), f((4, 2), torch.float64))
    yield _error(op, "C3", "unsupported dtype", f((4, 3), torch.float16), f((4, 2), torch.float16))
    yield _error(op, "C3", "devices differ", f((4, 3)), f((4, 2), dev=_other_device(device)))


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
