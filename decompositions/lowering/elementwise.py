"""Lowerings of elementwise prims (unary, binary, ternary) into other elementwise prims."""
from __future__ import annotations

import math

import torch

from primkit.decompositions.lowering.core import P, in_opmath, lowers, splat, where_eq


@lowers("sigmoid")
@in_opmath
def sigmoid(x):
    return P.reciprocal(P.add(splat(1, x), P.exp(P.neg(x))))


@lowers("tanh")
@in_opmath
def tanh(x):
    # tanh(s) = -t / (t + 2) with t = expm1(-2s), s = x with a non-negative real part (tanh is
    # odd): no overflow, accurate near 0.
    negative = P.lt(P.real(x) if x.dtype.is_complex else x, splat(0, P.real(x) if x.dtype.is_complex else x))
    s = P.where(negative, P.neg(x), x)
    t = P.expm1(P.mul(splat(-2, x), s))
    r = P.div(P.neg(t), P.add(t, splat(2, x)))
    return P.where(negative, P.neg(r), r)


@lowers("log1p")
@in_opmath
def log1p(x):
    u = P.add(splat(1, x), x)
    accurate = P.div(P.mul(P.log(u), x), P.sub(u, splat(1, x)))
    return where_eq(u, 1, x, where_eq(u, math.inf, u, accurate))


@lowers("expm1")
@in_opmath
def expm1(x):
    if x.dtype.is_complex:
        # exp(a + ib) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i exp(a) sin b: no cancellation near 0
        a, b = P.real(x), P.imag(x)
        half_sin = P.sin(P.mul(b, splat(0.5, b)))
        re = P.sub(P.mul(_real_expm1(a), P.cos(b)), P.mul(splat(2, b), P.mul(half_sin, half_sin)))
        return P.complex(re, P.mul(P.exp(a), P.sin(b)))
    return _real_expm1(x)


def _real_expm1(x):
    u = P.exp(x)
    um1 = P.sub(u, splat(1, x))
    accurate = P.div(P.mul(um1, x), P.log(u))
    inner = P.where(P.isinf(u), u, where_eq(um1, -1, um1, accurate))
    return where_eq(u, 1, x, inner)


@lowers("erfc")
@in_opmath
def erfc(x):
    return P.sub(splat(1, x), P.erf(x))


@lowers("rsqrt")
@in_opmath
def rsqrt(x):
    return P.reciprocal(P.sqrt(x))


@lowers("reciprocal")
@in_opmath
def reciprocal(x):
    return P.div(splat(1, x), x)


@lowers("exp2")
@in_opmath
def exp2(x):
    return P.exp(P.mul(x, splat(math.log(2.0), x)))


@lowers("log2")
@in_opmath
def log2(x):
    return P.div(P.log(x), splat(math.log(2.0), x))


@lowers("log10")
@in_opmath
def log10(x):
    return P.div(P.log(x), splat(math.log(10.0), x))


@lowers("gt")
def gt(a, b):
    return P.lt(b, a)


@lowers("ge")
def ge(a, b):
    return P.le(b, a)


@lowers("ne")
def ne(a, b):
    return P.logical_not(P.eq(a, b))


def _never(x):
    """False everywhere x is (an integer or bool is never nan nor inf)."""
    return P.logical_not(P.eq(x, x))


@lowers("isnan", dtypes=["bool", "real"])
def isnan(x):
    return P.logical_not(P.eq(x, x))     # nan is the one value unequal to itself


@lowers("isinf", dtypes=["bool", "real"])
def isinf(x):
    if not x.dtype.is_floating_point:
        return _never(x)
    return P.logical_or(P.eq(x, splat(math.inf, x)), P.eq(x, splat(-math.inf, x)))


@lowers("isfinite", dtypes=["bool", "real"])
def isfinite(x):
    if not x.dtype.is_floating_point:
        return P.eq(x, x)
    return P.eq(P.sub(x, x), splat(0, x))    # x - x is 0 when x is finite, nan for inf and nan


@lowers("square")
def square(x):
    return P.mul(x, x)


@lowers("clamp")
def clamp(a, lo, hi):
    return P.minimum(P.maximum(a, lo), hi)     # max wins where lo > hi, as eager's clamp; nan propagates


@lowers("ceil", dtypes="float")
def ceil(x):
    return P.neg(P.floor(P.neg(x)))             # keeps the sign of zero: ceil(-0.5) = -0.0


@lowers("trunc", dtypes="float")
def trunc(x):
    return P.where(P.lt(x, splat(0, x)), ceil(x), P.floor(x))


@lowers("logical_xor", dtypes=["bool", "real"])
def logical_xor(a, b):
    return P.ne(P.logical_not(a), P.logical_not(b))


@lowers("sign", dtypes=["float", "signed"])
def sign(x):
    # eager: 0 for zeros of either sign and for nan
    return P.where(P.lt(splat(0, x), x), splat(1, x), P.where(P.lt(x, splat(0, x)), splat(-1, x), splat(0, x)))


@lowers("xlogy", dtypes="float")
@in_opmath
def xlogy(a, b):
    # 0 * log(b) is 0 even where log(b) is -inf or inf; a nan b stays nan
    product = P.where(P.eq(a, splat(0, a)), splat(0, a), P.mul(a, P.log(b)))
    return P.where(P.isnan(b), b, product)


@lowers("tan", dtypes="float")
@in_opmath
def tan(x):
    return P.div(P.sin(x), P.cos(x))


@lowers("sinh", dtypes="float")
@in_opmath
def sinh(x):
    # (e^x - e^-x) / 2 through expm1: no cancellation near 0
    return P.mul(P.sub(P.expm1(x), P.expm1(P.neg(x))), splat(0.5, x))


@lowers("cosh", dtypes="float")
@in_opmath
def cosh(x):
    return P.mul(P.add(P.exp(x), P.exp(P.neg(x))), splat(0.5, x))


@lowers("logaddexp", dtypes="float")
@in_opmath
def logaddexp(a, b):
    # max + log1p(exp(-|a - b|)); equal infinities give themselves (a - b would be nan)
    m = P.maximum(a, b)
    r = P.add(m, P.log1p(P.exp(P.neg(P.abs(P.sub(a, b))))))
    return P.where(P.logical_and(P.isinf(a), P.eq(a, b)), a, r)


@lowers("floor_divide", dtypes="int")
def floor_divide(a, b):
    # the quotient rounded toward zero, one less where the signs differ and it was inexact
    q = P.trunc_divide(a, b)
    inexact = P.ne(P.sub(a, P.mul(q, b)), splat(0, a))
    signs_differ = P.ne(P.lt(a, splat(0, a)), P.lt(b, splat(0, b)))
    return P.sub(q, P.convert_element_type(P.logical_and(inexact, signs_differ), a.dtype))


@lowers("fmod", dtypes="int")
def fmod(a, b):
    return P.sub(a, P.mul(P.trunc_divide(a, b), b))


@lowers("remainder", dtypes="int")
def remainder(a, b):
    return P.sub(a, P.mul(P.floor_divide(a, b), b))
