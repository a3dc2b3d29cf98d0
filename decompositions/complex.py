"""Decompositions of complex-number ops: building complex tensors (complex, polar), taking them
apart (real, imag, view_as_real, view_as_complex), the lazy conjugate (conj) and resolve_conj /
resolve_neg.

Eager's real, imag, view_as_* and conj are views. Prims are functional, so each decomposition
gives eager's values with eager's strides: view_as_real and view_as_complex are view prims that
keep a view's geometry; real and imag select one half of view_as_real (strides doubled); conj
lays the conjugate out exactly as its operand (gaps and expanded dims included). On a real
tensor, real and conj are the tensor itself (an alias).
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, broadcast_shapes, prepare, register_with_variants, tensor_device
from primkit.decompositions.registry import register
from primkit.decompositions.layout import in_layout
from primkit.prims import dtypes as dt
from primkit.prims.layout import is_non_overlapping


# The real dtypes with a complex counterpart that has prims (complex32 has none).
PRIM_REAL = (torch.float32, torch.float64)


_eager_name = dt.eager_name


# ---- building complex tensors ----------------------------------------------------------------

def _from_parts(name, prim, first, second):
    """complex / polar: eager's checks (two float tensors of one dtype), then the prim on the
    broadcast operands."""
    def decomp(a, b):
        if a.dtype not in (torch.float16,) + PRIM_REAL or b.dtype not in (torch.float16,) + PRIM_REAL:
            raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                               f"{_eager_name(a.dtype)} and {_eager_name(b.dtype)}")
        if a.dtype != b.dtype:
            raise RuntimeError(f"Expected object of scalar type {_eager_name(a.dtype)} but got scalar type "
                               f"{_eager_name(b.dtype)} for second argument")
        if a.dtype not in PRIM_REAL:
            raise NotImplementedError(f"{name}: {first} and {second} are {dt.short(a.dtype)}, whose complex "
                                      f"counterpart has no prims; expected float32 or float64")
        shape = broadcast_shapes(a.shape, b.shape)
        device = tensor_device(a, b)
        return prim(prepare(a, a.dtype, shape, device), prepare(b, b.dtype, shape, device))
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


register_with_variants("complex", _from_parts("complex", P.complex, "real", "imag"))
register_with_variants("polar", _from_parts("polar", P.polar, "abs", "angle"))


# ---- taking them apart -----------------------------------------------------------------------

def _check_prim_complex(name, a):
    if a.dtype not in (torch.complex64, torch.complex128):
        raise NotImplementedError(f"{name}: expected a complex64 or complex128 tensor, got {dt.short(a.dtype)} "
                                  "(complex32 has no prims)")


@register(aten.view_as_real.default)
def view_as_real(a):
    if a.dtype not in dt.COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    _check_prim_complex("view_as_real", a)
    return P.view_as_real(a)


@register(aten.view_as_complex.default)
def view_as_complex(a):
    """eager's checks, in eager's order and words, then the view prim."""
    if a.dtype not in (torch.float16,) + PRIM_REAL:
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {_eager_name(a.dtype)}")
    if a.dim() == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if a.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if a.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in a.stride()[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if a.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if a.dtype not in PRIM_REAL:
        raise NotImplementedError("view_as_complex: expected a float32 or float64 tensor, got float16 (complex32 "
                                  "has no prims)")
    return P.view_as_complex(a)


@register(aten.real.default)
def real(a):
    if a.dtype not in dt.COMPLEX:
        return aten.alias.default(a)
    return aten.select.int(view_as_real(a), -1, 0)


@register(aten.imag.default)
def imag(a):
    if a.dtype not in dt.COMPLEX:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return aten.select.int(view_as_real(a), -1, 1)


# ---- conjugate -------------------------------------------------------------------------------

def laid_out_as(a, fn):
    """fn(a), for an elementwise fn of one operand, with a's exact layout (as a view of a has):
    a's strides with their gaps, and stride 0 where a is expanded. fn runs once per distinct
    element. An a whose other elements overlap gets fn's own (dense) layout."""
    expanded = [d for d in range(a.dim()) if a.stride(d) == 0 and a.shape[d] > 1]
    core = a
    if expanded:
        limits = [1 if d in expanded else size for d, size in enumerate(a.shape)]
        core = P.slice(a, [0] * a.dim(), limits, [1] * a.dim())
    out = fn(core)
    if is_non_overlapping(core.shape, core.stride()):
        out = in_layout(out, core.stride())
    if expanded:
        out = P.broadcast_in_dim(out, list(a.shape), list(range(a.dim())))
    return out


@register(aten.conj.default)
@register(aten._conj.default)
def conj(a):
    # eager's lazy conjugate (a view with the conj bit): here the conjugate, in a's layout
    if a.dtype not in dt.COMPLEX:
        return aten.alias.default(a)
    return laid_out_as(a, P.conj_physical)


@register(aten.resolve_conj.default, aten.resolve_neg.default)
def resolve_lazy_bits(a):
    """a itself: primkit tensors never carry eager's lazy conjugate or negative bit."""
    return a
