"""Sample, error and reference input generators shared by many entries.

Each generator is a small function that yields SampleInputs named by the edge case they are.
"""
from __future__ import annotations

import math

import torch
import torch.utils._pytree as pytree
from torch.testing import make_tensor

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.prims import dtypes as dt

FLOATING = (torch.float16, torch.bfloat16, torch.float32, torch.float64)


def make(shape, device, dtype, *, low=None, high=None, noncontiguous=False, exclude_zero=False, seed=None):
    return make_tensor(shape, device=device, dtype=dtype, low=low, high=high, noncontiguous=noncontiguous,
                       exclude_zero=exclude_zero)


def layouts(shape, device, dtype, **kw):
    """One tensor per layout edge case of a shape: contiguous, non-contiguous, transposed,
    channels-last (4-d), expanded (stride 0)."""
    yield "contiguous", make(shape, device, dtype, **kw)
    if math.prod(shape) > 1:
        yield "noncontiguous", make(shape, device, dtype, noncontiguous=True, **kw)
    if len(shape) >= 2:
        yield "transposed", make(tuple(reversed(shape)), device, dtype, **kw).transpose(0, -1) \
            if len(shape) == 2 else make(shape[:-2] + (shape[-1], shape[-2]), device, dtype, **kw).transpose(-1, -2)
    if len(shape) == 4:
        yield "channels_last", make(shape, device, dtype, **kw).contiguous(memory_format=torch.channels_last)
    if len(shape) >= 1 and shape[0] > 1:
        yield "expanded", make((1,) + tuple(shape[1:]), device, dtype, **kw).expand(shape)


UNARY_SHAPES = ((), (0,), (1,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def _domain_kw(op):
    low, high = op.domain
    return {"low": low, "high": high}


def sample_inputs_elementwise_unary(op, device, dtype):
    kw = _domain_kw(op)
    for shape in UNARY_SHAPES:
        for name, t in layouts(shape, device, dtype, **kw):
            yield SampleInput(t, name=f"{name} {tuple(shape)}")
    yield from extremal_unary(op, device, dtype)


def extremal_unary(op, device, dtype):
    """Large and tiny magnitudes, inf and nan (floating dtypes), within the op's domain."""
    if dtype not in FLOATING and dtype not in dt.COMPLEX:
        return
    info = torch.finfo(dtype)
    values = [info.max / 2, -info.max / 2, info.tiny, -info.tiny, 1e-3, -1e-3, 0.0, -0.0,
              float("inf"), float("-inf"), float("nan")]
    low, high = op.domain
    values = [v for v in values if math.isnan(v) or ((low is None or v >= low) and (high is None or v <= high))]
    yield SampleInput(torch.tensor(values, device=device, dtype=dtype), name="extremal")


BINARY_SHAPE_PAIRS = (
    ((), ()), ((5,), ()), ((), (5,)), ((0,), (0,)), ((4, 5), (4, 5)), ((4, 5), (5,)), ((4, 1), (1, 5)),
    ((2, 3, 4), (3, 1)), ((1,), (3,)),
)


def sample_inputs_elementwise_binary(op, device, dtype):
    """Knobs (op.sample_kwargs): rhs_exclude_zero (divisors), python_scalars (False for ops
    such as maximum whose eager signature takes tensors only)."""
    kw = _domain_kw(op)
    rhs = dict(kw)
    if op.sample_kwargs.get("rhs_exclude_zero"):
        rhs["exclude_zero"] = True
    for sa, sb in BINARY_SHAPE_PAIRS:
        yield SampleInput(make(sa, device, dtype, **kw), (make(sb, device, dtype, **rhs),), name=f"broadcast {sa} {sb}")
    for name, a in layouts((2, 3, 4, 5), device, dtype, **kw):
        yield SampleInput(a, (make((2, 3, 4, 5), device, dtype, **rhs),), name=f"lhs {name}")
    t = make((4, 5), device, dtype, **kw)
    yield SampleInput(t, (make((5, 4), device, dtype, **rhs).t(),), name="both transposed")
    # Python numbers and 0-d tensors of another category, through type promotion.
    if op.sample_kwargs.get("python_scalars", True):
        number = {torch.bool: True}.get(dtype, 3 if dtype in dt.INT else 0.75)
        yield SampleInput(make((3, 4), device, dtype, **kw), (number,), name="python number")
        if dtype != torch.bool:
            yield SampleInput(make((3, 4), device, dtype, **kw), (2,), name="python int")
    if dtype != torch.bool:
        yield SampleInput(make((3, 4), device, dtype, **kw), (make((), device, torch.float64, **rhs),),
                          name="0-d float64 operand")
    if dtype in FLOATING and dtype != torch.float64:
        yield SampleInput(make((3, 4), device, dtype, **kw), (make((3, 4), device, torch.float64, **rhs),),
                          name="mixed with float64")
    if dtype in dt.INT:
        yield SampleInput(make((3, 4), device, dtype, **kw), (make((3, 4), device, torch.float32, **rhs),),
                          name="int with float32")


def error_inputs_elementwise_binary(op, device):
    a, b = make((2, 3), device, torch.float32), make((4,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (b,), name="shapes do not broadcast"), RuntimeError, "must match the size")


def has_empty_tensor(s: SampleInput) -> bool:
    """Whether a sample holds a tensor of no elements (its op's tests then see a size-0 dim)."""
    return any(isinstance(x, torch.Tensor) and x.numel() == 0 for x in pytree.tree_leaves((s.input, s.args, s.kwargs)))


def empty_leading_dim(s: SampleInput) -> SampleInput | None:
    """s with its leading dim emptied: every tensor whose dim 0 has the input's leading size (a batch dim the
    operands share) sliced to [:0] there; None where the input has no leading dim of elements."""
    return _emptied(s, 0, "leading")


def empty_last_dim(s: SampleInput) -> SampleInput | None:
    """s with its last dim emptied, where the input has another dim before it: every tensor whose last dim has
    the input's last size (aligned as broadcasting aligns them) sliced to [:0] there; None where there is none."""
    first = next((x for x in pytree.tree_leaves(s.input) if isinstance(x, torch.Tensor)), None)
    return None if first is None or first.dim() < 2 else _emptied(s, -1, "last")


def _emptied(s: SampleInput, dim: int, which: str) -> SampleInput | None:
    """None also where an integer tensor with elements would be left whole: it may hold indices or offsets into
    the emptied data (take_along_dim's indices, embedding_bag's offsets), which eager's CPU kernels refuse or read
    out of bounds and its CUDA kernels fail on with a device-side assert that poisons the process's CUDA context."""
    first = next((x for x in pytree.tree_leaves(s.input) if isinstance(x, torch.Tensor)), None)
    if first is None or first.dim() == 0 or first.shape[dim] == 0:
        return None
    n = first.shape[dim]
    def emptied(x):
        return isinstance(x, torch.Tensor) and x.dim() and x.shape[dim] == n
    if any(isinstance(x, torch.Tensor) and not emptied(x) and x.numel() and not x.dtype.is_floating_point and
           not x.dtype.is_complex and x.dtype != torch.bool for x in pytree.tree_leaves((s.input, s.args, s.kwargs))):
        return None
    def cut(x):
        return x.narrow(dim, 0, 0) if emptied(x) else x
    input_, args, kwargs = pytree.tree_map(cut, (s.input, s.args, s.kwargs))
    return SampleInput(input_, args, kwargs, name=f"{s.name}, {which} dim emptied")
