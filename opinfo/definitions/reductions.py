"""OpInfo entries: reductions. One shared generator; knobs say which dim forms an op takes.
Counting (bincount, histc, histogram, histogramdd), norms (renorm, frobenius_norm), nanmean,
integration (trapezoid, cumulative_trapezoid) and cov / corrcoef have generators of their own."""
from __future__ import annotations

import functools
import math

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.common import aten_entry, make_f32, positional_out, table_entry
from primkit.opinfo.definitions.nn.common import out_entry
from primkit.opinfo.definitions.shape.common import cases, errors
from primkit.opinfo.dtypes import ALL, COMPLEX, FLOAT32_64, FLOATING, NUMERIC
from primkit.opinfo.samples import FLOATING as FLOAT_DTYPES, layouts, make

# (shape, dim) pairs; dims are given as an int, a tuple, a negative dim or None (every dim).
REDUCTION_CASES = (
    ((), None), ((), 0), ((5,), 0), ((1,), -1), ((3, 4), 1), ((3, 4), (0, 1)), ((2, 3, 4), -2),
    ((2, 3, 4), (0, 2)), ((2, 1, 4), 1), ((2, 3, 4, 5), 1), ((2, 3, 4, 5), (2, 3)),
)
EMPTY_CASES = (((0,), 0), ((2, 0, 3), 1), ((2, 0, 3), 0), ((0, 3), None))
LAYOUT_SHAPE = (2, 3, 4, 5)


def _takes(dim, dims):
    """The dim argument as the op takes it: 'list' (int[]), 'int' (one dim), 'none' (no dim)."""
    if dims == "none":
        return dim is None
    if dims == "int" and isinstance(dim, tuple):
        return False
    return True


def sample_inputs_reduction(op, device, dtype):
    """Knobs (op.sample_kwargs): dims ('list', 'int', 'none'), full (a call without dim reduces
    every dim; "dim=None": so does dim=None), empty (empty reduced dims are valid), keepdim,
    variants (extra kwargs to try), extremal (inf/nan rows)."""
    kw = op.sample_kwargs
    dims, low, high = kw.get("dims", "list"), *op.domain
    cases = REDUCTION_CASES + (EMPTY_CASES if kw.get("empty", True) else ())
    for variant in kw.get("variants", ({},)):
        for shape, dim in cases:
            if not _takes(dim, dims) or (dim is None and not kw.get("full", True)):
                continue
            t = make(shape, device, dtype, low=low, high=high)
            # full="dim=None": the every-dim form spelled with dim=None (the one with an out= binding).
            dim_kw = {"dim": dim} if dim is not None or kw.get("full") == "dim=None" else {}
            for keepdim in ((False, True) if kw.get("keepdim", True) and dim is not None else (False,)):
                extra = {"keepdim": True} if keepdim else {}
                yield SampleInput(t, kwargs={**dim_kw, **extra, **variant}, name=f"{shape} dim={dim} "
                                  f"keepdim={keepdim} {variant}")
        # Layouts: reduce the channel dim of a transposed / channels-last / expanded operand.
        for name, t in layouts(LAYOUT_SHAPE, device, dtype, low=low, high=high):
            dim_kw = {} if dims == "none" else {"dim": 1}
            yield SampleInput(t, kwargs={**dim_kw, **variant}, name=f"{name} {variant}")
    if dtype in FLOAT_DTYPES and kw.get("extremal", True):
        yield from extremal_reduction(op, device, dtype)


def extremal_reduction(op, device, dtype):
    """Rows of inf, -inf, nan and huge values, reduced along dim 1."""
    if dtype in FLOAT_DTYPES:
        dims = op.sample_kwargs.get("dims", "list")
        inf, nan = float("inf"), float("nan")
        rows = [[1.0, inf, -1.0], [-inf, -inf, -inf], [inf, -inf, 2.0], [nan, 1.0, 0.0], [0.0, 0.0, 0.0]]
        dim_kw = {} if dims == "none" else {"dim": 1}
        yield SampleInput(torch.tensor(rows, device=device, dtype=dtype), kwargs=dim_kw, name="inf/nan rows")
        big = torch.finfo(dtype).max / 4
        yield SampleInput(torch.tensor([[big, big, -big], [1e-3, -1e-3, 0.0]], device=device, dtype=dtype),
                          kwargs=dim_kw, name="large magnitudes")


def error_inputs_reduction(op, device):
    """Knobs: errors (a list of (shape, dtype, kwargs, error type, pattern) the op adds)."""
    t = make((2, 3), device, torch.float32)
    dims = op.sample_kwargs.get("dims", "list")
    if dims != "none":
        yield ErrorInput(SampleInput(t, kwargs={"dim": 2}), IndexError, "Dimension out of range")
    if dims == "list":
        yield ErrorInput(SampleInput(t, kwargs={"dim": (0, 0)}), RuntimeError, "appears multiple times")
    for shape, dtype, kwargs, error, match in op.sample_kwargs.get("errors", ()):
        yield ErrorInput(SampleInput(make(shape, device, dtype), kwargs=kwargs), error, match)


EMPTY_ALL = ((0, 3), torch.float32, {}, RuntimeError, "Expected reduction dim to be specified")
EMPTY_DIM = ((0, 3), torch.float32, {"dim": 0}, IndexError, "Expected reduction dim 0 to have non-zero size")
INT_INPUT = ((3,), torch.int64, {}, RuntimeError, "")


def _reduction(name, op, *, dtypes=ALL, aten=None, supports_out=True, tolerances=None, xfails=(),
               domain=(None, None), **knobs):
    return OpInfo(name=name, op=op, aten=aten or (f"aten::{name}",), sample_inputs=sample_inputs_reduction,
                  error_inputs=error_inputs_reduction, dtypes=frozenset(dtypes), supports_out=supports_out,
                  tolerances=tolerances or {}, xfails=tuple(xfails), domain=domain, sample_kwargs=knobs,
                  family="reductions")


def _extremum_errors(name):
    return (EMPTY_DIM, EMPTY_ALL) if name not in ("argmax", "argmin") else (
        EMPTY_DIM, ((0, 3), torch.float32, {}, IndexError, "Expected reduction dim to be specified"),
        ((3,), torch.bool, {}, RuntimeError, "does not support bool input"))


# float16 sums of ~100 terms: eager and the prim both accumulate in float32 but in a different
# order, so the rounded results can differ in the last float16/bfloat16 place.
SUM_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}


def _aten_norm(x, dim, keepdim=False, p=2):
    # aten.norm.ScalarOpt_dim itself: torch.norm reaches linalg_vector_norm, but export keeps norm.
    return torch.ops.aten.norm.ScalarOpt_dim(x, p, dim, keepdim)


aten = torch.ops.aten


def _with_out(functional, out_overload):
    """functional, or with out= the named out= overload: for an out= overload the packet's own
    resolution does not pick (all(x, out=) resolves to all.dims_out, not all.all_out)."""
    def op(*args, out=None, **kwargs):
        return functional(*args, **kwargs) if out is None else out_overload(*args, out=out, **kwargs)
    op.__name__ = str(out_overload)
    return op


def tuple_out(fn):
    """fn writing its tuple result into out= tensors allocated like it: the samples reach fn's
    out= overload (test_out covers single-tensor results only)."""
    def op(*args, **kwargs):
        outs = tuple(torch.empty_like(r) for r in fn(*args, **kwargs))
        return tuple(fn(*args, **kwargs, out=outs))
    op.__name__ = f"{getattr(fn, '__name__', fn)}_tuple_out"
    return op


def sample_inputs_binary_extremum(op, device, dtype):
    """max(a, b) / min(a, b): same shapes, broadcasting, transposed, nan."""
    for a_shape, b_shape in (((4, 5), (4, 5)), ((4, 5), (5,)), ((3, 1), (1, 4)), ((), (3,)), ((0, 3), (3,))):
        for name, t in layouts(a_shape, device, dtype):
            yield SampleInput(t, (make(b_shape, device, dtype),), name=f"{name} {a_shape} {b_shape}")
    if dtype in FLOAT_DTYPES:
        nan = float("nan")
        yield SampleInput(torch.tensor([nan, 1.0, -2.0], device=device, dtype=dtype),
                          (torch.tensor([0.0, nan, float("inf")], device=device, dtype=dtype),), name="nan, inf")


def sample_inputs_var_positional(op, device, dtype):
    """var / std / var_mean / std_mean with positional unbiased (the .default and .dim overloads)."""
    for shape, dim in (((3, 4), None), ((5,), None), ((2, 3, 4), [1]), ((2, 3, 4), [0, 2]), ((3, 4), None)):
        for unbiased in (True, False):
            for name, t in layouts(shape, device, dtype):
                if dim is None:
                    yield SampleInput(t, (unbiased,), name=f"{name} {shape} unbiased={unbiased}")
                else:
                    for keepdim in (False, True):
                        yield SampleInput(t, (dim, unbiased, keepdim), name=f"{name} {shape} dim={dim} "
                                          f"unbiased={unbiased} keepdim={keepdim}")


def sample_inputs_norm_scalar(op, device, dtype):
    """aten.norm with p and no dim (norm.Scalar, norm.ScalarOpt_dtype), and with a dim and a
    dtype (norm.ScalarOpt_dim_dtype); sample_kwargs "dim" picks which."""
    with_dim = op.sample_kwargs.get("dim", False)
    wider = torch.float64
    for shape in ((), (5,), (3, 4), (2, 3, 4), (0, 3)):
        for p in (2, 1, 3.5, 0, float("inf")):
            if with_dim and not shape:
                continue
            if p == float("inf") and 0 in shape:
                continue   # the inf norm of nothing is an error
            for name, t in layouts(shape, device, dtype):
                if with_dim:
                    yield SampleInput(t, (p, [-1], p == 1), {"dtype": wider}, name=f"{name} {shape} p={p}")
                else:
                    yield SampleInput(t, (p,), name=f"{name} {shape} p={p}")
                    yield SampleInput(t, (p,), {"dtype": wider}, name=f"{name} {shape} p={p} dtype")


def _entry(name, op, aten, samples, *, dtypes=FLOATING, supports_out=False, tolerances=None, xfails=(), **knobs):
    return OpInfo(name=name, op=op, aten=aten, sample_inputs=samples, dtypes=frozenset(dtypes),
                  supports_out=supports_out, tolerances=tolerances or SUM_TOLERANCES, xfails=tuple(xfails),
                  sample_kwargs=knobs, family="reductions")


def sample_inputs_segment_reduce(op, device, dtype):
    """torch.segment_reduce: every reduction, by lengths (int64 and int32) and by offsets, along the
    first, a middle and the last axis (lengths carry the leading dims), with empty segments, with
    and without initial; empty data along the axis and beside it. (Emptying data alone is no sample:
    eager reads offsets past the data out of bounds, values vary or the process crashes.)"""
    cases = (((6, 3), 0, [2, 0, 4]), ((2, 5, 4), 1, [[1, 4, 0], [3, 0, 2]]),
             ((2, 3, 5), 2, [[[2, 3]] * 3, [[0, 5]] * 3]), ((4,), 0, [1, 1, 2]),
             ((0, 3), 0, [0, 0]), ((6, 0), 0, [2, 0, 4]), ((2, 0), 1, [[0, 0], [0, 0]]))
    for shape, axis, lengths in cases:
        lengths = torch.tensor(lengths, device=device)
        offsets = torch.cat([torch.zeros(lengths.shape[:-1] + (1,), dtype=torch.int64, device=device),
                             lengths.cumsum(-1)], -1)
        for name, t in layouts(shape, device, dtype):
            for reduce in ("sum", "mean", "max", "min", "prod"):
                yield SampleInput(t, (reduce,), {"lengths": lengths, "axis": axis},
                                  name=f"{name} {shape} {reduce} axis={axis} lengths")
                yield SampleInput(t, (reduce,), {"offsets": offsets, "axis": axis, "initial": 1.5},
                                  name=f"{name} {shape} {reduce} axis={axis} offsets initial")
            yield SampleInput(t, ("mean",), {"lengths": lengths.int(), "axis": axis, "initial": -2.0, "unsafe": True},
                              name=f"{name} {shape} mean axis={axis} int32 lengths unsafe")


VAR_VARIANTS = ({}, {"correction": 0}, {"correction": 2.5}, {"unbiased": False})

ENTRIES = [
    _reduction("sum", torch.sum, aten=("aten::sum.dim_IntList", "aten::sum.IntList_out"), tolerances=SUM_TOLERANCES,
               full="dim=None", variants=({}, {"dtype": torch.float64}, {"dtype": torch.int64})),
    _reduction("sum_all", aten.sum, aten=("aten::sum", "aten::sum.out"), dims="none", tolerances=SUM_TOLERANCES,
               variants=({}, {"dtype": torch.float64})),
    _reduction("nansum", torch.nansum, aten=("aten::nansum",), dtypes=NUMERIC, tolerances=SUM_TOLERANCES),
    _reduction("nanmean", torch.nanmean, aten=("aten::nanmean",), dtypes=FLOATING, tolerances=SUM_TOLERANCES,
               supports_out=False),
    _reduction("prod", torch.prod, aten=("aten::prod.dim_int", "aten::prod.int_out"), dims="int", domain=(-2, 2),
               full=False, tolerances=SUM_TOLERANCES),
    _reduction("prod_all", aten.prod, aten=("aten::prod", "aten::prod.out"), dims="none", domain=(-2, 2),
               tolerances=SUM_TOLERANCES, variants=({}, {"dtype": torch.float64}),
               xfails=[XFail("gradients", "a zero among magnitudes whose product overflows: the value is nan (inf * 0, "
                             "in eager too), so no gradient is right; eager's running products of the others give 0 "
                             "or inf by their order, primkit's result / x nan", frozenset({torch.float64}),
                             raises=AssertionError)]),
    _reduction("mean", torch.mean, aten=("aten::mean", "aten::mean.dim"), dtypes=FLOATING, tolerances=SUM_TOLERANCES,
               errors=(INT_INPUT[:-1] + ("could not infer output dtype",),)),
    _reduction("mean_all", aten.mean, aten=("aten::mean", "aten::mean.dtype_out"), dtypes=FLOATING, dims="none",
               tolerances=SUM_TOLERANCES, variants=({}, {"dtype": torch.float64})),
    _reduction("amax", torch.amax, aten=("aten::amax",), empty=False, errors=_extremum_errors("amax")),
    _reduction("amin", torch.amin, aten=("aten::amin",), empty=False, errors=_extremum_errors("amin")),
    _reduction("max", torch.max, aten=("aten::max", "aten::max.dim"), dims="int", empty=False,
               errors=_extremum_errors("max")),
    _reduction("min", torch.min, aten=("aten::min", "aten::min.dim"), dims="int", empty=False,
               errors=_extremum_errors("min")),
    _reduction("max_all", aten.max, aten=("aten::max", "aten::max.unary_out"), dims="none", empty=False),
    _reduction("min_all", aten.min, aten=("aten::min", "aten::min.unary_out"), dims="none", empty=False),
    _reduction("max_dim_out", tuple_out(torch.max), aten=("aten::max.dim", "aten::max.dim_max"), dims="int",
               full=False, empty=False, supports_out=False),
    _reduction("min_dim_out", tuple_out(torch.min), aten=("aten::min.dim", "aten::min.dim_min"), dims="int",
               full=False, empty=False, supports_out=False),
    _reduction("aminmax_out", tuple_out(torch.aminmax), aten=("aten::aminmax", "aten::aminmax.out"), dims="int",
               empty=False, supports_out=False),
    # max(a, b) / min(a, b) are CompositeImplicit (maximum / minimum): make_fx lowers them before the table.
    _entry("max_binary", torch.max, ("aten::max.other", "aten::max.out"), sample_inputs_binary_extremum, dtypes=ALL,
           supports_out=True),
    _entry("min_binary", torch.min, ("aten::min.other", "aten::min.out"), sample_inputs_binary_extremum, dtypes=ALL,
           supports_out=True),
    _reduction("argmax", torch.argmax, aten=("aten::argmax",), dtypes=NUMERIC, dims="int", empty=False,
               errors=_extremum_errors("argmax")),
    _reduction("argmin", torch.argmin, aten=("aten::argmin",), dtypes=NUMERIC, dims="int", empty=False,
               errors=_extremum_errors("argmin")),
    _reduction("aminmax", torch.aminmax, aten=("aten::aminmax",), dims="int", empty=False, supports_out=False,
               errors=(((0, 3), torch.float32, {}, RuntimeError, "cannot compute aminmax over an empty dimension"),
                       ((0, 3), torch.float32, {"dim": 0}, IndexError, "to have non-zero size"))),
    _reduction("var", torch.var, aten=("aten::var.correction",), dtypes=FLOATING, variants=VAR_VARIANTS,
               full="dim=None", tolerances=SUM_TOLERANCES, errors=(INT_INPUT[:-1] + ("only support floating point",),),
               xfails=[XFail("gradients", "a 0-d input with correction > N = 1: the value is nan (eager divides by "
                             "max(N - correction, 0)), so no gradient is right; eager's backward along dims (and the var "
                             "prim's derivative) gives 2 / (N - correction) * (x - mean) = 0 there, its 0-d backward nan",
                             frozenset({torch.float64}), raises=AssertionError)]),
    _reduction("std", torch.std, aten=("aten::std.correction",), dtypes=FLOATING, variants=VAR_VARIANTS,
               full="dim=None", tolerances=SUM_TOLERANCES),
    _reduction("var_mean", torch.var_mean, aten=("aten::var_mean.correction",), dtypes=FLOATING,
               variants=({}, {"correction": 0}), supports_out=False, tolerances=SUM_TOLERANCES, extremal=False),
    _reduction("std_mean", torch.std_mean, aten=("aten::std_mean.correction",), dtypes=FLOATING,
               variants=({}, {"unbiased": False}), supports_out=False, tolerances=SUM_TOLERANCES, extremal=False),
    OpInfo(name="var_mean_nonfinite", op=torch.var_mean, aten=("aten::var_mean.correction",),
           sample_inputs=extremal_reduction, dtypes=FLOATING, family="reductions",
           xfails=(XFail("values", "eager's Welford kernel gives a nan mean for a row holding inf (inf - inf in its "
                                   "running update); the decomposition's mean is mean()'s, inf", raises=AssertionError),)),
    # (No out= test: with out=, a positional unbiased flag binds to var.out's dim.)
    _entry("var_unbiased", aten.var, ("aten::var", "aten::var.dim"), sample_inputs_var_positional),
    _entry("std_unbiased", aten.std, ("aten::std", "aten::std.dim"), sample_inputs_var_positional),
    _entry("var_mean_unbiased", aten.var_mean, ("aten::var_mean", "aten::var_mean.dim"), sample_inputs_var_positional),
    _entry("std_mean_unbiased", aten.std_mean, ("aten::std_mean", "aten::std_mean.dim"), sample_inputs_var_positional),
    _reduction("logsumexp", torch.logsumexp, aten=("aten::logsumexp",), full=False, tolerances=SUM_TOLERANCES),
    _reduction("any", torch.any, aten=("aten::any", "aten::any.dim", "aten::any.dims", "aten::any.dims_out")),
    _reduction("all", torch.all, aten=("aten::all", "aten::all.dim", "aten::all.dims", "aten::all.dims_out")),
    _reduction("any_all_out", _with_out(aten.any.default, aten.any.all_out), aten=("aten::any", "aten::any.all_out"),
               dims="none"),
    _reduction("all_all_out", _with_out(aten.all.default, aten.all.all_out), aten=("aten::all", "aten::all.all_out"),
               dims="none"),
    # The packet (torch.count_nonzero takes no out=).
    _reduction("count_nonzero", aten.count_nonzero, keepdim=False,
               aten=("aten::count_nonzero", "aten::count_nonzero.dim_IntList", "aten::count_nonzero.out",
                     "aten::count_nonzero.dim_IntList_out")),
    _reduction("median_all", aten.median, aten=("aten::median", "aten::median.out"), dims="none", empty=False,
               extremal=False, dtypes=ALL - {torch.bool}),      # eager's median has no bool kernel
    _reduction("nanmedian_all", aten.nanmedian, aten=("aten::nanmedian", "aten::nanmedian.out"), dims="none",
               empty=False, dtypes=ALL - {torch.bool}),
    _reduction("linalg.vector_norm", torch.linalg.vector_norm, aten=("aten::linalg_vector_norm",), dtypes=FLOATING,
               tolerances=SUM_TOLERANCES,
               variants=({}, {"ord": 1}, {"ord": 0}, {"ord": 3.5}, {"dtype": torch.float64}),
               errors=(INT_INPUT[:-1] + ("Expected a floating point or complex tensor",),)),
    # The inf and negative norms have no identity: empty reduced dims are errors.
    _reduction("linalg.vector_norm_no_identity", torch.linalg.vector_norm, aten=("aten::linalg_vector_norm",),
               dtypes=FLOATING, empty=False, variants=({"ord": math.inf}, {"ord": -math.inf}, {"ord": -1.5}),
               errors=(((0, 3), torch.float32, {"ord": math.inf}, RuntimeError, "cannot compute the inf norm"),
                       ((0, 3), torch.float32, {"ord": -math.inf}, RuntimeError, "cannot compute the -inf norm"),
                       ((0, 3), torch.float32, {"ord": -1.5, "dim": 0}, RuntimeError, "cannot compute the -1.5 norm"))),
    _reduction("norm", _aten_norm, aten=("aten::norm.ScalarOpt_dim",), dtypes=FLOATING, supports_out=False,
               full=False, tolerances=SUM_TOLERANCES, variants=({"p": 2}, {"p": 1}, {"p": None}, {"p": 3})),
    _entry("norm_scalar", aten.norm, ("aten::norm.Scalar", "aten::norm.ScalarOpt_dtype", "aten::norm.Scalar_out",
                                      "aten::norm.ScalarOpt_dtype_out"), sample_inputs_norm_scalar, supports_out=True),
    # Sums and products over segments, in scatter order: the float16/bfloat16 SUM_TOLERANCES.
    _entry("segment_reduce", torch.segment_reduce, ("aten::segment_reduce",), sample_inputs_segment_reduce,
           xfails=(XFail("gradients", "ties among a segment's max/min (the expanded samples): eager's kernel divides "
                         "only a positive gradient among them, the traced gradient shares every one evenly",
                         raises=AssertionError),)),
    _entry("norm_dim_dtype", aten.norm, ("aten::norm.ScalarOpt_dim_dtype", "aten::norm.dtype_out"),
           sample_inputs_norm_scalar, supports_out=True, dim=True),
]


NAN = float("nan")
F32 = torch.float32
F64 = torch.float64
_aten_entry = functools.partial(aten_entry, family="reductions")
_table_entry = functools.partial(table_entry, family="reductions")


def _renorm_samples(op, device, dtype):
    for p in (2, 1, 3.5, math.inf):
        for dim in (0, 1, -1):
            for name, t in layouts((3, 4, 5), device, dtype):
                # maxnorm between the slices' norms: some are scaled, some kept
                yield SampleInput(t, (p, dim, 4.0), name=f"p={p} dim={dim} {name}")
    yield SampleInput(make((4, 5), device, dtype), (2, 0, 0.0), name="maxnorm 0")
    yield SampleInput(make((0, 5), device, dtype), (2, 1, 1.0), name="empty")


def _renorm_errors(op, device):
    a = make((3, 4), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0, 0, 1.0)), RuntimeError, "non-positive-norm not supported")
    yield ErrorInput(SampleInput(a, (2, 0, -1.0)), RuntimeError, "expected maxnorm to be >= 0")
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (2, 0, 1.0)), RuntimeError,
                     "input needs at least 2 dimensions")
    yield ErrorInput(SampleInput(torch.ones(3, 3, device=device, dtype=torch.int64), (2, 0, 1.0)), RuntimeError,
                     "Expected a floating point or complex tensor")


def _frobenius_samples(op, device, dtype):
    for shape, dim in (((3, 4), [0, 1]), ((3, 4), [1]), ((2, 3, 4), [0, 2]), ((2, 3, 4), [-1]), ((5,), [0]),
                       ((3, 4), []), ((0, 3), [0])):
        for keepdim in (False, True):
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (dim, keepdim), name=f"{shape} dim={dim} keepdim={keepdim} {name}")


def _frobenius_errors(op, device):
    yield ErrorInput(SampleInput(make((2, 2, 2), device, torch.float32), ([0, 1, 2],)), RuntimeError,
                     "Expected at most 2 dimensions")


def _histc_samples(op, device, dtype):
    for shape in ((20,), (4, 5), (), (0,)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (4, -5, 5), name=f"{shape} {name} range [-5, 5]")
            yield SampleInput(t, (), name=f"{shape} {name} data's range")
    t = make((30,), device, dtype)
    yield SampleInput(t, (7, -2.5, 3), name="outside the range")
    yield SampleInput(t, (1, 0, 9), name="one bin")
    yield SampleInput(torch.tensor([1.0, 2.0, 3.0, 3.0, NAN, 5.0], device=device, dtype=dtype), (4, 1, 3),
                      name="edges and nan")
    yield SampleInput(torch.full((5,), 2.0, device=device, dtype=dtype), (3,), name="constant data")
    yield SampleInput(torch.tensor([1.0, 2.0, 3.0], device=device, dtype=dtype), (4, 5, 5), name="min == max != 0")


def _histc_errors(op, device):
    a = make((5,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0,)), RuntimeError, "bins must be > 0")
    yield ErrorInput(SampleInput(a, (4, 2, 1)), RuntimeError, "max must be larger than min")
    yield ErrorInput(SampleInput(a, (4, 0, math.inf)), RuntimeError, "is not finite")
    yield ErrorInput(SampleInput(torch.ones(3, device=device, dtype=torch.int64), (4, 0, 3)), NotImplementedError,
                     "not implemented for")


def _histogram_samples(op, device, dtype):
    """torch.histogram: bin counts over the data's range and a given one, weights, density, edges
    given as a tensor; edge values, nan and inf (outside any range); constant and empty data."""
    for shape in ((20,), (4, 5), (), (0,)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (5,), name=f"{shape} {name} data's range")
            yield SampleInput(t, (4,), {"range": (-1.0, 1.5)}, name=f"{shape} {name} range [-1, 1.5]")
    t = make((4, 5), device, dtype)
    w = make((4, 5), device, dtype, low=0, high=2)
    yield SampleInput(t, (3,), {"weight": w}, name="weights")
    yield SampleInput(t, (3,), {"weight": w, "density": True}, name="weights, density")
    yield SampleInput(t, (6,), {"range": (-2.0, 2.0), "density": True}, name="range, density")
    edges = torch.tensor([-3.0, -0.5, 0.0, 0.25, 4.0], device=device, dtype=dtype)
    yield SampleInput(t, (edges,), name="edges tensor")
    yield SampleInput(t, (edges,), {"weight": w, "density": True}, name="edges tensor, weights, density")
    special = torch.tensor([1.0, 2.0, 3.0, 3.0, NAN, math.inf, -math.inf, 5.0], device=device, dtype=dtype)
    yield SampleInput(special, (4,), {"range": (1.0, 3.0)}, name="on the edges, nan, inf")
    yield SampleInput(special, (edges,), name="nan, inf against an edges tensor")
    yield SampleInput(torch.full((5,), 2.0, device=device, dtype=dtype), (3,), name="constant data")
    yield SampleInput(make((6,), device, dtype), (2,), {"range": (1.0, 1.0)}, name="empty range: widened")


def _histogram_errors(op, device):
    a = make((5,), device, torch.float32)
    yield ErrorInput(SampleInput(a, (0,)), RuntimeError, "bins must be > 0")
    yield ErrorInput(SampleInput(a, (4,), {"range": (2.0, 1.0)}), RuntimeError, "min should not exceed max")
    yield ErrorInput(SampleInput(a, (4,), {"range": (0.0, math.inf)}), RuntimeError, "is not finite")
    yield ErrorInput(SampleInput(a, (torch.tensor([0.0, 1.0], device=device, dtype=torch.float64),)), RuntimeError,
                     "should have the same dtype")
    yield ErrorInput(SampleInput(torch.ones(3, device=device, dtype=torch.int64), (4,)), NotImplementedError,
                     "not implemented for")


def _histogramdd_samples(op, device, dtype):
    """torch.histogramdd: points as the rows of the last dim (2-d and 3-d inputs, non-contiguous),
    bins per dim or one for all, a range, weights, density, edges tensors; no points."""
    for shape in ((10, 2), (2, 5, 3)):
        for name, t in layouts(shape, device, dtype):
            d = shape[-1]
            yield SampleInput(t, ([3] * (d - 1) + [4],), name=f"{shape} {name} bins per dim")
            yield SampleInput(t, (3,), {"range": [-1.0, 1.0] * d}, name=f"{shape} {name} one bin count, range")
    t = make((10, 2), device, dtype)
    w = make((10,), device, dtype, low=0, high=2)
    yield SampleInput(t, ([2, 3],), {"weight": w, "density": True}, name="weights, density")
    edges = [torch.tensor([-3.0, 0.0, 0.5, 4.0], device=device, dtype=dtype),
             torch.tensor([-1.0, 1.0], device=device, dtype=dtype)]
    yield SampleInput(t, (edges,), name="edges tensors")
    yield SampleInput(t, (edges,), {"weight": w, "density": True}, name="edges tensors, weights, density")
    yield SampleInput(make((0, 2), device, dtype), ([2, 2],), name="no points")


def _histogramdd_errors(op, device):
    a = make((5, 2), device, torch.float32)
    yield ErrorInput(SampleInput(a, ([3],)), RuntimeError, "size of bins must be equal to the innermost dimension")
    yield ErrorInput(SampleInput(a, ([3, 0],)), RuntimeError, "bins must be > 0")
    yield ErrorInput(SampleInput(a, (3,), {"range": [0.0, 1.0]}), RuntimeError, "range should have 4 elements")


def _bincount_samples(op, device, dtype):
    high = 6
    for n in (10, 1):
        x = torch.randint(0, high, (n,), device=device, dtype=dtype)
        yield SampleInput(x, name=f"n={n}")
        yield SampleInput(x, (), {"minlength": 9}, name=f"n={n} minlength past max")
        yield SampleInput(x, (), {"minlength": 2}, name=f"n={n} minlength below max")
        for w in (torch.float32, torch.float64, torch.float16, torch.int64):
            yield SampleInput(x, (make((n,), device, w),), name=f"n={n} {w} weights")
    empty = torch.empty(0, device=device, dtype=dtype)
    yield SampleInput(empty, name="empty")
    yield SampleInput(empty, (make((0,), device, torch.float32),), {"minlength": 3}, name="empty, weights")
    yield SampleInput(torch.arange(6, device=device, dtype=dtype)[::2], name="strided")


def _bincount_errors(op, device):
    yield ErrorInput(SampleInput(torch.ones(2, 2, device=device, dtype=torch.int64)), RuntimeError,
                     "only supports 1-d non-negative integral inputs")
    yield ErrorInput(SampleInput(torch.ones(2, device=device, dtype=torch.int64), (), {"minlength": -1}),
                     RuntimeError, "minlength should be >= 0")
    yield ErrorInput(SampleInput(torch.ones(2, device=device, dtype=torch.int64), (torch.ones(3, device=device),)),
                     RuntimeError, "weights should be 1-d and have the same length as input")
    yield ErrorInput(SampleInput(torch.ones(2, device=device)), NotImplementedError, "not implemented for")


ENTRIES += [
    OpInfo(name="nanmean_dtype", op=torch.nanmean, aten=("aten::nanmean", "aten::nanmean.out"),
           sample_inputs=sample_inputs_reduction, dtypes=FLOATING, supports_out=True, tolerances=SUM_TOLERANCES,
           family="reductions", sample_kwargs={"variants": ({}, {"dtype": torch.float64})}),
    _aten_entry("renorm", torch.renorm, ("aten::renorm", "aten::renorm.out", "aten::renorm_"), _renorm_samples,
                _renorm_errors, dtypes=FLOATING | COMPLEX, inplace=torch.Tensor.renorm_, supports_out=True,
                tolerances=SUM_TOLERANCES),
    # The packet: torch.frobenius_norm is gone; the aten op stays for TorchScript.
    _aten_entry("frobenius_norm", aten.frobenius_norm, ("aten::frobenius_norm.dim", "aten::frobenius_norm.out"),
                _frobenius_samples, _frobenius_errors, dtypes=FLOATING | COMPLEX, supports_out=True,
                tolerances=SUM_TOLERANCES),
    _aten_entry("histc", torch.histc, ("aten::histc", "aten::histc.out"), _histc_samples, _histc_errors,
                dtypes=FLOATING, supports_out=True, supports_autograd=False),   # eager: derivative not implemented
    # No gradients: eager's histogram and histogramdd have no derivative.
    _aten_entry("histogram", torch.histogram, ("aten::histogram.bin_ct", "aten::histogram.bins_tensor"), _histogram_samples,
                _histogram_errors, dtypes=FLOAT32_64, supports_autograd=False),
    out_entry(aten.histogram.bin_ct_out, aten.histogram.bin_ct,
              lambda op, device, dtype: (s for s in _histogram_samples(op, device, dtype) if not
                                         isinstance(s.args[0], torch.Tensor)), dtypes=FLOAT32_64,
              family="reductions"),
    out_entry(aten.histogram.bins_tensor_out, aten.histogram.bins_tensor,
              lambda op, device, dtype: (s for s in _histogram_samples(op, device, dtype) if
                                         isinstance(s.args[0], torch.Tensor)), dtypes=FLOAT32_64,
              family="reductions"),
    _aten_entry("histogramdd", torch.histogramdd,
                ("aten::histogramdd", "aten::histogramdd.int_bins", "aten::histogramdd.TensorList_bins",
                 "aten::_histogramdd_bin_edges", "aten::_histogramdd_from_bin_cts", "aten::_histogramdd_from_bin_tensors"),
                _histogramdd_samples, _histogramdd_errors, dtypes=FLOAT32_64, supports_autograd=False),
    # The packet: torch.bincount takes no out=.
    _aten_entry("bincount", positional_out(aten.bincount.out), ("aten::bincount", "aten::bincount.out"),
               _bincount_samples, _bincount_errors, dtypes={torch.int64, torch.int32, torch.uint8}, supports_out=True,
               supports_autograd=False),
]


def _integration_samples(op, device, dtype):
    for shape, dim in (((5,), -1), ((3, 4), -1), ((3, 4), 0), ((2, 3, 4), 1), ((3, 1), 1), ((3, 0), 1)):
        y = make(shape, device, dtype)
        yield SampleInput(y, kwargs={"dim": dim}, name=f"{shape} dim={dim}")
        yield SampleInput(y, kwargs={"dx": 0.5, "dim": dim}, name=f"{shape} dim={dim} dx=0.5")
        yield SampleInput(y, (make((shape[dim],), device, dtype),), {"dim": dim}, name=f"{shape} dim={dim} 1-d x")
    y = make((3, 4), device, dtype)
    yield SampleInput(y, (make((3, 4), device, dtype),), name="x shaped like y")
    yield SampleInput(y, (make((4,), device, torch.float64),), name="float64 x")
    yield SampleInput(make((2, 3, 4), device, dtype), (make((3, 4), device, dtype),), name="x of lower rank")
    yield SampleInput(make((4, 3), device, dtype).T, kwargs={"dx": 2}, name="transposed, int dx")


def _integration_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((3,), device, torch.bool)), RuntimeError, "bool")
    yield ErrorInput(SampleInput(make_f32((3, 4), device), (make_f32((3,), device),)), RuntimeError,
                     "There must be one `x` value for each sample point")


def _trapz_samples(op, device, dtype):
    # torch.trapz takes dx only as a keyword and x only positionally
    yield from (s for s in _integration_samples(op, device, dtype) if not s.kwargs.get("dx") or not s.args)


def _cov_samples(op, device, dtype):
    for shape in ((3, 5), (5,), (1, 4), (3, 1), (2, 0)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    x = make((3, 5), device, dtype)
    yield SampleInput(make((5, 3), device, dtype).T, name="transposed")
    yield SampleInput(x, kwargs={"correction": 0}, name="correction=0")
    yield SampleInput(x, kwargs={"correction": 5}, name="correction = observations: divides by 0")
    freq = torch.tensor([1, 2, 0, 3, 1], device=device)
    weights = torch.rand(5, device=device, dtype=F64) + 0.5
    yield SampleInput(x, kwargs={"fweights": freq}, name="fweights")
    yield SampleInput(x, kwargs={"aweights": weights.to(F32)}, name="aweights")
    yield SampleInput(x, kwargs={"fweights": freq, "aweights": weights, "correction": 2}, name="both weights")


def _corrcoef_samples(op, device, dtype):
    for shape in ((3, 5), (5,), (1, 4), (2, 0)):
        yield SampleInput(make(shape, device, dtype), name=f"{shape}")
    yield SampleInput(make((5, 3), device, dtype).T, name="transposed")
    yield SampleInput(torch.ones(2, 4, device=device, dtype=dtype), name="constant rows: 0 / 0")


def _cov_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((2, 3, 4), device)), RuntimeError, "two or fewer dimensions")
    yield ErrorInput(SampleInput(make_f32((3, 4), device, torch.bool)), RuntimeError, "bool dtype is not supported")
    yield ErrorInput(SampleInput(make_f32((3, 4), device), kwargs={"fweights": make_f32((4,), device)}), RuntimeError,
                     "expected fweights to have integral dtype")
    yield ErrorInput(SampleInput(make_f32((3, 4), device), kwargs={"aweights": make_f32((3,), device)}), RuntimeError,
                     "same numel as there are observations")


# float16/bfloat16: eager's CPU mm rounds the products of the centered rows in the input dtype;
# primkit's matmul accumulates in float32 (one rounding): measured up to 2 units in the last place.
COV_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}


ENTRIES += [
    _aten_entry("trapezoid", torch.trapezoid, ("aten::trapezoid.x", "aten::trapezoid.dx"), _integration_samples,
                dtypes=NUMERIC, errors=_integration_errors),
    _aten_entry("trapz", torch.trapz, ("aten::trapz.x", "aten::trapz.dx"), _trapz_samples, dtypes=NUMERIC,
                errors=_integration_errors),
    _aten_entry("cumulative_trapezoid", torch.cumulative_trapezoid,
                ("aten::cumulative_trapezoid.x", "aten::cumulative_trapezoid.dx"), _integration_samples, dtypes=NUMERIC,
                errors=lambda op, device: [ErrorInput(SampleInput(make_f32((3, 4), device), (make_f32((3,), device),)), RuntimeError,
                                                      "There must be one `x` value for each sample point")]),
    _aten_entry("cov", torch.cov, ("aten::cov",), _cov_samples, dtypes=NUMERIC, errors=_cov_errors,
                tolerances=COV_TOLERANCES),
    _aten_entry("corrcoef", torch.corrcoef, ("aten::corrcoef",), _corrcoef_samples, dtypes=NUMERIC,
                errors=lambda op, device: [ErrorInput(SampleInput(make_f32((2, 3, 4), device)), RuntimeError,
                                                      "two or fewer dimensions")],
                tolerances=COV_TOLERANCES),
]


def _diff_samples(op, device, dtype):
    yield from cases(((7,), ()), ((4, 5), (1, 0)), ((4, 5), (2, -1)), ((2, 3, 4), (3, 1)), ((4, 5), (0,)),
                     ((0, 3), (1, 0)), ((4, 5), (7, -1)))(op, device, dtype)
    x = make((4, 5), device, dtype)
    yield SampleInput(x, (1, 1, make((4, 2), device, dtype), make((4, 1), device, dtype)), name="prepend, append")


ENTRIES += [
    _table_entry("diff", _diff_samples, out=True, xfails=[XFail(
                 "out", "eager's diff.out raises IndexError (narrow: start out of range) for the empty (0, 3) input "
                 "along dim 0, where the functional diff returns an empty tensor; the sample is kept for the latter",
                 raises=IndexError)],
                 errs=errors(((), (), RuntimeError, "diff expects input to be at least one-dimensional"),
                             ((3,), (-1,), RuntimeError, "order must be non-negative"))),
    _table_entry("sum_to_size", cases(((2, 3, 4), ([3, 1],)), ((2, 3, 4), ([1, 3, 4],)), ((4, 5), ([4, 5],)),
                                      ((4, 5), ([1],)), ((), ([],)), ((0, 3), ([1, 3],))),
                 dtypes=ALL - {torch.bool}, tolerances={
                     # a sum of a handful of terms in float16/bfloat16, accumulated in a different order
                     torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}),
]
