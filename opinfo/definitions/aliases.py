"""OpInfo entries: aliases and torch.special functions with a prim of their own.

An alias shares its original's samples, error inputs, dtypes, tolerances and known failures (as
OpInfo's aliases do) but is its own entry, calling the alias's ATen op through ``through_table``.
"""
from __future__ import annotations

import dataclasses
import functools

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.definitions import elementwise, linalg, nn, reductions, shape
from primkit.opinfo.definitions.common import list_samples, table_entry, through_table
from primkit.opinfo.definitions.shape.conveniences import _movedim_samples
from primkit.opinfo.dtypes import ALL, BOOL, FLOAT32_64, INTEGRAL
from primkit.opinfo.samples import make, sample_inputs_elementwise_unary

aten = torch.ops.aten


def overload_names(name, inplace=True):
    """Every overload of aten.<name> (and of aten.<name>_), as entries' ``aten`` spell them."""
    names = []
    for packet_name in (name, name + "_") if inplace else (name,):
        packet = getattr(aten, packet_name, None)
        for overload in packet.overloads() if packet is not None else ():
            names.append(f"aten::{packet_name}" + ("" if overload == "default" else f".{overload}"))
    return tuple(names)


_ORIGINALS = {e.name: e for m in (elementwise, linalg, nn, reductions, shape) for e in m.ENTRIES}


def alias_of(alias, original, *, op=None, inplace="default", supports_out=None, aten_names=None, **changes):
    """The entry of ``original`` renamed to ``alias``, calling aten.<alias> (or ``op``).
    ``aten_names``: the overloads its samples exercise, where not every overload of the alias."""
    base = _ORIGINALS[original]
    if inplace == "default":
        inplace = through_table(alias + "_") if base.inplace is not None and hasattr(aten, alias + "_") else None
    changes.setdefault("name", alias)
    return dataclasses.replace(base, op=op or through_table(alias),
                               aten=aten_names or overload_names(alias, inplace is not None), inplace=inplace,
                               supports_out=base.supports_out if supports_out is None else supports_out,
                               family="aliases", **changes)


def _polygamma(x, n, **kwargs):
    return through_table("special_polygamma")(n, x, **kwargs)


def _transpose_errors(op, device):
    yield ErrorInput(SampleInput(make((2, 3), device, torch.float32), (0, 2)), IndexError, "Dimension out of range")


def _positive_errors(op, device):
    yield ErrorInput(SampleInput(make((3,), device, torch.bool)), RuntimeError, "on a bool tensor is not supported")


SPECIAL_32_64 = FLOAT32_64 | INTEGRAL | BOOL


def _special(name, *, dtypes=SPECIAL_32_64, domain=(None, None), tolerances=None):
    return OpInfo(name=name, op=through_table(name), aten=overload_names(name),
                  sample_inputs=sample_inputs_elementwise_unary, dtypes=frozenset(dtypes), domain=domain,
                  supports_out=True, tolerances=tolerances or {}, family="aliases")


ENTRIES = [
    alias_of("absolute", "abs"), alias_of("arccos", "acos"), alias_of("arccosh", "acosh"),
    alias_of("arcsin", "asin"), alias_of("arcsinh", "asinh"), alias_of("arctan", "atan"),
    alias_of("arctanh", "atanh"), alias_of("negative", "neg"), alias_of("multiply", "mul"),
    alias_of("greater", "gt"), alias_of("greater_equal", "ge"), alias_of("less", "lt"),
    alias_of("less_equal", "le"), alias_of("not_equal", "ne"), alias_of("fix", "trunc"),
    alias_of("arctan2", "atan2"), alias_of("concat", "cat"), alias_of("concatenate", "cat"),
    # shape.py's "swapaxes" entry traces torch's composite; this one our table's decomposition
    alias_of("swapaxes", "transpose", inplace=None, error_inputs=_transpose_errors, name="swapaxes.table"),
    alias_of("swapdims", "transpose", inplace=None, error_inputs=_transpose_errors),
    alias_of("special_expit", "sigmoid"), alias_of("special_exp2", "exp2"), alias_of("special_expm1", "expm1"),
    alias_of("special_log1p", "log1p"), alias_of("special_erf", "erf"), alias_of("special_erfc", "erfc"),
    alias_of("special_erfinv", "erfinv"), alias_of("special_digamma", "digamma"),
    alias_of("special_psi", "digamma"), alias_of("special_gammaln", "lgamma"), alias_of("special_i0", "i0"),
    alias_of("special_sinc", "sinc"), alias_of("special_logit", "logit"),
    alias_of("special_round", "round.decimals_2",
             op=functools.partial(through_table("special_round"), decimals=2)),
    alias_of("special_multigammaln", "mvlgamma"),
    # A Python number operand reaches eager's dispatcher (and through_table) as a 0-d tensor, so
    # the .Scalar overloads are not among those these samples exercise.
    alias_of("subtract", "sub", aten_names=("aten::subtract.Tensor", "aten::subtract.out", "aten::subtract_.Tensor")),
    alias_of("divide", "div", aten_names=("aten::divide.Tensor", "aten::divide.out", "aten::divide_.Tensor")),
    *(alias_of("divide", f"div.{mode}", name=f"divide.{mode}",
               op=functools.partial(through_table("divide"), rounding_mode=mode),
               inplace=functools.partial(through_table("divide_"), rounding_mode=mode),
               aten_names=("aten::divide.Tensor_mode", "aten::divide.out_mode", "aten::divide_.Tensor_mode"))
      for mode in ("trunc", "floor")),
    alias_of("true_divide", "div",
             aten_names=("aten::true_divide.Tensor", "aten::true_divide.out", "aten::true_divide_.Tensor")),
    alias_of("clip", "clamp", aten_names=("aten::clip", "aten::clip.out", "aten::clip_")),
    alias_of("clip", "clamp.Tensor", name="clip.Tensor", inplace=through_table("clip_"),
             aten_names=("aten::clip.Tensor", "aten::clip.Tensor_out", "aten::clip_.Tensor")),
    alias_of("ger", "outer", aten_names=("aten::ger", "aten::ger.out")),
    alias_of("special_xlogy", "xlogy", aten_names=(
        "aten::special_xlogy", "aten::special_xlogy.self_scalar", "aten::special_xlogy.other_scalar",
        "aten::special_xlogy.out")),
    alias_of("special_polygamma", "polygamma", op=_polygamma),
    alias_of("special_logsumexp", "logsumexp"),
    alias_of("special_softmax", "nn.functional.softmax"),
    alias_of("special_log_softmax", "nn.functional.log_softmax"),
    OpInfo(name="positive", op=through_table("positive"), aten=overload_names("positive"),
           sample_inputs=sample_inputs_elementwise_unary, dtypes=ALL - BOOL, error_inputs=_positive_errors,
           family="aliases"),
    _special("special_ndtr", dtypes=ALL),
    _special("special_bessel_j0"), _special("special_bessel_j1"),
    _special("special_bessel_y0"), _special("special_bessel_y1"),
    _special("special_modified_bessel_i0"), _special("special_modified_bessel_i1"),
    _special("special_modified_bessel_k0"), _special("special_modified_bessel_k1"),
    _special("special_scaled_modified_bessel_k0"), _special("special_scaled_modified_bessel_k1"),
    _special("special_spherical_bessel_j0"), _special("special_airy_ai"),
]


_table_entry = functools.partial(table_entry, family="aliases")


ENTRIES += [
    _table_entry("moveaxis", _movedim_samples),
    _table_entry("row_stack", list_samples([(2, 3), (4, 3)], [(3,), (3,)]), out=True),
]
