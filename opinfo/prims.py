"""OpInfo entries for every prim, built from the catalog.

A prim's samples come from its family's generator (keyed by meta rule), so a new prim in an
existing family gets samples and constraint error inputs without a line here. Prims are
tested directly: the meta rule's output geometry equals the reference implementation's on
every sample, and every constraint id has an error input that raises citing it.
"""
from __future__ import annotations

import torch

from primkit import prims
from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.dtypes import ALL, COMPLEX
from primkit.opinfo.samples import layouts, make
from primkit.prims.errors import PrimConstraintError, PrimIndexError

TEST_DTYPES = ALL | COMPLEX


# Prims whose integer forms fail on a zero divisor (eager raises): samples avoid zero.
NONZERO = {"div", "trunc_divide", "floor_divide", "remainder", "fmod"}


def _low(prim):
    return 0.5 if prim.name in {"log", "log2", "log10", "sqrt", "rsqrt", "acosh", "lgamma", "digamma",
                                 "igamma", "igammac", "zeta"} else None


# --- elementwise ---------------------------------------------------------------------------

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


ODD_DTYPE = torch.uint16   # in no catalog dtype class: a dtype check fails for it even under [all]


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


# --- reductions ------------------------------------------------------------------------------

def samples_reduction(op, device, dtype):
    extra = (1.0,) if "correction" in op.prim.arg_names else ()
    for name, t in layouts((3, 4, 5), device, dtype):
        for dims in ([0], [1], [0, 2], [], [-1], [0, 1, 2]):
            yield SampleInput(t, (dims, *extra), name=f"{name} dims={dims}")
    yield SampleInput(make((), device, dtype), ([], *extra), name="0-d")
    yield SampleInput(make((0, 3), device, dtype), ([1], *extra), name="empty, non-empty dim reduced")
    if not op.prim.params.get("needs_elements"):
        yield SampleInput(make((0, 3), device, dtype), ([0], *extra), name="empty dim reduced")


def errors_reduction(op, device):
    extra = (1.0,) if "correction" in op.prim.arg_names else ()
    t = make((2, 3), device, sorted(op.prim.dtypes, key=str)[0])
    yield ErrorInput(SampleInput(t, ([2], *extra), name="C1: dim out of range"), PrimIndexError, f"{op.prim.name}: C1:")
    if op.prim.params.get("needs_elements"):
        empty = make((0, 3), device, torch.float32)
        yield ErrorInput(SampleInput(empty, ([0], *extra), name="C3: empty reduced dim"), PrimIndexError,
                         f"{op.prim.name}: C3:")
    bad = next((d for d in (torch.bool, torch.complex64, torch.int64) if d not in op.prim.dtypes), None)
    if bad is not None:
        yield ErrorInput(SampleInput(make((2, 3), device, bad), ([0], *extra), name="C2: unsupported dtype"),
                         PrimConstraintError, f"{op.prim.name}: C2:")


def samples_arg_reduction(op, device, dtype):
    for name, t in layouts((3, 4, 5), device, dtype):
        for dim in (0, 1, -1):
            yield SampleInput(t, (dim,), name=f"{name} dim={dim}")
    yield SampleInput(make((), device, dtype), (0,), name="0-d")


def errors_arg_reduction(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (2,), name="C1"), PrimIndexError,
                     f"{op.prim.name}: C1:")
    yield ErrorInput(SampleInput(make((2, 3), device, torch.bool), (0,), name="C2"), PrimConstraintError,
                     f"{op.prim.name}: C2:")
    yield ErrorInput(SampleInput(make((0, 3), device, torch.float32), (0,), name="C3"), PrimIndexError,
                     f"{op.prim.name}: C3:")


FAMILY_SAMPLES = {
    "elementwise": (samples_elementwise, errors_elementwise),
    "elementwise_unary": (samples_elementwise, errors_elementwise),
    "reduction": (samples_reduction, errors_reduction),
    "arg_reduction": (samples_arg_reduction, errors_arg_reduction),
}


def _no_samples(op, device, dtype):
    return iter(())


def specific_samples() -> dict:
    """SPECIFIC of every opinfo/prim_samples*.py module (one per group of prims), merged."""
    import importlib
    import pkgutil

    from primkit import opinfo as package
    merged = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("prim_samples"):
            for name, gens in importlib.import_module(f"{package.__name__}.{info.name}").SPECIFIC.items():
                if name in merged:
                    raise ValueError(f"opinfo: prim '{name}' has samples in two prim_samples modules")
                merged[name] = gens
    return merged


def prim_entries() -> list[OpInfo]:
    SPECIFIC = specific_samples()
    entries = []
    for prim in prims.catalog():
        samples, errors = SPECIFIC.get(prim.name) or FAMILY_SAMPLES.get(prim.meta) or (None, None)
        xfails = ()
        if samples is None:
            samples = _no_samples
            xfails = (XFail("meta", f"no sample generator for meta rule '{prim.meta}' yet: add one to "
                                    f"opinfo/prim_samples.py", raises=AssertionError),)
        e = OpInfo(name=f"primkit.{prim.name}", op=getattr(torch.ops.primkit, prim.name), aten=(),
                   sample_inputs=samples, error_inputs=errors, xfails=xfails,
                   dtypes=frozenset(prim.dtypes & TEST_DTYPES) or frozenset({torch.float32}),
                   is_prim=True, family=prim.family, seeded="stateful" in prim.tags)
        e.prim = prim
        entries.append(e)
    return entries
