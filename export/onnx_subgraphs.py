"""Translators of the core prims that are a small ONNX subgraph rather than one op of
``onnx_table.ELEMENTWISE`` (one function per prim, named after it), the translator factories of the
table's families, and symbolic sizes (sympy expressions over the inputs' sizes) as int64 scalars.

A translator is ``f(t, node, *args)``: ``t`` the translation (``export/onnx.py``: ``t.op``,
``t.tensor``, ``t.ints``, ``t.compute``), ``node`` the fx node, ``args`` the prim's arguments with
tensors as ONNX value names and sizes as ints or SymInts. It returns the ONNX value of the result.
"""
from __future__ import annotations

import math

import sympy
import torch
from onnx import TensorProto

from primkit.export.onnx_table import BOOLEAN, WIDER

INT64_MIN, INT64_MAX = -(2 ** 63), 2 ** 63 - 1
_BITS = {torch.uint8: 8, torch.int8: 8, torch.int16: 16, torch.int32: 32, torch.int64: 64}


# --- families of the table -------------------------------------------------------------------
def elementwise(prim: str, op_type: str):
    def translate(t, node, *operands):
        dtype = t.arg_dtype(0)
        if dtype == torch.bool and prim in BOOLEAN:
            out = t.op(BOOLEAN[prim], *operands)
            return out if t.dtype() == torch.bool else t.cast(out, t.dtype())
        if prim == "pow" and not dtype.is_floating_point:
            return integer_pow(t, *operands, dtype)
        return t.compute(op_type, operands, dtype, t.dtype())
    translate.__name__ = prim
    return translate


def reduction(op_type: str):
    def translate(t, node, a, dims):
        if not dims:
            return t.op("Identity", a)
        if op_type == "ReduceProd" and not t.arg_dtype(0).is_floating_point:
            return _integer_prod(t, node, a, dims)
        return t.compute(op_type, [a], t.arg_dtype(0), t.dtype(), extra=[t.ints(dims)], keepdims=0)
    return translate


def _integer_prod(t, node, a, dims):
    """An integer product wrapping as eager's (onnxruntime's ReduceProd saturates int64): the reduced
    dims moved last and flattened, then halves multiplied in int64 until one factor is left."""
    shape, dtype = t.shape(node.args[0]), t.dtype()
    rank = len(shape)
    dims = sorted(d % rank for d in dims)
    kept = [d for d in range(rank) if d not in dims]
    if not all(type(shape[d]) is int for d in dims):
        raise t.error("an integer product over a symbolic size (its halving steps are unrolled at export)")
    n = math.prod(int(shape[d]) for d in dims)
    x = t.cast(t.op("Transpose", a, perm=kept + dims), torch.int64)
    x = t.op("Reshape", x, t.ints([shape[d] for d in kept] + [n]), allowzero=1)
    if n == 0:
        return t.cast(t.op("Expand", t.scalar(1, torch.int64), t.ints([shape[d] for d in kept])), dtype)
    last = len(kept)
    while n > 1:
        if n % 2:
            one = t.op("Expand", t.scalar(1, torch.int64), t.ints([shape[d] for d in kept] + [1]))
            x, n = t.op("Concat", x, one, axis=last), n + 1
        half = n // 2
        low = t.op("Slice", x, t.ints([0]), t.ints([half]), t.ints([last]))
        high = t.op("Slice", x, t.ints([half]), t.ints([n]), t.ints([last]))
        x, n = t.op("Mul", low, high), half
    return t.cast(t.op("Squeeze", x, t.ints([last])), dtype)


def arg_reduction(op_type: str):
    def translate(t, node, a, dim):
        dtype = t.arg_dtype(0)
        if not t.shape(node.args[0]):     # a 0-d operand: its one element is at index 0
            return t.op("Identity", t.scalar(0, torch.int64))
        if dtype not in t.ort_dtypes(op_type) and WIDER.get(dtype) not in t.ort_dtypes(op_type):
            return _first_extreme(t, node, a, dim, "ReduceMax" if op_type == "ArgMax" else "ReduceMin")
        return t.compute(op_type, [a], dtype, t.dtype(), produces=torch.int64, axis=dim, keepdims=0)
    return translate


def _first_extreme(t, node, a, dim, reduce):
    """The first index along ``dim`` where ``a`` equals its extreme (for dtypes with no ArgMax kernel,
    int64): the least index among those equal to ReduceMax / ReduceMin."""
    shape = t.shape(node.args[0])
    dim = dim % len(shape)
    dtype = t.arg_dtype(0)
    extreme = t.compute(reduce, [a], dtype, dtype, extra=[t.ints([dim])], keepdims=1)
    index = t.op("Range", t.sym(0), t.sym(shape[dim]), t.sym(1))
    others = [i for i in range(len(shape)) if i != dim]
    if others:
        index = t.op("Unsqueeze", index, t.ints(others))
    past = t.op("Where", t.op("Equal", a, extreme), index, t.sym(shape[dim]))
    return t.op("ReduceMin", past, t.ints([dim]), keepdims=0)


def identity(t, node, a, *layout):
    """clone, copy_strided: a new layout of the same values (an ONNX value has no strides)."""
    return t.op("Identity", a)


def complex_value(t, node, *args):
    raise t.error("a complex value, which ONNX Runtime cannot compute on")


# --- elementwise subgraphs ---------------------------------------------------------------------
def _wide(t, dtype):
    """The dtype a float subgraph computes in: float16 and bfloat16 in float32 (as eager on CPU)."""
    return WIDER[dtype] if dtype in (torch.float16, torch.bfloat16) else dtype


def _signbit(t, x, dtype):
    """x < 0, or x is -0.0 (1 / x is -inf)."""
    one = t.scalar(1.0, dtype)
    zero = t.scalar(0.0, dtype)
    return t.op("Or", t.op("Less", x, zero), t.op("Less", t.op("Div", one, x), zero))


def atan2(t, node, a, b):
    """atan(a / b) moved into the quadrant of (b, a), with signed zeros and infinities as C's atan2."""
    dtype, at = t.dtype(), _wide(t, t.dtype())
    if at != dtype:
        a, b = t.cast(a, at), t.cast(b, at)
    if at not in t.ort_dtypes("Atan"):
        raise t.error(f"onnxruntime's Atan has no kernel for {at}, and atan2 is not approximated")
    c = lambda v: t.scalar(v, at)  # noqa: E731
    q = t.op("Atan", t.op("Div", a, b))
    nega, negb = _signbit(t, a, at), _signbit(t, b, at)
    # b < 0 (or -0): the angle is past +-pi/2, on a's side
    out = t.op("Where", negb, t.op("Where", nega, t.op("Sub", q, c(math.pi)), t.op("Add", q, c(math.pi))), q)
    # a and b both zero: +-0 or +-pi (a / b is nan)
    zeros = t.op("And", t.op("Equal", a, c(0.0)), t.op("Equal", b, c(0.0)))
    out = t.op("Where", zeros, t.op("Where", negb, t.op("Where", nega, c(-math.pi), c(math.pi)), a), out)
    # both infinite: +-pi/4 or +-3pi/4 (a / b is nan)
    infs = t.op("And", t.op("IsInf", a), t.op("IsInf", b))
    corner = t.op("Where", negb, c(3 * math.pi / 4), c(math.pi / 4))
    out = t.op("Where", infs, t.op("Where", nega, t.op("Neg", corner), corner), out)
    return out if at == dtype else t.cast(out, dtype)


def trunc_divide(t, node, a, b):
    """Floats: the quotient rounded to the dtype (as eager divides), then toward zero (Ceil below
    zero, Floor above); integers: ONNX's Div, which truncates."""
    dtype = t.dtype()
    q = t.compute("Div", [a, b], dtype, dtype)
    if not dtype.is_floating_point:
        return q
    at = _wide(t, dtype)
    if at != dtype:
        q = t.cast(q, at)
    out = t.op("Where", t.op("Less", q, t.scalar(0.0, at)), t.op("Ceil", q), t.op("Floor", q))
    return out if at == dtype else t.cast(out, dtype)


def integer_pow(t, a, b, dtype):
    """a ** b on integers by square and multiply over the exponent's bits, in int64 (wrapping as
    eager's integer arithmetic); a negative exponent gives 1 / a ** -b truncated: 0 unless |a| is 1."""
    i64 = torch.int64
    a, b = t.cast(a, i64), t.cast(b, i64)
    one, zero = t.scalar(1, i64), t.scalar(0, i64)
    result, base, e = one, a, t.op("Max", b, zero)
    for _ in range(_BITS[dtype]):
        odd = t.op("Equal", t.op("BitwiseAnd", e, one), one)
        result = t.op("Where", odd, t.op("Mul", result, base), result)
        base, e = t.op("Mul", base, base), t.op("BitShift", t.op("Cast", e, to=TensorProto.UINT64),
                                                  t.op("Cast", one, to=TensorProto.UINT64), direction="RIGHT")
        e = t.op("Cast", e, to=TensorProto.INT64)
    b_odd = t.op("Equal", t.op("BitwiseAnd", b, one), one)
    minus_one = t.scalar(-1, i64)
    inverse = t.op("Where", t.op("Equal", a, one), one,
                   t.op("Where", t.op("Equal", a, minus_one), t.op("Where", b_odd, minus_one, one), zero))
    return t.cast(t.op("Where", t.op("Less", b, zero), inverse, result), dtype)


def _as_bool(t, x, dtype):
    """Nonzero as true (nan too): ONNX's Cast to bool."""
    return x if dtype == torch.bool else t.op("Cast", x, to=TensorProto.BOOL)


def _logical(op_type):
    def translate(t, node, *operands):
        dtypes = [t.arg_dtype(i) for i in range(len(operands))]
        out = t.op(op_type, *[_as_bool(t, x, d) for x, d in zip(operands, dtypes)])
        return out if t.dtype() == torch.bool else t.cast(out, t.dtype())
    return translate


logical_not, logical_and, logical_or = _logical("Not"), _logical("And"), _logical("Or")


def _shift_count(t, a, b, dtype):
    """a and b as int64, and whether b is outside [0, bits of dtype) (eager: 0, or the sign, there)."""
    a64, b64 = t.cast(a, torch.int64), t.cast(b, torch.int64)
    outside = t.op("Or", t.op("Less", b64, t.scalar(0, torch.int64)),
                   t.op("Less", t.scalar(_BITS[dtype] - 1, torch.int64), b64))
    return a64, b64, outside


def shift_left(t, node, a, b):
    """In uint64 (ONNX's BitShift takes unsigned types), then wrapped back to the dtype."""
    dtype = t.dtype()
    a64, b64, outside = _shift_count(t, a, b, dtype)
    count = t.cast(t.op("Where", outside, t.scalar(0, torch.int64), b64), torch.int64)
    shifted = t.op("BitShift", t.op("Cast", a64, to=TensorProto.UINT64), t.op("Cast", count, to=TensorProto.UINT64),
                   direction="LEFT")
    out = t.op("Where", outside, t.scalar(0, torch.int64), t.op("Cast", shifted, to=TensorProto.INT64))
    return t.cast(out, dtype)


def shift_right_arithmetic(t, node, a, b):
    """~(~a >> b) for negative a (a logical shift of a nonnegative value), a >> b otherwise; a count
    outside the dtype's bits shifts by 63, leaving the sign."""
    dtype = t.dtype()
    a64, b64, outside = _shift_count(t, a, b, dtype)
    count = t.op("Where", outside, t.scalar(63, torch.int64), b64)
    negative = t.op("Less", a64, t.scalar(0, torch.int64))
    magnitude = t.op("Where", negative, t.op("BitwiseNot", a64), a64)
    shifted = t.op("Cast", t.op("BitShift", t.op("Cast", magnitude, to=TensorProto.UINT64),
                                t.op("Cast", count, to=TensorProto.UINT64), direction="RIGHT"), to=TensorProto.INT64)
    return t.cast(t.op("Where", negative, t.op("BitwiseNot", shifted), shifted), dtype)


def where(t, node, pred, a, b):
    dtype = t.dtype()
    at = WIDER.get(dtype, dtype) if dtype not in t.ort_dtypes("Where") else dtype
    if at != dtype:
        a, b = t.cast(a, at), t.cast(b, at)
    out = t.op("Where", pred, a, b)
    return out if at == dtype else t.cast(out, dtype)


def convert_element_type(t, node, a, dtype):
    return t.op("Identity", a) if dtype == t.arg_dtype(0) else t.cast(a, dtype)


# --- shapes ------------------------------------------------------------------------------------
def broadcast_in_dim(t, node, a, shape, broadcast_dimensions):
    if any(type(s) is int and s == 0 for s in shape):    # no values: onnxruntime's Expand of a cast size-1 operand to size 0 keeps size 1
        return t.op("Identity", t.tensor(torch.empty([int(s) for s in shape], dtype=t.dtype())))
    new = [i for i in range(len(shape)) if i not in set(broadcast_dimensions)]
    if new:
        a = t.op("Unsqueeze", a, t.ints(new))
    return t.compute("Expand", [a], t.dtype(), t.dtype(), extra=[t.ints(shape)])


def reshape(t, node, a, shape):
    return t.op("Reshape", a, t.ints(shape), allowzero=1)


def permute(t, node, a, dims):
    rank = len(dims)
    return t.op("Transpose", a, perm=[d % rank for d in dims])


def squeeze(t, node, a, dims):
    return t.op("Squeeze", a, t.ints(dims)) if dims and t.shape(node.args[0]) else t.op("Identity", a)


def expand_dims(t, node, a, dims):
    return t.op("Unsqueeze", a, t.ints(dims)) if dims else t.op("Identity", a)


def slice(t, node, a, start_indices, limit_indices, strides):
    if not start_indices:
        return t.op("Identity", a)
    return t.op("Slice", a, t.ints(start_indices), t.ints(limit_indices), t.ints(range(len(start_indices))),
                t.ints(strides))


def rev(t, node, a, dims):
    if not dims:
        return t.op("Identity", a)
    k = len(dims)
    return t.op("Slice", a, t.ints([-1] * k), t.ints([INT64_MIN] * k), t.ints(list(dims)), t.ints([-1] * k))


def cat(t, node, tensors, dim):
    return t.op("Concat", *tensors, axis=dim)


def pad(t, node, a, padding_value, low, high, interior):
    """Interior padding first (each element followed by ``interior`` values, the last one's dropped),
    then the edges: ONNX's Pad where they grow, Slice where they are negative (a crop)."""
    dtype, rank = t.dtype(), len(low)
    value = _value(t, padding_value, dtype)
    sizes = list(t.shape(node.args[0]))
    for d, gap in enumerate(interior):
        if isinstance(gap, int) and gap == 0:
            continue
        x = t.op("Unsqueeze", a, t.ints([d + 1]))
        pads = [0] * (2 * (rank + 1))
        pads[rank + 1 + d + 1] = gap
        x = _pad(t, x, pads, value, dtype)
        merged = sizes[:d] + [sizes[d] * (gap + 1)] + sizes[d + 1:]
        x = t.op("Reshape", x, t.ints(merged), allowzero=1)
        a = t.op("Slice", x, t.ints([0]), t.ints([-gap] if isinstance(gap, int) else [t.sym(-gap)]), t.ints([d]))
        sizes[d] = sizes[d] * (gap + 1) - gap
    grow = [max(p, 0) if isinstance(p, int) else p for p in [*low, *high]]
    if any(not isinstance(p, int) or p for p in grow):
        a = _pad(t, a, grow, value, dtype)
    crops = [(d, -lo if isinstance(lo, int) and lo < 0 else 0, hi if isinstance(hi, int) and hi < 0 else None)
             for d, (lo, hi) in enumerate(zip(low, high))]
    crops = [c for c in crops if c[1] or c[2] is not None]
    if crops:
        a = t.op("Slice", a, t.ints([c[1] for c in crops]), t.ints([INT64_MAX if c[2] is None else c[2] for c in crops]),
                 t.ints([c[0] for c in crops]))
    return a


def _pad(t, x, pads, value, dtype):
    """ONNX's Pad (constant mode), in float32 for the dtypes its CPU kernel lacks (bfloat16)."""
    at = dtype if dtype in t.ort_dtypes("Pad") else WIDER[dtype]
    if at != dtype:
        x, value = t.cast(x, at), t.cast(value, at)
    out = t.op("Pad", x, t.ints(pads), value)
    return out if at == dtype else t.cast(out, dtype)


def as_strided(t, node, a, size, stride, storage_offset):
    """The operand's storage is rebuilt from its own strides: each position the view reads is mapped,
    at export, to the operand element stored there (a constant index), and gathered from the
    operand's values. A position the operand does not hold is an error (its value is not in the graph)."""
    operand = node.args[0].meta["val"]
    geometry = [*operand.shape, *operand.stride(), operand.storage_offset(), *size, *stride, storage_offset]
    if all(type(v) is int for v in geometry):
        storage = torch.full((_storage_size(operand.shape, operand.stride(), operand.storage_offset(), size, stride,
                                            storage_offset),), -1, dtype=torch.int64)
        where = torch.full((), operand.storage_offset(), dtype=torch.int64)
        for d, (n, s) in enumerate(zip(operand.shape, operand.stride())):
            where = where + (torch.arange(n) * s).reshape([-1] + [1] * (len(operand.shape) - d - 1))
        storage[where.reshape(-1)] = torch.arange(where.numel())    # an overlapping operand: any one of equals
        index = storage.as_strided(size, stride, storage_offset)
        if (index < 0).any():
            raise t.error("the view reads storage its operand does not hold")
        return t.op("Gather", t.op("Reshape", a, t.ints([-1])), t.tensor(index, "as_strided_index"), axis=0)
    if not operand.is_contiguous() or operand.storage_offset() != 0:
        raise t.error("a strided view of a strided operand with symbolic sizes (its storage is not in the graph)")
    index = t.sym(storage_offset)     # symbolic sizes: the operand's values are its storage, row-major
    rank = len(size)
    for d, (n, s) in enumerate(zip(size, stride)):
        steps = t.op("Mul", t.op("Range", t.sym(0), t.sym(n), t.sym(1)), t.sym(s))
        others = [i for i in range(rank) if i != d]
        if others:
            steps = t.op("Unsqueeze", steps, t.ints(others))
        index = t.op("Add", index, steps)
    return t.op("Gather", t.op("Reshape", a, t.ints([-1])), index, axis=0)


def _storage_size(shape, stride, offset, size, view_stride, view_offset) -> int:
    """Storage elements both the operand and the view span (one past the last they reach)."""
    def end(sizes, strides, start):
        return start + 1 + sum((n - 1) * s for n, s in zip(sizes, strides)) if all(sizes) else start
    return max(end(shape, stride, offset), end(size, view_stride, view_offset), 1)


# --- contractions, indexing ----------------------------------------------------------------------
def convolution(t, node, input, weight, bias, stride, padding, dilation, transposed, output_padding, groups):
    dtype = t.dtype()
    attrs = dict(strides=[int(s) for s in stride], dilations=[int(d) for d in dilation], group=int(groups))
    padding = [int(p) for p in padding]
    if not transposed:
        operands = [input, weight] + ([bias] if bias is not None else [])
        return t.compute("Conv", operands, dtype, dtype, pads=padding * 2, **attrs)
    # eager's output_padding (any value below max(stride, dilation)) as the end pads of ONNX's
    # ConvTranspose (which takes output_padding only below the stride): the output grows by the
    # padding at the end; where it outgrows the cropped full output, by zeros (and the bias)
    extra = [max(0, int(o) - p) for o, p in zip(output_padding, padding)]
    ends = [p - int(o) + e for p, o, e in zip(padding, output_padding, extra)]
    operands = [input, weight] + ([bias] if bias is not None and not any(extra) else [])
    out = t.compute("ConvTranspose", operands, dtype, dtype, pads=padding + ends, **attrs)
    if any(extra):
        rank = len(t.shape())
        out = _pad(t, out, [0] * rank + [0, 0] + extra, t.scalar(0, dtype), dtype)
        if bias is not None:
            out = t.compute("Add", [out, t.op("Unsqueeze", bias, t.ints(list(range(1, rank - 1))))], dtype, dtype)
    return out


def _rank0_lifted(t, node, build, *values):
    """``build`` on 1-element views of 0-d operands (GatherElements / ScatterElements need rank 1)."""
    if t.shape(node.args[0]):
        return build(*values)
    one = t.ints([1])
    out = build(*[t.op("Reshape", v, one) for v in values])
    return t.op("Reshape", out, t.ints(t.shape()))


def gather(t, node, a, dim, index):
    return _rank0_lifted(t, node, lambda x, i: t.op("GatherElements", x, i, axis=dim), a, index)


def _scatter(t, node, a, dim, index, src, reduction):
    index_shape, src_shape = t.shape(node.args[2]), t.shape(node.args[3])
    if index_shape != src_shape:   # only src's leading index-shaped block is written (eager's rule)
        src = t.op("Slice", src, t.ints([0] * len(index_shape)), t.ints(index_shape), t.ints(range(len(index_shape))))
    attrs = {"axis": dim} | ({"reduction": reduction} if reduction else {})
    dtype = t.dtype()
    # onnxruntime adds no float16 / bfloat16 in ScatterElements: the sums are made in float32, rounded once
    at = WIDER[dtype] if reduction and dtype in (torch.float16, torch.bfloat16) else dtype
    if at != dtype:
        a, src = t.cast(a, at), t.cast(src, at)
    out = _rank0_lifted(t, node, lambda x, i, s: t.op("ScatterElements", x, i, s, **attrs), a, index, src)
    return out if at == dtype else t.cast(out, dtype)


def scatter(t, node, a, dim, index, src):
    return _scatter(t, node, a, dim, index, src, None)


def scatter_add(t, node, a, dim, index, src):
    return _scatter(t, node, a, dim, index, src, "add")


def index_select(t, node, a, dim, index):
    return _rank0_lifted(t, node, lambda x, i: t.op("Gather", x, i, axis=dim), a, index)


# --- creation, memory ----------------------------------------------------------------------------
def _value(t, value, dtype):
    """A 0-d tensor of a Scalar argument: a number, or a size (SymInt) computed from the inputs."""
    if isinstance(value, torch.SymInt):
        return t.cast(t.sym(value), dtype)
    if isinstance(value, (torch.SymFloat, torch.SymBool)):
        raise t.error(f"a symbolic {type(value).__name__} argument, which the exporter does not translate")
    return t.scalar(value, dtype)


def full(t, node, shape, fill_value, *, dtype, device):
    return t.compute("Expand", [_value(t, fill_value, dtype)], dtype, dtype, extra=[t.ints(shape)])


def iota(t, node, length, *, start, step, dtype, device):
    """start + i * step in int64 (exact), then cast to the dtype."""
    steps = t.op("Range", t.sym(0), t.sym(length), t.sym(1))
    values = t.op("Add", t.op("Mul", steps, t.sym(step)), t.sym(start))
    return t.op("Identity", values) if dtype == torch.int64 else t.cast(values, dtype)


def scalar_tensor(t, node, value, *, dtype, device):
    return t.op("Identity", _value(t, value, dtype))


def copy_to(t, node, dst, src):
    """The written value; a write into an input or a buffer is an extra output (``<name>.out``)."""
    target = node.args[0]
    if target.op in ("placeholder", "get_attr"):
        t.written.append((target, node))
    return t.op("Identity", src)


# --- sizes ---------------------------------------------------------------------------------------
def sym_expr(t, expr) -> str:
    """A 0-d int64 ONNX value of a sympy expression over the sizes of the graph's inputs."""
    cache = t.__dict__.setdefault("sym_cache", {})
    key = int(expr) if isinstance(expr, int) or getattr(expr, "is_Integer", False) else expr
    if key in cache:
        return cache[key]
    node, t.node = t.node, None     # a size is computed once, for every node that reads it
    try:
        out = _sym_value(t, key)
    finally:
        t.node = node
    cache[key] = out
    return out


def _sym_value(t, key) -> str:
    if isinstance(key, int):
        out = t.tensor(torch.tensor(key, dtype=torch.int64), "int")
    elif key in t.symbols:
        source = t.symbols[key]
        if isinstance(source, str):
            out = t.op("Identity", source)
        else:
            name, d = source
            out = t.op("Squeeze", t.op("Shape", name, start=d, end=d + 1), t.ints([0]))
    else:
        out = _sym_compound(t, key)
    return out


def _sym_compound(t, expr) -> str:
    kind = type(expr).__name__
    args = [sym_expr(t, a) for a in expr.args]
    folds = {"Add": "Add", "Mul": "Mul", "Max": "Max", "Min": "Min"}
    if kind in folds:
        out = args[0]
        for a in args[1:]:
            out = t.op(folds[kind], out, a)
        return out
    if kind == "FloorDiv":
        return _floordiv(t, *args)
    if kind in ("Mod", "PythonMod"):
        return t.op("Sub", args[0], t.op("Mul", _floordiv(t, *args), args[1]))
    if kind == "Pow" and expr.args[1].is_Integer and int(expr.args[1]) >= 0:
        out = sym_expr(t, 1)
        for _ in range(int(expr.args[1])):
            out = t.op("Mul", out, args[0])
        return out
    if isinstance(expr, sympy.Symbol):
        raise t.error(f"the size {expr} is not a size of any input of the graph")
    raise t.error(f"the size expression {expr} ({kind}) has no ONNX translation")


def _floordiv(t, a, b):
    """Python's a // b on int64 (ONNX's Div truncates toward zero)."""
    q = t.op("Div", a, b)
    inexact = t.op("Not", t.op("Equal", t.op("Mul", q, b), a))
    zero = sym_expr(t, 0)
    opposite = t.op("Xor", t.op("Less", a, zero), t.op("Less", b, zero))
    return t.op("Sub", q, t.op("Cast", t.op("And", inexact, opposite), to=TensorProto.INT64))
