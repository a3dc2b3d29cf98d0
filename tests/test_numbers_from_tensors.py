"""Python numbers read from tensors (``t.item()``): traced as the item prim, a symbolic number (an unbacked
SymInt, SymFloat or SymBool) that the graph computes with, passes to ops as a scalar and returns as a Python
number, read again at each call. What the program assumes of such a number (torch._check, torch._check_is_size,
torch._assert_async, what an op needs of it) is checked where the graph runs: a false assertion raises.
What cannot be traced stays a clear refusal naming the read and the line: branching on data, and int(t),
float(t), bool(t), range(t), which Python makes plain numbers (never symbolic).

One-off tests: the OpInfo database samples one input per trace; here one trace meets several inputs, and
the programs are whole programs (a number flows from one op into another), not single ops.
"""
from __future__ import annotations

import pytest
import torch

from primkit import decompositions, graph
from primkit.decompositions import DecompositionError
from primkit.graph import trace
from primkit.runtime import executor


def _clamp_to_max_of(x, m):
    return x.clamp(max=m.max().item())


def _number_and_tensor(x, s):
    return x * 2, x.sum().item() * s.item()


# program -> its inputs at trace time and at later calls (other values; the same shapes)
PROGRAMS = {
    "return_item": (lambda x, s: x.sum().item(), []),
    "return_number_arithmetic": (lambda x, s: (s.item() * 2 + 1) / 3, []),
    "return_int_arithmetic": (lambda x, n: n.item() * 2 - 1, ["n"]),
    "return_bool_item": (lambda x, s: (s > 0).item(), []),
    "return_tensor_and_number": (_number_and_tensor, []),
    "mul_by_item": (lambda x, s: x * s.item(), []),
    "item_times_tensor": (lambda x, s: s.item() * x, []),
    "add_item": (lambda x, s: x + s.item(), []),
    "add_alpha_item": (lambda x, s: torch.add(x, x, alpha=s.item()), []),
    "div_by_item": (lambda x, s: x / s.item(), []),
    "pow_item_exponent": (lambda x, s: x.abs() ** s.item(), []),
    "pow_item_int_exponent": (lambda x, n: x ** n.item(), ["n"]),
    "full_of_item": (lambda x, s: torch.full((3,), s.item()), []),
    "full_like_item": (lambda x, s: torch.full_like(x, s.item()), []),
    "masked_fill_item": (lambda x, s: x.masked_fill(x > 0, s.item()), []),
    "where_item": (lambda x, s: torch.where(x > 0, x, s.item()), []),
    "clamp_max_of_item": (_clamp_to_max_of, []),
    "clamp_both_items": (lambda x, s: x.clamp(-s.item(), s.item()), []),
    "lerp_weight_item": (lambda x, s: torch.lerp(x, x * 2, s.item()), []),
    "item_as_size_and_value": (lambda x, n: torch.full((n.item(),), n.item()), ["n"]),
}


def _inputs(name):
    """(the traced inputs, other inputs): s a float scalar tensor (n an int one) of another value each call,
    positive and negative; m (clamp) a vector whose max moves."""
    _, int_args = PROGRAMS[name]
    g = torch.Generator().manual_seed(0)
    calls = []
    for k, value in enumerate((1.5, -2.25, 3.0, 0.5)):
        x = torch.randn(5, generator=g)
        if name == "clamp_max_of_item":
            second = torch.randn(3, generator=g)
        elif "n" in int_args:
            second = torch.tensor(k + 2)
        else:
            second = torch.tensor(value)
        calls.append((x, second))
    return calls[0], calls[1:]


def _assert_same(got, want):
    """Eager's result: a Python number of eager's type and value, or a tensor equal to eager's."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _assert_same(g, w)
    elif isinstance(want, torch.Tensor):
        torch.testing.assert_close(got, want, equal_nan=True)
        assert got.dtype == want.dtype
    else:
        assert type(got) is type(want) and got == want, (got, want)


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_number_program_equals_eager_on_other_values(name, dynamic):
    program = PROGRAMS[name][0]
    first, others = _inputs(name)
    gm = trace(program, *first, dynamic=dynamic)
    assert graph.non_prim_ops(gm) == []
    assert any(n.target is torch.ops.primkit.item.default for n in gm.graph.nodes)
    run = executor.compile(gm)
    for args in [first, *others]:
        want = program(*args)
        _assert_same(gm(*args), want)     # the reference backend
        _assert_same(run(*args), want)    # the executor


# Programs trace refuses: what they do with the value cannot be one graph for every input.
REFUSED = {
    # Python requires int(), float(), an index to be a plain int or float, never a symbolic one
    "int_of_tensor": (lambda x, t: x * int(t), r"plain Python number with int\(\) at .*test_numbers_from_tensors"),
    "float_of_tensor": (lambda x, t: x + float(t), r"plain Python number with float\(\) at .*test_numbers_from"),
    "range_of_tensor": (lambda x, t: sum(x for _ in range(t)), r"plain Python number with an index \(range"),
    "int_of_item": (lambda x, t: x * int(t.item()), r"plain Python number with int\(\) at .*test_numbers_from"),
    # branches on data: bool(t), if, while
    "bool_of_tensor": (lambda x, t: x * bool(t), r"branches on it at .*test_numbers_from_tensors\.py:\d+"),
    "if_on_data": (lambda x, t: x if t.sum() > 0 else -x, r"branches on it at .*test_numbers_from_tensors\.py:\d+"),
    # a decomposition that picks its formula by the number's value (the norm's order): named as primkit's limit
    "norm_order_item": (lambda x, t: torch.norm(x, p=t.item()),
                        r"passes to an op at .*test_numbers_from_tensors\.py:\d+.*decomposition in primkit asks for "
                        r"its value at .*reductions/norms\.py:\d+"),
}


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
@pytest.mark.parametrize("name", list(REFUSED))
def test_refused_with_the_read_and_the_line(name, dynamic):
    # dynamic: torch's fake mode would otherwise read a 0-d integer argument's value when it fakes it, and
    # int(t) gave the traced value for every t (a graph returning a constant)
    program, message = REFUSED[name]
    with pytest.raises(DecompositionError, match=message) as info:
        trace(program, torch.randn(3), torch.tensor(3), dynamic=dynamic)
    assert info.value.missing == ["aten::_local_scalar_dense"]


def test_dynamic_trace_reads_a_0d_int_argument_at_each_call():
    # dynamic=True: n.item() of a 0-d int64 argument is read at each call, not the traced value
    program = lambda x, n: (x * n.item(), n.item() + 1)   # noqa: E731
    gm = trace(program, torch.ones(3), torch.tensor(3), dynamic=True)
    for n in (3, 7, -2):
        _assert_same(gm(torch.ones(4), torch.tensor(n)), program(torch.ones(4), torch.tensor(n)))


# -- checks on numbers: torch._check, torch._check_is_size, torch._assert_async --------------------------------

def _checked_below_ten(x, t):
    n = t.item()
    torch._check(n < 10)
    return x * n


def _checked_size(x, t):
    n = t.item()
    torch._check_is_size(n)
    return torch.zeros(n) + x.sum()


def _constrained_range(x, t):
    n = t.item()
    torch.sym_constrain_range_for_size(n, min=0, max=9)
    return torch.zeros(n) + x.sum()


def _assert_async_msg(x):
    torch._assert_async(x.sum() > 0, "the sum must be positive")
    return x * 2


def _assert_async_plain(x):
    torch._assert_async(x.sum())
    return x * 2


CHECKS = {
    # program, an input that passes, one that fails, the error eager raises for it
    "check": (_checked_below_ten, (torch.ones(2), torch.tensor(3)), (torch.ones(2), torch.tensor(12)), r"u0 < 10"),
    "check_is_size": (_checked_size, (torch.ones(2), torch.tensor(3)), (torch.ones(2), torch.tensor(-1)), r""),
    "constrain_range_for_size": (_constrained_range, (torch.ones(2), torch.tensor(3)),
                                 (torch.ones(2), torch.tensor(12)), r"u0 <= 9"),
    "assert_async_msg": (_assert_async_msg, (torch.ones(2),), (-torch.ones(2),), "the sum must be positive"),
    "assert_async": (_assert_async_plain, (torch.ones(2),), (torch.zeros(2),), "single nonzero value, but got zero"),
}


@pytest.mark.parametrize("via", ["reference", "executor"])
@pytest.mark.parametrize("name", list(CHECKS))
def test_false_check_raises_where_the_graph_runs(name, via):
    program, passing, failing, message = CHECKS[name]
    gm = trace(program, *passing)
    assert graph.non_prim_ops(gm) == []
    run = gm if via == "reference" else executor.compile(gm)
    torch.testing.assert_close(run(*passing), program(*passing))
    with pytest.raises(RuntimeError):
        program(*failing)        # eager raises too
    with pytest.raises(RuntimeError, match=message):
        run(*failing)


class _ItemModule(torch.nn.Module):
    def forward(self, x, t, s):
        n = t.item()
        torch._check_is_size(n)
        torch._check(n < 10)
        return x * s.item(), torch.zeros(n), n + 1


def test_export_of_item_program_is_prim_only_and_checks():
    # torch.export keeps aten.item and its runtime asserts (_assert_scalar, sym_constrain_range_for_size):
    # run_decompositions makes item the item prim; the asserts stay as checks on numbers
    args = (torch.ones(2), torch.tensor(3), torch.tensor(1.5))
    ep = torch.export.export(_ItemModule(), args).run_decompositions(decompositions.get_decompositions())
    assert graph.non_prim_ops(ep.graph_module) == []
    module = ep.module()
    other = (torch.ones(2), torch.tensor(6), torch.tensor(-2.0))
    for call in (args, other):
        _assert_same(module(*call), _ItemModule()(*call))
    with pytest.raises(RuntimeError, match="u0 <= 9|u0 < 10"):
        module(torch.ones(2), torch.tensor(12), torch.tensor(2.0))


def test_pow_of_integers_checks_a_symbolic_exponent_when_it_runs():
    # eager refuses a negative exponent of an integer tensor; a symbolic exponent is checked at each call
    program = lambda x, e: x ** e.item()   # noqa: E731
    x = torch.arange(4)
    gm = trace(program, x, torch.tensor(2))
    torch.testing.assert_close(gm(x, torch.tensor(3)), program(x, torch.tensor(3)))
    with pytest.raises(RuntimeError, match="Integers to negative integer powers"):
        program(x, torch.tensor(-1))
    with pytest.raises(RuntimeError, match=r"u0 >= 0"):
        gm(x, torch.tensor(-1))


# -- torch.compile(backend="primkit"), default configuration -------------------------------------------------

COMPILED = {
    "return_item": lambda x, t: (x * 2, t.sum().item()),
    "int_of_tensor": lambda x, t: x * int(t),
    "float_of_tensor": lambda x, t: x + float(t),
    "mul_by_item": lambda x, t: x * t.item(),
    "clamp_max_of_item": lambda x, t: x.clamp(max=t.max().item()),
    "if_on_data": lambda x, t: x if t.sum() > 0 else -x,
}


@pytest.mark.parametrize("name", list(COMPILED))
def test_torch_compile_primkit_equals_eager(name):
    # dynamo breaks the graph at the read (capture_scalar_outputs is off by default) and passes the number on
    # as an input of the next graph; each graph runs on primkit
    torch._dynamo.reset()
    program = COMPILED[name]
    compiled = torch.compile(program, backend="primkit")
    x = torch.randn(4)
    for t in (torch.tensor(2.0), torch.tensor(-3.0), torch.tensor(5.0)):
        _assert_same(compiled(x, t), program(x, t))
