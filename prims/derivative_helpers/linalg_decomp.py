"""Derivative helpers of the linalg_decomp family (cholesky, triangular_solve, qr, svd,
eigh, eig, solves). Gradients follow PyTorch's conjugate Wirtinger convention: for a real input
the gradient is the real part of the complex one.

A prim that reads one triangle of its operand (cholesky, eigh) is a function of that triangle
only, so its gradient is zero on the other (strict) triangle: for a Hermitian H (eager's
gradient) the prim's is ``tril(H + H^H, -1) + diag(H)`` (``hermitian_to_triangle``). Both give the
same gradient through anything that builds a Hermitian operand.
"""
from __future__ import annotations

import torch

from primkit.prims.derivative_helpers.common import full, prim_ops


# --- elementary matrix helpers -----------------------------------------------------------------

def mH(x):
    """The conjugate transpose of x over its last two dims."""
    ops = prim_ops()
    dims = list(range(x.dim()))
    dims[-2], dims[-1] = dims[-1], dims[-2]
    t = ops.permute(x, dims)
    return ops.conj_physical(t) if x.is_complex() else t


def _triangle_mask(x, offset, lower):
    """bool (..., m, n) like x: True on and below diagonal ``offset`` (lower), on and above (upper)."""
    ops = prim_ops()
    m, n = x.shape[-2], x.shape[-1]
    rows = ops.broadcast_in_dim(ops.iota(m, start=0, step=1, dtype=torch.int64, device=x.device), [m, n], [0])
    cols = ops.broadcast_in_dim(ops.iota(n, start=-offset, step=1, dtype=torch.int64, device=x.device), [m, n], [1])
    mask = ops.ge(rows, cols) if lower else ops.le(rows, cols)
    return ops.broadcast_in_dim(mask, list(x.shape), [x.dim() - 2, x.dim() - 1])


def tril(x, offset=0):
    """x with the elements above diagonal ``offset`` zeroed (torch.tril)."""
    return prim_ops().where(_triangle_mask(x, offset, True), x, full(x.shape, 0, x))


def triu(x, offset=0):
    """x with the elements below diagonal ``offset`` zeroed (torch.triu)."""
    return prim_ops().where(_triangle_mask(x, offset, False), x, full(x.shape, 0, x))


def _eye_mask(n, device):
    """bool (n, n): True on the diagonal."""
    ops = prim_ops()
    idx = ops.iota(n, start=0, step=1, dtype=torch.int64, device=device)
    return ops.eq(ops.broadcast_in_dim(idx, [n, n], [0]), ops.broadcast_in_dim(idx, [n, n], [1]))


def diag_embed(v):
    """The (..., n, n) matrices with v (..., n) on the diagonal, zero elsewhere."""
    ops = prim_ops()
    n = v.shape[-1]
    shape = list(v.shape) + [n]
    mask = ops.broadcast_in_dim(_eye_mask(n, v.device), shape, [v.dim() - 1, v.dim()])
    return ops.where(mask, ops.broadcast_in_dim(v, shape, list(range(v.dim()))), full(shape, 0, v))


def eye_like(x):
    """The identity matrices shaped like the square x (..., n, n), in x's dtype and device."""
    return diag_embed(full(x.shape[:-1], 1, x))


def diag(x):
    """The diagonal (..., n) of square matrices x (..., n, n)."""
    return prim_ops().diagonal(x, 0, -2, -1)


def real_diag_part(x):
    """x with its diagonal replaced by its real part (a matrix whose diagonal is real)."""
    ops = prim_ops()
    if not x.is_complex():
        return x
    d = diag(x)
    return ops.add(ops.sub(x, diag_embed(d)), diag_embed(ops.convert_element_type(ops.real(d), x.dtype)))


def hermitian_to_triangle(h, upper):
    """The gradient of a function of one triangle of A (the lower, or the upper when ``upper``)
    given h, its gradient as a function of the Hermitian A: each strict-triangle element stands
    for itself and its mirrored conjugate, so it collects h + h^H there; the diagonal keeps h's
    real part (a Hermitian matrix's diagonal is real)."""
    ops = prim_ops()
    both = ops.add(h, mH(h))
    strict = triu(both, 1) if upper else tril(both, -1)
    return ops.add(strict, diag_embed(diag(real_diag_part(h))))


def phi(x):
    """The lower triangle of x with its diagonal halved (Cholesky's and QR's Phi)."""
    ops = prim_ops()
    return ops.sub(tril(x), ops.mul(diag_embed(diag(x)), full(x.shape, 0.5, x)))


# --- solves ------------------------------------------------------------------------------------

def _mm(*xs):
    out = xs[0]
    for x in xs[1:]:
        out = prim_ops().matmul(out, x)
    return out


def _neg(x):
    return prim_ops().neg(x)


def triangular_solve_b_grad(grad, a, upper, left, unitriangular):
    """The gradient of triangular_solve in b: the solve with A^H (the mirrored triangle of a^H)."""
    return prim_ops().triangular_solve(mH(a), grad, not upper, left, unitriangular)


def triangular_solve_a_grad(grad, a, result, upper, left, unitriangular):
    """The gradient of triangular_solve in a: -gB X^H (left) or -X^H gB, on the triangle it reads
    (the strict one when unitriangular)."""
    gb = triangular_solve_b_grad(grad, a, upper, left, unitriangular)
    g = _neg(_mm(gb, mH(result)) if left else _mm(mH(result), gb))
    offset = (1 if upper else -1) if unitriangular else 0
    return triu(g, offset) if upper else tril(g, offset)


def cholesky_solve_l_grad(grad, B, L, upper, result):
    """The gradient of cholesky_solve in its factor: with A = L L^H (U^H U when upper) and
    gB = A^-1 grad, gA = -gB X^H; through A it is -(gA + gA^H) L (-U (gA + gA^H)), on the triangle read."""
    ops = prim_ops()
    gb = ops.cholesky_solve(grad, L, upper)
    s = ops.add(_mm(gb, mH(result)), _mm(result, mH(gb)))
    return _neg(triu(_mm(L, s)) if upper else tril(_mm(s, L)))


def _unpack_lu(LU):
    """(L, U) of a square packed LU: unit-lower L, upper U."""
    ops = prim_ops()
    return ops.add(tril(LU, -1), eye_like(LU)), triu(LU)


def lu_solve_b_grad(grad, LU, pivots, left, adjoint):
    """The gradient of lu_solve in b: the solve with A^H for A."""
    return prim_ops().lu_solve(LU, pivots, grad, left, not adjoint)


def lu_solve_lu_grad(grad, LU, pivots, left, adjoint, result):
    """The gradient of lu_solve in LU. gA, the gradient in A = P L U, is -gB X^H (or its variants by
    side and adjoint); P^T gA is L U A^-1 gA (no permutation needed), and A = P L U gives
    gL = P^T gA U^H (strict lower part) and gU = L^H P^T gA (upper part), packed as LU."""
    ops = prim_ops()
    gb = lu_solve_b_grad(grad, LU, pivots, left, adjoint)
    x = result
    if left:
        ga = _neg(_mm(x, mH(gb)) if adjoint else _mm(gb, mH(x)))
    else:
        ga = _neg(_mm(mH(gb), x) if adjoint else _mm(mH(x), gb))
    L, U = _unpack_lu(LU)
    pt_ga = _mm(L, U, ops.lu_solve(LU, pivots, ga, True, False))
    return ops.add(tril(_mm(pt_ga, mH(U)), -1), triu(_mm(mH(L), pt_ga)))


def _part(x, rows=None, cols=None):
    """x[..., rows, cols] for two slices (start, stop) of the last two dims; None keeps the dim."""
    lo, hi = [0] * x.dim(), list(x.shape)
    for d, span in ((-2, rows), (-1, cols)):
        if span is not None:
            lo[d], hi[d] = span
    return prim_ops().slice(x, lo, hi, [1] * x.dim())


def _row_permutation(pivots, m):
    """perm (..., m), int64: row i of P^T A is row perm[i] of A, for LAPACK's row swaps (row i with
    row pivots[i] - 1, i in order)."""
    ops = prim_ops()
    batch = list(pivots.shape[:-1])
    shape, last = batch + [m], len(batch)
    rows = ops.broadcast_in_dim(ops.iota(m, start=0, step=1, dtype=torch.int64, device=pivots.device), shape, [last])
    perm = rows
    for i in range(pivots.shape[-1]):
        one = _part_last(pivots, i)
        j = ops.sub(ops.convert_element_type(one, torch.int64),
                    ops.full(list(one.shape), 1, dtype=torch.int64, device=pivots.device))   # (..., 1)
        at_i = ops.broadcast_in_dim(_part_last(perm, i), shape, list(range(last + 1)))
        at_j = ops.broadcast_in_dim(ops.gather(perm, last, j), shape, list(range(last + 1)))
        is_i = ops.eq(rows, ops.full(shape, i, dtype=torch.int64, device=pivots.device))
        is_j = ops.eq(rows, ops.broadcast_in_dim(j, shape, list(range(last + 1))))
        perm = ops.where(is_i, at_j, ops.where(is_j, at_i, perm))
    return perm


def _part_last(x, i):
    lo, hi = [0] * x.dim(), list(x.shape)
    lo[-1], hi[-1] = i, i + 1
    return prim_ops().slice(x, lo, hi, [1] * x.dim())


def lu_factor_back(grads, a, results):
    """The gradient of lu_factor, A = P L U (L m x k unit lower, U k x n upper, k = min(m, n)).
    gL (strict lower part of the packed gradient) and gU (its upper part) give, with L1, U1 the
    leading k x k blocks:
    square: gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H, with P = A U^-1 L^-1;
    tall (L = [L1; L2]): P^T gA = [L1^-H (tril(L1^H gL1, -1) + triu(gU U^H - L2^H gL2)) U^-H; gL2 U^-H];
    wide (U = [U1 U2]): P^T gA = [L^-H (tril(L^H gL - gU2 U2^H, -1) + triu(gU1 U1^H)) U1^-H, L^-H gU2];
    the tall case applies P by the pivots' row swaps (the others need no permutation)."""
    ops = prim_ops()
    LU, pivots = results[0], results[1]
    g = grads[0]
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)

    def core(l, u, mid):     # L^-H mid U^-H
        y = ops.triangular_solve(mH(l), mid, True, True, True)
        return ops.triangular_solve(mH(u), y, False, False, False)

    if m == n:
        L, U = _unpack_lu(LU)
        y = core(L, U, ops.add(tril(_mm(mH(L), tril(g, -1)), -1), triu(_mm(triu(g), mH(U)))))
        y = ops.triangular_solve(U, ops.triangular_solve(L, y, False, True, True), True, True, False)  # (LU)^-1 ...
        return _mm(a, y)
    L1, U1 = _unpack_lu(_part(LU, (0, k), (0, k)))
    gL1, gU1 = tril(_part(g, (0, k), (0, k)), -1), triu(_part(g, (0, k), (0, k)))
    if m < n:   # wide: L = L1; P = A1 U1^-1 L^-1 as in the square case
        U2, gU2 = _part(LU, None, (k, n)), _part(g, None, (k, n))
        mid = ops.add(tril(ops.sub(_mm(mH(L1), gL1), _mm(gU2, mH(U2))), -1), triu(_mm(gU1, mH(U1))))
        y = ops.cat([core(L1, U1, mid), ops.triangular_solve(mH(L1), gU2, True, True, True)], a.dim() - 1)
        a1 = _part(a, None, (0, k))
        return _mm(a1, ops.triangular_solve(U1, ops.triangular_solve(L1, y, False, True, True), True, True, False))
    L2, gL2 = _part(LU, (k, m), None), _part(g, (k, m), None)
    mid = ops.add(tril(_mm(mH(L1), gL1), -1), triu(ops.sub(_mm(gU1, mH(U1)), _mm(mH(L2), gL2))))
    top = core(L1, U1, mid)
    bottom = ops.triangular_solve(mH(U1), gL2, False, False, False)   # gL2 U^-H
    y = ops.cat([top, bottom], a.dim() - 2)                             # P^T gA
    inverse = ops.argsort(_row_permutation(pivots, m), a.dim() - 2, False, True)   # gA[r] = y[inverse[r]]
    index = ops.broadcast_in_dim(inverse, list(y.shape), list(range(a.dim() - 1)))
    return ops.gather(y, a.dim() - 2, index)


def lstsq_grads(grad, a, b, result):
    """(gA, gB) of the full-rank least-squares solution X: for m >= n, Z = (A^H A)^-1 grad,
    gB = A Z and gA = (B - A X) Z^H - gB X^H; for m < n (minimum norm, X = A^H W with
    W = (A A^H)^-1 B), Q = (A A^H)^-1 A grad, gB = Q and gA = W (grad - A^H Q)^H - Q X^H."""
    ops = prim_ops()
    x = result
    if a.shape[-2] >= a.shape[-1]:
        z = ops.cholesky_solve(grad, ops.cholesky(_mm(mH(a), a), False), False)
        gb = _mm(a, z)
        return ops.sub(_mm(ops.sub(b, _mm(a, x)), mH(z)), _mm(gb, mH(x))), gb
    chol = ops.cholesky(_mm(a, mH(a)), False)
    q = ops.cholesky_solve(_mm(a, grad), chol, False)
    w = ops.cholesky_solve(b, chol, False)
    return ops.sub(_mm(w, mH(ops.sub(grad, _mm(mH(a), q)))), _mm(q, mH(x))), q


def lstsq_a_grad(grad, a, b, result):
    """The gradient of lstsq in a (see lstsq_grads)."""
    return lstsq_grads(grad, a, b, result)[0]


def lstsq_b_grad(grad, a, b, result):
    """The gradient of lstsq in b (see lstsq_grads)."""
    return lstsq_grads(grad, a, b, result)[1]


# --- factorizations ----------------------------------------------------------------------------

def cholesky_back(grad, result, upper):
    """The gradient of cholesky: with L the lower factor, the Hermitian gradient is
    L^-H Phi(L^H gL) L^-1 (symmetrized), read back onto the triangle a's factor was taken from."""
    ops = prim_ops()
    L, gL = (mH(result), mH(grad)) if upper else (result, grad)
    p = phi(_mm(mH(L), gL))
    h = ops.triangular_solve(L, ops.triangular_solve(mH(L), p, True, True, False), False, False, False)
    return hermitian_to_triangle(h, upper)


def _gaps(values, like):
    """E[..., j, k] = values[k] - values[j], with ones on the diagonal (a safe divisor), in like's dtype."""
    ops = prim_ops()
    n = values.shape[-1]
    shape = list(values.shape) + [n]
    nd = values.dim()
    e = ops.sub(ops.broadcast_in_dim(values, shape, list(range(nd - 1)) + [nd]),
                ops.broadcast_in_dim(values, shape, list(range(nd))))
    e = ops.convert_element_type(e, like.dtype)
    mask = ops.broadcast_in_dim(_eye_mask(n, like.device), shape, [nd - 1, nd])
    return ops.where(mask, full(shape, 1, like), e)


def _with_diagonal(x, d):
    """x with its diagonal replaced by d."""
    ops = prim_ops()
    mask = ops.broadcast_in_dim(_eye_mask(x.shape[-1], x.device), list(x.shape), [x.dim() - 2, x.dim() - 1])
    return ops.where(mask, diag_embed(ops.convert_element_type(d, x.dtype)), x)


def eigh_back(grads, results, upper):
    """The gradient of eigh: V (diag(gL) + (V^H gV) / E) V^H with E[j, k] = L[k] - L[j] off the
    diagonal, read back onto the triangle a's decomposition was taken from (which also takes its
    Hermitian part, so only the skew part of V^H gV counts, as eager)."""
    gl, gv = grads
    ev, v = results
    r = _with_diagonal(prim_ops().div(_mm(mH(v), gv), _gaps(ev, v)), gl)
    return hermitian_to_triangle(_mm(v, r, mH(v)), upper)


def _scale_columns(x, s):
    """x (..., m, k) with column j multiplied by s[..., j] (real s)."""
    ops = prim_ops()
    return ops.mul(x, ops.broadcast_in_dim(ops.convert_element_type(s, x.dtype), list(x.shape),
                                            list(range(s.dim() - 1)) + [x.dim() - 1]))


def _scale_rows(x, s):
    """x (..., k, n) with row j multiplied by s[..., j] (real s)."""
    ops = prim_ops()
    return ops.mul(x, ops.broadcast_in_dim(ops.convert_element_type(s, x.dtype), list(x.shape),
                                            list(range(s.dim() - 1)) + [x.dim() - 2]))


def _narrow_last(x, k, dim):
    lo, hi = [0] * x.dim(), list(x.shape)
    hi[dim] = k
    return prim_ops().slice(x, lo, hi, [1] * x.dim())


def svd_back(grads, a, results, full_matrices):
    """The gradient of svd (distinct non-zero singular values): with J_U = skew(U^H gU),
    J_V = skew(V^H gV) (skew(X) = X - X^H) and E[j, k] = S[k]^2 - S[j]^2,
    gA = U ((J_U S + S J_V) / E + diag(gS) + diag(J_U) / 2S) Vh, plus (I - U U^H) gU S^-1 Vh for
    a tall a and U S^-1 gVh (I - V V^H) for a wide one. With full_matrices only the first
    min(m, n) singular vectors are determined by a (the rest complete a basis): they are dropped."""
    ops = prim_ops()
    gu, gs, gvh = grads
    u, s, vh = results
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    if full_matrices:
        u, gu = _narrow_last(u, k, -1), _narrow_last(gu, k, -1)
        vh, gvh = _narrow_last(vh, k, -2), _narrow_last(gvh, k, -2)
    uhgu = _mm(mH(u), gu)
    vhgv = _mm(vh, mH(gvh))
    ju, jv = ops.sub(uhgu, mH(uhgu)), ops.sub(vhgv, mH(vhgv))
    inner = ops.add(_scale_columns(ju, s), _scale_rows(jv, s))
    inner = ops.div(inner, _gaps(ops.mul(s, s), u))
    d = ops.convert_element_type(gs, u.dtype)
    if u.is_complex():
        d = ops.add(d, ops.div(diag(ju), ops.convert_element_type(ops.mul(s, full(s.shape, 2, s)), u.dtype)))
    r = _with_diagonal(inner, d)
    ga = _mm(u, r, vh)
    inv_s = ops.reciprocal(s)
    if m > n:
        ga = ops.add(ga, _mm(_scale_columns(ops.sub(gu, _mm(u, uhgu)), inv_s), vh))
    elif m < n:
        ga = ops.add(ga, _mm(u, _scale_rows(ops.sub(gvh, _mm(_mm(gvh, mH(vh)), vh)), inv_s)))
    return ga


def _lapack_phase_adjoint(gv, v):
    """gV for eig's phase convention (LAPACK geev: each eigenvector's largest component is real),
    made into a gradient for the convention eig_back's formula assumes (Im(v_i^H dv_i) = 0): the
    phase drift i theta_i v_i, theta_i = -Im(dv_i[k_i]) / v_i[k_i], has as adjoint
    gv_i[k_i] -= 1j * Im((V^H gV)_ii) / v_i[k_i]."""
    ops = prim_ops()
    n = v.shape[-1]
    if n == 0:      # 0 x 0 matrices: no eigenvectors, no phase
        return gv
    rows = v.dim() - 2
    k = ops.argmax(ops.abs(v), rows)                                             # (..., n)
    idx = ops.iota(n, start=0, step=1, dtype=torch.int64, device=v.device)
    at_k = ops.eq(ops.broadcast_in_dim(idx, list(v.shape), [rows]),
                  ops.broadcast_in_dim(k, list(v.shape), list(range(rows)) + [rows + 1]))
    zero = full(v.shape, 0, v)
    vk = ops.sum(ops.where(at_k, v, zero), [rows])                                # (..., n), real-valued
    theta = ops.div(ops.convert_element_type(ops.imag(diag(_mm(mH(v), gv))), v.dtype), vk)
    shift = ops.mul(ops.broadcast_in_dim(ops.mul(theta, full(theta.shape, 1j, theta)), list(v.shape),
                                         list(range(rows)) + [rows + 1]), full(v.shape, 1, v))
    return ops.sub(gv, ops.where(at_k, shift, zero))


def eig_back(grads, a, results):
    """The gradient of eig (distinct eigenvalues): V^-H (diag(gL) + (V^H gV - V^H V Re(diag(V^H gV))) / E*) V^H,
    E*[j, k] = conj(L[k] - L[j]); real part for a real a. V^-H comes from an LU solve."""
    ops = prim_ops()
    gl, gv = grads
    ev, v = results
    gv = _lapack_phase_adjoint(gv, v)
    vhgv = _mm(mH(v), gv)
    re_diag = ops.real(diag(vhgv))
    r = ops.sub(vhgv, _mm(mH(v), _scale_columns(v, re_diag)))
    r = ops.div(r, _gaps(ops.conj_physical(ev), v))
    r = _with_diagonal(r, gl)
    lu, pivots = ops.lu_factor(v)
    ga = ops.lu_solve(lu, pivots, _mm(r, mH(v)), True, True)
    return ga if a.is_complex() else ops.real(ga)


def qr_back(grads, a, results, mode):
    """The gradient of qr: for m >= n (reduced), gA = (gQ + Q sym(triu(gR R^H - Q^H gQ))) R^-H with
    sym(X) = X + X^H, its diagonal's real part halved; a wide a = [X | Y], R = [U | V] is the square
    case of X with gQ + Y gV^H, and gY = Q gV. A tall a with mode 'complete' is not differentiable
    (Q's last m - n columns are any orthonormal completion), as eager."""
    ops = prim_ops()
    gq, gr = grads
    q, r = results
    m, n = a.shape[-2], a.shape[-1]
    if m > n and mode == "complete":
        raise NotImplementedError("primkit.qr: not differentiable with mode 'complete' and more rows than columns")
    if m < n:
        lo = [0] * a.dim()
        lo[-1] = m
        y = ops.slice(a, lo, list(a.shape), [1] * a.dim())
        lo_r = [0] * r.dim()
        lo_r[-1] = m
        gv = ops.slice(gr, lo_r, list(gr.shape), [1] * r.dim())
        gx = _qr_square_back(ops.add(gq, _mm(y, mH(gv))), _narrow_last(gr, m, -1), q, _narrow_last(r, m, -1))
        return ops.cat([gx, _mm(q, gv)], a.dim() - 1)
    return _qr_square_back(gq, gr, q, r)


def _qr_square_back(gq, gr, q, r):
    ops = prim_ops()
    x = triu(ops.sub(_mm(gr, mH(r)), _mm(mH(q), gq)))
    sym = real_diag_halved(ops.add(x, mH(x)))
    return ops.triangular_solve(mH(r), ops.add(gq, _mm(q, sym)), False, False, False)


def real_diag_halved(x):
    """x with the real part of its diagonal halved."""
    ops = prim_ops()
    d = diag(x)
    half = ops.mul(ops.real(d) if x.is_complex() else d, full(d.shape, 0.5, ops.real(d) if x.is_complex() else d))
    new = ops.add(ops.convert_element_type(half, x.dtype),
                  ops.mul(ops.convert_element_type(ops.imag(d), x.dtype), full(d.shape, 1j, x))) if x.is_complex() else half
    return _with_diagonal(x, new)


# --- Householder products ---------------------------------------------------------------------

def _conj(x):
    return prim_ops().conj_physical(x) if x.is_complex() else x


def householder_grads(gq, a, tau):
    """(gA, gTau) given gQ (..., m, m), the gradient of Q = H_1 ... H_k, H_j = I - tau_j v_j v_j^H, the
    v_j packed in a's first k columns as geqrf stores them (V, unit lower-trapezoidal; k = tau's length).

    With Q = L_j H_j R_j, H_j's gradient is L_j^H gQ R_j^H; of it tau_j gets -(L_j v_j)^H gQ (R_j^H v_j)
    and v_j gets -(conj(tau_j) L_j^H gQ R_j^H v_j + tau_j R_j gQ^H L_j v_j), of which a keeps the strict
    lower part (a's diagonal and upper part are not read). All j at once through the compact WY form:
    H_1 ... H_k = I - V T V^H with T upper-triangular, T = (I + diag(tau) S)^-1 diag(tau) for
    S = triu(V^H V, 1) (a unit-triangular solve: no division by tau); its leading and trailing blocks
    are the T of L_j and of R_j, so keeping the strict upper (lower) triangle of a k x k product
    restricts it to the reflectors before (after) j."""
    ops = prim_ops()
    k = tau.shape[-1]
    if k == 0:
        return full(a.shape, 0, a), full(tau.shape, 0, tau)
    ak = _narrow_last(a, k, -1)
    below = _triangle_mask(ak, -1, True)
    zeros = full(ak.shape, 0, ak)
    v = ops.where(below, ak, ops.where(_triangle_mask(ak, 0, True), full(ak.shape, 1, ak), zeros))
    vh = mH(v)
    vhv = _mm(vh, v)
    zk = full(vhv.shape, 0, vhv)
    before, after = _triangle_mask(vhv, 1, False), _triangle_mask(vhv, -1, True)

    def upper(x):   # entry (i, j) with i < j: reflector i comes before reflector j
        return ops.where(before, x, zk)

    def lower(x):
        return ops.where(after, x, zk)

    t = ops.triangular_solve(_scale_rows(upper(vhv), tau), diag_embed(tau), True, True, True)
    th = mH(t)
    lv = ops.sub(v, _mm(v, t, upper(vhv)))                      # column j: L_j v_j
    rhv = ops.sub(v, _mm(v, th, lower(vhv)))                    # column j: R_j^H v_j
    gq_rhv = _mm(gq, rhv)
    y1 = ops.sub(gq_rhv, _mm(v, upper(_mm(th, upper(_mm(vh, gq_rhv))))))   # L_j^H gQ R_j^H v_j
    y2 = _mm(mH(gq), lv)
    y2 = ops.sub(y2, _mm(v, lower(_mm(t, lower(_mm(vh, y2))))))            # R_j gQ^H L_j v_j
    gv = _neg(ops.add(_scale_columns(y1, _conj(tau)), _scale_columns(y2, tau)))
    gtau = _neg(ops.sum(ops.mul(_conj(lv), gq_rhv), [a.dim() - 2]))
    high = [0] * a.dim()
    high[-1] = a.shape[-1] - k
    return ops.pad(ops.where(below, gv, zeros), 0, [0] * a.dim(), high, [0] * a.dim()), gtau


def householder_product_grads(grad, a, tau):
    """(gA, gTau) of householder_product: its result is Q's first n columns, so gQ is grad padded
    with zero columns (see householder_grads)."""
    high = [0] * a.dim()
    high[-1] = a.shape[-2] - a.shape[-1]
    return householder_grads(prim_ops().pad(grad, 0, [0] * a.dim(), high, [0] * a.dim()), a, tau)


def ormqr_grads(grad, a, tau, other, left, transpose):
    """(gA, gTau) of ormqr through gQ (see householder_grads): G C^H for Q C, C G^H for Q^H C,
    C^H G for C Q and G^H C for C Q^H (G the gradient of the result, C other)."""
    if left:
        gq = _mm(other, mH(grad)) if transpose else _mm(grad, mH(other))
    else:
        gq = _mm(mH(grad), other) if transpose else _mm(mH(other), grad)
    return householder_grads(gq, a, tau)


def ormqr_other_grad(grad, a, tau, left, transpose):
    """The gradient of ormqr in other: op(Q)^H grad (left) or grad op(Q)^H, itself an ormqr."""
    return prim_ops().ormqr(a, tau, grad, left, not transpose)


HELPERS = (mH, tril, triu, eye_like, diag_embed, diag, real_diag_part, hermitian_to_triangle, phi,
           real_diag_halved, triangular_solve_b_grad, triangular_solve_a_grad, cholesky_solve_l_grad, lu_solve_b_grad,
           lu_solve_lu_grad, lu_factor_back, lstsq_a_grad, lstsq_b_grad, cholesky_back, eigh_back, svd_back,
           eig_back, qr_back, householder_product_grads, ormqr_grads, ormqr_other_grad)
