"""Unbacked (data-dependent) sizes: programs whose shapes follow a tensor's values (boolean masks,
nonzero, unique, repeat_interleave with tensor repeats, tensor_split with tensor indices, sizes read
with .item()) trace in static and dynamic mode to prim-only graphs, and each graph, run on other
values (other mask counts: none, all, some), gives eager's values, shapes and dtypes.

One-off tests: the OpInfo database samples one input per trace; here one trace meets several inputs.
"""
from __future__ import annotations

import pytest
import torch
import torch.utils._pytree as pytree

from primkit import graph
from primkit.decompositions import DecompositionError
from primkit.graph import trace
from primkit.opinfo.harness import as_function, clone_sample, storage_copy
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
    # an elementwise op on nonzero's (count, 1) result: its strides are decided without a guard on the count
    "nonzero_elementwise": lambda x: torch.nonzero(x > 0) * 2,
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


# -- the OpInfo entries of the families below, on rows selected by data --------------------------------------
# Each entry's op on its first sample whose input is a floating or integer tensor of >= 1 dim, every tensor of
# the sample that shares the input's leading dim indexed by rows a mask selects (``x[mask.nonzero()[:, 0]]``):
# the leading size is then unbacked (data), and the graph traced on some rows runs on some and on no rows.
SWEEP_FAMILIES = ("elementwise", "reductions", "shape", "indexing", "sorting", "nn")

# why an entry fails where its leading size is data, and the entries that fail so (strict xfails, ``raises``: the
# exception the test meets). DecompositionError: the decomposition decides on the size (a guard, refused).
_PIECES = ("the number of pieces follows the data-sized dim: a graph holds a fixed number of outputs",
           DecompositionError)
_EMPTY_BRANCH = ("the decomposition gives eager's value for no elements on a branch of its own (its general path "
                 "needs an element): a guard on the data-sized count", DecompositionError)
_SAMPLE_CONSTANTS = ("the sample's sizes and strides are the full input's constants: the decomposition checks them "
                     "against the data-sized input (a guard)", DecompositionError)
_WIDE_ASSUME = ("the graph's general path assumes a size its data may not have (a runtime assert that fails on no "
                "rows, where eager gives an empty result)", RuntimeError)
_EAGER_EMPTY_SHAPE = ("eager's result for no rows has another shape than its rule for rows (repeat_interleave "
                      "ignores output_size): a graph's shape cannot follow whether the count is 0", AssertionError)
_OUT_OF_RANGE = ("the sample's index tensors address the input's rows: on selected rows they point past them "
                 "(eager's kernel reads what lies there, or raises)", (AssertionError, RuntimeError, IndexError))
SWEEP_XFAILS: dict = {
    **dict.fromkeys(("split", "split_copy", "unsafe_split", "chunk", "chunk.table", "unsafe_chunk", "vsplit",
                     "tensor_split", "tensor_split.table", "unbind", "unbind_copy", "combinations"), _PIECES),
    **dict.fromkeys(("median_all", "nanmedian_all", "median", "nanmedian", "logsumexp", "trapezoid", "trapz",
                     "histogram", "histogramdd", "aten.histogram.bin_ct_out", "bincount", "_trilinear",
                     "aten._safe_softmax", "unique_dim", "unique_dim_out", "unique_dim_consecutive",
                     "unique_dim_consecutive_out", "unique_consecutive_dim", "nonzero_static", "put",
                     "aten.conv_tbc", "_pdist_forward", "pdist", "affine_grid_generator", "repeat_interleave_tensor",
                     "_assert_async", "narrow.Tensor", "narrow.Tensor.expanded", "squeeze", "squeeze_copy", "cov",
                     "corrcoef"), _EMPTY_BRANCH),
    **dict.fromkeys(("_reshape_alias", "_reshape_alias_copy", "_reshape_alias.of_view", "as_strided_scatter",
                     "as_strided_scatter.of_view", "as_strided_scatter.strided_self", "aten.as_strided_scatter"),
                    _SAMPLE_CONSTANTS),
    **dict.fromkeys(("diag", "diag_embed", "diagflat"), _WIDE_ASSUME),
    "repeat_interleave_counts_static": _EAGER_EMPTY_SHAPE,
    # eager returns the input's shape for an empty input: the decomposition's branch for it guards on the count
    "nn.functional.pixel_unshuffle": _EMPTY_BRANCH,
    **dict.fromkeys(("take_along_dim", "aten._embedding_bag_dense_backward",
                     "aten._embedding_bag_backward.scale_grad_by_freq"), _OUT_OF_RANGE),
    # a wrong value, not of data sizes: eager's var_mean (Welford) gives a nan mean where +inf is followed by a
    # finite value (order-dependent); primkit's two-pass mean gives inf. Same on a static trace of those rows.
    "var_mean_nonfinite": ("eager's Welford mean of [1, inf, 0] is nan, primkit's inf (static traces too)",
                           AssertionError),
}

# entries left out: on selected rows eager's kernel reads past its input and kills the process (segfault), as the
# sample's offsets/indices address the full input's rows
SWEEP_LEFT_OUT = {"segment_reduce", "aten._embedding_bag_backward", "aten._embedding_bag_per_sample_weights_backward"}

# entries whose eager kernel kills the process on no rows (SIGFPE: an integer division by the size 0): compared
# on some rows only
EAGER_CRASHES_ON_NO_ROWS = {
    name: "torch's _weight_norm_interface CPU kernel divides by the size-0 dim (SIGFPE)"
    for name in ("nn.utils.weight_norm", "aten._weight_norm_interface", "aten._weight_norm_interface.out")
}


def _sweep_entries():
    from primkit.opinfo import definitions
    return [e for family in SWEEP_FAMILIES for e in getattr(definitions, family).ENTRIES]


def _sweep_dtype(entry):
    dtypes = entry.supported_dtypes("cpu")
    usable = sorted((d for d in dtypes if d.is_floating_point or not (d.is_complex or d == torch.bool)), key=str)
    return torch.float32 if torch.float32 in dtypes else (torch.int64 if torch.int64 in dtypes else
                                                          next(iter(usable), None))


def _row_masks(n):
    """Some rows (every other one, the first included: all of a single row) and no rows."""
    return [torch.arange(n) % 2 == 0, torch.zeros(n, dtype=torch.bool)]


def _on_selected_rows(entry, sample):
    """(program(mask, *tensors), tensors): the op on the sample with each tensor that shares the input's leading
    dim indexed by the rows mask selects; None where the sample has no such input."""
    first = sample.input
    if not (isinstance(first, torch.Tensor) and first.dim() >= 1 and first.shape[0] >= 1
            and (first.dtype.is_floating_point or not (first.dtype.is_complex or first.dtype == torch.bool))):
        return None
    fn, tensors = as_function(entry.op, sample)
    n = first.shape[0]
    leading = [t.dim() >= 1 and t.shape[0] == n for t in tensors]

    def program(mask, *tensors):
        rows = mask.nonzero()[:, 0]
        return fn(*(t[rows] if lead else t for t, lead in zip(tensors, leading, strict=True)))
    return program, tensors


def _eager_or_error(program, *args):
    try:
        return program(*args), None
    except Exception as e:   # noqa: BLE001 - eager refusing a mask (max of no rows) is compared as a refusal
        return None, e


def _sweep_case(entry):
    """(program, tensors, dtype) for the entry's first sample that eager accepts on some rows, else None."""
    dtype = _sweep_dtype(entry)
    if dtype is None or entry.seeded:
        return None
    for sample in entry.samples("cpu", dtype):
        case = _on_selected_rows(entry, clone_sample(sample))
        if case is None:
            continue
        program, tensors = case
        if _eager_or_error(program, _row_masks(tensors[0].shape[0])[0], *map(storage_copy, tensors))[1] is None:
            return program, tensors, dtype
    return None


def _sweep_params():
    marks = {name: pytest.mark.xfail(raises=raises, reason=reason, strict=True)
             for name, (reason, raises) in SWEEP_XFAILS.items()}
    return [pytest.param(e, id=e.name, marks=marks.get(e.name, ())) for e in _sweep_entries()
            if e.name not in SWEEP_LEFT_OUT]


@pytest.mark.parametrize("entry", _sweep_params())
def test_opinfo_on_rows_selected_by_data(entry):
    case = _sweep_case(entry)
    if case is None:   # no sample of a floating or integer input with a leading dim that eager takes on some rows
        return
    program, tensors, dtype = case
    masks = _row_masks(tensors[0].shape[0])[:1 if entry.name in EAGER_CRASHES_ON_NO_ROWS else 2]
    gm = trace(program, masks[0], *map(storage_copy, tensors))
    assert graph.non_prim_ops(gm) == []
    atol, rtol = entry.tolerance(dtype)
    for mask in masks:
        # each call on its own copies: an op may write into its arguments (batch norm's running statistics)
        want, refused = _eager_or_error(program, mask, *map(storage_copy, tensors))
        if refused is not None:   # eager's own error on no rows (a reduction without identity): nothing to compare
            continue
        got = gm(mask, *map(storage_copy, tensors))
        for g, w in zip(pytree.tree_leaves(got), pytree.tree_leaves(want), strict=True):
            if not isinstance(w, torch.Tensor):
                assert g == w
                continue
            assert g.shape == w.shape and g.dtype == w.dtype, (int(mask.sum()), g.shape, w.shape, g.dtype, w.dtype)
            torch.testing.assert_close(g, w, atol=atol, rtol=rtol, equal_nan=True)
