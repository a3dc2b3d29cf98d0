"""Known failures of the OpInfo tests under torch 2.11, the oldest torch primkit supports: data, read
by ``opinfo``. CI runs torch 2.13, where none of these fail (on CPU).

``CUDA``: CUDA ran for the first time on 2026-11-26, on one NVIDIA H100 under torch 2.11.0+cu130 (the torch
of the lent GPU machines), in two runs. The first: 608 of about 12,300 CUDA tests failed, and six tests
crashed their worker (five collectives on gloo with CUDA tensors, one batch norm). Two causes were then
fixed (torch 2.11's make_fx keeps its decomposition table in a module global; the collective entries'
one-rank world runs CUDA tensors on NCCL), and the second run (stopped at its time limit after about 14,200
tests) found 108 failures, most in tests the first had not reached. This table holds each failure of the two
runs that those fixes do not explain, as a strict xfail with the exception it raised and the reason its
message gives. None of them has been investigated yet, and the table has not had a CUDA run of its own (the
session's GPU time was spent): they are the CUDA work still to do, listed so that a CUDA run shows new
failures and fixes (a strict xfail that passes fails the run). They are generated from the runs' junit XML;
the reasons are categories of the messages. Left out: the executor's bitwise differences on kernels that
accumulate with atomics (tests/test_executor.py compares those as close on CUDA), and the entries that passed
in a later run (flaky: float16 gradients CUDA accumulates with atomic adds in a varying order): one in the
second run, and aten.reflection_pad3d_backward in float16 in the third (2026-11-27, one H200, torch
2.11.0+cu130), which also crashed aten._batch_norm_with_update.out in float32 and found the executor's
CUDA differences that tests/test_executor.py now expects (fractional_max_pool3d_backward, scatter).
A fourth run (2026-11-27, one H100, main at 9e2abb5) updated the table: its passes removed, its new failures
added with the reasons read from their messages and torch's CUDA kernels (2340 tests of it had errored after
the empty-dim sweep's device-side asserts, now avoided: those have had no CUDA run since).
A fifth run (2026-11-27, one H100, main at 0a4ba8a) updated it again: its XPASSes removed, its new failures
added (reasons from their messages), its worker crashes added to CRASHES.

``CRASHES``: the tests that killed their process on CUDA; they are skipped there, with the reason.

``CPU``: torch 2.11's eager differs from 2.13's on these samples (found by the suite under torch 2.11.0
on CPU, the same day).

The keys are (entry name, test of ALL_TESTS, dtype name, or None for the tests made once per entry).
Under another torch, neither table applies: a CUDA run under 2.13 has not been made.
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import XFail
from primkit.opinfo.known_failures_cuda import CRASHES, CUDA

FOUND_ON = "2.11."

_EAGER_211 = "torch 2.11's eager differs from 2.13's here (2.13 passes; not investigated)"
CPU = {
    ("addr", "values", "float16"): (AssertionError, _EAGER_211),
    ("aten.binary_cross_entropy_backward", "values", "float16"): (AssertionError, _EAGER_211),
    ("aten.replication_pad3d_backward", "values", "float16"): (AssertionError, _EAGER_211),
    ("clamp", "values", "float64"): (AssertionError, _EAGER_211),
    ("clip", "values", "float64"): (AssertionError, _EAGER_211),
    ("multinomial", "values", "bfloat16"): (AssertionError, _EAGER_211),
    ("trace", "values", "float16"): (AssertionError, "torch 2.11's CPU trace has no float16 kernel"),
    ("trace", "values", "bfloat16"): (AssertionError, "torch 2.11's CPU trace has no bfloat16 kernel"),
    ("trace", "strides", "float16"): (AssertionError, "torch 2.11's CPU trace has no float16 kernel"),
    ("trace", "strides", "bfloat16"): (AssertionError, "torch 2.11's CPU trace has no bfloat16 kernel"),
    ("aminmax", "gradients", "float64"): (AssertionError, "torch 2.11's eager has no derivative for aminmax"),
    ("multi_margin_loss", "errors", None): (AssertionError, "torch 2.11's eager raises another message"),
    ("nn.functional.nll_loss", "errors", None): (AssertionError, "torch 2.11's eager raises another message"),
}


def crash(name: str, test: str, dtype, device: str) -> str | None:
    """Why the test of entry ``name`` is not run on ``device`` (it crashed the process), or None."""
    if device != "cuda" or not torch.__version__.startswith(FOUND_ON):
        return None
    key = (name, test, None if dtype is None else str(dtype).replace("torch.", ""))
    return f"cuda, torch {torch.__version__}: crashes the test process ({CRASHES[key]})" if key in CRASHES else None


# What tests/test_ops.py's test_out finds on a wrongly shaped out= tensor (every torch version): entry ->
# (exception, reason), raised strictly by that part of the test.
OUT_RESIZE = {
    # eager's kernel (binary_cross_entropy_out_cpu/_cuda) resizes at::squeeze(out), a temporary alias, not out:
    # out keeps its shape (the "was resized" warning notwithstanding) and the loss is written as a contiguous
    # run from out's storage offset, whatever out's strides; a shorter out shows part of it, and the rest lands
    # past out's extent (out = base[:1] with 2 losses writes base[1]). A kernel bug, not a contract to copy.
    "binary_cross_entropy.out": (AssertionError, "eager's kernel resizes a squeezed alias of out, not out (torch "
                                                 "2.13): out keeps its shape (2,) and takes the 0-d input's loss in "
                                                 "its first element (past out's extent where out is shorter); "
                                                 "primkit resizes out to () as resize_output does"),
}

# What tests/test_ops.py's test_empty_leading_dim ("empty") and test_empty_last_dim ("empty_last") find and issue
# 31 has not fixed (every torch version): test -> entry -> (exception, reason).
_GRAD_OUTPUT_OF_NO_FORWARD = (RuntimeError, "the emptied sample is no program: grad_output's last dim (the output's "
                                            "width) emptied, not the grid's (its dim -2), so grad_output does not have "
                                            "the forward's output shape; eager does not check and returns zero "
                                            "gradients, the decomposition refuses it, naming grad_output")
EMPTIED_DIM = {
    "empty": {},
    "empty_last": {name: _GRAD_OUTPUT_OF_NO_FORWARD for name in (
        "aten.grid_sampler_2d_backward", "aten.grid_sampler_2d_backward.out", "aten.grid_sampler_3d_backward",
        "aten.grid_sampler_3d_backward.out")},
}


def apply(op_db) -> None:
    """Adds the known failures (EMPTIED_DIM on every torch, the tables under torch 2.11) to their entries'
    xfails (after the entries' own)."""
    by_name = {e.name: e for e in op_db}
    for test, table in EMPTIED_DIM.items():
        unknown = sorted(set(table) - set(by_name))
        if unknown:
            raise ValueError(f"opinfo.known_failures: no entries named {unknown}")
        for name, (raises, reason) in table.items():
            by_name[name].xfails = tuple(by_name[name].xfails) + (XFail(test, reason, raises=raises),)
    if not torch.__version__.startswith(FOUND_ON):
        return
    for device, table in (("cuda", CUDA), ("cpu", CPU)):
        unknown = sorted({name for name, _, _ in table} - set(by_name))
        if unknown:
            raise ValueError(f"opinfo.known_failures: no entries named {unknown}")
        for (name, test, dtype), (raises, reason) in table.items():
            entry = by_name[name]
            dtypes = None if dtype is None else frozenset({getattr(torch, dtype)})
            entry.xfails = tuple(entry.xfails) + (
                XFail(test, f"{device}, torch {torch.__version__}: {reason}", dtypes, device, raises=raises),)
