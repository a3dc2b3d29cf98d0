"""OpInfo entries: dropout and its variants (alpha, feature)."""
from __future__ import annotations

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.definitions.nn.common import _entry, aten, entry, out_entry
from primkit.opinfo.samples import layouts, make


def sample_inputs_dropout(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.5,), {"training": False}, name=f"eval {name} {shape}")
            yield SampleInput(t, (0.0,), {"training": True}, name=f"p=0 {name} {shape}")
            yield SampleInput(t, (1.0,), {"training": True}, name=f"p=1 {name} {shape}")


def error_inputs_dropout(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (1.5,)), ValueError,
                     "dropout probability has to be between 0 and 1")


def sample_inputs_native_dropout(op, device, dtype):
    for shape in ((), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.5, False), name=f"eval {name} {shape}")
            yield SampleInput(t, (0.0, True), name=f"p=0 {name} {shape}")
            yield SampleInput(t, (1.0, True), name=f"p=1 {name} {shape}")


def sample_inputs_dropout_eval(op, device, dtype):
    for shape in ((), (0,), (4, 5), (2, 3, 4)):
        for name, t in layouts(shape, device, dtype):
            yield SampleInput(t, (0.5, False), name=f"eval {name} {shape}")
    yield SampleInput(make((2, 3, 4), device, dtype), (0.0, True), name="train p=0")


def error_inputs_dropout_eval(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.float32), (1.5, False)), RuntimeError,
                     "dropout probability has to be between 0 and 1")


ENTRIES = [
    _entry("nn.functional.dropout", F.dropout, ("aten::dropout", "aten::native_dropout", "aten::dropout_"),
           sample_inputs_dropout, errors=error_inputs_dropout,
           inplace=lambda t, *args, **kwargs: F.dropout(t, *args, **kwargs, inplace=True)),
    out_entry(aten.native_dropout.out, aten.native_dropout, sample_inputs_native_dropout),
    entry("nn.functional.alpha_dropout", aten.alpha_dropout, ("aten::alpha_dropout", "aten::alpha_dropout_"),
          sample_inputs_dropout_eval, errors=error_inputs_dropout_eval, inplace=aten.alpha_dropout_),
    entry("nn.functional.feature_alpha_dropout", aten.feature_alpha_dropout,
          ("aten::feature_alpha_dropout", "aten::feature_alpha_dropout_"), sample_inputs_dropout_eval,
          errors=error_inputs_dropout_eval, inplace=aten.feature_alpha_dropout_),
    entry("nn.functional.feature_dropout", aten.feature_dropout, ("aten::feature_dropout", "aten::feature_dropout_"),
          sample_inputs_dropout_eval, errors=error_inputs_dropout_eval, inplace=aten.feature_dropout_),
]
