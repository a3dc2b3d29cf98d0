"""get_decompositions and trace: nothing silently dropped."""
from __future__ import annotations

import pytest
import torch

from primkit import decompositions, graph
from primkit.decompositions import DecompositionError, get_decompositions
from primkit.graph import trace

aten = torch.ops.aten


def test_table_is_overloads_to_callables():
    table = get_decompositions()
    assert len(table) >= 300
    assert all(isinstance(k, torch._ops.OpOverload) and callable(v) for k, v in table.items())


def test_item_of_a_real_tensor_inside_composites_of_the_table():
    # aten::item is CompositeImplicitAutograd and the table's entry for it is the item prim: inside composites of
    # the full table, a real tensor's .item() (a random op drawing its seed) ran the prim, whose kernel read the
    # value with .item() again, until RecursionError
    from primkit.decompositions.composite import composites
    with composites(get_decompositions()):
        assert torch.tensor([[2.5]]).item() == 2.5
        assert torch.ops.primkit.item(torch.tensor(3)) == 3


def test_packet_expands_to_covered_overloads():
    table = get_decompositions([aten.add])
    # The packet's tensor overloads; its TorchScript overloads (add.int, add.str, ...) have none.
    assert {op.name() for op in table} == {"aten::add.Tensor", "aten::add.Scalar", "aten::add.out",
                                           "aten::add.Scalar_out"}


def test_missing_ops_are_named_not_dropped():
    with pytest.raises(DecompositionError) as info:
        get_decompositions([aten.add.Tensor, aten._cudnn_rnn.default, aten.miopen_rnn.default])
    assert info.value.missing == ["aten::_cudnn_rnn", "aten::miopen_rnn"]
    assert "aten::_cudnn_rnn" in str(info.value) and "aten::add" not in str(info.value)


def test_trace_lists_every_missing_op():
    table = get_decompositions([aten.add.Tensor])

    def fn(x):
        return torch.exp(x + 1).cumsum(0).sin()
    with pytest.raises(DecompositionError) as info:
        trace(fn, torch.randn(3), decompositions=table)
    assert info.value.missing == ["aten::cumsum", "aten::exp", "aten::sin"]


def test_trace_graph_runs_and_is_prim_only():
    x = torch.randn(3, 4)
    gm = trace(lambda x: (x * 2).exp().t(), x)
    assert not graph.non_prim_ops(gm)
    torch.testing.assert_close(gm(x), (x * 2).exp().t())


def test_trace_dynamic_keeps_sizes_symbolic():
    gm = trace(lambda x: x * 2 + 1, torch.randn(3, 4), dynamic=True)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    assert any(isinstance(s, torch.SymInt) for s in placeholders[0].meta["val"].shape)
    torch.testing.assert_close(gm(torch.ones(5, 6)), torch.full((5, 6), 3.0))


@pytest.mark.parametrize("call, message", [
    (lambda: get_decompositions("aten.add"), "ops must be a collection of OpOverloads"),
    (lambda: get_decompositions(["aten::add.Tensor"]), "pass torch.ops.aten.add.Tensor"),
    (lambda: get_decompositions(target="add"), "expected a collection of prim names"),
    (lambda: get_decompositions(target={1}), "expected prim names"),
    (lambda: trace(lambda x: x + 1, torch.ones(2), target="add"), r"trace\(target=...\): expected a collection"),
], ids=["ops-str", "op-str", "target-str", "target-int", "trace-target-str"])
def test_strings_where_ops_or_prim_sets_are_expected(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_trace_from_threads_leaves_no_global_state():
    # make_fx's global state made concurrent traces fail (CURRENT_PATCHER is None), and composites'
    # save/restore, interleaved across threads, left primkit's kernels in torch's py_kernels.
    import threading

    import torch.nn.functional as F
    from torch.fx.experimental.proxy_tensor import make_fx

    def program(t):
        return torch.softmax(t, -1) + F.layer_norm(t, (8,))

    x = torch.randn(3, 8)
    errors = []

    def work():
        try:
            for _ in range(3):
                gm = trace(program, x)
                assert graph.non_prim_ops(gm) == []
                torch.testing.assert_close(gm(x), program(x))
        except Exception as e:   # collected: an exception in a thread does not fail the test by itself
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    plain = make_fx(program)(x)
    targets = {n.target for n in plain.graph.nodes if n.op == "call_function"}
    assert not any(getattr(t, "namespace", None) == "primkit" for t in targets), targets
    assert aten._softmax.default in targets and aten.native_layer_norm.default in targets


def test_a_write_through_a_view_traces_and_every_missing_op_is_named():
    # fill_diagonal_ writes through a view (torch's composite: as_strided + fill_), which the
    # functionalized trace computes anew; binomial has no decomposition and is named. (A trace
    # that functionalized only on a second pass named fill_diagonal_ as missing too.)
    def writes_diagonal(x):
        y = x.clone()
        y.fill_diagonal_(0.5)
        return y
    x = torch.rand(4, 4)
    torch.testing.assert_close(trace(writes_diagonal, x)(x), writes_diagonal(x), rtol=0, atol=0)
    with pytest.raises(DecompositionError) as info:
        trace(lambda x: torch.binomial(torch.full_like(x, 5.0), x) + writes_diagonal(x), x)
    assert info.value.missing == ["aten::binomial"]


def test_data_dependent_control_flow_names_the_op_and_the_line():
    def program(x):
        if x.sum() > 0:     # branches on a value
            return x * 2
        return x
    with pytest.raises(DecompositionError, match=r"read a tensor's value on the host, and the program branches on "
                                                 r"it at .*test_registry.py:\d+ in program \(if x.sum\(\) > 0:") as info:
        trace(program, torch.rand(3))
    assert info.value.missing == ["aten::_local_scalar_dense"]


def test_an_op_a_library_defines_later_registers_once_defined(monkeypatch):
    """register_when_defined: a decomposition of an op that does not exist yet (FSDP2's torch.ops.fsdp, defined when
    a program imports FSDP2) enters the table once the op exists; a second one for the same name is refused."""
    from primkit.decompositions import registry
    from primkit.decompositions.registry import register_when_defined
    for name in ("_REGISTRY", "_DEFERRED"):   # the test's op leaves the registry with the test
        monkeypatch.setattr(registry, name, dict(getattr(registry, name)))

    @register_when_defined("primkit_test_later::twice")
    def twice(x):
        return torch.ops.aten.add.Tensor(x, x)
    assert not any(op.namespace == "primkit_test_later" for op in get_decompositions())
    lib = torch.library.Library("primkit_test_later", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CompositeExplicitAutograd")
    op = torch.ops.primkit_test_later.twice.default
    assert get_decompositions()[op] is twice
    gm = trace(op, torch.arange(3.0))
    assert torch.equal(gm(torch.arange(3.0)), torch.tensor([0.0, 2.0, 4.0]))
    with pytest.raises(ValueError, match="primkit_test_later::twice has two decompositions"):
        register_when_defined("primkit_test_later::twice")(twice)
