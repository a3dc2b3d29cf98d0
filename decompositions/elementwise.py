"""Decompositions of elementwise ATen ops: math, arithmetic, comparisons, logic, bitwise.

Most ops are one table row: the aten name, the prim, eager's promotion kind. Each row also
covers the op's out= and in-place (``<name>_``) overloads through ``register_with_variants``.
"""
from __future__ import annotations

import torch

from decompositions.common import (
    P, broadcast_shapes, elementwise, is_number, prepare, promote, register_with_variants, tensor_device,
    to_dtype,
)
from decompositions.type_promotion import category
from prims import dtypes as dt

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
    "signbit": ("signbit", "always_bool"), "isnan": ("isnan", "always_bool"),
    "logical_not": ("logical_not", "always_bool"), "bitwise_not": ("bitwise_not", "default"),
}

BINARY = {
    "mul": ("mul", "default"), "remainder": ("remainder", "default"), "fmod": ("fmod", "default"),
    "atan2": ("atan2", "int_to_float"), "arctan2": ("atan2", "int_to_float"), "hypot": ("hypot", "default"),
    "maximum": ("maximum", "default"), "minimum": ("minimum", "default"), "fmax": ("fmax", "default"),
    "fmin": ("fmin", "default"), "copysign": ("copysign", "int_to_float"), "nextafter": ("nextafter", "default"),
    "igamma": ("igamma", "int_to_float"), "igammac": ("igammac", "int_to_float"),
    "special_zeta": ("zeta", "int_to_float"), "floor_divide": ("floor_divide", "default"),
    "eq": ("eq", "always_bool"), "ne": ("ne", "always_bool"), "lt": ("lt", "always_bool"),
    "le": ("le", "always_bool"), "gt": ("gt", "always_bool"), "ge": ("ge", "always_bool"),
    "logical_and": ("logical_and", "always_bool"), "logical_or": ("logical_or", "always_bool"),
    "logical_xor": ("logical_xor", "always_bool"), "bitwise_and": ("bitwise_and", "default"),
    "bitwise_or": ("bitwise_or", "default"), "bitwise_xor": ("bitwise_xor", "default"),
    "bitwise_left_shift": ("shift_left", "default"), "bitwise_right_shift": ("shift_right_arithmetic", "default"),
}
# Comparisons are exact in any dtype; they need no float32 upcast.
NO_UPCAST = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "signbit", "isnan",
             "logical_not", "maximum", "minimum", "fmax", "fmin", "neg", "abs", "bitwise_not", "bitwise_and",
             "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "copysign", "nextafter"}


def _unary(name, prim, kind):
    prim_fn = getattr(P, prim)

    def decomp(a):
        return elementwise(prim_fn, a, kind=kind, upcast=name not in NO_UPCAST)
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


# Eager's kernels that read a single-element second operand at full precision (see elementwise).
SCALAR_IN_OPMATH = {"mul", "div"}


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
    # Eager scales by 10**decimals, rounds half to even, and scales back.
    (x,), orig = _upcast1(a)
    scale = _like(x, 10.0 ** abs(decimals))
    if decimals > 0:
        out = P.div(P.round(P.mul(x, scale)), scale)
    else:
        out = P.mul(P.round(P.div(x, scale)), scale)
    return to_dtype(out, orig)


register_with_variants("round", round_)


def _upcast1(a):
    from decompositions.type_promotion import computation_dtype
    return (to_dtype(a, computation_dtype(a.dtype)),), a.dtype


def _like(t, value):
    """A number as a tensor shaped, typed and placed like t (stride 0: no memory)."""
    return prepare(value, t.dtype, t.shape, t.device)


def sign(a):
    if a.dtype == torch.bool:
        return P.clone(a)
    return elementwise(P.sign, a, upcast=False)


register_with_variants("sign", sign)


def sgn(a):
    return elementwise(P.sgn, a) if a.dtype in dt.COMPLEX else sign(a)


register_with_variants("sgn", sgn)


def _predicate_of_float(prim_name, value_for_exact):
    prim_fn = getattr(P, prim_name)

    def decomp(a):
        if a.dtype in dt.FLOAT or a.dtype in dt.COMPLEX:
            return prim_fn(a)
        return P.broadcast_in_dim(P.scalar_tensor(value_for_exact, dtype=torch.bool, device=a.device),
                                  list(a.shape), [])
    decomp.__name__ = decomp.__qualname__ = prim_name
    return decomp


register_with_variants("isinf", _predicate_of_float("isinf", False))
register_with_variants("isfinite", _predicate_of_float("isfinite", True))


def _check_alpha(name, alpha, dtype):
    if alpha is None or alpha == 1:
        return
    if dtype == torch.bool and not isinstance(alpha, bool):
        raise RuntimeError(f"{name}: Boolean alpha only supported for Boolean results.")
    if category(dtype) < 2 and not isinstance(alpha, (bool, int, torch.SymInt)):
        raise RuntimeError(f"{name}: For integral input tensors, argument alpha must not be a floating point number.")


def _scaled(b, alpha):
    return b if alpha == 1 else P.mul(b, _like(b, alpha))


def add(a, b, *, alpha=1):
    _check_alpha("add", alpha, result_dtype(a, b))
    if result_dtype(a, b) == torch.bool:
        return elementwise(P.logical_or, a, b, kind="default")
    return elementwise(lambda x, y: P.add(x, _scaled(y, alpha)), a, b)


def sub(a, b, *, alpha=1):
    for x in (a, b):
        if isinstance(x, torch.Tensor) and x.dtype == torch.bool or isinstance(x, bool):
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    _check_alpha("sub", alpha, result_dtype(a, b))
    return elementwise(lambda x, y: P.sub(x, _scaled(y, alpha)), a, b)


def rsub(a, b, *, alpha=1):
    return sub(b, a, alpha=alpha)


def result_dtype(*args):
    return promote(*args, upcast=False)[1]


register_with_variants("add", add)
register_with_variants("sub", sub)
register_with_variants("subtract", sub)
register_with_variants("rsub", rsub)


def div(a, b, *, rounding_mode=None):
    if rounding_mode is None:
        return elementwise(P.div, a, b, kind="int_to_float", scalar_in_opmath=True)
    if rounding_mode == "trunc":
        if category(result_dtype(a, b)) == 2:   # float: round the true quotient
            return elementwise(lambda x, y: P.trunc(P.div(x, y)), a, b)
        return elementwise(P.trunc_divide, a, b)
    if rounding_mode == "floor":
        return elementwise(P.floor_divide, a, b)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


register_with_variants("div", div)
register_with_variants("divide", div)
register_with_variants("true_divide", lambda a, b: div(a, b))


def pow_(a, b):
    if is_number(a):   # aten.pow.Scalar: number ** tensor
        return elementwise(P.pow, a, b)
    return elementwise(P.pow, a, b)


register_with_variants("pow", pow_)
register_with_variants("float_power", lambda a, b: elementwise(
    P.pow, *(to_dtype(x, torch.complex128 if _any_complex(a, b) else torch.float64) if isinstance(x, torch.Tensor)
             else x for x in (a, b))))


def _any_complex(*xs):
    return any((isinstance(x, torch.Tensor) and x.dtype in dt.COMPLEX) or isinstance(x, complex) for x in xs)


def where(condition, a, b):
    if condition.dtype != torch.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{dt.short(condition.dtype)}")
    compute, result = promote(a, b, upcast=False)
    device = tensor_device(condition, a, b)
    shape = broadcast_shapes(*(x.shape for x in (condition, a, b) if isinstance(x, torch.Tensor)))
    return P.where(prepare(condition, torch.bool, shape, device), prepare(a, result, shape, device),
                   prepare(b, result, shape, device))


register_with_variants("where", where)


def clamp(a, min=None, max=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    args = [x for x in (a, min, max) if x is not None]
    result = result_dtype(*args)
    out = to_dtype(a, result)
    if min is not None:
        out = elementwise(P.maximum, out, min if not isinstance(min, torch.Tensor) else to_dtype(min, result))
    if max is not None:
        out = elementwise(P.minimum, out, max if not isinstance(max, torch.Tensor) else to_dtype(max, result))
    return to_dtype(out, result)


register_with_variants("clamp", clamp)
register_with_variants("clip", clamp)
register_with_variants("clamp_min", lambda a, min: clamp(a, min=min))
register_with_variants("clamp_max", lambda a, max: clamp(a, max=max))
