"""Samples and constraint error inputs of the elementwise families (unary, binary, ternary): the
generic generator of the elementwise meta rules (every operand in every layout case; one error input
per constraint the rule checks), the edge values where prims are easiest to get wrong (signed zeros,
inf, nan, subnormals, integer extremes), and the prims whose scalar arguments the generic generator
cannot make (nan_to_num, polygamma, mvlgamma)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.common import ODD_DTYPE
from primkit.opinfo.prims.strategies import composite, dtype_of, DTYPES, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError

# Prims whose integer forms fail on a zero divisor (eager raises): samples avoid zero.
NONZERO = {"div", "trunc_divide", "floor_divide", "remainder", "fmod"}


def _low(prim):
    return 0.5 if prim.name in {"log", "log2", "log10", "sqrt", "rsqrt", "acosh", "lgamma", "digamma",
                                 "igamma", "igammac", "zeta"} else None


def _operands(prim):
    """(name, dtype-or-None) of the tensor operands; None means "the sample's dtype"."""
    fixed = prim.params.get("arg_dtypes", {})
    return [(n, torch.bool if n in fixed else None) for n in prim.arg_names if n != "dtype"]


def _elementwise_call(prim, shape, device, dtype, layout="contiguous", override=None):
    """One call's arguments: every operand in the same layout case; a `dtype` arg is a target dtype."""
    args = []
    for i, (name, fixed) in enumerate(_operands(prim)):
        d = (override or {}).get(i, fixed or dtype)
        kw = {"low": _low(prim)} if d != torch.bool else {}
        if prim.name in NONZERO and d != torch.bool:
            kw["exclude_zero"] = True
        args.append(dict(layouts(shape, device, d, **kw))[layout])
    if "dtype" in prim.arg_names:
        args.append(torch.float64 if dtype != torch.float64 else torch.int64)
    return args


def samples_elementwise(op, device, dtype):
    for shape in ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for layout in dict(layouts(shape, "meta", dtype)):
            args = _elementwise_call(op.prim, shape, device, dtype, layout)
            yield SampleInput(args[0], tuple(args[1:]), name=f"{layout} {shape}")


def errors_elementwise(op, device):
    """One error input per constraint the prim's rule checks (see CHECK_IDS)."""
    from primkit.prims.meta.elementwise import CHECK_IDS
    prim, ids = op.prim, CHECK_IDS[op.prim.meta]
    dtype = sorted(prim.dtypes, key=str)[0]
    other = next(d for d in (torch.float32, torch.float64, torch.int64, torch.bool) if d != dtype)
    typed = [i for i, (_, fixed) in enumerate(_operands(prim)) if fixed is None]
    err = lambda args, cid, what: ErrorInput(  # noqa: E731
        SampleInput(args[0], tuple(args[1:]), name=f"{cid}: {what}"), PrimConstraintError, f"{prim.name}: {cid}:")
    if "shape" in ids:
        args = _elementwise_call(prim, (2, 3), device, dtype)
        args[1] = make((3,), device, args[1].dtype)
        yield err(args, ids["shape"], "shapes differ")
    if "same_dtype" in ids and len(typed) > 1:
        yield err(_elementwise_call(prim, (2, 3), device, dtype, override={typed[1]: other}), ids["same_dtype"],
                  "dtypes differ")
    bad = next((d for d in (torch.bool, torch.int64, torch.float32, torch.complex64) if d not in prim.dtypes), None)
    args = _elementwise_call(prim, (2, 3), device, bad) if bad is not None else \
        [torch.zeros((2, 3), dtype=ODD_DTYPE, device=device) if isinstance(a, torch.Tensor) and i in typed else a
         for i, a in enumerate(_elementwise_call(prim, (2, 3), device, dtype))]
    yield err(args, ids["dtype"], f"unsupported dtype {bad or ODD_DTYPE}")
    if "device" in ids:
        other_device = "meta" if not torch.cuda.is_available() else ("cpu" if "cuda" in str(device) else "cuda")
        args = _elementwise_call(prim, (2, 3), device, dtype)
        args[1] = args[1].to(other_device)
        yield err(args, ids["device"], f"operand on {other_device}")


SHAPES = ((), (0,), (5,), (3, 1, 4), (4, 5), (2, 3, 4, 5))


def edge_values(device, dtype):
    """One 1-d tensor of the values where elementwise prims are easiest to get wrong."""
    if dtype.is_floating_point:
        info = torch.finfo(dtype)
        values = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 2.5, 8.0, -27.0, 1e-3, info.tiny, -info.tiny, info.tiny / 4,
                  -info.tiny / 4, info.max, -info.max, info.max / 3, float("inf"), float("-inf"), float("nan")]
    elif dtype.is_complex:
        values = [0j, 1 + 1j, complex("nan+1j"), complex("inf-infj"), complex(1, float("nan")), -2.5 + 0.5j]
    elif dtype == torch.bool:
        values = [False, True]
    else:
        info = torch.iinfo(dtype)
        values = [v for v in (0, 1, -1, 2, 3, 7, 8, 127, 128, 255, 256, -128, -129, 2 ** 31 - 1, -2 ** 31, 2 ** 32,
                              info.min, info.max, info.min + 1, info.max - 1) if info.min <= v <= info.max]
    return torch.tensor(values, device=device, dtype=dtype)


def samples_with_edges(op, device, dtype):
    """The family's samples, then every operand drawn from the edge values (shifted per operand,
    so a ternary prim meets nan and inf in each position)."""
    yield from samples_elementwise(op, device, dtype)
    edges = edge_values(device, dtype)
    operands = [edges.roll(i) for i in range(len(op.prim.arg_names))]
    yield SampleInput(operands[0], tuple(operands[1:]), name="edge values")
    if len(operands) > 1:    # every pairing of edge values: nan/inf against each bound or weight
        grid = torch.meshgrid(*[edges] * len(operands), indexing="ij")
        yield SampleInput(grid[0], tuple(grid[1:]), name="edge value grid")


def samples_nan_to_num(op, device, dtype):
    for shape in SHAPES:
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.0, 1.0, -1.0), name=f"{name} {shape}")
    edges = edge_values(device, dtype)
    real = dtype if not dtype.is_complex else dtype.to_real()
    big = torch.finfo(real).max
    for values in ((0.0, 1.0, -1.0), (-0.0, big, -big), (7.5, 1e300, -1e300), (float("nan"), float("inf"), 0.0)):
        yield SampleInput(edges, values, name=f"edge values, replacements {values}")


def errors_nan_to_num(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.int64), (0.0, 1.0, -1.0), name="C1: int64 operand"),
                     PrimConstraintError, "nan_to_num: C1:")


EDGES = ("cbrt", "square", "population_count", "count_leading_zeros", "frac", "isposinf", "isneginf", "ndtr",
         "frexp", "clamp", "lerp")
SPECIFIC = {
    **{name: (samples_with_edges, errors_elementwise) for name in EDGES},
    "nan_to_num": (samples_nan_to_num, errors_nan_to_num),
}


def samples_polygamma(op, device, dtype):
    for shape in SHAPES:
        for name, t in layouts(shape, device, dtype, low=0.5):
            for n in (0, 1, 3):
                yield SampleInput(t, (n,), name=f"{name} {shape} n={n}")


def errors_polygamma(op, device):
    def err(cid, name, t, n):
        return ErrorInput(SampleInput(t, (n,), name=f"{cid}: {name}"), PrimConstraintError, f"polygamma: {cid}:")
    yield err("C1", "int64 operand", make((2, 3), device, torch.int64), 1)
    yield err("C2", "negative order", make((2, 3), device, torch.float32), -1)


def samples_mvlgamma(op, device, dtype):
    for shape in SHAPES:
        for p in (1, 2, 5):
            # Inside the domain a > (p - 1) / 2, as eager requires.
            for name, t in layouts(shape, device, dtype, low=(p - 1) / 2 + 0.25, high=(p - 1) / 2 + 9):
                yield SampleInput(t, (p,), name=f"{name} {shape} p={p}")
    edges = torch.tensor([0.5, 1.0, 1.5, 2.0, 100.0, float("inf"), float("nan"), 0.75, -1.0], device=device,
                         dtype=dtype)
    for p in (1, 2, 3):
        yield SampleInput(edges, (p,), name=f"edge values (outside the domain: nan) p={p}")


def errors_mvlgamma(op, device):
    def err(cid, name, t, p):
        return ErrorInput(SampleInput(t, (p,), name=f"{cid}: {name}"), PrimConstraintError, f"mvlgamma: {cid}:")
    yield err("C1", "int64 operand", make((2, 3), device, torch.int64), 1)
    yield err("C2", "order 0", make((2, 3), device, torch.float32, low=2), 0)


SPECIFIC.update({"polygamma": (samples_polygamma, errors_polygamma), "mvlgamma": (samples_mvlgamma, errors_mvlgamma)})

BY_META = {"elementwise": (samples_elementwise, errors_elementwise),
           "elementwise_unary": (samples_elementwise, errors_elementwise)}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

@composite
def elementwise_call(draw, prim):
    shape = draw(shapes())
    dtype = dtype_of(draw, prim)
    fixed = prim.params.get("arg_dtypes", {})
    args = []
    for a in prim.op._schema.arguments:
        if isinstance(a.type, torch.TensorType):
            arg_dtype = torch.bool if a.name in fixed else dtype
            args.append(draw(strided(shape, arg_dtype)))
        elif a.name == "dtype":
            args.append(draw(st.sampled_from(DTYPES)))
        elif a.name in ("n", "p"):      # polygamma's n, mvlgamma's p (its operand > (p - 1) / 2: low=0.5 with p=1)
            least = prim.params.get("min_order", 0)
            args.append(maybe(draw, draw(st.integers(least, least + (2 if a.name == "n" else 0))), least - 1))
        elif a.name in ("nan", "posinf", "neginf"):
            args.append(draw(st.sampled_from([0.0, 1.0, -2.5])))
        elif a.name == "exponent_bits":
            args.append(maybe(draw, draw(st.integers(1, 8)), 0))
        elif a.name == "mantissa_bits":
            args.append(maybe(draw, draw(st.integers(0, 23)), -1))
        else:
            raise AssertionError(f"{prim.name}: no strategy for argument {a.name}")
    return SampleInput(args[0], tuple(args[1:]))


STRATEGIES = {"elementwise": elementwise_call, "elementwise_unary": elementwise_call,
              "elementwise_unary_order": elementwise_call}
