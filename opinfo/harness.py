"""What the tests do with an entry: run eager and the decomposition side by side, compare.

Kept in the package (not in tests/) so the coverage tool and the tests share one definition.
"""
from __future__ import annotations

import torch
import torch.utils._pytree as pytree
from torch._subclasses.fake_tensor import FakeTensorMode

from decompositions import trace
from opinfo.core import SampleInput


def clone_sample(s: SampleInput) -> SampleInput:
    """A copy whose tensors can be written (in-place and out= tests); dense in the same dim order."""
    c = lambda x: x.clone(memory_format=torch.preserve_format) if isinstance(x, torch.Tensor) else x  # noqa: E731
    input_, args, kwargs = pytree.tree_map(c, (s.input, s.args, s.kwargs))
    return SampleInput(input_, args, kwargs, s.name)


def call(op, s: SampleInput, **extra):
    return op(s.input, *s.args, **{**s.kwargs, **extra})


def tensors_of(s: SampleInput) -> list:
    return [x for x in pytree.tree_leaves((s.input, s.args, s.kwargs)) if isinstance(x, torch.Tensor)]


def as_function(op, s: SampleInput, **extra):
    """(fn, tensors): fn(*tensors) calls op on the sample with its tensors replaced by fn's args,
    so tensors become graph inputs and everything else stays a constant."""
    leaves, spec = pytree.tree_flatten((s.input, s.args, s.kwargs))
    positions = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]

    def fn(*tensors):
        new = list(leaves)
        for i, t in zip(positions, tensors):
            new[i] = t
        input_, args, kwargs = pytree.tree_unflatten(new, spec)
        return op(input_, *args, **{**kwargs, **extra})
    fn.__name__ = getattr(op, "__name__", "op")
    return fn, [leaves[i] for i in positions]


def trace_sample(op, s: SampleInput, **extra):
    fn, tensors = as_function(op, s, **extra)
    return trace(fn, *tensors), tensors


def significant_strides(t: torch.Tensor) -> tuple:
    """Strides that affect addressing: none for an empty tensor, none of a size-1 dim."""
    if t.numel() == 0:
        return ()
    return tuple(st if sz != 1 else None for sz, st in zip(t.shape, t.stride()))


def fake_call(op, s: SampleInput, *, dynamic_output=False):
    """op on FakeTensor copies of the sample's tensors (same geometry): the meta rule's answer.
    ``dynamic_output``: the op's output size depends on data (a ShapeEnv lets the meta rule
    create an unbacked size for it)."""
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    with FakeTensorMode(allow_non_fake_inputs=False, shape_env=ShapeEnv() if dynamic_output else None) as mode:
        conv = lambda x: mode.from_tensor(x) if isinstance(x, torch.Tensor) else x  # noqa: E731
        input_, args, kwargs = pytree.tree_map(conv, (s.input, s.args, s.kwargs))
        return op(input_, *args, **kwargs)
