"""Dtype sets the entries use (the dtypes a test runs an op in)."""
import torch

FLOATING = frozenset({torch.float32, torch.float64, torch.bfloat16, torch.float16})
INTEGRAL = frozenset({torch.int64})
BOOL = frozenset({torch.bool})
COMPLEX = frozenset({torch.complex64})
ALL = FLOATING | INTEGRAL | BOOL
NUMERIC = FLOATING | INTEGRAL
FLOAT32_64 = frozenset({torch.float32, torch.float64})
