"""What the tests do with an entry: run eager and the decomposition side by side, compare.

Kept in the package (not in tests/) so the coverage tool and the tests share one definition.
"""
from __future__ import annotations

import torch
import torch.utils._pytree as pytree
from torch._subclasses.fake_tensor import FakeTensorMode

from primkit.graph import trace
from primkit.opinfo.core import SampleInput


def clone_sample(s: SampleInput) -> SampleInput:
    """A copy whose tensors can be written (in-place and out= tests); dense in the same dim order."""
    c = lambda x: x.clone(memory_format=torch.preserve_format) if isinstance(x, torch.Tensor) else x  # noqa: E731
    input_, args, kwargs = pytree.tree_map(c, (s.input, s.args, s.kwargs))
    return SampleInput(input_, args, kwargs, s.name)


def storage_copy(t: torch.Tensor) -> torch.Tensor:
    """t's exact geometry (sizes, strides, storage offset, storage size) on a copy of its whole storage: an input a
    graph may write into, or whose storage it reads (as_strided), as the traced one lies in its storage."""
    return t.new_empty(0).set_(t.untyped_storage().clone(), t.storage_offset(), t.size(), t.stride())


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


class JointTrace:
    """One prim graph for several calls (the samples of an entry and dtype): ``run(tensors)``
    gives each call's result. Each call reads only its own tensors, so its result is what tracing
    it alone would give; a trace costs a fixed few milliseconds beyond its ops, which tracing the
    samples together pays once (the OpInfo tests' time is mostly tracing)."""

    def __init__(self, gm, counts):
        self.gm, self.counts = gm, counts

    def run(self, tensors: list) -> list:
        flat = [t for ts in tensors for t in ts]
        assert [len(ts) for ts in tensors] == self.counts, "run() takes the tensors it was traced with"
        return list(self.gm(*flat))


def joint_call(calls: list):
    """(fn, tensors): one function making every (fn, tensors) call of ``calls`` in turn, returning
    their results as a tuple, and the tensors to call it with."""
    counts = [len(ts) for _, ts in calls]

    def joint(*flat):
        out, i = [], 0
        for (fn, _), n in zip(calls, counts):
            out.append(fn(*flat[i:i + n]))
            i += n
        return tuple(out)
    joint.__name__ = calls[0][0].__name__ if calls else "joint"
    # A tensor object used by two calls would become one fake tensor, and the graph would read
    # it through one placeholder for both: trace over distinct objects (detach shares the data).
    return joint, [t.detach() for _, ts in calls for t in ts]


def trace_calls(calls: list, names: list) -> JointTrace:
    """``calls``: (fn, tensors) pairs, as ``as_function`` makes them; ``names`` says what each is
    (for errors). If the joint trace fails, each call is traced alone and the first failure is
    raised with a note naming its sample, as a trace of that sample alone would raise it."""
    counts = [len(ts) for _, ts in calls]
    joint, flat = joint_call(calls)
    try:
        return JointTrace(trace(joint, *flat), counts)
    except Exception as e:
        for (fn, ts), name in zip(calls, names):
            try:
                trace(fn, *ts)
            except Exception as alone:
                alone.add_note(f"tracing {name}")
                raise
        e.add_note("every call traces alone: the failure comes from tracing them together")
        raise


def trace_samples(op, samples: list, **extra) -> tuple[JointTrace, list]:
    """``trace_calls`` over op on each sample: (JointTrace, each sample's tensors)."""
    calls = [as_function(op, s, **extra) for s in samples]
    return trace_calls(calls, [str(s) for s in samples]), [ts for _, ts in calls]


# The in-place and out= tests check writing the result into ``self`` / ``out``; values on every
# sample are test_trace_and_values' job. They run this many samples per dtype (tracing dominates
# the suite's time): the first of each kind below its names mention, then samples spread over the
# entry's list.
VARIANT_SAMPLES = 8
_KINDS = ("extremal", "noncontiguous", "transposed", "channels_last", "expanded", "broadcast", "0-d", "empty",
          "python", "mixed")


def variant_samples(samples: list, limit: int = VARIANT_SAMPLES) -> list:
    """At most ``limit`` of ``samples``, in their order: one of each kind (extremal values, each
    layout, Python-number and mixed-dtype operands) its names mention, the rest evenly spread
    (sample generators walk shapes and arguments in order)."""
    if len(samples) <= limit:
        return list(samples)
    chosen: list[int] = []
    for kind in _KINDS:
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


# The dtype whose every sample test_trace_and_values traces: float64 (the gradient tests' dtype and
# the tightest tolerance), else float32, else the entry's first dtype. Under its other dtypes (float32
# included) an entry's decomposition walks the same code on the same shapes, layouts and arguments;
# what changes is rounding, range and type promotion, which a subset shows: variant_samples'
# DTYPE_SAMPLES (the extremal-value, layout and mixed-dtype samples first, the rest spread over the
# list). Tracing is most of the suite's time (CI ran 39 minutes with float32 traced in full too),
# so this keeps the suite within its 30 minutes (see tests/test_ops.py).
FULL_DTYPES = (torch.float64, torch.float32)     # in order of preference: the first the entry takes
DTYPE_SAMPLES = 8


def traces_every_sample(dtype, dtypes) -> bool:
    """Whether the value tests trace every sample of an entry under ``dtype`` (of its ``dtypes``)."""
    full = next((d for d in FULL_DTYPES if d in dtypes), None) or min(dtypes, key=str, default=None)
    return dtype == full


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


def _same_size(meta, real) -> bool:
    """A data-dependent (unbacked) size in the meta output stands for any real size."""
    return isinstance(meta, torch.SymInt) and not meta.node.has_hint() or meta == real


# A Python number output (item) of the kernel: the meta rule gives a number or a symbolic number of its kind.
_NUMBER_KINDS = {bool: (bool, torch.SymBool), int: (int, torch.SymInt), float: (float, torch.SymFloat),
                 complex: (complex,)}


def check_meta_matches_real(fake, real, context: str) -> None:
    """The one meta-vs-real check: AssertionError naming ``context`` where the meta rule's outputs
    (``fake``, from ``fake_call``) differ from the kernel's (``real``) in number, shape (an unbacked
    size matches any), dtype, device or significant strides (not compared where a size is unbacked:
    they are symbolic there)."""
    reals, fakes = pytree.tree_leaves(real), pytree.tree_leaves(fake)
    assert len(fakes) == len(reals), f"{context}: meta gives {len(fakes)} outputs, the kernel {len(reals)}"
    for r, f in zip(reals, fakes, strict=True):
        if not isinstance(r, torch.Tensor):
            assert isinstance(f, _NUMBER_KINDS[type(r)]), \
                f"{context}: meta gives {type(f).__name__}, the kernel {type(r).__name__}"
            continue
        assert len(f.shape) == len(r.shape) and all(map(_same_size, f.shape, r.shape)), \
            f"{context}: meta shape {tuple(f.shape)} != real {tuple(r.shape)}"
        assert f.dtype == r.dtype, f"{context}: meta dtype {f.dtype} != real {r.dtype}"
        assert f.device.type == r.device.type, f"{context}: meta device {f.device} != real {r.device}"
        if any(isinstance(n, torch.SymInt) for n in f.shape):
            continue
        assert significant_strides(f) == significant_strides(r), \
            f"{context}: meta strides {f.stride()} != real {r.stride()}"
