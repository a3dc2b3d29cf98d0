"""The OpInfo database, run: every entry x dtype x device.

- test_trace_and_values: the trace is prim-only; its result equals eager within the dtype's
  tolerance, with eager's shape and dtype.
- test_strides: the result's significant strides equal eager's.
- test_errors: each error input raises eager's exception type under eager and under primkit.
- test_inplace / test_out: the in-place and out= variants, through their decompositions.
- test_prim_meta: for prims, the meta rule's geometry equals the reference implementation's.
"""
from __future__ import annotations

import re

import pytest
import torch
import torch.utils._pytree as pytree

import opinfo
from decompositions import trace
from opinfo.harness import (
    as_function, call, clone_sample, fake_call, significant_strides, trace_sample,
)

from conftest import devices


def _id(x):
    return str(x).replace("torch.", "")


def _params(config, test, *, prims=None, per_dtype=True, want=None):
    out = []
    for entry in opinfo.op_db:
        if prims is not None and entry.is_prim != prims:
            continue
        if want is not None and not want(entry):
            continue
        for device in devices(config):
            dts = sorted(entry.supported_dtypes(device), key=str) if per_dtype else [None]
            for dtype in dts:
                marks = [pytest.mark.xdist_group(entry.name)]
                xf = entry.xfail_for(test, dtype, device)
                if xf is not None:
                    marks.append(pytest.mark.xfail(strict=True, reason=xf.reason))
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
        "test_out": dict(test="out", prims=False, want=lambda e: e.supports_out),
        "test_prim_meta": dict(test="meta", prims=True),
    }
    if name in table:
        metafunc.parametrize("entry,dtype,device", _params(cfg, **table[name]))


def _need(device):
    if device.startswith("cuda") and not torch.cuda.is_available():
        pytest.skip("no CUDA device")


def _samples(entry, device, dtype):
    samples = list(entry.samples(device, dtype))
    assert samples, f"{entry.name}: no samples for {dtype} on {device}"
    return samples


def assert_same(actual, expected, entry, dtype, sample, what="result"):
    a_leaves, e_leaves = pytree.tree_leaves(actual), pytree.tree_leaves(expected)
    assert len(a_leaves) == len(e_leaves), f"{what}: {len(a_leaves)} outputs, eager has {len(e_leaves)}"
    atol, rtol = entry.tolerance(dtype)
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
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
            for a, e in zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected))
            if isinstance(e, torch.Tensor) and significant_strides(a) != significant_strides(e)]


def test_trace_and_values(entry, dtype, device):
    _need(device)
    mismatches = []
    for sample in _samples(entry, device, dtype):
        try:
            expected = call(entry.op, sample)
        except Exception as e:   # a sample eager rejects is a bug in the sample generator
            raise AssertionError(f"eager rejects {sample}: {type(e).__name__}: {e}") from e
        gm, tensors = trace_sample(entry.op, sample)
        actual = gm(*tensors)
        assert_same(actual, expected, entry, dtype, sample)
        mismatches += _stride_mismatches(actual, expected, sample)
    _STRIDES_SEEN[(entry.name, dtype, device)] = mismatches


def test_strides(entry, dtype, device):
    _need(device)
    mismatches = _STRIDES_SEEN.pop((entry.name, dtype, device), None)
    if mismatches is None:
        mismatches = []
        for sample in _samples(entry, device, dtype):
            expected = call(entry.op, sample)
            gm, tensors = trace_sample(entry.op, sample)
            mismatches += _stride_mismatches(gm(*tensors), expected, sample)
    assert not mismatches, "\n".join(mismatches)


def test_errors(entry, dtype, device):
    _need(device)
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


def _variant_matches_eager(entry, dtype, device, run_eager, run_traced):
    ran = 0
    for sample in _samples(entry, device, dtype):
        s_eager, s_traced = clone_sample(sample), clone_sample(sample)
        try:
            expected = run_eager(s_eager)
        except Exception as e:
            # Eager rejects this variant here (e.g. an int tensor cannot hold exp's float result):
            # primkit must reject it with the same exception type.
            with pytest.raises(type(e)):
                run_traced(s_traced)
            continue
        actual = run_traced(s_traced)
        assert_same(actual, expected, entry, dtype, sample)
        assert_same(s_traced.input, s_eager.input, entry, dtype, sample, what="mutated input")
        ran += 1
    return ran


def test_inplace(entry, dtype, device):
    _need(device)

    def traced(s):
        gm, tensors = trace_sample(entry.inplace, s)
        return gm(*tensors)
    _variant_matches_eager(entry, dtype, device, lambda s: call(entry.inplace, s), traced)


def test_out(entry, dtype, device):
    _need(device)
    for sample in _samples(entry, device, dtype):
        expected = call(entry.op, sample)
        if not isinstance(expected, torch.Tensor):
            continue
        out_e = torch.empty_like(expected)
        out_t = torch.empty_like(expected)
        call(entry.op, sample, out=out_e)

        def with_out(o, *ts):
            return as_function(entry.op, sample, out=o)[0](*ts)
        tensors = as_function(entry.op, sample)[1]
        gm = trace(with_out, out_t, *tensors)
        gm(out_t, *tensors)
        assert_same(out_t, out_e, entry, dtype, sample, what="out")


def _same_size(meta, real) -> bool:
    """A data-dependent (unbacked) size in the meta output stands for any real size."""
    return isinstance(meta, torch.SymInt) and not meta.node.has_hint() or meta == real


def test_prim_meta(entry, dtype, device):
    _need(device)
    dynamic = "data_dependent" in entry.prim.tags
    for sample in _samples(entry, device, dtype):
        real = call(entry.op, sample)
        fake = fake_call(entry.op, sample, dynamic_output=dynamic)
        for r, f in zip(pytree.tree_leaves(real), pytree.tree_leaves(fake)):
            if not isinstance(r, torch.Tensor):   # a Scalar output (item): the rule gives a SymBool/SymInt/SymFloat
                sym = {bool: torch.SymBool, int: torch.SymInt, float: torch.SymFloat}[type(r)]
                assert isinstance(f, (sym, type(r))), f"meta value {f!r} is not a {sym.__name__}: {sample}"
                continue
            assert len(f.shape) == len(r.shape) and all(map(_same_size, f.shape, r.shape)), \
                f"meta shape {tuple(f.shape)} != real {tuple(r.shape)}: {sample}"
            if dynamic and any(isinstance(s, torch.SymInt) for s in f.shape):
                assert f.dtype == r.dtype, f"meta dtype {f.dtype} != real {r.dtype}: {sample}"
                continue   # strides of an unbacked size are symbolic; shape and dtype are what the rule states
            assert f.dtype == r.dtype, f"meta dtype {f.dtype} != real {r.dtype}: {sample}"
            assert f.device.type == r.device.type, f"meta device {f.device} != real {r.device}: {sample}"
            assert significant_strides(f) == significant_strides(r), \
                f"meta strides {f.stride()} != real {r.stride()}: {sample}"
