"""Unbacked (data-dependent) sizes: programs whose shapes follow a tensor's values (boolean masks,
nonzero, unique, repeat_interleave with tensor repeats, tensor_split with tensor indices, sizes read
with .item()) trace in static and dynamic mode to prim-only graphs, and each graph, run on other
values (other mask counts: none, all, some), gives eager's values, shapes and dtypes.

One-off tests: the OpInfo database samples one input per trace; here one trace meets several inputs.
"""
from __future__ import annotations

import pytest
import torch

from primkit import graph
from primkit.decompositions import DecompositionError
from primkit.graph import trace
from primkit.runtime.eager import through_prims


def _masked_assign(x):
    y = x.clone()
    y[x > 0] = 0.0
    return y


def _masked_assign_rows(x):
    y = x.clone()
    y[x > 0] = x[x > 0] * 10
    return y


def _masked_assign_dim1(x):
    y = x.reshape(4, 2).t().clone()
    y[:, y[0] > 0] = torch.tensor([[1.0], [2.0]])
    return y


def _tensor_split_data(x):
    return torch.tensor_split(x, (x[:3].abs() * 4).long().sort().values)


PROGRAMS = {
    # boolean masks: reads
    "mask_read": lambda x: x[x > 0] * 2,
    "mask_read_2d_mask": lambda x: x.reshape(2, 4)[x.reshape(2, 4) > 0],
    "mask_read_rows": lambda x: x.reshape(4, 2)[x[:4] > 0] + 1,
    "mask_read_dim1": lambda x: x.reshape(2, 4)[:, x[:4] > 0],
    # boolean masks: writes (the result's shape is the input's)
    "mask_assign_number": _masked_assign,
    "mask_index_put_": lambda x: x.clone().index_put_((x > 0,), torch.tensor(1.0)),
    "mask_index_put_2d": lambda x: x.reshape(2, 4).index_put((x.reshape(2, 4) < 0,), torch.tensor(0.0)),
    "mask_assign_rows": _masked_assign_rows,
    "mask_assign_dim1": _masked_assign_dim1,
    "mask_index_put_accumulate": lambda x: x.clone().index_put_((x > 0,), torch.tensor(1.0), accumulate=True),
    # the data-dependent ops
    "nonzero": lambda x: torch.nonzero(x.reshape(2, 4) > 0),
    "nonzero_as_tuple": lambda x: torch.nonzero(x.reshape(2, 4) > 0, as_tuple=True),
    "argwhere": lambda x: torch.argwhere(x > 0),
    "masked_select": lambda x: torch.masked_select(x, x > 0),
    "unique": lambda x: torch.unique((x * 2).round()),
    "unique_inverse_counts": lambda x: torch.unique((x * 2).round(), return_inverse=True, return_counts=True),
    "unique_consecutive": lambda x: torch.unique_consecutive((x * 2).round(), return_counts=True),
    "unique_dim": lambda x: torch.unique((x.reshape(4, 2) > 0).long(), dim=0),
    "repeat_interleave_tensor": lambda x: torch.repeat_interleave(x, (x > 0).long() * 2),
    "tensor_split_constant_indices": lambda x: torch.tensor_split(x, torch.tensor([2, 5])),
    "tensor_split_data_indices": _tensor_split_data,
    # two selections by one mask: two unbacked counts, equal where it runs (stack checks that then)
    "stack_of_selections": lambda x: torch.stack([x[x > 0], (x * 2)[x > 0]], 1),
    # sizes and numbers read with .item()
    "item_zeros": lambda x: torch.zeros((x > 0).sum().item()),
    "item_arange": lambda x: torch.arange((x > 0).sum().item()) * 2,
    "item_slice": lambda x: x.sort().values[: (x > 0).sum().item()],
    "item_number": lambda x: x * x.max().item(),
    "item_negative_start": lambda x: x.sort().values[-(x > 0).sum().item():],    # -0: the whole tensor
    "item_negative_end": lambda x: x.sort().values[: (x > 0).sum().item() - 8],
    # a start of either sign (narrow wraps a negative one), read from data as a tensor and as a number
    # (length 1: start -1 ends at the end, eager's narrow then gives slice an end that is a Piecewise)
    "narrow_tensor_start": lambda x: torch.narrow(x.sort().values, 0, (x > 0).sum() - 4, 1),
    "narrow_item_start": lambda x: torch.narrow(x.sort().values, 0, (x > 0).sum().item() - 4, 1),
    "select_item_index": lambda x: torch.select(x.sort().values, 0, (x > 0).sum().item() - 4),
    "select_item_index_dim1": lambda x: torch.select(x.reshape(2, 4), 1, (x[:4] > 0).sum().item() - 2),
}


# Ops on a tensor of data-dependent length (x[x > 0]): their decompositions and meta rules decide what
# they can about the unbacked size and guard on nothing else.
AFTER_MASK = {
    "softmax": lambda y: y.softmax(0),
    "cumsum": lambda y: y.cumsum(0),
    "cat": lambda y: torch.cat([y, y * 2]),
    "stack_transpose_contiguous": lambda y: torch.stack([y, y]).t().contiguous(),
    "sort": lambda y: y.sort().values,
    "pad": lambda y: torch.nn.functional.pad(y, (1, 2)),
    "outer": lambda y: y.unsqueeze(1) @ y.unsqueeze(0),
    "mean_var": lambda y: torch.stack([y.mean(), y.var()]),
    "view_expand_sum": lambda y: y.view(-1, 1).expand(-1, 3).sum(1),
    "step_slice_flip": lambda y: y[::2].flip(0),
    "max": lambda y: torch.cat([y, torch.zeros(1)]).max(),   # (eager's max of no element raises)
    "reshape": lambda y: torch.cat([y, y]).reshape(2, -1).sum(0),
    "broadcast": lambda y: y[:, None] + torch.ones(3),
    "layer_norm": lambda y: torch.nn.functional.layer_norm(y[:, None].expand(-1, 4), (4,)),
    "cross_entropy": lambda y: torch.nn.functional.cross_entropy(y[:, None].expand(-1, 4) * torch.arange(4.0),
                                                                 torch.zeros(y.shape[0], dtype=torch.long)),
    "arange_of_size": lambda y: torch.arange(y.shape[0]) * y,
    "scatter_add": lambda y: torch.zeros(4).scatter_add(0, (y.abs() * 2).long().clamp(max=3), y),
    "repeat_roll": lambda y: y.repeat(2).roll(1),
}
PROGRAMS.update({f"after_mask_{name}": (lambda x, f=f: f(x[x > 0])) for name, f in AFTER_MASK.items()})


def _inputs():
    """The traced input and others with no, all and some positive elements."""
    torch.manual_seed(0)
    return [torch.randn(8), -torch.rand(8) - 0.1, torch.rand(8) + 0.1, torch.randn(8), torch.randn(8)]


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_traced_graph_runs_on_other_values(name, dynamic):
    program = PROGRAMS[name]
    first, *others = _inputs()
    gm = trace(program, first, dynamic=dynamic)
    assert graph.non_prim_ops(gm) == []
    for x in [first, *others]:
        want, got = _flat(program(x)), _flat(gm(x))
        assert len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == w.dtype, (name, g.shape, w.shape, g.dtype, w.dtype)
            # exact for indices, counts and selections; float math after a mask (softmax, var, layer_norm)
            # at assert_close's float defaults: the prims reduce in another order than eager's kernels
            torch.testing.assert_close(g, w, equal_nan=True)


def test_item_becomes_the_item_prim():
    gm = trace(lambda x: torch.zeros((x > 0).sum().item()), torch.randn(8))
    assert [n.target for n in gm.graph.nodes if n.op == "call_function" and "item" in str(n.target)] == \
        [torch.ops.primkit.item.default]


def test_python_number_of_data_is_explained():
    # int() makes the value one Python number: the graph cannot hold it for every input
    with pytest.raises(DecompositionError, match=r"makes it a plain Python number with int\(\) at "
                                                 r".*test_unbacked.py:\d+ in <lambda>") as info:
        trace(lambda x: torch.zeros(int((x > 0).sum().item())), torch.randn(8))
    assert info.value.missing == ["aten::_local_scalar_dense"]


def _ctc_inputs(seed):
    """log_probs and padded targets with lengths that differ per call (some too short: infinite loss)."""
    g = torch.Generator().manual_seed(seed)
    log_probs = torch.randn(6, 3, 4, generator=g).log_softmax(2)
    targets = torch.randint(1, 4, (3, 3), generator=g)
    return log_probs, targets, torch.randint(1, 7, (3,), generator=g), torch.randint(0, 4, (3,), generator=g)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_runs_on_other_lengths(zero_infinity, dynamic):
    def program(log_probs, targets, input_lengths, target_lengths):
        return torch.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, reduction="none",
                                            zero_infinity=zero_infinity)
    gm = trace(program, *_ctc_inputs(0), dynamic=dynamic)
    assert graph.non_prim_ops(gm) == []
    for seed in range(1, 6):
        inputs = _ctc_inputs(seed)
        torch.testing.assert_close(gm(*inputs), program(*inputs))


# Programs that read data on the host by their own definition: the value leaves the tensors as a Python
# bool, so a graph cannot hold it for every input (run them through prims eagerly instead).
HOST_VALUE_PROGRAMS = {
    # torch.allclose / torch.equal return a Python bool (their schemas' `-> bool`): torch's binding makes one of
    # the traced SymBool, which guards on the data
    "allclose": lambda x: x * torch.allclose(x, x.abs()),
    "equal": lambda x: x * torch.equal(x, x.abs()),
    # F.gaussian_nll_loss checks `if torch.any(var < 0): raise ValueError(...)` in Python: a branch on data
    "gaussian_nll_loss": lambda x: torch.nn.functional.gaussian_nll_loss(x, x * 0.5, x.abs() + 0.1),
}


@pytest.mark.parametrize("name", list(HOST_VALUE_PROGRAMS))
def test_host_value_programs_point_to_the_eager_mode(name):
    # what trace does with data-dependent control flow (issue 20, item 4): it refuses, naming the read and
    # the program's line, and points to through_prims, under which the program runs equal to eager
    program, x = HOST_VALUE_PROGRAMS[name], torch.randn(8)
    with pytest.raises(DecompositionError, match=r"(?s)test_unbacked\.py:\d+.*through_prims.*_local_scalar_dense"):
        trace(program, x)
    with through_prims():
        through = program(x)
    torch.testing.assert_close(through, program(x))
