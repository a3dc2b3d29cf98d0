"""Functions of a matrix built on the factorizations: eager's composites (norms, eigvals, ...), the
condition number, the matrix power, the pseudo-inverse and the matrix exponential.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, register_overloads, round_to, to_dtype
from primkit.decompositions.linalg.factorizations import (
    LAPACK_DTYPES, _check_linalg_dtype, _check_square, _identity_like)
from primkit.decompositions.linalg.products import conj_transpose
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.prims import dtypes as dt


# --- eager's composites ---------------------------------------------------------------------------
# These ops are CompositeImplicitAutograd: eager defines them in terms of the factorizations
# above (_linalg_eigh, _linalg_svd, lu_factor, _linalg_det, _linalg_solve_ex, matmul, norms),
# all of which decompose. Their decomposition is eager's own composite, run explicitly, so the
# table owns exactly eager's semantics and every op it reaches lowers to prims.

def _eager_composite(name, overloads=None):
    packet = getattr(aten, name)
    for overload in overloads or packet.overloads():
        op = getattr(packet, overload)

        def eager_composite(*args, _op=op, **kwargs):
            # the C++ composite itself (op.decompose would run the Python kernel that
            # decompositions.composite installs: this very function)
            return _op._op_dk(torch._C.DispatchKey.CompositeImplicitAutograd, *args, **kwargs)
        eager_composite.__qualname__ = eager_composite.__name__ = f"{name}.{overload}[eager composite]"
        register(op)(eager_composite)


for _name in ("linalg_eigh", "linalg_eigvalsh", "linalg_svd", "linalg_svdvals", "svd", "qr", "linalg_det", "det",
              "logdet", "slogdet", "linalg_slogdet", "linalg_inv", "inverse", "linalg_solve", "linalg_solve_ex",
              "linalg_matrix_rank", "linalg_norm", "linalg_matrix_norm",
              "nuclear_norm", "linalg_multi_dot", "chain_matmul", "linalg_matmul", "linalg_vecdot",
              "linalg_diagonal", "linalg_tensorsolve", "linalg_tensorinv"):
    _eager_composite(_name)
_eager_composite("linalg_eigvals", ("default",))


# --- condition number ----------------------------------------------------------------------------

_COND_ORDS = (1, -1, 2, -2, float("inf"), float("-inf"), "fro", "nuc")


def linalg_cond(a, p=None):
    """Eager's linalg.cond: for p = None / 2 / -2 the ratio of the extreme singular values, for 'nuc'
    sum(s) * sum(1 / s) over the singular values; else norm(A, p) * norm(A^-1, p), A^-1 all inf
    where A is singular (a zero pivot of its LU factorization, eager's info > 0), and a product
    nan (0 * inf) made inf. 0 for empty matrices."""
    if a.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord = 2 if p is None else p
    if ord not in _COND_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    _check_linalg_dtype("linalg.cond", a)
    real = dt.to_real(a.dtype)
    if a.numel() == 0:
        return P.full(list(a.shape[:-2]), 0, dtype=real, device=a.device)
    if ord in (2, -2):
        s = torch.linalg.svdvals(a)
        high, low = aten.select.int(s, -1, 0), aten.select.int(s, -1, -1)
        return P.div(high, low) if ord == 2 else P.div(low, high)
    if a.shape[-1] != a.shape[-2]:
        shown = ord if isinstance(ord, str) else (f"{float(ord):f}" if isinstance(ord, float) and abs(ord) != float("inf")
                                                   else int(ord) if abs(ord) != float("inf") else ord)
        raise RuntimeError(f"linalg.cond(ord={shown}): A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if ord == "nuc":    # eager: the nuclear norms from the singular values, sum(s) * sum(1 / s)
        s = torch.linalg.svdvals(a)
        return torch.sum(s, -1) * torch.sum(torch.reciprocal(s), -1)
    lu, pivots = P.lu_factor(a)
    inverse = P.lu_solve(lu, pivots, _identity_like(a), True, False)
    diagonal = P.diagonal(lu, 0, a.dim() - 2, a.dim() - 1)
    zero = P.full(list(diagonal.shape), 0, dtype=a.dtype, device=a.device)
    singular = P.reduce_or(P.eq(diagonal, zero), [diagonal.dim() - 1])      # batch shape
    # the norm of eager's all-inf inverse is inf (taken on zeros here: an svd of inf does not converge)
    safe = P.where(P.broadcast_in_dim(singular, list(a.shape), list(range(a.dim() - 2))),
                   P.full(list(a.shape), 0, dtype=a.dtype, device=a.device), inverse)
    inf = P.full(list(singular.shape), float("inf"), dtype=real, device=a.device)
    product = P.mul(torch.linalg.matrix_norm(a, ord), P.where(singular, inf, torch.linalg.matrix_norm(safe, ord)))
    return P.where(P.ne(product, product), inf, product)


register_overloads(linalg_cond, "linalg_cond", ("default", "p_str", "out", "p_str_out"))


# --- matrix power --------------------------------------------------------------------------------

def matrix_power(a, n):
    """Eager's linalg.matrix_power, product for product: A^0 the identity, A^-1 the inverse, A^-n (A^-1)^n, A^1 a copy,
    A^2 and A^3 direct products, higher powers by binary exponentiation (squares z, and the result
    times z at each set bit, low bits first). Contiguous, as eager's."""
    if a.dim() < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if n == 0:
        return aten.contiguous.default(_identity_like(a))
    if n == -1:
        return torch.linalg.inv(a)
    if n < 0:
        a, n = torch.linalg.inv(a), -n
    if n == 1:
        return aten.contiguous.default(P.clone(a))
    if n == 2:
        return torch.matmul(a, a)
    if n == 3:
        return torch.matmul(torch.matmul(a, a), a)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = a if z is None else torch.matmul(z, z)
        if bit:
            result = z if result is None else torch.matmul(result, z)
    return result


register_overloads(matrix_power, "linalg_matrix_power", ("default", "out"))
register_overloads(matrix_power, "matrix_power", ("default", "out"))


# --- pseudo-inverse ---------------------------------------------------------------------------------
# Eager's definition: through the SVD (the eigendecomposition when hermitian), the singular values
# at most max(atol, rtol * largest) dropped. The tolerances are float64 tensors, as eager's.

def _tolerance(what, value, device):
    """A tolerance as eager holds it: a number becomes a float64 0-d tensor; complex is refused."""
    if value is None:
        return None
    if isinstance(value, torch.Tensor):
        if value.dtype in dt.COMPLEX:
            raise RuntimeError(f"torch.linalg.pinv: {what} tensor of complex type is not supported. Got "
                               f"{dt.short(value.dtype)}")
        return value
    return P.scalar_tensor(value, dtype=torch.float64, device=device)


def pinv(a, atol=None, rtol=None, hermitian=False):
    if a.dim() < 2 or a.dtype not in LAPACK_DTYPES:
        raise RuntimeError(f"linalg.pinv({dt.short(a.dtype)}{{{list(a.shape)}}}): expected a tensor with 2 or more "
                           f"dimensions of float, double, cfloat or cdouble types")
    atol = _tolerance("atol", atol, a.device)
    rtol = _tolerance("rtol", rtol, a.device)
    m, n = a.shape[-2], a.shape[-1]
    if a.numel() == 0:     # before eager's eigh, which would refuse a (0, 3) matrix as not square
        return torch.zeros(*a.shape[:-2], n, m, dtype=a.dtype, device=a.device)
    if hermitian:
        _check_square("linalg.eigh", a)
    if atol is None:
        atol_given, atol = False, P.scalar_tensor(0.0, dtype=torch.float64, device=a.device)
    else:
        atol_given = True
    if rtol is None:
        default = P.scalar_tensor(torch.finfo(dt.to_real(a.dtype)).eps * max(m, n), dtype=torch.float64,
                                  device=a.device)
        rtol = torch.where(atol > 0, torch.zeros_like(default), default) if atol_given else default
    if hermitian:
        s, u = P.eigh(a, False)
        largest = torch.amax(torch.abs(s), -1, keepdim=True)
    else:
        u, s, vh = P.svd(a, False)
        largest = s[..., :1]
    tol = torch.maximum(atol.unsqueeze(-1), rtol.unsqueeze(-1) * largest)
    kept = (torch.abs(s) if hermitian else s) > tol
    s_inv = torch.where(kept, torch.reciprocal(s), torch.zeros((), dtype=s.dtype, device=s.device)).to(a.dtype)
    u_h = conj_transpose(u)
    if hermitian:
        return torch.matmul(u * s_inv.unsqueeze(-2), u_h)
    return torch.matmul(conj_transpose(vh) * s_inv.unsqueeze(-2), u_h)


def _pinv_rcond(a, rcond, hermitian=False):
    """rcond is NumPy's name for rtol, with atol = 0."""
    return pinv(a, 0.0, _tolerance("rcond", rcond, a.device), hermitian)


def _pinv_tolerances(a, *, atol=None, rtol=None, hermitian=False):
    return pinv(a, atol, rtol, hermitian)


register_overloads(_pinv_rcond, "linalg_pinv", ("default", "out", "rcond_tensor", "out_rcond_tensor"))
register_overloads(_pinv_tolerances, "linalg_pinv", ("atol_rtol_float", "atol_rtol_float_out", "atol_rtol_tensor",
                                                      "atol_rtol_tensor_out"))


@register(aten.pinverse.default)
def pinverse(a, rcond=1e-15):
    return _pinv_rcond(a, rcond)


# --- matrix exponential -------------------------------------------------------------------------------
# Eager's algorithm (Bader, Blanes and Casas 2019), so that the values are eager's: a single matrix
# takes the Taylor polynomial of the least degree in (1, 2, 4, 8, 12) whose bound theta its 1-norm is
# within, each evaluated with eager's few products and coefficients; a larger norm, and every matrix
# of a batch of several, takes degree 18 with scaling and squaring: exp(A) = T18(A / 2^s)^(2^s), s the
# least with ||A / 2^s||_1 <= theta_18.
# The degree and s depend on the data: the graph evaluates every polynomial and selects per matrix,
# and holds MAX_SQUARINGS squarings, each kept only where it is due. A matrix with a 1-norm above
# theta_18 * 2^MAX_SQUARINGS (1.3e10 in float32, 4.7e9 in float64) would need more: its result is
# nan, not a silently under-squared one (eager's, finite, has lost all precision there).

MATRIX_EXP_THETAS = {   # bounds of degrees 1, 2, 4, 8, 12, 18
    torch.float32: (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02, 5.800524627688768e-01,
                    1.461661507209034e+00, 3.010066362817634e+00),
    torch.float64: (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04, 4.991228871115323e-02,
                    2.996158913811580e-01, 1.090863719290036e+00),
}
MAX_SQUARINGS = 32


# Degree 12: B_i = sum_j T12_B[i][j] * A^j (j = 0..3); A6 = B_2 + B_3^2; T12 = B_0 + (B_1 + A6) A6.
T12_B = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
         (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031, 0.01108844528519167989),
         (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968, 0.00610700528898058230),
         (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079, -0.00675951846863086359))


# Degree 18: B_i = sum_j T18_B[i][j] * (I, A, A^2, A^3, A^6)_j; A9 = B_0 B_4 + B_3; T18 = B_1 + (B_2 + A9) A9.
T18_B = ((0., -1.00365581030144618291e-01, -8.02924648241156932449e-03, -8.92138498045729985177e-04, 0.),
         (0., 3.97849749499645077844e-01, 1.36783778460411720168e+00, 4.98289622525382669416e-01,
          -6.37898194594723280150e-04),
         (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
          -6.98210122488052056106e-03, 3.34975017086070470649e-05),
         (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
          2.95552570429315521194e-02, -1.39180257516060693404e-05),
         (0., 0., -9.23364619367118555360e-02, -1.69364939002081722752e-02, -1.40086798182036094347e-05))


def _t8_coefficients(real):
    """Degree 8's coefficients, computed as eager computes them (each rounded to ``real``)."""
    r = lambda v: round_to(v, real)   # noqa: E731
    sqrt_177, x3 = r(0.1330413469565007072504e+2), r(2. / 3.)
    return dict(x1=r(x3 * ((1. + sqrt_177) / 88.)), x2=r(x3 * ((1. + sqrt_177) / 352.)), x3=x3,
                x4=r((-271. + 29. * sqrt_177) / (315. * x3)), x5=r((-11. + 11. * sqrt_177) / (1260. * x3)),
                x6=r((-99. + 11. * sqrt_177) / (5040. * x3)), x7=r((89. - sqrt_177) / (5040. * x3)),
                y2=r((857. - 58. * sqrt_177) / 630.))


def _combination(mats, coefficients, real):
    """sum_j c_j * M_j, term by term in order (eager's _compute_linear_combination)."""
    total = None
    for m, c in zip(mats, coefficients):
        term = m * round_to(c, real)
        total = term if total is None else total + term
    return total


def _taylor_polynomials(x, real):
    """exp(x) by the Taylor polynomials of degrees 1, 2, 4, 8, 12 and 18, as eager evaluates them."""
    eye = _identity_like(x)
    x2 = torch.matmul(x, x)
    x3 = torch.matmul(x, x2)
    t1 = eye + x
    t2 = eye + x + x2 / 2.0
    t4 = _combination((eye, x, x2, torch.matmul(x2, _combination((eye, x, x2), (1 / 2.0, 1 / 6.0, 1 / 24.0), real))),
                      (1.0, 1.0, 0.0, 1.0), real)
    c = _t8_coefficients(real)
    x4 = torch.matmul(x2, _combination((x, x2), (c["x1"], c["x2"]), real))
    x8 = torch.matmul(_combination((x2, x4), (c["x3"], 1.0), real),
                      _combination((eye, x, x2, x4), (c["x4"], c["x5"], c["x6"], c["x7"]), real))
    t8 = _combination((eye, x, x2, x4, x8), (1.0, 1.0, c["y2"], 0.0, 1.0), real)
    b = [_combination((eye, x, x2, x3), row, real) for row in T12_B]
    a6 = b[2] + torch.matmul(b[3], b[3])
    t12 = b[0] + torch.matmul(b[1] + a6, a6)
    b = [_combination((eye, x, x2, x3, torch.matmul(x3, x3)), row, real) for row in T18_B]
    a9 = torch.matmul(b[0], b[4]) + b[3]
    t18 = b[1] + torch.matmul(b[2] + a9, a9)
    return t1, t2, t4, t8, t12, t18


def linalg_matrix_exp(a):
    name = "linalg.matrix_exp"
    _check_square(name, a)
    if a.dtype not in dt.FLOAT and a.dtype not in dt.COMPLEX:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {dt.short(a.dtype)}")
    if a.numel() == 0:
        return contiguous(P.clone(a))
    if a.shape[-1] == 1:
        return contiguous(torch.exp(a))    # eager's 1x1 case
    compute = {torch.float16: torch.float32, torch.bfloat16: torch.float32}.get(a.dtype, a.dtype)
    x = to_dtype(a, compute)
    real = dt.to_real(compute)
    thetas = MATRIX_EXP_THETAS[real]
    norm = torch.amax(torch.sum(torch.abs(x), -2), -1)[..., None, None]
    # Degree 18 with scaling and squaring, for the norms from theta_12 on.
    squarings = torch.clamp(torch.ceil(torch.log2(norm / thetas[5])), min=0)
    scaled = x / torch.exp2(torch.clamp(squarings, max=MAX_SQUARINGS)).to(real)
    result = _taylor_polynomials(scaled, real)[5]
    for i in range(MAX_SQUARINGS):
        result = torch.where(squarings > i, torch.matmul(result, result), result)
    result = torch.where(squarings > MAX_SQUARINGS, torch.full_like(result, float("nan")), result)
    if math.prod(a.shape[:-2]) > 1:
        return to_dtype(result, a.dtype)     # eager takes degree 18 for every matrix of a batch
    # The lower degrees on their norm intervals (a nan norm is in none: the result is nan, as eager's).
    result = torch.where(norm >= thetas[4], result, torch.full_like(result, float("nan")))
    lower = (-1.0,) + thetas[:4]
    for low, high, t in zip(lower, thetas[:5], _taylor_polynomials(x, real)[:5]):
        result = torch.where((norm > low) & (norm <= high) & (norm < thetas[4]), t, result)
    return to_dtype(result, a.dtype)


register_overloads(linalg_matrix_exp, "linalg_matrix_exp", ("default", "out"))
register(aten.matrix_exp.default)(linalg_matrix_exp)


@register(aten.matrix_exp_backward.default)
def matrix_exp_backward(a, grad):
    """The adjoint of exp at a applied to grad: the upper-right block of exp([[A^H, G], [0, A^H]])."""
    n = a.shape[-1]
    a_h = a.mH
    block = torch.cat([torch.cat([a_h, grad], -1), torch.cat([torch.zeros_like(a), a_h], -1)], -2)
    return linalg_matrix_exp(block)[..., :n, n:]     # eager's result is this view of the block's exp
