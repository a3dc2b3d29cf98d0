"""Meta rules of the elementwise families (unary, binary, ternary, conversions), and of the unary
special functions with an integer order.

Strict: tensor operands share one shape, one device and (except those named in the entry's
``arg_dtypes``) one dtype. The entry's ``out_dtype`` says the output dtype kind (a list of kinds
for a prim with several outputs, such as frexp). Output strides follow eager's elementwise
layout rule (see ``strides.elementwise_strides``); non-tensor arguments do not take part.
"""
from __future__ import annotations

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, count, dtype_class_per_argument, flag, is_tensor_like, listed, meta_rule
from primkit.prims.meta.common import check_addressable, check_dtype, check_same_device, shape_str
from primkit.prims.layout import contiguous_strides, elementwise_strides, itemsize

# out_dtype kinds: how the output dtype follows from the operands' common dtype.
OUT_DTYPE = {
    "same": lambda d, args: d,
    "bool": lambda d, args: dt.by_name("bool"),
    "real": lambda d, args: dt.to_real(d),          # complex -> its real counterpart
    "complex": lambda d, args: dt.to_complex(d),    # real -> its complex counterpart
    "arg": lambda d, args: args["dtype"],           # the prim's `dtype` argument
}


def out_dtype_kind(value):
    """The check of an entry's out_dtype (see prims.meta.meta_rule)."""
    if isinstance(value, str) and (value in OUT_DTYPE or value in dt.NAMES):
        return None
    return f"expected one of {', '.join(OUT_DTYPE)} or a dtype name, got {value!r}"


def out_dtype_of(kind, common, args):
    """An out_dtype kind of OUT_DTYPE, or a dtype name (frexp's exponent: int32)."""
    return OUT_DTYPE[kind](common, args) if kind in OUT_DTYPE else dt.by_name(kind)


# The constraint id each check cites, per rule: n-ary prims list four constraints, one-operand
# prims only the one that a single operand can violate.
CHECK_IDS = {
    "elementwise": {"shape": "C1", "same_dtype": "C2", "dtype": "C3", "device": "C4"},
    "elementwise_unary": {"dtype": "C1"},
}


@meta_rule("elementwise", params={"out_dtype": out_dtype_kind, "arg_dtypes": dtype_class_per_argument},
           constraints=("C1", "C2", "C3", "C4"))
def elementwise(prim, *args):
    return _elementwise(prim, CHECK_IDS["elementwise"], args)


@meta_rule("elementwise_unary", params={"out_dtype": listed(out_dtype_kind)}, constraints=("C1",),
           outputs=lambda params: len(params["out_dtype"]) if isinstance(params.get("out_dtype"), list) else 1)
def elementwise_unary(prim, *args):
    return _elementwise(prim, CHECK_IDS["elementwise_unary"], args)


def _elementwise(prim, ids, args):
    named = dict(zip(prim.arg_names, args))
    tensors = [(n, a) for n, a in named.items() if is_tensor_like(a)]
    fixed = prim.params.get("arg_dtypes", {})
    shape = tuple(tensors[0][1].shape)
    for n, a in tensors[1:]:
        check(tuple(a.shape) == shape, prim, ids.get("shape"), lambda: f"operand '{n}' has shape {shape_str(a.shape)} but "
              f"'{tensors[0][0]}' has shape {shape_str(shape)}; prims do not broadcast")
    typed = [(n, a) for n, a in tensors if n not in fixed]
    for n, a in typed[1:]:
        check(a.dtype == typed[0][1].dtype, prim, ids.get("same_dtype"), lambda: f"operand '{n}' has dtype {dt.short(a.dtype)} but "
              f"'{typed[0][0]}' has dtype {dt.short(typed[0][1].dtype)}; prims do not promote")
    if typed:
        check_dtype(prim, ids["dtype"], typed[0][1], prim.dtypes, f"operand '{typed[0][0]}'")
    for n, cls in fixed.items():
        check_dtype(prim, ids["dtype"], named[n], dt.resolve([cls]), f"operand '{n}'")
    if "device" in ids:
        check_same_device(prim, ids["device"], [a for _, a in tensors])
    common = typed[0][1].dtype if typed else tensors[0][1].dtype
    kinds = prim.params.get("out_dtype", "same")
    strides = elementwise_strides(shape, [(a.stride(), itemsize(a.dtype)) for _, a in tensors])
    if isinstance(kinds, list):     # several outputs, each in the one elementwise layout
        return tuple(TensorMeta(shape, strides, out_dtype_of(k, common, named), tensors[0][1].device) for k in kinds)
    return TensorMeta(shape, strides, out_dtype_of(kinds, common, named), tensors[0][1].device)


@meta_rule("reduce_precision", constraints=("C1", "C2", "C3"))
def reduce_precision(prim, a, exponent_bits, mantissa_bits):
    check(exponent_bits >= 1, prim, "C2", lambda: f"exponent_bits must be >= 1, got {exponent_bits}")
    check(mantissa_bits >= 0, prim, "C3", lambda: f"mantissa_bits must be >= 0, got {mantissa_bits}")
    return elementwise_unary(prim, a, exponent_bits, mantissa_bits)


# Special functions that take an integer order besides their operand (polygamma's n, mvlgamma's p):
# the entry's ``min_order`` is the least order allowed (default 0); ``order_terms``: the value sums that many
# terms per element, which must be addressable as a tensor (the "storage" check).
@meta_rule("elementwise_unary_order", params={"out_dtype": out_dtype_kind, "min_order": count, "order_terms": flag},
           constraints=("C1", "C2"))
def elementwise_unary_order(prim, a, n):
    least = prim.params.get("min_order", 0)
    check(n >= least, prim, "C2", lambda: f"order {prim.arg_names[1]} must be >= {least}, got {n}")
    if prim.params.get("order_terms"):     # n terms per element (mvlgamma's sum): as many must be addressable
        shape = (*a.shape, n)
        check_addressable(prim, shape, contiguous_strides(shape), a.dtype)
    return elementwise_unary(prim, a, n)
