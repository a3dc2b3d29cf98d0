"""Symbolic shapes: the same meta rules on ints, SymInts and sympy expressions."""
from __future__ import annotations

import pytest
import sympy
import torch

from primkit.graph import trace
from models import GPT2
from primkit.prims import PrimConstraintError
from primkit.prims.symbolic import TensorSpec, propagate, symbol

B, S, K, K2, N = (symbol(n) for n in ("B", "S", "K", "K2", "N"))


def test_gpt2_style_model_propagates_batch_and_sequence():
    model = GPT2().eval()
    gm = trace(model, torch.randint(0, 64, (2, 7)), dynamic=True)
    out, assumptions = propagate(gm, TensorSpec(("B", "S"), torch.int64))
    assert out.sympy_shape == (B, S, 32) and out.dtype == torch.float32
    assert assumptions == []
    ids = torch.randint(0, 64, (3, 5))     # the symbolic graph runs at other sizes too
    with torch.no_grad():
        torch.testing.assert_close(gm(ids), model(ids))


def test_undecidable_equality_is_assumed_and_reported():
    gm = trace(lambda x, w: (x @ w).softmax(-1), torch.randn(3, 4), torch.randn(4, 5), dynamic=True)
    out, assumptions = propagate(gm, TensorSpec(("B", "K"), torch.float32), TensorSpec(("K2", 5), torch.float32))
    assert out.sympy_shape == (B, 5)
    assert assumptions == [sympy.Eq(K, K2)]


def test_broadcast_of_two_symbols_assumes_them_equal():
    gm = trace(lambda a, b: a * b, torch.randn(3), torch.randn(3), dynamic=True)
    out, assumptions = propagate(gm, TensorSpec(("B",), torch.float32), TensorSpec(("S",), torch.float32))
    assert out.sympy_shape in ((B,), (S,)) and assumptions == [sympy.Eq(B, S)]


def test_provably_invalid_shape_cites_prim_and_constraint():
    gm = trace(lambda x, w: x @ w, torch.randn(3, 4), torch.randn(4, 5), dynamic=True)
    with pytest.raises(PrimConstraintError, match=r"^matmul: C3: contraction sizes differ"):
        propagate(gm, TensorSpec(("B", 4), torch.float32), TensorSpec((7, 5), torch.float32))


def test_expressions_and_strides():
    gm = trace(lambda x: x.t().reshape(-1) * 2, torch.randn(3, 4), dynamic=True)
    out, assumptions = propagate(gm, TensorSpec((2 * N, "S"), torch.float32))
    assert sympy.simplify(out.sympy_shape[0] - 2 * N * S) == 0 and assumptions == []
    spec = TensorSpec(("B", "S"), torch.float32)
    assert tuple(str(s) for s in spec.stride()) == ("S", "1")


def test_same_rules_on_ints_match_real_tensors():
    gm = trace(lambda x, y: (x + y).sum(1), torch.randn(3, 4), torch.randn(4), dynamic=True)
    out, _ = propagate(gm, TensorSpec((3, 4), torch.float32), TensorSpec((4,), torch.float32))
    assert out.sympy_shape == (3,)


def test_bad_dim_type_is_a_clear_error():
    with pytest.raises(TypeError, match="a dim is an int, a str"):
        TensorSpec((1.5,), torch.float32)


def test_readme_symbolic_example_runs_as_written(capsys):
    # docs/tracing.md's example, executed from the page itself, prints what its comments say.
    import pathlib
    import re
    readme = pathlib.Path(__file__).resolve().parent.parent / "docs" / "tracing.md"
    section = readme.read_text().split("## Symbolic shapes", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "docs/tracing.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == ["(B, S, 768)", "2*B"]
