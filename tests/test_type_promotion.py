"""primkit's promotion lattice, frozen against torch.result_type on every dtype pair."""
from __future__ import annotations

import itertools

import pytest
import torch

from primkit.decompositions.type_promotion import LATTICE, promote_types, result_type

DTYPES = list(LATTICE)
NUMBERS = [True, 3, 2.5, 1 + 2j]


@pytest.mark.parametrize("a,b", itertools.product(DTYPES, DTYPES), ids=lambda d: str(d)[6:])
def test_promote_types(a, b):
    assert promote_types(a, b) == torch.promote_types(a, b)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("a,b", itertools.product(DTYPES, DTYPES), ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("ranks", [(1, 1), (1, 0), (0, 1), (0, 0)], ids=lambda r: f"ranks{r}")
def test_tensor_tensor(a, b, ranks):
    x = torch.zeros((2,) * ranks[0], dtype=a)
    y = torch.zeros((2,) * ranks[1], dtype=b)
    assert result_type(x, y) == torch.result_type(x, y)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("a", DTYPES, ids=lambda d: str(d)[6:])
@pytest.mark.parametrize("number", NUMBERS, ids=lambda n: type(n).__name__)
@pytest.mark.parametrize("rank", [0, 1])
def test_tensor_number(a, number, rank):
    x = torch.zeros((2,) * rank, dtype=a)
    assert result_type(x, number) == torch.result_type(x, number)


def test_default_dtype_followed():
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        assert result_type(torch.zeros(2, dtype=torch.int64), 2.5) == torch.float64
        assert result_type(torch.zeros(2, dtype=torch.int64), 1j) == torch.complex128
    finally:
        torch.set_default_dtype(old)


def test_unsupported_dtype_is_a_clear_error():
    with pytest.raises(TypeError, match="uint16 takes no part in promotion"):
        promote_types(torch.uint16, torch.int8)
