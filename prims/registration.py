"""Defines every catalog prim as a real torch op, ``torch.ops.primkit.<name>``.

Each prim gets: its schema from YAML; a fake kernel that materializes its meta rule's output;
and a CPU/CUDA kernel that runs the meta rule (so strictness holds on real tensors too) and
then the reference implementation named in YAML, its results laid out as the entry's ``layout``
says; and, where its entry has a ``derivative``,
an autograd rule built from the formulas (prims/autograd.py).
"""
from __future__ import annotations

import functools

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorConfig
from torch.utils._pytree import tree_flatten

from primkit.prims import autograd
from primkit.prims.loader import LAYOUTS, PrimDef, resolve_impl
from primkit.prims.errors import check
from primkit.prims.meta import RULES, TensorMeta, is_tensor_like
from primkit.prims.meta.common import check_addressable
from primkit.prims.layout import contiguous_strides, is_non_overlapping_and_dense, same_sizes

NAMESPACE = "primkit"
_LIB = None

# Catalog tags that torch's passes must see: a stateful prim reads and advances a generator, so
# AOTAutograd's partitioner never recomputes it in the backward and fx's dead-code pass keeps it.
TORCH_TAGS = {"stateful": (torch.Tag.nondeterministic_seeded,)}
# Catalog tags whose prims torch.fx must treat as side-effectful (Node.is_impure: no dead-code pass of fx,
# AOTAutograd or Inductor removes them, even where nothing reads their value): a collective is a
# communication every rank must make.
SIDE_EFFECT_TAGS = {"collective"}


def materialize(out, fake_mode=None):
    """TensorMeta (or a tuple of them) -> empty tensors with that geometry; other values pass.

    With ``fake_mode`` (the mode of the fake operands) and static sizes, the FakeTensor is built
    directly around a meta tensor: the same tensor ``empty_strided`` gives under the mode, at a
    fifth of the cost (a fake kernel runs once per prim call in every trace)."""
    if isinstance(out, TensorMeta):
        if fake_mode is not None and _static(out.shape) and _static(out.strides) and _static_place(out):
            with torch._C._DisableTorchDispatch():   # a plain meta tensor, past every mode (fake or not)
                meta = _empty(out, "meta")
            return new_fake(fake_mode, meta, torch.device(out.device))
        return _empty(out, out.device)
    if isinstance(out, tuple):
        return tuple(materialize(o, fake_mode) for o in out)
    return out


# device -> (the fake device, normalized, and the instance state a FakeTensor of that device starts with: its
# memos, constant, pytype, ... all unset, less its fake mode), taken from the first one FakeTensor() builds (the
# attribute that holds the device differs between torch versions: read through the public fake_device)
_FAKE_STATE: dict = {}


def new_fake(fake_mode, meta, device):
    """``FakeTensor(fake_mode, meta, device)`` at a fifth of its cost: the subclass made around ``meta`` with the
    fake device's dispatch keys, given the state the constructor gives every new fake tensor (copied from one
    it built), where it sets nothing else: not while exporting (a leak check tracks each new fake tensor), not
    in fake-tensor debug mode (a creation trace), not for the meta device. The constructor's keyword checks
    and its setting of five memos one attribute at a time were a third of the coverage report's
    fake-tensor work (tests/test_fake_real.py compares the two)."""
    state = _FAKE_STATE.get(device)
    if state is None or device.type == "meta" or FakeTensorConfig.debug or torch.compiler.is_exporting():
        fake = FakeTensor(fake_mode, meta, device)
        if state is None and "_debug_trace" not in fake.__dict__:
            _FAKE_STATE[device] = (fake.fake_device, {k: v for k, v in fake.__dict__.items() if k != "fake_mode"})
        return fake
    fake_device, state = state
    fake = torch.Tensor._make_subclass(FakeTensor, meta, meta.requires_grad, dispatch_device=True,
                                       device_for_backend_keys=fake_device)
    if fake_mode._allow_unsafe_data_ptr_access:
        torch._C._set_warn_deprecated_on_mutable_data_ptr(fake)
    else:
        torch._C._set_throw_on_mutable_data_ptr(fake)
    fake.__dict__.update(state)
    fake.fake_mode = fake_mode
    return fake


_INT = {int}


def _static(sizes) -> bool:
    return set(map(type, sizes)) <= _INT    # every size a plain int (a SymInt is not), without a generator


def _static_place(out) -> bool:
    return type(out.storage_offset) is int and (out.storage_nbytes is None or type(out.storage_nbytes) is int)


def _empty(out, device):
    """An empty tensor of out's geometry: a view's at its storage offset in a storage of its operand's size (as the
    real kernel's result, whose storage is a copy of the operand's), a new tensor's in a storage just large enough."""
    nbytes = out.storage_nbytes
    if nbytes is None and out.storage_offset == 0 or _spans_its_storage(out):
        # a storage just large enough, which empty_strided makes (most views span their operand's whole storage)
        return torch.empty_strided(out.shape, out.strides, dtype=out.dtype, device=device)
    if nbytes is None:   # an offset without a size: enough for the view
        nbytes = (out.storage_offset + _reach(out)) * out.dtype.itemsize
    storage = torch.empty(nbytes // out.dtype.itemsize, dtype=out.dtype, device=device).untyped_storage()
    return torch.empty(0, dtype=out.dtype, device=device).set_(storage, out.storage_offset, out.shape, out.strides)


def _spans_its_storage(out) -> bool:
    """Whether a static geometry with a storage size starts its storage and reaches its end (nothing symbolic
    is compared: that would guard on it)."""
    return (type(out.storage_nbytes) is int and type(out.storage_offset) is int and out.storage_offset == 0
            and _static(out.shape) and _static(out.strides) and out.storage_nbytes == _reach(out) * out.dtype.itemsize)


def _reach(out) -> int:
    """The elements a geometry spans from its first: 0 for an empty tensor."""
    return 1 + sum((n - 1) * s for n, s in zip(out.shape, out.strides)) if all(out.shape) else 0


def _fake_mode_of(args):
    """The fake mode of the fake operands, or of the fake kernel running (a prim without tensor operands:
    scalar_tensor, full, iota), read off torch.library's context; None outside fake tensors."""
    for a in args:
        if isinstance(a, FakeTensor):
            return a.fake_mode
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, FakeTensor):
                    return b.fake_mode
    if any(isinstance(a, torch.Tensor) or isinstance(a, (list, tuple)) and any(isinstance(b, torch.Tensor) for b in a)
           for a in args):
        return None      # real or meta operands: the kernel runs for the Meta key, outside a fake mode
    try:
        return getattr(torch.library.get_ctx(), "_fake_mode", None)
    except RuntimeError:  # a prim without operands on the meta device, outside a fake mode
        return None


def run_meta(prim: PrimDef, args, kwargs):
    bound = prim.bind(args, kwargs)
    check_tensor_args(prim, bound)
    out = RULES[prim.meta].fn(prim, *bound)
    for o in out if isinstance(out, tuple) else (out,):
        if isinstance(o, TensorMeta):
            check_addressable(prim, o.shape, o.strides, o.dtype)
    return out


@functools.lru_cache(maxsize=None)
def _tensor_params(schema: str) -> tuple:
    """(index, name, is_list) of each argument the signature declares Tensor or Tensor[]."""
    parsed = torch._C.parse_schema(f"{NAMESPACE}::{schema}")
    out = []
    for i, a in enumerate(parsed.arguments):
        if isinstance(a.type, torch._C.TensorType):
            out.append((i, a.name, False))
        elif isinstance(a.type, torch._C.ListType) and isinstance(a.type.getElementType(), torch._C.TensorType):
            out.append((i, a.name, True))
    return tuple(out)


def check_tensor_args(prim: PrimDef, bound) -> None:
    """The signature's typing, which torch's dispatcher does not enforce for None (it passes None
    for an undefined Tensor to both kernels): a Tensor argument is a tensor, under fake and real alike."""
    for i, name, is_list in _tensor_params(prim.schema):
        values = bound[i] if is_list else (bound[i],)
        for v in values:
            check(is_tensor_like(v), prim, "signature", lambda v=v: f"argument '{name}' must be a Tensor"
                  f"{' list of tensors' if is_list else ''}, got {type(v).__name__}")


# The fake kernel's meta results, by what the meta rule reads: the prim, and each argument's value or, for a
# fake tensor, its geometry (sizes, strides, storage offset and size), dtype, device and layout. A rule is
# a function of those (it cannot read a fake tensor's values), so an equal key gives an equal result. Only
# static geometry is keyed (a SymInt is not), nothing the rule raised for is stored, and prims of
# _UNCACHED_TAGS never are. Torch's own fake-tensor cache skips ops outside
# aten / prims; a trace calls the same prim on the same geometry many times over.
_META_CACHE: dict = {}
_META_CACHE_ENTRIES = 1 << 14
_UNKEYED = object()
_PLAIN = (bool, int, float, complex, str, type(None), torch.dtype, torch.device, torch.layout, torch.memory_format)


def _meta_key(value, memo=None):
    """A hashable key for one argument of a fake kernel, or _UNKEYED where none is exact. ``memo``: id(fake
    tensor) -> its key, for a tracer whose fake tensors never change geometry (each is keyed once)."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is FakeTensor or isinstance(value, FakeTensor):
        if memo is None:
            return _fake_key(value)
        key = memo.get(id(value))
        if key is None:
            key = memo[id(value)] = _fake_key(value)
        return key
    if kind is tuple or kind is list or isinstance(value, (list, tuple)):
        if set(map(type, value)) == _INT:   # sizes, dims: the common case, keyed at once
            return (kind, int, tuple(value))
        keys = tuple([_meta_key(v, memo) for v in value])
        return _UNKEYED if _UNKEYED in keys else (kind, keys)
    return _UNKEYED


def _call_key(args, kwargs, memo=None):
    """The key of a fake kernel's call: its arguments' keys (keyword arguments by name), or _UNKEYED."""
    keys = [_meta_key(a, memo) for a in args]
    if kwargs:
        keys += [(name, _meta_key(v, memo)) for name, v in sorted(kwargs.items())]
        if any(k is _UNKEYED for _, k in keys[len(args):]):
            return _UNKEYED
    return _UNKEYED if _UNKEYED in keys else tuple(keys)


def _fake_key(value):
    """A fake tensor's geometry (sizes, strides, storage offset and size), dtype, device, layout and
    conj / neg bits; _UNKEYED where any of it is symbolic (a view of a symbolic place has a symbolic
    storage size under static sizes)."""
    if value._has_symbolic_sizes_strides:
        return _UNKEYED
    nbytes = value.untyped_storage().nbytes()
    if type(nbytes) is not int:
        return _UNKEYED
    return (value.shape, value.stride(), value.storage_offset(), nbytes, value.dtype, value.device, value.layout,
            value.is_conj(), value.is_neg())


# Tags of prims whose meta rule reads more than its arguments: a data-dependent prim makes a fresh unbacked
# size per call; a collective checks its group size against the group this process registered under the name.
_UNCACHED_TAGS = {"data_dependent", "collective"}


def fake_result(prim, args, kwargs, fake_mode, memo=None):
    """The prim's results under ``fake_mode`` (None: real or meta operands): its meta rule's output,
    from the cache where an equal call was seen, materialized. ``memo``: _meta_key's, where the caller
    keeps one."""
    cacheable = fake_mode is not None and not (prim.tags & _UNCACHED_TAGS)
    key = _call_key(args, kwargs, memo) if cacheable else _UNKEYED
    out = _META_CACHE.get((prim.name, key), _UNKEYED) if key is not _UNKEYED else _UNKEYED
    if out is _UNKEYED:
        out = run_meta(prim, args, kwargs)
        if key is not _UNKEYED and _static_meta(out):
            if len(_META_CACHE) >= _META_CACHE_ENTRIES:
                _META_CACHE.clear()
            _META_CACHE[(prim.name, key)] = out
    return materialize(out, fake_mode)


def _fake_kernel(prim):
    def fake(*args, **kwargs):
        return fake_result(prim, args, kwargs, _fake_mode_of(args))
    fake.__name__ = f"{prim.name}_fake"
    return fake


def _static_meta(out) -> bool:
    """Whether a meta result holds only static sizes and strides (nothing symbolic to share between calls)."""
    if isinstance(out, tuple):
        return all(_static_meta(o) for o in out)
    if isinstance(out, TensorMeta):
        return _static(out.shape) and _static(out.strides)
    return type(out) in _PLAIN


def _storage_key(t):
    return t.untyped_storage()._cdata


def _own_storage(t):
    """t's exact geometry (sizes, strides, storage offset) on a copy of its whole storage."""
    return t.new_empty(0).set_(t.untyped_storage().clone(), t.storage_offset(), t.size(), t.stride())


def unalias(out, args, kwargs):
    """out with every tensor that shares storage with an input, or with an earlier output,
    replaced by a copy of the same geometry in storage of its own."""
    seen = {_storage_key(t) for t in tree_flatten((args, kwargs))[0] if isinstance(t, torch.Tensor)}

    def own(t):
        if not isinstance(t, torch.Tensor):
            return t
        if _storage_key(t) in seen:
            t = _own_storage(t)
        seen.add(_storage_key(t))
        return t
    return type(out)(own(o) for o in out) if isinstance(out, (tuple, list)) else own(out)


def _contiguous(out, args):
    """out with each tensor made contiguous (a tuple for several results, as the schema returns)."""
    if isinstance(out, (tuple, list)):
        return tuple(_contiguous(o, args) for o in out)
    return out.contiguous() if isinstance(out, torch.Tensor) else out


def _elementwise(out, args):
    """out copied into the layout torch's elementwise kernels (TensorIterator) give its operands: that
    of eq on them, which takes every dtype (torch's own rule, not the meta rule's: tests compare them)."""
    operands = [a for a in args if isinstance(a, torch.Tensor)]
    layout = torch.eq(operands[0], operands[-1])
    return torch.empty_like(layout, dtype=out.dtype).copy_(out)


LAY_OUT = {"contiguous": _contiguous, "elementwise": _elementwise}   # catalog field `layout` -> what registration does
assert set(LAY_OUT) == LAYOUTS, "prims.loader.LAYOUTS and registration.LAY_OUT name the same layouts"


def laid_out_impl(prim):
    """The prim's reference implementation with its results in the entry's ``layout`` (no meta check,
    no copy of results that share an input's storage): what the reference backend and the executor run."""
    impl = resolve_impl(prim.impl)
    if not prim.layout:
        return impl
    lay_out = LAY_OUT[prim.layout]

    def laid_out(*args, **kwargs):
        return lay_out(impl(*args, **kwargs), args)
    laid_out.__name__ = laid_out.__qualname__ = f"{prim.name}_{prim.layout}"
    return laid_out


def _real_kernel(prim):
    impl = laid_out_impl(prim)

    def kernel(*args, **kwargs):
        run_meta(prim, args, kwargs)    # strict checks, same errors as under fake tensors
        return unalias(impl(*args, **kwargs), args, kwargs)
    kernel.__name__ = f"{prim.name}_kernel"
    return kernel


def _dense(t) -> bool:
    """t's strides are known to be dense: non-overlapping and dense, or contiguous by their expressions (an out=
    tensor resized to sizes read from data, whose density no guard can decide)."""
    return is_non_overlapping_and_dense(t.shape, t.stride()) or same_sizes(t.stride(), contiguous_strides(t.shape))


def _functionalized_copy_to(prim):
    """copy_to under functionalization (torch.export, AOTAutograd, ``trace``): dst's value becomes
    src's. A decomposition that runs above functionalization (a CompositeImplicitAutograd entry,
    batch norm's update of its running statistics) writes with copy_to into functional tensors."""
    functionalize = torch._C.DispatchKeySet(torch._C.DispatchKey.Functionalize)

    def kernel(dst, src):
        if not torch._is_functional_tensor(dst):
            if torch._is_functional_tensor(src):   # torch's words for its own in-place ops
                raise RuntimeError("copy_to: mutating a non-functional tensor with a functional tensor is not "
                                   "allowed: dst is not one of the functionalized program's tensors")
            with torch._C._ExcludeDispatchKeyGuard(functionalize):
                return prim_op(dst, src)
        if torch._is_functional_tensor(src):
            torch._sync(src)
            src = torch._from_functional_tensor(src)
        torch._sync(dst)
        inner = torch._from_functional_tensor(dst)
        run_meta(prim, (inner, src), {})
        # the written tensor keeps its layout (as torch's functional copy does): a dense dst takes src's
        # values in dst's strides; a strided view's value is scattered into its base by the replay
        if not same_sizes(src.stride(), inner.stride()) and _dense(inner):
            with torch._C._ExcludeDispatchKeyGuard(functionalize):
                src = getattr(torch.ops, NAMESPACE).copy_strided.default(src, list(inner.stride()))
        torch._functionalize_replace(dst, src)
        torch._functionalize_commit_update(dst)
        torch._functionalize_sync(dst)
        return dst
    prim_op = getattr(getattr(torch.ops, NAMESPACE), prim.name).default
    return kernel


def library():
    """The torch.library.Library holding the prims (for registrations made after import)."""
    return _LIB


def register_all(catalog) -> tuple[PrimDef, ...]:
    """Define each prim once per process; returns the PrimDefs with ``op`` filled in."""
    global _LIB
    from dataclasses import replace
    if _LIB is None:
        _LIB = torch.library.Library(NAMESPACE, "DEF")
        for prim in catalog:
            _LIB.define(prim.schema, tags=tuple(t for tag in sorted(prim.tags) for t in TORCH_TAGS.get(tag, ())))
            _LIB.impl(prim.name, _real_kernel(prim), "CompositeExplicitAutograd")
            torch.library.register_fake(f"{NAMESPACE}::{prim.name}", _fake_kernel(prim), lib=_LIB)
            if prim.name == "copy_to":   # the one mutating prim
                _LIB.impl(prim.name, _functionalized_copy_to(prim), "Functionalize")
        autograd.register_all(catalog, _LIB)    # after every define: formulas call other prims
        for prim in catalog:
            if prim.tags & SIDE_EFFECT_TAGS:
                torch.fx.node.has_side_effect(getattr(getattr(torch.ops, NAMESPACE), prim.name).default)
    ns = getattr(torch.ops, NAMESPACE)
    return tuple(replace(p, op=getattr(ns, p.name).default) for p in catalog)
