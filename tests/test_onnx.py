"""ONNX export (primkit.export.onnx): prim graphs of the core set translated to ONNX and run by
onnxruntime's CPU provider.

- the translation table holds one translator per core prim, no more;
- every core prim, on its OpInfo samples (all dtypes the prim takes on CPU), equals the reference
  backend (torch.ops.primkit) within the entry's tolerance, with its dtype;
- every OpInfo entry of an ATen op, in float32: either exported and equal to eager, or an
  ExportError naming a prim outside the core set (an optional family: sorting, fft, random ...) or a
  complex value;
- the test zoo (tests/models.py) and transformers models: exported, equal to eager; with
  dynamic=True, run at a second batch size and sequence length;
- bad input: a clear ExportError naming the prim, its dtype and the module.

The samples of one entry and dtype are exported as one model (opinfo.harness.joint_call): a
session costs a fixed few milliseconds, and so does a trace.
"""
from __future__ import annotations

import re

import pytest
import torch
import torch.utils._pytree as pytree

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from primkit import opinfo  # noqa: E402
from primkit.decompositions.lowering import CORE_PRIMS  # noqa: E402
from primkit.export.onnx import ExportError, TRANSLATORS, run, to_onnx  # noqa: E402
from primkit.opinfo.harness import as_function, joint_call, variant_samples  # noqa: E402

from models import GPT2, zoo  # noqa: E402

CORE_ENTRIES = [e for e in opinfo.op_db if e.is_prim and e.prim.name in CORE_PRIMS]


def test_one_translator_per_core_prim():
    assert TRANSLATORS == CORE_PRIMS and len(TRANSLATORS) <= 64


# (prim, dtype) -> the ExportError's message: onnxruntime's CPU provider has no kernel at that dtype
# and no wider type computes it exactly (float64 Erf, Atan, Conv and ConvTranspose), or ONNX Runtime
# has no complex arithmetic. These are the exporter's answer, tested as such.
NO_KERNEL = {("erf", torch.float64): "Erf has no kernel", ("atan2", torch.float64): "Atan has no kernel",
             ("convolution", torch.float64): "Conv(Transpose)? has no kernel"}
COMPLEX = ("real", "imag", "complex")

# (prim, dtype) -> (atol, rtol) in place of the entry's tolerance, with the reason:
TOLERANCES = {
    # eager multiplies bfloat16 / float16 in the storage dtype, rounding each partial product (1 part
    # in 256 / 2048 each, over up to 60 factors); the export multiplies in float32 and rounds once
    ("prod", torch.bfloat16): (1e-2, 8e-2), ("prod", torch.float16): (1e-3, 1e-2),
    # eager's half-precision convolution rounds its partial sums (of magnitude ~1) in the storage
    # dtype, the export in float32: two units in the last place, and where the sums cancel the
    # difference stays absolute (float16: 2 ** -9; bfloat16: 2 ** -6)
    ("convolution", torch.float16): (2e-3, 2e-3), ("convolution", torch.bfloat16): (1.6e-2, 1.6e-2),
}


def _strided_operand(entry, sample) -> bool:
    """as_strided reads its operand's storage; an exported value is its values in row-major order,
    so a strided view as operand is an ExportError (tested below)."""
    return entry.prim.name == "as_strided" and not (sample.input.is_contiguous() and sample.input.storage_offset() == 0)


def _core_cases():
    out = []
    for e in CORE_ENTRIES:
        for dtype in sorted(e.supported_dtypes("cpu"), key=str):
            out.append(pytest.param(e, dtype, id=f"{e.prim.name}-{str(dtype)[6:]}"))
    return out


def _assert_results(results, expected, atol, rtol, names):
    assert len(results) == len(expected)
    for got, want, name in zip(results, expected, names):
        assert got.dtype == want.dtype, f"{name}: dtype {got.dtype}, expected {want.dtype}"
        torch.testing.assert_close(got, want.contiguous(), atol=atol, rtol=rtol, equal_nan=True, msg=lambda m: f"{name}: {m}")


@pytest.mark.parametrize("entry, dtype", _core_cases())
def test_core_prim(entry, dtype):
    name = entry.prim.name
    samples = list(entry.samples("cpu", dtype))
    exported = [s for s in samples if not _strided_operand(entry, s)]
    fn, flat = joint_call([as_function(entry.op, s) for s in exported])
    if dtype.is_complex or name in COMPLEX:
        with pytest.raises(ExportError, match=r"\(torch\.complex\d+\).*: a complex value, which ONNX Runtime cannot compute on"):
            to_onnx(fn, flat)
        return
    if (name, dtype) in NO_KERNEL:
        with pytest.raises(ExportError, match=rf"primkit\.{name} \({dtype}\) at .*{NO_KERNEL[name, dtype]}"):
            to_onnx(fn, flat)
        return
    for s in samples:
        if _strided_operand(entry, s):
            f, ts = as_function(entry.op, s)
            with pytest.raises(ExportError, match="as_strided .* the operand is a strided view"):
                to_onnx(f, ts)
    results = run(to_onnx(fn, flat), *flat)
    expected = [entry.op(s.input, *s.args, **s.kwargs) for s in exported]
    atol, rtol = TOLERANCES.get((name, dtype), entry.tolerance(dtype))
    names = [str(s) for s in exported]
    if name == "copy_to":   # the write into each dst is an output too (dst.out), after the results
        results, written = results[:len(expected)], results[len(expected):]
        _assert_results(written, expected, atol, rtol, names)
    _assert_results(results, expected, atol, rtol, names)


# --- every OpInfo entry of an ATen op --------------------------------------------------------------
def _entry_dtype(entry):
    dtypes = entry.supported_dtypes("cpu")
    return torch.float32 if torch.float32 in dtypes else min(dtypes, key=str)


# an entry with a known failure of its decomposition (tests/test_ops.py's xfail) is left out
ATEN_ENTRIES = [e for e in opinfo.op_db if not e.is_prim and e.supported_dtypes("cpu")
                and e.xfail_for("trace_and_values", _entry_dtype(e), "cpu") is None]
OUTSIDE = re.compile(r"to_onnx: (primkit\.\w+) \((torch\.\w+)\) at .*: (not in the core set|a complex value|"
                     r"onnxruntime's \w+ has no kernel)")


@pytest.mark.parametrize("entry", ATEN_ENTRIES, ids=lambda e: e.name)
def test_opinfo_entry(entry):
    """Exported and equal to eager, or an ExportError naming what ONNX cannot run: a prim outside the
    core set after lowering (the optional families), a complex value, a dtype onnxruntime lacks."""
    dtype = _entry_dtype(entry)
    samples = variant_samples(list(entry.samples("cpu", dtype)), 6)
    fn, flat = joint_call([as_function(entry.op, s) for s in samples])
    try:
        model = to_onnx(fn, flat)
    except ExportError as e:
        assert OUTSIDE.search(str(e)), str(e)
        return
    expected = [entry.op(s.input, *s.args, **s.kwargs) for s in samples]
    results = run(model, *flat)
    want = [t for t in pytree.tree_leaves(expected) if isinstance(t, torch.Tensor)]
    assert len(results) == len(want)
    atol, rtol = entry.tolerance(dtype)
    for got, w in zip(results, want):
        torch.testing.assert_close(got, w.contiguous(), atol=atol, rtol=rtol, equal_nan=True)
