"""Copies and conversions (clone, _to_copy, copy, copy_) and the functional copies of views (permute_copy,
..., narrow_copy, split_copy): the view cloned into a fresh contiguous tensor."""
from __future__ import annotations

import torch

from primkit.decompositions.common import (P, aten, broadcast_shapes, out_names, prepare, register_out,
    register_with_variants)
from primkit.decompositions.layout import in_layout, preserved_strides, strides_for
from primkit.decompositions.registry import register
from primkit.decompositions.shape.views import bitcast, view
from primkit.prims.layout import is_non_overlapping


# --- copies and conversions --------------------------------------------------------------

@register(aten.clone.default)
def clone(a, *, memory_format=None):
    if memory_format in (None, torch.preserve_format):
        return P.clone(a)
    return P.copy_strided(a, list(strides_for(a.shape, memory_format)))


@register(aten._to_copy.default)
def to_copy(a, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None):
    check_layout(layout, "_to_copy")
    out = a
    if device is not None and torch.device(device) != a.device:
        out = P.device_put(out, torch.device(device))
    if dtype is not None and dtype != a.dtype:
        out = P.convert_element_type(out, dtype)
    if memory_format not in (None, torch.preserve_format):
        return in_layout(out, strides_for(a.shape, memory_format, "_to_copy")) if out is not a \
            else clone(a, memory_format=memory_format)
    return P.clone(a) if out is a else out


def check_layout(layout, op):
    if layout not in (None, torch.strided):
        raise RuntimeError(f"{op}: primkit supports strided tensors only, got layout={layout}")


@register(aten._assert_tensor_metadata.default)
def assert_tensor_metadata(a, size=None, stride=None, dtype=None, *, device=None, layout=None):
    """torch.export's check that a tensor has the geometry seen when it was traced. Checked
    here, at trace time, in eager's order; it leaves nothing in the graph (the op returns ())."""
    expected = (("sizes", size, list(a.shape)), ("strides", stride, list(a.stride())), ("dtype", dtype, a.dtype),
                ("device", None if device is None else torch.device(device), a.device),
                ("layout", layout, torch.strided))
    for what, want, got in expected:
        if want is not None and (list(want) if what in ("sizes", "strides") else want) != got:
            raise RuntimeError(f"_assert_tensor_metadata: Tensor {what} mismatch! Expected: {want}, Got: {got}")
    return None


@register(aten.copy.default)
def copy(a, src, non_blocking=False):
    """src's values in a new tensor with a's shape, dtype, device and layout."""
    # Eager allocates with a's own strides when they do not overlap, else densely in a's dim order.
    strides = a.stride() if is_non_overlapping(a.shape, a.stride()) else preserved_strides(a)
    return P.copy_strided(_source_like(a, src), list(strides))


@register(aten.copy_.default)
def copy_(a, src, non_blocking=False):
    return P.copy_to(a, _source_like(a, src))


def _source_like(a, src):
    """src broadcast to a's shape, in a's dtype and on a's device (eager's copy_ rules)."""
    if broadcast_shapes(a.shape, src.shape) != tuple(a.shape):
        raise RuntimeError(f"copy_: src of shape {list(src.shape)} does not broadcast to self's shape {list(a.shape)}")
    return prepare(src, a.dtype, a.shape, a.device)


register_out(aten.clone.out, clone)
register_out(aten._to_copy.out, to_copy)
register_out(aten.copy.out, copy)
register_out(aten._unsafe_view.out, view)


# ------------------------------------------------------------------ functional copies of views
# Eager's <view>_copy is the view cloned into a fresh contiguous tensor.


def contiguous_copy(t):
    return aten.clone.default(t, memory_format=torch.contiguous_format)


def _copy_of(view):
    def copy(a, *args, **kwargs):
        out = view(a, *args, **kwargs)
        return [contiguous_copy(t) for t in out] if isinstance(out, (list, tuple)) else contiguous_copy(out)
    return copy


def _squeeze(a, dim=None):
    if dim is None:
        return aten.squeeze.default(a)
    return aten.squeeze.dims(a, dim) if isinstance(dim, (list, tuple)) else aten.squeeze.dim(a, dim)


VIEW_COPIES = {
    "alias_copy": aten.alias.default, "as_strided_copy": aten.as_strided.default,
    "_reshape_alias_copy": aten._reshape_alias.default,
    "detach_copy": aten.detach.default, "diagonal_copy": aten.diagonal.default, "expand_copy": aten.expand.default,
    "permute_copy": aten.permute.default, "select_copy": aten.select.int, "slice_copy": aten.slice.Tensor,
    "squeeze_copy": _squeeze, "t_copy": aten.t.default, "transpose_copy": aten.transpose.int,
    "unsqueeze_copy": aten.unsqueeze.default, "unfold_copy": P.unfold, "view_as_real_copy": P.view_as_real,
    "view_as_complex_copy": P.view_as_complex,
}
for _name, _view_fn in VIEW_COPIES.items():
    register_with_variants(_name, _copy_of(_view_fn))
register(aten.view_copy.default)(_copy_of(aten.view.default))
register_out(aten.view_copy.out, _copy_of(aten.view.default), "view_copy.out")


@register(aten.view_copy.dtype)
def view_copy_dtype(a, dtype):
    """a's bytes read as elements of dtype, in a contiguous tensor (eager's checks of view(dtype))."""
    return bitcast(a, dtype, "view_copy")


register_out(aten.view_copy.dtype_out, view_copy_dtype, "view_copy.dtype_out")


def narrow_copy(a, dim, start, length):
    """narrow, copied; eager checks dim itself (a RuntimeError, where narrow's is an IndexError)."""
    if not -max(a.dim(), 1) <= dim < max(a.dim(), 1):
        raise RuntimeError(f"narrow_copy: Expected dim < static_cast<int64_t>(self_sizes.size()): dim {dim} is out "
                           f"of range for a {a.dim()}-d tensor")
    return contiguous_copy(aten.narrow.default(a, dim, start, length))


register_with_variants("narrow_copy", narrow_copy)


# Views returning several tensors: their out= overloads write into a list of tensors.
LIST_COPIES = {"split_copy": aten.split.Tensor, "split_with_sizes_copy": aten.split_with_sizes.default,
               "unbind_copy": aten.unbind.int}


for _name, _view_fn in LIST_COPIES.items():
    _packet = getattr(aten, _name)
    for _overload in _packet.overloads():
        _op = getattr(_packet, _overload)
        if out_names(_op):   # eager's split_copy copies into its outs (no resize); the others resize them
            register_out(_op, _copy_of(_view_fn), resize=_name != "split_copy")
        else:
            register(_op)(_copy_of(_view_fn))
