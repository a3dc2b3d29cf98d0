"""OpInfo entries: reductions. One shared generator; knobs say which dim forms an op takes."""
from __future__ import annotations

import math

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import ALL, FLOATING, NUMERIC
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


def _tuple_out(fn):
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
    and without initial."""
    cases = (((6, 3), 0, [2, 0, 4]), ((2, 5, 4), 1, [[1, 4, 0], [3, 0, 2]]),
             ((2, 3, 5), 2, [[[2, 3]] * 3, [[0, 5]] * 3]), ((4,), 0, [1, 1, 2]))
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
    _reduction("max_dim_out", _tuple_out(torch.max), aten=("aten::max.dim", "aten::max.dim_max"), dims="int",
               full=False, empty=False, supports_out=False),
    _reduction("min_dim_out", _tuple_out(torch.min), aten=("aten::min.dim", "aten::min.dim_min"), dims="int",
               full=False, empty=False, supports_out=False),
    _reduction("aminmax_out", _tuple_out(torch.aminmax), aten=("aten::aminmax", "aten::aminmax.out"), dims="int",
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
