"""Lowerings of elementwise prims (unary, binary, ternary) into other elementwise prims."""
from __future__ import annotations

import math

import torch

from primkit.decompositions.lowering.core import P, in_opmath, lowers, splat, where_eq
from primkit.decompositions.lowering.core import isnan as real_isnan


@lowers("sigmoid")
@in_opmath
def sigmoid(x):
    return P.reciprocal(P.add(splat(1, x), P.exp(P.neg(x))))


@lowers("tanh")
@in_opmath
def tanh(x):
    if x.dtype.is_complex:
        return _complex_tanh(x)
    # tanh(s) = -t / (t + 2) with t = expm1(-2s), s = x with a non-negative real part (tanh is
    # odd): no overflow, accurate near 0.
    negative = P.lt(P.real(x) if x.dtype.is_complex else x, splat(0, P.real(x) if x.dtype.is_complex else x))
    s = P.where(negative, P.neg(x), x)
    t = P.expm1(P.mul(splat(-2, x), s))
    r = P.div(P.neg(t), P.add(t, splat(2, x)))
    return P.where(negative, P.neg(r), r)


def _complex_tanh(z):
    # Kahan's: with t = tan(b), beta = 1 + t^2, s = sinh(a), rho = sqrt(1 + s^2),
    # tanh z = (beta rho s + i t) / (1 + beta s^2): no cancellation, zeros keep their signs. Where
    # |a| is past 22 (e^-2|a| below float64's ulp of 1) it is sign(a) + i 4 sin(b) cos(b) e^-2|a|,
    # the second factor taken apart so that nothing overflows; C99's values at inf and nan parts.
    a, b = P.real(z), P.imag(z)
    t = P.tan(b)
    beta = P.add(splat(1, a), P.mul(t, t))
    s = P.sinh(a)
    rho = P.sqrt(P.add(splat(1, a), P.mul(s, s)))
    denominator = P.add(splat(1, a), P.mul(beta, P.mul(s, s)))
    re = P.div(P.mul(P.mul(beta, rho), s), denominator)
    im = P.div(t, denominator)
    large = P.lt(splat(22, a), P.abs(a))
    sin_cos = P.mul(P.sin(b), P.cos(b))
    tail = P.mul(P.mul(splat(4, a), sin_cos), P.exp(P.mul(splat(-2, a), P.abs(a))))
    re = P.where(large, P.copysign(splat(1, a), a), re)
    im = P.where(large, P.where(P.isinf(a), P.copysign(splat(0, a), sin_cos), tail), im)
    return _special_values(z, re, im, [
        (lambda a, b: P.logical_and(P.isinf(a), P.logical_not(P.isfinite(b))),
         lambda a, b: P.copysign(splat(1, a), a), lambda a, b: P.copysign(splat(0, b), b)),
        (lambda a, b: P.logical_and(P.eq(a, splat(0, a)), P.logical_not(P.isfinite(b))),
         lambda a, b: a, _const(math.nan)),
        (lambda a, b: P.logical_not(P.isfinite(b)), _const(math.nan), _const(math.nan)),
        (lambda a, b: P.logical_and(P.isnan(a), P.eq(b, splat(0, b))), _const(math.nan), lambda a, b: b),
    ])


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
    return real_isnan(x)


@lowers("isnan")
def isnan(x):
    if x.dtype.is_complex:
        return P.logical_or(isnan(P.real(x)), isnan(P.imag(x)))
    return real_isnan(x)


@lowers("isinf")
def isinf(x):
    if x.dtype.is_complex:     # inf in either part, even with a nan in the other (as eager)
        return P.logical_or(isinf(P.real(x)), isinf(P.imag(x)))
    if not x.dtype.is_floating_point:
        return _never(x)
    return P.logical_or(P.eq(x, splat(math.inf, x)), P.eq(x, splat(-math.inf, x)))


@lowers("isfinite")
def isfinite(x):
    if x.dtype.is_complex:
        return P.logical_and(isfinite(P.real(x)), isfinite(P.imag(x)))
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


@lowers("logical_xor")
def logical_xor(a, b):
    return P.ne(P.logical_not(a), P.logical_not(b))


@lowers("sign")
def sign(x):
    # eager: 0 for zeros of either sign and for nan
    if x.dtype == torch.uint8:
        return P.convert_element_type(P.lt(splat(0, x), x), x.dtype)
    return P.where(P.lt(splat(0, x), x), splat(1, x), P.where(P.lt(x, splat(0, x)), splat(-1, x), splat(0, x)))


@lowers("xlogy", dtypes="float")
@in_opmath
def xlogy(a, b):
    # 0 * log(b) is 0 even where log(b) is -inf or inf; a nan b stays nan
    product = P.where(P.eq(a, splat(0, a)), splat(0, a), P.mul(a, P.log(b)))
    return P.where(P.isnan(b), b, product)


def _times_i(z):
    """i z, exactly: (-im, re)."""
    return P.complex(P.neg(P.imag(z)), P.real(z))


def _times_minus_i(z):
    """-i z, exactly: (im, -re)."""
    return P.complex(P.imag(z), P.neg(P.real(z)))


@lowers("tan")
@in_opmath
def tan(x):
    if x.dtype.is_complex:
        return _times_minus_i(P.tanh(_times_i(x)))     # tan z = -i tanh(i z): tanh's care for large |Im z|
    return P.div(P.sin(x), P.cos(x))


@lowers("sinh")
@in_opmath
def sinh(x):
    if x.dtype.is_complex:
        return _times_minus_i(P.sin(_times_i(x)))      # sinh z = -i sin(i z), as libm computes csin
    # (e^x - e^-x) / 2 through expm1: no cancellation near 0
    return P.mul(P.sub(P.expm1(x), P.expm1(P.neg(x))), splat(0.5, x))


@lowers("cosh")
@in_opmath
def cosh(x):
    if x.dtype.is_complex:
        return P.cos(_times_i(x))                       # cosh z = cos(i z)
    return P.mul(P.add(P.exp(x), P.exp(P.neg(x))), splat(0.5, x))


@lowers("logaddexp")
@in_opmath
def logaddexp(a, b):
    if a.dtype.is_complex:
        # the operand of larger real part plus log1p(exp(other - it)), as eager; as eager too, a nan
        # part anywhere gives nan, equal infinite real parts give the smaller operand (-inf) or
        # log(exp(a) + exp(b)) (+inf: torch's complex exp of an infinite part may be nan where eager's
        # scalar one is not), and a real part +inf alone (or -inf alone) gives the larger operand
        first = P.le(P.real(b), P.real(a))     # a on a tie, as eager
        big, small = P.where(first, a, b), P.where(first, b, a)
        r = P.add(big, P.log1p(P.exp(P.sub(small, big))))
        both_inf = P.logical_and(P.isinf(P.real(small)), P.eq(P.real(small), P.real(big)))
        at_inf = P.where(P.lt(P.real(small), splat(0, P.real(small))), small, P.log(P.add(P.exp(small), P.exp(big))))
        # exp(small - big) is 0 where big's real part is +inf or small's is -inf
        vanishes = P.logical_or(P.isposinf(P.real(big)), P.isneginf(P.real(small)))
        r = P.where(both_inf, at_inf, P.where(vanishes, big, r))
        return P.where(P.logical_or(P.isnan(a), P.isnan(b)), splat(complex(math.nan, math.nan), a), r)
    # max + log1p(exp(-|a - b|)); equal infinities give themselves (a - b would be nan)
    m = P.maximum(a, b)
    r = P.add(m, P.log1p(P.exp(P.neg(P.abs(P.sub(a, b))))))
    return P.where(P.logical_and(P.isinf(a), P.eq(a, b)), a, r)


@lowers("fmod")
def fmod(a, b):
    if not a.dtype.is_floating_point:
        return P.sub(a, P.mul(P.trunc_divide(a, b), b))     # exact for integers
    return _float_fmod(a, b)


def _two_prod(x, y):
    """x * y as p + e exactly (Dekker's product: each factor split into halves of its mantissa)."""
    splitter = splat(2.0 ** math.ceil(_mantissa_bits(x) / 2) + 1, x)

    def split(v):
        c = P.mul(v, splitter)
        high = P.sub(c, P.sub(c, v))
        return high, P.sub(v, high)
    p = P.mul(x, y)
    (xh, xl), (yh, yl) = split(x), split(y)
    e = P.add(P.add(P.add(P.sub(P.mul(xh, yh), p), P.mul(xh, yl)), P.mul(xl, yh)), P.mul(xl, yl))
    return p, e


def _mantissa_bits(x):
    return 1 - int(math.log2(torch.finfo(x.dtype).eps))


@in_opmath
def _float_fmod(a, b):
    # Exact, as eager's std::fmod, for any quotient: long division of |a| by |b| in chunks of p - 3
    # quotient bits (p: the mantissa bits). Each pass takes r mod Y with Y = |b| 2^k, k chosen so that
    # q = trunc(r / Y) < 2^p: q Y is then exact as a Dekker product, r - q Y is exact (Sterbenz), and
    # so is the result, a multiple of ulp(Y) below Y (q may be one too many: Y is added back). Passes
    # enough for the dtype's whole exponent range; |b| from 2^(emax/2) up is scaled down by a power of
    # two first, so that splitting never overflows.
    info = torch.finfo(a.dtype)
    p = _mantissa_bits(a)
    half_range = 2.0 ** (math.log2(info.max) // 2)
    scale = P.where(P.le(splat(half_range, b), P.abs(b)), splat(1 / half_range, b), splat(1, b))
    r, y = P.mul(P.abs(a), scale), P.mul(P.abs(b), scale)
    log2_y = P.log2(y)
    exponent_span = math.log2(info.max) - math.log2(info.smallest_normal * info.eps)
    for _ in range(math.ceil(exponent_span / (p - 3)) + 1):
        k = P.maximum(P.sub(P.floor(P.sub(P.log2(r), log2_y)), splat(p - 3, r)), splat(0, r))
        third = P.floor(P.div(k, splat(3, k)))     # 2^k in three factors: 2^k alone may overflow
        big_y = P.mul(P.mul(P.mul(y, P.pow(splat(2, k), third)), P.pow(splat(2, k), third)),
                      P.pow(splat(2, k), P.sub(k, P.mul(third, splat(2, k)))))
        q = P.trunc(P.div(r, big_y))
        product, error = _two_prod(q, big_y)
        r = P.sub(P.sub(r, product), error)
        r = P.where(P.lt(r, splat(0, r)), P.add(r, big_y), r)
    r = P.copysign(P.div(r, scale), a)     # a zero result has a's sign too
    invalid = P.logical_or(P.logical_or(P.isinf(a), P.isnan(b)), P.eq(b, splat(0, b)))
    r = P.where(invalid, splat(math.nan, r), r)
    return P.where(P.lt(P.abs(a), P.abs(b)), a, r)     # |a| < |b| (b = +-inf included): a itself


@lowers("remainder")
def remainder(a, b):
    # fmod, plus b where the signs of b and a nonzero fmod differ (eager's formula for floats too)
    r = P.fmod(a, b)
    fix = P.logical_and(P.ne(r, splat(0, r)), P.ne(P.lt(b, splat(0, b)), P.lt(r, splat(0, r))))
    return P.where(fix, P.add(r, b), r)


@lowers("floor_divide")
def floor_divide(a, b):
    if not a.dtype.is_floating_point:
        # the quotient rounded toward zero, one less where the signs differ and it was inexact
        q = P.trunc_divide(a, b)
        inexact = P.ne(P.sub(a, P.mul(q, b)), splat(0, a))
        signs_differ = P.ne(P.lt(a, splat(0, a)), P.lt(b, splat(0, b)))
        return P.sub(q, P.convert_element_type(P.logical_and(inexact, signs_differ), a.dtype))
    return _float_floor_divide(a, b)


def _float_floor_divide(a, b):
    # eager's, each step rounded to a's dtype (float16 too): (a - fmod(a, b)) / b, one less where
    # fmod's sign differs from b's, floored and rounded to the nearest integer; a zero quotient has the
    # sign of a / b; a / b where b is 0. fmod's lowering, not the prim: eager's vectorized fmod is nan
    # for a subnormal b, its scalar one (which floor_divide uses) is not.
    mod = fmod(a, b)
    div = P.div(P.sub(a, mod), b)
    div = P.where(P.logical_and(P.ne(mod, splat(0, a)), P.ne(P.lt(b, splat(0, b)), P.lt(mod, splat(0, a)))),
                  P.sub(div, splat(1, a)), div)
    floor = P.floor(div)
    floor = P.where(P.lt(splat(0.5, a), P.sub(div, floor)), P.add(floor, splat(1, a)), floor)
    floor = where_eq(div, 0, P.copysign(splat(0, a), P.div(a, b)), floor)
    return where_eq(b, 0, P.div(a, b), floor)


# --- signs, classification -------------------------------------------------------------------

@lowers("signbit")
def signbit(x):
    # -0.0 < 0 is false, but 1 / -0.0 is -inf. A nan's sign bit is seen by no arithmetic prim: a
    # negative nan gives False here where eager gives True.
    if not x.dtype.is_floating_point:
        return P.lt(x, splat(0, x)) if x.dtype.is_signed else P.logical_not(P.eq(x, x))
    negative_zero = P.logical_and(P.eq(x, splat(0, x)), P.lt(P.div(splat(1, x), x), splat(0, x)))
    return P.logical_or(P.lt(x, splat(0, x)), negative_zero)


@lowers("copysign")
def copysign(a, b):
    magnitude = P.abs(a)
    return P.where(P.signbit(b), P.neg(magnitude), magnitude)


@lowers("isposinf")
def isposinf(x):
    return P.eq(x, splat(math.inf, x)) if x.dtype.is_floating_point else _never(x)


@lowers("isneginf")
def isneginf(x):
    return P.eq(x, splat(-math.inf, x)) if x.dtype.is_floating_point else _never(x)


@lowers("heaviside")
def heaviside(a, b):
    # as eager: b where a is 0, else a > 0 (so 0 for nan)
    return P.where(P.eq(a, splat(0, a)), b, P.convert_element_type(P.lt(splat(0, a), a), a.dtype))


@lowers("nan_to_num", example=lambda dtype: (torch.ones(3, dtype=dtype), 0.0, 1.0, -1.0))
def nan_to_num(x, nan, posinf, neginf):
    if x.dtype.is_complex:     # the real and imaginary parts alike
        return P.complex(nan_to_num(P.real(x), nan, posinf, neginf), nan_to_num(P.imag(x), nan, posinf, neginf))
    # the replacements are rounded to x's dtype (1e300 in float32 is inf), as eager
    return P.where(P.isnan(x), splat(nan, x),
                   P.where(P.isposinf(x), splat(posinf, x), P.where(P.isneginf(x), splat(neginf, x), x)))


@lowers("frac")
def frac(x):
    return P.sub(x, P.trunc(x))     # exact in any binary float; -3.0 and -0.0 give +0.0, inf gives nan, as eager


@lowers("fmax", dtypes="real")
def fmax(a, b):
    if not a.dtype.is_floating_point:
        return P.maximum(a, b)
    # as eager: b where a is nan or b > a, else a (so a's zero where they are zeros of both signs)
    return P.where(P.isnan(b), a, P.where(P.logical_or(P.isnan(a), P.lt(a, b)), b, a))


@lowers("fmin", dtypes="real")
def fmin(a, b):
    if not a.dtype.is_floating_point:
        return P.minimum(a, b)
    return P.where(P.isnan(b), a, P.where(P.logical_or(P.isnan(a), P.lt(b, a)), b, a))


# --- float functions -------------------------------------------------------------------------

# Complex inverse functions: Kahan's formulas ("Branch cuts for complex elementary functions", 1987),
# which take real and imaginary parts from square roots of 1 +- z apart: no cancellation, no
# overflow for large |z|, and the sign of a zero imaginary part picks the side of a branch cut, as
# eager; C99's values where a part is infinite or nan.

def _shift(z, c):
    """c + z for a real number c, the imaginary part (and the sign of its zero) kept."""
    return P.complex(P.add(P.real(z), splat(c, P.real(z))), P.imag(z))


def _one_minus(z):
    """1 - z, part by part (complex subtraction would turn -0.0 into +0.0)."""
    return P.complex(P.sub(splat(1, P.real(z)), P.real(z)), P.neg(P.imag(z)))


def _conj_mul(a, b):
    """conj(a) * b."""
    return P.mul(P.complex(P.real(a), P.neg(P.imag(a))), b)


def _special_values(x, re, im, rows):
    """re + i im, except where a row's condition on x's parts (a, b) holds: there the row's parts
    (the first row that holds wins). The rows are C99 Annex G's values at infinite and nan parts,
    which eager's libm returns and the formulas do not reach."""
    a, b = P.real(x), P.imag(x)
    for condition, row_re, row_im in reversed(rows):
        holds = condition(a, b)
        re, im = P.where(holds, row_re(a, b), re), P.where(holds, row_im(a, b), im)
    return P.complex(re, im)


def _zero_and_nan(a, b):
    return P.logical_and(P.eq(a, splat(0, a)), P.isnan(b))


def _both_inf(a, b):
    return P.logical_and(P.isinf(a), P.isinf(b))


def _quarter_turns(a, b):
    """pi / 4 where a is +inf, 3 pi / 4 where it is -inf."""
    return P.where(P.lt(splat(0, a), a), splat(math.pi / 4, a), splat(3 * math.pi / 4, a))


def _const(value):
    return lambda a, b: splat(value, a)


@lowers("atan")
@in_opmath
def atan(x):
    if x.dtype.is_complex:
        return _times_minus_i(P.atanh(_times_i(x)))     # atan z = -i atanh(i z)
    return P.atan2(x, splat(1, x))


@lowers("asin")
@in_opmath
def asin(x):
    if x.dtype.is_complex:
        a, b = P.sqrt(_one_minus(x)), P.sqrt(_shift(x, 1))
        return _special_values(x, P.atan2(P.real(x), P.real(P.mul(a, b))), P.asinh(P.imag(_conj_mul(a, b))), [
            (lambda a, b: P.logical_and(P.isinf(a), P.isfinite(b)),
             lambda a, b: P.copysign(splat(math.pi / 2, a), a), lambda a, b: P.copysign(splat(math.inf, b), b)),
            (lambda a, b: P.logical_and(P.isinf(a), P.isnan(b)), _const(math.nan), _const(math.inf)),
            (_zero_and_nan, lambda a, b: a, _const(math.nan)),
        ])
    # atan2(x, sqrt(1 - x^2)) with 1 - x^2 as (1 - x)(1 + x): exact near |x| = 1; nan for |x| > 1
    return P.atan2(x, P.sqrt(P.mul(P.sub(splat(1, x), x), P.add(splat(1, x), x))))


@lowers("acos")
@in_opmath
def acos(x):
    if x.dtype.is_complex:
        a, b = P.sqrt(_one_minus(x)), P.sqrt(_shift(x, 1))
        re = P.mul(P.atan2(P.real(a), P.real(b)), splat(2, P.real(a)))
        # -Im asin(z) as 0 - it, as eager's pi / 2 - asin(z): +0.0 for either zero
        im = P.sub(splat(0, re), P.asinh(P.imag(_conj_mul(a, b))))
        return _special_values(x, re, im, [
            (_both_inf, _quarter_turns, lambda a, b: P.neg(P.copysign(splat(math.inf, b), b))),
            (lambda a, b: P.logical_and(P.isinf(a), P.isnan(b)), _const(math.nan), _const(-math.inf)),
            (lambda a, b: P.logical_and(P.isnan(a), P.isinf(b)), _const(math.nan),
             lambda a, b: P.neg(P.copysign(splat(math.inf, b), b))),
            (_zero_and_nan, _const(math.pi / 2), _const(math.nan)),
        ])
    return P.atan2(P.sqrt(P.mul(P.sub(splat(1, x), x), P.add(splat(1, x), x))), x)


# Beyond 2^28, x^2 + 1 = x^2 in float64: asinh and acosh are log(2|x|), and x^2 could overflow.
_LARGE = 2.0 ** 28


@lowers("asinh")
@in_opmath
def asinh(x):
    if x.dtype.is_complex:
        return _times_minus_i(P.asin(_times_i(x)))      # asinh z = -i asin(i z)
    # log1p(|x| + x^2 / (1 + sqrt(1 + x^2))): no cancellation near 0, odd (so -0.0 stays -0.0)
    m = P.abs(x)
    m2 = P.mul(m, m)
    small = P.log1p(P.add(m, P.div(m2, P.add(splat(1, x), P.sqrt(P.add(splat(1, x), m2))))))
    large = P.add(P.log(m), splat(math.log(2.0), x))
    return P.copysign(P.where(P.lt(m, splat(_LARGE, x)), small, large), x)


@lowers("acosh")
@in_opmath
def acosh(x):
    if x.dtype.is_complex:
        a, b = P.sqrt(_shift(x, -1)), P.sqrt(_shift(x, 1))
        im = P.mul(P.atan2(P.imag(a), P.real(b)), splat(2, P.real(a)))
        return _special_values(x, P.asinh(P.real(_conj_mul(a, b))), im, [
            (_both_inf, _const(math.inf), lambda a, b: P.copysign(_quarter_turns(a, b), b)),
            (lambda a, b: P.logical_or(P.logical_and(P.isinf(a), P.isnan(b)), P.logical_and(P.isnan(a), P.isinf(b))),
             _const(math.inf), _const(math.nan)),
            (_zero_and_nan, _const(math.nan), _const(math.pi / 2)),
        ])
    # log1p(t + sqrt(t) sqrt(t + 2)) with t = x - 1: accurate near 1; nan below 1 (sqrt(t) is)
    t = P.sub(x, splat(1, x))
    small = P.log1p(P.add(t, P.mul(P.sqrt(t), P.sqrt(P.add(t, splat(2, x))))))
    large = P.add(P.log(x), splat(math.log(2.0), x))
    return P.where(P.lt(x, splat(_LARGE, x)), small, large)


@lowers("atanh")
@in_opmath
def atanh(x):
    if x.dtype.is_complex:
        # log((1 + z) / (1 - z)) / 2 in parts: log1p(4|a| / ((1 - |a|)^2 + b^2)) / 4 with a's sign (odd
        # in a; accurate near 0 and near a = -1) and atan2(2b, (1 - a)(1 + a) - b^2) / 2 (b's zero
        # sign picks the side of the cuts |a| > 1)
        a, b = P.real(x), P.imag(x)
        m = P.abs(a)
        one_minus = P.sub(splat(1, a), m)
        re = P.log1p(P.div(P.mul(splat(4, a), m), P.add(P.mul(one_minus, one_minus), P.mul(b, b))))
        im = P.atan2(P.mul(splat(2, b), b), P.sub(P.mul(one_minus, P.add(splat(1, a), m)), P.mul(b, b)))
        return _special_values(x, P.copysign(P.mul(re, splat(0.25, a)), a), P.mul(im, splat(0.5, a)), [
            (lambda a, b: P.logical_or(P.isinf(a), P.isinf(b)), lambda a, b: P.copysign(splat(0, a), a),
             lambda a, b: P.where(P.isnan(b), b, P.copysign(splat(math.pi / 2, b), b))),
            (_zero_and_nan, lambda a, b: a, _const(math.nan)),
        ])
    # log1p(2m / (1 - m)) / 2 with m = |x|, and x's sign (atanh is odd; for x < 0 the log1p
    # argument would approach -1 and cancel): accurate near 0, +-inf at +-1, nan beyond
    m = P.abs(x)
    return P.copysign(P.mul(P.log1p(P.div(P.mul(splat(2, x), m), P.sub(splat(1, x), m))), splat(0.5, x)), x)


@lowers("cbrt")
@in_opmath
def cbrt(x):
    # pow's estimate of |x|^(1/3) (1/3 is inexact: a few ulps off for large exponents), then one
    # Newton step y + (m / y^2 - y) / 3 (m / y^2, not y^3, so no step under- or overflows)
    m = P.abs(x)
    y = P.pow(m, splat(1.0 / 3.0, x))
    y = P.add(y, P.div(P.sub(P.div(m, P.mul(y, y)), y), splat(3, x)))
    exact = P.logical_or(P.eq(m, splat(0, x)), P.isinf(m))     # 0, -0.0, +-inf are their own roots
    return P.where(exact, x, P.copysign(y, x))


@lowers("sinc")
@in_opmath
def sinc(x):
    product = P.mul(x, splat(math.pi, x))
    return where_eq(x, 0, splat(1, x), P.div(P.sin(product), product))


@lowers("spherical_bessel_j0")
def spherical_bessel_j0(x):
    # sin(x) / x (1 at 0); 0 at +-inf, where sin is nan
    return P.where(P.isinf(x), splat(0, x), where_eq(x, 0, splat(1, x), P.div(P.sin(x), x)))


@lowers("entr")
@in_opmath
def entr(x):
    # -x log x for x > 0, 0 at 0, -inf below, nan stays nan
    inner = P.where(P.lt(splat(0, x), x), P.neg(P.mul(x, P.log(x))), where_eq(x, 0, splat(0, x), splat(-math.inf, x)))
    return P.where(P.isnan(x), x, inner)


@lowers("logit")
@in_opmath
def logit(x):
    return P.log(P.div(x, P.sub(splat(1, x), x)))     # eager's formula, without clamping


@lowers("ndtr")
@in_opmath
def ndtr(x):
    return P.mul(P.add(splat(1, x), P.erf(P.mul(x, splat(math.sqrt(0.5), x)))), splat(0.5, x))


@lowers("xlog1py")
@in_opmath
def xlog1py(a, b):
    # 0 * log1p(b) is 0 even where log1p(b) is -inf or inf; a nan b stays nan
    product = P.where(P.eq(a, splat(0, a)), splat(0, a), P.mul(a, P.log1p(b)))
    return P.where(P.isnan(b), b, product)


@lowers("hypot")
@in_opmath
def hypot(a, b):
    # big * sqrt(1 + (small / big)^2): no overflow of a^2; inf wins over nan, as eager
    x, y = P.abs(a), P.abs(b)
    big, small = P.maximum(x, y), P.minimum(x, y)
    ratio = P.div(small, where_eq(big, 0, splat(1, big), big))
    r = P.mul(big, P.sqrt(P.add(splat(1, big), P.mul(ratio, ratio))))
    return P.where(P.logical_or(P.isinf(x), P.isinf(y)), splat(math.inf, x), r)


@lowers("ldexp")
def ldexp(a, b):
    # eager's composite a * 2^b, each step rounded to a's dtype as there
    return P.mul(a, P.pow(splat(2, b), b))


@lowers("logaddexp2")
@in_opmath
def logaddexp2(a, b):
    # max + log1p(2^-|a - b|) / ln 2; equal infinities give themselves (a - b would be nan)
    m = P.maximum(a, b)
    r = P.add(m, P.div(P.log1p(P.exp2(P.neg(P.abs(P.sub(a, b))))), splat(math.log(2.0), a)))
    return P.where(P.logical_and(P.isinf(a), P.eq(a, b)), a, r)


@lowers("lerp")
@in_opmath
def lerp(start, end, weight):
    # eager's two formulas: exact at weight 0 (start) and at weight 1 (end)
    diff = P.sub(end, start)
    near_start = P.add(start, P.mul(weight, diff))
    near_end = P.sub(end, P.mul(diff, P.sub(splat(1, weight), weight)))
    # eager's vectorized kernel fuses that product and difference (one rounding, no overflow of the
    # product alone): where the product overflowed, the same in halves, doubled (a finite result stays)
    halved = P.sub(P.mul(end, splat(0.5, end)), P.mul(P.mul(diff, splat(0.5, end)), P.sub(splat(1, weight), weight)))
    near_end = P.where(P.isinf(near_end), P.mul(halved, splat(2, end)), near_end)
    return P.where(P.lt(P.abs(weight), splat(0.5, weight)), near_start, near_end)


@lowers("nextafter")
def nextafter(a, b):
    # a +- |a| * c, with c just above half an ulp of 1: the sum rounds to the next float, whatever
    # a's place in its binade; at least the least subnormal (the step below the normals and at 0)
    info = torch.finfo(a.dtype)
    step = P.maximum(P.mul(P.abs(a), splat(info.eps / 2 * (1 + info.eps), a)), splat(info.smallest_normal * info.eps, a))
    toward = P.where(P.lt(a, b), P.add(a, step), P.sub(a, step))
    # from +-inf the next float is the largest finite one (|a| * c would be inf)
    toward = P.where(P.isinf(a), P.copysign(splat(info.max, a), a), toward)
    return P.where(P.eq(a, b), b, P.where(P.logical_or(P.isnan(a), P.isnan(b)), P.add(a, b), toward))


# --- integer bits ----------------------------------------------------------------------------

def _bits(x):
    return torch.iinfo(x.dtype).bits


@lowers("shift_right_logical")
def shift_right_logical(a, b):
    # the arithmetic shift, with the b high bits the sign may have filled cleared; 0 where b is
    # outside [0, bits), a where b is 0
    bits = _bits(a)
    inside = P.logical_and(P.lt(splat(0, b), b), P.lt(b, splat(bits, b)))
    shift = P.where(inside, b, splat(1, b))
    keep = P.bitwise_not(P.shift_left(splat(-1, a), P.sub(splat(bits, shift), shift)))
    shifted = P.bitwise_and(P.shift_right_arithmetic(a, shift), keep)
    return P.where(inside, shifted, where_eq(b, 0, a, splat(0, a)))


def _repeat_byte(byte, bits):
    """``byte`` repeated in every byte of a ``bits``-wide integer, as a signed value."""
    value = int.from_bytes(bytes([byte]) * (bits // 8), "little")
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


@lowers("population_count")
def population_count(x):
    # bit counts of pairs, nibbles, bytes (SWAR); each mask clears the high bits an arithmetic
    # shift fills with the sign, so it acts as a logical one. Then the bytes' counts summed into the
    # top byte by a wrapping multiply by 0x0101..., and shifted down (it is < 128: no sign to fill).
    bits = _bits(x)

    def masked_shift(v, s, byte):
        return P.bitwise_and(P.shift_right_arithmetic(v, splat(s, v)), splat(_repeat_byte(byte, bits), v))
    v = P.sub(x, masked_shift(x, 1, 0x55))
    v = P.add(P.bitwise_and(v, splat(_repeat_byte(0x33, bits), v)), masked_shift(v, 2, 0x33))
    v = P.bitwise_and(P.add(v, P.shift_right_arithmetic(v, splat(4, v))), splat(_repeat_byte(0x0F, bits), v))
    if bits == 8:
        return v
    return P.shift_right_arithmetic(P.mul(v, splat(_repeat_byte(0x01, bits), v)), splat(bits - 8, v))


@lowers("count_leading_zeros")
def count_leading_zeros(x):
    # the bit length of a non-negative x by binary search (is it at least 2^s, for s = bits/2, ..., 1),
    # subtracted from the width; 0 for a negative x (its top bit is set)
    bits = _bits(x)
    y = P.maximum(x, splat(0, x))
    length = splat(0, x)
    s = bits // 2
    while s >= 1:
        above = P.le(splat(1 << s, x), y)
        y = P.where(above, P.shift_right_arithmetic(y, splat(s, x)), y)
        length = P.add(length, P.mul(P.convert_element_type(above, x.dtype), splat(s, x)))
        s //= 2
    length = P.add(length, y)     # y is 0 or 1 now: the last bit
    return P.where(P.lt(x, splat(0, x)), splat(0, x), P.sub(splat(bits, x), length))


def _euclid_steps(bits):
    """Steps of Euclid's algorithm that suffice for operands below 2^bits (Lamé: n steps need the
    smaller operand to be at least the (n + 1)-th Fibonacci number)."""
    fib, prev, n = 1, 1, 0
    while prev <= 1 << bits:
        fib, prev, n = prev, fib + prev, n + 1
    return n + 1


@lowers("gcd")
def gcd(a, b):
    # Euclid's algorithm on |a|, |b|, unrolled to the steps the dtype's width may need; a pair that
    # reached (0, g) stays there
    a, b = P.abs(a), P.abs(b)
    for _ in range(_euclid_steps(_bits(a))):
        live = P.ne(a, splat(0, a))
        safe = P.where(live, a, splat(1, a))
        a, b = P.where(live, P.fmod(b, safe), a), P.where(live, safe, b)
    return b


@lowers("lcm")
def lcm(a, b):
    # |a / gcd * b|, 0 where gcd is 0 (both are), as eager
    g = P.gcd(a, b)
    live = P.ne(g, splat(0, g))
    quotient = P.trunc_divide(a, P.where(live, g, splat(1, g)))
    if _bits(a) < 32:     # eager's C++ computes a narrow product in int, then narrows |a / g * b| (wrapping)
        wide = P.abs(P.mul(P.convert_element_type(quotient, torch.int32), P.convert_element_type(b, torch.int32)))
        return P.where(live, P.convert_element_type(wide, a.dtype), splat(0, g))
    return P.where(live, P.abs(P.mul(quotient, b)), splat(0, g))


@lowers("frexp")
@in_opmath
def frexp(x):
    # |x| = f 2^e with f in [0.5, 1): e from log2, corrected by one either way where log2 rounded
    # across a power of two; 2^-e applied in two halves (2^-e alone may overflow), subnormals scaled
    # up by 2^p first. 0, -0.0, +-inf and nan give (x, 0), as eager.
    info = torch.finfo(x.dtype)
    p = _mantissa_bits(x)
    m = P.abs(x)
    subnormal = P.lt(m, splat(info.smallest_normal, x))
    m = P.where(subnormal, P.mul(m, splat(2.0 ** p, x)), m)
    e = P.add(P.floor(P.log2(m)), splat(1, x))
    half = P.floor(P.mul(e, splat(0.5, x)))
    f = P.mul(P.mul(m, P.pow(splat(2, x), P.neg(half))), P.pow(splat(2, x), P.neg(P.sub(e, half))))
    high, low = P.le(splat(1, x), f), P.lt(f, splat(0.5, x))
    f = P.where(high, P.mul(f, splat(0.5, x)), P.where(low, P.mul(f, splat(2, x)), f))
    e = P.add(e, P.sub(P.convert_element_type(high, x.dtype), P.convert_element_type(low, x.dtype)))
    e = P.where(subnormal, P.sub(e, splat(p, x)), e)
    special = P.logical_or(P.eq(m, splat(0, x)), P.logical_not(P.isfinite(x)))
    mantissa = P.where(special, x, P.copysign(f, x))
    return mantissa, P.convert_element_type(P.where(special, splat(0, x), e), torch.int32)
