"""Eager execution through prims (``runtime.eager.through_prims``): programs run op by op
through their decompositions on real tensors and give eager's results.

- test_op_db: every ATen entry of the OpInfo database, its first samples in one dtype per entry,
  under the mode (and its lazy variant) equals eager: values, shapes, dtypes, which outputs share an
  input's storage, and strides where test_ops' strides test passes;
- test_zoo_inference / test_zoo_training: the model zoo, inference (eager and lazy) and one training
  step (loss, gradients, buffers), dropout drawing eager's masks under the same seed;
- one-off tests for what the database cannot express: data-dependent control flow, ``.item()``
  and printing; writes through views; strict mode's error and permissive mode's record; the lazy
  variant's sync points; the example of docs/eager.md.
"""
from __future__ import annotations

import contextlib
import copy
import itertools
import re
import warnings

import pytest
import torch
import torch.utils._pytree as pytree

from primkit import opinfo
from primkit.decompositions import DecompositionError, get_decompositions
from primkit.graph import trace
from primkit.runtime.eager import LazyTensor, through_prims
from primkit.opinfo.harness import call, clone_sample, tensors_of

from models import zoo
from test_ops import _seeding, _stride_mismatches, assert_same
from test_training import ZOO
from training import ATOL, RTOL, SEED, _cotangents, _loss, output_tensors

# The first samples of each entry: enough to run each decomposition on real tensors, few enough that
# the database runs in about a minute on two cores.
OP_DB_SAMPLES = 2


# Entries whose values xfail is a failure of tracing (a size that depends on data, undecidable under fake
# tensors), which real tensors do not have: they pass here.
TRACING_ONLY = {"repeat_interleave_counts"}


# Entries whose result is a view of an input in eager and a tensor of its own under the mode: a write through
# it does not reach the input.
_COPIES = "; a write through the result does not reach the input"
_BITCAST = "the bitcast_convert_type prim gives a new tensor (it owns its storage, as lax's)" + _COPIES
_DYNAMIC_SLICE = ("a tensor start decomposes to dynamic_slice, which copies (a view needs the start on the host, "
                  "eager reads it with .item())" + _COPIES)
ALIASING_DIFFERS = {
    "view.dtype": _BITCAST, "view.dtype.expanded": _BITCAST,
    "narrow.Tensor": _DYNAMIC_SLICE, "narrow.Tensor.expanded": _DYNAMIC_SLICE,
    "_conj": "prims have no conjugate bit: eager's _conj is a view flagged conjugate, the mode computes the "
             "conjugate values" + _COPIES,
    "prims.view_of_dtype": _BITCAST,
    "prims.device_put": "torch's prims.device_put declares a new tensor (its schema aliases nothing) but eager's "
                        "kernel, a.to(device), returns the input itself on its own device; the mode copies the "
                        "result of a schema that aliases nothing" + _COPIES,
    "prims.conj": "prims have no conjugate bit: torch's prims.conj is a view flagged conjugate, the mode computes "
                  "the conjugate values" + _COPIES,
}


class AliasingDiffers(AssertionError):
    """An output shares an input's storage under the mode and not in eager, or the other way round."""


def _dtype(entry):
    """float32 where the entry takes it, else its first dtype (test_ops' order)."""
    dtypes = entry.supported_dtypes("cpu")
    return torch.float32 if torch.float32 in dtypes else sorted(dtypes, key=str)[0]


def _op_db_params():
    out = []
    for entry in opinfo.op_db:
        if entry.is_prim or not entry.supported_dtypes("cpu"):   # test_ops generates no CPU test for them either
            continue
        dtype = _dtype(entry)
        marks = []
        xf = entry.xfail_for("values", dtype, "cpu")
        if xf is not None and entry.name not in TRACING_ONLY:
            marks.append(pytest.mark.xfail(strict=True, raises=xf.raises, reason=xf.reason))
        elif entry.name in ALIASING_DIFFERS:
            marks.append(pytest.mark.xfail(strict=True, raises=AliasingDiffers, reason=ALIASING_DIFFERS[entry.name]))
        out.append(pytest.param(entry, dtype, marks=marks, id=f"{entry.name}-{str(dtype).replace('torch.', '')}"))
    return out


def _aliasing(sample, out) -> list:
    """For each output tensor, whether it shares storage with one of the sample's tensors."""
    storages = {t.untyped_storage()._cdata for t in tensors_of(sample)}
    return [isinstance(o, torch.Tensor) and o.untyped_storage()._cdata in storages for o in pytree.tree_leaves(out)]


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("entry,dtype", _op_db_params())
def test_op_db(entry, dtype, lazy):
    # Every sample where the entry's values are a known failure, so the failing sample stays in (as test_ops).
    samples = list(itertools.islice(entry.samples("cpu", dtype),
                                    None if entry.xfail_for("values", dtype, "cpu") else OP_DB_SAMPLES))
    assert samples, f"{entry.name}: no samples for {dtype}"
    eager_samples, prim_samples = [clone_sample(s) for s in samples], [clone_sample(s) for s in samples]
    with _seeding(entry):
        expected = [call(entry.op, s) for s in eager_samples]
    with _seeding(entry), torch.no_grad() if lazy else contextlib.nullcontext(), through_prims(lazy=lazy):
        actual = [call(entry.op, s) for s in prim_samples]
    for sample, a, e in zip(samples, actual, expected, strict=True):
        assert_same(a, e, entry, dtype, sample)
    for sample, ps, a, es, e in zip(samples, prim_samples, actual, eager_samples, expected, strict=True):
        if _aliasing(ps, a) != _aliasing(es, e):
            raise AliasingDiffers(f"outputs sharing an input's storage: {_aliasing(ps, a)}, eager {_aliasing(es, e)} "
                                  f"for {sample}")
    if entry.xfail_for("strides", dtype, "cpu") is None:
        mismatches = [m for s, a, e in zip(samples, actual, expected, strict=True) for m in _stride_mismatches(a, e, s)]
        assert not mismatches, "\n".join(mismatches)


def _close(actual, expected, what):
    for i, (a, e) in enumerate(zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected), strict=True)):
        torch.testing.assert_close(a, e, atol=ATOL, rtol=RTOL, msg=lambda m, i=i: f"{what} {i}: {m}")


MODELS = zoo()
TRAINED = ZOO   # test_training's: the zoo, a toy GPT-2, an MLP of every activation, a BCE head


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("name,model,args", MODELS, ids=[m[0] for m in MODELS])
def test_zoo_inference(name, model, args, lazy):
    with torch.no_grad():
        expected = model(*args)
        with through_prims(lazy=lazy) as run:
            actual = model(*args)
    _close(actual, expected, "output")
    assert run.prims and not run.undecomposed
    if lazy:   # the forward is recorded, and runs on the executor when the block exits
        assert all(isinstance(t, LazyTensor) for t in pytree.tree_leaves(actual))
        assert run.lazy.flushed_prims == sum(run.prims.values()) and run.lazy.flushes == 1


@pytest.mark.parametrize("name,model,args", TRAINED, ids=[m[0] for m in TRAINED])
def test_zoo_training(name, model, args):
    """One training step in train mode (dropout on, batch norm's batch statistics), as training.check_training
    compares AOTAutograd's graphs: the outputs, loss, every gradient and every buffer after the step."""
    eager_model, prim_model = copy.deepcopy(model).train(), copy.deepcopy(model).train()
    torch.manual_seed(SEED)
    expected_out = output_tensors(eager_model(*args))
    cotangents = _cotangents(expected_out)
    expected_loss = _loss(expected_out, cotangents)
    expected_loss.backward()

    torch.manual_seed(SEED)
    with through_prims() as run:
        actual_out = output_tensors(prim_model(*args))
        loss = _loss(actual_out, cotangents)
        forward_prims = sum(run.prims.values())
        loss.backward()
    assert sum(run.prims.values()) > forward_prims, "the backward ran no prim"
    _close(actual_out, expected_out, "output")
    _close(loss, expected_loss, "loss")
    for (name, p), (_, q) in zip(eager_model.named_parameters(), prim_model.named_parameters(), strict=True):
        assert (p.grad is None) == (q.grad is None), f"grad of {name}: {q.grad} where eager gives {p.grad}"
        if p.grad is not None:
            _close(q.grad, p.grad, f"grad of {name}")
    for (name, b), (_, c) in zip(eager_model.named_buffers(), prim_model.named_buffers(), strict=True):
        _close(c, b, f"buffer {name}")


def _halve_until_small(x):
    """Data-dependent control flow on real values, .item(), .tolist(), printing."""
    steps = 0
    while x.abs().max().item() > 1.0:
        x = x / 2
        steps += 1
    if bool((x > 0).any()):
        x = x - x.min()
    print(x)
    return x, steps, x.tolist()


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_data_dependent_program(capsys, lazy):
    x = torch.randn(3, 4) * 10
    expected = _halve_until_small(x)
    printed = capsys.readouterr().out
    with torch.no_grad() if lazy else contextlib.nullcontext(), through_prims(lazy=lazy) as run:
        actual = _halve_until_small(x)
    assert capsys.readouterr().out == printed
    torch.testing.assert_close(actual[0], expected[0], atol=0, rtol=0)
    assert actual[1:] == expected[1:]
    assert run.passthrough["aten::_local_scalar_dense"] >= expected[1] + 2   # each test of the loop, and bool()
    assert {"abs", "div", "sub"} <= set(run.prims)
    if lazy:   # each .item() is a sync point
        assert run.lazy.flushes >= expected[1] + 2


def test_trace_points_to_the_mode():
    """trace refuses the same program, naming the op that read data, and points here."""
    with pytest.raises(DecompositionError, match="aten::_local_scalar_dense") as info:
        trace(_halve_until_small, torch.randn(3, 4) * 10)
    assert "primkit.runtime.eager.through_prims()" in str(info.value)


def _write_through_views(a):
    row = a[1]
    total = a.sum()          # read before the writes
    row.add_(1)
    t = a.t()
    out = t.mul_(2)
    a.view(12)[0] = 5
    return out is t, total, row.sum(), a.clone()


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_views_and_in_place_ops_alias_as_in_eager(lazy):
    """A view op's result shares its input's storage (a write through it reaches the base, and reads after the
    write see it), and an in-place op returns the tensor it wrote."""
    expected = torch.zeros(3, 4)
    expected_out = _write_through_views(expected)
    a = torch.zeros(3, 4)
    with torch.no_grad() if lazy else contextlib.nullcontext(), through_prims(lazy=lazy) as run:
        actual_out = _write_through_views(a)
    assert actual_out[0] is True
    torch.testing.assert_close(a, expected, atol=0, rtol=0)
    for x, y in zip(actual_out[1:], expected_out[1:], strict=True):
        torch.testing.assert_close(x, y, atol=0, rtol=0)
    assert run.prims["copy_to"] >= 3


# An op with no decomposition to prims (a random draw of its own distribution); the test fails if one is added.
UNDECOMPOSED = torch.ops.aten.poisson.default


def _draw():
    return torch.poisson(torch.full((3,), 4.0))


def test_strict_mode_names_the_op_without_decomposition():
    assert UNDECOMPOSED not in get_decompositions(), f"{UNDECOMPOSED} has a decomposition now: pick another op"
    with pytest.raises(DecompositionError, match=re.escape(UNDECOMPOSED.name())) as info:
        with through_prims():
            _draw()
    assert info.value.missing == [UNDECOMPOSED.name()]
    assert "through_prims(mode='permissive') runs such an op by eager's kernel" in str(info.value)


def test_permissive_mode_runs_and_records_it():
    torch.manual_seed(SEED)
    expected = _draw()
    torch.manual_seed(SEED)
    with through_prims(mode="permissive") as run:
        actual = _draw()
    torch.testing.assert_close(actual, expected, atol=0, rtol=0)
    assert run.undecomposed == {UNDECOMPOSED.name(): 1}
    assert run.prims["full"] == 1


def _sparse_lookups():
    indices = torch.tensor([1, 2, 4, 4])
    yield torch.nn.Embedding, (indices,), "aten::_sparse_coo_tensor_with_dims_and_tensors"
    yield torch.nn.EmbeddingBag, (indices, torch.tensor([0, 2])), "aten::_embedding_bag_backward"


@pytest.mark.parametrize("module,args,op", list(_sparse_lookups()), ids=["embedding", "embedding_bag"])
def test_a_sparse_gradient_is_eagers_or_refused(module, args, op):
    """sparse=True: the weight's gradient is a sparse tensor, which no prim models. Permissive mode gives
    eager's (its ops run by eager's kernels, counted); strict mode names the op and says why. Never a dense one."""
    torch.manual_seed(0)
    model = module(10, 3, sparse=True)
    reference = copy.deepcopy(model)
    reference(*args).square().sum().backward()
    with through_prims("permissive") as mode:
        model(*args).square().sum().backward()
    assert model.weight.grad.layout == torch.sparse_coo
    torch.testing.assert_close(model.weight.grad.to_dense(), reference.weight.grad.to_dense())
    assert op in mode.undecomposed
    with pytest.raises(DecompositionError, match=rf"{op} \(.*sparse tensor \(sparse=True\), a layout no prim"):
        with through_prims("strict"):
            model(*args).sum().backward()


def test_lazy_host_reads_are_sync_points(capsys):
    x = torch.randn(4, 3)
    with torch.no_grad(), through_prims(lazy=True) as run:
        y = torch.relu(x) * 2
        assert run.lazy.flushes == 0 and isinstance(y, LazyTensor)
        as_list = y.tolist()
        assert run.lazy.flushes == 1
        z = (y + 1).cpu()
        assert run.lazy.flushes == 2 and type(z) is torch.Tensor
        print(y + 1)
        assert run.lazy.flushes == 3
    expected = torch.relu(x) * 2
    assert as_list == expected.tolist()
    torch.testing.assert_close(z, expected + 1, atol=0, rtol=0)
    assert capsys.readouterr().out == f"{expected + 1}\n"
    assert type(y * 3) is torch.Tensor   # after the block, a LazyTensor is its value


def test_lazy_refuses_autograd():
    with pytest.raises(NotImplementedError, match=r"inference only .* torch.no_grad\(\)"):
        with through_prims(lazy=True):
            pass


def test_bad_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="mode must be one of 'strict', 'permissive', got 'lax'"):
        with through_prims(mode="lax"):
            pass


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("p", [0.1, 0.5])
def test_dropout_draws_eagers_numbers(p, lazy):
    """Dropout decomposes to generator prims that draw eager's numbers: the same seed gives eager's mask,
    and the generator ends in eager's state."""
    x = torch.randn(64, 33)
    torch.manual_seed(SEED)
    expected = torch.nn.functional.dropout(x, p), torch.nn.functional.dropout(x.t(), p), torch.get_rng_state()
    torch.manual_seed(SEED)
    with torch.no_grad() if lazy else contextlib.nullcontext(), through_prims(lazy=lazy) as run:
        actual = torch.nn.functional.dropout(x, p), torch.nn.functional.dropout(x.t(), p), torch.get_rng_state()
    for a, e in zip(actual, expected, strict=True):
        torch.testing.assert_close(a, e, atol=0, rtol=0)
    assert run.prims["bernoulli_p"] == 2


def test_readme_example_runs_as_written(capsys):
    import pathlib
    readme = pathlib.Path(__file__).resolve().parent.parent / "docs" / "eager.md"
    section = readme.read_text().split("# Eager through prims", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/eager.md", "exec"), {})
    assert capsys.readouterr().out.splitlines()[-3:] == ["True Counter()", "1", "Counter({'aten::poisson': 1})"]


@pytest.mark.parametrize("size", [3, 0], ids=["with_elements", "empty"])
def test_a_wrongly_shaped_out_tensor_is_resized_as_eager_resizes_it(size):
    """eager resizes an out= tensor of another shape in place (a UserWarning where it had elements), its
    strides those its kernel gives (add with a transposed operand: the operand's)."""
    a = torch.randn(4, 3).t()

    def program(out):
        torch.add(a, 1, out=out)
        return out

    expected, got = torch.ones(size), torch.ones(size)
    with warnings.catch_warnings(record=True) as warned_e:
        warnings.simplefilter("always")
        program(expected)
    with warnings.catch_warnings(record=True) as warned_t, through_prims() as run:
        warnings.simplefilter("always")
        returned = program(got)
    assert returned is got and run.prims
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
    assert got.stride() == expected.stride()
    resized = [[w for w in ws if "resized" in str(w.message)] for ws in (warned_e, warned_t)]
    assert bool(resized[0]) == bool(resized[1]) == (size > 0)


def _set_to_storage(x):
    t = torch.empty(0)
    t.set_(x.untyped_storage(), 5, (2, 2), (1, 4))
    return t * 1


def _set_to_a_view_of_a_made_tensor(x):
    t = torch.empty(0)
    t.set_((x * 2)[1:, 1:])
    return t + 0


def _arange_into_a_made_tensor(x):
    o = torch.zeros(3)
    torch.arange(5., out=o)   # o is the block's own: resized (a LazyTensor under lazy=True)
    return o + x[0, :1], torch.tensor(o.shape)


# Programs whose ops read a view's storage rather than its elements (issue 31), or change a tensor's geometry:
# name -> (program of x = arange(16).reshape(4, 4), the mode it needs: set_ has no decomposition)
STORAGE_READING = {
    "as_strided_of_select": (lambda x: torch.as_strided(x[1], (2, 2), (1, 2)), "strict"),
    "as_strided_of_a_chain": (lambda x: torch.as_strided(x.narrow(0, 1, 3)[:, 1:][1], (2,), (3,)), "strict"),
    "as_strided_of_a_made_view": (lambda x: torch.as_strided((x * 2)[1:, 1:], (2, 2), (1, 2)), "strict"),
    "as_strided_scatter_of_view": (lambda x: torch.as_strided_scatter(x[1:, 1:], -torch.ones(2, 2), (2, 2), (1, 2)),
                                   "strict"),
    "unfold_of_view": (lambda x: x.t()[1:].unfold(0, 2, 1) * 1, "strict"),
    "reshape_alias_of_view": (lambda x: torch.ops.aten._reshape_alias(x[1:], (12,), (1,)) * 1, "strict"),
    "set_to_storage": (_set_to_storage, "permissive"),
    "set_to_a_view_of_a_made_tensor": (_set_to_a_view_of_a_made_tensor, "permissive"),
    "out_resized": (_arange_into_a_made_tensor, "strict"),
}


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
@pytest.mark.parametrize("name", sorted(STORAGE_READING))
def test_ops_reading_storage_give_eagers_values(name, lazy):
    """A LazyTensor view has its place in its storage (as_strided's default offset reads it), a storage read of
    a pending LazyTensor is a sync point, and a LazyTensor that eager's kernel resizes or set_s takes its value's
    geometry: the lazy variant gives eager's values."""
    program, mode = STORAGE_READING[name]
    x = torch.arange(16.).reshape(4, 4)
    expected = program(x.clone())
    with torch.no_grad(), warnings.catch_warnings(), through_prims(mode, lazy=lazy):
        warnings.simplefilter("ignore")   # the resize's warning: test_a_wrongly_shaped_out_tensor_is_resized...
        got = program(x.clone())
    torch.testing.assert_close(got, expected, rtol=0, atol=0)
