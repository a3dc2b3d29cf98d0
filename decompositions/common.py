"""Helpers every decomposition uses: type promotion, broadcasting, upcasting, scalars (``like``),
dims (``wrap_dim``), and the one in-place and out= wrapper (``into_out`` / ``into_self``, registered
by ``register_out`` / ``register_inplace`` / ``register_overloads`` / ``register_with_variants``).
A decomposition calls these and shows only its own idea."""
from __future__ import annotations

import numbers
import struct
import warnings

import torch

from primkit.decompositions.registry import register
from primkit.decompositions.type_promotion import can_cast, computation_dtype, result_type
from primkit.prims import dtypes as dt
from primkit.prims.layout import (
    contiguous_strides, is_non_overlapping_and_dense, maybe, same_sizes, sizes_differ, surely)


P = torch.ops.primkit
aten = torch.ops.aten


# How the result dtype of an elementwise op follows from the promoted dtype of its operands.
PROMOTION_KINDS = {
    "default": lambda d: d,
    "int_to_float": lambda d: torch.get_default_dtype() if d in dt.INT or d == torch.bool else d,
    "always_bool": lambda d: torch.bool,
    "complex_to_float": dt.to_real,
    "bool_to_long": lambda d: torch.int64 if d in dt.INT or d == torch.bool else d,
}


def is_number(x) -> bool:
    return isinstance(x, (numbers.Number, torch.SymInt, torch.SymFloat, torch.SymBool)) and not isinstance(x, torch.Tensor)


def is_symbolic(x) -> bool:
    """A number known only when the graph runs (t.item(), a dynamic size): a SymInt, SymFloat or SymBool,
    on which a decomposition must not branch (statically_known_true asks without guarding)."""
    return isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool))


def broadcast_shapes(*shapes) -> tuple:
    """Eager's broadcasting rule, with eager's error message (RuntimeError)."""
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for i, s in enumerate(shapes):
        for j, size in enumerate(s):
            d = ndim - len(s) + j
            if surely(size == 1):
                continue
            if surely(out[d] == 1):
                out[d] = size
            elif maybe(out[d] != size):
                # a data-dependent size (not known to be 1) must equal the other: assumed while tracing
                prev = next((k for k, t in enumerate(shapes)
                             if len(t) >= ndim - d and surely(t[d - ndim + len(t)] == out[d])), i)
                torch._check(out[d] == size, lambda: f"The size of tensor {chr(97 + prev)} ({out[d]}) must match the "
                             f"size of tensor {chr(97 + i)} ({size}) at non-singleton dimension {d}")
    return tuple(out)


def broadcast_to(t, shape):
    shape = tuple(shape)
    if same_sizes(t.shape, shape):
        return t
    return P.broadcast_in_dim(t, shape, list(range(len(shape) - t.dim(), len(shape))))


def to_dtype(t, dtype):
    return t if t.dtype == dtype else P.convert_element_type(t, dtype)


def round_to(value: float, dtype) -> float:
    """The Python float ``value`` as ``dtype`` holds it: rounded to float32 under float32, kept as it
    is under wider dtypes (eager computes such constants in the kernel's dtype)."""
    return struct.unpack("f", struct.pack("f", value))[0] if dtype == torch.float32 else value


def wrap_dim(dim, ndim, op=None):
    """A dim in [0, ndim) (a 0-d tensor accepts -1 and 0), with eager's IndexError (prefixed by ``op``
    where given)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        prefix = f"{op}: " if op else ""
        raise IndexError(f"{prefix}Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def wrap_dims(dims, ndim, op=None, *, unique=False):
    """``wrap_dim`` of each dim; ``unique``: a dim named twice is eager's RuntimeError."""
    wrapped = [wrap_dim(d, ndim, op) for d in dims]
    if unique:
        for d in wrapped:
            if wrapped.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def scalar(value, dtype, device):
    return P.scalar_tensor(value, dtype=dtype, device=device)


def wrapped(value, dtype):
    """An int as C++ converts it to an integer dtype: modulo 2**bits (int8: 200 -> -56, 1000 -> -24).
    Eager's elementwise kernels read a scalar operand so (``int8_tensor + 200``, ``int8_tensor == 1000``);
    its fills (where, masked_fill, fill_) refuse such a value, as the prims do (full C3,
    scalar_tensor C2). Floats need nothing: the prims round them (+-inf beyond the range)."""
    if type(value) is int and dtype in dt.INT:
        info = torch.iinfo(dtype)
        return (value - info.min) % (1 << info.bits) + info.min
    return value


def like(t, value):
    """A number as a tensor shaped, typed and placed like t (stride 0: no memory)."""
    return prepare(value, t.dtype, t.shape, t.device)


def with_gradient_of(value, y):
    """``value``'s value (bit for bit, -0.0 included) with ``y``'s gradient: value - (y - y) with the first
    two held constant. y - y is +0.0 where y is finite, and value - (+0.0) is value."""
    return P.sub(P.stop_gradient(value), P.sub(P.stop_gradient(y), y))


def tensor_device(*args):
    """The device elementwise ops run on: that of a dimensioned tensor, else of any tensor."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    for t in tensors:
        if t.dim() > 0:
            return t.device
    return tensors[0].device if tensors else torch.device("cpu")


def prepare(x, dtype, shape, device, common=None):
    """An operand as a tensor of dtype, device and shape (numbers become 0-d tensors).

    ``common``: eager first casts every operand to the ops' common dtype (rounding a float64
    scalar to float16, say) and only then computes in ``dtype``; pass it to do the same.
    """
    if not isinstance(x, torch.Tensor):
        x = scalar(x, common or dtype, device)
    elif x.device != device:
        x = P.device_put(x, device)      # eager lets a 0-d CPU tensor join a CUDA op
    if common is not None:
        x = to_dtype(x, common)
    return broadcast_to(to_dtype(x, dtype), shape)


def promote(*args, kind="default", upcast=True):
    """(computation dtype, result dtype) for an elementwise op on args."""
    common, compute, result = _promote3(args, kind, upcast)
    return compute, result


def _promote3(args, kind, upcast):
    common = result_type(*args)
    result = PROMOTION_KINDS[kind](common)
    if kind not in ("always_bool", "complex_to_float"):
        common = result
    return common, (computation_dtype(common) if upcast else common), result


def _is_single(x) -> bool:
    return not isinstance(x, torch.Tensor) or surely(x.numel() == 1)


def elementwise(prim, *args, kind="default", upcast=True, scalar_in_opmath=False):
    """Promote, broadcast and upcast the operands, apply ``prim``, cast to the result dtype.

    ``scalar_in_opmath``: eager's mul and div kernels read a single-element second operand at
    its original precision straight into the computation dtype, skipping the common-dtype cast.
    """
    common, compute, result = _promote3(args, kind, upcast)
    device = tensor_device(*args)
    shape = broadcast_shapes(*(a.shape for a in args if isinstance(a, torch.Tensor)))
    ops = []
    for i, a in enumerate(args):
        original = scalar_in_opmath and i == 1 and _is_single(a) and compute != common
        if is_number(a):
            a = wrapped(a, compute if original else common)
        ops.append(prepare(a, compute, shape, device, common=None if original else common))
    return to_dtype(prim(*ops), result)


def check_sizes(ok, error):
    """Eager's check of sizes: ``error()`` (the exception) raised where ``ok`` is known false; where it depends on
    a size read from data (the rows a mask selects), checked where the graph runs (torch._check), no guard."""
    if not maybe(ok):
        raise error()
    if isinstance(ok, torch.SymBool):
        torch._check(ok, lambda: str(error()))


def upcast(*tensors):
    """Tensors in their computation dtype (float16/bfloat16 -> float32), and the dtype to return to."""
    return [to_dtype(t, computation_dtype(t.dtype)) for t in tensors], tensors[0].dtype


def write_into(dst, value, name, resize=False):
    """Copy a functional result into an in-place or out= destination, with eager's checks. A destination of
    another shape is refused (``resize=False``: in-place, or an out= form whose eager kernel refuses it); an
    out= tensor is resized (``resize_output``) to the result's strides where dense (``resize=True``), or to
    the strides ``resize(dst, shape)`` gives (those eager's kernel gives it). A result whose sizes are data
    (bincount, nonzero: unbacked sizes) may or may not have out's: out is resized to them (the traced module
    gives an argument the sizes the graph computed, ``graph.guards``), as eager resizes it where they differ."""
    if not can_cast(value.dtype, dst.dtype):
        raise RuntimeError(f"{name}: result type {dt.short(value.dtype)} can't be cast to the "
                           f"desired output type {dt.short(dst.dtype)}")
    if not same_sizes(value.shape, dst.shape):
        if not resize:   # in-place (self keeps its shape), or an out= form whose eager kernel refuses it
            _assume_same_sizes(dst, value, name)
        else:
            if callable(resize):
                strides = resize(dst, value.shape)
            elif not sizes_differ(value.shape, dst.shape):
                # sizes that are data: eager keeps out's layout where they equal it, resizes it contiguous where
                # not; contiguous is both for a contiguous out (a non-contiguous one of equal sizes would keep its
                # strides in eager: not modelled)
                strides = contiguous_strides(value.shape)
            else:
                strides = value.stride() if is_non_overlapping_and_dense(value.shape, value.stride()) else None
            resize_output(dst, value.shape, strides)
    return P.copy_to(dst, to_dtype(value, dst.dtype))


def _assume_same_sizes(dst, value, name):
    """dst's sizes, which a write that cannot resize needs: refused where they surely differ, else (sizes that
    are data) assumed, and checked by the graph when it runs (torch._check)."""
    if sizes_differ(value.shape, dst.shape):
        raise RuntimeError(f"{name}: output with shape {list(dst.shape)} doesn't match the broadcast shape "
                           f"{list(value.shape)}")
    for size, dst_size in zip(value.shape, dst.shape):
        torch._check(size == dst_size)


def resized_warning(old_shape, new_shape) -> str:
    """Eager's warning (at::native::resize_output) when an out= tensor with elements is resized."""
    return (f"An output with one or more elements was resized since it had shape {list(old_shape)}, which does "
            f"not match the required output shape {list(new_shape)}. This behavior is deprecated, and in a future "
            f"PyTorch release outputs will not be resized unless they have zero elements. You can explicitly "
            f"reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).")


def resize_output(dst, shape, strides=None):
    """Eager's rule for an out= tensor of another shape than the result: resized in place, its data kept
    where its storage holds it, with eager's UserWarning where it had elements (where the sizes are data,
    the trace cannot know whether they differ: the traced module warns when it resizes); then given
    ``strides`` (the functional result's, where dense: the layout eager's kernel gives a resized out, a
    TensorIterator's input-like strides, linalg's column-major ones), else contiguous. A tensor the program
    made is resized in the graph; a traced program's argument is resized by the traced module after each
    call, then given the value the graph computed for it (``graph.guards``)."""
    if dst.numel() != 0 and sizes_differ(dst.shape, shape):
        warnings.warn(resized_warning(dst.shape, shape), UserWarning, stacklevel=3)
    dst.resize_(shape)
    if strides is not None and not same_sizes(strides, dst.stride()):
        dst.as_strided_(shape, strides)


def contiguous_out(out, shape) -> tuple:
    """``resize`` for an out= form whose eager kernel resizes out contiguous (resize_output, then a copy of
    its result: rot90, the fft family, cholesky) where primkit's result has other strides."""
    return contiguous_strides(shape)


def out_names(op) -> list:
    """The names of op's out= arguments, in schema order."""
    return [a.name for a in op._schema.arguments if a.is_out]


def _is_out_overload(op) -> bool:
    return bool(out_names(op))


def is_tensor_overload(op) -> bool:
    """An overload on tensors: a Tensor argument and only Tensor results (not the
    TorchScript overloads on ints, strings and lists that share the name)."""
    schema = op._schema
    tensor = lambda t: isinstance(t, torch.TensorType)   # noqa: E731
    return (any(tensor(a.type) for a in schema.arguments) and len(schema.returns) > 0
            and all(tensor(r.type) for r in schema.returns))


def _named_after(variant, fn, suffix):
    # The variant is filed where fn is (the coverage report reads a decomposition's family off its module).
    variant.__qualname__ = f"{fn.__qualname__}[{suffix}]"
    variant.__module__ = fn.__module__
    return variant


def _write_result(dst, value, name, resize):
    if isinstance(dst, (list, tuple)):   # a Tensor[] out= argument: one tensor per piece
        if len(dst) != len(value):
            raise RuntimeError(f"{name}: expected {len(value)} out tensors, got {len(dst)}")
        for d, piece in zip(dst, value):
            write_into(d, piece, name, resize)
        return None
    return write_into(dst, value, name, resize)


def into_out(fn, op, name=None, *, factory=False, check=None, resize=True):
    """The out= form of the functional decomposition ``fn`` for the overload ``op``: compute ``fn``,
    then write each result into its out argument (the schema's out arguments, in order) with eager's
    checks (``write_into``; ``name`` in its messages, op's name by default).

    ``factory``: fn makes a tensor from sizes (creation, random, window ops) and is given out's dtype
    and device. ``check(out, result)``: a further check of each result before it is written (an out=
    form without type promotion, say). ``resize``: how an out tensor of another shape is resized (see
    ``write_into``; False: refused, where eager's kernel refuses it: split_copy copies into its outs)."""
    names = out_names(op)
    name = name or op.name()

    def out_variant(*args, **kwargs):
        outs = [kwargs.pop(n) for n in names]
        if factory:
            kwargs.update(dtype=outs[0].dtype, device=outs[0].device)
        results = fn(*args, **kwargs)
        if not isinstance(results, tuple) or isinstance(outs[0], (list, tuple)):
            results = (results,)
        for n, o, r in zip(names, outs, results):
            if r is None:   # an output_mask entry that is False: eager has no result to copy either
                raise RuntimeError(f"{name}: no result for {n} (its output_mask entry is False), so nothing "
                                   f"can be written into it")
            if check is not None:
                check(o, r)
        written = tuple(_write_result(o, r, name, resize) for o, r in zip(outs, results))
        return written if len(written) > 1 else written[0]
    return _named_after(out_variant, fn, "out")


def into_self(fn, name):
    """The in-place form of the functional decomposition ``fn``: compute, then write into self."""
    def inplace_variant(self, *args, **kwargs):
        return write_into(self, fn(self, *args, **kwargs), name)
    return _named_after(inplace_variant, fn, "inplace")


def register_out(op, fn, name=None, **kwargs):
    """Register ``into_out(fn, op, name, ...)`` for the out= overload ``op``; returns fn."""
    register(op)(into_out(fn, op, name, **kwargs))
    return fn


def register_inplace(op, fn, name=None):
    """Register ``into_self(fn, name)`` for the in-place overload ``op`` (name: op's name by default)."""
    register(op)(into_self(fn, name or op.name()))
    return fn


def register_overloads(fn, name, overloads, *, inplace=(), out_resize=True):
    """Register fn for aten.<name>.<overload>; an out= overload computes fn and copies into its
    out tensors (one per result; ``out_resize``: into_out's ``resize``); ``inplace`` overloads of
    aten.<name>_ copy into self."""
    packet = getattr(aten, name)
    for overload in overloads:
        op = getattr(packet, overload)
        if _is_out_overload(op):
            register_out(op, fn, resize=out_resize)
        else:
            register(op)(fn)
    for overload in inplace:
        register_inplace(getattr(getattr(aten, name + "_"), overload), fn)
    return fn


def register_with_variants(name: str, fn, out_resize=True):
    """Register ``fn`` for every functional overload of aten.<name>, and derived decompositions
    for its out= overloads (``out_resize``: into_out's ``resize``) and for aten.<name>_ (in-place):
    compute functionally, then copy_to."""
    packet = getattr(aten, name)
    outs = []
    for overload in packet.overloads():
        op = getattr(packet, overload)
        if not is_tensor_overload(op):
            continue
        if _is_out_overload(op):
            outs.append(op)
        elif not op._schema.is_mutable:
            register(op)(fn)
    for op in outs:
        if len(out_names(op)) == 1:
            register_out(op, fn, resize=out_resize)
    inplace = getattr(aten, name + "_", None)
    if inplace is not None:
        for overload in inplace.overloads():
            if is_tensor_overload(getattr(inplace, overload)):
                register_inplace(getattr(inplace, overload), fn, f"{name}_")
    return fn
