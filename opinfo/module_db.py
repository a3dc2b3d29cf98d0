"""ModuleInfo records: which torch.nn module, built how, called on what, in which dtypes, what is
known broken and why. The records live in ``opinfo.modules.<family>``; ``module_db`` gathers them.

A record reads like an OpInfo entry: ``variants`` are named constructor calls, each with its own
forward samples (batched, unbatched, channels-last, ...) whose tensors are declared as ``T`` specs
and made per dtype when a test runs, so collecting the tests builds no tensor.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import torch
import torch.utils._pytree as pytree

from primkit.opinfo.core import DEFAULT_TOLERANCES, SampleInput
from primkit.opinfo.tolerances import TOLERANCES

MODULE_TESTS = ("eval", "train")
FLOATING = frozenset({torch.float32, torch.float64})

# Train-mode comparisons (outputs, gradients, buffers): opinfo/tolerances.py, with the reason.
TRAIN_TOLERANCES = TOLERANCES["training"]


# The dtype under which every variant runs every forward sample, in eval and train mode. Under the
# others (float64) both tests run the first variant's first forward sample: a variant's code path
# is the same in every dtype (float64 checks the values to tighter tolerances), and tracing and
# compiling are nearly all of the time (tests/test_modules.py has a 4-minute CPU budget).
FULL_DTYPE = torch.float32


# Kinds of floating tensors whose values are labels (+-1, 0/1): no gradient is asked for them
# (eager refuses some: soft_margin_loss's target).
DISCRETE = ("sign", "binary")


@dataclass(frozen=True)
class T:
    """A tensor a test makes under the test's dtype. ``kind``: "float" (standard normal), "prob"
    (uniform in (0.05, 0.95)), "positive" (uniform in (0.5, 1.5)), "sign" (+-1 of the dtype),
    "binary" (0 or 1 of the dtype),
    "long" (integers in [0, high)), "bool" (True with probability 1/2), or a callable
    ``(gen, dtype) -> Tensor`` for values only one module needs. ``grad``: whether the train test
    asks for its gradient (floating tensors only; False where eager's autograd refuses it)."""
    shape: tuple
    kind: Any = "float"
    high: int = 2
    channels_last: bool = False
    grad: bool = True

    def make(self, gen: torch.Generator, dtype: torch.dtype) -> torch.Tensor:
        k = self.kind
        if callable(k):
            t = k(gen, dtype)
        elif k == "float":
            t = torch.randn(self.shape, generator=gen, dtype=dtype)
        elif k == "prob":
            t = torch.rand(self.shape, generator=gen, dtype=dtype) * 0.9 + 0.05
        elif k == "positive":
            t = torch.rand(self.shape, generator=gen, dtype=dtype) + 0.5
        elif k == "sign":
            t = torch.randint(0, 2, self.shape, generator=gen).to(dtype) * 2 - 1
        elif k == "long":
            t = torch.randint(0, self.high, self.shape, generator=gen)
        elif k == "binary":
            t = torch.randint(0, 2, self.shape, generator=gen).to(dtype)
        elif k == "bool":
            t = torch.randint(0, 2, self.shape, generator=gen).bool()
        else:
            raise ValueError(f"T: unknown kind {k!r}")
        if self.channels_last:
            t = t.contiguous(memory_format={4: torch.channels_last, 5: torch.channels_last_3d}[t.dim()])
        return t


def f(*shape, **kw) -> T:
    """A floating tensor spec: ``f(2, 3, 4)``."""
    return T(shape, **kw)


def cl(*shape, **kw) -> T:
    """A channels-last floating tensor spec (4-d: channels_last, 5-d: channels_last_3d)."""
    return T(shape, channels_last=True, **kw)


def i64(*shape, high: int) -> T:
    """An int64 tensor spec of values in [0, high)."""
    return T(shape, "long", high=high)


@dataclass(frozen=True)
class Forward:
    """One forward call: positional and keyword arguments, where ``T`` specs become tensors."""
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)

    def make(self, dtype: torch.dtype, seed: int = 0) -> SampleInput:
        """The call's sample: ``input`` holds the positional arguments, ``kwargs`` the keywords."""
        gen = torch.Generator().manual_seed(seed)
        mk = lambda x: x.make(gen, dtype) if isinstance(x, T) else x  # noqa: E731
        args, kwargs = pytree.tree_map(mk, (self.args, self.kwargs), is_leaf=lambda x: isinstance(x, T))
        return SampleInput(args, (), kwargs, self.name)

    def wants_grad(self) -> list:
        """Per tensor of the sample (in pytree order of args, then kwargs): whether the train test
        asks for its gradient."""
        specs = pytree.tree_leaves((self.args, self.kwargs), is_leaf=lambda x: isinstance(x, T))
        return [x.grad and x.kind not in DISCRETE for x in specs if isinstance(x, T)]


def fwd(name: str, *args, **kwargs) -> Forward:
    return Forward(name, args, kwargs)


@dataclass(frozen=True)
class Variant:
    """One constructor call (``module_cls(*args, **kwargs)``), named for the code path it takes,
    and the forward calls it is tested on."""
    name: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    forwards: tuple = ()


def variant(name: str, *args, forwards, **kwargs) -> Variant:
    return Variant(name, args, kwargs, tuple(forwards))


@dataclass(frozen=True)
class ModuleXFail:
    """A known failure, strict: the test (one of MODULE_TESTS) raises ``raises``; scoped to
    ``dtypes`` and ``variants`` (None: all)."""
    test: str
    raises: type
    reason: str
    dtypes: frozenset | None = None
    variants: frozenset | None = None

    def applies(self, test, variant_name, dtype) -> bool:
        return (self.test == test and (self.dtypes is None or dtype in self.dtypes)
                and (self.variants is None or variant_name in self.variants))


def xfail(test: str, raises: type, reason: str, *, dtypes=None, variants=None) -> ModuleXFail:
    return ModuleXFail(test, raises, reason, None if dtypes is None else frozenset(dtypes),
                       None if variants is None else frozenset(variants))


@dataclass
class ModuleInfo:
    module_cls: type
    variants: tuple                               # Variant, each with its forward calls
    family: str = ""
    dtypes: frozenset = FLOATING
    tolerances: dict = field(default_factory=dict)        # eval: dtype -> (atol, rtol), reason beside it
    train_tolerances: dict = field(default_factory=dict)  # train: dtype -> (atol, rtol), reason beside it
    xfails: tuple = ()
    random_in_train: bool = False                 # may draw random numbers in train mode (dropout, RReLU, ...)
    name: str = ""                                # defaults to the class name

    def __post_init__(self):
        self.name = self.name or self.module_cls.__name__
        names = [v.name for v in self.variants]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate variant names {names}")
        for x in self.xfails:
            if x.test not in MODULE_TESTS or (x.variants and not x.variants <= set(names)):
                raise ValueError(f"{self.name}: xfail scoped to unknown test or variant: {x}")

    def tolerance(self, dtype) -> tuple:
        return self.tolerances.get(dtype, DEFAULT_TOLERANCES[dtype])

    def train_tolerance(self, dtype) -> tuple:
        return self.train_tolerances.get(dtype, TRAIN_TOLERANCES[dtype])

    def build(self, v: Variant, dtype) -> torch.nn.Module:
        """The module as a user builds it, its parameters and buffers cast to ``dtype``
        (seeded, so two builds are equal); ``T`` specs among the constructor's arguments (a loss's
        class weights) become tensors of ``dtype``."""
        gen = torch.Generator().manual_seed(1)
        mk = lambda x: x.make(gen, dtype) if isinstance(x, T) else x  # noqa: E731
        args, kwargs = pytree.tree_map(mk, (v.args, v.kwargs), is_leaf=lambda x: isinstance(x, T))
        torch.manual_seed(0)
        return self.module_cls(*args, **kwargs).to(dtype)

    def variants_for(self, test, dtype) -> tuple:
        """The variants a test runs under ``dtype`` (see FULL_DTYPE)."""
        return self.variants if dtype == FULL_DTYPE else self.variants[:1]

    def forwards(self, v: Variant, dtype) -> tuple:
        """The forward calls a test runs on the variant under ``dtype`` (see FULL_DTYPE)."""
        return v.forwards if dtype == FULL_DTYPE else v.forwards[:1]

    def xfail_for(self, test, variant_name, dtype) -> ModuleXFail | None:
        return next((x for x in self.xfails if x.applies(test, variant_name, dtype)), None)


def check_unique(db: list) -> list:
    names = [m.name for m in db]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"module_db: duplicate records {dupes}")
    return db
