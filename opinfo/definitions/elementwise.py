"""OpInfo entries: elementwise ops. Most are a row of a table."""
from __future__ import annotations

import torch

from opinfo.core import OpInfo, XFail
from opinfo.dtypes import ALL, FLOATING, INTEGRAL, NUMERIC
from opinfo.samples import (
    error_inputs_elementwise_binary, sample_inputs_elementwise_binary, sample_inputs_elementwise_unary,
)

NO_BOOL = FLOATING | INTEGRAL


def _unary(name, *, dtypes=ALL, domain=(None, None), fn=None, aten=None, tolerances=None, xfails=()):
    fn = fn or getattr(torch, name)
    return OpInfo(name=name, op=fn, aten=aten or (f"aten::{name}",), sample_inputs=sample_inputs_elementwise_unary,
                  dtypes=frozenset(dtypes), domain=domain, inplace=getattr(torch.Tensor, name + "_", None),
                  supports_out=True, tolerances=tolerances or {}, xfails=tuple(xfails), family="elementwise_unary")


def _binary(name, *, dtypes=ALL, domain=(None, None), fn=None, aten=None, tolerances=None, xfails=(),
            **sample_kwargs):
    fn = fn or getattr(torch, name)
    return OpInfo(name=name, op=fn, aten=aten or (f"aten::{name}.Tensor",),
                  sample_inputs=sample_inputs_elementwise_binary, error_inputs=error_inputs_elementwise_binary,
                  dtypes=frozenset(dtypes), domain=domain, inplace=getattr(torch.Tensor, name + "_", None),
                  supports_out=True, tolerances=tolerances or {}, xfails=tuple(xfails), family="elementwise_binary",
                  sample_kwargs=sample_kwargs)


ENTRIES = [
    _unary("abs", dtypes=NO_BOOL),
    _unary("neg", dtypes=NO_BOOL),
    _unary("exp"),
    _unary("log", domain=(0.01, None)),
    _unary("sqrt", domain=(0, None)),
    _unary("sin"),
    _unary("tanh"),
    _unary("sigmoid"),
    _binary("add"),
    _binary("mul"),
    _binary("sub", dtypes=NO_BOOL),
    _binary("div", dtypes=NO_BOOL, rhs_exclude_zero=True),
    _binary("maximum", python_scalars=False),
    _binary("eq"),
    _binary("lt", dtypes=NO_BOOL),
]
