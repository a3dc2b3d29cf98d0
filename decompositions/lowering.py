"""Lowering to a backend's own prim set: prims that decompose into other prims.

A lowering is a function written in other prims, registered with ``@lowers("<prim>")``.
``get_decompositions(target=SET)`` returns the ATen table plus the lowering of every prim
outside SET (make_fx applies table entries to primkit ops as to ATen ops), after checking that
every prim reaches SET transitively; otherwise it raises DecompositionError listing the prims
that cannot. Which prims a lowering reaches is read off a trace of the lowering itself.

``MINIMAL_PRIMS`` is the smallest closure: the prims that have no lowering.

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
from torch.fx.experimental.proxy_tensor import make_fx

import prims
from decompositions.registry import DecompositionError

P = torch.ops.primkit
LOWERINGS: dict = {}     # prim name -> (function, example-args factory)


def lowers(name, example=None):
    """Register a lowering of prim ``name``; ``example`` builds arguments to trace it with
    (default: one float32 tensor of shape (3,) per Tensor argument)."""
    prims.get(name)

    def deco(fn):
        if name in LOWERINGS:
            raise ValueError(f"prim '{name}' has two lowerings")
        LOWERINGS[name] = (fn, example)
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


@lowers("var", example=lambda: [(torch.randn(4, 3, dtype=d), [0], 1.0)
                                 for d in (torch.float32, torch.bfloat16, torch.complex64)])
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


# One dtype of each kind a lowering may branch on.
_KINDS = (torch.float32, torch.bfloat16, torch.complex64, torch.int64, torch.bool)


def _examples(name, example) -> list:
    """Argument tuples to trace the lowering with: one per dtype kind the prim supports."""
    if example is not None:
        return example()
    prim = prims.get(name)
    n = sum(isinstance(a.type, torch.TensorType) for a in prim.op._schema.arguments)
    return [tuple(torch.ones(3, dtype=dtype) for _ in range(n)) for dtype in _KINDS if dtype in prim.dtypes]


@functools.lru_cache(maxsize=None)
def reaches(name) -> frozenset:
    """The prims the lowering of ``name`` calls directly (read off traces of it, one per dtype kind)."""
    fn, example = LOWERINGS[name]
    used = set()
    for args in _examples(name, example):
        gm = make_fx(fn, tracing_mode="fake")(*args)
        used |= {n.target._opname for n in gm.graph.nodes if n.op == "call_function" and prims.is_prim(n.target)}
    return frozenset(used)


def unreachable(target) -> set:
    """The prims that cannot reach ``target``: outside it and without a lowering whose prims all
    reach it. A cycle of lowerings reaches nothing."""
    ok = set(target)
    changed = True
    while changed:
        changed = False
        for name in LOWERINGS:
            if name not in ok and reaches(name) <= ok:
                ok.add(name)
                changed = True
    return {p.name for p in prims.catalog()} - ok


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
    target = prim_set(target)
    names = {p.name for p in prims.catalog()}
    bad = unreachable(target)
    if bad:
        raise DecompositionError([f"primkit::{p}" for p in bad], "get_decompositions(target=...): ",
                                 "are outside the target and have no lowering that reaches it")
    out = dict(table)
    for name in names - target:
        out[prims.get(name).op] = LOWERINGS[name][0]
    return out


MINIMAL_PRIMS = frozenset(p.name for p in prims.catalog() if p.name not in LOWERINGS)
