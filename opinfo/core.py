"""OpInfo records: what op, which ATen overloads, what samples, what dtypes, what is known broken."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import torch

from primkit.opinfo.tolerances import TOLERANCES

ALL_TESTS = ("trace", "values", "strides", "errors", "inplace", "out", "meta", "gradients", "executor", "empty",
             "empty_last")


class DidNotRaise(Exception):
    """An XFail's ``raises`` for a test that fails because eager raised nothing where the error input
    expects an error (tests/test_ops.py maps it to pytest's own failure)."""

# Default (atol, rtol) of a decomposition's result against eager's, per dtype (opinfo/tolerances.py).
DEFAULT_TOLERANCES = TOLERANCES["values"]


@dataclass
class SampleInput:
    input: Any
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    name: str = ""          # the edge case this sample is, e.g. "transposed", "0-d", "inf/nan"

    def __repr__(self):
        def r(x):
            if isinstance(x, torch.Tensor):
                return f"Tensor{tuple(x.shape)}:{str(x.dtype)[6:]}:{tuple(x.stride())}"
            if isinstance(x, (list, tuple)):
                return type(x)(r(y) for y in x)
            return x
        return f"SampleInput[{self.name}]({r(self.input)}, args={r(self.args)}, kwargs={r(self.kwargs)})"


@dataclass
class ErrorInput:
    sample: SampleInput
    error_type: type
    match: str = ""         # regex on eager's message (checked against eager, so the entry stays true)


@dataclass(frozen=True)
class XFail:
    """A known failure: strict (an unexpected pass fails the suite, and so does an exception other than
    ``raises``). ``test`` is one of ALL_TESTS."""
    test: str
    reason: str
    dtypes: frozenset | None = None     # None: every dtype
    device: str | None = None           # None: every device
    raises: type | tuple = field(kw_only=True)   # the exception the test raises: required, so no xfail passes on any

    def __post_init__(self):
        kinds = self.raises if isinstance(self.raises, tuple) else (self.raises,)
        if self.test not in ALL_TESTS or not kinds or not all(
                isinstance(k, type) and issubclass(k, BaseException) for k in kinds):
            raise ValueError(f"XFail: test must be one of {ALL_TESTS} and raises an exception type or a tuple of "
                             f"them; got test={self.test!r}, raises={self.raises!r}")

    def applies(self, test, dtype, device) -> bool:
        return (self.test == test and (self.dtypes is None or dtype in self.dtypes)
                and (self.device is None or self.device == device))


@dataclass
class OpInfo:
    name: str
    op: Callable
    aten: tuple                                   # ATen overload names the samples exercise
    sample_inputs: Callable                       # (op, device, dtype) -> Iterable[SampleInput]
    dtypes: frozenset
    dtypes_cuda: frozenset | None = None          # None: same as dtypes
    error_inputs: Callable | None = None          # (op, device) -> Iterable[ErrorInput]
    reference_inputs: Callable | None = None      # (op, device, dtype) -> harder samples
    inplace: Callable | None = None               # e.g. torch.Tensor.add_
    supports_out: bool = False
    tolerances: dict = field(default_factory=dict)   # dtype -> (atol, rtol), with the reason beside it
    xfails: tuple = ()
    domain: tuple = (None, None)                  # (low, high) valid inputs for the sample generators
    sample_kwargs: dict = field(default_factory=dict)  # knobs of the shared generators (see opinfo.samples)
    is_prim: bool = False
    family: str = ""
    supports_autograd: bool = True
    seeded: bool = False    # draws from torch's default generator: test_trace_and_values seeds it before eager
                            # and before the graph, which then draw the same numbers in the same order

    def supported_dtypes(self, device: str) -> frozenset:
        if device.startswith("cuda") and self.dtypes_cuda is not None:
            return self.dtypes_cuda
        return self.dtypes

    def tolerance(self, dtype) -> tuple:
        return self.tolerances.get(dtype, DEFAULT_TOLERANCES.get(dtype, (0.0, 0.0)))

    def samples(self, device, dtype) -> Iterable[SampleInput]:
        yield from self.sample_inputs(self, device, dtype)
        if self.reference_inputs is not None:
            yield from self.reference_inputs(self, device, dtype)

    def errors(self, device) -> Iterable[ErrorInput]:
        return self.error_inputs(self, device) if self.error_inputs else ()

    def xfail_for(self, test, dtype, device) -> XFail | None:
        return next((x for x in self.xfails if x.applies(test, dtype, device)), None)
