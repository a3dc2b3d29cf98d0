"""Every autograd-capable OpInfo entry through AOTAutograd, as a training program reaches primkit.

test_gradients (tests/test_ops.py) differentiates primkit's traced prim graph with the prims'
own derivative formulas. AOTAutograd does the other thing a user's ``aot_function(fn, fw, bw,
decompositions=get_decompositions())`` or ``torch.compile(backend="primkit")`` does: it takes
eager's derivative of each ATen op (derivatives.yaml), so the backward graph holds backward ATen
ops (``*_backward``, bookkeeping such as ``threshold_backward`` or ``_softmax_backward_data``)
that must decompose to prims too. For each entry that test_gradients checks (float64,
``supports_autograd``), its samples are traced jointly (one ``aot_function`` per entry, as
opinfo.harness traces them), and: the forward and backward graphs are prim-only, and each
sample's input gradients equal eager's (test_gradients' tolerances, comparisons and choice of
differentiable inputs).
The compilers run graph.lower_effects first, as an aot_function user's compiler does (AOTAutograd
wraps linalg's effectful error check in with_effects before the table is consulted); entries whose
output size or control flow depends on data are traced with dynamic=True (DATA_DEPENDENT).

Samples: those with finite inputs whose gradient eager computes (where eager refuses, AOTAutograd,
which calls eager's derivative, refuses too), at most ``SAMPLES`` of them chosen by
``variant_samples`` (one of each layout and kind, the rest spread). AOTAutograd's trace and partition
are nearly all of the time: with SAMPLES = 2 the module's 600 entries take about 2 minutes of CPU
(117 s measured with -n 0; 4 samples took about twice as long).
"""
from __future__ import annotations

import pytest
import torch
from functorch.compile import aot_function
from torch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException

from primkit import opinfo
from primkit.decompositions import DecompositionError, check_prim_only, get_decompositions
from primkit.graph import lower_effects
from primkit.opinfo.core import XFail
from primkit.opinfo.gradients import EAGER_REFERENCE_INPUTS, HERMITIAN_INPUT
from primkit.opinfo.harness import as_function, joint_call, variant_samples

from conftest import devices, xfail_mark
from test_ops import _differentiable, _finite, _seeding, _vjp, _vjp_loss
from training import _recording_compiler

TABLE = get_decompositions()
DTYPE = torch.float64
SAMPLES = 2


def _xfails(names, reason, raises):
    return {name: XFail("gradients", reason, raises=raises) for name in names}


# Known failures, scoped to their entry: strict xfails with the exception they raise.
XFAILS: dict[str, XFail] = {
    **_xfails(("multilabel_margin_loss", "multilabel_margin_loss_forward"),
              "torch's own Python kernel of multilabel_margin_loss_forward at the Autograd key (run by AOTAutograd's "
              "Python dispatcher before the table is consulted) differentiates to other gradients than eager's "
              "kernel on the reduction='none' sample: aot_function with an empty table gives the same difference",
              AssertionError),
    **_xfails(("linalg.lstsq", "nn.functional.ctc_loss"),
              "torch tags linalg_lstsq and _ctc_loss.Tensor dynamic_output_shape, and AOTAutograd's first pass (which "
              "collects the outputs' metadata) runs the program on fake tensors without the table: FakeTensorMode "
              "refuses a tagged op even with a ShapeEnv (dynamic=True); torch.compile graph-breaks there",
              DynamicOutputShapeException),
    **_xfails(("cov", "corrcoef"),
              "eager's composite cov (CompositeImplicitAutograd, run before the table) calls aten.equal, a Python bool "
              "of data, which FakeTensorMode refuses even with a ShapeEnv (dynamic=True)", DataDependentOutputException),
    "narrow.Tensor.expanded": XFail(
        "gradients", "AOTAutograd's gradient of an input with a stride-0 dim (expanded) sliced at a start read with "
        ".item() is laid out with the input's stride 0, every row the same, where eager's is dense with zeros outside "
        "the block: aot_function with an empty table gives the same gradient", raises=AssertionError),
    "istft": XFail("gradients", "torch's own Python reference of istft (torch._refs), which AOTAutograd's Python "
                   "dispatcher runs as its CompositeImplicitAutograd kernel before the table is consulted, rejects a "
                   "valid sample: 'Expected input.size(2) == n_fft'", raises=AssertionError),
    "fake_quantize_per_tensor_affine.tensor_qparams": XFail(
        "gradients", "the entry calls the packet aten.fake_quantize_per_tensor_affine: eager resolves its one-element "
        "tensor qparams to the .default overload (scale read with .item(), no gradient), AOTAutograd's fake tensors to "
        ".tensor_qparams, whose autograd refuses a scale that requires grad (the entry's eager reference is another "
        "overload than the one traced)", raises=RuntimeError),
    **_xfails(("_chunk_cat", "linalg.eig"),
              "eager's autograd refuses the gradient on every sample (test_gradients checks primkit's by gradcheck "
              "there): AOTAutograd, which calls eager's derivative, has nothing to compare", AssertionError),
}


# Entries whose output size or control flow depends on data (nonzero's count, a tensor read as a Python
# number): aot_function traces them as a user must, with dynamic=True, whose FakeTensorMode has the ShapeEnv
# that sizes such outputs with unbacked symbols (torch.compile always has one). Without it torch refuses
# the op before the table is consulted (DynamicOutputShapeException / DataDependentOutputException).
DATA_DEPENDENT = {"combinations", "index_bool_mask", "index_fill_tensor_value", "repeat_interleave_tensor",
                  "linalg.lstsq", "nn.functional.ctc_loss", "masked_select", "cov", "corrcoef", "narrow.Tensor",
                  "narrow.Tensor.expanded"}


def _entries():
    return [e for e in opinfo.op_db
            if not e.is_prim and e.supports_autograd and DTYPE in e.supported_dtypes("cpu")]


def pytest_generate_tests(metafunc):
    if metafunc.function.__name__ != "test_aot_autograd":
        return
    unknown = sorted(set(XFAILS) - {e.name for e in opinfo.op_db})
    assert not unknown, f"XFAILS names no entries {unknown}"
    params = []
    for entry in _entries():
        for device in devices(metafunc.config):
            xf = XFAILS.get(entry.name)
            marks = [xfail_mark(xf)] if xf is not None and xf.applies("gradients", DTYPE, device) else []
            params.append(pytest.param(entry, device, marks=marks, id=f"{entry.name}-{device}"))
    metafunc.parametrize("entry,device", params)


def _lowering_compiler(graphs, kind):
    """The recording compiler, after graph.lower_effects: AOTAutograd wraps effectful ATen ops (linalg's
    _linalg_check_errors) in with_effects before the table is consulted; a compiler lowers them first."""
    record = _recording_compiler(graphs, kind)
    return lambda gm, example_inputs: record(lower_effects(gm, TABLE), example_inputs)


def _eager_gradients(entry, device):
    """[(sample, its call, its differentiable inputs, eager's gradients, the cotangents' seed)]: the
    samples with finite inputs whose gradient eager computes, at most SAMPLES of them. Differentiable
    inputs as test_gradients takes them: every floating input, or only the first where eager
    differentiates only that one."""
    samples = [s for s in entry.samples(device, DTYPE) if _finite(as_function(entry.op, s)[1])]
    at = EAGER_REFERENCE_INPUTS.get(entry.name, lambda sample, ts: ts)
    accepted = []
    for i, sample in enumerate(samples):
        fn, tensors = as_function(entry.op, sample)
        for only_first in (False, True):
            inputs = _differentiable(tensors, only_first=only_first)
            try:
                with _seeding(entry):
                    want = _vjp(fn(*at(sample, inputs)), inputs, seed=i)
            except RuntimeError as e:
                if not only_first and ("requires_grad" in str(e) or "not differentiable with respect to" in str(e)):
                    continue
                break   # eager refuses this sample
            accepted.append((sample, fn, inputs, want, i))
            break
    chosen = {id(s) for s in variant_samples([a[0] for a in accepted], SAMPLES)}
    return [a for a in accepted if id(a[0]) in chosen]


def run_aot(entry, device):
    """(graphs, [(sample, primkit's gradients, eager's gradients)]): the entry's samples through one
    aot_function, each sample's gradients from its own outputs."""
    checked = _eager_gradients(entry, device)
    assert checked, f"{entry.name}: eager differentiates none of its finite samples"
    joint, _ = joint_call([(fn, inputs) for _, fn, inputs, _, _ in checked])
    # Fresh leaves of each sample's inputs (joint_call's copies are detached).
    inputs = [[t.detach().requires_grad_(t.requires_grad) for t in ins] for _, _, ins, _, _ in checked]
    graphs = {}
    compiled = aot_function(joint, _lowering_compiler(graphs, "forward"), _lowering_compiler(graphs, "backward"),
                            decompositions=TABLE, dynamic=entry.name in DATA_DEPENDENT)
    with _seeding(entry):
        outputs = compiled(*[t for ins in inputs for t in ins])
    got = _joint_vjp([(out, ins, seed) for (_, _, _, _, seed), out, ins in zip(checked, outputs, inputs, strict=True)])
    return graphs, [(sample, g, want) for (sample, _, _, want, _), g in zip(checked, got, strict=True)]


def _joint_vjp(per_sample):
    """_vjp of each (outputs, inputs, seed) in one backward, as a training step runs the compiled
    backward once (AOTAutograd's donated buffers refuse a second run over one graph): the samples'
    inputs are separate leaves, so the gradient of the summed losses is each sample's own."""
    losses, wanted = [], []
    for out, ins, seed in per_sample:
        loss = _vjp_loss(out, seed)
        losses.append(loss)
        wanted += [t for t in ins if t.requires_grad] if loss is not None else []
    grads = iter(torch.autograd.grad(sum(l for l in losses if l is not None), wanted, allow_unused=True)
                 if wanted else ())
    return [None if loss is None else [torch.zeros_like(t) if g is None else g
                                       for t, g in ((t, next(grads)) for t in ins if t.requires_grad)]
            for loss, (_, ins, _) in zip(losses, per_sample)]


def assert_gradients_equal(entry, results):
    atol, rtol = entry.tolerance(DTYPE)
    for sample, got, want in results:
        if want is None and got is None:
            continue
        if want is None or got is None:   # one side is constant in the inputs: its gradient is zero
            zeros = [torch.zeros_like(g) for g in (want or got)]
            want, got = want or zeros, got or zeros
        if entry.name in HERMITIAN_INPUT:    # compared on Hermitian perturbations (opinfo.gradients)
            got = [(g + g.mH) / 2 if k == 0 else g for k, g in enumerate(got)]
        for k, (a, e) in enumerate(zip(got, want, strict=True)):
            torch.testing.assert_close(
                a, e, atol=atol, rtol=rtol, equal_nan=True,
                msg=lambda m, k=k: f"gradient of input {k} differs from eager for {sample}:\n{m}")


def test_aot_autograd(entry, device):
    graphs, results = run_aot(entry, device)
    for kind, gm in graphs.items():
        check_prim_only(gm, f"aot_function({entry.name}) {kind}")
    assert_gradients_equal(entry, results)


@pytest.mark.parametrize("sparse_op", ["embedding", "embedding_bag"])
def test_sparse_gradient_stays_aten(sparse_op):
    """embedding(_bag)(sparse=True) asks for a sparse gradient of the weight, a layout no prim models: its
    backward stays ATen, giving eager's sparse gradient, and the prim-only check names the op and says why."""
    weight = torch.randn(10, 3, dtype=DTYPE, requires_grad=True)
    indices, offsets = torch.tensor([1, 2, 4, 4]), torch.tensor([0, 2])

    def lookup(w, i, o):
        if sparse_op == "embedding":
            return torch.nn.functional.embedding(i, w, sparse=True)
        return torch.nn.functional.embedding_bag(i, w, o, mode="mean", sparse=True)
    graphs = {}
    compiled = aot_function(lookup, _lowering_compiler(graphs, "forward"), _lowering_compiler(graphs, "backward"),
                            decompositions=TABLE)
    compiled(weight, indices, offsets).sum().backward()
    expected = weight.detach().clone().requires_grad_()
    lookup(expected, indices, offsets).sum().backward()
    assert weight.grad.layout == torch.sparse_coo
    torch.testing.assert_close(weight.grad.to_dense(), expected.grad.to_dense(), rtol=0, atol=0)
    check_prim_only(graphs["forward"], "forward")
    with pytest.raises(DecompositionError, match=r"aten::_(embedding_bag_backward|sparse_coo_tensor_with_dims_and_"
                                                 r"tensors) \(.*sparse tensor \(sparse=True\), a layout no prim"):
        check_prim_only(graphs["backward"], "backward")
