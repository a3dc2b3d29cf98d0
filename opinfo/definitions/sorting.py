"""OpInfo entries: sorting, selection, scans and searching. Samples run along a dim of 0-d,
empty, size-1 and multi-dim operands, in every layout; selections (kthvalue, median) use
distinct values, since eager picks any index among equal ones."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import BOOL, COMPLEX, FLOATING, INTEGRAL
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


NONZERO_STRIDES = ("eager's nonzero is column-major, strides (1, n); laying the prim's output out so needs "
                   "copy_strided on a data-dependent size, whose meta rule guards on it (is_non_overlapping)")

ENTRIES = [
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
           xfails=[XFail("strides", NONZERO_STRIDES, raises=AssertionError)]),
    _entry("argwhere", torch.argwhere, ("aten::argwhere",), _nonzero_samples, errors=None,
           xfails=[XFail("strides", NONZERO_STRIDES, raises=AssertionError)]),
    _entry("masked_select", torch.masked_select, ("aten::masked_select", "aten::masked_select.out"),
           _masked_select_samples, errors=_masked_select_errors, dtypes=REAL | BOOL | COMPLEX),
]
