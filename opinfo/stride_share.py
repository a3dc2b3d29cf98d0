"""The share of OpInfo samples whose decomposed result has eager's strides.

For every decomposition entry of the database (prims are checked by test_prim_meta instead),
each sample is run eagerly and through its prim trace on the CPU, and every output tensor's
significant strides (opinfo.harness.significant_strides) are compared. A sample counts as
matching when all its outputs match. Mismatches are listed with the strict xfail that states
them, if any: a mismatch with no xfail is a test failure waiting to happen.

One dtype per entry (float32 where supported, else the first in name order): layout rules do
not depend on the dtype, and one dtype keeps the measurement to a few minutes on 2 cores.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.utils._pytree as pytree

from primkit.opinfo.harness import call, significant_strides, trace_sample, trace_samples


@dataclass
class StrideShare:
    samples: int = 0
    matching: int = 0
    mismatches: list = field(default_factory=list)   # (entry, dtype, sample name, xfail reason or None)
    errors: list = field(default_factory=list)       # (entry, dtype, sample name, error) where a run failed

    @property
    def share(self) -> float:
        return self.matching / self.samples if self.samples else 1.0


def _dtype_for(entry):
    dtypes = entry.supported_dtypes("cpu")
    return torch.float32 if torch.float32 in dtypes else sorted(dtypes, key=str)[0]


def measure(entries, progress=None) -> StrideShare:
    result = StrideShare()
    entries = [e for e in entries if not e.is_prim and e.supported_dtypes("cpu")]   # CUDA-only entries: no CPU run
    for i, entry in enumerate(entries):
        if progress:
            progress(i, len(entries), entry.name)
        dtype = _dtype_for(entry)
        xfail = entry.xfail_for("strides", dtype, "cpu") or entry.xfail_for("values", dtype, "cpu")
        for sample, outcome in _outcomes(entry, dtype):
            result.samples += 1
            if isinstance(outcome, Exception):    # counted as not matching; the values test reports it
                result.errors.append((entry.name, dtype, sample.name,
                                      f"{type(outcome).__name__}: {outcome}".splitlines()[0]))
                continue
            actual, expected = outcome
            pairs = [(a, e) for a, e in zip(pytree.tree_leaves(actual), pytree.tree_leaves(expected))
                     if isinstance(e, torch.Tensor)]
            if all(significant_strides(a) == significant_strides(e) for a, e in pairs):
                result.matching += 1
            else:
                result.mismatches.append((entry.name, dtype, sample.name, xfail.reason if xfail else None))
    return result


def _outcomes(entry, dtype):
    """(sample, (traced result, eager result) or the exception) for each sample: the samples eager
    runs are traced together (one trace's fixed cost), each alone if that fails."""
    ran = []
    for sample in entry.samples("cpu", dtype):
        try:
            ran.append((sample, call(entry.op, sample)))
        except Exception as e:
            yield sample, e
    if not ran:
        return
    try:
        joint, tensors = trace_samples(entry.op, [s for s, _ in ran])
        for (sample, expected), actual in zip(ran, joint.run(tensors)):
            yield sample, (actual, expected)
        return
    except Exception:
        pass
    for sample, expected in ran:
        try:
            gm, tensors = trace_sample(entry.op, sample)
            yield sample, (gm(*tensors), expected)
        except Exception as e:
            yield sample, e


def to_markdown(r: StrideShare) -> str:
    lines = ["# Output strides against eager\n",
             f"{r.matching} of {r.samples} samples ({100 * r.share:.2f}%) give eager's significant strides "
             f"(CPU, one dtype per entry).\n"]
    if r.mismatches:
        lines += ["| entry | dtype | sample | strict xfail |", "| --- | --- | --- | --- |"]
        lines += [f"| {e} | {str(d)[6:]} | {s} | {x or '**none**'} |" for e, d, s, x in r.mismatches]
    if r.errors:
        lines += ["", "Samples that did not run (counted as not matching):", ""]
        lines += [f"- {e} ({str(d)[6:]}) {s}: {err}" for e, d, s, err in r.errors]
    return "\n".join(lines) + "\n"
