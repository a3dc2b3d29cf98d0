"""The ModuleInfo database, run: every record x constructor variant x dtype, in eval and train mode.

- test_eval: the module in eval mode traces (``decompositions.trace``) to a prim-only graph whose
  results on each forward sample equal eager's (values within the record's tolerance, shapes,
  dtypes, significant strides), and which leaves the buffers as eager leaves them.
- test_train: the module in train mode runs through AOTAutograd with primkit's table; the forward
  and backward graphs are prim-only, and one forward and backward gives eager's outputs,
  parameter gradients, input gradients (floating inputs) and updated buffers (running statistics,
  num_batches_tracked). Both runs start from the same torch.manual_seed, so a random module
  (dropout, RReLU, fractional pooling) draws in the graph what it draws in eager; the generator
  ends the forward in eager's state, and only the records marked random_in_train draw at all.

Samples are tiny (a few elements per dim): the time is tracing and compiling.
"""
from __future__ import annotations

import copy

import pytest
import torch
import torch.utils._pytree as pytree
from functorch.compile import aot_module, make_boxed_func

from primkit import opinfo
from primkit.decompositions import get_decompositions
from primkit.graph import non_prim_ops, trace
from primkit.opinfo.harness import significant_strides

SEED = 1234


def _params(test):
    out = []
    for info in opinfo.module_db:
        for dtype in sorted(info.dtypes, key=str):
            for v in info.variants_for(test, dtype):
                marks = [pytest.mark.xdist_group(f"module-{info.name}")]
                xf = info.xfail_for(test, v.name, dtype)
                if xf is not None:
                    marks.append(pytest.mark.xfail(strict=True, raises=xf.raises, reason=xf.reason))
                out.append(pytest.param(info, v, dtype, marks=marks,
                                        id=f"{info.name}-{v.name}-{str(dtype)[6:]}-{test}"))
    return out


def _tensors(tree):
    return [x for x in pytree.tree_leaves(tree) if isinstance(x, torch.Tensor)]


def _assert_same(actual, expected, atol, rtol, what, strides=False):
    actual, expected = _tensors(actual), _tensors(expected)
    assert len(actual) == len(expected), f"{what}: {len(actual)} tensors, eager gives {len(expected)}"
    for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
        assert a.dtype == e.dtype, f"{what}[{i}]: dtype {a.dtype}, eager {e.dtype}"
        assert a.shape == e.shape, f"{what}[{i}]: shape {tuple(a.shape)}, eager {tuple(e.shape)}"
        torch.testing.assert_close(a, e, atol=atol, rtol=rtol, equal_nan=True,
                                   msg=lambda m, i=i: f"{what}[{i}]: {m}")
        if strides:
            assert significant_strides(a) == significant_strides(e), \
                f"{what}[{i}]: strides {a.stride()}, eager {e.stride()}"


@pytest.mark.parametrize("info,v,dtype", _params("eval"))
def test_eval(info, v, dtype):
    atol, rtol = info.tolerance(dtype)
    eager_module = info.build(v, dtype).eval()
    traced_module = copy.deepcopy(eager_module)
    for fw in info.forwards(v, dtype):
        s = fw.make(dtype)
        torch.manual_seed(SEED)     # a module that draws in eval too (FractionalMaxPool's samples): the same numbers
        with torch.no_grad():
            expected = eager_module(*copy.deepcopy(s.input), **copy.deepcopy(s.kwargs))
        gm = trace(traced_module, *s.input, **s.kwargs)
        assert non_prim_ops(gm) == []
        torch.manual_seed(SEED)
        actual = gm(*copy.deepcopy(s.input), **copy.deepcopy(s.kwargs))
        _assert_same(actual, expected, atol, rtol, f"{fw.name} output", strides=True)
        _assert_same(dict(traced_module.named_buffers()), dict(eager_module.named_buffers()), atol, rtol,
                     f"{fw.name} buffers")


def _cotangents(outputs, seed=0):
    """Fixed random weights for every floating output, so the loss reaches every output with a
    non-trivial gradient (a plain sum of a softmax has gradient zero)."""
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(o.shape, generator=gen, dtype=o.dtype) if o.is_floating_point() else None
            for o in _tensors(outputs)]


def _step(module, s, wants_grad, cotangents=None):
    """One forward and backward from SEED: (outputs, cotangents, input grads, param grads, buffers,
    the generator's state after the forward).
    The floating inputs that ask for it are leaves requiring grad; the module gets clones of them
    (non-leaves), so in-place modules (ReLU(inplace=True)) run as they do inside a network."""
    leaves, wants = [], iter(wants_grad)

    def prepare(x):
        if isinstance(x, torch.Tensor) and next(wants) and x.is_floating_point():
            leaf = x.detach().clone().requires_grad_()
            leaves.append(leaf)
            return leaf.clone()
        return x.clone() if isinstance(x, torch.Tensor) else x
    args, kwargs = pytree.tree_map(prepare, (s.input, s.kwargs))
    module.zero_grad(set_to_none=True)
    torch.manual_seed(SEED)
    outputs = module(*args, **kwargs)
    rng = torch.get_rng_state()
    if cotangents is None:
        cotangents = _cotangents(outputs)
    terms = [(o * c).sum() for o, c in zip(_tensors(outputs), cotangents, strict=True)
             if c is not None and o.requires_grad]
    if terms:
        torch.stack(terms).sum().backward()
    params = {n: p.grad for n, p in module.named_parameters() if p.requires_grad}
    buffers = {n: b.detach().clone() for n, b in module.named_buffers()}
    return (pytree.tree_map(lambda x: x.detach() if isinstance(x, torch.Tensor) else x, outputs), cotangents,
            [leaf.grad for leaf in leaves], params, buffers, rng)


def _recording_compiler(graphs, kind):
    def compiler(gm, example_inputs):
        graphs[kind] = gm
        return make_boxed_func(gm.forward)
    return compiler


@pytest.mark.parametrize("info,v,dtype", _params("train"))
def test_train(info, v, dtype):
    atol, rtol = info.train_tolerance(dtype)
    for fw in info.forwards(v, dtype):
        s, wants_grad = fw.make(dtype), fw.wants_grad()
        eager_module = info.build(v, dtype).train()
        aot_source = copy.deepcopy(eager_module)
        out, cotangents, in_grads, p_grads, buffers, rng = _step(eager_module, s, wants_grad)

        graphs = {}
        compiled = aot_module(aot_source, fw_compiler=_recording_compiler(graphs, "forward"),
                              bw_compiler=_recording_compiler(graphs, "backward"),
                              decompositions=get_decompositions())
        a_out, _, a_in_grads, _, _, a_rng = _step(compiled, s, wants_grad, cotangents)
        a_p_grads = {n: p.grad for n, p in aot_source.named_parameters() if p.requires_grad}
        a_buffers = {n: b.detach().clone() for n, b in aot_source.named_buffers()}

        assert "forward" in graphs, "AOTAutograd compiled no forward graph"
        for kind, gm in graphs.items():
            assert non_prim_ops(gm) == [], f"{fw.name}: {kind} graph holds non-prim ops: {non_prim_ops(gm)}"
        # (a module whose outputs are views of its inputs, Flatten, has no backward graph: autograd
        # replays the view)
        assert "backward" in graphs or not p_grads, f"{fw.name}: no backward graph for the parameters"
        _assert_same(a_out, out, atol, rtol, f"{fw.name} output")
        _assert_same(a_in_grads, in_grads, atol, rtol, f"{fw.name} input grads")
        assert set(a_p_grads) == set(p_grads)
        for n in p_grads:
            assert (a_p_grads[n] is None) == (p_grads[n] is None), f"{fw.name}: grad of {n}"
        _assert_same(a_p_grads, p_grads, atol, rtol, f"{fw.name} parameter grads")
        _assert_same(a_buffers, buffers, atol, rtol, f"{fw.name} buffers")
        # The graph draws as many numbers as eager (the next draw after it is eager's), and only a
        # module the record calls random draws at all (a random one may not: Dropout(p=1)).
        assert torch.equal(a_rng, rng), f"{fw.name}: the generator's state after the forward differs from eager's"
        if not info.random_in_train:
            assert torch.equal(rng, torch.manual_seed(SEED).get_state()), \
                f"{fw.name}: eager's forward drew random numbers, but the record says random_in_train=False"
