"""primkit's ONNX exporter beside ``torch.onnx.export(..., dynamo=True)`` on the same models, in one
run (``primkit bench --onnx``): whether each exports, whether onnxruntime's result equals eager,
the export time, and onnxruntime's run time (CPU provider, same session options, median of
interleaved runs, the order swapped every other repetition)."""
from __future__ import annotations

import re
import statistics
import time

import torch
import torch.utils._pytree as pytree

from primkit.export.onnx import run, session, to_onnx


def _exported(export):
    start = time.perf_counter()
    try:
        model = export()
    except Exception as e:     # a benchmark row, not a failure: the exporter's first line of why
        first = re.sub(r"\x1b\[[0-9;]*m", "", str(e)).strip().splitlines()[:1]
        return None, time.perf_counter() - start, f"{type(e).__name__}: {first[0][:80] if first else ''}"
    return model, time.perf_counter() - start, ""


def _torch_onnx(model, args):
    program = torch.onnx.export(model, args, dynamo=True, verbose=False)
    return program.model_proto


def compare(name, model, args, repeat=20, atol=1e-4, rtol=1e-4) -> dict:
    """One row: for each exporter, its export time, whether onnxruntime equals eager, its run time."""
    model = model.eval()
    with torch.no_grad():
        expected = [t for t in pytree.tree_leaves(model(*args)) if isinstance(t, torch.Tensor)]
    row, sessions = {"model": name}, {}
    for who, export in (("primkit", lambda: to_onnx(model, args)), ("torch.onnx", lambda: _torch_onnx(model, args))):
        proto, seconds, why = _exported(export)
        row[f"{who} export s"] = seconds
        if proto is None:
            row[f"{who} equal"] = f"no export ({why})"
            continue
        try:
            sessions[who] = session(proto)
            got = run(sessions[who], *args)
            row[f"{who} equal"] = len(got) == len(expected) and all(
                torch.allclose(g, e, atol=atol, rtol=rtol) for g, e in zip(got, expected))
        except Exception as e:
            row[f"{who} equal"] = f"no run ({type(e).__name__})"
            sessions.pop(who, None)
    times = {who: [] for who in sessions}
    for i in range(repeat):
        for who in (list(sessions) if i % 2 == 0 else list(sessions)[::-1]):
            start = time.perf_counter()
            run(sessions[who], *args)
            times[who].append(time.perf_counter() - start)
    for who, ts in times.items():
        row[f"{who} ORT ms"] = 1000 * statistics.median(ts)
    if len(times) == 2:
        row["ORT primkit/torch.onnx"] = row["primkit ORT ms"] / row["torch.onnx ORT ms"]
    return row


def table(rows) -> str:
    """A markdown table of ``compare``'s rows, with how many models each exporter exported equal to eager."""
    columns = ["model", "primkit equal", "torch.onnx equal", "primkit export s", "torch.onnx export s",
               "primkit ORT ms", "torch.onnx ORT ms", "ORT primkit/torch.onnx"]

    def cell(v):
        return "-" if v is None else f"{v:.3g}" if isinstance(v, float) else str(v)
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c)) for c in columns) + " |" for r in rows]
    for who in ("primkit", "torch.onnx"):
        lines.append(f"\n{who}: {sum(r.get(f'{who} equal') is True for r in rows)} of {len(rows)} models exported "
                     f"and equal to eager")
    return "\n".join(lines)
