"""Decompositions of the random-number ops (rand, randn, randint, randperm, uniform_, normal,
bernoulli, exponential_, cauchy_, log_normal_, geometric_, random_, multinomial) into the random prims of
prims/catalog/random.yaml.

Generator prims (tag stateful): with no generator= given, rand, rand_like, uniform_ (uniform_p), randn, randn_like,
normal_ and normal (normal_p), bernoulli with a float p (bernoulli_p, what dropout reaches under AOTAutograd) and
multinomial (exponential_p, masked_uniform) read and advance the device's default generator at run time as eager's
kernels do, so the graph draws eager's numbers (docs/random.md).

Counter-based prims, for the rest (and for those ops with a generator= given): each decomposition call draws one
fresh 62-bit seed from the torch generator it is given (or the default generator of its device), outside any
tracing mode, and passes it with offset 0 to the prims. So torch.manual_seed(s) (or generator.manual_seed(s))
before tracing or running makes the draws reproducible, and two calls draw different streams; a traced graph holds
its seeds as constants, so it replays the same numbers on every run (a functional random graph). Their values
never equal eager's: tests check the support, the shape, dtype and strides, reproducibility under a reseeded
generator, and the moments within a statistical tolerance.
"""
from __future__ import annotations

import math
import weakref

import torch
from torch.utils._python_dispatch import _disable_current_modes

from primkit.decompositions.common import (
    P, aten, broadcast_shapes, out_names, prepare, register_inplace, register_out, to_dtype)
from primkit.decompositions.registry import register
from primkit.decompositions.layout import in_layout
from primkit.prims import dtypes as dt
from primkit.prims.layout import contiguous_strides, is_non_overlapping_and_dense

SEED_BOUND = 1 << 62


def _seed(generator, device):
    """A fresh seed drawn from the torch generator (real, whatever mode is tracing)."""
    device = torch.device(device)
    with _disable_current_modes():
        if generator is None:
            generator = torch.default_generator if device.type == "cpu" else None
        gen_device = generator.device if generator is not None else device
        draw = torch.randint(0, SEED_BOUND, (), generator=generator, device=gen_device, dtype=torch.int64)
        return int(draw.item())


_DRAWS = weakref.WeakKeyDictionary()    # proxy mode of a trace -> the number of generator-prim draws made in it


def draw_number() -> int:
    """The next number for a generator prim's ``draw`` argument: 0, 1, ... per make_fx / AOTAutograd trace
    (its proxy mode), 0 outside a trace. No computation reads it; it keeps equal draws apart (see random.yaml)."""
    from torch.fx.experimental.proxy_tensor import get_proxy_mode

    mode = get_proxy_mode()
    if mode is None:
        return 0
    n = _DRAWS.get(mode, 0)
    _DRAWS[mode] = n + 1
    return n


class SeedWatch:
    """While ``trace`` runs a program: a generator prim's draw after the program reseeded torch's generator raises.

    A graph holds no seeding: torch.manual_seed (torch.seed, set_rng_state, fork_rng, torch's OpInfo
    wrapper_set_seed) inside the traced function runs once, at trace time, and the graph's generator prims draw
    from the caller's generator at run time, so its numbers would not be eager's. manual_seed records its seed
    (torch.initial_seed), which the watch compares with the one the trace began with. ``finish`` warns when the
    seed changed but nothing drew after it (the graph leaves the generator elsewhere than eager does). Not seen:
    a reseed with the seed the caller set last."""

    _active: list = []

    def __init__(self, name):
        self.name, self.seed = name, torch.initial_seed()

    def __enter__(self):
        SeedWatch._active.append(self)
        return self

    def __exit__(self, *exc):
        SeedWatch._active.remove(self)

    def _message(self, now, what):
        return (f"trace({self.name}): the traced function reseeds torch's default generator (its seed went from "
                f"{self.seed} to {now}: torch.manual_seed, torch.seed or set_rng_state{what}); a graph holds no seeding, "
                f"it runs once at trace time")

    def check(self, prim):
        now = torch.initial_seed()
        if now != self.seed:
            from primkit.decompositions.registry import DecompositionError
            raise DecompositionError(["torch.manual_seed"], self._message(now, f", then primkit.{prim} drew") +
                                     ", and the graph's draws come from the caller's generator at run time, not "
                                     "eager's; seed before calling the graph instead. ",
                                     "inside the traced function cannot be traced")

    def finish(self):
        now = torch.initial_seed()
        if now != self.seed:
            import warnings
            warnings.warn(self._message(now, "") + ": after the graph runs, the generator is not where eager leaves "
                          "it; seed before calling the graph instead", stacklevel=3)


def generator_draw(prim, *args, **kwargs):
    """prim(*args, **kwargs, draw=n) for a generator prim, numbered as the next draw of the trace."""
    for watch in SeedWatch._active:
        watch.check(getattr(prim, "__name__", prim))
    return prim(*args, **kwargs, draw=draw_number())


def bernoulli_noise(like, p, dtype):
    """What eager's empty_like(like, dtype=dtype).bernoulli_(p) holds: 1 with probability p, drawn at run
    time from the device's default generator in the order torch's kernel draws for that layout."""
    return generator_draw(P.bernoulli_p, like, float(p), dtype=dtype)


def masked_uniform(mask, low, high):
    """masked_uniform's draws (see random.yaml), numbered as one draw of the trace."""
    return generator_draw(P.masked_uniform, mask, float(low), float(high))


def _factory_dtype(dtype):
    return dtype if dtype is not None else torch.get_default_dtype()


def _check_float(name, dtype):
    if dtype not in dt.FLOAT:
        raise RuntimeError(f"{name}: expected a floating-point dtype, got {dt.short(dtype)}")


def _like_layout(t, like):
    """Eager's empty_like(preserve_format): like's strides when it is dense, else contiguous."""
    if is_non_overlapping_and_dense(like.shape, like.stride()):
        return in_layout(t, like.stride())
    return in_layout(t, contiguous_strides(t.shape))


def _uniform(shape, low, high, dtype, device, generator):
    _check_float("uniform", dtype)
    return P.uniform(list(shape), float(low), float(high), _seed(generator, device), 0, dtype=dtype, device=device)


def _normal(shape, mean, std, dtype, device, generator):
    _check_float("normal", dtype)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return P.normal(list(shape), float(mean), float(std), _seed(generator, device), 0, dtype=dtype, device=device)


def _device(device):
    return torch.device(device if device is not None else "cpu")


def _fresh(shape, dtype, device):
    """An uninitialized contiguous tensor for a factory's draws to be shaped after (eager: empty, then the draw)."""
    return P.empty_strided(list(shape), contiguous_strides(shape), dtype=dtype, device=torch.device(device))


def uniform_noise(like, low, high, dtype, generator=None):
    """What eager's empty_like(like, dtype=dtype).uniform_(low, high) holds: through uniform_p, which draws from the
    device's default generator at run time as eager does; with a generator given, the counter-based uniform prim
    (seeded from it at trace time) in empty_like's layout."""
    _check_float("uniform", dtype)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    if generator is None:
        return generator_draw(P.uniform_p, like, float(low), float(high), dtype=dtype)
    return _like_layout(_uniform(like.shape, low, high, dtype, like.device, generator), like)


def normal_noise(like, mean, std, dtype, generator=None):
    """What eager's empty_like(like, dtype=dtype).normal_(mean, std) holds (normal_p; counter-based with a generator)."""
    _check_float("normal", dtype)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if generator is None:
        return generator_draw(P.normal_p, like, float(mean), float(std), dtype=dtype)
    return _like_layout(_normal(like.shape, mean, std, dtype, like.device, generator), like)


# ----------------------------------------------------------------------------- factories


def rand(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    dtype = _factory_dtype(dtype)
    _check_float("uniform", dtype)
    return uniform_noise(_fresh(size, dtype, _device(device)), 0.0, 1.0, dtype, generator)


def randn(size, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    dtype = _factory_dtype(dtype)
    _check_float("normal", dtype)
    return normal_noise(_fresh(size, dtype, _device(device)), 0.0, 1.0, dtype, generator)


def _like(noise):
    """rand_like / randn_like: eager's empty_like(a, dtype=dtype) (a's layout where dense), then the draw."""
    def like(a, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        dtype = dtype or a.dtype
        if device is not None and torch.device(device) != a.device:
            a = _like_layout(_fresh(a.shape, dtype, device), a)
        return noise(a, 0.0, 1.0, dtype, generator)
    return like


def _register_factory(name, fn):
    packet = getattr(aten, name)
    for overload in packet.overloads():
        if "names" in overload:
            continue     # named tensors: not supported by primkit
        if overload.endswith("out"):
            register_out(getattr(packet, overload), fn, name, factory=True)
        else:
            register(getattr(packet, overload))(fn)


def _register_like(name, fn):
    packet = getattr(aten, name)
    for overload in packet.overloads():
        if overload.endswith("out"):
            register_out(getattr(packet, overload), fn, name, factory=True)
        else:
            register(getattr(packet, overload))(fn)


rand_like = _like(uniform_noise)
randn_like = _like(normal_noise)
_register_factory("rand", rand)
_register_factory("randn", randn)
_register_like("rand_like", rand_like)
_register_like("randn_like", randn_like)


def _randint(low, high, shape, dtype, device, generator):
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    if dtype in dt.FLOAT:
        # a float result: integers drawn as int64, then converted (exact below 2**24 / 2**53)
        return P.convert_element_type(_randint(low, high, shape, torch.int64, device, generator), dtype)
    if dtype == torch.bool:
        return P.convert_element_type(_randint(low, high, shape, torch.int64, device, generator), dtype)
    return P.randint(list(shape), int(low), int(high), _seed(generator, device), 0, dtype=dtype, device=device)


def randint(*args, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """randint(high, size) or randint(low, high, size)."""
    low, high, size = (0, *args) if len(args) == 2 else args
    return _randint(low, high, size, dtype or torch.int64, _device(device), generator)


def randint_like(a, *args, generator=None, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
    low, high = (0, *args) if len(args) == 1 else args
    dtype, device = dtype or a.dtype, device or a.device
    if isinstance(high, torch.Tensor):
        out = _randint_below(high, a.shape, dtype, device, generator)
    else:
        out = _randint(low, high, a.shape, dtype, device, generator)
    return _like_layout(out, a)


def _randint_below(high, shape, dtype, device, generator):
    """Integers in [0, high) for a 0-d tensor high (not read on the host): floor(u * high) for u a float64
    uniform in [0, 1) (exact for high <= 2 ** 53; the bias is below high / 2 ** 53)."""
    if high.dim() != 0:
        raise RuntimeError(f"randint_like: high must be a 0-d tensor, got shape {list(high.shape)}")
    u = _uniform(shape, 0.0, 1.0, torch.float64, device, generator)
    h = prepare(high, torch.float64, u.shape, u.device)
    return P.convert_element_type(P.floor(P.mul(u, h)), dtype)


_register_factory("randint", randint)
_register_like("randint_like", randint_like)


def randperm(n, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    dtype = dtype or torch.int64
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    device = _device(device)
    if dtype in dt.INT:
        return P.randperm(n, _seed(generator, device), 0, dtype=dtype, device=device)
    return P.convert_element_type(P.randperm(n, _seed(generator, device), 0, dtype=torch.int64, device=device), dtype)


_register_factory("randperm", randperm)


# ----------------------------------------------------------------------------- tensor methods
# Each functional form returns a fresh tensor shaped like self; the in-place form copies it in.


def uniform(a, low=0.0, high=1.0, *, generator=None):
    return uniform_noise(a, low, high, a.dtype, generator)


def normal_tensor(a, mean=0.0, std=1.0, *, generator=None):
    return normal_noise(a, mean, std, a.dtype, generator)


def exponential(a, lambd=1.0, *, generator=None):
    _check_float("exponential", a.dtype)
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    x = P.exponential(list(a.shape), float(lambd), _seed(generator, a.device), 0, dtype=a.dtype, device=a.device)
    return _like_layout(x, a)


def _from_uniform(a, generator, inverse_cdf):
    """inverse_cdf(u) in float64 for u uniform in [0, 1), rounded to a's dtype."""
    u = _uniform(a.shape, 0.0, 1.0, torch.float64, a.device, generator)
    return _like_layout(to_dtype(inverse_cdf(u, lambda v: prepare(v, torch.float64, u.shape, u.device)), a.dtype), a)


def cauchy(a, median=0.0, sigma=1.0, *, generator=None):
    _check_float("cauchy", a.dtype)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    return _from_uniform(a, generator, lambda u, c: P.add(c(median), P.mul(c(sigma), P.tan(
        P.mul(c(math.pi), P.sub(u, c(0.5)))))))


def log_normal(a, mean=1.0, std=2.0, *, generator=None):
    _check_float("log_normal", a.dtype)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    return _like_layout(to_dtype(P.exp(_normal(a.shape, mean, std, torch.float64, a.device, generator)), a.dtype), a)


def geometric(a, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    # the number of trials to the first success: ceil(log(1 - u) / log(1 - p)), at least 1
    return _from_uniform(a, generator, lambda u, c: P.maximum(P.ceil(P.div(P.log1p(P.neg(u)), c(math.log1p(-p)))),
                                                              c(1.0)))


def _random_range(dtype):
    """random_()'s default range: [0, 2**mantissa] for floats, [0, max] for integers."""
    if dtype in dt.FLOAT:
        return 0, (1 << {torch.float16: 11, torch.bfloat16: 8, torch.float32: 24, torch.float64: 53}[dtype]) + 1
    if dtype == torch.bool:
        return 0, 2
    return 0, torch.iinfo(dtype).max + (0 if dtype == torch.int64 else 1)


def random(a, *args, generator=None):
    """random(), random(to) or random(from, to): uniform integers in [from, to)."""
    if len(args) == 0:
        low, high = _random_range(a.dtype)
    elif len(args) == 1:
        low, high = 0, args[0]
    else:
        low, high = args
        if high is None:
            high = _random_range(a.dtype)[1]
    return _like_layout(_randint(low, high, a.shape, a.dtype, a.device, generator), a)


def bernoulli(a, p=None, *, generator=None):
    """bernoulli(self) draws with probabilities self; bernoulli(self, p) with p (a float or a tensor)."""
    probs = a if p is None else p
    if isinstance(probs, torch.Tensor):
        _check_float("bernoulli", probs.dtype)
        probs = prepare(probs, probs.dtype, a.shape, a.device)
    else:
        if not 0 <= probs <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={probs}")
        if generator is None:   # eager's bernoulli.p: empty_like(self, contiguous).bernoulli_(p)
            return bernoulli_noise(in_layout(a, contiguous_strides(a.shape)), probs, a.dtype)
        probs = prepare(probs, torch.float64, a.shape, a.device)
        draw = P.bernoulli(probs, _seed(generator, a.device), 0)
        return in_layout(P.convert_element_type(draw, a.dtype), contiguous_strides(a.shape))  # eager: contiguous
    draw = P.bernoulli(probs, _seed(generator, a.device), 0)
    return _like_layout(P.convert_element_type(draw, a.dtype), a)


def _register_method(name, fn, inplace_name=None, own=()):
    """Registers fn for the functional and out= overloads of name and its in-place form for name_, but for
    the overloads in ``own`` (registered by their own function)."""
    packet = getattr(aten, name, None)
    if packet is not None:
        for overload in packet.overloads():
            op = getattr(packet, overload)
            if out_names(op):
                register_out(op, fn, name)
            else:
                register(op)(fn)
    inplace = getattr(aten, inplace_name or name + "_")
    for overload in inplace.overloads():
        if getattr(inplace, overload) not in own:
            register_inplace(getattr(inplace, overload), fn, f"{name}_")


for _name, _fn in (("uniform", uniform), ("exponential", exponential), ("cauchy", cauchy),
                   ("log_normal", log_normal), ("geometric", geometric), ("random", random),
                   ("bernoulli", bernoulli)):
    _register_method(_name, _fn, own=(aten.bernoulli_.float,))


def _bernoulli_float_(a, p=0.5, *, generator=None):
    """self.bernoulli_(p): the draws land in self's own memory order (a dense layout in self's dim order)."""
    if generator is not None or not 0 <= p <= 1:
        return P.copy_to(a, bernoulli(a, p, generator=generator))
    return P.copy_to(a, bernoulli_noise(a, p, a.dtype))


register(aten.bernoulli_.float)(_bernoulli_float_)


# ----------------------------------------------------------------------------- normal's overloads


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    """normal(Tensor mean, float std), (float mean, Tensor std), (Tensor, Tensor), (float, float, size)."""
    if size is not None:
        dtype = _factory_dtype(dtype)
        _check_float("normal", dtype)
        return normal_noise(_fresh(size, dtype, _device(device)), mean, std, dtype, generator)
    tensors = [t for t in (mean, std) if isinstance(t, torch.Tensor)]
    if isinstance(std, torch.Tensor) and std.numel() > 0:
        pass    # eager checks std >= 0 on the data (a host sync); primkit does not
    elif not isinstance(std, torch.Tensor) and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    dtype = torch.promote_types(tensors[0].dtype, tensors[-1].dtype)
    _check_float("normal", dtype)
    shape = broadcast_shapes(*(t.shape for t in tensors))
    device = tensors[0].device
    # eager: a contiguous output drawn with normal_(0, std) then mean added (a float std), or normal_(0, 1), times
    # std, plus mean
    # the draws are shaped after a tensor operand (contiguous, eager's output layout), not a fresh tensor, so that
    # AOTAutograd's partitioners keep them in the forward graph (see generator_draw)
    like = in_layout(prepare(tensors[0], tensors[0].dtype, shape, device), contiguous_strides(shape))
    scalar_std = not isinstance(std, torch.Tensor)
    z = normal_noise(like, 0.0, std if scalar_std else 1.0, dtype, generator)
    if not scalar_std:
        z = P.mul(z, prepare(std, dtype, shape, device))
    return P.add(z, prepare(mean, dtype, shape, device))


for _overload in aten.normal.overloads():
    _op = getattr(aten.normal, _overload)
    if _overload == "out":
        register_out(_op, normal_tensor, "normal")
    elif _overload.endswith("out"):
        register_out(_op, normal, "normal", factory=_overload == "float_float_out")   # (mean, std, size): a factory
    elif _overload != "names":
        register(_op)(normal)
register_inplace(aten.normal_.default, normal_tensor, "normal_")
register(aten.normal_functional.default)(normal_tensor)   # normal_ as functionalization writes it


# ----------------------------------------------------------------------------- multinomial


def _multinomial_checks(probs, n, replacement):
    if probs.dim() not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got a {probs.dim()}-D input")
    if probs.dtype not in dt.FLOAT:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {dt.short(probs.dtype)}")
    if n <= 0:
        raise RuntimeError(f"multinomial: cannot sample n_sample <= 0 samples, got num_samples={n}")
    if not replacement and n > probs.shape[-1]:
        raise RuntimeError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement, "
                           f"got num_samples={n} for {probs.shape[-1]} categories")
    if probs.shape[-1] > 1 << 24:
        raise RuntimeError(f"multinomial: number of categories cannot exceed 2^24, got {probs.shape[-1]}")


def _float32_above(u):
    """The least float32 >= u, for float64 u: for a float32 c, c < u exactly when c < that float32 (none lies
    between them), so the search runs on the float32 sums without widening them."""
    r = P.convert_element_type(u, torch.float32)
    up = P.nextafter(r, P.broadcast_in_dim(P.scalar_tensor(math.inf, dtype=torch.float32, device=u.device),
                                           list(u.shape), []))
    return P.where(P.lt(P.convert_element_type(r, torch.float64), u), up, r)


def multinomial(probs, num_samples, replacement=False, *, generator=None):
    """Eager's CPU algorithm, drawing what it draws from the default generator. Eager also checks on the
    host that probs are finite, non-negative and not all zero (a data-dependent error); primkit does not.

    Without replacement (or one sample): argmax / top-k of probs / q for q = empty_like(probs).exponential_(1).
    With replacement: per distribution, cumulative sums in the accumulation dtype normalized by their last
    value (set to 1), and for each sample one double uniform u, the sample being the first k with
    cum[k] >= u (the count of cum[k] < u), as the kernel's binary search finds it. The kernel sums float32
    (and float16 / bfloat16, in float32) sequentially, rounding each step, while the cumsum prim's reference
    accumulates in float64: a cumulative value may differ by an ulp, which moves a sample only when its u
    falls between the two roundings (probability about 2^-24 per sample); float64 is exact."""
    if generator is not None:
        raise RuntimeError("multinomial: generator= is not supported by primkit: its generator prims draw from the "
                           "device's default generator (pass generator=None)")
    _check_float("multinomial", probs.dtype)
    _multinomial_checks(probs, num_samples, replacement)
    if not replacement or num_samples == 1:
        q = aten.div.Tensor(probs, generator_draw(P.exponential_p, probs, 1.0, dtype=probs.dtype))
        if num_samples == 1:
            out = aten.argmax.default(q, -1, True)
        else:
            out = aten.topk.default(q, num_samples)[1]
        return in_layout(out, contiguous_strides(out.shape))
    k = probs.shape[-1]
    rows = probs if probs.dim() == 2 else P.reshape(probs, [1, k])
    acc = torch.float64 if probs.dtype == torch.float64 else torch.float32   # the kernel's sum type
    cum = aten.cumsum.default(to_dtype(rows, acc), 1)
    d = rows.shape[0]
    # each row's last sum, gathered: a slice is a view, whose reference kernel copies all of cum's storage
    last = P.broadcast_in_dim(P.scalar_tensor(k - 1, dtype=torch.int64, device=probs.device), [d, 1], [])
    cum = aten.div.Tensor(cum, P.gather(cum, 1, last))
    everywhere = P.broadcast_in_dim(P.scalar_tensor(True, dtype=torch.bool, device=probs.device), [d, num_samples], [])
    u = masked_uniform(everywhere, 0.0, 1.0)      # one double per (distribution, sample), row-major
    if acc == torch.float32:
        u = _float32_above(u)
    # the kernel's binary search: the count of cum[j] < u, the left insertion point of u in the row (never k:
    # the last sum is 1 > u)
    out = P.searchsorted(cum, u, False)
    return out if probs.dim() == 2 else P.reshape(out, [num_samples])


register(aten.multinomial.default)(multinomial)
register_out(aten.multinomial.out, multinomial, "multinomial")
