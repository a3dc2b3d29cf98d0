"""ONNX export (primkit.export.onnx): prim graphs of the core set translated to ONNX and run by
onnxruntime's CPU provider.

- the translation table holds one translator per core prim, no more;
- every core prim, on its OpInfo samples (all dtypes the prim takes on CPU), equals the reference
  backend (torch.ops.primkit) within the entry's tolerance, with its dtype;
- every OpInfo entry of an ATen op, in float32 on its first two samples: either exported and equal to eager, or an
  ExportError naming a prim outside the core set (an optional family: sorting, fft, random ...) or a
  complex value;
- the test zoo (tests/models.py) and transformers models: exported, equal to eager; with
  dynamic=True, run at a second batch size and sequence length;
- bad input: a clear ExportError naming the prim, its dtype and the module.

The samples of one entry and dtype are exported as one model (opinfo.harness.joint_call): a
session costs a fixed few milliseconds, and so does a trace.
"""
from __future__ import annotations

import itertools
import re

import pytest
import torch
import torch.utils._pytree as pytree

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from primkit import opinfo  # noqa: E402
from primkit.decompositions.lowering import CORE_PRIMS  # noqa: E402
from primkit.export.onnx import ExportError, TRANSLATORS, run, to_onnx  # noqa: E402
from primkit.opinfo.harness import as_function, clone_sample, joint_call  # noqa: E402

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


def _positions(shape, stride, offset) -> set:
    return {offset + sum(i * s for i, s in zip(index, stride, strict=True)) for index in itertools.product(*map(range, shape))}


def _reads_outside(entry, sample) -> bool:
    """as_strided reads its operand's storage: where the view reads a position the operand does not
    hold (the rest of its base), the value is not in the graph, and the export is an error (tested)."""
    if entry.prim.name != "as_strided":
        return False
    a, (size, stride, offset) = sample.input, sample.args
    return not _positions(size, stride, offset) <= _positions(a.shape, a.stride(), a.storage_offset())


def _core_cases():
    out = []
    for e in CORE_ENTRIES:
        for dtype in sorted(e.supported_dtypes("cpu"), key=str):
            out.append(pytest.param(e, dtype, id=f"{e.prim.name}-{str(dtype)[6:]}"))
    return out


def _assert_results(results, expected, atol, rtol, names):
    assert len(results) == len(expected)
    for got, want, name in zip(results, expected, names, strict=True):
        assert got.dtype == want.dtype, f"{name}: dtype {got.dtype}, expected {want.dtype}"
        torch.testing.assert_close(got, want.contiguous(), atol=atol, rtol=rtol, equal_nan=True, msg=lambda m: f"{name}: {m}")


@pytest.mark.parametrize("entry, dtype", _core_cases())
def test_core_prim(entry, dtype):
    name = entry.prim.name
    samples = list(entry.samples("cpu", dtype))
    exported = [s for s in samples if not _reads_outside(entry, s)]
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
        if _reads_outside(entry, s):
            f, ts = as_function(entry.op, s)
            with pytest.raises(ExportError, match="as_strided .* the view reads storage its operand does not hold"):
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

# entry -> (atol, rtol) in place of the entry's float32 tolerance, with the reason:
ENTRY_TOLERANCES = {
    # onnxruntime's convolutions (MLAS) sum in another order than eager's: a few float32 ulps of sums ~10
    **dict.fromkeys(["nn.functional.conv3d", "nn.functional.conv_transpose2d", "nn.functional.conv_transpose3d"],
                    (5e-5, 1e-5)),
    # the squarings of the Pade approximant repeat matmuls whose other summation order the powers amplify
    **dict.fromkeys(["matrix_exp", "aten.matrix_exp_backward"], (1e-2, 1e-4)),
}

# entry -> strict xfail: a difference from eager that the core-set graph on the reference backend has too
KNOWN = {
    "var_mean_nonfinite": pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
        "the core-set lowering of var_mean gives inf / -inf where eager's variance is nan (the mean of "
        "infinities), on the reference backend as in onnxruntime")),
    "aten._embedding_bag_backward.scale_grad_by_freq": pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
        "eager's CPU kernel, the reference here, divides a row's gradient by another index's count "
        "(pytorch/pytorch#190063; the entry's own xfail says more)")),
}
OUTSIDE = re.compile(r"to_onnx: (primkit\.\w+|input \w+) \((torch\.\w+)\)( at .*)?: (not in the core set|"
                     r"a complex value|onnxruntime's \w+ has no kernel|"
                     r"the view reads storage its operand does not hold|an exported graph holds [\w, ]+)|"
                     r"to_onnx: \w+ returns no tensor")


@pytest.mark.parametrize("entry", [pytest.param(e, marks=KNOWN.get(e.name, ()), id=e.name) for e in ATEN_ENTRIES])
def test_opinfo_entry(entry):
    """Exported and equal to eager, or an ExportError naming what ONNX cannot run: a prim outside the
    core set after lowering (the optional families), a complex value, a dtype onnxruntime lacks, a view
    reading storage its operand does not hold (an ONNX value is its elements, without a storage), a dtype
    ONNX values cannot hold (float8)."""
    dtype = _entry_dtype(entry)
    samples = list(entry.samples("cpu", dtype))[:2]    # two per entry: the file's time is mostly tracing
    fn, flat = joint_call([as_function(entry.op, s) for s in samples])
    try:
        model = to_onnx(fn, flat)
    except ExportError as e:
        assert OUTSIDE.search(str(e)), str(e)
        return
    results = run(model, *flat)
    # each sample on its own copies: two samples may share a tensor that an in-place op writes
    expected = [entry.op(c.input, *c.args, **c.kwargs) for c in map(clone_sample, samples)]
    want = [t for t in pytree.tree_leaves(expected) if isinstance(t, torch.Tensor)]
    # after the results, an output per input the program writes (in-place and out= entries): "<input>.out"
    assert all(o.name.endswith(".out") for o in model.graph.output[len(want):])
    results = results[:len(want)]
    assert len(results) == len(want)
    atol, rtol = ENTRY_TOLERANCES.get(entry.name, entry.tolerance(dtype))
    for got, w in zip(results, want, strict=True):
        torch.testing.assert_close(got, w.contiguous(), atol=atol, rtol=rtol, equal_nan=True)


# --- models ------------------------------------------------------------------------------------------
def _resized(args, batch, seq):
    """The example arguments at another batch size (dim 0) and sequence length (dim 1 of token ids)."""
    out = []
    for a in args:
        shape = list(a.shape)
        shape[0] = batch
        if not a.is_floating_point() and a.dim() == 2:
            shape[1] = seq
        out.append(torch.randn(shape, dtype=a.dtype) if a.is_floating_point() else
                   torch.randint(0, int(a.max()) + 1, shape, dtype=a.dtype))
    return tuple(out)


ZOO = zoo() + [("gpt2_toy", GPT2().eval(), (torch.randint(0, 64, (2, 7)),))]


def _assert_model(model, args, got):
    with torch.no_grad():
        expected = [t for t in pytree.tree_leaves(model(*args)) if isinstance(t, torch.Tensor)]
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        torch.testing.assert_close(g, e, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name, model, args", ZOO, ids=[m[0] for m in ZOO])
def test_zoo_model(name, model, args):
    _assert_model(model, args, run(to_onnx(model, args), *args))


@pytest.mark.parametrize("name, model, args", ZOO, ids=[m[0] for m in ZOO])
def test_zoo_model_dynamic(name, model, args):
    exported = to_onnx(model, args, dynamic=True)
    for at in (args, _resized(args, 3, 5)):
        _assert_model(model, at, run(exported, *at))


# --- transformers models (the suite's zoo: tests/transformers_zoo.py) ----------------------------------
class _Positional(torch.nn.Module):
    """A transformers model called with its keyword inputs given positionally (graph inputs), returning
    its output tensors (the cache's keys and values included)."""

    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, tuple(names)

    def forward(self, *args):
        from training import output_tensors
        return output_tensors(self.model(**dict(zip(self.names, args, strict=True))))


def _transformers_models():
    try:
        import transformers_zoo
    except ImportError:     # transformers is a test extra; without it these cases are not generated
        return []
    return transformers_zoo.MODELS


TRANSFORMERS = _transformers_models()
DYNAMIC = ("gpt2", "llama", "t5")     # dynamic export traces for seconds per model: three architectures


def _built(build):
    torch.manual_seed(0)
    model, inputs = build(labels=False)
    return _Positional(model.eval(), inputs), tuple(inputs.values())


@pytest.mark.parametrize("build", TRANSFORMERS, ids=lambda b: b.__name__)
def test_transformers_model(build):
    model, args = _built(build)
    _assert_model(model, args, run(to_onnx(model, args), *args))


@pytest.mark.parametrize("build", [b for b in TRANSFORMERS if b.__name__ in DYNAMIC], ids=lambda b: b.__name__)
def test_transformers_model_dynamic(build):
    model, args = _built(build)
    exported = to_onnx(model, args, dynamic=True)
    names = model.names
    second = tuple(torch.ones_like(a[:1, :1]).expand(3, 5).contiguous() if n.endswith("attention_mask") else a
                   for n, a in zip(names, _resized(args, 3, 5), strict=True))
    for at in (args, second):
        _assert_model(model, at, run(exported, *at))


# --- names, errors, the command ---------------------------------------------------------------------------
def test_inputs_outputs_and_module_paths_are_named():
    model, args = ZOO[0][1], ZOO[0][2]     # the MLP: fc1, fc2 ...
    exported = to_onnx(model, args)
    assert [i.name for i in exported.graph.input] == ["x"] and exported.graph.output[0].name == "output"
    scoped = [n for n in exported.graph.node if n.doc_string.startswith("primkit.")]
    paths = {n.doc_string.split(" at ")[1] for n in scoped}
    assert {name for name, m in model.named_children() if list(m.parameters())} <= paths
    assert all(n.name.startswith(n.doc_string.split(" at ")[1] + ".") for n in scoped if not n.doc_string.endswith("<top>"))


def test_dynamic_dims_are_named():
    model, args = ZOO[0][1], ZOO[0][2]
    dims = to_onnx(model, args, dynamic=True).graph.input[0].type.tensor_type.shape.dim
    assert all(d.dim_param and not d.HasField("dim_value") for d in dims)


def test_random_prim_in_training_is_an_error():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(0.5)).train()
    with pytest.raises(ExportError, match=r"primkit\.\w+ \(torch\.float32\) at module '1' \(Dropout\): not in the core "
                                          r"set.*eval mode"):
        to_onnx(model, (torch.randn(2, 4),))


def test_prim_outside_the_core_set_is_an_error():
    with pytest.raises(ExportError, match=r"primkit\.sort \(torch\.float32\) at the top level: not in the core set"):
        to_onnx(lambda x: torch.sort(x).values, (torch.randn(5),))


def test_complex_value_is_an_error():
    with pytest.raises(ExportError, match=r"primkit\.\w+ \(torch\.complex64\) at the top level: a complex value"):
        to_onnx(lambda x: (torch.polar(x, x) * 2).real, (torch.rand(3),))


def mlp():
    return ZOO[0][1]


def mlp_inputs():
    return ZOO[0][2]


def test_export_onnx_command(tmp_path, capsys):
    from primkit.tools import cli
    out = tmp_path / "mlp.onnx"
    assert cli.main(["export-onnx", "test_onnx:mlp", "--inputs", "test_onnx:mlp_inputs", "-o", str(out), "--dynamic"]) == 0
    import onnx
    model = onnx.load(str(out))
    args = mlp_inputs()
    _assert_model(mlp(), args, run(model, *args))
    assert cli.main(["export-onnx", "test_onnx:nothing", "--inputs", "test_onnx:mlp_inputs"]) == 1
    assert cli.main(["export-onnx", "test_onnx", "--inputs", "test_onnx:mlp_inputs"]) == 1
    assert "expected package.module:attr" in capsys.readouterr().err
