"""Decompositions of creation ops: full/zeros/ones/empty (and empty_permuted) and their _like
and new_ forms, arange, range, linspace, logspace (limits given as numbers or 0-d tensors), eye,
tril_indices/triu_indices, scalar_tensor, fill and zero_; lift_fresh and lift_fresh_copy (the
constants torch.tensor(...) makes inside a traced program).

Eager's factory kwargs: dtype and device are honoured (defaults: the dtype eager infers, the
default device); layout must be strided; pin_memory and requires_grad do not change values.
"""
from __future__ import annotations

import contextlib
import math
import numbers

import torch

from primkit.decompositions.common import P, aten, prepare, register_out, round_to, scalar, to_dtype
from primkit.decompositions.registry import register
from primkit.decompositions.layout import preserved_strides, strides_for
from primkit.decompositions.shape.common import check_sizes
from primkit.decompositions.shape.copies import check_layout
from primkit.decompositions.shape.reorderings import cast_value
from primkit.prims import dtypes as dt
from primkit.prims.layout import contiguous_strides


def _factory(op, dtype, layout, device, default_dtype):
    check_layout(layout, op)
    return (default_dtype if dtype is None else dtype,
            torch.get_default_device() if device is None else torch.device(device))


def _complex_default():
    return torch.complex128 if torch.get_default_dtype() == torch.float64 else torch.complex64


def _inferred_dtype(*values):
    """Eager's dtype for a tensor made from Python numbers: bool, int64, or the default float/complex."""
    if any(isinstance(v, complex) for v in values):
        return _complex_default()
    if any(isinstance(v, (float, torch.SymFloat)) for v in values):
        return torch.get_default_dtype()
    if all(isinstance(v, bool) for v in values):
        return torch.bool
    return torch.int64


def filled(shape, value, dtype, device, strides=None):
    """A tensor of shape filled with value, laid out with strides (contiguous by default)."""
    shape = list(shape)
    value = cast_value(value, dtype)
    if strides is None or tuple(strides) == contiguous_strides(shape):
        return P.full(shape, value, dtype=dtype, device=device)
    return P.copy_strided(P.broadcast_in_dim(P.scalar_tensor(value, dtype=dtype, device=device), shape, []),
                          list(strides))


# --- full, zeros, ones, empty ------------------------------------------------------------

@register(aten.full.default)
def full(size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    check_sizes(size, "full")
    dtype, device = _factory("full", dtype, layout, device, _inferred_dtype(fill_value))
    return filled(size, fill_value, dtype, device)


@register(aten.zeros.default)
def zeros(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return full(size, 0, dtype=dtype or torch.get_default_dtype(), layout=layout, device=device)


@register(aten._efficientzerotensor.default)
def efficientzerotensor(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    """Zeros (eager's is a ZeroTensor that allocates nothing; autograd makes one for the gradient of an
    op whose derivative is zero, sgn's of a real input)."""
    return zeros(size, dtype=dtype, layout=layout, device=device)


@register(aten.ones.default)
def ones(size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return full(size, 1, dtype=dtype or torch.get_default_dtype(), layout=layout, device=device)


@register(aten.scalar_tensor.default)
def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None):
    dtype, device = _factory("scalar_tensor", dtype, layout, device, torch.get_default_dtype())
    return P.scalar_tensor(cast_value(s, dtype), dtype=dtype, device=device)


@contextlib.contextmanager
def _real_constant(a):
    """Let the tracer take the real tensor ``a`` (the value torch.tensor(...) made) as a prim's
    argument, as it takes it in torch's own lift: a graph constant whose value is known.

    The tracers treat the lift ops as the one place where a real value enters a traced program:
    make_fx interns it as a graph constant (``_tensor_constant<n>``) and, where it is small (one
    element), remembers its value so that ``.item()`` on it (or on what is computed from it) is a
    number, not data-dependent; a fake mode (make_fx's fake and symbolic modes, AOTAutograd,
    export) fakes it, with the same constant, and refuses real tensors anywhere else ("Please
    convert all Tensors to FakeTensors first"). A decomposition of lift hands the value to a prim
    instead, so for that one call it registers the constant with the tracer and grants the fake
    mode's exception, as the undecomposed lift would.
    """
    from torch._guards import detect_fake_mode
    from torch._subclasses.fake_tensor import fake_tensor_tls
    from torch.fx.experimental.proxy_tensor import get_proxy_mode, has_proxy_slot, track_tensor_tree
    if type(a) is not torch.Tensor:   # a tensor of the traced world already (fake, functional)
        yield
        return
    proxy_mode = get_proxy_mode()
    if proxy_mode is not None and not has_proxy_slot(a, proxy_mode.tracer):   # (a real input is no constant)
        tracer = proxy_mode.tracer
        track_tensor_tree(a, torch.fx.Proxy(tracer.create_arg(a), tracer), constant=a, tracer=tracer)
    mode = detect_fake_mode()
    if mode is None:   # real tracing
        yield
        return
    # The fake the call will find (the converter memoizes it weakly: held here until the call ends).
    fake = mode.fake_tensor_converter.from_real_tensor(mode, a, make_constant=mode.may_turn_const(a))  # noqa: F841
    saved = fake_tensor_tls.allow_non_fake_inputs_override
    fake_tensor_tls.allow_non_fake_inputs_override = True
    try:
        yield
    finally:
        fake_tensor_tls.allow_non_fake_inputs_override = saved


@register(aten.lift_fresh.default, aten.lift_fresh_copy.default)
def lift_fresh(a):
    """torch.tensor(data) inside a traced program: the tracer gives lift_fresh the freshly made
    real tensor; its value becomes a graph constant, copied (as make_fx turns lift_fresh into
    lift_fresh_copy) so that an in-place op on the result never writes into the constant."""
    with _real_constant(a):
        return P.clone(a)


@register(aten.empty.memory_format)
def empty(size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    check_sizes(size, "empty")
    dtype, device = _factory("empty", dtype, layout, device, torch.get_default_dtype())
    fmt = torch.contiguous_format if memory_format in (None, torch.preserve_format) else memory_format
    return P.empty_strided(list(size), list(strides_for(size, fmt, "empty")), dtype=dtype, device=device)


@register(aten.empty_permuted.default)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, pin_memory=None):
    """An uninitialized tensor, dense with its dims laid out in memory in physical_layout's order."""
    check_sizes(size, "empty_permuted")
    if len(physical_layout) != len(size):
        raise RuntimeError(f"empty_permuted: Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(physical_layout)}")
    if sorted(physical_layout) != list(range(len(size))):
        raise RuntimeError(f"empty_permuted: physical_layout {list(physical_layout)} is not a permutation of the "
                           f"dims (Duplicate dim not allowed)")
    dtype, device = _factory("empty_permuted", dtype, layout, device, torch.get_default_dtype())
    return P.empty_permuted(list(size), list(physical_layout), dtype=dtype, device=device)


@register(aten.empty_strided.default)
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    check_sizes(size, "empty_strided")
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided: mismatch in length of strides and shape: {len(size)} sizes, "
                           f"{len(stride)} strides")
    dtype, device = _factory("empty_strided", dtype, layout, device, torch.get_default_dtype())
    return P.empty_strided(list(size), list(stride), dtype=dtype, device=device)


for _op, _fn in ((aten.full.out, full), (aten.zeros.out, zeros), (aten.ones.out, ones),
                 (aten.empty_permuted.out, empty_permuted),
                 (aten.scalar_tensor.out, scalar_tensor), (aten.empty.out, empty),
                 (aten.empty_strided.out, empty_strided)):
    register_out(_op, _fn, factory=True)


# --- _like and new_ forms ----------------------------------------------------------------

def _like_strides(a, memory_format, op):
    if memory_format in (None, torch.preserve_format):
        return preserved_strides(a)
    return strides_for(a.shape, memory_format, op)


def _full_like(a, value, op, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    dtype, device = _factory(op, dtype, layout, device if device is not None else a.device, a.dtype)
    return filled(a.shape, value, dtype, device, _like_strides(a, memory_format, op))


@register(aten.full_like.default)
def full_like(a, fill_value, **kwargs):
    return _full_like(a, fill_value, "full_like", **kwargs)


@register(aten.zeros_like.default)
def zeros_like(a, **kwargs):
    return _full_like(a, 0, "zeros_like", **kwargs)


@register(aten.ones_like.default)
def ones_like(a, **kwargs):
    return _full_like(a, 1, "ones_like", **kwargs)


@register(aten.empty_like.default)
def empty_like(a, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    dtype, device = _factory("empty_like", dtype, layout, device if device is not None else a.device, a.dtype)
    return P.empty_strided(list(a.shape), list(_like_strides(a, memory_format, "empty_like")), dtype=dtype,
                           device=device)


def _new(a, op, dtype, layout, device):
    return _factory(op, dtype, layout, device if device is not None else a.device, a.dtype)


@register(aten.new_full.default)
def new_full(a, size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None):
    dtype, device = _new(a, "new_full", dtype, layout, device)
    return full(size, fill_value, dtype=dtype, device=device)


@register(aten.new_zeros.default)
def new_zeros(a, size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return new_full(a, size, 0, dtype=dtype, layout=layout, device=device)


@register(aten.new_ones.default)
def new_ones(a, size, *, dtype=None, layout=None, device=None, pin_memory=None):
    return new_full(a, size, 1, dtype=dtype, layout=layout, device=device)


@register(aten.new_empty.default)
def new_empty(a, size, *, dtype=None, layout=None, device=None, pin_memory=None):
    dtype, device = _new(a, "new_empty", dtype, layout, device)
    return empty(size, dtype=dtype, device=device)


@register(aten.new_empty_strided.default)
def new_empty_strided(a, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None):
    dtype, device = _new(a, "new_empty_strided", dtype, layout, device)
    return empty_strided(size, stride, dtype=dtype, device=device)


for _op, _fn in ((aten.full_like.out, full_like), (aten.zeros_like.out, zeros_like),
                 (aten.ones_like.out, ones_like), (aten.empty_like.out, empty_like),
                 (aten.new_full.out, new_full), (aten.new_zeros.out, new_zeros), (aten.new_ones.out, new_ones),
                 (aten.new_empty.out, new_empty), (aten.new_empty_strided.out, new_empty_strided)):
    register_out(_op, _fn, factory=True)


# --- fill and zero_ ----------------------------------------------------------------------

def _fill_value(a, value):
    """value (a number or a 0-d tensor) as a tensor of a's dtype and device, broadcast to a's shape."""
    if isinstance(value, torch.Tensor):
        if value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} "
                               f"dimensions.")
        return prepare(value, a.dtype, a.shape, a.device)
    return prepare(cast_value(value, a.dtype), a.dtype, a.shape, a.device)


@register(aten.fill.Scalar, aten.fill.Tensor)
def fill(a, value):
    return P.copy_strided(_fill_value(a, value), list(preserved_strides(a)))


@register(aten.fill_.Scalar, aten.fill_.Tensor)
def fill_(a, value):
    return P.copy_to(a, _fill_value(a, value))


@register(aten.zero.default)
def zero(a):
    return fill(a, 0)


@register(aten.zero_.default)
def zero_(a):
    return fill_(a, 0)


for _op, _fn in ((aten.fill.Scalar_out, fill), (aten.fill.Tensor_out, fill), (aten.zero.out, zero)):
    register_out(_op, _fn)


@register(aten.resize.default)
def resize(a, size, memory_format=None):
    """The functional form of resize_ (torch's functionalization of an out= tensor resized, see
    ``common.resize_output``): a's elements in order, as many as fit, then zeros where eager's would be
    uninitialized memory; contiguous."""
    if memory_format not in (None, torch.contiguous_format):
        raise RuntimeError(f"resize: memory_format {memory_format} is not supported (expected contiguous)")
    size = [int(s) for s in size]
    n, have = math.prod(size), a.numel()
    flat = P.reshape(P.copy_strided(a, contiguous_strides(a.shape)), [have])
    if have >= n:
        kept = P.slice(flat, [0], [n], [1])
    else:
        zeros = P.full([n - have], 0, dtype=a.dtype, device=a.device)
        kept = P.cat([flat, zeros], 0)
    return P.reshape(kept, size)


# --- ranges and eye ----------------------------------------------------------------------

def _index(length, dtype, device):
    """0, 1, ..., length - 1 as a tensor of dtype."""
    return to_dtype(P.iota(length, start=0, step=1, dtype=torch.int64, device=device), dtype)


def _const(value, like):
    """value (a number or a 0-d tensor) as a tensor like ``like``: its dtype, device and shape."""
    return prepare(value, like.dtype, like.shape, like.device)


def _arange(start, end, step, dtype, layout, device):
    for name, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (numbers.Number, torch.SymInt, torch.SymFloat)) or isinstance(v, complex):
            raise RuntimeError(f"arange: {name} must be a real number, got {type(v).__name__}")
    dtype, device = _factory("arange", dtype, layout, device, _inferred_dtype(start, end, step))
    if dtype == torch.bool or dtype in dt.COMPLEX:
        raise RuntimeError(f"arange: dtype {dtype} is not supported")
    integral = dtype in dt.INT
    length = None if dtype == torch.int64 else math.ceil((end - start) / step) if step else 0
    if integral:   # eager reads start, end and step as int64 (a SymInt already is one: keep it symbolic)
        start, end, step = (v if isinstance(v, torch.SymInt) else int(v) for v in (start, end, step))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    # torch._check: an end read from data (.item()) is assumed consistent while tracing, checked in eager
    torch._check(end >= start if step > 0 else end <= start,
                 lambda: "upper bound and lower bound inconsistent with step sign")
    if length is None:   # int64: exact integer ceil-division
        length = (end - start + step - (1 if step > 0 else -1)) // step
    if integral:
        return to_dtype(P.iota(length, start=start, step=step, dtype=torch.int64, device=device), dtype)
    # Eager computes start + step * i in double (float for half types) and rounds once.
    i = _index(length, torch.float64, device)
    return to_dtype(P.add(_const(float(start), i), P.mul(_const(float(step), i), i)), dtype)


@register(aten.arange.default)
def arange(end, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _arange(0, end, 1, dtype, layout, device)


@register(aten.arange.start, aten.arange.start_step)
def arange_start(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _arange(start, end, step, dtype, layout, device)


register_out(aten.arange.out, arange, factory=True)
register_out(aten.arange.start_out, arange_start, factory=True)


# Eager's range reads start, end and step in the accumulate type of the result's dtype.
RANGE_ACCUMULATE = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.float32: torch.float64,
                    torch.float64: torch.float64}


@register(aten.range.default, aten.range.step)
def range_(start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None):
    """torch.range: start, start + step, ... up to end included (deprecated for arange). Eager
    counts int((end - start) / step + 1) elements and computes start + i * step, both in the
    accumulate type (double for float32, float for half types, int64 for integers)."""
    for name, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, (numbers.Number, torch.SymInt, torch.SymFloat)) or isinstance(v, complex):
            raise RuntimeError(f"range: {name} must be a real number, got {type(v).__name__}")
    dtype, device = _factory("range", dtype, layout, device, torch.get_default_dtype())
    if dtype == torch.bool or dtype in dt.COMPLEX:
        raise RuntimeError(f"range: dtype {dtype} is not supported")
    acc = RANGE_ACCUMULATE.get(dtype, torch.int64)
    read = int if acc == torch.int64 else float
    start, end, step = read(start), read(end), read(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if acc == torch.int64:
        length = (end - start) // step + 1   # the quotient is non-negative: floor is eager's truncation
    else:
        def rounded(x):
            return round_to(float(x), acc)
        start, end, step = rounded(start), rounded(end), rounded(step)
        length = int(rounded(rounded(rounded(end - start) / step) + 1))
    i = _index(length, acc, device)
    return to_dtype(P.add(_const(start, i), P.mul(i, _const(step, i))), dtype)


register_out(aten.range.out, range_, factory=True)
register_out(aten.range.out_, range_, factory=True)


def _limit(value, dtype):
    """start or end as eager's kernel reads it into dtype: a Python number, or a 0-d tensor (eager
    reads it with .item(); here it stays data, converted with prims). Integer results read both
    limits truncated to integers."""
    if isinstance(value, torch.Tensor):
        return to_dtype(value, torch.int64) if dtype in dt.INT else to_dtype(value, dtype)
    return int(value) if dtype in dt.INT else value


def _linspace_values(start, end, steps, dtype, device):
    """Eager's linspace: start + step * i up to halfway, end - step * (steps - 1 - i) after.

    Floating results are computed in dtype op by op (as eager's scalar kernel); integer results
    compute in double from the truncated start and end.
    """
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    compute = torch.float64 if dtype in dt.INT else dtype
    start, end = _limit(start, dtype), _limit(end, dtype)
    i = _index(steps, compute, device)
    if steps <= 1:
        return P.add(_const(start, i), i) if steps == 1 else i
    step = P.div(P.sub(_const(end, i), _const(start, i)), _const(steps - 1, i))
    lower = P.add(_const(start, i), P.mul(step, i))
    upper = P.sub(_const(end, i), P.mul(step, P.sub(_const(steps - 1, i), i)))
    below_half = P.lt(i, _const(steps // 2, i))
    return P.where(below_half, lower, upper)


def _check_limits(op, start, end):
    """Eager's checks of start and end: 0-d tensors or numbers; complex limits (a complex result
    in eager) are refused."""
    dims = {name: v.dim() for name, v in (("start", start), ("end", end)) if isinstance(v, torch.Tensor)}
    if any(dims.values()):
        got = " and ".join(f"{name} with {n} dimension(s)" for name, n in dims.items())
        raise RuntimeError(f"{op} only supports 0-dimensional start and end tensors, but got {got}.")
    for v in (start, end):
        if isinstance(v, complex) or (isinstance(v, torch.Tensor) and v.dtype in dt.COMPLEX):
            raise RuntimeError(f"{op}: complex start/end are not supported by primkit")


# Each overload takes start and end as Python numbers (.default) or 0-d tensors (.Tensor_Tensor,
# .Tensor_Scalar, .Scalar_Tensor); the result's dtype does not depend on which.
LIMIT_OVERLOADS = ("default", "Tensor_Tensor", "Tensor_Scalar", "Scalar_Tensor")


@register(*(getattr(aten.linspace, o) for o in LIMIT_OVERLOADS))
def linspace(start, end, steps, *, dtype=None, layout=None, device=None, pin_memory=None):
    _check_limits("linspace", start, end)
    dtype, device = _factory("linspace", dtype, layout, device, torch.get_default_dtype())
    return to_dtype(_linspace_values(start, end, steps, dtype, device), dtype)


@register(*(getattr(aten.logspace, o) for o in LIMIT_OVERLOADS))
def logspace(start, end, steps, base=10.0, *, dtype=None, layout=None, device=None, pin_memory=None):
    _check_limits("logspace", start, end)
    dtype, device = _factory("logspace", dtype, layout, device, torch.get_default_dtype())
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    # Eager's kernel: the limits read into dtype and their difference taken in dtype; the step and
    # the exponents in double (start + step * i up to halfway, end - step * (steps - 1 - i) after);
    # base ** exponent in double. One step raises base to start read straight into double.
    i = _index(steps, torch.float64, device)
    if steps == 1:
        exponent = _const(start if isinstance(start, torch.Tensor) else float(start), i)
    elif steps > 1:
        low, high = (prepare(_limit(v, dtype), dtype, (), device) for v in (start, end))
        step = P.div(to_dtype(P.sub(high, low), torch.float64), scalar(steps - 1, torch.float64, device))
        lower = P.add(_const(low, i), P.mul(_const(step, i), i))
        upper = P.sub(_const(high, i), P.mul(_const(step, i), P.sub(_const(steps - 1, i), i)))
        exponent = P.where(P.lt(i, _const(steps // 2, i)), lower, upper)
    else:
        exponent = i
    return to_dtype(P.pow(_const(float(base), exponent), exponent), dtype)


for _overload in ("out", "Tensor_Tensor_out", "Tensor_Scalar_out", "Scalar_Tensor_out"):
    register_out(getattr(aten.linspace, _overload), linspace, factory=True)
    register_out(getattr(aten.logspace, _overload), logspace, factory=True)


# --- indices of a triangle ---------------------------------------------------------------

def _triangle_indices(op, row, col, offset, dtype, layout, device, upper):
    """The (row, col) coordinates of the triangle of a row x col matrix (below diagonal offset,
    or above it), in row-major order: nonzero_static of the triangle's mask, whose count follows
    from the sizes, transposed to (2, count)."""
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    dtype, device = _factory(op, dtype, layout, device, torch.int64)
    if dtype not in (torch.int32, torch.int64):
        raise RuntimeError(f'"{op}" not implemented for \'{dt.short(dtype)}\'')
    # elements per row: columns >= i + offset (upper), or <= i + offset (lower)
    count = sum(max(0, col - max(0, i + offset)) if upper else max(0, min(col, i + offset + 1)) for i in range(row))
    rows = P.broadcast_in_dim(P.iota(row, start=0, step=1, dtype=torch.int64, device=device), [row, col], [0])
    cols = P.broadcast_in_dim(P.iota(col, start=-offset, step=1, dtype=torch.int64, device=device), [row, col], [1])
    mask = P.ge(cols, rows) if upper else P.le(cols, rows)
    coordinates = aten.nonzero_static.default(mask, size=count)
    return to_dtype(P.copy_strided(P.permute(coordinates, [1, 0]), [count, 1]), dtype)


@register(aten.tril_indices.default)
def tril_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _triangle_indices("tril_indices", row, col, offset, dtype, layout, device, upper=False)


@register(aten.triu_indices.default)
def triu_indices(row, col, offset=0, *, dtype=None, layout=None, device=None, pin_memory=None):
    return _triangle_indices("triu_indices", row, col, offset, dtype, layout, device, upper=True)


register_out(aten.tril_indices.out, tril_indices, factory=True)
register_out(aten.triu_indices.out, triu_indices, factory=True)


@register(aten.eye.default, aten.eye.m)
def eye(n, m=None, *, dtype=None, layout=None, device=None, pin_memory=None):
    m = n if m is None else m
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    dtype, device = _factory("eye", dtype, layout, device, torch.get_default_dtype())
    row = P.broadcast_in_dim(P.iota(n, start=0, step=1, dtype=torch.int64, device=device), [n, m], [0])
    col = P.broadcast_in_dim(P.iota(m, start=0, step=1, dtype=torch.int64, device=device), [n, m], [1])
    return to_dtype(P.eq(row, col), dtype)


register_out(aten.eye.out, eye, factory=True)
register_out(aten.eye.m_out, eye, factory=True)
