"""Samples and constraint error inputs of the random prims (uniform, normal, bernoulli, random_bits,
randint, exponential, randperm; the generator prims bernoulli_p, exponential_p, uniform_p, normal_p and
masked_uniform), and `sanity_checks`: determinism and modest statistics that the
per-sample tests cannot state."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput
from primkit.opinfo.prims.strategies import composite, dtype_of, FLOATS, invalid, maybe, shapes, st, strided
from primkit.opinfo.samples import layouts
from primkit.prims.errors import PrimConstraintError

SHAPES = ((), (0,), (7,), (2, 3), (1, 4, 1), (2, 0, 3))

# (first, second float argument, seed, offset): (low, high) for uniform, (mean, std) for normal.
CASES = ((0.0, 1.0, 0, 0), (-2.0, 3.5, 12345, 17), (1.0, 1.0, -7, 0), (-1e30, 1e30, 2 ** 62, 2 ** 40))


def samples_fresh(op, device, dtype):
    for shape in SHAPES:
        for first, second, seed, offset in CASES:
            yield SampleInput(list(shape), (first, second, seed, offset), {"dtype": dtype, "device": device},
                              name=f"{shape} ({first}, {second}) seed={seed} offset={offset}")


def errors_fresh(op, device):
    name = op.prim.name

    def err(cid, what, shape, first, second, dtype=torch.float32):
        return ErrorInput(SampleInput(shape, (first, second, 0, 0), {"dtype": dtype, "device": device},
                                      name=f"{cid}: {what}"), PrimConstraintError, f"{name}: {cid}:")
    yield err("C1", "negative size", [2, -1], 0.0, 1.0)
    yield err("C2", "int64 dtype", [2], 0.0, 1.0, torch.int64)
    yield err("C2", "complex64 dtype", [2], 0.0, 1.0, torch.complex64)
    if name == "uniform":
        yield err("C3", "low > high", [2], 1.0, 0.0)
    else:
        yield err("C3", "negative std", [2], 0.0, -1.0)


def samples_bernoulli(op, device, dtype):
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for name, p in layouts(shape, device, dtype, low=0, high=1):
            yield SampleInput(p, (3, 0), name=f"{name} {shape}")
    p = torch.tensor([0.0, 1.0, -0.5, 1.5, float("nan"), 0.5], device=device, dtype=dtype)
    yield SampleInput(p, (-1, 2 ** 50), name="p at and beyond 0 and 1, nan")


def errors_bernoulli(op, device):
    p = torch.zeros((2, 3), dtype=torch.int64, device=device)
    yield ErrorInput(SampleInput(p, (0, 0), name="C1: int64 p"), PrimConstraintError, "bernoulli: C1:")


# (seed, offset) pairs: zero, negative seed, offsets near 2 ** 63 (counters wrap modulo 2 ** 64).
SEEDS = ((0, 0), (-7, 17), (2 ** 62, 2 ** 40), (12345, 2 ** 63 - 3))


def _fresh_kwargs(device, dtype):
    return {"dtype": dtype, "device": device}


def samples_random_bits(op, device, dtype):
    for shape in SHAPES:
        for seed, offset in SEEDS:
            yield SampleInput(list(shape), (seed, offset), _fresh_kwargs(device, dtype),
                              name=f"{shape} seed={seed} offset={offset}")


def errors_random_bits(op, device):
    def err(cid, what, shape, dtype):
        return ErrorInput(SampleInput(shape, (0, 0), _fresh_kwargs(device, dtype), name=f"{cid}: {what}"),
                          PrimConstraintError, f"random_bits: {cid}:")
    yield err("C1", "negative size", [3, -2], torch.int32)
    yield err("C2", "float32 dtype", [2], torch.float32)
    yield err("C2", "bool dtype", [2], torch.bool)


def _randint_ranges(dtype):
    """(low, high): a single value, a small range, and the dtype's whole range (int64: all but its maximum)."""
    info = torch.iinfo(dtype)
    small = (0, 7) if info.min == 0 else (-3, 4)
    return ((5, 6), small, (info.min, info.max + (dtype != torch.int64)))


def samples_randint(op, device, dtype):
    for shape in SHAPES:
        for (low, high), (seed, offset) in zip(_randint_ranges(dtype) * 2, SEEDS + SEEDS[::-1]):
            yield SampleInput(list(shape), (low, high, seed, offset), _fresh_kwargs(device, dtype),
                              name=f"{shape} [{low}, {high}) seed={seed} offset={offset}")


def errors_randint(op, device):
    def err(cid, what, shape, low, high, dtype=torch.int64):
        return ErrorInput(SampleInput(shape, (low, high, 0, 0), _fresh_kwargs(device, dtype), name=f"{cid}: {what}"),
                          PrimConstraintError, f"randint: {cid}:")
    yield err("C1", "negative size", [-1], 0, 5)
    yield err("C2", "float64 dtype", [2], 0, 5, torch.float64)
    yield err("C3", "low == high", [2], 3, 3)
    yield err("C3", "low > high", [2], 4, 0)
    yield err("C4", "high beyond uint8", [2], 0, 257, torch.uint8)
    yield err("C4", "negative low for uint8", [2], -1, 5, torch.uint8)
    yield err("C4", "low below int16", [2], -40000, 0, torch.int16)


def samples_exponential(op, device, dtype):
    for shape in SHAPES:
        for lambd, (seed, offset) in zip((1.0, 0.5, 1e3, 1e-30), SEEDS):
            yield SampleInput(list(shape), (lambd, seed, offset), _fresh_kwargs(device, dtype),
                              name=f"{shape} lambd={lambd} seed={seed} offset={offset}")


def errors_exponential(op, device):
    def err(cid, what, shape, lambd, dtype=torch.float32):
        return ErrorInput(SampleInput(shape, (lambd, 0, 0), _fresh_kwargs(device, dtype), name=f"{cid}: {what}"),
                          PrimConstraintError, f"exponential: {cid}:")
    yield err("C1", "negative size", [2, -1], 1.0)
    yield err("C2", "int32 dtype", [2], 1.0, torch.int32)
    yield err("C3", "zero rate", [2], 0.0)
    yield err("C3", "negative rate", [2], -1.5)


def samples_randperm(op, device, dtype):
    for n, (seed, offset) in zip((0, 1, 2, 7, 100, 128), SEEDS + SEEDS[:2]):
        yield SampleInput(n, (seed, offset), _fresh_kwargs(device, dtype), name=f"n={n} seed={seed} offset={offset}")


def errors_randperm(op, device):
    def err(cid, what, n, dtype=torch.int64):
        return ErrorInput(SampleInput(n, (0, 0), _fresh_kwargs(device, dtype), name=f"{cid}: {what}"),
                          PrimConstraintError, f"randperm: {cid}:")
    yield err("C1", "negative n", -1)
    yield err("C2", "float32 dtype", 4, torch.float32)
    yield err("C3", "n beyond int8", 129, torch.int8)
    yield err("C3", "n beyond uint8", 300, torch.uint8)


def _spec_word(seed: int, counter: int) -> int:
    """word(c) of random.yaml's doc: mix64(mix64(seed) + c * 0x9E3779B97F4A7C15) modulo 2 ** 64."""
    def mix64(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % (1 << 64)
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % (1 << 64)
        return z ^ (z >> 31)
    return mix64((mix64(seed % (1 << 64)) + counter * 0x9E3779B97F4A7C15) % (1 << 64))


def sanity_checks(device="cpu"):
    """(name, passed, detail) for the properties of the counter-based prims that single samples do not
    show: the same (seed, offset) replays, another offset or seed gives other numbers, and moments and
    ranges are those of the distribution (bounds about 6 standard errors wide: a failure is a bug)."""
    P = torch.ops.primkit
    n = 20000
    kw = {"device": device}
    calls = {
        "uniform": lambda seed, off: P.uniform([n], 0.0, 1.0, seed, off, dtype=torch.float64, **kw),
        "normal": lambda seed, off: P.normal([n], 0.0, 1.0, seed, off, dtype=torch.float64, **kw),
        "bernoulli": lambda seed, off: P.bernoulli(torch.full((n,), 0.25, dtype=torch.float64, **kw), seed, off),
        "random_bits": lambda seed, off: P.random_bits([n], seed, off, dtype=torch.uint8, **kw),
        "randint": lambda seed, off: P.randint([n], -3, 4, seed, off, dtype=torch.int64, **kw),
        "exponential": lambda seed, off: P.exponential([n], 2.0, seed, off, dtype=torch.float64, **kw),
        "randperm": lambda seed, off: P.randperm(n, seed, off, dtype=torch.int64, **kw),
    }
    for name, call in calls.items():
        x = call(42, 5)
        yield f"{name}: same seed and offset replay", torch.equal(x, call(42, 5)), ""
        yield f"{name}: another offset differs", not torch.equal(x, call(42, 6)), ""
        yield f"{name}: another seed differs", not torch.equal(x, call(43, 5)), ""
    # The stream is one sequence of counters: a call at offset k continues a call at offset 0.
    head, tail = P.random_bits([10], 7, 0, dtype=torch.int64, **kw), P.random_bits([4], 7, 6, dtype=torch.int64, **kw)
    yield "random_bits: offset k continues the stream", torch.equal(head[6:], tail), ""
    # The words are random.yaml's splitmix64, here in Python integers, past the blocks the CPU reference makes
    # them in (prims/reference/random.py) too.
    words = P.random_bits([40000], 7, 3, dtype=torch.int64, **kw)
    at = [0, 1, 32766, 32767, 32768, 32769, 39999]
    expected = [_spec_word(7, 3 + i) for i in at]
    yield "random_bits: the words are splitmix64's", [w % (1 << 64) for w in words[at].tolist()] == expected, ""

    def moment(name, value, expected, tolerance):
        yield f"{name} = {expected} +- {tolerance}", abs(value - expected) <= tolerance, f"got {value}"
    u = calls["uniform"](1, 0)
    yield from moment("uniform mean", u.mean().item(), 0.5, 6 * (1 / 12 / n) ** 0.5)
    z = calls["normal"](1, 0)
    yield from moment("normal mean", z.mean().item(), 0.0, 6 / n ** 0.5)
    yield from moment("normal variance", z.var().item(), 1.0, 6 * (2 / n) ** 0.5)
    b = calls["bernoulli"](1, 0).double()
    yield from moment("bernoulli(0.25) mean", b.mean().item(), 0.25, 6 * (0.25 * 0.75 / n) ** 0.5)
    bits = calls["random_bits"](1, 0).long()
    yield "random_bits uint8 covers 0..255", bits.min().item() == 0 and bits.max().item() == 255, ""
    for k in range(8):      # each bit is a fair coin
        yield from moment(f"random_bits bit {k} mean", ((bits >> k) & 1).double().mean().item(), 0.5, 6 * (0.25 / n) ** 0.5)
    r = calls["randint"](1, 0)
    counts = torch.bincount(r + 3, minlength=7).double()
    yield "randint in [-3, 4)", r.min().item() == -3 and r.max().item() == 3, f"got [{r.min()}, {r.max()}]"
    chi2 = (((counts - n / 7) ** 2) / (n / 7)).sum().item()
    yield "randint chi-squared (6 degrees of freedom) < 30", chi2 < 30, f"got {chi2}"
    e = calls["exponential"](1, 0)
    yield from moment("exponential(2) mean", e.mean().item(), 0.5, 6 * 0.5 / n ** 0.5)
    yield "exponential >= 0 and finite", bool((e >= 0).all() and e.isfinite().all()), ""
    p = calls["randperm"](1, 0)
    yield "randperm is a permutation", torch.equal(torch.sort(p).values, torch.arange(n, **kw)), ""
    # position of element 0 over many small permutations: uniform over the 5 places
    firsts = torch.stack([P.randperm(5, 3, 5 * i, dtype=torch.int64, **kw) for i in range(2000)]).argmin(1)
    counts = torch.bincount(firsts, minlength=5).double()
    chi2 = (((counts - 400) ** 2) / 400).sum().item()
    yield "randperm(5): place of 0 chi-squared (4 degrees of freedom) < 25", chi2 < 25, f"got {chi2}"


def samples_bernoulli_p(op, device, dtype):
    """Draws shaped after tensors of every layout kind (the result takes empty_like's layout of them)."""
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for (name, like), p in zip(layouts(shape, device, torch.float32), (0.5, 0.0, 1.0, 0.3, 0.9)):
            yield SampleInput(like, (p,), {"dtype": dtype}, name=f"{name} {shape} p={p}")


def errors_bernoulli_p(op, device):
    like = torch.zeros(2, 3, device=device)
    yield ErrorInput(SampleInput(like, (0.5,), {"dtype": torch.complex64}, name="C1: complex64 dtype"),
                     PrimConstraintError, "bernoulli_p: C1:")
    yield ErrorInput(SampleInput(like, (1.5,), {"dtype": torch.float32}, name="C2: p > 1"),
                     PrimConstraintError, "bernoulli_p: C2:")
    yield ErrorInput(SampleInput(like, (-0.1,), {"dtype": torch.bool}, name="C2: p < 0"),
                     PrimConstraintError, "bernoulli_p: C2:")


def samples_exponential_p(op, device, dtype):
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for (name, like), lambd in zip(layouts(shape, device, torch.float32), (1.0, 0.5, 1e3, 2.0, 1e-30)):
            yield SampleInput(like, (lambd,), {"dtype": dtype}, name=f"{name} {shape} lambd={lambd}")


def errors_exponential_p(op, device):
    like = torch.zeros(2, 3, device=device)
    yield ErrorInput(SampleInput(like, (1.0,), {"dtype": torch.int64}, name="C1: int64 dtype"),
                     PrimConstraintError, "exponential_p: C1:")
    yield ErrorInput(SampleInput(like, (0.0,), {"dtype": torch.float32}, name="C2: zero rate"),
                     PrimConstraintError, "exponential_p: C2:")


def samples_uniform_p(op, device, dtype):
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for (name, like), (low, high) in zip(layouts(shape, device, torch.float32), ((0.0, 1.0), (-2.0, 3.0),
                                                                                     (0.5, 0.5), (1.0, 2.0), (-1.0, 0.0))):
            yield SampleInput(like, (low, high), {"dtype": dtype}, name=f"{name} {shape} [{low}, {high})")


def errors_uniform_p(op, device):
    like = torch.zeros(2, 3, device=device)
    yield ErrorInput(SampleInput(like, (0.0, 1.0), {"dtype": torch.int64}, name="C1: int64 dtype"),
                     PrimConstraintError, "uniform_p: C1:")
    yield ErrorInput(SampleInput(like, (1.0, 0.0), {"dtype": torch.float32}, name="C2: low > high"),
                     PrimConstraintError, "uniform_p: C2:")


def samples_normal_p(op, device, dtype):
    """Below and above 16 elements, contiguous or not: torch's CPU kernel draws otherwise in each case."""
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for (name, like), (mean, std) in zip(layouts(shape, device, torch.float32), ((0.0, 1.0), (-2.0, 3.0),
                                                                                     (0.5, 0.0), (1.0, 2.0), (0.0, 1e-3))):
            yield SampleInput(like, (mean, std), {"dtype": dtype}, name=f"{name} {shape} mean={mean} std={std}")


def errors_normal_p(op, device):
    like = torch.zeros(2, 3, device=device)
    yield ErrorInput(SampleInput(like, (0.0, 1.0), {"dtype": torch.int64}, name="C1: int64 dtype"),
                     PrimConstraintError, "normal_p: C1:")
    yield ErrorInput(SampleInput(like, (0.0, -1.0), {"dtype": torch.float32}, name="C2: negative std"),
                     PrimConstraintError, "normal_p: C2:")


def samples_masked_uniform(op, device, dtype):
    for shape in ((), (0,), (7,), (3, 1, 4), (4, 5), (2, 3, 4, 5)):
        for (name, mask), (low, high) in zip(layouts(shape, device, torch.bool), ((0.125, 1 / 3), (-2.0, 3.0),
                                                                                   (0.5, 0.5), (0.0, 1.0), (1.0, 2.0))):
            yield SampleInput(mask, (low, high), name=f"{name} {shape} [{low}, {high})")


def errors_masked_uniform(op, device):
    yield ErrorInput(SampleInput(torch.ones(3, device=device), (0.0, 1.0), name="C1: float32 mask"),
                     PrimConstraintError, "masked_uniform: C1:")
    yield ErrorInput(SampleInput(torch.ones(3, dtype=torch.bool, device=device), (1.0, 0.0), name="C2: low > high"),
                     PrimConstraintError, "masked_uniform: C2:")


SPECIFIC = {
    "bernoulli_p": (samples_bernoulli_p, errors_bernoulli_p),
    "masked_uniform": (samples_masked_uniform, errors_masked_uniform),
    "exponential_p": (samples_exponential_p, errors_exponential_p),
    "uniform_p": (samples_uniform_p, errors_uniform_p),
    "normal_p": (samples_normal_p, errors_normal_p),
    "random_bits": (samples_random_bits, errors_random_bits),
    "randint": (samples_randint, errors_randint),
    "exponential": (samples_exponential, errors_exponential),
    "randperm": (samples_randperm, errors_randperm),
    "uniform": (samples_fresh, errors_fresh),
    "normal": (samples_fresh, errors_fresh),
    "bernoulli": (samples_bernoulli, errors_bernoulli),
}


# --- fuzz strategies (tests/test_fuzz_meta.py) --------------------------------------------------

def _counters(draw):
    return (draw(st.integers(0, 2**31)), draw(st.integers(0, 2**20)))


@composite
def random_call(draw, prim):
    """uniform, normal, exponential, random_bits, randint: a fresh tensor of a shape from (seed, offset)."""
    shape = list(draw(shapes()))
    if shape and invalid(draw):
        shape[-1] = -1
    dtype = dtype_of(draw, prim)
    params = {"uniform": lambda: (0.0, maybe(draw, 2.0, -1.0)), "normal": lambda: (0.0, maybe(draw, 1.0, -1.0)),
              "exponential": lambda: (maybe(draw, 1.5, 0.0),), "random_bits": lambda: (),
              "randint": lambda: (0, maybe(draw, draw(st.integers(1, 100)), draw(st.sampled_from([0, 1000]))))}
    return SampleInput(shape, (*params[prim.meta](), *_counters(draw)), {"dtype": dtype, "device": "cpu"})


@composite
def randperm_call(draw, prim):
    dtype = dtype_of(draw, prim)
    n = maybe(draw, draw(st.integers(0, 8)), draw(st.sampled_from([-1, 300])))
    return SampleInput(n, _counters(draw), {"dtype": dtype, "device": "cpu"})


@composite
def bernoulli_call(draw, prim):
    p = draw(strided(draw(shapes()), dtype_of(draw, prim, FLOATS), low=0, high=1))
    return SampleInput(p, _counters(draw))


@composite
def bernoulli_p_call(draw, prim):
    """A tensor of any layout to shape the draws after (empty_like's layout), p mostly in [0, 1]."""
    like = draw(strided(draw(shapes()), torch.float32))
    return SampleInput(like, (maybe(draw, 0.25, 1.5),), {"dtype": dtype_of(draw, prim)})


@composite
def exponential_p_call(draw, prim):
    like = draw(strided(draw(shapes()), torch.float32))
    return SampleInput(like, (maybe(draw, 1.5, 0.0),), {"dtype": dtype_of(draw, prim)})


@composite
def uniform_p_call(draw, prim):
    like = draw(strided(draw(shapes()), torch.float32))
    return SampleInput(like, (0.0, maybe(draw, 2.0, -1.0)), {"dtype": dtype_of(draw, prim)})


@composite
def normal_p_call(draw, prim):
    like = draw(strided(draw(shapes()), torch.float32))
    return SampleInput(like, (0.0, maybe(draw, 1.0, -1.0)), {"dtype": dtype_of(draw, prim)})


@composite
def masked_uniform_call(draw, prim):
    mask = draw(strided(draw(shapes()), dtype_of(draw, prim)))
    return SampleInput(mask, (0.0, maybe(draw, 2.0, -1.0)))


STRATEGIES = {"uniform": random_call, "normal": random_call, "exponential": random_call, "random_bits": random_call, "randint": random_call, "randperm": randperm_call, "bernoulli": bernoulli_call, "bernoulli_p": bernoulli_p_call, "exponential_p": exponential_p_call, "uniform_p": uniform_p_call, "normal_p": normal_p_call, "masked_uniform": masked_uniform_call}
