"""The catalog as Markdown: per prim its signature, family, dtypes, constraints, doc, and one
example that runs (the YAML ``example`` when given, else the prim's first small OpInfo sample).

An example is Python code using ``torch`` and ``primkit = torch.ops.primkit``; its last line is
an expression whose printed value the page shows. ``run_example`` runs one; the tests run all.
"""
from __future__ import annotations

import torch

from primkit import prims
from primkit.prims import dtypes as dt

MAX_ELEMENTS = 8


def _literal(x) -> str | None:
    if isinstance(x, torch.Tensor):
        if x.numel() > MAX_ELEMENTS or x.device.type != "cpu" or not x.is_contiguous():
            return None
        values = x.tolist()
        if x.dtype.is_floating_point:
            values = _round(values)
        return f"torch.tensor({values!r}, dtype=torch.{dt.short(x.dtype)})"
    if isinstance(x, torch.dtype):
        return f"torch.{dt.short(x)}"
    if isinstance(x, torch.device):
        return repr(str(x))
    if isinstance(x, (list, tuple)):
        parts = [_literal(v) for v in x]
        if any(p is None for p in parts):
            return None
        body = ", ".join(parts)
        return f"[{body}]" if isinstance(x, list) else f"({body}{',' if len(parts) == 1 else ''})"
    if isinstance(x, (bool, int, float, complex, str)) or x is None:
        return repr(x)
    return None


def _round(v):
    return [_round(x) for x in v] if isinstance(v, list) else round(v, 3)


def auto_example(prim, entry) -> str | None:
    """Code calling the prim on its first OpInfo sample that is small, literal-able and runs."""
    torch.manual_seed(0)
    for dtype in sorted(entry.supported_dtypes("cpu"), key=lambda d: (d != torch.float32, str(d))):
        for s in entry.samples("cpu", dtype):
            args = [s.input, *s.args]
            parts = [_literal(a) for a in args] + [f"{k}={_literal(v)}" if _literal(v) is not None else None
                                                    for k, v in s.kwargs.items()]
            if any(p is None for p in parts):
                continue
            code = f"primkit.{prim.name}({', '.join(parts)})"
            try:
                run_example(code)
            except Exception:
                continue
            return code
    return None


def run_example(code: str):
    scope = {"torch": torch, "primkit": torch.ops.primkit}
    *body, last = code.strip().splitlines()
    exec("\n".join(body), scope)
    return eval(last, scope)


def show(value) -> str:
    if isinstance(value, torch.Tensor) and value.dtype.is_floating_point:
        value = value.to(torch.float64).round(decimals=4).to(value.dtype)
    return repr(value)


def examples() -> dict:
    """prim name -> example code (None where no sample could be shown small)."""
    from primkit import opinfo
    by_prim = {e.prim.name: e for e in opinfo.op_db if e.is_prim}
    return {p.name: (p.example.strip() if p.example else auto_example(p, by_prim[p.name])) for p in prims.catalog()}


def render() -> str:
    ex = examples()
    families: dict = {}
    for p in prims.catalog():
        families.setdefault(p.family, []).append(p)
    lines = ["# The primkit catalog", "",
             f"{len(prims.catalog())} prims in {len(families)} families, generated from `prims/catalog/*.yaml` by "
             "`primkit catalog-docs`. Every prim is `torch.ops.primkit.<name>`; examples below run as tests "
             "(`tests/test_catalog_docs.py`).", ""]
    lines += [f"- [{fam}](#{fam}) ({len(ps)})" for fam, ps in families.items()]
    lines += ["- [lowering and the minimal set](#lowering-and-the-minimal-set)"]
    for fam, ps in families.items():
        lines += ["", f"## {fam}", ""]
        for p in ps:
            dtypes = ", ".join(sorted(dt.short(d) for d in p.dtypes))
            lines += [f"### `{p.name}`", "", f"`{p.name}{p.signature}`", "", p.doc, "",
                      f"- dtypes: {dtypes}", f"- meta rule: `{p.meta}`; reference: `{p.impl}`"
                      + (f", results laid out {p.layout}" if p.layout else "")]
            if p.commutative:
                lines.append("- commutative: its two tensor operands may be swapped")
            if p.domain:
                lines.append("- domain (finite and smooth): " + ", ".join(
                    f"{arg} in ({'-inf' if lo is None else lo}, {'inf' if hi is None else hi})" for arg, (lo, hi) in p.domain.items()))
            if p.tags:
                lines.append(f"- tags: {', '.join(sorted(p.tags))}")
            if p.core:
                lines.append("- in the core set a backend implements (`CORE_PRIMS`)")
            if p.optional:
                lines.append(f"- optional for a backend: {p.optional}")
            for k in p.kinks:
                lines.append(f"- no derivative where {k.at}({', '.join(k.args)}): {k.why}")
            if p.first_order_only:
                lines.append(f"- first order only: its formulas call `{p.first_order_only}`, which has no derivative")
            for c in p.constraints:
                lines.append(f"- **{c.id}**: {c.text}")
            if ex[p.name]:
                lines += ["", "```python", f">>> {ex[p.name]}", show(run_example(ex[p.name])), "```"]
            lines.append("")
    return "\n".join(lines + _lowering_section())


def _lowering_section() -> list:
    from primkit.decompositions.lowering import LOWERINGS, MINIMAL_PRIMS, reaches
    lines = ["## lowering and the minimal set", "",
             "A backend that implements only some prims asks for `get_decompositions(target=SET)`: the prims "
             "below decompose into other prims (`decompositions/lowering/`, one module per prim family), and the table applies them until "
             "only SET is left. A prim with no lowering must be in every SET.", "",
             "| prim | lowers to |", "| --- | --- |"]
    lines += [f"| `{name}` | {', '.join(f'`{p}`' for p in sorted(reaches(name)))} |" for name in sorted(LOWERINGS)]
    lines += ["", f"`MINIMAL_PRIMS` ({len(MINIMAL_PRIMS)} prims, the smallest set every prim reaches): "
              + ", ".join(f"`{p}`" for p in sorted(MINIMAL_PRIMS)) + ".", ""]
    return lines
