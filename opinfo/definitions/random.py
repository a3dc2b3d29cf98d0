"""OpInfo entries: random-number ops.

With a generator given, values cannot equal eager's (primkit seeds its counter-based prims from it), so each
entry's op is a checker built around the random op: it draws from a freshly seeded torch.Generator and returns
  - the draw's support test, elementwise (a bool tensor with the draw's shape and strides, all True),
  - a 0-d bool: the sample mean (and, where given, variance) lies within the stated tolerance of the
    distribution's, computed in float64,
  - a 0-d bool: reseeding the generator reproduces the draw exactly.
The overloads that draw from the default generator (``default_generator``) return the first two: a graph holds no
seeding (trace refuses a reseed inside the traced function), and those that draw through the generator prims
(rand, randn, their _like forms, normal) give eager's numbers, which tests/test_random_training.py compares.
Eager and the traced prim graph must both return all True, and shapes and strides must agree.
Statistical tolerance: 6 standard errors of the mean (variance: 6 of the variance), so a correct
generator fails a check with probability below 1e-8 per sample.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput
from primkit.opinfo.samples import layouts, make
from primkit.opinfo.dtypes import FLOATING

N = 4096       # draws per moment check
SIGMAS = 6.0   # tolerance in standard errors


def _moments_ok(x, mean, var):
    """0-d bool: |sample mean - mean| and |sample variance - var| within SIGMAS standard errors."""
    x = x.to(torch.float64).flatten()
    n = x.numel()
    if n == 0:
        return x.new_ones((), dtype=torch.bool)
    m = x.mean()
    ok = (m - mean).abs() <= SIGMAS * math.sqrt(var / n)
    if var > 0:
        v = ((x - m) ** 2).mean()
        # standard error of the variance, bounded by the 4th moment of the distributions used here (<= 9 var**2)
        ok = ok & ((v - var).abs() <= SIGMAS * math.sqrt(9 * var * var / n))
    return ok


def checker(draw, support, mean=None, var=None, default_generator=False):
    """draw(generator, *tensors, **kwargs) -> tensor; support(x) -> bool tensor like x.
    ``default_generator``: draw passes no generator and draws once from the global one, not reseeded (a seed set
    inside a traced function is in no graph), so no reproducibility result."""
    def op(*args, device="cpu", seed=1234, **kwargs):
        if default_generator:
            x = draw(None, *args, device=device, **kwargs)
            results = [support(x)]
        else:
            gen = torch.Generator(device=device).manual_seed(seed)
            x = draw(gen, *args, device=device, **kwargs).clone()    # clone: in-place draws return their input
            gen.manual_seed(seed)
            again = draw(gen, *args, device=device, **kwargs)
            results = [support(x), torch.eq(x, again).all()]
        if mean is not None:
            results.append(_moments_ok(x, mean, var))
        return tuple(results)
    return op


def _shape_samples(shapes, **extra):
    def gen(op, device, dtype):
        for shape in shapes:
            yield SampleInput(shape, (), {"device": device, "dtype": dtype, **extra}, name=f"{shape}")
    return gen


def _tensor_samples(shape=(N,)):
    """The tensor a method draws into: contiguous, transposed, and an empty one."""
    def gen(op, device, dtype):
        yield SampleInput(torch.empty(shape, device=device, dtype=dtype), (), {"device": device}, name=f"{shape}")
        yield SampleInput(torch.empty(64, 64, device=device, dtype=dtype).t(), (), {"device": device},
                          name="transposed")
        yield SampleInput(torch.empty(0, 3, device=device, dtype=dtype), (), {"device": device}, name="empty")
    return gen


def _in(low, high, closed=False):
    return lambda x: (x >= low) & ((x <= high) if closed else (x < high))


def entry(name, op, aten, samples, dtypes=FLOATING, **kw):
    return OpInfo(name=name, op=op, aten=tuple(aten), sample_inputs=samples, dtypes=frozenset(dtypes),
                  family="random", supports_autograd=False, **kw)


SHAPES = ((N,), (64, 64), (0, 3), ())


def _buffer(size, dtype, device):
    return torch.empty(size, dtype=dtype, device=device)


# Not entered: rand.generator_out, randn.out and randn.generator_out are CompositeImplicitAutograd in eager and
# reach aten::resize_ (no decomposition) before primkit's registrations; random.from/random.from_out traced
# through make_fx fail in FX code generation (the argument name 'from' is a Python keyword).


def _variants():
    """(overload, generator? (None: the default one), draw, support, mean, var, samples, dtypes)."""
    return _continuous_variants() + _integer_variants() + _distribution_variants()


def _kinds():
    """What the rows share: the aten namespace, supports, sample makers and dtype sets."""
    a = torch.ops.aten
    unit, std = _in(0, 1, closed=True), torch.isfinite
    shapes, tensors, few = _shape_samples(SHAPES), _tensor_samples(), _shape_samples(((N,), (0, 3)))
    fl = FLOATING
    ints = frozenset({torch.int64})
    return a, unit, std, shapes, tensors, few, fl, ints


def _continuous_variants():
    """rand, randn and their _like forms: uniform on [0, 1) and standard normal."""
    a, unit, std, shapes, tensors, few, fl, ints = _kinds()
    return (
        ("rand", None, lambda g, s, dtype, device: a.rand.default(s, dtype=dtype, device=device), unit, .5, 1 / 12,
         shapes, fl),
        ("rand.out", None, lambda g, s, dtype, device: a.rand.out(s, out=_buffer(s, dtype, device)), unit, .5,
         1 / 12, few, fl),
        ("randn", None, lambda g, s, dtype, device: a.randn.default(s, dtype=dtype, device=device), std, 0., 1.,
         shapes, fl),
        ("rand_like", None, lambda g, t, device: a.rand_like.default(t), unit, .5, 1 / 12, tensors, fl),
        ("rand_like.out", None, lambda g, t, device: a.rand_like.out(t, out=torch.empty_like(t)), unit, .5, 1 / 12,
         tensors, fl),
        ("rand_like.generator_out", 1, lambda g, t, device: a.rand_like.generator_out(
            t, generator=g, out=torch.empty_like(t)), unit, .5, 1 / 12, tensors, fl),
        ("randn_like", None, lambda g, t, device: a.randn_like.default(t), std, 0., 1., tensors, fl),
        ("randn_like.out", None, lambda g, t, device: a.randn_like.out(t, out=torch.empty_like(t)), std, 0., 1.,
         tensors, fl),
        ("randn_like.generator_out", 1, lambda g, t, device: a.randn_like.generator_out(
            t, generator=g, out=torch.empty_like(t)), std, 0., 1., tensors, fl),
    )


def _integer_variants():
    """randint, randint_like and randperm."""
    a, unit, std, shapes, tensors, few, fl, ints = _kinds()
    return (
        ("randint", None, lambda g, s, dtype, device: a.randint.default(8, s, dtype=dtype, device=device), _in(0, 8),
         3.5, 63 / 12, shapes, ints),
        ("randint.generator", 1, lambda g, s, dtype, device: a.randint.generator(8, s, generator=g, dtype=dtype,
                                                                                 device=device),
         _in(0, 8), 3.5, 63 / 12, shapes, ints),
        ("randint.low", None, lambda g, s, dtype, device: a.randint.low(-3, 5, s, dtype=dtype, device=device),
         _in(-3, 5), .5, 63 / 12, shapes, ints),
        ("randint.out", None, lambda g, s, dtype, device: a.randint.out(8, s, out=_buffer(s, dtype, device)),
         _in(0, 8), 3.5, 63 / 12, few, ints),
        ("randint.generator_out", 1, lambda g, s, dtype, device: a.randint.generator_out(
            8, s, generator=g, out=_buffer(s, dtype, device)), _in(0, 8), 3.5, 63 / 12, few, ints),
        ("randint.low_out", None, lambda g, s, dtype, device: a.randint.low_out(-3, 5, s, out=_buffer(s, dtype, device)),
         _in(-3, 5), .5, 63 / 12, few, ints),
        ("randint.low_generator_out", 1, lambda g, s, dtype, device: a.randint.low_generator_out(
            -3, 5, s, generator=g, out=_buffer(s, dtype, device)), _in(-3, 5), .5, 63 / 12, few, ints),
        ("randint_like", None, lambda g, t, device: a.randint_like.default(t, 10), _in(0, 10), 4.5, 99 / 12, tensors,
         ints),
        ("randint_like.generator", 1, lambda g, t, device: a.randint_like.generator(t, 10, generator=g), _in(0, 10),
         4.5, 99 / 12, tensors, ints),
        ("randint_like.low_dtype", None, lambda g, t, device: a.randint_like.low_dtype(t, 2, 12), _in(2, 12), 6.5,
         99 / 12, tensors, ints),
        ("randint_like.Tensor", None, lambda g, t, device: a.randint_like.Tensor(t, torch.tensor(10, device=device)),
         _in(0, 10), 4.5, 99 / 12, tensors, ints),
        ("randint_like.Tensor_generator", 1, lambda g, t, device: a.randint_like.Tensor_generator(
            t, torch.tensor(10, device=device), generator=g), _in(0, 10), 4.5, 99 / 12, tensors, ints),
        ("randint_like.out", None, lambda g, t, device: a.randint_like.out(t, 10, out=torch.empty_like(t)),
         _in(0, 10), 4.5, 99 / 12, tensors, ints),
        ("randint_like.generator_out", 1, lambda g, t, device: a.randint_like.generator_out(
            t, 10, generator=g, out=torch.empty_like(t)), _in(0, 10), 4.5, 99 / 12, tensors, ints),
        ("randint_like.Tensor_out", None, lambda g, t, device: a.randint_like.Tensor_out(
            t, torch.tensor(10, device=device), out=torch.empty_like(t)), _in(0, 10), 4.5, 99 / 12, tensors, ints),
        ("randint_like.Tensor_generator_out", 1, lambda g, t, device: a.randint_like.Tensor_generator_out(
            t, torch.tensor(10, device=device), generator=g, out=torch.empty_like(t)), _in(0, 10), 4.5, 99 / 12,
         tensors, ints),
        ("randint_like.low_dtype_out", None, lambda g, t, device: a.randint_like.low_dtype_out(
            t, 2, 12, out=torch.empty_like(t)), _in(2, 12), 6.5, 99 / 12, tensors, ints),
        ("randint_like.low_generator_dtype_out", 1, lambda g, t, device: a.randint_like.low_generator_dtype_out(
            t, 2, 12, generator=g, out=torch.empty_like(t)), _in(2, 12), 6.5, 99 / 12, tensors, ints),
        ("randperm", None, lambda g, s, dtype, device: a.randperm.default(100, dtype=dtype, device=device),
         _is_perm, None, None, few, ints),
        ("randperm.out", None, lambda g, s, dtype, device: a.randperm.out(100, out=_buffer((100,), dtype, device)),
         _is_perm, None, None, few, ints),
        ("randperm.generator_out", 1, lambda g, s, dtype, device: a.randperm.generator_out(
            100, generator=g, out=_buffer((100,), dtype, device)), _is_perm, None, None, few, ints),
    )


def _distribution_variants():
    """The in-place distributions' overloads (uniform, normal, bernoulli, exponential, cauchy,
    log_normal, geometric, random), each drawn through an explicit generator."""
    a, unit, std, shapes, tensors, few, fl, ints = _kinds()
    return (
        ("uniform", 1, lambda g, t, device: a.uniform.default(t, -2., 3., generator=g), _in(-2, 3, closed=True), .5,
         25 / 12, tensors, fl),
        ("uniform.out", 1, lambda g, t, device: a.uniform.out(t, -2., 3., generator=g, out=torch.empty_like(t)),
         _in(-2, 3, closed=True), .5, 25 / 12, tensors, fl),
        ("normal.out", 1, lambda g, t, device: a.normal.out(t, 1., 2., generator=g, out=torch.empty_like(t)), std,
         1., 4., tensors, fl),
        ("normal.Tensor_float", 1, lambda g, t, device: a.normal.Tensor_float(torch.full_like(t, 2.), .5,
                                                                               generator=g), std, 2., .25, tensors, fl),
        ("normal.float_Tensor", 1, lambda g, t, device: a.normal.float_Tensor(2., torch.full_like(t, .5),
                                                                               generator=g), std, 2., .25, tensors, fl),
        ("normal.Tensor_float_out", 1, lambda g, t, device: a.normal.Tensor_float_out(
            torch.full_like(t, 2.), .5, generator=g, out=torch.empty_like(t)), std, 2., .25, tensors, fl),
        ("normal.float_Tensor_out", 1, lambda g, t, device: a.normal.float_Tensor_out(
            2., torch.full_like(t, .5), generator=g, out=torch.empty_like(t)), std, 2., .25, tensors, fl),
        ("normal.Tensor_Tensor_out", 1, lambda g, t, device: a.normal.Tensor_Tensor_out(
            torch.full_like(t, 2.), torch.full_like(t, .5), generator=g, out=torch.empty_like(t)), std, 2., .25,
         tensors, fl),
        ("normal.float_float_out", 1, lambda g, s, dtype, device: a.normal.float_float_out(
            -1., 3., s, generator=g, out=_buffer(s, dtype, device)), std, -1., 9., few, fl),
        ("bernoulli.p", 1, lambda g, t, device: a.bernoulli.p(t, .3, generator=g), _binary, .3, .21, tensors, fl),
        ("bernoulli.Tensor", 1, lambda g, t, device: a.bernoulli.Tensor(t, torch.full_like(t, .3), generator=g),
         _binary, .3, .21, tensors, fl),
        ("bernoulli.out", 1, lambda g, t, device: a.bernoulli.out(torch.full_like(t, .3), generator=g,
                                                                  out=torch.empty_like(t)), _binary, .3, .21, tensors,
         fl),
        ("bernoulli.float_out", 1, lambda g, t, device: a.bernoulli.float_out(t, .3, generator=g,
                                                                              out=torch.empty_like(t)),
         _binary, .3, .21, tensors, fl),
        ("bernoulli.Tensor_out", 1, lambda g, t, device: a.bernoulli.Tensor_out(
            t, torch.full_like(t, .3), generator=g, out=torch.empty_like(t)), _binary, .3, .21, tensors, fl),
        ("bernoulli_.Tensor", 1, lambda g, t, device: a.bernoulli_.Tensor(t, torch.full_like(t, .3), generator=g),
         _binary, .3, .21, tensors, fl),
        ("exponential", 1, lambda g, t, device: a.exponential.default(t, 2., generator=g), _nonneg, .5, .25, tensors,
         fl),
        ("exponential.out", 1, lambda g, t, device: a.exponential.out(t, 2., generator=g, out=torch.empty_like(t)),
         _nonneg, .5, .25, tensors, fl),
        ("cauchy", 1, lambda g, t, device: a.cauchy.default(t, 0., 1., generator=g), _not_nan, None, None, tensors,
         fl),
        ("cauchy.out", 1, lambda g, t, device: a.cauchy.out(t, 0., 1., generator=g, out=torch.empty_like(t)),
         _not_nan, None, None, tensors, fl),
        ("log_normal", 1, lambda g, t, device: a.log_normal.default(t, 0., .5, generator=g), _positive,
         math.exp(.125), (math.exp(.25) - 1) * math.exp(.25), tensors, F64),
        ("log_normal.out", 1, lambda g, t, device: a.log_normal.out(t, 0., .5, generator=g, out=torch.empty_like(t)),
         _positive, math.exp(.125), (math.exp(.25) - 1) * math.exp(.25), tensors, F64),
        ("geometric", 1, lambda g, t, device: a.geometric.default(t, .4, generator=g), _count, 2.5, .6 / .16,
         tensors, F64),
        ("geometric.out", 1, lambda g, t, device: a.geometric.out(t, .4, generator=g, out=torch.empty_like(t)),
         _count, 2.5, .6 / .16, tensors, F64),
        ("random", 1, lambda g, t, device: a.random.default(t, generator=g), _nonneg, None, None, tensors, ints),
        ("random.out", 1, lambda g, t, device: a.random.out(t, generator=g, out=torch.empty_like(t)), _nonneg, None,
         None, tensors, ints),
        ("random.to", 1, lambda g, t, device: a.random.to(t, 10, generator=g), _in(0, 10), 4.5, 99 / 12, tensors,
         ints),
        ("random.to_out", 1, lambda g, t, device: a.random.to_out(t, 10, generator=g, out=torch.empty_like(t)),
         _in(0, 10), 4.5, 99 / 12, tensors, ints),
        ("random_", 1, lambda g, t, device: a.random_.default(t, generator=g), _nonneg, None, None, tensors, ints),
    )


def _is_perm(x):
    return torch.sort(x).values == torch.arange(x.numel(), dtype=x.dtype, device=x.device)


def _binary(x):
    return (x == 0) | (x == 1)


def _nonneg(x):
    return (x >= 0) & (x == x)


def _positive(x):
    return x > 0


def _not_nan(x):
    return ~torch.isnan(x)


def _count(x):
    return (x >= 1) & (x == torch.round(x))


F64 = frozenset({torch.float32, torch.float64})
INTS = frozenset({torch.int64})

ENTRIES = [
    # rand rounds low + (high - low) * u to the dtype, which may give 1.0 in float16/bfloat16.
    entry("rand", checker(lambda g, size, dtype, device: torch.rand(size, generator=g, dtype=dtype, device=device),
                          _in(0, 1, closed=True), 0.5, 1 / 12),
          ("aten::rand.generator",), _shape_samples(SHAPES)),
    entry("randn", checker(lambda g, size, dtype, device: torch.randn(size, generator=g, dtype=dtype, device=device),
                           lambda x: torch.isfinite(x), 0.0, 1.0),
          ("aten::randn.generator",), _shape_samples(SHAPES)),
    entry("rand_like", checker(lambda g, t, device: torch.rand_like(t, generator=g), _in(0, 1, closed=True), 0.5,
                               1 / 12),
          ("aten::rand_like.generator",), _tensor_samples()),
    entry("randn_like", checker(lambda g, t, device: torch.randn_like(t, generator=g), torch.isfinite, 0.0, 1.0),
          ("aten::randn_like.generator",), _tensor_samples()),
    entry("randint", checker(lambda g, size, dtype, device: torch.randint(-3, 5, size, generator=g, dtype=dtype,
                                                                          device=device),
                             _in(-3, 5), 0.5, (8 * 8 - 1) / 12),
          ("aten::randint.low_generator",), _shape_samples(SHAPES), dtypes=INTS | {torch.float32}),
    entry("randint_like", checker(lambda g, t, device: torch.randint_like(t, 0, 10, generator=g), _in(0, 10), 4.5,
                                  99 / 12),
          ("aten::randint_like.low_generator_dtype",), _tensor_samples(), dtypes=INTS | {torch.float32}),
    entry("randperm", checker(lambda g, n, dtype, device: torch.randperm(n, generator=g, dtype=dtype, device=device),
                              lambda x: torch.sort(x).values == torch.arange(x.numel(), dtype=x.dtype,
                                                                             device=x.device)),
          ("aten::randperm.generator",),
          lambda op, device, dtype: (SampleInput(n, (), {"device": device, "dtype": dtype}, name=f"n={n}")
                                     for n in (0, 1, 10, 100)), dtypes=INTS),
    entry("Tensor.uniform_", checker(lambda g, t, device: t.uniform_(-2, 3, generator=g), _in(-2, 3, closed=True),
                                     0.5, 25 / 12),
          ("aten::uniform_",), _tensor_samples()),
    entry("Tensor.normal_", checker(lambda g, t, device: t.normal_(1.0, 2.0, generator=g), torch.isfinite, 1.0, 4.0),
          ("aten::normal_",), _tensor_samples()),
    entry("normal", checker(lambda g, mean, std, device: torch.normal(mean, std, generator=g), torch.isfinite,
                            2.0, 0.25),
          ("aten::normal.Tensor_Tensor",),
          lambda op, device, dtype: [SampleInput(torch.full((N,), 2.0, device=device, dtype=dtype),
                                                 (torch.full((N,), 0.5, device=device, dtype=dtype),),
                                                 {"device": device}, name="tensor mean and std")]),
    entry("normal.float_float", checker(lambda g, size, dtype, device: torch.normal(-1.0, 3.0, size, generator=g,
                                                                                    dtype=dtype, device=device),
                                        torch.isfinite, -1.0, 9.0),
          ("aten::normal.float_float",), _shape_samples(SHAPES)),
    entry("bernoulli", checker(lambda g, p, device: torch.bernoulli(p, generator=g), lambda x: (x == 0) | (x == 1),
                               0.3, 0.21),
          ("aten::bernoulli",), lambda op, device, dtype: [SampleInput(torch.full((N,), 0.3, device=device,
                                                                                  dtype=dtype), (),
                                                                       {"device": device}, name="p=0.3")]),
    entry("Tensor.bernoulli_", checker(lambda g, t, device: t.bernoulli_(0.7, generator=g),
                                       lambda x: (x == 0) | (x == 1), 0.7, 0.21),
          ("aten::bernoulli_.float",), _tensor_samples()),
    entry("Tensor.exponential_", checker(lambda g, t, device: t.exponential_(2.0, generator=g),
                                         lambda x: (x >= 0) & torch.isfinite(x), 0.5, 0.25),
          ("aten::exponential_",), _tensor_samples()),
    entry("Tensor.geometric_", checker(lambda g, t, device: t.geometric_(0.4, generator=g),
                                       lambda x: (x >= 1) & (x == torch.round(x)), 2.5, 0.6 / 0.16),
          ("aten::geometric_",), _tensor_samples(), dtypes=frozenset({torch.float32, torch.float64})),
    # Cauchy has no mean: only the support and reproducibility are checked.
    entry("Tensor.cauchy_", checker(lambda g, t, device: t.cauchy_(0.0, 1.0, generator=g), lambda x: ~torch.isnan(x)),
          ("aten::cauchy_",), _tensor_samples()),
    entry("Tensor.log_normal_", checker(lambda g, t, device: t.log_normal_(0.0, 0.5, generator=g),
                                        lambda x: x > 0, math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
          ("aten::log_normal_",), _tensor_samples(), dtypes=frozenset({torch.float32, torch.float64})),
    entry("Tensor.random_", checker(lambda g, t, device: t.random_(2, 12, generator=g), _in(2, 12), 6.5, 99 / 12),
          ("aten::random_.from",), _tensor_samples(), dtypes=INTS | {torch.float32, torch.float64}),
    entry("Tensor.random_.to", checker(lambda g, t, device: t.random_(10, generator=g), _in(0, 10), 4.5, 99 / 12),
          ("aten::random_.to",), _tensor_samples(), dtypes=INTS | {torch.float32}),
    # The other overloads, called through torch.ops.aten: default generator, out= (into a fresh buffer), functional.
    *(entry(f"aten.{name}", checker(draw, support, mean, var, default_generator=g is None), (f"aten::{name}",),
            samples, dtypes=d)
      for name, g, draw, support, mean, var, samples, d in _variants()),
]


# ----------------------------------------------------------------------------- training-mode random ops
# These draw from the default generator through the generator prims, so their values equal eager's under
# the same seed (seeded=True: test_trace_and_values seeds before eager and before the graph). Their
# gradients are compared under AOTAutograd in tests/test_random_training.py (the OpInfo gradient test runs
# eager per sample and the graph over all samples, so the draws would not line up).

def _train_samples(shapes, ps):
    def gen(op, device, dtype):
        for shape in shapes:
            for (name, t), p in zip(layouts(shape, device, dtype), ps * 3):
                yield SampleInput(t, (p,), name=f"{name} {shape} p={p}")
        yield SampleInput(make((0, 3, 2), device, dtype), (0.5,), name="empty p=0.5")
        yield SampleInput(make((3, 4), device, dtype), (1.0,), name="p=1")
        yield SampleInput(make((3, 4), device, dtype), (0.0,), name="p=0")
    return gen


def _p_errors(error_type=RuntimeError, match="dropout probability has to be between 0 and 1"):
    """p outside [0, 1]: torch.nn.functional's wrappers raise ValueError before ATen, ATen a RuntimeError
    (native_dropout through its bernoulli_(1 - p))."""
    def gen(op, device):
        x = torch.ones(3, 4, device=device)
        yield ErrorInput(SampleInput(x, (1.5,), name="p > 1"), error_type, match)
        yield ErrorInput(SampleInput(x, (-0.5,), name="p < 0"), error_type, match)
    return gen


def _feature_errors(op, device):
    yield from _p_errors()(op, device)
    yield ErrorInput(SampleInput(torch.ones(5, device=device), (0.5,), name="1-d input"), RuntimeError,
                     "Feature dropout requires at least 2 dimensions")


def _rrelu_samples(op, device, dtype):
    for shape in ((7,), (4, 5), (2, 3, 4, 5)):
        for name, t in layouts(shape, device, dtype, low=-2, high=2):
            yield SampleInput(t, (0.1, 0.3), name=f"{name} {shape}")
    x = torch.tensor([-1.0, 0.0, float("nan"), float("-inf"), 2.0, -0.0], device=device, dtype=dtype)
    yield SampleInput(x, (0.25, 0.25), name="extremal, lower == upper")
    yield SampleInput(make((0, 3), device, dtype), (0.125, 1 / 3), name="empty")


def _rrelu_errors(op, device):
    yield ErrorInput(SampleInput(torch.ones(3, device=device), (0.5, 0.25), name="lower > upper"), RuntimeError,
                     "Lower bound should be less than or equal to the upper bound")


def _attention_samples(op, device, dtype):
    for shape in ((2, 3, 5, 4), (3, 6, 8), (1, 2, 1, 3)):
        q, k, v = (make(shape, device, dtype) for _ in range(3))
        yield SampleInput(q, (k, v, 0.3), name=f"{shape} p=0.3")
    q, k = (make((2, 5, 3, 4), device, dtype).transpose(1, 2) for _ in range(2))
    yield SampleInput(q, (k, make((2, 3, 5, 4), device, dtype), 0.5), name="transposed q, k p=0.5")


def _multinomial_samples(op, device, dtype):
    for shape in ((7,), (4, 9), (3, 1)):
        for name, p in layouts(shape, device, dtype, low=0, high=2):
            for n, replacement in ((1, False), (shape[-1], False), (1, True), (12, True)):
                yield SampleInput(p, (n, replacement), name=f"{name} {shape} n={n} replacement={replacement}")
    p = torch.tensor([[0.0, 1.0, 0.0, 3.0], [2.0, 0.0, 0.0, 0.0]], device=device, dtype=dtype)
    # (without replacement, no more samples than a row's non-zero categories: beyond them eager's topk picks
    # among equal zeros in an order it does not specify)
    yield SampleInput(p, (1, False), name="zero probabilities, without replacement")
    yield SampleInput(p, (30, True), name="zero probabilities, with replacement")


def _multinomial_errors(op, device):
    p = torch.ones(2, 3, device=device)
    yield ErrorInput(SampleInput(p, (0, True), name="no samples"), RuntimeError, "cannot sample n_sample <= 0")
    yield ErrorInput(SampleInput(p, (4, False), name="more samples than categories"), RuntimeError,
                     "cannot sample n_sample > prob_dist.size")
    yield ErrorInput(SampleInput(torch.ones(2, 2, 2, device=device), (1, True), name="3-d"), RuntimeError,
                     "prob_dist must be 1 or 2 dim")


def _factory_samples(op, device, dtype):
    """Sizes below 16 elements and from 16 on (torch's CPU normal_ draws one per element below, by blocks from)."""
    for shape in ((), (0, 3), (5,), (20,), (4, 6), (2, 3, 4, 5)):
        yield SampleInput(shape, (), {"dtype": dtype, "device": device}, name=f"{shape}")


def _like_samples(*args):
    def gen(op, device, dtype):
        for shape in ((), (0, 3), (5,), (4, 6), (2, 3, 4, 5)):
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, args, name=f"{name} {shape}")
    return gen


def _normal_samples(op, device, dtype):
    """normal's overloads: (Tensor, Tensor) broadcast, (Tensor, float), (float, Tensor)."""
    mean, std = make((4, 1), device, dtype), make((4, 6), device, dtype, low=0, high=2)
    yield SampleInput(mean, (std,), name="tensor mean (4, 1), tensor std (4, 6)")
    yield SampleInput(make((5, 6), device, dtype).t(), (2.5,), name="transposed tensor mean, float std")
    yield SampleInput(1.5, (make((3,), device, dtype, low=0, high=2),), name="float mean, tensor std (3,)")
    yield SampleInput(1.5, (std,), name="float mean, tensor std (4, 6)")


def _fractional_pool_drawn(n):
    """F.fractional_max_poolNd drawing its samples (torch.rand in F: uniform_p), with and without indices."""
    pool = getattr(F, f"fractional_max_pool{n}d")
    cases = {2: (((2, 3, 7, 6), 2, {"output_size": 3}), ((3, 9, 7), 2, {"output_ratio": (0.5, 0.5)})),
             3: (((2, 3, 5, 6, 7), 2, {"output_size": 3}), ((3, 7, 6, 5), (2, 3, 2), {"output_size": (5, 3, 2)}))}[n]

    def gen(op, device, dtype):
        for shape, k, kwargs in cases:
            for name, t in layouts(shape, device, dtype):
                yield SampleInput(t, (k,), {**kwargs, "return_indices": True}, name=f"{name} {shape} k={k} {kwargs}")
    return lambda x, k, **kwargs: pool(x, k, **kwargs), gen


def _seeded_entry(name, op, aten, samples, errors, dtypes=FLOATING, **kw):
    return entry(name, op, aten, samples, dtypes, error_inputs=errors, seeded=True, **kw)


TRAINING_DROPOUT_SHAPES = ((7,), (4, 5), (2, 3, 4, 5), (2, 3, 4, 5, 2))
FEATURE_SHAPES = ((4, 5), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 2))

ENTRIES += [
    _seeded_entry("nn.functional.dropout.train", lambda x, p: F.dropout(x, p, training=True), ("aten::dropout",),
                  _train_samples(TRAINING_DROPOUT_SHAPES, (0.3, 0.7)), _p_errors(ValueError)),
    _seeded_entry("nn.functional.feature_dropout.train", lambda x, p: torch.feature_dropout(x, p, True),
                  ("aten::feature_dropout",), _train_samples(FEATURE_SHAPES, (0.5, 0.2)), _feature_errors),
    _seeded_entry("nn.functional.alpha_dropout.train", lambda x, p: F.alpha_dropout(x, p, training=True),
                  ("aten::alpha_dropout",), _train_samples(TRAINING_DROPOUT_SHAPES, (0.3, 0.6)),
                  _p_errors(ValueError)),
    _seeded_entry("nn.functional.feature_alpha_dropout.train",
                  lambda x, p: torch.feature_alpha_dropout(x, p, True), ("aten::feature_alpha_dropout",),
                  _train_samples(FEATURE_SHAPES, (0.3, 0.6)), _feature_errors),
    _seeded_entry("native_dropout.train", lambda x, p: torch.native_dropout(x, p, True), ("aten::native_dropout",),
                  _train_samples(TRAINING_DROPOUT_SHAPES, (0.25, 0.75)), _p_errors(match="bernoulli_ expects p to be in")),
    # eager's CPU rrelu has no float16 kernel
    _seeded_entry("nn.functional.rrelu.train", lambda x, lo, hi: F.rrelu(x, lo, hi, training=True),
                  ("aten::rrelu", "aten::rrelu_with_noise"), _rrelu_samples, _rrelu_errors,
                  dtypes=FLOATING - {torch.float16}),
    # rand, randn, their _like forms, uniform_, normal_ and normal draw through uniform_p / normal_p
    _seeded_entry("rand.default_generator", lambda size, dtype, device: torch.rand(size, dtype=dtype, device=device),
                  ("aten::rand",), _factory_samples, None),
    _seeded_entry("randn.default_generator", lambda size, dtype, device: torch.randn(size, dtype=dtype, device=device),
                  ("aten::randn",), _factory_samples, None),
    _seeded_entry("normal.float_float.default_generator",
                  lambda size, dtype, device: torch.normal(-1.0, 3.0, size, dtype=dtype, device=device),
                  ("aten::normal.float_float",), _factory_samples, None),
    _seeded_entry("rand_like.default_generator", torch.rand_like, ("aten::rand_like",), _like_samples(), None),
    _seeded_entry("randn_like.default_generator", torch.randn_like, ("aten::randn_like",), _like_samples(), None),
    _seeded_entry("Tensor.uniform_.default_generator", lambda t, lo, hi: t.clone().uniform_(lo, hi),
                  ("aten::uniform_",), _like_samples(-2.0, 3.0), None),
    # (clone: a dense tensor; normal_ into a tensor neither contiguous nor dense draws otherwise: docs/random.md)
    _seeded_entry("Tensor.normal_.default_generator", lambda t, mean, std: t.clone().normal_(mean, std),
                  ("aten::normal_",), _like_samples(1.0, 2.0), None),
    _seeded_entry("normal.default_generator", lambda mean, std: torch.normal(mean, std),
                  ("aten::normal.Tensor_Tensor", "aten::normal.Tensor_float", "aten::normal.float_Tensor"),
                  _normal_samples, None),
    *(_seeded_entry(f"nn.functional.fractional_max_pool{n}d.drawn", _fractional_pool_drawn(n)[0],
                    (f"aten::fractional_max_pool{n}d",), _fractional_pool_drawn(n)[1], None,
                    dtypes=frozenset({torch.float32, torch.float64}))
      for n in (2, 3)),
    _seeded_entry("aten.bernoulli.p.default_generator", lambda x, p: torch.bernoulli(x, p), ("aten::bernoulli.p",),
                  _train_samples(TRAINING_DROPOUT_SHAPES, (0.3, 0.9)), None),
    # Eager's float32 cumulative sums round each step, the cumsum prim's reference accumulates in float64: a
    # sample can move to a neighbouring category with probability about 2^-24 (none does in these samples)
    _seeded_entry("multinomial", lambda p, n, replacement: torch.multinomial(p, n, replacement),
                  ("aten::multinomial",), _multinomial_samples, _multinomial_errors),
    _seeded_entry("nn.functional.scaled_dot_product_attention.dropout",
                  lambda q, k, v, p: F.scaled_dot_product_attention(q, k, v, dropout_p=p),
                  ("aten::scaled_dot_product_attention",), _attention_samples, None,
                  dtypes=frozenset({torch.float32, torch.float64}),
                  # eager's math kernel scales q and k by sqrt(scale) before their matmul and primkit scales
                  # the scores after it; the kept weights, scaled by 1 / (1 - p), carry that difference
                  # (up to about 2e-5 on outputs of magnitude 3 in float32); the mask itself is exact
                  tolerances={torch.float32: (5e-5, 1e-5)}),
]
