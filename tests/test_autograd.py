"""Derivative formulas of the catalog against finite differences.

Every prim with a formula is gradchecked (float64, and complex128 where the prim takes it) on
its OpInfo samples, and gradgradchecked where its formula is itself differentiable; a prim that
says ``derivative: none`` raises NotDifferentiableError naming itself when a gradient is asked.

Cost bound: at most MAX_SAMPLES samples per prim and dtype (MAX_GRADGRAD for second order),
at most two per operand shape, each with at most MAX_NUMEL elements per operand; samples are
drawn under a fixed seed, so the filters below leave out the same samples on every run.
"""
from __future__ import annotations


import pytest
import torch

from primkit import opinfo, prims
from primkit.prims import autograd, kinks
from primkit.prims.autograd import NotDifferentiableError

MAX_SAMPLES, MAX_GRADGRAD, MAX_NUMEL = 4, 2, 60
GRAD_DTYPES = (torch.float64, torch.complex128)

DERIVATIVES = {p.name: p.derivative for p in prims.catalog() if p.derivative is not None}
ENTRIES = {e.prim.name: e for e in opinfo.op_db if e.is_prim}
DIFFERENTIABLE = sorted(n for n, d in DERIVATIVES.items() if d.differentiable)
# `derivative: constant` prims (stop_gradient): their value is their input, their derivative zero by
# design, so finite differences cannot check them; test_constant_prims does.
CONSTANT = sorted(n for n, d in DERIVATIVES.items() if d.constant)
# The constant prims that draw random numbers shaped after their operand (they read no value of it).
DRAWS = {"bernoulli_p": (0.5,), "exponential_p": (1.0,), "uniform_p": (0.0, 1.0), "normal_p": (0.0, 1.0)}
def _integer_list_arg(name, arg):
    """A Tensor[] argument (in the catalog, only integer start indices are Tensor[] and `none`): the
    one-tensor check below does not apply to it."""
    a = next(a for a in prims.get(name).op._schema.arguments if a.name == arg)
    return str(a.type) == "List[Tensor]"


def _inexact_tensor(x) -> bool:
    return isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())


def _first_sample_of(name):
    entry = ENTRIES[name]
    dtype = next(d for d in (torch.float64, torch.float32, torch.complex128) if d in entry.prim.dtypes)
    s = next(iter(entry.samples("cpu", dtype)))
    return [s.input, *s.args]


def _gives_inexact_output(name) -> bool:
    out = ENTRIES[name].op(*_first_sample_of(name))
    return any(_inexact_tensor(o) for o in (out if isinstance(out, (tuple, list)) else (out,)))


# `none` arguments that can require grad (index and mask arguments are integer or bool tensors).
NONE_ARGS = sorted((n, f.arg) for n, d in DERIVATIVES.items() for f in d.formulas if f.tree is None
                   and f.arg not in prims.get(n).params.get("arg_dtypes", {})   # a bool operand never requires grad
                   and not _integer_list_arg(n, f.arg)
                   and _inexact_tensor(_first_sample_of(n)[prims.get(n).arg_names.index(f.arg)]))
_NONE = sorted(n for n, d in DERIVATIVES.items() if not d.formulas and not d.constant)
# `none` prims whose result can require grad raise when asked for a gradient; the others (an index,
# bool or Python-number result from a floating input) give a result that does not require grad.
NONE_PRIMS = [n for n in _NONE if _gives_inexact_output(n)]
NONE_PRIMS_EXACT_OUTPUT = [n for n in _NONE if n not in NONE_PRIMS]


# Points where a prim has no derivative are its catalog `kinks` (prims/kinks.py): samples touching
# one are left out, with the kink's reason.


# Real float operands of a prim with a catalog `domain` are mapped linearly from make_tensor's [-9, 9]
# into the domain (kept 0.1, or a twentieth of a bounded width, inside its ends; unbounded ends at
# +-9) before the check (the mapped tensor is contiguous). CONDITIONING narrows an argument further
# where the values, though defined, make the check ill-conditioned.
CONDITIONING = {"pow": {"b": (-3.0, 3.0)}}


def _sample_range(low, high):
    margin = 0.1 if low is None or high is None else min(0.1, (high - low) / 20)
    return (-9.0 if low is None else low + margin), (9.0 if high is None else high - margin)


def _in_domain(name, args):
    prim = prims.get(name)
    ranges = {arg: _sample_range(*bounds) for arg, bounds in prim.domain.items()} | CONDITIONING.get(name, {})
    if not ranges:
        return args
    out = list(args)
    for i, arg in enumerate(prim.arg_names):
        t, r = out[i], ranges.get(arg)
        if r and isinstance(t, torch.Tensor) and t.is_floating_point():
            low, high = r
            out[i] = (low + (high - low) * (t.clamp(-9, 9) + 9) / 18).clamp(low, high)
    return tuple(out)


def _tensors(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (x for x in a if isinstance(x, torch.Tensor))


def _skip_reason(name, args, out):
    """Why a sample is left out of the derivative check, or None to keep it."""
    ts = list(_tensors(args))
    if any(t.numel() > MAX_NUMEL for t in ts):
        return f"operand larger than {MAX_NUMEL} elements (cost bound)"
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if any(t.device.type == "meta" for t in outs if isinstance(t, torch.Tensor)):
        return "a meta output (device_put to meta): no values for finite differences"
    if not any(t.is_floating_point() or t.is_complex() for t in outs):
        return "bool or integer output: nothing to differentiate"
    if not all(bool(torch.isfinite(t).all()) for t in [*ts, *outs] if t.is_floating_point() or t.is_complex()):
        return "non-finite input or output: finite differences are undefined there"
    return kinks.touches(prims.get(name), args)


def _samples(name, limit):
    """(dtype, args, kwargs) of up to ``limit`` kept samples per dtype: one per input shape first,
    the shapes spread over the sample list (so square and rectangular, batched and unbatched
    operands all get checked), then a second per shape; and the reasons samples were left out,
    counted (so nothing is dropped unseen)."""
    entry = ENTRIES[name]
    kept, skipped = [], {}
    torch.manual_seed(0)
    for dtype in GRAD_DTYPES:
        if dtype not in entry.prim.dtypes:    # the catalog's dtypes: the OpInfo tests fewer complex ones
            continue
        by_shape = {}       # operand shapes -> kept samples, in sample order
        for s in entry.samples("cpu", dtype):
            args = _in_domain(name, (s.input, *s.args))
            shape = tuple(tuple(t.shape) for t in _tensors(args))
            if len(by_shape.get(shape, ())) >= 2:
                continue
            with torch.no_grad():
                out = entry.op(*args, **s.kwargs)
            reason = _skip_reason(name, args, out)
            if reason:
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            by_shape.setdefault(shape, []).append((dtype, args, s.kwargs))
        # shapes spread over the list (generators walk square, then rectangular, ...); empty operands
        # only where too few others: finite differences have nothing to check there
        groups = [g for g in by_shape.values() if any(t.numel() for t in _tensors(g[0][1]))]
        if len(groups) > limit:
            groups = [groups[round(k * (len(groups) - 1) / (limit - 1))] for k in range(limit)]
        groups += [g for g in by_shape.values() if not any(t.numel() for t in _tensors(g[0][1]))]
        rounds = [[group[i] for group in groups if len(group) > i] for i in range(2)]
        kept.extend((rounds[0] + rounds[1])[:limit])
    return kept, skipped


def _leaf(value):
    """A leaf copy of ``value`` that requires grad. Its storage is copied whole, geometry kept, where
    the storage holds more than the tensor's own elements: as_strided reads the storage, not the view
    (a plain clone would shrink it to the view's extent and turn a valid sample into an error)."""
    value = value.detach()
    held = value.untyped_storage().nbytes() // value.element_size()
    if value.numel() == 0 or held == value.numel():
        return value.clone().requires_grad_()
    storage = torch.as_strided(value, (held,), (1,), 0).clone()
    return storage.as_strided(value.shape, value.stride(), value.storage_offset()).detach().requires_grad_()


def _grad_inputs(name, args):
    """The call as a function of the tensors a gradient is asked for (those with a formula)."""
    prim = prims.get(name)
    wanted = {f.arg for f in DERIVATIVES[name].formulas if f.tree is not None}
    inputs, slots = [], []
    for i, (arg, value) in enumerate(zip(prim.arg_names[:len(args)], args, strict=True)):
        if arg not in wanted or value is None:    # None: an absent optional tensor (convolution's bias)
            continue
        if isinstance(value, torch.Tensor):
            slots.append((i, None))
            inputs.append(_leaf(value))
        else:
            slots.append((i, len(value)))
            inputs.extend(v.detach().clone().requires_grad_() for v in value)

    def call(*tensors):
        full, k = list(args), 0
        for i, n in slots:
            if n is None:
                full[i], k = tensors[k], k + 1
            else:
                full[i], k = list(tensors[k:k + n]), k + n
        return prim.op(*full)
    return call, tuple(inputs)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradcheck(name):
    kept, skipped = _samples(name, MAX_SAMPLES)
    assert any(t.numel() for _, args, _ in kept for t in _tensors(args)), \
        f"primkit.{name}: no non-empty sample kept (left out: {skipped}); add samples at differentiable points"
    for dtype, args, kwargs in kept:
        fn, inputs = _grad_inputs(name, args)
        assert torch.autograd.gradcheck(fn, inputs), f"primkit.{name} {dtype}"


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradgradcheck(name):
    # torch's fallback for a prim without an autograd rule only warns ("silently incorrect"): fail first.
    uncovered = sorted(c for c in DERIVATIVES[name].calls if c not in autograd.HELPERS and c not in autograd.REGISTERED
                       and autograd.may_be_differentiable(prims.get(c).dtypes, prims.get(c).params))
    assert not uncovered, f"primkit.{name}: its formulas call {uncovered}, which have no derivative registered"
    kept, skipped = _samples(name, MAX_GRADGRAD)
    assert kept, f"primkit.{name}: every sample was left out ({skipped})"
    for dtype, args, kwargs in kept:
        fn, inputs = _grad_inputs(name, args)
        reached = prims.get(name).first_order_only    # its formulas call this `none` prim
        if reached:
            with pytest.raises(NotDifferentiableError, match=rf"primkit\.{reached}: not differentiable in "):
                torch.autograd.gradgradcheck(fn, inputs)
            return
        assert torch.autograd.gradgradcheck(fn, inputs), f"primkit.{name} {dtype}"


def _first_sample(name):
    entry = ENTRIES[name]
    dtype = next(d for d in (torch.float64, torch.float32, torch.complex128) if d in entry.prim.dtypes)
    s = next(iter(entry.samples("cpu", dtype)))
    return [s.input, *s.args]


@pytest.mark.parametrize("name", NONE_PRIMS_EXACT_OUTPUT)
def test_not_differentiable_exact_output_does_not_require_grad(name):
    args = _first_sample_of(name)
    args[0] = args[0].detach().clone().requires_grad_() if _inexact_tensor(args[0]) else args[0]
    out = ENTRIES[name].op(*args)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    assert not any(isinstance(o, torch.Tensor) and o.requires_grad for o in outs), name


@pytest.mark.parametrize("name", NONE_PRIMS)
def test_not_differentiable_prim_raises(name):
    args = _first_sample(name)
    args[0] = args[0].detach().clone().requires_grad_()
    out = ENTRIES[name].op(*args)
    out = out[0] if isinstance(out, (tuple, list)) else out
    with pytest.raises(NotDifferentiableError, match=rf"^primkit\.{name}: not differentiable$"):
        out.backward(torch.ones_like(out))


@pytest.mark.parametrize("name,arg", NONE_ARGS)
def test_not_differentiable_argument_raises(name, arg):
    args = _first_sample(name)
    i = prims.get(name).arg_names.index(arg)
    assert args[i].is_floating_point() or args[i].is_complex(), f"{name}: sample's '{arg}' is {args[i].dtype}"
    args[i] = args[i].detach().clone().requires_grad_()
    out = ENTRIES[name].op(*args)
    with pytest.raises(NotDifferentiableError, match=rf"^primkit\.{name}: not differentiable in '{arg}'$"):
        out.backward(torch.ones_like(out))


BOOL_OUTPUT = sorted(n for n, e in ENTRIES.items() if n in DERIVATIVES or e.prim.family == "elementwise_binary"
                     if not autograd.may_be_differentiable(e.prim.dtypes, e.prim.params)
                     and torch.float64 in e.prim.dtypes)


@pytest.mark.parametrize("name", BOOL_OUTPUT)
def test_bool_or_integer_output_does_not_require_grad(name):
    args = [a.detach().clone().requires_grad_() if isinstance(a, torch.Tensor) and a.is_floating_point() else a
            for a in _first_sample(name)]
    out = ENTRIES[name].op(*args)
    assert not any(t.requires_grad for t in (out if isinstance(out, (tuple, list)) else (out,)))


def test_backward_is_made_of_prims():
    """The backward graph of a formula holds only prims (so it is differentiable again where they are)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    a, b = torch.rand(3, dtype=torch.float64), torch.rand(3, dtype=torch.float64) + 1

    def f(a, b, g):
        a, b = a.requires_grad_(), b.requires_grad_()
        return torch.autograd.grad(torch.ops.primkit.div(a, b), (a, b), g)
    gm = make_fx(f)(a, b, torch.ones(3, dtype=torch.float64))
    # aten.detach is autograd's own bookkeeping of the saved inputs, not part of the formula
    targets = {n.target for n in gm.graph.nodes if n.op == "call_function"} - {torch.ops.aten.detach.default}
    assert targets and all(prims.is_prim(t) for t in targets), targets


def test_write_into_tensor_requiring_grad_is_named():
    """copy_to (a write) has no derivative: with grad enabled it refuses a dst that requires grad,
    naming prim and argument; under no_grad, or when nothing requires grad, it writes."""
    dst, src = torch.zeros(3, requires_grad=True), torch.ones(3)
    with pytest.raises(NotDifferentiableError, match=r"primkit.copy_to: writes into 'dst'"):
        torch.ops.primkit.copy_to(dst, src)
    with torch.no_grad():
        torch.ops.primkit.copy_to(dst, src)
    assert dst.tolist() == [1.0, 1.0, 1.0]
    plain = torch.zeros(3)
    torch.ops.primkit.copy_to(plain, src)
    assert plain.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("name", CONSTANT)
def test_constant_prims(name):
    """A `derivative: constant` prim gives its input's value (sizes and strides too) in a result that
    does not require grad: a product with it differentiates as a product with a constant, and a
    write into it (a running statistic updated from a training input) is not refused."""
    x = torch.randn(3, 4, dtype=torch.float64).t().requires_grad_()
    op = getattr(torch.ops.primkit, name)
    if name in DRAWS:
        _check_constant_draw(op, x, DRAWS[name])
        return
    y = op(x)
    assert not y.requires_grad and y.stride() == x.stride() and torch.equal(y, x.detach())
    (g,) = torch.autograd.grad(torch.ops.primkit.sum(torch.ops.primkit.mul(op(x), x), [0, 1]), x)
    assert torch.equal(g, x.detach())
    stats = torch.zeros(4, 3, dtype=torch.float64)
    torch.ops.primkit.copy_to(stats, op(torch.ops.primkit.mul(x, x)))
    assert torch.equal(stats, (x * x).detach())


def _check_constant_draw(op, x, args):
    """A draw shaped after x: no result requires grad, and a product with the draw differentiates as a
    product with a constant (the gradient with respect to x is the draw, replayed under the same seed)."""
    torch.manual_seed(0)
    y = op(x, *args)
    assert not y.requires_grad and y.shape == x.shape
    torch.manual_seed(0)
    (g,) = torch.autograd.grad(torch.ops.primkit.sum(torch.ops.primkit.mul(op(x, *args), x), [0, 1]), x)
    assert torch.equal(g, y)


SCATTERS = {"scatter": (), "scatter_add": (), **{f"scatter_reduce.{r}.{inc}": (r, inc)
                                                  for r in ("sum", "mean", "prod", "amax", "amin") for inc in (True, False)}}


@pytest.mark.parametrize("name", sorted(SCATTERS))
def test_scatter_src_larger_than_index(name):
    """A scatter reads only index's leading block of src: the rest of src gets zero gradient, in src's
    shape (eager's scatter backwards return index's shape there, which autograd rejects)."""
    gen = torch.Generator().manual_seed(0)
    a, src = (torch.randn(3, 4, 5, dtype=torch.float64, generator=gen).requires_grad_() for _ in range(2))
    # distinct positions along dim 1 (a plain scatter's lost writes get eager's gradient, not zero)
    index = torch.argsort(torch.rand(2, 3, 4, generator=gen), dim=1)
    op = getattr(torch.ops.primkit, name.split(".")[0])
    assert torch.autograd.gradcheck(lambda a, src: op(a, 1, index, src, *SCATTERS[name]), (a, src))
    (g,) = torch.autograd.grad(op(a, 1, index, src, *SCATTERS[name]).sum(), src)
    assert g.shape == src.shape and not g[2:].any() and not g[:, :, 4:].any()


# Matrix prims on 0 x 0 matrices (batched and not): the backward runs and gives an empty gradient
# (eig's phase adjustment once reduced over the empty rows, which argmax refuses).
EMPTY_MATRIX_CALLS = {
    "eig": lambda a: torch.ops.primkit.eig(a), "eigh": lambda a: torch.ops.primkit.eigh(a, False),
    "svd": lambda a: torch.ops.primkit.svd(a, False), "qr": lambda a: torch.ops.primkit.qr(a, "reduced"),
    "lu_factor": lambda a: torch.ops.primkit.lu_factor(a)[:1], "cholesky": lambda a: torch.ops.primkit.cholesky(a, False),
}


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0)])
@pytest.mark.parametrize("name", sorted(EMPTY_MATRIX_CALLS))
def test_empty_matrices_differentiate(name, shape):
    a = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
    out = EMPTY_MATRIX_CALLS[name](a)
    outs = [o for o in (out if isinstance(out, (tuple, list)) else (out,)) if o.requires_grad]
    assert outs, f"primkit.{name}: no output requires grad"
    (grad,) = torch.autograd.grad([o.abs().sum() for o in outs], [a], allow_unused=True, materialize_grads=True)
    assert grad.shape == a.shape
