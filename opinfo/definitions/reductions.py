"""OpInfo entries: reductions. One shared generator; knobs say which dim forms an op takes."""
from __future__ import annotations

import math

import torch

from opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from opinfo.dtypes import ALL, FLOATING, NUMERIC
from opinfo.samples import FLOATING as FLOAT_DTYPES, layouts, make

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


VAR_VARIANTS = ({}, {"correction": 0}, {"correction": 2.5}, {"unbiased": False})

ENTRIES = [
    _reduction("sum", torch.sum, aten=("aten::sum.dim_IntList", "aten::sum.IntList_out"), tolerances=SUM_TOLERANCES,
               full="dim=None", variants=({}, {"dtype": torch.float64}, {"dtype": torch.int64})),
    _reduction("sum_all", torch.sum, aten=("aten::sum",), dims="none", supports_out=False, tolerances=SUM_TOLERANCES),
    _reduction("nansum", torch.nansum, aten=("aten::nansum",), dtypes=NUMERIC, tolerances=SUM_TOLERANCES),
    # nanmean is CompositeImplicit: it reaches the trace as nansum / (count of non-nan).
    _reduction("nanmean", torch.nanmean, aten=("aten::nansum",), dtypes=FLOATING, tolerances=SUM_TOLERANCES,
               supports_out=False),
    _reduction("prod", torch.prod, aten=("aten::prod.dim_int", "aten::prod.int_out"), dims="int", domain=(-2, 2),
               full=False, tolerances=SUM_TOLERANCES),
    _reduction("prod_all", torch.prod, aten=("aten::prod",), dims="none", domain=(-2, 2), supports_out=False,
               tolerances=SUM_TOLERANCES, variants=({}, {"dtype": torch.float64})),
    _reduction("mean", torch.mean, aten=("aten::mean", "aten::mean.dim"), dtypes=FLOATING, tolerances=SUM_TOLERANCES,
               errors=(INT_INPUT[:-1] + ("could not infer output dtype",),)),
    _reduction("amax", torch.amax, aten=("aten::amax",), empty=False, errors=_extremum_errors("amax")),
    _reduction("amin", torch.amin, aten=("aten::amin",), empty=False, errors=_extremum_errors("amin")),
    _reduction("max", torch.max, aten=("aten::max", "aten::max.dim"), dims="int", empty=False,
               errors=_extremum_errors("max")),
    _reduction("min", torch.min, aten=("aten::min", "aten::min.dim"), dims="int", empty=False,
               errors=_extremum_errors("min")),
    _reduction("argmax", torch.argmax, aten=("aten::argmax",), dtypes=NUMERIC, dims="int", empty=False,
               errors=_extremum_errors("argmax")),
    _reduction("argmin", torch.argmin, aten=("aten::argmin",), dtypes=NUMERIC, dims="int", empty=False,
               errors=_extremum_errors("argmin")),
    _reduction("aminmax", torch.aminmax, aten=("aten::aminmax",), dims="int", empty=False, supports_out=False,
               errors=(((0, 3), torch.float32, {}, RuntimeError, "cannot compute aminmax over an empty dimension"),
                       ((0, 3), torch.float32, {"dim": 0}, IndexError, "to have non-zero size"))),
    _reduction("var", torch.var, aten=("aten::var.correction",), dtypes=FLOATING, variants=VAR_VARIANTS,
               full="dim=None", tolerances=SUM_TOLERANCES, errors=(INT_INPUT[:-1] + ("only support floating point",),)),
    _reduction("std", torch.std, aten=("aten::std.correction",), dtypes=FLOATING, variants=VAR_VARIANTS,
               full="dim=None", tolerances=SUM_TOLERANCES),
    _reduction("var_mean", torch.var_mean, aten=("aten::var_mean.correction",), dtypes=FLOATING,
               variants=({}, {"correction": 0}), supports_out=False, tolerances=SUM_TOLERANCES, extremal=False),
    _reduction("std_mean", torch.std_mean, aten=("aten::std_mean.correction",), dtypes=FLOATING,
               variants=({}, {"unbiased": False}), supports_out=False, tolerances=SUM_TOLERANCES, extremal=False),
    OpInfo(name="var_mean_nonfinite", op=torch.var_mean, aten=("aten::var_mean.correction",),
           sample_inputs=extremal_reduction, dtypes=FLOATING, family="reductions",
           xfails=(XFail("values", "eager's Welford kernel gives a nan mean for a row holding inf (inf - inf in its "
                                   "running update); the decomposition's mean is mean()'s, inf"),)),
    _reduction("logsumexp", torch.logsumexp, aten=("aten::logsumexp",), full=False, tolerances=SUM_TOLERANCES),
    _reduction("any", torch.any, aten=("aten::any", "aten::any.dim", "aten::any.dims")),
    _reduction("all", torch.all, aten=("aten::all", "aten::all.dim", "aten::all.dims")),
    _reduction("count_nonzero", torch.count_nonzero, aten=("aten::count_nonzero", "aten::count_nonzero.dim_IntList"),
               keepdim=False, supports_out=False),
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
]
