"""Decompositions of elementwise ATen ops: math, arithmetic, comparisons, logic, bitwise; isclose,
square, gcd, lcm, frexp and isreal.

Most ops are one table row: the aten name, the prim, eager's promotion kind. Each row also
covers the op's out= and in-place (``<name>_``) overloads through ``register_with_variants``.
The ops below the tables are compositions of prims, each written as the formula eager's CPU
kernel evaluates (same special cases, same order of rounding), in the computation dtype.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, elementwise, is_number, is_symbolic, like, out_names, prepare, promote, register_inplace,
    register_out, register_with_variants, tensor_device, to_dtype, upcast, write_into)
from primkit.decompositions.indexing import INEXACT
from primkit.decompositions.registry import register
from primkit.decompositions.layout import in_layout
from primkit.decompositions.type_promotion import category, computation_dtype
from primkit.prims import dtypes as dt
from primkit.prims.meta.common import fits
from primkit.prims.layout import elementwise_strides, itemsize


def _surely_one(alpha) -> bool:
    """alpha == 1 where that is known without a guard (alpha may be a symbolic number, t.item()); imported
    here, not at the top: symbolic_shapes loads sympy, which `import primkit` does not (test_import_is_light)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true
    return statically_known_true(alpha == 1)


INF, NAN = float("inf"), float("nan")


# aten name -> (prim, promotion kind). Integer inputs of "int_to_float" ops compute in float.
UNARY = {
    "abs": ("abs", "complex_to_float"), "neg": ("neg", "default"), "reciprocal": ("reciprocal", "int_to_float"),
    "exp": ("exp", "int_to_float"), "exp2": ("exp2", "int_to_float"), "expm1": ("expm1", "int_to_float"),
    "log": ("log", "int_to_float"), "log2": ("log2", "int_to_float"), "log10": ("log10", "int_to_float"),
    "log1p": ("log1p", "int_to_float"), "sqrt": ("sqrt", "int_to_float"), "rsqrt": ("rsqrt", "int_to_float"),
    "sin": ("sin", "int_to_float"), "cos": ("cos", "int_to_float"), "tan": ("tan", "int_to_float"),
    "asin": ("asin", "int_to_float"), "acos": ("acos", "int_to_float"), "atan": ("atan", "int_to_float"),
    "sinh": ("sinh", "int_to_float"), "cosh": ("cosh", "int_to_float"), "tanh": ("tanh", "int_to_float"),
    "asinh": ("asinh", "int_to_float"), "acosh": ("acosh", "int_to_float"), "atanh": ("atanh", "int_to_float"),
    "sigmoid": ("sigmoid", "int_to_float"), "erf": ("erf", "int_to_float"), "erfc": ("erfc", "int_to_float"),
    "erfinv": ("erfinv", "int_to_float"), "lgamma": ("lgamma", "int_to_float"),
    "digamma": ("digamma", "int_to_float"), "i0": ("i0", "int_to_float"),
    "special_i0e": ("i0e", "int_to_float"), "special_i1": ("i1", "int_to_float"),
    "special_i1e": ("i1e", "int_to_float"), "special_ndtri": ("ndtri", "int_to_float"),
    "special_log_ndtr": ("log_ndtr", "int_to_float"), "special_erfcx": ("erfcx", "int_to_float"),
    "isnan": ("isnan", "always_bool"), "logical_not": ("logical_not", "always_bool"),
    "bitwise_not": ("bitwise_not", "default"),
}

BINARY = {
    "mul": ("mul", "default"), "remainder": ("remainder", "default"), "fmod": ("fmod", "default"),
    "atan2": ("atan2", "int_to_float"), "arctan2": ("atan2", "int_to_float"), "hypot": ("hypot", "default"),
    "maximum": ("maximum", "default"), "minimum": ("minimum", "default"), "copysign": ("copysign", "int_to_float"), "nextafter": ("nextafter", "default"),
    "igamma": ("igamma", "int_to_float"), "igammac": ("igammac", "int_to_float"),
    "special_zeta": ("zeta", "int_to_float"), "floor_divide": ("floor_divide", "default"),
    "eq": ("eq", "always_bool"), "ne": ("ne", "always_bool"), "lt": ("lt", "always_bool"),
    "le": ("le", "always_bool"), "gt": ("gt", "always_bool"), "ge": ("ge", "always_bool"),
    "logical_and": ("logical_and", "always_bool"), "logical_or": ("logical_or", "always_bool"),
    "logical_xor": ("logical_xor", "always_bool"), "bitwise_and": ("bitwise_and", "default"),
    "bitwise_or": ("bitwise_or", "default"), "bitwise_xor": ("bitwise_xor", "default"),
    "bitwise_left_shift": ("shift_left", "default"), "bitwise_right_shift": ("shift_right_arithmetic", "default"),
    "__lshift__": ("shift_left", "default"), "__rshift__": ("shift_right_arithmetic", "default"),
    "__and__": ("bitwise_and", "default"), "__or__": ("bitwise_or", "default"),
    "__xor__": ("bitwise_xor", "default"),
}


# Exact in any dtype (comparisons, selections, sign and bit manipulation): no float32 upcast.
NO_UPCAST = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "isnan",
             "logical_not", "maximum", "minimum", "neg", "abs", "bitwise_not", "bitwise_and",
             "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "__lshift__", "__rshift__",
             "__and__", "__or__", "__xor__", "copysign", "nextafter"}


# Eager's kernels that read a single-element second operand at full precision (see elementwise).
SCALAR_IN_OPMATH = {"mul", "div"}


# Python operators (shifts, &, |, ^) whose in-place form is spelled __i<name>__ rather than <name>_.
DUNDER_INPLACE = {"__lshift__": "__ilshift__", "__rshift__": "__irshift__", "__and__": "__iand__",
                  "__or__": "__ior__", "__xor__": "__ixor__"}


def _unary(name, prim, kind):
    prim_fn = getattr(P, prim)

    def decomp(a):
        return elementwise(prim_fn, a, kind=kind, upcast=name not in NO_UPCAST)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


def _binary(name, prim, kind):
    prim_fn = getattr(P, prim)

    def decomp(a, b):
        return elementwise(prim_fn, a, b, kind=kind, upcast=name not in NO_UPCAST,
                           scalar_in_opmath=name in SCALAR_IN_OPMATH)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


for _name, (_prim, _kind) in UNARY.items():
    register_with_variants(_name, _unary(_name, _prim, _kind))
for _name, (_prim, _kind) in BINARY.items():
    register_with_variants(_name, _binary(_name, _prim, _kind))


def _nan_ignoring(name, prim_fn, exact_fn):
    """fmax / fmin: the nan-ignoring prim on floats; on exact dtypes (bool included, which the
    prim lacks) there is no nan to ignore and maximum / minimum give the same answer."""
    def decomp(a, b):
        return elementwise(prim_fn if result_dtype(a, b) in dt.FLOAT else exact_fn, a, b, upcast=False)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("fmax", _nan_ignoring("fmax", P.fmax, P.maximum))
register_with_variants("fmin", _nan_ignoring("fmin", P.fmin, P.minimum))

for _name, _inplace in DUNDER_INPLACE.items():
    for _overload in getattr(aten, _inplace).overloads():
        register_inplace(getattr(getattr(aten, _inplace), _overload), _binary(_name, *BINARY[_name]), _inplace)


def result_dtype(*args):
    return promote(*args, upcast=False)[1]


def _reject_complex(name, a):
    if a.dtype in dt.COMPLEX:
        raise RuntimeError(f"{name}: complex inputs ({dt.short(a.dtype)}) are not supported by primkit")


# ---- rounding, sign and classification -------------------------------------------------------

def _identity_for_exact(prim_name):
    """Rounding ops: an identity (a copy) on integer and bool inputs, as in eager."""
    prim_fn = getattr(P, prim_name)

    def decomp(a):
        if a.dtype in dt.FLOAT:
            return elementwise(prim_fn, a)
        return P.clone(a)
    decomp.__name__ = decomp.__qualname__ = prim_name
    return decomp


for _name in ("ceil", "floor", "trunc"):
    register_with_variants(_name, _identity_for_exact(_name))


def round_(a, *, decimals=0):
    if a.dtype not in dt.FLOAT:
        return P.clone(a)
    if decimals == 0:
        return elementwise(P.round, a)
    # Eager scales by 10**|decimals| in the computation dtype, rounds half to even, scales back.
    (x,), orig = upcast(a)
    scale = like(x, 10.0 ** abs(decimals))
    if decimals > 0:
        out = P.div(P.round(P.mul(x, scale)), scale)
    else:
        out = P.mul(P.round(P.div(x, scale)), scale)
    return to_dtype(out, orig)


register_with_variants("round", round_)


def frac(a):
    # x - trunc(x) is exact in x's own dtype: no upcast needed.
    return elementwise(lambda x: P.sub(x, P.trunc(x)), a, upcast=False)


register_with_variants("frac", frac)


def sign(a):
    if a.dtype == torch.bool:
        return P.clone(a)
    return elementwise(P.sign, a, upcast=False)


register_with_variants("sign", sign)


def sgn(a):
    return elementwise(P.sgn, a) if a.dtype in dt.COMPLEX else sign(a)


register_with_variants("sgn", sgn)


def signbit(a):
    # A bool is never negative; x != x is an all-false mask laid out as eager's result.
    return P.signbit(a) if a.dtype != torch.bool else P.ne(a, a)


register_with_variants("signbit", signbit)


def _classify(name, test_float, value_for_exact, complex_ok=True):
    """isinf & co.: test_float on floating and complex inputs; a constant mask on exact ones
    (x == x is all true, x != x all false: a fresh tensor with eager's layout)."""
    def decomp(a):
        if not complex_ok:
            _reject_complex(name, a)
        if a.dtype in dt.FLOAT or a.dtype in dt.COMPLEX:
            return test_float(a)
        return P.eq(a, a) if value_for_exact else P.ne(a, a)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


def _is_value(value):
    return lambda a: P.eq(a, like(a, value))


register_with_variants("isinf", _classify("isinf", P.isinf, False))
register_with_variants("isfinite", _classify("isfinite", P.isfinite, True))
register_with_variants("isposinf", _classify("isposinf", _is_value(INF), False, complex_ok=False))
register_with_variants("isneginf", _classify("isneginf", _is_value(-INF), False, complex_ok=False))


def nan_to_num(a, nan=0.0, posinf=None, neginf=None):
    _reject_complex("nan_to_num", a)
    if a.dtype not in dt.FLOAT:
        return P.clone(a)
    info = torch.finfo(a.dtype)
    replace = [(P.isnan(a), 0.0 if nan is None else nan),
               (P.eq(a, like(a, INF)), info.max if posinf is None else posinf),
               (P.eq(a, like(a, -INF)), info.min if neginf is None else neginf)]
    out = a
    for mask, value in reversed(replace):
        out = P.where(mask, like(a, value), out)
    return out


register_with_variants("nan_to_num", nan_to_num)


# ---- arithmetic ------------------------------------------------------------------------------

def _check_alpha(name, alpha, dtype, arg="alpha"):
    if alpha is None or _surely_one(alpha):   # (alpha = t.item(): a symbolic number)
        return
    if dtype == torch.bool and not isinstance(alpha, bool):
        raise RuntimeError(f"{name}: Boolean {arg} only supported for Boolean results.")
    if category(dtype) < 2 and not isinstance(alpha, (bool, int, torch.SymInt)):
        raise RuntimeError(f"{name}: For integral input tensors, argument {arg} must not be a floating point number.")


def _scaled(b, alpha):
    return b if _surely_one(alpha) else P.mul(b, like(b, alpha))


def add(a, b, *, alpha=1):
    _check_alpha("add", alpha, result_dtype(a, b))
    if result_dtype(a, b) == torch.bool:
        return elementwise(P.logical_or, a, b, kind="default")
    return elementwise(lambda x, y: P.add(x, _scaled(y, alpha)), a, b)


def sub(a, b, *, alpha=1):
    bools = [x for x in (a, b) if (isinstance(x, torch.Tensor) and x.dtype == torch.bool) or isinstance(x, bool)]
    if len(bools) == 2:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if bools:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    _check_alpha("sub", alpha, result_dtype(a, b))
    return elementwise(lambda x, y: P.sub(x, _scaled(y, alpha)), a, b)


def rsub(a, b, *, alpha=1):
    return sub(b, a, alpha=alpha)


register_with_variants("add", add)
register_with_variants("sub", sub)
register_with_variants("subtract", sub)
register_with_variants("rsub", rsub)


def div(a, b, *, rounding_mode=None):
    if rounding_mode is None:
        return elementwise(P.div, a, b, kind="int_to_float", scalar_in_opmath=True)
    if rounding_mode == "trunc":
        if category(result_dtype(a, b)) == 2:   # float: the true quotient, rounded to its dtype, truncated
            return elementwise(P.trunc, elementwise(P.div, a, b), upcast=False)
        return elementwise(P.trunc_divide, a, b)
    if rounding_mode == "floor":
        return elementwise(P.floor_divide, a, b)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


register_with_variants("div", div)
register_with_variants("divide", div)
register_with_variants("true_divide", lambda a, b: div(a, b))


def _cube(x):
    return P.mul(P.mul(x, x), x)


# Exponents eager's pow(Tensor, Scalar) kernel evaluates by a cheaper formula on floating
# inputs; they differ from std::pow on signed zeros and infinities (pow(-inf, 0.5) is nan).
POW_BY_FORMULA = {
    0.5: P.sqrt, -0.5: P.rsqrt, 2: lambda x: P.mul(x, x), 3: _cube, -1: P.reciprocal,
    -2: lambda x: P.reciprocal(P.mul(x, x)),
}


def pow_(a, b):
    compute, result = promote(a, b)
    if isinstance(a, torch.Tensor) and is_number(b):
        if category(result) == 1:
            # a symbolic exponent (t.item()) is checked when the graph runs (a runtime assert)
            torch._check(b >= 0, lambda: "Integers to negative integer powers are not allowed.")
        # eager's float16 kernel calls std::pow for every exponent (bfloat16 does not); a symbolic exponent
        # takes std::pow too (eager's formulas differ from it only at -0 and infinities, and by an ulp for 3, -2)
        if category(result) == 2 and result != torch.float16 and not isinstance(b, complex) and \
                not is_symbolic(b) and b in POW_BY_FORMULA:
            return to_dtype(POW_BY_FORMULA[b](to_dtype(a, compute)), result)
    return elementwise(P.pow, a, b)


register_with_variants("pow", pow_)


def float_power(a, b):
    """pow in double precision (complex128 when either operand is complex)."""
    wide = torch.complex128 if _any_complex(a, b) else torch.float64
    return pow_(*(to_dtype(x, wide) if isinstance(x, torch.Tensor) else x for x in (a, b)))


def float_power_inplace(self, exponent):
    wide = torch.complex128 if _any_complex(self, exponent) else torch.float64
    if self.dtype != wide:
        raise RuntimeError(f"the base given to float_power_ has dtype {_eager_name(self.dtype)} but the "
                           f"operation's result requires dtype {_eager_name(wide)}")
    return write_into(self, float_power(self, exponent), "float_power_")


_eager_name = dt.eager_name


def _any_complex(*xs):
    return any((isinstance(x, torch.Tensor) and x.dtype in dt.COMPLEX) or isinstance(x, complex) for x in xs)


for _overload in aten.float_power.overloads():
    _op = getattr(aten.float_power, _overload)
    if out_names(_op):
        register_out(_op, float_power, "float_power")
    else:
        register(_op)(float_power)
register(aten.float_power_)(float_power_inplace)


def ldexp(a, exponent):
    # eager: a * 2.0 ** exponent, through its own pow and mul
    return torch.mul(a, torch.pow(2.0, exponent))


register_with_variants("ldexp", ldexp)


def _scale_by(name, factor):
    """deg2rad / rad2deg: a product with a constant; exact inputs become the default float dtype."""
    def decomp(a):
        _reject_complex(name, a)
        x = a if a.dtype in dt.FLOAT else to_dtype(a, torch.get_default_dtype())
        return elementwise(P.mul, x, factor, scalar_in_opmath=True)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("deg2rad", _scale_by("deg2rad", math.pi / 180))
register_with_variants("rad2deg", _scale_by("rad2deg", 180 / math.pi))


def addcmul(a, t1, t2, *, value=1):
    if result_dtype(a, t1, t2) == torch.bool:
        raise RuntimeError("addcmul: bool tensors are not supported (eager has no bool kernel)")
    # eager: self + (value * t1) * t2, value read at the computation dtype's precision
    return elementwise(lambda x, y, z: P.add(x, P.mul(P.mul(like(y, value), y), z)), a, t1, t2)


def addcdiv(a, t1, t2, *, value=1):
    if category(result_dtype(t1, t2)) < 2:
        raise RuntimeError("Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                           "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can "
                           "be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                           "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                           "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                           "for all dtypes.")
    # eager: self + (value * t1) / t2
    return elementwise(lambda x, y, z: P.add(x, P.div(P.mul(like(y, value), y), z)), a, t1, t2)


register_with_variants("addcmul", addcmul)
register_with_variants("addcdiv", addcdiv)


def lerp(start, end, weight):
    """start + w * (end - start) for |w| < 0.5, else end - (end - start) * (1 - w): eager's
    two-sided form, exact at both ends."""
    for name, t in (("end", end), ("weight", weight)):
        # eager lets a 0-d weight of another dtype join; end and dimensioned weights must match
        if isinstance(t, torch.Tensor) and t.dtype != start.dtype and (name == "end" or t.dim() > 0):
            raise RuntimeError(f"expected dtype {_dtype_word(start.dtype)} for `{name}` but got dtype "
                               f"{_dtype_word(t.dtype)}")
    if start.dtype not in dt.FLOAT and start.dtype not in dt.COMPLEX:
        raise RuntimeError(f"lerp: expected a floating or complex input, got {dt.short(start.dtype)}")
    tensors = [t for t in (start, end, weight) if isinstance(t, torch.Tensor)]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    compute = computation_dtype(start.dtype)   # a Python weight is read at this precision, as in eager
    s, e, w = (prepare(x, compute, shape, tensor_device(*tensors)) for x in (start, end, weight))
    diff = P.sub(e, s)
    w_abs = P.abs(w)
    small = P.lt(w_abs, like(w_abs, 0.5))
    out = P.where(small, P.add(s, P.mul(w, diff)), P.sub(e, P.mul(diff, P.sub(like(w, 1), w))))
    # The where's predicate leads the layout rule; eager's result follows (start, end, weight).
    out = in_layout(out, elementwise_strides(shape, [(x.stride(), itemsize(x.dtype)) for x in (s, e, w)]))
    return to_dtype(out, start.dtype)


def _dtype_word(dtype):
    return {torch.float32: "float", torch.float64: "double", torch.float16: "c10::Half",
            torch.bfloat16: "c10::BFloat16"}.get(dtype, dt.short(dtype))


register_with_variants("lerp", lerp)


# ---- special functions -----------------------------------------------------------------------

def _x_times(log_fn):
    """xlogy / xlog1py: 0 where x is 0 (even where log is -inf) unless y is nan. The mask
    starts from x so the result takes x's layout, as eager's does."""
    def math_(x, y):
        zero = like(x, 0)
        x_is_zero = P.logical_and(P.eq(x, zero), P.logical_not(P.isnan(y)))
        return P.where(x_is_zero, zero, P.mul(x, log_fn(y)))
    return lambda a, b: elementwise(math_, a, b, kind="int_to_float")


xlogy = _x_times(P.log)
xlog1py = _x_times(P.log1p)
register_with_variants("xlogy", xlogy)
register_with_variants("special_xlogy", xlogy)
register_with_variants("special_xlog1py", xlog1py)


def entr(a):
    """-x log x for x > 0, 0 at 0, -inf below, nan for nan."""
    def math_(x):
        zero = like(x, 0)
        negative = P.where(P.isnan(x), x, like(x, -INF))
        return P.where(P.gt(x, zero), P.mul(P.neg(x), P.log(x)), P.where(P.eq(x, zero), zero, negative))
    return elementwise(math_, a, kind="int_to_float")


register_with_variants("special_entr", entr)


def _logaddexp(name, exp_fn, log1p_scale):
    """log(e^a + e^b) as max + log1p(e^-|a - b|): no overflow for huge operands; equal
    infinities give themselves (their difference would be nan)."""
    def math_(x, y):
        tail = P.log1p(exp_fn(P.neg(P.abs(P.sub(x, y)))))
        if log1p_scale != 1:
            tail = P.mul(tail, like(tail, log1p_scale))
        same_inf = P.logical_and(P.isinf(x), P.eq(x, y))
        return P.where(same_inf, x, P.add(P.maximum(x, y), tail))

    def decomp(a, b):
        for x in (a, b):
            if isinstance(x, torch.Tensor):
                _reject_complex(name, x)
        return elementwise(math_, a, b)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("logaddexp", _logaddexp("logaddexp", P.exp, 1))
register_with_variants("logaddexp2", _logaddexp("logaddexp2", P.exp2, 1 / math.log(2)))


def logit(a, eps=None):
    """log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given (and not negative).
    Like eager, eps and 1 - eps are rounded to the result dtype (1 - 1e-6 is 1 in float16)."""
    result = result_dtype(a) if a.dtype in dt.FLOAT else torch.get_default_dtype()

    def math_(x):
        if eps is not None and eps >= 0:
            lo = P.scalar_tensor(eps, dtype=result, device=x.device)
            hi = P.sub(P.scalar_tensor(1, dtype=result, device=x.device), lo)
            x = P.minimum(P.maximum(x, prepare(lo, x.dtype, x.shape, x.device)), prepare(hi, x.dtype, x.shape, x.device))
        return P.log(P.div(x, P.sub(like(x, 1), x)))
    return elementwise(math_, a, kind="int_to_float")


register_with_variants("logit", logit)


def sinc(a):
    """sin(pi x) / (pi x), 1 at 0."""
    def math_(x):
        pi_x = P.mul(like(x, math.pi), x)
        return P.where(P.eq(x, like(x, 0)), like(x, 1), P.div(P.sin(pi_x), pi_x))
    return elementwise(math_, a, kind="int_to_float")


register_with_variants("sinc", sinc)


def heaviside(a, values):
    if a.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    _reject_complex("heaviside", a)

    def math_(x, v):
        zero = like(x, 0)
        return P.where(P.eq(x, zero), v, to_dtype(P.gt(x, zero), x.dtype))
    return elementwise(math_, a, values, upcast=False)


register_with_variants("heaviside", heaviside)


def mvlgamma(a, p):
    """Multivariate log-gamma: sum over j < p of lgamma(x - j / 2), plus p (p - 1) / 4 log(pi).
    Like eager, each term is rounded to the input dtype and the sum accumulates in the
    computation dtype."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if a.dtype == torch.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    x = a if a.dtype in dt.FLOAT else to_dtype(a, torch.get_default_dtype())
    n = x.dim()
    shape = (*x.shape, p)
    # the offsets -(p - 1) / 2, ..., -1/2, 0 in x's dtype (exact), along a new last dim
    offsets = elementwise(P.div, to_dtype(P.iota(p, start=1 - p, step=1, dtype=torch.int64, device=x.device),
                                          x.dtype), 2)
    terms = elementwise(P.lgamma, elementwise(P.add, P.broadcast_in_dim(offsets, shape, [n]),
                                              P.broadcast_in_dim(x, shape, list(range(n)))))
    (terms,), orig = upcast(terms)
    total = to_dtype(P.sum(terms, [n]), orig)
    return elementwise(P.add, total, p * (p - 1) * math.log(math.pi) / 4)


register_with_variants("mvlgamma", mvlgamma)


def polygamma(n, a):
    """digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return elementwise(P.digamma, a, kind="int_to_float")
    if n == 1:
        return elementwise(_trigamma, a, kind="int_to_float")
    factor = (1 if n % 2 else -1) * math.factorial(n)
    return elementwise(lambda x: P.mul(like(x, factor), P.zeta(like(x, n + 1), x)), a, kind="int_to_float")


def _trigamma(x):
    """Eager's trigamma: reflection below 1/2, six recurrence steps, then the asymptotic series."""
    one = like(x, 1)
    reflect = P.lt(x, like(x, 0.5))
    sin_pi_x = P.sin(P.mul(like(x, math.pi), x))
    reflection = P.neg(P.div(like(x, math.pi ** 2), P.mul(sin_pi_x, sin_pi_x)))
    result = P.where(reflect, reflection, like(x, 0))
    x = P.where(reflect, P.sub(one, x), x)
    for _ in range(6):
        result = P.add(result, P.div(one, P.mul(x, x)))
        x = P.add(x, one)
    ixx = P.div(one, P.mul(x, x))
    series = P.mul(ixx, P.sub(like(x, 1 / 30), P.mul(ixx, like(x, 1 / 42))))
    series = P.add(P.add(one, P.div(one, P.mul(like(x, 2), x))), P.mul(ixx, P.sub(like(x, 1 / 6), series)))
    result = P.add(result, P.div(series, x))
    return P.where(reflect, P.neg(result), result)


register(aten.polygamma.default)(polygamma)
register_out(aten.polygamma.out, polygamma, "polygamma")
register(aten.polygamma_.default)(lambda a, n: write_into(a, polygamma(n, a), "polygamma_"))


# ---- complex parts ---------------------------------------------------------------------------

def angle(a):
    """arg(z) for complex z; pi for negative reals, 0 otherwise, nan kept."""
    if a.dtype in dt.COMPLEX:
        return P.atan2(P.imag(a), P.real(a))

    def math_(x):
        zero = like(x, 0)
        return P.where(P.isnan(x), x, P.where(P.lt(x, zero), like(x, math.pi), zero))
    return elementwise(math_, a, kind="int_to_float")


register_with_variants("angle", angle)


def conj_physical(a):
    return P.conj_physical(a) if a.dtype in dt.COMPLEX else P.clone(a)


register_with_variants("conj_physical", conj_physical)
register_with_variants("_conj_physical", conj_physical)


# ---- selection -------------------------------------------------------------------------------

def where(condition, a, b):
    if condition.dtype != torch.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_eager_name(condition.dtype)}")
    result = result_dtype(a, b)
    device = tensor_device(condition, a, b)
    shape = broadcast_shapes(*(x.shape for x in (condition, a, b) if isinstance(x, torch.Tensor)))
    return P.where(prepare(condition, torch.bool, shape, device), prepare(a, result, shape, device),
                   prepare(b, result, shape, device))


register_with_variants("where", where)


def clamp(a, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    result = result_dtype(*(x for x in (a, min, max) if x is not None))
    if result == torch.bool:
        raise RuntimeError("clamp: bool tensors are not supported (eager has no bool kernel)")
    for bound in (min, max):
        _check_fits(bound, result)
    # maximum then minimum: min > max gives max, as in eager; nan bounds propagate.
    out = to_dtype(a, result)
    if min is not None:
        out = elementwise(P.maximum, out, _cast(min, result), upcast=False)
    if max is not None:
        out = elementwise(P.minimum, out, _cast(max, result), upcast=False)
    return out


def _check_fits(value, dtype):
    """eager converts a Python bound to the result dtype and refuses a finite value beyond its range (a
    symbolic bound, t.item(), is not checked: its value is known only when the graph runs)."""
    if is_symbolic(value):
        return
    if is_number(value) and dtype in dt.FLOAT and math.isfinite(value) and abs(value) > torch.finfo(dtype).max:
        raise RuntimeError(f"value cannot be converted to type {_CPP_TYPES.get(dtype, dtype)} without overflow")
    # An int bound is not wrapped as an elementwise operand is (common.wrapped): eager refuses it.
    if type(value) is int and dtype in dt.INT and not fits(value, dtype):
        raise RuntimeError(f"value cannot be converted to type {_CPP_TYPES.get(dtype, dtype)} without overflow")


_CPP_TYPES = {torch.float16: "c10::Half", torch.bfloat16: "c10::BFloat16", torch.float32: "float",
              torch.uint8: "uint8_t", torch.int8: "int8_t", torch.int16: "int16_t", torch.int32: "int", torch.int64: "int64_t"}


def _cast(x, dtype):
    return to_dtype(x, dtype) if isinstance(x, torch.Tensor) else x


register_with_variants("clamp", clamp)
register_with_variants("clip", clamp)
register_with_variants("clamp_min", lambda a, min: clamp(a, min=min))
register_with_variants("clamp_max", lambda a, max: clamp(a, max=max))


# ---- closeness and conveniences: isclose, square, gcd, lcm, frexp, isreal -------------------

def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """a == b, or |a - b| <= atol + |rtol * b| where that is finite (nan == nan with equal_nan);
    bool operands compare in the default float dtype."""
    if a.dtype != b.dtype:
        raise RuntimeError(f"isclose: {dt.short(a.dtype)} did not match {dt.short(b.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    close = elementwise(P.eq, a, b, kind="always_bool")
    if equal_nan and a.dtype in INEXACT:
        close = P.logical_or(close, elementwise(P.logical_and, P.isnan(a), P.isnan(b)))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype == torch.bool:
        a, b = (to_dtype(t, torch.get_default_dtype()) for t in (a, b))
    allowed = elementwise(P.add, P.abs(elementwise(P.mul, b, rtol)), atol)
    actual = P.abs(elementwise(P.sub, a, b))
    within = elementwise(P.le, actual, allowed, kind="always_bool")
    if actual.dtype in INEXACT:
        within = P.logical_and(P.isfinite(actual), within)
    return P.logical_or(close, within)


register(aten.isclose.default)(isclose)


def square(a):
    return aten.pow.Tensor_Scalar(a, 2)


register_with_variants("square", square)


def _integer_binary(name, prim):
    def decomp(a, b):
        for t in (a, b):
            if isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()):
                raise RuntimeError(f"\"{name}_cpu\" not implemented for '{str(t.dtype)[6:].capitalize()}'")
        return elementwise(prim, a, b, upcast=False)
    decomp.__qualname__ = name
    return decomp


register_with_variants("gcd", _integer_binary("gcd", P.gcd))
register_with_variants("lcm", _integer_binary("lcm", P.lcm))


@register(aten.frexp.Tensor)
def frexp(a):
    if not a.is_floating_point():
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    return tuple(P.frexp(a))


register_out(aten.frexp.Tensor_out, frexp, "frexp.Tensor_out")


@register(aten.isreal.default)
def isreal(a):
    """True where the imaginary part is 0 (always, for a real tensor)."""
    if not a.is_complex():
        return aten.ones_like.default(a, dtype=torch.bool)
    return P.eq(P.imag(a), aten.zeros_like.default(P.imag(a)))
