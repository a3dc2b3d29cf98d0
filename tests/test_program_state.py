"""Nothing silently wrong in what a traced program reads and writes: buffer and in-place writes
reach their targets through canonicalization; arguments the graph was specialized on are checked
on every call; keyword tensors are inputs; aliased inputs and unsupported tensor kinds are refused
with a message saying why."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
import torch
from torch.fx.experimental.proxy_tensor import make_fx

from primkit.graph import canonicalize, non_prim_ops, trace

from primkit.decompositions import get_decompositions
from primkit.graph.guards import SpecializationError
from primkit.runtime import executor


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("n", torch.zeros(()))

    def forward(self, x):
        self.n.add_(1)
        return x * self.n


# ----------------------------------------------------------------------------- writes


@pytest.mark.parametrize("canonical", [True, False], ids=["canonical", "raw"])
def test_buffer_write_reaches_the_buffer(canonical):
    x = torch.randn(3, 4)
    m = Counter()
    gm = trace(m, x, canonical=canonical)
    for step in (1, 2, 3):   # the count is read at each call, not frozen at its traced value
        torch.testing.assert_close(gm(x), x * step, rtol=0, atol=0)
        assert m.n.item() == step


def test_training_batch_norm_updates_its_running_statistics():
    x = torch.randn(5, 4) * 3 + 1
    traced, eager = torch.nn.BatchNorm1d(4).train(), torch.nn.BatchNorm1d(4).train()
    gm = trace(traced, x)
    for _ in range(2):
        torch.testing.assert_close(gm(x), eager(x))
        for name, buffer in eager.named_buffers():
            torch.testing.assert_close(traced.get_buffer(name), buffer, msg=name)
    assert traced.num_batches_tracked.item() == 2


def test_canonicalize_keeps_buffer_writes_of_a_make_fx_graph():
    x = torch.randn(3, 4)
    m = Counter()
    gm = canonicalize(make_fx(m, decomposition_table=get_decompositions())(x))
    assert non_prim_ops(gm) == []
    traced = m.n.item()    # make_fx's real mode ran the program once
    torch.testing.assert_close(gm(x), x * (traced + 1), rtol=0, atol=0)
    torch.testing.assert_close(gm(x), x * (traced + 2), rtol=0, atol=0)
    assert m.n.item() == traced + 2


def test_export_graph_updates_buffers():
    x = torch.randn(5, 4)
    m, eager = torch.nn.BatchNorm1d(4).train(), torch.nn.BatchNorm1d(4).train()
    ep = torch.export.export(m, (x,)).run_decompositions(get_decompositions())
    assert non_prim_ops(ep.graph_module) == []
    module = ep.module()
    torch.testing.assert_close(module(x), eager(x))
    for name, buffer in eager.named_buffers():
        torch.testing.assert_close(module.get_buffer(name), buffer, msg=name)


def test_in_place_input_write_reaches_the_input():
    gm = trace(lambda a, b: a.mul_(b), torch.ones(3), torch.full((3,), 2.0))
    a = torch.ones(3)
    gm(a, torch.full((3,), 3.0))
    torch.testing.assert_close(a, torch.full((3,), 3.0))


def test_a_write_through_a_view_is_traced_in_one_pass():
    # trace functionalizes from the start: the program runs once, and the write into a view of
    # an argument (and into a view of a buffer) reaches its base.
    runs = []

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("seen", torch.zeros(2, 4))

        def forward(self, x):
            runs.append(1)
            x[0].mul_(2)
            self.seen[1] = x[0]
            return x.sum(0)
    m, eager = M(), M()
    gm = trace(m, torch.randn(2, 4))
    assert len(runs) == 1
    a = torch.randn(2, 4)
    b = a.clone()
    torch.testing.assert_close(gm(a), eager(b))
    torch.testing.assert_close(a, b)
    torch.testing.assert_close(m.seen, eager.seen)


def test_a_write_into_a_closure_tensor_is_refused():
    total = torch.zeros(3)

    def accumulate(x):
        total.add_(x)
        return x * 2
    with pytest.raises(TypeError, match=r"writes into a tensor that is neither one of its arguments nor a parameter "
                                        r"or buffer of the traced module"):
        trace(accumulate, torch.ones(3))


# ----------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("traced, called", [
    (2, 5), (2.5, 1.5), (True, False), ([1, 2], [1, 3]),
    (np.ones(4, dtype=np.float32), np.zeros(4, dtype=np.float32)),
], ids=["int", "float", "bool", "list", "numpy"])
def test_a_changed_constant_argument_is_refused(traced, called):
    x = torch.randn(3, 4)

    def f(x, s):
        s = torch.as_tensor(np.asarray(s, dtype=np.float32))
        return x * s.sum()
    gm = trace(f, x, traced)
    torch.testing.assert_close(gm(x, traced), f(x, traced))
    with pytest.raises(SpecializationError, match=r"graph called with s(\[1\])?=.*but the graph was traced with s(\[1\])?="):
        gm(x, called)


def test_ints_are_symbolic_inputs_with_dynamic():
    x = torch.randn(3, 4)
    gm = trace(lambda x, s: x * s, x, 2, dynamic=True)
    torch.testing.assert_close(gm(x, 5), x * 5, rtol=0, atol=0)


def test_keyword_tensors_are_graph_inputs():
    x = torch.randn(3, 4)
    gm = trace(lambda x, *, w: x * w, x, w=torch.ones(4))
    w = torch.arange(4.0)
    torch.testing.assert_close(gm(x, w=w), x * w, rtol=0, atol=0)


def test_aliased_arguments():
    # b read after a write into a: eager reads the written value; the graph writes at its end.
    gm = trace(lambda a, b: (a.add_(1), b * 2)[1], torch.zeros(3), torch.zeros(3))
    t = torch.zeros(3)
    with pytest.raises(SpecializationError, match="a and b sharing memory: the program reads b after writing into a"):
        gm(t, t)
    torch.testing.assert_close(gm(torch.zeros(3), torch.zeros(3)), torch.zeros(3))
    # Reads before the write: aliasing is harmless and allowed (x.add_(x) doubles x, as eager).
    gm = trace(lambda a, b: a.add_(b), torch.ones(3), torch.ones(3))
    t = torch.ones(3)
    gm(t, t)
    torch.testing.assert_close(t, torch.full((3,), 2.0))


@pytest.mark.parametrize("make, kind", [
    (lambda: torch.eye(3).to_sparse(), "a sparse tensor"),
    (lambda: torch.eye(3).to_sparse_csr(), "a sparse tensor"),
    (lambda: torch.quantize_per_tensor(torch.eye(3), 0.1, 0, torch.quint8), "a quantized tensor"),
    (lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]), "a nested tensor"),
], ids=["sparse_coo", "sparse_csr", "quantized", "nested"])
def test_unsupported_tensor_kinds_are_refused_at_trace(make, kind):
    with pytest.raises(TypeError, match=f"argument x is {kind}; primkit's prims take dense strided tensors"):
        trace(lambda x: x * 2, make())


def test_specialized_sizes_are_stated():
    gm = trace(lambda x: x.sum(0), torch.randn(1, 4), dynamic=True)
    with pytest.raises(SpecializationError, match=r"dim 0 has size 2, but it was traced with size 1 there, which "
                                                  r"dynamic=True specializes \(sizes 0 and 1 are never symbolic\)"):
        gm(torch.randn(2, 4))
    gm = trace(lambda x: x.sum(0), torch.randn(3, 4))
    with pytest.raises(SpecializationError, match="dynamic=False holds its sizes as constants"):
        gm(torch.randn(2, 4))
    with pytest.raises(SpecializationError, match="of dtype torch.float64 on cpu, but it was traced as torch.float32"):
        gm(torch.randn(3, 4, dtype=torch.float64))
    with pytest.raises(SpecializationError, match="arguments of another structure than traced"):
        gm(torch.randn(3, 4), torch.randn(3))


def test_a_module_traced_with_keyword_tensors_keeps_its_scopes():
    lin = torch.nn.Linear(4, 2)

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lin

        def forward(self, x, *, bias):
            return self.lin(x) + bias
    m = M()
    x, bias = torch.randn(3, 4), torch.randn(2)
    gm = trace(m, x, bias=bias)
    assert any("lin" in n.meta.get("nn_module_stack", {}) for n in gm.graph.nodes)
    other = torch.randn(2)
    torch.testing.assert_close(gm(x, bias=other), m(x, bias=other))
    # the parameters are read by reference: an in-place update is seen on the next call
    with torch.no_grad():
        lin.weight.mul_(2)
    torch.testing.assert_close(gm(x, bias=other), copy.deepcopy(m)(x, bias=other))


STORAGE_READS = {   # a program reading its input's storage: the graph holds positions computed from its layout
    "as_strided": lambda x: torch.as_strided(x, (2, 2), (1, 2)),
    "as_strided of a view": lambda x: torch.as_strided(x[1:], (2,), (3,)),
    "as_strided_scatter": lambda x: torch.as_strided_scatter(x, torch.ones(2), (2,), (2,)),
    "_reshape_alias": lambda x: torch.ops.aten._reshape_alias(x, (6,), (1,)),
}


@pytest.mark.parametrize("program", STORAGE_READS.values(), ids=STORAGE_READS.keys())
@pytest.mark.parametrize("via", ["direct", "make_fx"])
def test_an_input_whose_storage_is_read_keeps_its_traced_layout(program, via):
    """Traced on a view at an offset in its storage, the graph gives eager's values on an input of that layout,
    and refuses one of another storage offset or strides (issue 31: it read the traced offset's positions)."""
    base = torch.arange(24.0)
    gm = trace(program, base[4:10].view(2, 3), _via=via)
    same = (torch.arange(30.0) * 2)[4:10].view(2, 3)
    torch.testing.assert_close(gm(same), program(same), rtol=0, atol=0)
    for other in (torch.arange(24.0)[6:12].view(2, 3), torch.arange(24.0)[4:10].view(3, 2).t()):
        with pytest.raises(SpecializationError, match=r"x of strides \[\d+, \d+\] and storage offset \d+, but it "
                                                      r"was traced with strides \[3, 1\] and storage offset 4, and "
                                                      r"the graph reads its storage"):
            gm(other)


def test_an_input_whose_storage_is_not_read_takes_any_layout():
    gm = trace(lambda x: x[1:] * 2, torch.arange(24.0)[4:10].view(2, 3))
    other = torch.arange(24.0)[6:12].view(3, 2).t()
    torch.testing.assert_close(gm(other), other[1:] * 2, rtol=0, atol=0)


# ----------------------------------------------------------------------------- out= tensors of another shape

def _arange_into(t):
    return torch.arange(5., out=t)


def _add_into_a_made_tensor(x):
    t = torch.zeros(3)       # made by the program: resized in the graph
    torch.add(x, 1, out=t)
    return t * 2


def _resize_warnings(fn, *args):
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        fn(*args)
    return [w for w in warned if "resized" in str(w.message)]


@pytest.mark.parametrize("run", ["graph", "executor"])
@pytest.mark.parametrize("via", ["direct", "make_fx"])
@pytest.mark.parametrize("size", [3, 0], ids=["with_elements", "empty"])
def test_a_wrongly_shaped_out_argument_is_resized_as_eager_resizes_it(size, via, run):
    """eager resizes an out= tensor of another shape (with a UserWarning where it had elements); the traced
    module resizes the real argument at each call, then the graph writes into it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(_arange_into, torch.zeros(size), _via=via)
    if run == "executor":
        gm = executor.compile(gm)
    for _ in range(2):
        got, expected = torch.full((size,), 7.), torch.full((size,), 7.)
        warned_e = _resize_warnings(_arange_into, expected)
        warned_t = _resize_warnings(gm, got)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        assert got.stride() == expected.stride()
        assert bool(warned_t) == bool(warned_e) == (size > 0)


def test_a_wrongly_shaped_out_argument_of_symbolic_size_is_resized():
    """dynamic=True: out's size is symbolic; resizing it (torch's resize_ asks a symbolic tensor for its
    storage_offset() and raised) replaces it, and the graph serves out tensors of every size as eager does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(_arange_into, torch.zeros(3), dynamic=True)
    for size in (3, 5, 0, 7):
        got, expected = torch.full((size,), 7.), torch.full((size,), 7.)
        warned_e = _resize_warnings(_arange_into, expected)
        warned_t = _resize_warnings(gm, got)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        assert bool(warned_t) == bool(warned_e), size


@pytest.mark.parametrize("via", ["auto", "make_fx"])
def test_a_wrongly_shaped_out_tensor_the_program_makes_is_resized_in_the_graph(via):
    x = torch.randn(2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(_add_into_a_made_tensor, x, _via=via)
        expected = _add_into_a_made_tensor(x)
    torch.testing.assert_close(gm(x), expected, rtol=0, atol=0)
    assert not non_prim_ops(gm)


def test_an_out_argument_that_cannot_be_resized_is_refused_as_eager_refuses_it():
    """A tensor over numpy's memory cannot grow: eager's resize raises, so does the traced module's."""
    def made():
        return torch.from_numpy(np.zeros(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="not resizable") as eager:
        _arange_into(made())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(_arange_into, made())
        with pytest.raises(type(eager.value), match="not resizable"):
            gm(made())


def test_a_wrongly_shaped_out_view_is_resized_as_eager_resizes_it():
    """A view resized: its base's storage grows where it must (eager's resize_ of a view), the values reach it."""
    base_e, base_t = torch.zeros(4), torch.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(_arange_into, base_t[1:3])
        view_e, view_t = base_e[1:3], base_t[1:3]
        _arange_into(view_e)
        gm(view_t)
    torch.testing.assert_close(view_t, view_e, rtol=0, atol=0)
    torch.testing.assert_close(base_t, base_e, rtol=0, atol=0)


def _bincount_into(x, out):
    return torch.ops.aten.bincount.out(x, out=out)


@pytest.mark.parametrize("run", ["graph", "executor"])
def test_an_out_argument_of_a_data_sized_result_is_resized_to_what_the_data_gives(run):
    """bincount's size is data: one graph resizes out where a call's data gives another size (warning as
    eager's resize_output where out had elements), and writes into out as it is where the data gives its size."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(_bincount_into, torch.tensor([0, 1, 1]), torch.zeros(4, dtype=torch.int64))
    if run == "executor":
        gm = executor.compile(gm)
    for data, resized in (([0, 1, 1], True), ([3, 0, 0], False), ([5, 5, 2], True)):
        x, got = torch.tensor(data), torch.full((4,), 7, dtype=torch.int64)
        expected = torch.bincount(x)
        warned = _resize_warnings(gm, x, got)
        torch.testing.assert_close(got, expected, rtol=0, atol=0)
        assert bool(warned) == resized, (data, warned)


def test_a_data_sized_result_into_an_out_tensor_the_program_makes_or_views():
    def made(x):   # o takes the data's sizes in the graph: what reads it after sees them
        o, n = torch.zeros(2, dtype=torch.int64), torch.zeros(1, dtype=torch.int64)
        torch.ops.aten.bincount.out(x.flatten(), out=o)
        torch.ops.aten.nonzero.out(x, out=n)
        return o * 2, o.sum(), o.shape[0], n

    def view(x, buf):   # a view cannot be resized in the graph: its sizes are the data's (checked at run time)
        torch.ops.aten.bincount.out(x, out=buf[1:4])
        return buf
    x = torch.tensor([[0, 2], [1, 0], [3, 3]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gm = trace(made, x)
        torch.testing.assert_close(gm(x), made(x), rtol=0, atol=0)
        x = torch.tensor([0, 2, 2])
        gm = trace(view, x, torch.zeros(5, dtype=torch.int64))
        got = gm(x, torch.zeros(5, dtype=torch.int64))
        torch.testing.assert_close(got, view(x, torch.zeros(5, dtype=torch.int64)), rtol=0, atol=0)
        with pytest.raises(RuntimeError, match=r"update has shape \(4,\)"):   # eager resizes the view
            gm(torch.tensor([0, 1, 3]), torch.zeros(5, dtype=torch.int64))   # 4 counts into a view of 3


def _sparse_lookups():
    indices, offsets = torch.tensor([1, 2, 4, 4]), torch.tensor([0, 2])
    torch.manual_seed(0)
    yield "embedding", torch.nn.Embedding(10, 3, sparse=True), (indices,)
    yield "embedding_bag", torch.nn.EmbeddingBag(10, 3, mode="mean", sparse=True), (indices, offsets)


@pytest.mark.parametrize("op,module,args", list(_sparse_lookups()), ids=["embedding", "embedding_bag"])
def test_a_sparse_gradient_is_refused_by_the_traced_graph(op, module, args):
    """sparse=True asks for a sparse gradient of the weight; the traced graph's, made by its prims'
    derivatives, would be dense: a call that could form it is refused naming the op and the argument, and
    inference (no_grad, or a weight that takes no gradient) runs with eager's values."""
    gm = trace(module, *args)
    with pytest.raises(NotImplementedError, match=rf"{op} with sparse=True asks for a sparse gradient of its "
                                                  r"'weight'.*its gradient would be dense"):
        gm(*args)
    assert module.weight.grad is None
    with torch.no_grad():
        torch.testing.assert_close(gm(*args), module(*args), rtol=0, atol=0)
    module.requires_grad_(False)
    torch.testing.assert_close(gm(*args), module(*args), rtol=0, atol=0)
