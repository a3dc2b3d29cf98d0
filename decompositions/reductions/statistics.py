"""Statistics: var, std, var_mean, std_mean, logsumexp, cov, corrcoef."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, like, register_overloads, to_dtype, upcast
from primkit.decompositions.linalg import conj_transpose
from primkit.decompositions.reductions.common import (_check_inexact, _is_exact, full_reduced, keep, reduced_count,
    reduced_dims, unreduce)
from primkit.decompositions.reductions.sums import mean
from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import computation_dtype
from primkit.prims import dtypes as dt


def _correction(unbiased, correction):
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased in (None, True) else 0.0


def _variance(a, dims, unbiased, correction):
    """The variance in the dtype eager accumulates it in (float16/bfloat16 in float32; float32 in
    float64 on CPU, whose kernel accumulates in double), and the real dtype to return."""
    _check_inexact("var", a.dtype, "std and var only support floating point and complex dtypes")
    accumulate = computation_dtype(a.dtype)
    if a.device.type == "cpu":
        accumulate = {torch.float32: torch.float64, torch.complex64: torch.complex128}.get(accumulate, accumulate)
    return P.var(to_dtype(a, accumulate), dims, _correction(unbiased, correction)), dt.to_real(a.dtype)


def var(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    dims = reduced_dims(a, dim)
    variance, out_dtype = _variance(a, dims, unbiased, correction)
    return keep(to_dtype(variance, out_dtype), dims, keepdim)


def _sqrt_of_variance(v):
    """sqrt(v) whose gradient is 0 where v == 0, as eager's std backward (sqrt's own derivative is
    infinite there, and times var's zero derivative would give nan): zero variances take the branch
    0 * v, whose value is 0 and whose derivative is 0."""
    zeros = P.full(list(v.shape), 0, dtype=v.dtype, device=v.device)
    zero = P.eq(v, zeros)
    ones = P.full(list(v.shape), 1, dtype=v.dtype, device=v.device)
    return P.where(zero, P.mul(v, zeros), P.sqrt(P.where(zero, ones, v)))


def std(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    # The square root is taken before rounding back, as eager does: var may overflow where std does not.
    dims = reduced_dims(a, dim)
    variance, out_dtype = _variance(a, dims, unbiased, correction)
    return keep(to_dtype(_sqrt_of_variance(variance), out_dtype), dims, keepdim)


def var_mean(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return var(a, dim, unbiased, keepdim, correction=correction), mean(a, dim, keepdim)


def std_mean(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return std(a, dim, unbiased, keepdim, correction=correction), mean(a, dim, keepdim)


def _unbiased_overload(fn):
    """var.default (a, unbiased): the flag is the second positional argument, not the dim."""
    return lambda a, unbiased=True: fn(a, None, unbiased)


for _name, _fn in (("var", var), ("std", std), ("var_mean", var_mean), ("std_mean", std_mean)):
    outs = ("correction_out", "out") if _name in ("var", "std") else ("correction_out",)
    register_overloads(_fn, _name, ("dim", "correction") + outs)
    register(getattr(aten, _name).default)(_unbiased_overload(_fn))


def logsumexp(a, dim, keepdim=False):
    """log(sum(exp(a - m))) + m with m the max (0 where it is infinite, so all -inf gives -inf
    and +inf gives +inf, as eager); int inputs compute in the default float dtype."""
    out_dtype = torch.get_default_dtype() if _is_exact(a.dtype) else a.dtype
    dims = reduced_dims(a, dim)
    (x,), _ = upcast(to_dtype(a, out_dtype))
    if reduced_count(a, dims) == 0:
        shift = full_reduced(x, dims, 0, x.dtype)
    else:
        # The shift cancels out of the value, so it is a constant to differentiation: the gradient
        # is exactly softmax (through amax it would cancel only up to rounding, and spread on ties).
        peak = P.stop_gradient(P.amax(x, dims))
        shift = P.where(P.isinf(peak), like(peak, 0), peak)
    total = P.sum(P.exp(P.sub(x, unreduce(shift, x.shape, dims))), dims)
    return keep(to_dtype(P.add(P.log(total), shift), out_dtype), dims, keepdim)


register_overloads(logsumexp, "logsumexp", ("default", "out"))


# --- statistics: cov, corrcoef -----------------------------------------------------------------------------
# Eager also refuses negative weights and weights that sum to zero; those checks read the data,
# which a trace cannot, so here such weights give what the formula gives.

def _check_weights(kind, w, observations, floating):
    if w.dim() > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got {kind} with {w.dim()} "
                           f"dimensions")
    if floating and w.dtype not in dt.FLOAT or not floating and w.dtype not in dt.INT:
        expected = "floating point" if floating else "integral"
        raise RuntimeError(f"cov(): expected {kind} to have {expected} dtype but got {kind} with "
                           f"{dt.short(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are observations in the input but "
                           f"got {w.numel()} != {observations}")


@register(aten.cov.default)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance of the rows of input (variables) over its columns (observations)."""
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    if input.dtype == torch.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = torch.reshape(input, (1, -1)) if input.dim() < 2 else input
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, floating=False)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, floating=True)
        w = aweights if w is None else w * aweights
    if w is None:
        w_sum = torch.scalar_tensor(observations, dtype=torch.int64, device=x.device)
    else:
        w_sum = torch.sum(w)
    weighted = x if w is None else x * w
    mean = torch.sum(weighted, 1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm = w_sum - correction * torch.sum(w * aweights) / w_sum
    else:
        norm = w_sum - correction
    norm = torch.where(norm <= 0, torch.zeros_like(norm), norm)   # eager warns and divides by 0
    x = x - mean.unsqueeze(1)
    weighted = x if w is None else x * w
    c = torch.mm(x, conj_transpose(weighted))
    return torch.squeeze(torch.true_divide(c, norm))


@register(aten.corrcoef.default)
def corrcoef(input):
    if input.dim() > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.dim()} dimensions")
    c = cov(input)
    if c.dim() == 0:        # one variable: nan where its variance is 0, nan or inf, else 1
        return c / c
    d = torch.diagonal(c)
    stddev = torch.sqrt(P.real(d) if d.dtype in dt.COMPLEX else d)
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    if c.dtype in dt.COMPLEX:
        return P.complex(torch.clip(P.real(c), -1, 1), torch.clip(P.imag(c), -1, 1))
    return torch.clip(c, -1, 1)
