"""The op coverage report: one row per ATen overload of the installed torch.

``build_report()`` returns the JSON-able dict that the Markdown (and later HTML) views render:

    {"torch_version": str,
     "summary": {...},
     "ops": [{"name", "status", "prims", "missing", "opinfo", "tests", "tags", "family"}]}

status: ``prims`` (has a decomposition, and tracing its OpInfo samples reached only prims),
``partial`` (has a decomposition whose traces still reach ops without one, listed in
``missing``), ``missing`` (no decomposition). ``prims`` lists the prims its samples' traces
reach (empty when the op has no OpInfo entry to trace). ``tests`` is filled by a test run.
"""
from __future__ import annotations

import collections
import os
import time
import warnings

import torch

import decompositions
import prims
from decompositions.trace import is_allowed_target

TAGS = ("core", "inplace", "out", "view", "nondeterministic", "data-dependent", "backward")


def aten_overload_names() -> list[str]:
    return sorted(n for n in torch._C._dispatch_get_all_op_names() if n.startswith("aten::"))


def resolve(name: str):
    """'aten::add.Tensor' -> the OpOverload, or None when Python cannot reach it."""
    qual, _, overload = name.partition(".")
    packet = getattr(torch.ops.aten, qual.split("::")[1], None)
    if packet is None:
        return None
    try:
        return getattr(packet, overload or "default")
    except AttributeError:
        return None


def op_tags(op) -> list[str]:
    if op is None:
        return []
    schema, tags = op._schema, set(op.tags)
    out = []
    if torch.Tag.core in tags:
        out.append("core")
    if torch.Tag.inplace in tags or (op._opname.endswith("_") and not op._opname.startswith("_")) or \
            (schema.arguments and schema.arguments[0].alias_info is not None and schema.arguments[0].alias_info.is_write
             and not any(a.is_out for a in schema.arguments)):
        out.append("inplace")
    if any(a.is_out for a in schema.arguments):
        out.append("out")
    if any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns):
        out.append("view")
    if torch.Tag.nondeterministic_seeded in tags or torch.Tag.nondeterministic_bitwise in tags:
        out.append("nondeterministic")
    if torch.Tag.data_dependent_output in tags or torch.Tag.dynamic_output_shape in tags:
        out.append("data-dependent")
    if "backward" in op._opname:
        out.append("backward")
    return out


def family_of(fn) -> str:
    module = getattr(fn, "__module__", "") or ""
    return module.rsplit(".", 1)[-1] if module.startswith("decompositions") else "other"


class _Recorder:
    """The table, each entry wrapped so that a call at top level (not nested inside another
    decomposition) records the graph nodes it creates: ``seen[overload]`` grows by the prims among
    them and the non-prim ops they leave. Built once per process; ``seen`` is set per entry."""

    def __init__(self, table):
        self.seen: dict = {}
        self.depth = 0
        self.table = {op: self._wrap(op, fn) for op, fn in table.items()}

    def _wrap(self, op, fn):
        from torch.fx.experimental.proxy_tensor import get_proxy_mode

        def recorded(*args, **kwargs):
            top = self.depth == 0
            graph = get_proxy_mode().tracer.graph if top else None
            before = len(graph.nodes) if top else 0
            self.depth += 1
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
                if top:
                    self._record(op, list(graph.nodes)[before:])
        return recorded

    def _record(self, op, nodes):
        reached, missing = self.seen.setdefault(op.name(), (set(), set()))
        for node in nodes:
            if node.op != "call_function":
                continue
            if prims.is_prim(node.target):
                reached.add(node.target._opname)
            elif not is_allowed_target(node.target):
                t = node.target
                missing.add(t.name() if isinstance(t, torch._ops.OpOverload) else str(t))


MAX_SAMPLES = 4   # traced per entry: enough to see the prims, bounded so a report stays < 60 s


def trace_entry(entry, recorder: _Recorder):
    """What tracing an entry's samples (float32 where supported) shows, per overload exercised
    at top level: {overload: (prims reached, non-prim ops left)}, and the sample count. The
    in-place and out= forms are traced once each, so their overloads are seen too."""
    from opinfo.harness import clone_sample
    dtypes = sorted(entry.supported_dtypes("cpu"), key=lambda d: (d != torch.float32, str(d)))
    recorder.seen = seen = {}
    if not dtypes:
        return seen, 0
    samples = list(entry.samples("cpu", dtypes[0]))
    calls = [(entry.op, s, False) for s in samples[:MAX_SAMPLES]]
    if samples and entry.inplace is not None:
        calls.append((entry.inplace, clone_sample(samples[-1]), False))
    if samples and entry.supports_out:
        calls.append((entry.op, samples[-1], True))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # deprecation notices of the sampled ops are not the report's
        _trace_calls(calls, recorder.table, seen)
    return seen, len(samples)


def _trace_calls(calls, recording, seen):
    """Trace the calls together (one make_fx: a trace's fixed cost paid once), or, if that fails,
    each alone (a call that does not trace is left out; the tests report why)."""
    from opinfo.harness import as_function, joint_call
    prepared = []
    for op, sample, with_out in calls:
        try:
            fn, tensors = as_function(op, sample)
            if with_out:
                out = torch.empty_like(op(sample.input, *sample.args, **sample.kwargs))
                fn = lambda o, *ts, _op=op, _s=sample: as_function(_op, _s, out=o)[0](*ts)  # noqa: E731
                tensors = [out, *tensors]
        except Exception:
            continue   # eager rejects the sample here; the tests report it
        prepared.append((fn, tensors))
    if not prepared:
        return
    try:
        graphs = [_make_fx(*joint_call(prepared), recording)]
    except Exception:
        graphs = []
        for fn, tensors in prepared:
            try:
                graphs.append(_make_fx(fn, tensors, recording))
            except Exception:
                continue
    # A non-prim op the trace left at top level is an op without a decomposition.
    for gm in graphs:
        for node in gm.graph.nodes:
            if node.op == "call_function" and not is_allowed_target(node.target) and \
                    isinstance(node.target, torch._ops.OpOverload):
                seen.setdefault(node.target.name(), (set(), set()))


def _make_fx(fn, tensors, recording):
    from decompositions.composite import composites
    from torch.fx.experimental.proxy_tensor import make_fx
    # the table's entries for CompositeImplicitAutograd ops, as trace runs them
    with torch.no_grad(), composites(recording):
        return make_fx(fn, decomposition_table=recording, tracing_mode="fake")(*tensors)


def analyze_entries(entries, jobs: int = 1) -> tuple[dict, dict, dict]:
    """Trace the entries' samples through the table: ({overload: (prims, missing)},
    {entry name: sample count}, {overload: [entry names seen calling it]}). ``jobs`` > 1 splits
    the entries over that many forked processes (tracing is CPU-bound and single-threaded)."""
    names = [e.name for e in entries]
    if jobs > 1 and len(names) > 1 and hasattr(os, "fork"):
        import multiprocessing
        chunks = [names[i::jobs] for i in range(jobs)]
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_analyze_names, chunks)
    else:
        parts = [_analyze_names(names)]
    reach, counts, seen_by = {}, {}, collections.defaultdict(list)
    for part_reach, part_counts, part_seen in parts:
        _merge_reach(reach, part_reach)
        counts.update(part_counts)
        for name, entry_names in part_seen.items():
            seen_by[name] += entry_names
    order = {n: i for i, n in enumerate(names)}   # entries in database order, however they were split
    return reach, counts, {k: sorted(v, key=order.__getitem__) for k, v in seen_by.items()}


def _merge_reach(into: dict, more: dict) -> None:
    """{overload: (prims, missing)} unions, in place."""
    for name, (reached, missing) in more.items():
        r, m = into.get(name, (set(), set()))
        into[name] = (r | reached, m | missing)


def _analyze_names(entry_names):
    import opinfo
    by_name = {e.name: e for e in opinfo.op_db}
    recorder = _Recorder(decompositions.get_decompositions())
    reach, counts, seen_by = {}, {}, collections.defaultdict(list)
    for entry_name in entry_names:
        seen, counts[entry_name] = trace_entry(by_name[entry_name], recorder)
        _merge_reach(reach, seen)
        for name in seen:
            seen_by[name].append(entry_name)
    return reach, counts, dict(seen_by)


def build_report(*, target=None, analyze=True, test_results=None, jobs: int | None = None) -> dict:
    """The report. ``analyze``: trace every entry's samples (prims reached, partial status);
    ``jobs``: processes for that (default: one per core)."""
    import opinfo
    start = time.time()
    table = decompositions.get_decompositions()
    by_aten = collections.defaultdict(list)
    for entry in opinfo.op_db:
        for name in entry.aten:
            by_aten[name].append(entry.name)
    reach, entry_samples = {}, {}
    if analyze:
        entries = [e for e in opinfo.op_db if not e.is_prim]
        reach, entry_samples, seen_by = analyze_entries(entries, jobs or os.cpu_count() or 1)
        for name, entry_names in seen_by.items():
            by_aten[name] += [e for e in entry_names if e not in by_aten[name]]
    names = set(aten_overload_names()) | {op.name() for op in table}
    rows = []
    for name in sorted(names):
        op = resolve(name)
        fn = table.get(op) if op is not None else None
        reached, missing = reach.get(name, (set(), set()))
        if fn is None:
            status = "missing"
        elif missing:
            status = "partial"
        else:
            status = "prims"
        entries = by_aten.get(name, [])
        rows.append({
            "name": name, "status": status, "prims": sorted(reached), "missing": sorted(missing),
            "opinfo": entries, "samples": sum(entry_samples.get(e, 0) for e in entries), "traced": name in reach,
            "tests": _tests_for(entries, test_results), "tags": op_tags(op),
            "family": family_of(fn) if fn is not None else None,
        })
    summary = summarize(rows)
    summary["opinfo_entries"] = len(opinfo.op_db)
    report = {"torch_version": torch.__version__, "summary": summary, "ops": rows}
    if target is not None:
        apply_target(report, target)
    report["generated_in_s"] = round(time.time() - start, 1)
    return report


def apply_target(report: dict, target) -> dict:
    """Mark, in place, the rows that reach only the prim set ``target``, directly or through the
    prims' lowerings (``ops[].in_target``; ``trace(target=...)`` applies those lowerings), and add
    ``summary.target``; returns the report."""
    from decompositions.lowering import unreachable
    target = set(target)
    outside = unreachable(target)
    for row in report["ops"]:
        row["in_target"] = row["status"] == "prims" and bool(row["prims"]) and not set(row["prims"]) & outside
    report["summary"]["target"] = {"prims": sorted(target), "unreachable_prims": sorted(outside),
                                   "reaching": sum(r["in_target"] for r in report["ops"])}
    return report


def _tests_for(entry_names, test_results) -> dict:
    """{"<dtype>/<device>": {"passed": n, "failed": n, "xfailed": n, "skipped": n}} over the entries."""
    out: dict = {}
    for e in entry_names:
        for key, counts in (test_results or {}).get(e, {}).items():
            acc = out.setdefault(key, {})
            for k, v in counts.items():
                acc[k] = acc.get(k, 0) + v
    return out


def parse_junit(path) -> dict:
    """pytest's junit XML -> {entry name: {"<dtype>/<device>": {outcome: count}}} for tests/test_ops.py."""
    import re
    import xml.etree.ElementTree as ET
    results: dict = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        m = re.match(r"test_\w+\[(.+)\]$", case.get("name", ""))
        if not m or not case.get("classname", "").endswith("test_ops"):
            continue
        parts = m.group(1).rsplit("-", 2)
        if len(parts) == 3 and parts[2] in ("cpu", "cuda"):
            entry, key = parts[0], f"{parts[1]}/{parts[2]}"
        else:
            entry, _, device = m.group(1).rpartition("-")
            key = f"any/{device}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
        counts = results.setdefault(entry, {}).setdefault(key, {})
        counts[outcome] = counts.get(outcome, 0) + 1
    return results


def summarize(rows) -> dict:
    status = collections.Counter(r["status"] for r in rows)
    per_tag = {t: collections.Counter(r["status"] for r in rows if t in r["tags"]) for t in TAGS}
    per_family = collections.defaultdict(collections.Counter)
    for r in rows:
        if r["family"]:
            per_family[r["family"]][r["status"]] += 1
            per_family[r["family"]]["tested"] += bool(r["opinfo"])
    prim_use = collections.Counter(p for r in rows for p in r["prims"])
    core = [r for r in rows if "core" in r["tags"]]
    reaching = [r for r in rows if r["status"] == "prims"]
    return {
        "overloads": len(rows),
        "status": dict(status),
        "reach_prims": len(reaching),
        "reach_prims_tested": sum(1 for r in reaching if r["opinfo"]),
        "reach_prims_traced": sum(1 for r in reaching if r.get("traced")),
        "operators_reaching_prims": len({_operator(r["name"]) for r in reaching}),
        "operators_tested": _operators_tested(rows),
        "core": {"total": len(core), "prims": sum(r["status"] == "prims" for r in core)},
        "per_tag": {t: dict(c) for t, c in per_tag.items()},
        "per_family": {f: dict(c) for f, c in sorted(per_family.items())},
        "prim_use": dict(prim_use.most_common()),
        "catalog_prims": len(prims.catalog()),
    }


def _operator(name: str) -> str:
    """'aten::add_.Tensor' -> 'add': the operator an overload belongs to (in-place and out= included)."""
    return name.split("::")[1].split(".")[0].rstrip("_")


def _operators_tested(rows) -> int:
    """Operators all of whose overloads reach prims, one of them exercised by an OpInfo entry."""
    by_op = collections.defaultdict(list)
    for r in rows:
        by_op[_operator(r["name"])].append(r)
    return sum(all(r["status"] == "prims" for r in rs) and any(r["opinfo"] for r in rs) for rs in by_op.values())


def to_markdown(report) -> str:
    s = report["summary"]
    lines = [
        f"# primkit op coverage (torch {report['torch_version']})", "",
        f"{s['catalog_prims']} prims in the catalog. {s['overloads']} ATen overloads: "
        f"{s['status'].get('prims', 0)} decompose to prims ({s['reach_prims_tested']} of them tested by an OpInfo "
        f"entry, {s.get('reach_prims_traced', '?')} seen reaching prims in a traced sample), "
        f"{s['status'].get('partial', 0)} partially, {s['status'].get('missing', 0)} missing. "
        f"{s['operators_reaching_prims']} distinct operators reach prims ({s['operators_tested']} through every "
        f"overload and tested). Core ATen: "
        f"{s['core']['prims']} / {s['core']['total']}.", "",
        "## By family", "", "| family | prims | partial | tested |", "| --- | ---: | ---: | ---: |",
    ]
    for fam, c in s["per_family"].items():
        lines.append(f"| {fam} | {c.get('prims', 0)} | {c.get('partial', 0)} | {c.get('tested', 0)} |")
    lines += ["", "## By tag", "", "| tag | prims | partial | missing |", "| --- | ---: | ---: | ---: |"]
    for tag, c in s["per_tag"].items():
        lines.append(f"| {tag} | {c.get('prims', 0)} | {c.get('partial', 0)} | {c.get('missing', 0)} |")
    lines += ["", "## Prim use (ops whose traced samples reach each prim)", "",
              ", ".join(f"`{p}` {n}" for p, n in s["prim_use"].items()) or "(none traced)", ""]
    for status, title in (("partial", "Partial (decomposition reaches ops without one)"),
                          ("prims", "Decomposes to prims"), ("missing", "Missing")):
        rows = [r for r in report["ops"] if r["status"] == status]
        lines += [f"## {title}: {len(rows)}", ""]
        if status == "missing":
            lines += ["<details><summary>show</summary>", ""]
        lines += ["| overload | family | OpInfo | prims | missing | tags |", "| --- | --- | --- | --- | --- | --- |"]
        for r in rows:
            lines.append(f"| `{r['name']}` | {r['family'] or ''} | {', '.join(r['opinfo'])} | "
                         f"{' '.join(r['prims'])} | {' '.join(r['missing'])} | {' '.join(r['tags'])} |")
        if status == "missing":
            lines += ["", "</details>"]
        lines.append("")
    return "\n".join(lines)
