"""Lowering to a backend's own prim set: prims that decompose into other prims.

A lowering is a function written in other prims, registered with ``@lowers("<prim>")``.
``get_decompositions(target=SET)`` returns the ATen table plus the lowering of every prim
outside SET (make_fx applies table entries to primkit ops as to ATen ops), after checking that
every prim reaches SET transitively; otherwise it raises DecompositionError listing the prims
that cannot. Which prims a lowering reaches is read off a trace of the lowering itself.

``MINIMAL_PRIMS`` is the smallest closure: the prims that have no lowering valid at every dtype
they take.

Lowerings keep eager's numerics where a naive formula would not: log1p and expm1 use the
u = 1 + x correction (Goldberg), tanh is computed from expm1 of -2x on the half plane
Re x >= 0 (and its odd symmetry).
"""
from __future__ import annotations

import difflib
import functools
import math
from collections.abc import Iterable

import torch
import torch.utils._pytree as pytree
from torch.utils._python_dispatch import TorchDispatchMode

from primkit import prims
from primkit.prims import dtypes as dt
from primkit.decompositions.registry import DecompositionError

P = torch.ops.primkit
LOWERINGS: dict = {}     # prim name -> (function, example-args factory)


def lowers(name, example=None, dtypes=None):
    """Register a lowering of prim ``name``. ``dtypes``: a dtype class of ``prims.dtypes`` ("float",
    "real", ...) or a set of dtypes, where the formula is valid (default: every dtype the prim takes);
    elsewhere the prim is left to the backend or to another lowering. ``example(dtype)`` builds the
    arguments to trace it with at a dtype (default: one tensor of shape (3,) per Tensor argument)."""
    prims.get(name)
    if isinstance(dtypes, str):
        dtypes = dt.resolve([dtypes])
    elif dtypes is not None:
        dtypes = dt.resolve(dtypes) if all(isinstance(d, str) for d in dtypes) else frozenset(dtypes)

    def deco(fn):
        if name in LOWERINGS:
            raise ValueError(f"prim '{name}' has two lowerings")
        LOWERINGS[name] = (fn, example, dtypes)
        return fn
    return deco


_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _in_opmath(fn):
    """Compute a float16/bfloat16 lowering in float32 and round once at the end, as eager's
    kernels do (a formula of several prims rounded after each would drift by ulps)."""
    @functools.wraps(fn)
    def lowered(x, *rest):
        if x.dtype not in _LOW_PRECISION:
            return fn(x, *rest)
        rest = [P.convert_element_type(r, torch.float32) if isinstance(r, torch.Tensor) and r.dtype == x.dtype else r
                for r in rest]
        result = fn(P.convert_element_type(x, torch.float32), *rest)
        return P.convert_element_type(result, x.dtype)
    return lowered


def _splat(value, like):
    return P.broadcast_in_dim(P.scalar_tensor(value, dtype=like.dtype, device=like.device), list(like.shape), [])


def _where_eq(x, value, then, otherwise):
    return P.where(P.eq(x, _splat(value, x)), then, otherwise)


@lowers("sigmoid")
@_in_opmath
def sigmoid(x):
    return P.reciprocal(P.add(_splat(1, x), P.exp(P.neg(x))))


@lowers("tanh")
@_in_opmath
def tanh(x):
    # tanh(s) = -t / (t + 2) with t = expm1(-2s), s = x with a non-negative real part (tanh is
    # odd): no overflow, accurate near 0.
    negative = P.lt(P.real(x) if x.dtype.is_complex else x, _splat(0, P.real(x) if x.dtype.is_complex else x))
    s = P.where(negative, P.neg(x), x)
    t = P.expm1(P.mul(_splat(-2, x), s))
    r = P.div(P.neg(t), P.add(t, _splat(2, x)))
    return P.where(negative, P.neg(r), r)


@lowers("log1p")
@_in_opmath
def log1p(x):
    u = P.add(_splat(1, x), x)
    accurate = P.div(P.mul(P.log(u), x), P.sub(u, _splat(1, x)))
    return _where_eq(u, 1, x, _where_eq(u, math.inf, u, accurate))


@lowers("expm1")
@_in_opmath
def expm1(x):
    if x.dtype.is_complex:
        # exp(a + ib) - 1 = (expm1(a) cos b - 2 sin^2(b/2)) + i exp(a) sin b: no cancellation near 0
        a, b = P.real(x), P.imag(x)
        half_sin = P.sin(P.mul(b, _splat(0.5, b)))
        re = P.sub(P.mul(_real_expm1(a), P.cos(b)), P.mul(_splat(2, b), P.mul(half_sin, half_sin)))
        return P.complex(re, P.mul(P.exp(a), P.sin(b)))
    return _real_expm1(x)


def _real_expm1(x):
    u = P.exp(x)
    um1 = P.sub(u, _splat(1, x))
    accurate = P.div(P.mul(um1, x), P.log(u))
    inner = P.where(P.isinf(u), u, _where_eq(um1, -1, um1, accurate))
    return _where_eq(u, 1, x, inner)


@lowers("erfc")
@_in_opmath
def erfc(x):
    return P.sub(_splat(1, x), P.erf(x))


@lowers("rsqrt")
@_in_opmath
def rsqrt(x):
    return P.reciprocal(P.sqrt(x))


@lowers("reciprocal")
@_in_opmath
def reciprocal(x):
    return P.div(_splat(1, x), x)


@lowers("exp2")
@_in_opmath
def exp2(x):
    return P.exp(P.mul(x, _splat(math.log(2.0), x)))


@lowers("log2")
@_in_opmath
def log2(x):
    return P.div(P.log(x), _splat(math.log(2.0), x))


@lowers("log10")
@_in_opmath
def log10(x):
    return P.div(P.log(x), _splat(math.log(10.0), x))


@lowers("gt")
def gt(a, b):
    return P.lt(b, a)


@lowers("ge")
def ge(a, b):
    return P.le(b, a)


@lowers("ne")
def ne(a, b):
    return P.logical_not(P.eq(a, b))


@lowers("var", example=lambda dtype: (torch.ones(4, 3, dtype=dtype), [0], 1.0))
@_in_opmath
def var(a, dims, correction):
    dims = [d + a.dim() if d < 0 else d for d in dims]
    n = 1
    for d in dims:
        n = n * a.shape[d]
    kept = [d for d in range(a.dim()) if d not in dims]
    mean = P.div(P.sum(a, dims), _splat(n, P.sum(a, dims)))
    centered = P.sub(a, P.broadcast_in_dim(mean, list(a.shape), kept))
    if centered.dtype.is_complex:
        squares = P.add(P.mul(P.real(centered), P.real(centered)), P.mul(P.imag(centered), P.imag(centered)))
    else:
        squares = P.mul(centered, centered)
    total = P.sum(squares, dims)
    return P.div(total, _splat(max(n - correction, 0), total))   # eager: no negative degrees of freedom


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
    return P.logical_or(P.eq(x, _splat(math.inf, x)), P.eq(x, _splat(-math.inf, x)))


@lowers("isfinite", dtypes=["bool", "real"])
def isfinite(x):
    if not x.dtype.is_floating_point:
        return P.eq(x, x)
    return P.eq(P.sub(x, x), _splat(0, x))    # x - x is 0 when x is finite, nan for inf and nan


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
    return P.where(P.lt(x, _splat(0, x)), ceil(x), P.floor(x))


@lowers("logical_xor", dtypes=["bool", "real"])
def logical_xor(a, b):
    return P.ne(P.logical_not(a), P.logical_not(b))


@lowers("sign", dtypes=["float", "signed"])
def sign(x):
    # eager: 0 for zeros of either sign and for nan
    return P.where(P.lt(_splat(0, x), x), _splat(1, x), P.where(P.lt(x, _splat(0, x)), _splat(-1, x), _splat(0, x)))


@lowers("xlogy", dtypes="float")
@_in_opmath
def xlogy(a, b):
    # 0 * log(b) is 0 even where log(b) is -inf or inf; a nan b stays nan
    product = P.where(P.eq(a, _splat(0, a)), _splat(0, a), P.mul(a, P.log(b)))
    return P.where(P.isnan(b), b, product)


@lowers("tan", dtypes="float")
@_in_opmath
def tan(x):
    return P.div(P.sin(x), P.cos(x))


@lowers("sinh", dtypes="float")
@_in_opmath
def sinh(x):
    # (e^x - e^-x) / 2 through expm1: no cancellation near 0
    return P.mul(P.sub(P.expm1(x), P.expm1(P.neg(x))), _splat(0.5, x))


@lowers("cosh", dtypes="float")
@_in_opmath
def cosh(x):
    return P.mul(P.add(P.exp(x), P.exp(P.neg(x))), _splat(0.5, x))


@lowers("logaddexp", dtypes="float")
@_in_opmath
def logaddexp(a, b):
    # max + log1p(exp(-|a - b|)); equal infinities give themselves (a - b would be nan)
    m = P.maximum(a, b)
    r = P.add(m, P.log1p(P.exp(P.neg(P.abs(P.sub(a, b))))))
    return P.where(P.logical_and(P.isinf(a), P.eq(a, b)), a, r)


@lowers("floor_divide", dtypes="int")
def floor_divide(a, b):
    # the quotient rounded toward zero, one less where the signs differ and it was inexact
    q = P.trunc_divide(a, b)
    inexact = P.ne(P.sub(a, P.mul(q, b)), _splat(0, a))
    signs_differ = P.ne(P.lt(a, _splat(0, a)), P.lt(b, _splat(0, b)))
    return P.sub(q, P.convert_element_type(P.logical_and(inexact, signs_differ), a.dtype))


@lowers("fmod", dtypes="int")
def fmod(a, b):
    return P.sub(a, P.mul(P.trunc_divide(a, b), b))


@lowers("remainder", dtypes="int")
def remainder(a, b):
    return P.sub(a, P.mul(P.floor_divide(a, b), b))


@lowers("stop_gradient")
def stop_gradient(a):
    # a view of a itself: a backend that does not differentiate runs it as one (the derivative rule is the prim's)
    return P.as_strided(a, list(a.shape), list(a.stride()), a.storage_offset())


@lowers("alias")
def alias(a):
    return P.as_strided(a, list(a.shape), list(a.stride()), a.storage_offset())


def _dtype_of(args):
    """The dtype a lowering branches on: that of its first tensor argument."""
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.dtype
    return None


def valid_dtypes(name) -> frozenset:
    """The operand dtypes for which the lowering of ``name`` is valid (its ``dtypes`` class, within the prim's)."""
    dtypes = LOWERINGS[name][2]
    return prims.get(name).dtypes if dtypes is None else frozenset(dtypes) & prims.get(name).dtypes


def _example(name, example, dtype) -> tuple:
    """Arguments to trace the lowering with at ``dtype`` (meta tensors): ``example(dtype)``, or one
    tensor of shape (3,) per Tensor argument."""
    if example is not None:
        return pytree.tree_map_only(torch.Tensor, lambda t: t.to("meta"), example(dtype))
    prim = prims.get(name)
    n = sum(isinstance(a.type, torch.TensorType) for a in prim.op._schema.arguments)
    return tuple(torch.ones(3, dtype=dtype, device="meta") for _ in range(n))


def _first_tensor_dtype(args, result):
    for a in pytree.tree_leaves(args):
        if isinstance(a, torch.Tensor):
            return a.dtype
    return result.dtype if isinstance(result, torch.Tensor) else None


def _node_dtype(node):
    """The dtype a prim node works at: its first tensor argument's (its result's for a creation prim)."""
    for a in node.args:
        if isinstance(a, torch.fx.Node) and isinstance(a.meta.get("val"), torch.Tensor):
            return a.meta["val"].dtype
    val = node.meta.get("val")
    return val.dtype if isinstance(val, torch.Tensor) else None


class _PrimCalls(TorchDispatchMode):
    """Records (prim, operand dtype) of every prim called under it (on meta tensors: no compute)."""

    def __init__(self):
        super().__init__()
        self.calls = set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        if prims.is_prim(func):
            self.calls.add((func._opname, _first_tensor_dtype(args, result)))
        return result


@functools.lru_cache(maxsize=None)
def reaches_at(name, dtype) -> frozenset:
    """The (prim, dtype) pairs the lowering of ``name`` calls directly on ``dtype`` operands, read off
    a run of it at that dtype on meta tensors; empty where the lowering is not valid for ``dtype``."""
    if dtype not in valid_dtypes(name):
        return frozenset()
    fn = LOWERINGS[name][0]
    with _PrimCalls() as calls:
        fn(*_example(name, LOWERINGS[name][1], dtype))
    return frozenset(calls.calls)


def reaches(name, dtype=None) -> frozenset:
    """The prims the lowering of ``name`` calls directly: at ``dtype``, or at any dtype it is valid for."""
    dtypes = [dtype] if dtype is not None else sorted(valid_dtypes(name), key=str)
    return frozenset(p for d in dtypes for p, _ in reaches_at(name, d))


def _reachable_pairs(target: frozenset) -> frozenset:
    """The (prim, dtype) pairs that reach ``target``: a prim in it (any dtype), or one whose lowering
    is valid at that dtype and calls only pairs that reach it. A cycle of lowerings reaches nothing."""
    ok = {(p.name, d) for p in prims.catalog() if p.name in target for d in p.dtypes}
    pending = {(name, d) for name in LOWERINGS if name not in target for d in valid_dtypes(name)}
    changed = True
    while changed:
        changed = False
        for pair in list(pending):
            if all(p in target or (p, d) in ok for p, d in reaches_at(*pair)):
                ok.add(pair)
                pending.discard(pair)
                changed = True
    return frozenset(ok)


@functools.lru_cache(maxsize=64)
def reachable_pairs(target: frozenset) -> frozenset:
    return _reachable_pairs(frozenset(target))


def unreachable(target, dtypes=None) -> set:
    """The prims that cannot reach ``target`` at some dtype of ``dtypes`` they take (default: every
    dtype): outside it and without a lowering valid there whose prims all reach it. A float-only
    backend passes its float dtypes (``dtypes={torch.float32}``) and is not asked for complex
    lowerings."""
    ok = reachable_pairs(frozenset(target))
    out = set()
    for p in prims.catalog():
        wanted = p.dtypes if dtypes is None else p.dtypes & set(dtypes)
        if p.name not in target and any((p.name, d) not in ok for d in wanted):
            out.add(p.name)
    return out


def prim_set(target, context: str = "get_decompositions(target=...)") -> frozenset:
    """A backend's prim set as names: a collection of prim names (or prim ops such as
    ``torch.ops.primkit.add``). A string, a non-prim or an empty set is an error saying what to pass."""
    if isinstance(target, (str, bytes)) or not isinstance(target, Iterable):
        raise TypeError(f"{context}: expected a collection of prim names such as {{'add', 'mul'}}, "
                        f"got {type(target).__name__} {target!r}")
    names = set()
    for t in target:
        if isinstance(t, str):
            names.add(t)
        elif isinstance(t, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)) and prims.is_prim(t):
            names.add(t._opname if isinstance(t, torch._ops.OpOverload) else t._qualified_op_name.split("::")[1])
        else:
            raise TypeError(f"{context}: expected prim names (str) or torch.ops.primkit ops, got "
                            f"{type(t).__name__} {t!r}")
    if not names:
        raise ValueError(f"{context}: the prim set is empty")
    catalog = {p.name for p in prims.catalog()}
    unknown = sorted(names - catalog)
    if unknown:
        hints = [f"{u} (did you mean {', '.join(close)}?)" if (close := difflib.get_close_matches(u, catalog, n=2))
                 else u for u in unknown]
        raise ValueError(f"{context}: not prims: {', '.join(hints)}")
    return frozenset(names)


def lower_to(table, target) -> dict:
    """``table`` plus, for every prim outside ``target`` that has a lowering, that lowering, applied
    to the operand dtypes at which it reaches ``target`` (elsewhere the prim stays in the graph;
    ``trace(target=...)`` reports the prims a graph still holds outside the target). Never raises
    for an unreachable prim: reachability is a property of a graph, not of the catalog."""
    target = prim_set(target)
    ok = reachable_pairs(target)
    out = dict(table)
    for name in sorted(set(LOWERINGS) - target):
        out[prims.get(name).op] = _applied_where_valid(name, LOWERINGS[name][0], ok)
    return out


def _applied_where_valid(name, fn, ok):
    """The lowering of ``name`` as a table entry: it runs where (name, operand dtype) reaches the
    target; elsewhere it returns NotImplemented, which make_fx reads as "keep the op"."""
    def lowered(*args, **kwargs):
        if (name, _dtype_of(args)) not in ok:
            return NotImplemented
        return fn(*args, **kwargs)
    lowered.__name__ = lowered.__qualname__ = f"lower_{name}"
    lowered.__module__ = fn.__module__
    lowered.__wrapped__ = fn
    return lowered


MINIMAL_PRIMS = frozenset(p.name for p in prims.catalog() if p.name not in LOWERINGS or valid_dtypes(p.name) != p.dtypes)
"""The smallest closed set: the prims with no lowering valid for every dtype they take."""


CORE_PRIMS = frozenset({
    # arithmetic and transcendental functions (the rest lower into these)
    "add", "sub", "mul", "div", "neg", "abs", "maximum", "minimum", "pow", "exp", "log", "sqrt", "erf", "sin",
    "cos", "atan2", "floor", "round", "trunc_divide",
    # comparisons, logic, bits
    "eq", "lt", "le", "logical_not", "logical_and", "logical_or", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_not", "shift_left", "shift_right_arithmetic", "where",
    # dtypes, complex numbers
    "convert_element_type", "real", "imag", "complex",
    # shapes and layout
    "broadcast_in_dim", "reshape", "permute", "squeeze", "expand_dims", "slice", "rev", "pad", "cat", "as_strided",
    "copy_strided",
    # reductions, contractions, indexing
    "sum", "prod", "amax", "amin", "argmax", "argmin", "matmul", "convolution", "gather", "scatter", "scatter_add",
    "index_select",
    # creation and memory
    "full", "iota", "scalar_tensor", "clone", "copy_to",
})
"""The core set (64 prims) a backend implements to run every model of the test zoo, and into which
every prim outside it is meant to lower, except the families in ``OPTIONAL_FAMILIES``. Not closed
yet: ``core_gap()`` lists the prims that do not reach it."""

OPTIONAL_FAMILIES = frozenset({"linalg_decomp", "fft", "sort", "data_dependent", "random"})
"""Families a backend may leave out: linalg factorizations, fft, sorting and selection,
data-dependent shapes, random draws (the generator's contract is the backend's own)."""


def core_gap(dtypes=None) -> list[str]:
    """The prims outside the optional families that do not reach ``CORE_PRIMS`` (at ``dtypes``)."""
    return sorted(p.name for p in prims.catalog()
                  if p.family not in OPTIONAL_FAMILIES and p.name in unreachable(CORE_PRIMS, dtypes))

