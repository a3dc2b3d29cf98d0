"""The OpInfo database, run: every entry x dtype x device.

- test_trace_and_values: the trace is prim-only; its result equals eager within the dtype's
  tolerance, with eager's shape and dtype.
- test_strides: the result's significant strides equal eager's.
- test_errors: each error input raises eager's exception type under eager and under primkit.
- test_inplace / test_out: the in-place and out= variants, through their decompositions.
- test_empty_leading_dim: for entries none of whose samples holds a tensor of no elements, one sample
  with its leading (batch) dim emptied, traced once, equals eager (shape, dtype, values) (issue 31).
- test_empty_last_dim: the same with the last dim emptied (a dim that is not a batch).
- test_prim_meta: for prims, the meta rule's geometry equals the reference implementation's.
- test_gradients: for entries that support autograd, in float64, the gradients of the traced prim
  graph (each prim's derivative formula from the catalog) equal eager autograd's. Where eager's
  autograd refuses a sample, primkit either refuses too or its gradient passes gradcheck
  (finite differences of the traced graph are then the reference); opinfo.gradients names the
  entries compared on Hermitian perturbations and those whose eager reference is taken at
  shifted inputs.

Samples: test_trace_and_values, test_strides and test_gradients run every sample of an entry
under its full dtype (opinfo.harness.FULL_DTYPES: float64, else float32, else its first); under
its other dtypes (float32, float16, bfloat16, integers, bool, complex) the value tests run a subset
of DTYPE_SAMPLES that keeps the extremal-value, layout and mixed-dtype samples, the in-place test
runs VARIANT_SAMPLES (half as many under those dtypes), and the out= test runs VARIANT_SAMPLES
under the full dtype only. Tracing is nearly all of the suite's time; this keeps it within its
30-minute budget on two cores.
"""
from __future__ import annotations

import contextlib
import re
import warnings

import pytest
import torch
import torch.utils._pytree as pytree
from torch.autograd.gradcheck import GradcheckError

from primkit import opinfo
from primkit.opinfo import known_failures
from primkit.graph import trace
from primkit.opinfo.gradients import EAGER_REFERENCE_INPUTS, HERMITIAN_INPUT
from primkit.opinfo.samples import empty_last_dim, empty_leading_dim, has_empty_tensor
from primkit.opinfo.core import SampleInput
from primkit.opinfo.harness import (
    DTYPE_SAMPLES, VARIANT_SAMPLES, as_function, call, check_meta_matches_real, clone_sample, fake_call,
    significant_strides, trace_calls, trace_sample, trace_samples, traces_every_sample, variant_samples,
)
from primkit.prims.autograd import NotDifferentiableError

from conftest import devices, xfail_mark


def _id(x):
    return str(x).replace("torch.", "")


def _params(config, test, *, prims=None, per_dtype=True, want=None, only_dtypes=None, full_dtypes_only=False):
    out = []
    for entry in opinfo.op_db:
        if prims is not None and entry.is_prim != prims:
            continue
        if want is not None and not want(entry):
            continue
        for device in devices(config):
            dts = sorted(entry.supported_dtypes(device), key=str) if per_dtype else [None]
            if only_dtypes is not None:
                dts = [d for d in dts if d in only_dtypes]
            if full_dtypes_only:
                dts = [d for d in dts if traces_every_sample(d, entry.supported_dtypes(device))]
            for dtype in dts:
                marks = [pytest.mark.xdist_group(entry.name)]
                xf = entry.xfail_for(test, dtype, device)
                if xf is not None:
                    marks.append(xfail_mark(xf))
                crashed = known_failures.crash(entry.name, test, dtype, device)
                if crashed:
                    marks.append(pytest.mark.skip(reason=crashed))
                out.append(pytest.param(entry, dtype, device, marks=marks,
                                        id=f"{entry.name}-{_id(dtype)}-{device}" if per_dtype else
                                        f"{entry.name}-{device}"))
    return out


def _has_errors(entry):
    # A prim whose every constraint needs a second operand or device has none to violate alone.
    return entry.error_inputs is not None and any(True for _ in entry.errors("cpu"))


def pytest_generate_tests(metafunc):
    name = metafunc.function.__name__
    cfg = metafunc.config
    table = {
        "test_trace_and_values": dict(test="values", prims=False),
        "test_strides": dict(test="strides", prims=False),
        "test_errors": dict(test="errors", per_dtype=False, want=_has_errors),
        "test_inplace": dict(test="inplace", prims=False, want=lambda e: e.inplace is not None),
        # out= is one wrapper (write_into) whatever the dtype: checked in the dtype whose values are
        # traced on every sample (float64, else float32, else the entry's first); test_trace_and_values
        # covers the other dtypes' values.
        "test_out": dict(test="out", prims=False, want=lambda e: e.supports_out, full_dtypes_only=True),
        "test_prim_meta": dict(test="meta", prims=True),
        "test_empty_leading_dim": dict(test="empty", prims=False, want=lambda e: not e.seeded, full_dtypes_only=True),
        "test_empty_last_dim": dict(test="empty_last", prims=False, want=lambda e: not e.seeded, full_dtypes_only=True),
        "test_gradients": dict(test="gradients", prims=False, want=lambda e: e.supports_autograd,
                               only_dtypes={torch.float64}),
    }
    if name in table:
        metafunc.parametrize("entry,dtype,device", _params(cfg, **table[name]))


def _samples(entry, device, dtype):
    samples = list(entry.samples(device, dtype))
    assert samples, f"{entry.name}: no samples for {dtype} on {device}"
    return samples


def _value_samples(entry, device, dtype):
    """The samples test_trace_and_values and test_strides compare: every one under the entry's full
    dtype (opinfo.harness.FULL_DTYPES) and where either test is a known failure (so the failing
    sample stays in, and its fix shows up); else the DTYPE_SAMPLES subset."""
    samples = _samples(entry, device, dtype)
    if traces_every_sample(dtype, entry.supported_dtypes(device)) or \
            any(entry.xfail_for(test, dtype, device) for test in ("values", "strides")):
        return samples
    return variant_samples(samples, DTYPE_SAMPLES)


def assert_same(actual, expected, entry, dtype, sample, what="result"):
    a_leaves, e_leaves = pytree.tree_leaves(actual), pytree.tree_leaves(expected)
    assert len(a_leaves) == len(e_leaves), f"{what}: {len(a_leaves)} outputs, eager has {len(e_leaves)}"
    atol, rtol = entry.tolerance(dtype)
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves, strict=True)):
        if not isinstance(e, torch.Tensor):
            assert a == e, f"{what}[{i}] {a!r} != eager {e!r} for {sample}"
            continue
        assert a.shape == e.shape, f"{what}[{i}] shape {tuple(a.shape)} != eager {tuple(e.shape)} for {sample}"
        assert a.dtype == e.dtype, f"{what}[{i}] dtype {a.dtype} != eager {e.dtype} for {sample}"
        torch.testing.assert_close(a, e, atol=atol, rtol=rtol, equal_nan=True,
                                   msg=lambda m: f"{what}[{i}] differs from eager for {sample}:\n{m}")


# Stride mismatches seen by test_trace_and_values, so test_strides need not trace again. Both
# tests of an entry run on one worker (xdist_group + loadgroup, see conftest); without a record,
# test_strides traces for itself.
_STRIDES_SEEN: dict = {}

def _stride_mismatches(actual, expected, sample) -> list:
    return [f"{sample}: strides {a.stride()} != eager {e.stride()}"
            for a, e in zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected), strict=True)
            if isinstance(e, torch.Tensor) and significant_strides(a) != significant_strides(e)]


# float64 joint traces kept for test_gradients (same worker, run after this test), popped there.
_TRACES: dict = {}


def _eager(op, sample, **extra):
    try:
        return call(op, sample, **extra)
    except Exception as e:   # a sample eager rejects is a bug in the sample generator
        raise AssertionError(f"eager rejects {sample}: {type(e).__name__}: {e}") from e


SEED = 1234     # for the entries that draw from torch's generator (OpInfo.seeded)


def _seeding(entry):
    """For a seeded entry, the default generator set to SEED; the caller's state is restored after."""
    if not entry.seeded:
        return contextlib.nullcontext()
    return _seeded()


@contextlib.contextmanager
def _seeded():
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(SEED)
        yield


def _traced_results(entry, dtype, device):
    """(samples, eager results, traced results, joint trace, each sample's tensors). A seeded entry's
    eager calls and graph both start from SEED and draw sample after sample in the same order."""
    samples = _value_samples(entry, device, dtype)
    with _seeding(entry):
        expected = [_eager(entry.op, s) for s in samples]
    joint, tensors = trace_samples(entry.op, samples)
    with _seeding(entry):
        actual = joint.run(tensors)
    return samples, expected, actual, joint, tensors


def test_trace_and_values(entry, dtype, device):
    samples, expected, actual, joint, tensors = _traced_results(entry, dtype, device)
    # Strides are recorded before values are compared: a values failure (a strict xfail) must not
    # make test_strides trace the same samples again.
    _STRIDES_SEEN[(entry.name, dtype, device)] = [
        m for sample, a, e in zip(samples, actual, expected, strict=True) for m in _stride_mismatches(a, e, sample)]
    if dtype == torch.float64 and entry.supports_autograd:
        _TRACES[(entry.name, device)] = joint
    for sample, a, e in zip(samples, actual, expected, strict=True):
        assert_same(a, e, entry, dtype, sample)


def _accepted_by_eager(op, sample) -> bool:
    try:
        call(op, sample)
    except Exception:   # noqa: BLE001 - an emptied sample eager refuses is no case (test_errors checks errors)
        return False
    return True


def test_empty_leading_dim(entry, dtype, device):
    """The decompositions whose samples hold no empty tensor, on one sample emptied along its leading dim (the
    first one eager accepts so): a size-0 batch gives eager's shape (``_trilinear`` gave (1, 2, 6) for (0, 2, 6)).
    One trace per entry; an entry with an empty sample of its own is test_trace_and_values' case."""
    _check_emptied(entry, dtype, device, empty_leading_dim)


def test_empty_last_dim(entry, dtype, device):
    """As test_empty_leading_dim, with the last dim emptied (of an input with another dim before it): a size-0 dim
    that is not a batch (features, a reduced or contracted dim) gives eager's shape and values."""
    _check_emptied(entry, dtype, device, empty_last_dim)


def _check_emptied(entry, dtype, device, emptying):
    samples = _samples(entry, device, dtype)
    if any(has_empty_tensor(s) for s in samples):
        return
    emptied = (emptying(s) for s in samples)
    sample = next((v for v in emptied if v is not None and _accepted_by_eager(entry.op, v)), None)
    if sample is None:
        return
    expected = _eager(entry.op, sample)
    gm, tensors = trace_sample(entry.op, sample)
    assert_same(gm(*tensors), expected, entry, dtype, sample)


def test_empty_leading_dim_leaves_indices_valid():
    """The sweep empties no data that a whole integer tensor indexes: take_along_dim's (7,) indices into a (4, 5)
    input, embedding_bag's offsets into its emptied indices (eager's CUDA kernels fail on them with a device-side
    assert that poisons the process's CUDA context). Indices emptied with their data, or none, still make a case."""
    x, idx = torch.randn(4, 5), torch.tensor([0, 3, 19, 7, 2, 11, 4])
    assert empty_leading_dim(SampleInput(x, (idx,))) is None
    assert empty_leading_dim(SampleInput(torch.tensor([1, 2, 4, 5]), (torch.randn(10, 3), torch.tensor([0, 2])))) \
        is None
    both = empty_leading_dim(SampleInput(x, (torch.zeros(4, 2, dtype=torch.int64), 1)))
    assert both is not None and both.input.shape == (0, 5) and both.args[0].shape == (0, 2)
    plain = empty_leading_dim(SampleInput(x, (torch.randn(5), torch.tensor(True))))
    assert plain is not None and plain.input.shape == (0, 5) and plain.args[0].shape == (5,)


def test_pixel_unshuffle_of_an_empty_input_follows_its_devices_kernel():
    """Eager's CPU kernel copies an empty input (shape unchanged); the composite kernel CUDA runs unshuffles it, as
    meta's does (the first CUDA run saw the decomposition match CUDA's eager there). The decomposition follows each;
    a meta tensor stands in for CUDA on a machine without one."""
    from primkit.decompositions.nn.shuffle import pixel_unshuffle
    for device in ("cpu", "meta"):
        a = torch.randn(0, 2, 4, 6, device=device)
        assert pixel_unshuffle(a, 2).shape == torch.nn.functional.pixel_unshuffle(a, 2).shape, device


def test_adaptive_avg_pool_backward_of_no_output():
    """A grad_output with an empty output dim (the gradient of adaptive_avg_pool2d to output_size (2, 0)) flows into
    no input element: zeros of the input's shape, as eager's CUDA kernel gives (CUDA run 5's empty-last-dim sweep;
    eager's CPU kernel refuses the empty grad_output). The bins of an empty output dim were max() of nothing."""
    a = torch.randn(2, 3, 8, 8, dtype=torch.float64)
    sample = SampleInput(torch.randn(2, 3, 2, 0, dtype=torch.float64), (a,))
    gm, tensors = trace_sample(torch.ops.aten._adaptive_avg_pool2d_backward.default, sample)
    assert torch.equal(gm(*tensors), torch.zeros_like(a))


def test_strides(entry, dtype, device):
    mismatches = _STRIDES_SEEN.pop((entry.name, dtype, device), None)
    if mismatches is None:
        samples, expected, actual, _, _ = _traced_results(entry, dtype, device)
        mismatches = [m for s, a, e in zip(samples, actual, expected, strict=True) for m in _stride_mismatches(a, e, s)]
    assert not mismatches, "\n".join(mismatches)


def test_errors(entry, dtype, device):
    errors = list(entry.errors(device))
    assert errors, f"{entry.name}: error_inputs yielded nothing"
    for err in errors:
        s = err.sample
        if not entry.is_prim:
            with pytest.raises(err.error_type, match=err.match or None):
                call(entry.op, s)
            fn, tensors = as_function(entry.op, s)
            with pytest.raises(err.error_type) as info:
                trace(fn, *tensors)
            assert str(info.value), f"{entry.name}: empty error message for {s}"
        else:
            # A prim's constraint is checked by its meta rule under real and fake tensors alike.
            with pytest.raises(err.error_type, match=re.escape(err.match)):
                call(entry.op, s)
            with pytest.raises(err.error_type, match=re.escape(err.match)):
                fake_call(entry.op, s)


def _variant_samples(entry, test, dtype, device):
    """The samples of the in-place and out= tests: a layout-spread subset (half as many under the
    dtypes whose values test_trace_and_values checks on a subset), or every sample where the test
    is a known failure (so the failing sample stays in, and its fix shows up)."""
    samples = _samples(entry, device, dtype)
    if entry.xfail_for(test, dtype, device):
        return samples
    full = traces_every_sample(dtype, entry.supported_dtypes(device))
    return variant_samples(samples, VARIANT_SAMPLES if full else VARIANT_SAMPLES // 2)


def test_inplace(entry, dtype, device):
    accepted = []    # (sample, its eager copy, its traced copy, eager's result)
    for sample in _variant_samples(entry, "inplace", dtype, device):
        s_eager, s_traced = clone_sample(sample), clone_sample(sample)
        try:
            expected = call(entry.inplace, s_eager)
        except Exception as e:
            # Eager rejects this variant here (e.g. an int tensor cannot hold exp's float result):
            # primkit must reject it with the same exception type.
            with pytest.raises(type(e)):
                gm, tensors = trace_sample(entry.inplace, s_traced)
                gm(*tensors)
            continue
        accepted.append((sample, s_eager, s_traced, expected))
    if not accepted:
        return
    joint, tensors = trace_samples(entry.inplace, [a[2] for a in accepted])
    for (sample, s_eager, s_traced, expected), actual in zip(accepted, joint.run(tensors), strict=True):
        assert_same(actual, expected, entry, dtype, sample)
        assert_same(s_traced.input, s_eager.input, entry, dtype, sample, what="mutated input")


def _out_call(op, sample, outs, as_list):
    """(fn, tensors): fn(*outs, *sample tensors) calls op on the sample with ``out=`` (outs[0], or the
    list of outs where the op writes several: split_copy, unbind_copy, max.dim, ...)."""
    tensors = as_function(op, sample)[1]

    def with_out(*ts):
        out = list(ts[:len(outs)]) if as_list else ts[0]
        return as_function(op, sample, out=out)[0](*ts[len(outs):])
    with_out.__name__ = getattr(op, "__name__", "op")
    return with_out, [*outs, *tensors]


def _filled_like(t):
    # A fixed fill (not empty memory, which may happen to hold the answer): a write that does not
    # reach out shows.
    return torch.full_like(t, float("nan") if t.is_floating_point() or t.is_complex() else 1)


def test_out(entry, dtype, device):
    checked = []    # (sample, eager's outs, primkit's outs, eager's return value)
    calls = []
    for sample in _variant_samples(entry, "out", dtype, device):
        expected = call(entry.op, sample)
        as_list = not isinstance(expected, torch.Tensor)
        if as_list and not (isinstance(expected, (tuple, list)) and expected
                            and all(isinstance(t, torch.Tensor) for t in expected)):
            continue
        expected = list(expected) if as_list else [expected]
        outs_e = [torch.empty_like(t) for t in expected]
        outs_t = [_filled_like(t) for t in expected]
        returned = call(entry.op, sample, out=outs_e if as_list else outs_e[0])
        checked.append((sample, outs_e, outs_t, returned))
        calls.append(_out_call(entry.op, sample, outs_t, as_list))
    assert calls, f"{entry.name}: no sample gives a tensor output to write into out="
    results = trace_calls(calls, [str(c[0]) for c in checked]).run([ts for _, ts in calls])
    for (sample, outs_e, outs_t, returned), result in zip(checked, results, strict=True):
        assert len(outs_t) == len(outs_e)
        for i, (out_t, out_e) in enumerate(zip(outs_t, outs_e)):
            assert_same(out_t, out_e, entry, dtype, sample, what=f"out[{i}]")
            assert significant_strides(out_t) == significant_strides(out_e), \
                f"out[{i}] strides {out_t.stride()} != eager {out_e.stride()} for {sample}"
        # What the call returns: eager returns its out tensors (or None: split_copy, unbind_copy);
        # the graph returns the values it wrote into them, one per out tensor.
        if returned is None:
            assert result is None, f"eager returns None, primkit {result!r}: {sample}"
            continue
        got = pytree.tree_leaves(result)
        assert len(got) == len(outs_t), f"primkit returns {len(got)} tensors for {len(outs_t)} out tensors: {sample}"
        assert_same(got, outs_t, entry, dtype, sample, what="returned")
    known = known_failures.OUT_RESIZE.get(entry.name)
    with pytest.raises(known[0]) if known else contextlib.nullcontext():
        _check_out_resized(entry, dtype, checked[0][0], as_list=not isinstance(checked[0][3], torch.Tensor))


def _wrongly_shaped(t, filled):
    """An out tensor of another shape than t's: one more element, 1-d (empty where ``filled`` is None)."""
    shape = (t.numel() + 1,) if filled is not None else (0,)
    return _filled_like(torch.empty(shape, dtype=t.dtype, device=t.device))


def _check_out_resized(entry, dtype, sample, as_list):
    """Eager resizes an out= tensor of another shape (at::native::resize_output: with a UserWarning where it
    had elements; an empty one silently); so does the traced graph's module, at each call. One sample."""
    expected = call(entry.op, sample)
    expected = list(expected) if as_list else [expected]
    for filled in (True, None):
        outs_e = [_wrongly_shaped(t, filled) for t in expected]
        outs_t = [_wrongly_shaped(t, filled) for t in expected]
        fn, tensors = _out_call(entry.op, sample, outs_t, as_list)
        with warnings.catch_warnings(record=True) as warned_e:
            warnings.simplefilter("always")
            try:
                call(entry.op, sample, out=outs_e if as_list else outs_e[0])
            except Exception as e:   # eager refuses (split_copy's outs are checked, not resized): so must primkit
                with pytest.raises(type(e)), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    trace(fn, *tensors)(*tensors)
                continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # the trace's own warning: what the call warns is compared below
            gm = trace(fn, *tensors)
        with warnings.catch_warnings(record=True) as warned_t:
            warnings.simplefilter("always")
            gm(*tensors)
        for i, (out_t, out_e) in enumerate(zip(outs_t, outs_e, strict=True)):
            assert out_t.shape == out_e.shape, f"resized out[{i}] has shape {tuple(out_t.shape)}, eager's " \
                                               f"{tuple(out_e.shape)}: {sample}"
            assert_same(out_t, out_e, entry, dtype, sample, what=f"resized out[{i}]")
            assert significant_strides(out_t) == significant_strides(out_e), \
                f"resized out[{i}] strides {out_t.stride()} != eager {out_e.stride()} for {sample}"
        def resized(ws):
            return any(issubclass(w.category, UserWarning) and "resized" in str(w.message) for w in ws)
        # primkit warns wherever eager does (resize_output); a few eager kernels resize silently (addbmm's
        # resize_as_), where primkit's one out= wrapper warns too
        assert resized(warned_t) or not resized(warned_e), \
            f"eager warns on resizing out (of elements), primkit does not: {sample}"
        if not filled:
            assert not resized(warned_t), f"primkit warns on resizing an empty out, eager does not: {sample}"


def test_prim_meta(entry, dtype, device):
    dynamic = "data_dependent" in entry.prim.tags
    for sample in _samples(entry, device, dtype):
        real = call(entry.op, sample)
        check_meta_matches_real(fake_call(entry.op, sample, dynamic_output=dynamic), real, f"{entry.name} on {sample}")


def _differentiable(tensors, only_first=False):
    """Fresh leaves over the sample's tensors (same storage and strides); floating ones require grad
    (only the first, the op's ``input``, with ``only_first``)."""
    return [t.detach().requires_grad_((t.is_floating_point() or t.is_complex()) and (i == 0 or not only_first))
            for i, t in enumerate(tensors)]


def _vjp(outputs, inputs, seed):
    """Gradients of sum(re(output * fixed random cotangent)) over the outputs that require grad,
    with respect to the inputs that require grad (zeros where one does not reach the outputs);
    None when no output requires grad."""
    loss = _vjp_loss(outputs, seed)
    if loss is None:
        return None
    wanted = [t for t in inputs if t.requires_grad]
    grads = torch.autograd.grad(loss, wanted, allow_unused=True, retain_graph=True)
    return [torch.zeros_like(t) if g is None else g for t, g in zip(wanted, grads, strict=True)]


def _vjp_loss(outputs, seed):
    """sum(re(output * fixed random cotangent)) over the outputs that require grad (None where none does):
    the loss whose gradient _vjp takes."""
    outs = [o for o in pytree.tree_leaves(outputs) if isinstance(o, torch.Tensor) and o.requires_grad]
    if not outs:
        return None
    gen = torch.Generator(device=outs[0].device).manual_seed(seed)
    return sum((o * torch.randn(o.shape, dtype=o.dtype, device=o.device, generator=gen)).real.sum() for o in outs)


def _finite(tensors) -> bool:
    return all(bool(torch.isfinite(t).all()) for t in tensors if t.is_floating_point() or t.is_complex())


def _check_where_eager_refuses(joint, inputs, outputs, i, sample, eager_error) -> bool:
    """Eager's autograd raised on sample i (a mode it does not differentiate, a loss it calls
    ill-defined, its own defect). primkit may refuse too (its derivative raises); otherwise its
    gradient must pass gradcheck against finite differences of the traced graph. True when a
    gradient was checked."""
    try:
        _vjp(outputs[i], inputs[i], seed=i)
    except (NotDifferentiableError, NotImplementedError):
        return False             # both refuse, primkit by design (another error is a defect)
    wanted = [k for k, t in enumerate(inputs[i]) if t.requires_grad]
    inexact = [k for k, o in enumerate(pytree.tree_leaves(outputs[i]))
               if isinstance(o, torch.Tensor) and (o.is_floating_point() or o.is_complex()) and o.numel()]
    if not wanted or not inexact:
        return False             # nothing to differentiate (an integer or empty result)

    def sample_i(*leaves):
        tensors = list(inputs[i])
        for k, t in zip(wanted, leaves, strict=True):
            tensors[k] = t
        run = joint.run([tensors if j == i else ts for j, ts in enumerate(inputs)])
        leaves_out = pytree.tree_leaves(run[i])
        return tuple(leaves_out[k] for k in inexact)
    # gradcheck perturbs its inputs element by element: it takes them dense (the graph computes
    # the same values from any layout).
    leaves = [inputs[i][k].detach().contiguous().requires_grad_() for k in wanted]
    try:
        torch.autograd.gradcheck(sample_i, leaves, fast_mode=True)
    except GradcheckError as e:
        raise AssertionError(f"eager refuses the gradient of {sample} ({eager_error}); primkit's fails "
                             f"gradcheck:\n{e}") from None
    return True


def test_gradients(entry, dtype, device):
    samples = _samples(entry, device, dtype)
    joint = _TRACES.pop((entry.name, device), None)
    calls = [as_function(entry.op, s) for s in samples]
    if joint is None:
        joint = trace_calls(calls, [str(s) for s in samples])
    expected, refused, traced_inputs = {}, {}, []
    for i, (fn, tensors) in enumerate(calls):
        # At inf and nan, each eager kernel's gradient follows its own convention (0, nan, or the
        # one-sided limit); gradients are compared where the inputs are finite.
        if not _finite(tensors):
            traced_inputs.append(list(tensors))
            continue
        only_first = False
        eager_inputs = _differentiable(tensors)
        at = EAGER_REFERENCE_INPUTS.get(entry.name, lambda sample, ts: ts)   # where eager's gradient is exact
        try:
            expected[i] = _vjp(fn(*at(samples[i], eager_inputs)), eager_inputs, seed=i)
        except RuntimeError as e:
            # Eager differentiates some ops in their input only (a loss's weight or target, batch
            # norm's running statistics must not require grad): then so does this test.
            if "requires_grad" in str(e) or "not differentiable with respect to" in str(e):
                only_first, eager_inputs = True, _differentiable(tensors, only_first=True)
                expected[i] = _vjp(fn(*at(samples[i], eager_inputs)), eager_inputs, seed=i)
            else:
                refused[i] = e    # eager has no gradient here: finite differences are the reference
        traced_inputs.append(_differentiable(tensors, only_first=only_first))
    outputs = joint.run(traced_inputs)     # one run; each sample's gradient from its own outputs
    checked = 0
    for i, sample in enumerate(samples):
        if i in refused:
            checked += _check_where_eager_refuses(joint, traced_inputs, outputs, i, sample, refused[i])
            continue
        if i not in expected:
            continue
        want, got = expected[i], _vjp(outputs[i], traced_inputs[i], seed=i)
        if want is None and got is None:
            continue          # nothing differentiable here (an integer result, a constant)
        if want is None or got is None:   # one side is constant in the inputs: its gradient is zero
            zeros = [torch.zeros_like(t) for t in traced_inputs[i] if t.requires_grad]
            want, got = want or zeros, got or zeros
        atol, rtol = entry.tolerance(dtype)
        if entry.name in HERMITIAN_INPUT:    # compared on Hermitian perturbations (opinfo.gradients)
            got = [(g + g.mH) / 2 if k == 0 else g for k, g in enumerate(got)]
        for k, (a, e) in enumerate(zip(got, want, strict=True)):
            torch.testing.assert_close(a, e, atol=atol, rtol=rtol, equal_nan=True,
                                       msg=lambda m, k=k: f"gradient of input {k} differs from eager for {sample}:\n{m}")
        checked += 1
    assert checked, (f"{entry.name}: no sample with finite inputs has an output that requires grad: declare the "
                     "entry supports_autograd=False")
