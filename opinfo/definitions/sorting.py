"""OpInfo entries: sorting, selection, scans and searching. Samples run along a dim of 0-d,
empty, size-1 and multi-dim operands, in every layout; selections (kthvalue, median) use
distinct values, since eager picks any index among equal ones. Selections by frequency or
equality (mode, unique, isin) hold small integers, so that values repeat; the unique ops, of
data-dependent output size, trace with unbacked sizes, and their out= samples write into tensors
of eager's result shapes (primkit does not resize out= tensors). Quantiles run every interpolation."""
from __future__ import annotations

import functools

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.definitions.common import aten_entry
from primkit.opinfo.definitions.reductions import tuple_out
from primkit.opinfo.dtypes import ALL, BOOL, COMPLEX, FLOAT32_64, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.samples import FLOATING as FLOAT_DTYPES, layouts, make

REAL = FLOATING | INTEGRAL
# (shape, dim): 0-d, empty, size-1, vector, matrix both dims, negative dim, 3-d
DIM_CASES = (((), 0), ((0,), 0), ((1,), -1), ((7,), 0), ((3, 4), 0), ((3, 4), 1), ((2, 0, 3), 1), ((2, 3, 4), -2))
LAYOUT_SHAPE = (3, 4, 5)
NAN, INF = float("nan"), float("inf")


def _extremal(device, dtype):
    """A row with nan, inf and -inf (floating dtypes only)."""
    return torch.tensor([[1.0, NAN, -INF, 0.5, INF, NAN, -2.0]], device=device, dtype=dtype)


def _along_dim(extra=({},), *, extremal=True):
    """(a, dim) samples over DIM_CASES and layouts, each with every kwargs of ``extra``."""
    def gen(op, device, dtype):
        for kw in extra:
            for shape, dim in DIM_CASES:
                yield SampleInput(make(shape, device, dtype), (dim,), dict(kw), name=f"{shape} dim={dim} {kw}")
            for name, t in layouts(LAYOUT_SHAPE, device, dtype):
                yield SampleInput(t, (1,), dict(kw), name=f"{name} {kw}")
            if extremal and dtype in FLOAT_DTYPES:
                yield SampleInput(_extremal(device, dtype), (1,), dict(kw), name=f"inf/nan {kw}")
    return gen


def _dim_errors(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (2,)), IndexError, "Dimension out of range")


def _distinct(shape, device, dtype, *, noncontiguous=False):
    """Distinct small integers (exact in every dtype), shuffled."""
    n = 1
    for s in shape:
        n *= s
    t = (torch.randperm(n, device=device) - n // 2).reshape(shape).to(dtype)
    return t.mT.contiguous().mT if noncontiguous and t.dim() >= 2 else t


def _selection(extra=({},)):
    """kthvalue / median samples: distinct values, and a row with one nan for floating dtypes."""
    def gen(op, device, dtype):
        for kw in extra:
            for shape, dim in (((), 0), ((1,), 0), ((7,), 0), ((3, 4), 1), ((3, 4), 0), ((2, 3, 4), -2)):
                yield SampleInput(_distinct(shape, device, dtype), (dim,), dict(kw), name=f"{shape} dim={dim} {kw}")
            yield SampleInput(_distinct((4, 5), device, dtype, noncontiguous=True), (1,), dict(kw),
                              name=f"transposed {kw}")
            if dtype in FLOAT_DTYPES:
                row = torch.tensor([[3.0, NAN, -1.0, 2.0, 5.0]], device=device, dtype=dtype)
                yield SampleInput(row, (1,), dict(kw), name=f"one nan {kw}")
    return gen


def _entry(name, op, aten, samples, *, dtypes=REAL | BOOL, errors=_dim_errors, **kw):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, error_inputs=errors, dtypes=frozenset(dtypes),
                  family="sorting", **kw)


def _sort_errors(op, device):
    yield from _dim_errors(op, device)
    yield ErrorInput(SampleInput(make((3,), device, torch.complex64), (0,)), RuntimeError, "")


# --- sort ---------------------------------------------------------------------------------------

def _topk_samples(op, device, dtype):
    for shape, k, dim in (((), 1, 0), ((0,), 0, 0), ((7,), 3, 0), ((3, 4), 2, 1), ((3, 4), 0, 0), ((3, 4), 3, 0)):
        for largest in (True, False):
            yield SampleInput(_distinct(shape, device, dtype), (k, dim, largest), name=f"{shape} k={k} dim={dim} "
                              f"largest={largest}")
    yield SampleInput(_distinct((4, 5), device, dtype, noncontiguous=True), (2, 0), name="transposed")
    if dtype in FLOAT_DTYPES:
        yield SampleInput(_extremal(device, dtype), (3,), name="inf/nan")


def _topk_errors(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (5, 1)), RuntimeError, "k out of range")


def _median_all_samples(op, device, dtype):
    for shape in ((), (1,), (7,), (3, 4)):
        yield SampleInput(_distinct(shape, device, dtype), name=f"{shape}")
    yield SampleInput(_distinct((4, 5), device, dtype, noncontiguous=True), name="transposed")
    if dtype in FLOAT_DTYPES:
        yield SampleInput(torch.tensor([3.0, NAN, -1.0, 2.0], device=device, dtype=dtype), name="one nan")
        yield SampleInput(torch.empty(0, device=device, dtype=dtype), name="empty: nan")


def _median_dim_errors(op, device):
    yield from _dim_errors(op, device)
    yield ErrorInput(SampleInput(make((2, 0), device, torch.float32), (1,)), IndexError, "non-zero size")


def _kthvalue_errors(op, device):
    yield ErrorInput(SampleInput(make((3, 4), device, torch.float32), (5, 1)), RuntimeError, "k out of range")


def _kthvalue_samples(op, device, dtype):
    for args in _selection(({}, {"keepdim": True}))(op, device, dtype):
        a, dim = args.input, args.args[0]
        k = (a.shape[dim] if a.dim() else 1)
        yield SampleInput(a, (max(1, k // 2 + 1), dim), args.kwargs, name=args.name)


# --- scans ----------------------------------------------------------------------------------------

def _scan_errors(op, device):
    yield from _dim_errors(op, device)


# eager's float16/bfloat16 scans accumulate in float32 and round each output; so does the
# decomposition, but long running sums of rounded values drift apart by a rounding or two.
SCAN_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}
# eager's cumprod of a 7-long row of values up to 9 in float16/bfloat16 reaches 1e5: relative error of a rounding.
CUMPROD_TOLERANCES = {torch.float16: (1e-2, 4e-3), torch.bfloat16: (1e-1, 3e-2)}


# --- searching ------------------------------------------------------------------------------------

def _search_samples(op, device, dtype):
    seq = torch.sort(make((6,), device, dtype))[0]
    batched = torch.sort(make((2, 3, 5), device, dtype), dim=-1)[0]
    for kw in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
        yield SampleInput(seq, (make((3, 4), device, dtype),), kw, name=f"1-d sequence {kw}")
        yield SampleInput(batched, (make((2, 3, 4), device, dtype),), kw, name=f"batched {kw}")
        yield SampleInput(seq, (make((), device, dtype),), kw, name=f"0-d value {kw}")
    yield SampleInput(seq, (seq,), {"right": True}, name="values equal boundaries")
    yield SampleInput(seq, (make((0,), device, dtype),), name="empty values")
    yield SampleInput(seq, (make((3, 4), device, dtype, noncontiguous=True),), name="noncontiguous values")
    perm = torch.randperm(6, device=device)
    yield SampleInput(seq[perm], (make((4,), device, dtype),), {"sorter": perm.argsort()},
                      name="sorter")


def _search_scalar_samples(op, device, dtype):
    seq = torch.sort(make((6,), device, dtype))[0]
    for value in (0, 3, -2.5):
        for kw in ({}, {"right": True}):
            yield SampleInput(seq, (value,), kw, name=f"scalar {value} {kw}")


def _search_errors(op, device):
    seq = torch.arange(6.0, device=device)
    yield ErrorInput(SampleInput(seq.reshape(2, 3), (torch.zeros(3, 3, device=device),)), RuntimeError,
                     "boundaries tensor should be 1 dimension or the first N-1 dimensions")
    yield ErrorInput(SampleInput(seq, (torch.zeros(3, device=device),), {"side": "middle"}), RuntimeError,
                     "side can only be 'left' or 'right'")
    yield ErrorInput(SampleInput(seq, (torch.zeros(3, device=device),), {"side": "left", "right": True}),
                     RuntimeError, "side and right can't be set to opposites")
    yield ErrorInput(SampleInput(seq, (torch.zeros(3, device=device),),
                                 {"sorter": torch.arange(6, device=device, dtype=torch.int32)}),
                     RuntimeError, "sorter must be a tensor of long dtype")


def _bucketize_samples(op, device, dtype):
    boundaries = torch.sort(make((5,), device, dtype))[0]
    for kw in ({}, {"right": True}, {"out_int32": True}):
        yield SampleInput(make((3, 4), device, dtype), (boundaries,), kw, name=f"matrix {kw}")
        yield SampleInput(make((), device, dtype), (boundaries,), kw, name=f"0-d {kw}")
    yield SampleInput(make((0,), device, dtype), (boundaries,), name="empty")
    yield SampleInput(boundaries, (boundaries,), {"right": True}, name="values equal boundaries")


def _bucketize_errors(op, device):
    yield ErrorInput(SampleInput(torch.zeros(3, device=device), (torch.zeros(2, 2, device=device),)), RuntimeError,
                     "boundaries tensor must be 1 dimension")


def _take_samples(op, device, dtype):
    for shape, index in (((3, 4), [[0, 11], [5, -1]]), ((5,), [4, 0, 0]), ((), [0]), ((3, 4), [])):
        idx = torch.tensor(index, device=device, dtype=torch.int64)
        yield SampleInput(make(shape, device, dtype), (idx,), name=f"{shape} index={index}")
    yield SampleInput(make((4, 5), device, dtype, noncontiguous=True), (torch.tensor([3, 7, 19], device=device),),
                      name="noncontiguous")
    yield SampleInput(make((5, 4), device, dtype).t(), (torch.tensor([[1, 2]], device=device),), name="transposed")


def _take_errors(op, device):
    yield ErrorInput(SampleInput(torch.zeros(3, device=device), (torch.tensor([0], device=device, dtype=torch.int32),)),
                     RuntimeError, "Expected a long tensor for index")


def _nonzero_samples(op, device, dtype):
    for shape in ((), (0,), (1,), (7,), (3, 4), (2, 3, 4)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    yield SampleInput(make((4, 5), device, dtype, noncontiguous=True), name="noncontiguous")
    yield SampleInput(torch.zeros(3, 4, device=device, dtype=dtype), name="all zero")


def _masked_select_samples(op, device, dtype):
    for shape, mask_shape in (((3, 4), (3, 4)), ((3, 4), (4,)), ((4,), (3, 4)), ((), ()), ((0,), (0,)), ((2, 1), (1, 3))):
        mask = make(mask_shape, device, torch.bool)
        yield SampleInput(make(shape, device, dtype), (mask,), name=f"{shape} mask {mask_shape}")
    yield SampleInput(make((4, 5), device, dtype).t(), (make((5, 4), device, torch.bool),), name="transposed")


def _masked_select_errors(op, device):
    yield ErrorInput(SampleInput(torch.zeros(3, device=device), (torch.zeros(3, device=device, dtype=torch.uint8),)),
                     RuntimeError, "expected BoolTensor for mask")
    yield ErrorInput(SampleInput(torch.zeros(3, device=device), (torch.zeros(4, device=device, dtype=torch.bool),)),
                     RuntimeError, "")


def _one_element_samples(op, device, dtype):
    for shape in ((), (1,), (1, 1)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")


def _assert_async_samples(op, device, dtype):
    """Nonzero values (a zero fails the check where the graph runs: tests/test_numbers_from_tensors.py)."""
    for shape in ((), (1,), (1, 1)):
        yield SampleInput(torch.ones(shape, device=device, dtype=dtype), name=f"{shape}")
        yield SampleInput(torch.ones(shape, device=device, dtype=dtype), ("the value must be nonzero",),
                          name=f"{shape} msg")


def _one_element_errors(match):
    def errors(op, device):
        yield ErrorInput(SampleInput(torch.ones(2, device=device)), RuntimeError, match)
    return errors


ENTRIES = [
    _entry("item", torch.Tensor.item, ("aten::item",), _one_element_samples,
           errors=_one_element_errors("a Tensor with 2 elements cannot be converted to Scalar"),
           supports_autograd=False),   # a Python number: nothing for a gradient to flow into
    _entry("_assert_async", torch._assert_async, ("aten::_assert_async", "aten::_assert_async.msg"),
           _assert_async_samples, errors=_one_element_errors("more than one value is ambiguous"),
           supports_autograd=False),   # returns nothing
    _entry("sort", torch.sort, ("aten::sort", "aten::sort.values"),
           _along_dim(({}, {"descending": True}), extremal=True), errors=_sort_errors, supports_out=False,
           dtypes=REAL | BOOL),
    _entry("sort_stable", lambda a, dim, **kw: torch.sort(a, dim=dim, stable=True, **kw),
           ("aten::sort.stable", "aten::sort.values_stable"),
           _along_dim(({}, {"descending": True})), errors=_sort_errors),
    _entry("argsort", torch.argsort, ("aten::argsort",), _along_dim(({}, {"descending": True})),
           errors=_sort_errors),
    _entry("argsort_stable", lambda a, dim, **kw: torch.argsort(a, dim=dim, stable=True, **kw),
           ("aten::argsort.stable", "aten::argsort.stable_out"), _along_dim(({}, {"descending": True})),
           supports_out=True, errors=_sort_errors),
    _entry("msort", lambda a, dim=None, **kw: torch.msort(a, **kw), ("aten::msort", "aten::msort.out"),
           _along_dim(), supports_out=True, errors=None),
    _entry("topk", torch.topk, ("aten::topk", "aten::topk.values"), _topk_samples, errors=_topk_errors,
           dtypes=REAL),
    _entry("kthvalue", torch.kthvalue, ("aten::kthvalue", "aten::kthvalue.values"), _kthvalue_samples,
           errors=_kthvalue_errors, dtypes=REAL),
    _entry("median", torch.median, ("aten::median",), _median_all_samples, errors=None, dtypes=REAL),
    _entry("median_dim", torch.median, ("aten::median.dim", "aten::median.dim_values"),
           _selection(({}, {"keepdim": True})), errors=_median_dim_errors, dtypes=REAL),
    _entry("nanmedian", torch.nanmedian, ("aten::nanmedian",), _median_all_samples, errors=None, dtypes=REAL),
    _entry("nanmedian_dim", torch.nanmedian, ("aten::nanmedian.dim", "aten::nanmedian.dim_values"),
           _selection(({}, {"keepdim": True})), errors=_median_dim_errors, dtypes=REAL),
    _entry("cumsum", torch.cumsum, ("aten::cumsum", "aten::cumsum.out", "aten::cumsum_"),
           _along_dim(({}, {"dtype": torch.float64})), inplace=torch.Tensor.cumsum_, supports_out=True,
           tolerances=SCAN_TOLERANCES, errors=_scan_errors),
    _entry("cumprod", torch.cumprod, ("aten::cumprod", "aten::cumprod.out", "aten::cumprod_"),
           _along_dim(), inplace=torch.Tensor.cumprod_, supports_out=True, tolerances=CUMPROD_TOLERANCES,
           errors=_scan_errors),
    _entry("cummax", torch.cummax, ("aten::cummax", "aten::cummax.out"), _along_dim(), errors=_scan_errors),
    _entry("cummin", torch.cummin, ("aten::cummin", "aten::cummin.out"), _along_dim(), errors=_scan_errors),
    _entry("logcumsumexp", torch.logcumsumexp, ("aten::logcumsumexp", "aten::logcumsumexp.out",
                                                "aten::_logcumsumexp", "aten::_logcumsumexp.out"),
           _along_dim(extremal=False), dtypes=FLOATING | COMPLEX, supports_out=True, tolerances=SCAN_TOLERANCES,
           errors=_scan_errors),
    _entry("searchsorted", torch.searchsorted, ("aten::searchsorted.Tensor", "aten::searchsorted.Tensor_out"),
           _search_samples, errors=_search_errors, dtypes=REAL, supports_out=True),
    _entry("searchsorted_scalar", torch.searchsorted, ("aten::searchsorted.Scalar", "aten::searchsorted.Scalar_out"),
           _search_scalar_samples, errors=None, dtypes=REAL, supports_out=True),
    _entry("bucketize", torch.bucketize, ("aten::bucketize.Tensor", "aten::bucketize.Tensor_out"),
           _bucketize_samples, errors=_bucketize_errors, dtypes=REAL, supports_out=True),
    _entry("bucketize_scalar", lambda boundaries, value, **kw: torch.bucketize(value, boundaries, **kw),
           ("aten::bucketize.Scalar", "aten::bucketize.Scalar_out"),
           lambda op, device, dtype: (SampleInput(torch.sort(make((5,), device, dtype))[0], (v,), kw,
                                                  name=f"scalar {v} {kw}")
                                      for v in (0, 2, -1.5) for kw in ({}, {"right": True})),
           errors=None, dtypes=REAL),
    _entry("take", torch.take, ("aten::take", "aten::take.out"), _take_samples, errors=_take_errors,
           dtypes=REAL | BOOL | COMPLEX, supports_out=True),
    _entry("nonzero", torch.nonzero, ("aten::nonzero", "aten::nonzero.out"), _nonzero_samples, errors=None,
           supports_out=True),
    _entry("argwhere", torch.argwhere, ("aten::argwhere",), _nonzero_samples, errors=None),
    _entry("masked_select", torch.masked_select, ("aten::masked_select", "aten::masked_select.out"),
           _masked_select_samples, errors=_masked_select_errors, dtypes=REAL | BOOL | COMPLEX, supports_out=True),
]


aten = torch.ops.aten
_aten_entry = functools.partial(aten_entry, family="sorting")


def _small_ints(shape, device, dtype, high=3):
    """Values in [0, high): they repeat (exact in every dtype; bool is 0/1)."""
    return torch.randint(0, 2 if dtype == torch.bool else high, shape, device=device).to(dtype)


def _mode_samples(op, device, dtype):
    """Rows of at most 16 elements: eager's std::sort is stable there (see decompositions.mode)."""
    for shape, dim in (((), 0), ((1,), 0), ((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((0, 3), 1)):
        for keepdim in (False, True):
            yield SampleInput(_small_ints(shape, device, dtype), (dim, keepdim), name=f"{shape} dim={dim} "
                              f"keepdim={keepdim}")
    t = _small_ints((5, 4), device, dtype).t()
    yield SampleInput(t, (1,), name="transposed")
    yield SampleInput(_small_ints((4, 16), device, dtype, high=5), (), name="rows of 16, default dim")
    if dtype.is_floating_point:
        yield SampleInput(torch.tensor([[-0.0, 0.0, 1.5, 1.5], [2.0, -1.0, -1.0, 2.0]], device=device, dtype=dtype),
                          (1,), name="signed zeros, ties")


def _mode_errors(op, device):
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (0,)), IndexError, "non-zero size")
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (2,)), IndexError, "Dimension out of range")


QUANTILE_CASES = (((7,), None), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -2), ((), None), ((), 0), ((1,), 0))


INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_samples(op, device, dtype):
    """Knob scalar: q a Python float (quantile.scalar) rather than a tensor."""
    scalar = op.sample_kwargs.get("scalar", False)
    qs = (0.3, 0.0, 1.0) if scalar else (torch.tensor([0.0, 0.25, 0.5, 1.0], device=device, dtype=dtype),
                                         torch.tensor(0.7, device=device, dtype=dtype))
    for shape, dim in QUANTILE_CASES:
        for q in qs:
            for keepdim in (False, True):
                yield SampleInput(make(shape, device, dtype), (q,), {"dim": dim, "keepdim": keepdim},
                                  name=f"{shape} dim={dim} keepdim={keepdim}")
    for interpolation in INTERPOLATIONS:
        yield SampleInput(make((3, 6), device, dtype), (qs[0],), {"dim": 1, "interpolation": interpolation},
                          name=f"{interpolation}")
    t = make((5, 4), device, dtype).t()
    yield SampleInput(t, (qs[0],), {"dim": 0}, name="transposed")
    rows = torch.tensor([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 0.0, -1.0, 2.5]], device=device,
                        dtype=dtype)
    for interpolation in ("linear", "nearest"):
        yield SampleInput(rows, (qs[0],), {"dim": 1, "interpolation": interpolation}, name=f"nan rows {interpolation}")
    yield SampleInput(_small_ints((4, 6), device, dtype), (qs[0],), {"dim": 1}, name="ties")


def _quantile_errors(op, device):
    a = make((3, 4), device, torch.float32)
    q = torch.tensor([0.5], device=device)
    yield ErrorInput(SampleInput(a, (q.double(),)), RuntimeError, "q tensor must be same dtype")
    yield ErrorInput(SampleInput(a, (q.reshape(1, 1),)), RuntimeError, "q must be a scalar or 1D tensor")
    yield ErrorInput(SampleInput(a, (1.5,)), RuntimeError, r"q must be in the range \[0, 1\]")
    yield ErrorInput(SampleInput(a, (q,), {"interpolation": "cubic"}), RuntimeError, "interpolation must be one of")
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (q,)), RuntimeError, "must be non-empty")
    yield ErrorInput(SampleInput(a.half(), (q.half(),)), RuntimeError, "must be either float or double")


def _unique_samples(op, device, dtype):
    """Knob dim: along a dim (unique_dim, unique_dim_consecutive, unique_consecutive with dim)."""
    along = op.sample_kwargs.get("dim", False)
    flags = ({}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True})
    cases = ((((6, 3), 0), ((6, 3), 1), ((4, 2, 3), 1), ((4, 2, 3), -1), ((9,), 0), ((2, 0), 1), ((0, 3), 0))
             if along else (((12,), None), ((3, 4), None), ((), None), ((0, 2), None)))
    for shape, dim in cases:
        x = _small_ints(shape, device, dtype, high=2 if along else 3)
        for kw in flags:
            dim_kw = {"dim": dim} if along else {}
            yield SampleInput(x, (), {**kw, **dim_kw}, name=f"{shape} dim={dim} {kw}")
    yield SampleInput(_small_ints((5, 4), device, dtype, high=2).t(), (), {"return_counts": True,
                                                                         **({"dim": 1} if along else {})},
                      name="transposed")


def _unique_dim_positional(op):
    """op(a, dim, ...) for aten.unique_dim and unique_dim_consecutive (and their out= forms),
    whose dim is positional; the samples name it as a keyword."""
    def call(a, *, dim, return_inverse=False, return_counts=False, **outs):
        return op(a, dim, return_inverse=return_inverse, return_counts=return_counts, **outs)
    call.__name__ = str(op)
    return call


def _with_out_shapes(op, device, dtype):
    """The unique samples, each naming the shapes of eager's results (the sizes are data): the
    out= form writes into fresh tensors of those shapes."""
    functional = op.sample_kwargs["functional"]
    for s in _unique_samples(op, device, dtype):
        shapes = [tuple(t.shape) for t in functional(s.input, *s.args, **s.kwargs)]
        yield SampleInput(s.input, s.args, {**s.kwargs, "out_shapes": shapes}, name=s.name)


def _into_fresh_outs(overload):
    """overload (an out= form with out0, out1, out2: values, inverse, counts) writing into fresh
    tensors of the given shapes."""
    def op(a, *args, out_shapes, **kwargs):
        outs = {f"out{i}": torch.empty(shape, device=a.device, dtype=a.dtype if i == 0 else torch.int64)
                for i, shape in enumerate(out_shapes)}
        return overload(a, *args, **kwargs, **outs)
    op.__name__ = str(overload)
    return op


def _unique_dim_errors(op, device):
    yield ErrorInput(SampleInput(make((), device, torch.float32), (), {"dim": 0}), IndexError, "has no dimensions")
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (), {"dim": 1}), RuntimeError,
                     "they aren't selected")


def _isin_samples(op, device, dtype):
    """Knob scalar: "elements" or "test" is a Python number (isin.Scalar_Tensor / Tensor_Scalar)."""
    scalar = op.sample_kwargs.get("scalar")
    number = 2 if dtype in (torch.int64, torch.uint8) else 2.0
    for shape, test_shape in (((3, 4), (5,)), ((12,), (3, 2)), ((), (4,)), ((0, 3), (2,)), ((3, 4), ()),
                              ((3, 4), (0,)), ((3, 4), (40,))):
        elements, test = _small_ints(shape, device, dtype, high=5), _small_ints(test_shape, device, dtype, high=5)
        for invert in (False, True):
            kw = {"invert": invert}
            if scalar == "elements":
                yield SampleInput(number, (test,), kw, name=f"number in {test_shape} invert={invert}")
            elif scalar == "test":
                yield SampleInput(elements, (number,), kw, name=f"{shape} holds number invert={invert}")
            else:
                yield SampleInput(elements, (test,), kw, name=f"{shape} in {test_shape} invert={invert}")
    if scalar is None:
        yield SampleInput(_small_ints((5, 4), device, dtype, high=5).t(), (_small_ints((3,), device, dtype, high=5),),
                          name="transposed")
        yield SampleInput(_small_ints((3, 4), device, dtype, high=5), (_small_ints((3,), device, dtype, high=5),),
                          {"assume_unique": True}, name="assume_unique")
        if dtype.is_floating_point:
            vals = torch.tensor([NAN, 1.0, -0.0, 2.5], device=device, dtype=dtype)
            yield SampleInput(vals, (torch.tensor([NAN, 0.0, 2.5], device=device, dtype=dtype),), name="nan, zeros")
        if dtype != torch.float64:
            yield SampleInput(_small_ints((3, 4), device, dtype, high=5),
                              (torch.tensor([1.5, 2.0], device=device, dtype=torch.float64),), name="float64 test")
    elif dtype.is_floating_point:
        yield SampleInput(2.5 if scalar == "elements" else make((3, 4), device, dtype),
                          ((make((4,), device, dtype),) if scalar == "elements" else (2.5,)), name="fractional number")


def _isin_errors(op, device):
    yield ErrorInput(SampleInput(torch.ones(3, device=device, dtype=torch.bool),
                                 (torch.ones(2, device=device, dtype=torch.bool),)), RuntimeError,
                     "Unsupported input type encountered for isin")


ENTRIES += [
    _aten_entry("mode", torch.mode, ("aten::mode",), _mode_samples, _mode_errors, dtypes=ALL),
    # (No gradient test: eager autograd refuses out= arguments that require grad.)
    _aten_entry("mode_out", tuple_out(torch.mode), ("aten::mode", "aten::mode.values"), _mode_samples, dtypes=ALL,
               supports_autograd=False),
    _aten_entry("quantile", torch.quantile, ("aten::quantile", "aten::quantile.out"), _quantile_samples,
                _quantile_errors, dtypes=FLOAT32_64, supports_out=True),
    _aten_entry("quantile_scalar", torch.quantile, ("aten::quantile.scalar", "aten::quantile.scalar_out"),
                _quantile_samples, dtypes=FLOAT32_64, supports_out=True, sample_kwargs={"scalar": True}),
    _aten_entry("nanquantile", torch.nanquantile, ("aten::nanquantile", "aten::nanquantile.out"), _quantile_samples,
                _quantile_errors, dtypes=FLOAT32_64, supports_out=True),
    _aten_entry("nanquantile_scalar", torch.nanquantile, ("aten::nanquantile.scalar", "aten::nanquantile.scalar_out"),
                _quantile_samples, dtypes=FLOAT32_64, supports_out=True, sample_kwargs={"scalar": True}),
    _aten_entry("unique", torch.unique, ("aten::_unique2",), _unique_samples, dtypes=ALL, supports_autograd=False),
    _aten_entry("unique_unsorted", lambda a, **kw: torch.unique(a, sorted=False, **kw), ("aten::_unique2",),
                _unique_samples, dtypes=ALL, supports_autograd=False),
    _aten_entry("_unique", lambda a, return_inverse=False, return_counts=False: aten._unique.default(a, True, return_inverse),
                ("aten::_unique",), _unique_samples, dtypes=ALL, supports_autograd=False),
    _aten_entry("unique_consecutive", torch.unique_consecutive, ("aten::unique_consecutive",), _unique_samples,
                dtypes=ALL, supports_autograd=False),
    _aten_entry("unique_consecutive_dim", torch.unique_consecutive, ("aten::unique_consecutive",), _unique_samples,
                _unique_dim_errors, dtypes=ALL, supports_autograd=False, sample_kwargs={"dim": True}),
    _aten_entry("unique_dim", _unique_dim_positional(aten.unique_dim.default), ("aten::unique_dim",), _unique_samples,
                _unique_dim_errors, dtypes=ALL, supports_autograd=False, sample_kwargs={"dim": True}),
    _aten_entry("unique_dim_consecutive", _unique_dim_positional(aten.unique_dim_consecutive.default),
                ("aten::unique_dim_consecutive",), _unique_samples, _unique_dim_errors, dtypes=ALL,
                supports_autograd=False, sample_kwargs={"dim": True}),
    # The out= forms (out0, out1, out2), into tensors of eager's result shapes.
    _aten_entry("unique_out", _into_fresh_outs(aten._unique2.out), ("aten::_unique2.out",), _with_out_shapes,
                dtypes=ALL, supports_autograd=False, sample_kwargs={"functional": aten._unique2.default}),
    _aten_entry("unique_consecutive_out", _into_fresh_outs(aten.unique_consecutive.out),
                ("aten::unique_consecutive.out",), _with_out_shapes, dtypes=ALL, supports_autograd=False,
                sample_kwargs={"functional": aten.unique_consecutive.default}),
    _aten_entry("unique_dim_out", _into_fresh_outs(_unique_dim_positional(aten.unique_dim.out)), ("aten::unique_dim.out",),
                _with_out_shapes, dtypes=ALL, supports_autograd=False,
                sample_kwargs={"dim": True, "functional": _unique_dim_positional(aten.unique_dim.default)}),
    _aten_entry("unique_dim_consecutive_out", _into_fresh_outs(_unique_dim_positional(aten.unique_dim_consecutive.out)),
                ("aten::unique_dim_consecutive.out",), _with_out_shapes, dtypes=ALL, supports_autograd=False,
                sample_kwargs={"dim": True, "functional": _unique_dim_positional(aten.unique_dim_consecutive.default)}),
    _aten_entry("isin", torch.isin, ("aten::isin.Tensor_Tensor", "aten::isin.Tensor_Tensor_out"), _isin_samples,
                _isin_errors, dtypes=NUMERIC, supports_out=True, supports_autograd=False),
    _aten_entry("isin_scalar_elements", torch.isin, ("aten::isin.Scalar_Tensor", "aten::isin.Scalar_Tensor_out"),
                _isin_samples, dtypes=NUMERIC, supports_out=True, supports_autograd=False,
                sample_kwargs={"scalar": "elements"}),
    _aten_entry("isin_scalar_test", torch.isin, ("aten::isin.Tensor_Scalar", "aten::isin.Tensor_Scalar_out"),
                _isin_samples, dtypes=NUMERIC, supports_out=True, supports_autograd=False,
                sample_kwargs={"scalar": "test"}),
]
