"""Eager execution through prims (``decompositions.eager.through_prims``): programs run op by op
through their decompositions on real tensors and give eager's results.

- test_op_db: every ATen entry of the OpInfo database, its first samples in one dtype per entry,
  under the mode equals eager (values, shapes, dtypes; strides where test_ops' strides test passes);
- test_zoo_inference / test_zoo_training: the model zoo, inference and one training step (loss,
  gradients, buffers), dropout drawing eager's masks under the same seed;
- one-off tests for what the database cannot express: data-dependent control flow, ``.item()``
  and printing; strict mode's error and permissive mode's record; the README's example.
"""
from __future__ import annotations

import copy
import itertools
import re

import pytest
import torch
import torch.utils._pytree as pytree

from primkit import opinfo
from primkit.decompositions import DecompositionError, get_decompositions
from primkit.decompositions.eager import through_prims
from primkit.opinfo.harness import call, clone_sample

from models import GPT2, zoo
from test_ops import _seeding, _stride_mismatches, assert_same
from training import ATOL, RTOL, SEED, _cotangents, _loss, output_tensors

# The first samples of each entry: enough to run each decomposition on real tensors, few enough that
# the database runs in about a minute on two cores.
OP_DB_SAMPLES = 2


# Entries whose values xfail is a failure of tracing (a size that depends on data, undecidable under fake
# tensors), which real tensors do not have: they pass here.
TRACING_ONLY = {"repeat_interleave_counts"}


def _dtype(entry):
    """float32 where the entry takes it, else its first dtype (test_ops' order)."""
    dtypes = entry.supported_dtypes("cpu")
    return torch.float32 if torch.float32 in dtypes else sorted(dtypes, key=str)[0]


def _op_db_params():
    out = []
    for entry in opinfo.op_db:
        if entry.is_prim or not entry.supported_dtypes("cpu"):   # test_ops generates no CPU test for them either
            continue
        dtype = _dtype(entry)
        marks = []
        xf = entry.xfail_for("values", dtype, "cpu")
        if xf is not None and entry.name not in TRACING_ONLY:
            marks.append(pytest.mark.xfail(strict=True, raises=xf.raises, reason=xf.reason))
        out.append(pytest.param(entry, dtype, marks=marks, id=f"{entry.name}-{str(dtype).replace('torch.', '')}"))
    return out


@pytest.mark.parametrize("entry,dtype", _op_db_params())
def test_op_db(entry, dtype):
    # Every sample where the entry's values are a known failure, so the failing sample stays in (as test_ops).
    samples = list(itertools.islice(entry.samples("cpu", dtype),
                                    None if entry.xfail_for("values", dtype, "cpu") else OP_DB_SAMPLES))
    assert samples, f"{entry.name}: no samples for {dtype}"
    with _seeding(entry):
        expected = [call(entry.op, clone_sample(s)) for s in samples]
    with _seeding(entry), through_prims():
        actual = [call(entry.op, clone_sample(s)) for s in samples]
    for sample, a, e in zip(samples, actual, expected, strict=True):
        assert_same(a, e, entry, dtype, sample)
    if entry.xfail_for("strides", dtype, "cpu") is None:
        mismatches = [m for s, a, e in zip(samples, actual, expected) for m in _stride_mismatches(a, e, s)]
        assert not mismatches, "\n".join(mismatches)
