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


# The in-place and out= tests check writing the result into ``self`` / ``out``; values on every
# sample are test_trace_and_values' job. They run this many samples per dtype (tracing dominates
# the suite's time): the first of each layout kind, then samples spread over the entry's list.
VARIANT_SAMPLES = 8
_LAYOUT_KINDS = ("noncontiguous", "transposed", "channels_last", "expanded", "broadcast", "0-d", "empty")


def variant_samples(samples: list, limit: int = VARIANT_SAMPLES) -> list:
    """At most ``limit`` of ``samples``, in their order: one of each layout kind its names mention,
    the rest evenly spread (sample generators walk shapes and arguments in order)."""
    if len(samples) <= limit:
        return list(samples)
    chosen: list[int] = []
    for kind in _LAYOUT_KINDS:
        i = next((i for i, s in enumerate(samples) if kind in s.name and i not in chosen), None)
        if i is not None and len(chosen) < limit:
            chosen.append(i)
    spread = (round(k * (len(samples) - 1) / (limit - 1)) for k in range(limit))
    for i in spread:
        if len(chosen) >= limit:
            break
        if i not in chosen:
            chosen.append(i)
    return [samples[i] for i in sorted(chosen)]


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
