"""OpInfo entries for every prim, built from the catalog, and the prims' fuzz strategies.

One module per family holds its prims' samples, constraint error inputs and hypothesis strategies:
``opinfo/prims/<family>.py`` (the elementwise families share ``elementwise.py``). A module gives
``SPECIFIC[name] = (samples, errors)`` for its prims, ``BY_META[rule]`` for every prim of a meta
rule (so a new prim in an existing family gets samples and error inputs without a line here), and
``STRATEGIES[rule]`` for tests/test_fuzz_meta.py. Prims are tested directly: the meta rule's output
geometry equals the reference implementation's on every sample, and every constraint id has an
error input that raises citing it.
"""
from __future__ import annotations

import torch

from primkit import prims
from primkit.opinfo.core import OpInfo, XFail
from primkit.opinfo.dtypes import ALL, COMPLEX
from primkit.opinfo.prims import (bitcast, collective, complex as complex_, conversion, creation, data_dependent, elementwise, fft,
                                  indexing, linalg, linalg_decomp, memory, random as random_, reductions, scan, shape,
                                  sort, windowed)

TEST_DTYPES = ALL | COMPLEX
MODULES = {m.__name__.rsplit(".", 1)[1]: m for m in (
    bitcast, collective, complex_, conversion, creation, data_dependent, elementwise, fft, indexing, linalg, linalg_decomp, memory,
    random_, reductions, scan, shape, sort, windowed)}


def module_of(family: str):
    """The sample module of a catalog family: its namesake (elementwise.py for the elementwise families)."""
    return MODULES["elementwise" if family.startswith("elementwise_") else family]


def _merged(attribute: str) -> dict:
    """``attribute`` (SPECIFIC, BY_META or STRATEGIES) of every family module, merged; a key twice is an error."""
    merged, where = {}, {}
    for name, module in MODULES.items():
        for key, value in getattr(module, attribute, {}).items():
            if key in merged:
                raise ValueError(f"opinfo.prims: {attribute}[{key!r}] is given in {where[key]}.py and {name}.py")
            merged[key], where[key] = value, name
    return merged


def specific_samples() -> dict:
    """SPECIFIC of every family module, merged; each prim's samples live in its own family's module."""
    families = {p.name: p.family for p in prims.catalog()}
    for name, module in MODULES.items():
        for prim in getattr(module, "SPECIFIC", {}):
            if module_of(families[prim]) is not module:
                raise ValueError(f"opinfo.prims: samples of {prim} (family {families[prim]}) are in {name}.py, "
                                 f"expected {module_of(families[prim]).__name__.rsplit('.', 1)[1]}.py")
    return _merged("SPECIFIC")


def fuzz_strategies() -> dict:
    """meta rule -> hypothesis strategy of a call (``strategy(prim)``), over every family module."""
    return _merged("STRATEGIES")


def _no_samples(op, device, dtype):
    return iter(())


def prim_entries() -> list[OpInfo]:
    specific, by_meta = specific_samples(), _merged("BY_META")
    entries = []
    for prim in prims.catalog():
        samples, errors = specific.get(prim.name) or by_meta.get(prim.meta) or (None, None)
        xfails = ()
        if samples is None:
            samples = _no_samples
            xfails = (XFail("meta", f"no sample generator for meta rule '{prim.meta}' yet: add one to "
                                    f"opinfo/prims/{module_of(prim.family).__name__.rsplit('.', 1)[1]}.py", raises=AssertionError),)
        e = OpInfo(name=f"primkit.{prim.name}", op=getattr(torch.ops.primkit, prim.name), aten=(),
                   sample_inputs=samples, error_inputs=errors, xfails=xfails,
                   dtypes=frozenset(prim.dtypes & TEST_DTYPES) or frozenset({torch.float32}),
                   is_prim=True, family=prim.family, seeded="stateful" in prim.tags)
        e.prim = prim
        entries.append(e)
    return entries
