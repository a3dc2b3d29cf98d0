"""Helpers the shape OpInfo modules share: dtype sets, ``cases`` / ``errors`` / ``tensor_lists`` (sample and
error makers), ``entry`` and the shared sample generators."""
from __future__ import annotations

import functools
import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.definitions.common import aten_entry, packet_entry, table_entry
from primkit.opinfo.dtypes import ALL
from primkit.opinfo.samples import layouts, make


aten = torch.ops.aten
EVERY = ("contiguous", "noncontiguous", "transposed", "channels_last", "expanded")
DENSE = ("contiguous",)


def cases(*rows, on=EVERY):
    """A sample generator: each row (shape, args[, kwargs]) on every layout in ``on``."""
    def gen(op, device, dtype):
        for shape, args, *kw in rows:
            for name, t in layouts(shape, device, dtype):
                if name in on:
                    yield SampleInput(t, tuple(args), kw[0] if kw else {}, name=f"{name} {shape} {args}")
    return gen


def errors(*rows):
    """An error generator: each row (shape, args, exception type, regex on eager's message)."""
    def gen(op, device):
        for shape, args, exc, match in rows:
            yield ErrorInput(SampleInput(make(shape, device, torch.float32), tuple(args), name=match), exc, match)
    return gen


def tensor_lists(*rows, extras=True):
    """Samples whose input is a list of tensors (cat, stack): rows (shapes, args), then layouts
    and mixed dtypes along dim 0 or 1 (``extras``)."""
    def gen(op, device, dtype):
        for shapes, args in rows:
            yield SampleInput([make(s, device, dtype) for s in shapes], tuple(args), name=f"{shapes} {args}")
        if not extras:
            return
        cl = make((2, 3, 4, 5), device, dtype).contiguous(memory_format=torch.channels_last)
        yield SampleInput([cl, cl], (1,), name="channels_last inputs")
        t = make((5, 4), device, dtype).t()
        yield SampleInput([t, t], (0,), name="transposed inputs")
        yield SampleInput([make((3, 4), device, dtype), make((3, 4), device, torch.float64)], (0,), name="promotion")
    return gen


def entry(name, op, aten_names, samples, *, errs=None, dtypes=ALL, inplace=None, out=False, xfails=(), **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten_names), sample_inputs=samples, error_inputs=errs,
                  dtypes=frozenset(dtypes), inplace=inplace, supports_out=out, xfails=tuple(xfails),
                  family="shape", **kw)


# Known: graph.canonicalize's functional pass rewrites uses of copy_to(dst, src) to src,
# which drops the layout a copy into a fresh empty_strided sets; these pass with canonical=False.
def _view_samples(op, device, dtype):
    yield from cases(((2, 3, 4), ([6, 4],)), ((2, 3, 4), ([-1],)), ((2, 3, 4), ([2, -1, 2],)), ((), ([1],)),
                     ((1,), ([],)), ((0, 3), ([3, 0, 1],)), on=DENSE)(op, device, dtype)
    yield SampleInput(make((4, 1), device, dtype).t(), ([4],), name="transposed size-1 dim")
    yield SampleInput(make((2, 3, 8), device, dtype)[..., ::2], ([6, 4],), name="strided last dim kept")
    yield SampleInput(make((1, 3, 4), device, dtype).expand(2, 3, 4), ([2, 12],), name="expanded")


VIEW_ERRORS = errors(((2, 3), ([7],), RuntimeError, "is invalid for input of size"),
                     ((2, 3), ([-1, -1],), RuntimeError, "only one dimension can be inferred"),
                     ((0, 3), ([-1, 0],), RuntimeError, "ambiguous"))


VIEW_TARGETS = (torch.uint8, torch.int16, torch.float16, torch.bfloat16, torch.int32, torch.float32, torch.int64,
                torch.float64, torch.complex64, torch.complex128)


def view_dtype_samples(on):
    """view(dtype) to every width (the last dim splits or joins), on the layouts ``on``: the last
    dim stays dense, as eager requires where the element size changes; a strided last dim, and 0-d,
    only keep it. Bool only from bool (other bytes than 0 and 1 are no bool eager defines)."""
    def gen(op, device, dtype):
        size = torch.empty((), dtype=dtype).element_size()
        last_dense = {"contiguous": make((2, 3, 16), device, dtype),
                      "outer dims transposed": make((3, 2, 16), device, dtype).transpose(0, 1),
                      "rows sliced": make((4, 3, 16), device, dtype)[::2],
                      "empty": make((0, 16), device, dtype),
                      "expanded": make((1, 3, 16), device, dtype).expand(2, 3, 16)}
        same_size_only = {"noncontiguous": make((2, 3, 16), device, dtype, noncontiguous=True),
                          "transposed": make((16, 3), device, dtype).t(), "0-d": make((), device, dtype)}
        for target in VIEW_TARGETS + ((torch.bool,) if dtype == torch.bool else ()):
            same = torch.empty((), dtype=target).element_size() == size
            for name, t in {**last_dense, **(same_size_only if same else {})}.items():
                if name in on:
                    yield SampleInput(t, (target,), name=f"{name} {tuple(t.shape)} as {target}")
    return gen


def view_dtype_errors(op, device):
    x = make((4, 6), device, torch.float32)
    for t, target, match in ((x.t(), torch.int16, "self.stride\\(-1\\) must be 1"),
                             (x[:, :3], torch.float64, "self.size\\(-1\\) must be divisible by 2"),
                             (make((3, 5), device, torch.float32)[:, :2], torch.float64,
                              "self.stride\\(0\\) must be divisible by 2"),
                             (make((), device, torch.float32), torch.int16, "self.dim\\(\\) cannot be 0")):
        yield ErrorInput(SampleInput(t, (target,), name=match), RuntimeError, match)


PERMUTE = cases(((2, 3, 4), ([2, 0, 1],)), ((2, 3, 4, 5), ([0, 2, 3, 1],)), ((2, 3, 4, 5), ([-1, -2, 0, 1],)),
                ((), ([],)), ((0, 3), ([1, 0],)))
DIMS3 = ((2, 3, 4), (3, 1, 4), (2, 3, 4, 5), (4, 5), (7,), (0, 3))


def _squeeze_samples(op, device, dtype):
    for shape in ((3, 1, 4), (1, 1), (1,), (), (2, 1, 4, 1), (0, 1)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (), name=f"{name} {shape} all")
            for dim in range(-t.dim(), t.dim()) if t.dim() else (0, -1):
                yield SampleInput(t, (dim,), name=f"{name} {shape} dim {dim}")
    yield SampleInput(make((2, 1, 4, 1), device, dtype), ((1, -1, 0),), name="dims, one not size 1")
    yield SampleInput(make((), device, dtype), ((),), name="0-d, no dims")


def _select_like(op, device, dtype):
    for shape in ((2, 3, 4), (5,), (2, 3, 4, 5), (4, 5)):
        for name, t in layouts(shape, device, dtype):
            for dim in range(-t.dim(), t.dim()):
                yield SampleInput(t, (dim, -1), name=f"{name} {shape} dim {dim}")
                yield SampleInput(t, (dim, 0), name=f"{name} {shape} dim {dim}")


def _slice_samples(op, device, dtype):
    for shape in ((7,), (4, 6), (2, 3, 4, 5), (0, 4)):
        for name, t in layouts(shape, device, dtype):
            for args in ((0, 1, 3, 1), (-1, None, None, 2), (0, -3, None, 1), (-1, 5, 2, 1), (0, -100, 100, 3),
                         (0, 0, 0, 1)):
                yield SampleInput(t, args, name=f"{name} {shape} {args}")


def diagonal_samples(on):
    """Diagonals of the layouts in ``on``: where the two dims merge into one strided dim (a view
    like eager's), or where they do not (a copy: see the diagonal_unmergeable entry)."""
    def gen(op, device, dtype):
        for shape in ((4, 5), (5, 4), (2, 3, 4, 5), (3, 3), (0, 3), (1, 4)):
            for name, t in layouts(shape, device, dtype):
                for args in ((0, 0, 1), (1, 0, 1), (-1, 0, 1), (-2, 1, 0), (10, 0, 1)):
                    if name in on:
                        yield SampleInput(t, args, name=f"{name} {shape} {args}")
        if "contiguous" in on:
            x = make((2, 3, 4, 5), device, dtype)
            yield SampleInput(x, (1, 1, 3), name="outer dims 1 and 3")
            yield SampleInput(x, (2, -1, -2), name="last dims reversed")
            yield SampleInput(x.permute(0, 2, 1, 3), (0, 1, 2), name="permuted plane")
    return gen


def _as_strided_samples(op, device, dtype):
    x = make((4, 6), device, dtype)
    yield SampleInput(x, ([3, 3], [6, 1]), name="sub-block")
    yield SampleInput(x, ([4], [7]), name="diagonal")
    yield SampleInput(x, ([2, 2], [1, 6], 2), name="transposed with offset")
    yield SampleInput(x, ([3, 2], [0, 1]), name="stride 0")
    yield SampleInput(x[1:], ([2, 2], [6, 1]), name="view input keeps its offset")
    yield SampleInput(x, ([0, 3], [3, 1]), name="empty")


# Views a program makes before it reads their storage: as_strided and its kin count from the storage's start,
# where a view of a (4, 6) operand lies at an offset (each of these at a nonzero one).
PROGRAM_VIEWS = {
    "slice": lambda t: t[1:, 2:],
    "select": lambda t: t.select(0, 2),
    "narrow": lambda t: t.narrow(1, 1, 4),
    "split": lambda t: t.split(2, 1)[1],
    "diagonal": lambda t: t.diagonal(1),
    "unfold of a slice": lambda t: t[1:].unfold(1, 2, 2),
    "chain": lambda t: t[1:].t()[2:].narrow(1, 1, 2),    # slice, transpose, slice, narrow
}


def _of_view_samples(with_src):
    """as_strided (as_strided_scatter, ``with_src``) of each program view: a block at the view's offset, a row
    from an offset of its own, an empty view."""
    def gen(op, device, dtype):
        x = make((4, 6), device, dtype)
        for view in PROGRAM_VIEWS:
            for size, stride, offset in (([2, 2], [1, 2], None), ([3], [5], 1), ([0, 2], [1, 1], None)):
                src = (make(size, device, dtype),) if with_src else ()
                yield SampleInput(x, (view, *src, size, stride, offset), name=f"{view} {size} {stride} offset {offset}")
    return gen


def _reshape_alias_samples(op, device, dtype):
    """Reshapes that need no copy, as view computes their strides."""
    x = make((4, 6), device, dtype)
    for t, size, stride, name in ((x, [24], [1], "flat"), (x, [2, 2, 6], [12, 6, 1], "split rows"),
                                  (x.t(), [3, 2, 4], [2, 1, 6], "transposed"), (x[1:], [18], [1], "view input")):
        yield SampleInput(t, (size, stride), name=name)


def _split_samples(op, device, dtype):
    yield from cases(((7, 4), (2,)), ((7, 4), (3, 1)), ((2, 3, 4, 5), (2, -1)), ((4, 5), (10, 0)),
                     ((0, 4), (2, 0)), ((0, 4), (0, 0)), ((6,), (6,)))(op, device, dtype)


def _split_sizes_samples(op, device, dtype):
    yield from cases(((7, 4), ([2, 5],)), ((7, 4), ([1, 0, 3], 1)), ((2, 3, 4, 5), ([5], -1)),
                     ((0, 4), ([0, 0],)))(op, device, dtype)


def _expand_samples(op, device, dtype):
    yield from cases(((3, 1), ([3, 4],)), ((3, 1), ([2, -1, 4],)), ((), ([2, 3],)), ((1,), ([0],)),
                     ((4, 5), ([-1, 5],)), ((2, 1, 4, 1), ([2, 3, 4, 5],)))(op, device, dtype)


ALIAS = cases(((), ()), ((0, 3), ()), ((4, 5), ()), ((2, 3, 4, 5), ()))


_aten_entry = functools.partial(aten_entry, family="shape")
_packet_entry = functools.partial(packet_entry, family="shape")
_table_entry = functools.partial(table_entry, family="shape")


def _unfold_samples(op, device, dtype):
    yield from cases(((7,), (0, 2, 1)), ((7,), (0, 3, 2)), ((4, 5), (1, 2, 2)), ((4, 5), (-2, 4, 1)),
                     ((2, 3, 4, 5), (2, 1, 3)), ((4, 5), (0, 0, 1)), ((), (0, 1, 1)))(op, device, dtype)
