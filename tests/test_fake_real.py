"""Every prim's fake kernel accepts exactly what its real kernel accepts (issue 16).

For each prim of the catalog, its OpInfo samples and error inputs (opinfo/prims.py) and
deterministic mutations of them (a number replaced by an out-of-range or extreme value, a tensor
operand replaced by None or moved to the meta device, an int list perturbed, a tensor's dtype
swapped) run on real tensors and under FakeTensorMode. Both must succeed with the same geometry
(shape, dtype, device, significant strides), or both fail: with the same constraint id where
either fails citing one (PrimConstraintError), else with the same exception type.

Two failures of the real kernel are not the meta rule's to foresee, and count as agreement (tallied
in COUNTS): an allocation this machine cannot make, and a LinAlgError from the values (a matrix
that is not positive-definite). A tensor moves to the meta device only where devices meet (beside
a tensor that stays, or in a prim that takes a device): alone on meta, a data-dependent prim's real
kernel cannot run, as eager's cannot.

Bounded and deterministic: at most SAMPLES samples per dtype over at most two dtypes, every error
input, and MUTATIONS mutations per prim (one of each kind first), drawn from a generator seeded by
the prim's name; about 1,450 samples, 900 error inputs and 2,500 mutations, each run twice, in
about 30 s of one core. A wider run (every mutation of every call) found the disagreements the
one-off tests at the end keep.
"""
from __future__ import annotations

import itertools
import math
import random
import warnings
import zlib

import pytest
import torch
import torch.utils._pytree as pytree
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import ShapeEnv

from primkit import prims
from primkit.opinfo.core import SampleInput
from primkit.opinfo.harness import significant_strides, storage_copy, variant_samples
from primkit.opinfo.prims import prim_entries
from primkit.prims.errors import PrimConstraintError

ENTRIES = {e.prim.name: e for e in prim_entries()}
SAMPLES = 3             # per dtype
MUTATIONS = 10          # per prim
COUNTS = {"prims": 0, "samples": 0, "errors": 0, "mutations": 0, "allocation": 0, "values": 0}

# Numbers a careless program passes: out of every integer dtype's range, out of float16's and
# float32's, non-finite, negative, fractional.
EXTREME_NUMBERS = (200, -200, 300, 1000, -1, 2 ** 40, 2 ** 63 - 1, -2 ** 63, 1e6, 1e39, -1e300, math.inf,
                   -math.inf, math.nan, 1.5, 0)
SWAP_DTYPES = (torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
               torch.float32, torch.float64, torch.complex64)


# ---- outcomes --------------------------------------------------------------------------------

def _geometry(x):
    if isinstance(x, torch.Tensor):     # an unbacked (data-dependent) size: dtype and device only
        static = all(type(s) is int for s in x.shape) and all(type(s) is int for s in x.stride())
        return ("tensor", tuple(x.shape), x.dtype, x.device.type, significant_strides(x), _place(x)) if static else \
            ("tensor", x.dtype, x.device.type)
    if isinstance(x, (tuple, list)):
        return tuple(_geometry(y) for y in x)
    if isinstance(x, (bool, torch.SymBool)):
        return "bool"
    if isinstance(x, (int, torch.SymInt)):
        return "int"
    if isinstance(x, (float, torch.SymFloat)):
        return "float"
    return type(x).__name__


def _place(x):
    """x's storage offset: where as_strided on a view starts counting (issue 31)."""
    offset = x.storage_offset()
    return offset if type(offset) is int else None


def _failure(e: Exception):
    if isinstance(e, PrimConstraintError):
        return ("constraint", e.prim, e.constraint)
    if "can't allocate memory" in str(e):
        return ("allocation",)
    if isinstance(e, torch.linalg.LinAlgError):
        return ("values",)     # e.g. a matrix that is not positive-definite: known only from the data
    return ("exception", type(e).__name__)


def _symbolic(out) -> bool:
    return any(isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool)) for x in pytree.tree_leaves(out)) or any(
        not all(type(s) is int for s in t.shape) for t in pytree.tree_leaves(out) if isinstance(t, torch.Tensor))


def _copy(x):
    """A real operand the kernel may write into (the sample runs twice): the same geometry (sizes,
    strides, storage offset, storage size) on a copy of its storage. Meta tensors hold nothing to copy."""
    if not isinstance(x, torch.Tensor) or x.device.type == "meta":
        return x
    return storage_copy(x)


def run_real(op, s: SampleInput):
    input_, args, kwargs = pytree.tree_map(_copy, (s.input, s.args, s.kwargs))
    try:
        return ("ok", _geometry(op(input_, *args, **kwargs)))
    except Exception as e:  # noqa: BLE001 - the outcome is what is compared
        return ("error", _failure(e), str(e).splitlines()[0][:200])


def run_fake(op, s: SampleInput):
    """The sample under FakeTensorMode (a ShapeEnv lets data-dependent prims make unbacked sizes)."""
    try:
        with FakeTensorMode(shape_env=ShapeEnv(), static_shapes=True) as mode:
            conv = lambda x: mode.from_tensor(x) if isinstance(x, torch.Tensor) else x  # noqa: E731
            input_, args, kwargs = pytree.tree_map(conv, (s.input, s.args, s.kwargs))
            out = op(input_, *args, **kwargs)
            return ("ok", _geometry(out), _symbolic(out))
    except Exception as e:  # noqa: BLE001
        return ("error", _failure(e), str(e).splitlines()[0][:200])


def agree(real, fake) -> bool:
    if real[0] == "error" and real[1] in (("allocation",), ("values",)):
        return True     # this machine's memory or the operand's values, which no meta rule knows (counted)
    if real[0] != fake[0]:
        return False
    if real[0] == "error":
        r, f = real[1], fake[1]
        return r == f if "constraint" in (r[0], f[0]) else True
    if fake[2]:     # data-dependent sizes: the fake result has unbacked sizes; compare what is static
        return _kinds(real[1]) == _kinds(fake[1])
    return real[1] == fake[1]


def _kinds(g):
    if isinstance(g, tuple) and g and g[0] == "tensor":
        return ("tensor", g[-4] if len(g) == 6 else g[1])
    if isinstance(g, tuple):
        return tuple(_kinds(x) for x in g)
    return "number" if g in ("int", "float", "bool") else g


# ---- mutations -------------------------------------------------------------------------------

def _leaves(s: SampleInput):
    return pytree.tree_flatten((s.input, s.args, s.kwargs))


def _rebuild(leaves, spec, name) -> SampleInput:
    input_, args, kwargs = pytree.tree_unflatten(leaves, spec)
    return SampleInput(input_, args, kwargs, name)


def _is_number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def mutations(prim, s: SampleInput, rng: random.Random):
    """Candidate mutations of one sample, as (kind, SampleInput). A tensor moves to the meta device
    where devices meet: beside another tensor, or in a prim that takes a device. (Alone, on meta,
    a data-dependent prim's real kernel cannot run, as eager's cannot: it is not asked to.)"""
    leaves, spec = _leaves(s)
    off_meta = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor) and x.device.type != "meta"]
    tensors = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    numbers = [i for i, x in enumerate(leaves) if _is_number(x)]
    out = []
    for i in numbers:
        new = list(leaves)
        new[i] = rng.choice(EXTREME_NUMBERS)
        out.append(("number", _rebuild(new, spec, f"{s.name}: leaf {i} = {new[i]}")))
    for i in tensors:
        new = list(leaves)
        new[i] = None
        out.append(("none", _rebuild(new, spec, f"{s.name}: leaf {i} = None")))
        if "Device" in prim.signature or any(j != i for j in off_meta):
            new = list(leaves)
            new[i] = leaves[i].to("meta")
            out.append(("meta", _rebuild(new, spec, f"{s.name}: leaf {i} on meta")))
        new = list(leaves)
        d = rng.choice([d for d in SWAP_DTYPES if d != leaves[i].dtype])
        new[i] = leaves[i].to(d)
        out.append(("dtype", _rebuild(new, spec, f"{s.name}: leaf {i} as {d}")))
    # An int list (sizes, strides, dims, shapes): one entry perturbed.
    for path, x in _int_lists((s.input, s.args, s.kwargs)):
        if not x:
            continue
        j = rng.randrange(len(x))
        v = rng.choice((x[j] + 1, x[j] * 2 + 3, -x[j] - 1, x[j] + 100))
        bumped = list(x)
        bumped[j] = v
        out.append(("list", _replace_at((s.input, s.args, s.kwargs), path, bumped, s.name + f": list {path}[{j}] = {v}")))
    return out


def _int_lists(tree, path=()):
    if isinstance(tree, (list, tuple)) and tree and all(type(v) is int for v in tree) and path:
        yield path, list(tree)
        return
    if isinstance(tree, (list, tuple)):
        for k, v in enumerate(tree):
            yield from _int_lists(v, path + (k,))
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from _int_lists(v, path + (k,))


def _replace_at(tree, path, value, name):
    def rep(t, p):
        if not p:
            return value
        if isinstance(t, dict):
            return {k: rep(v, p[1:]) if k == p[0] else v for k, v in t.items()}
        return type(t)(rep(v, p[1:]) if k == p[0] else v for k, v in enumerate(t))
    input_, args, kwargs = rep(tree, path)
    return SampleInput(input_, args, kwargs, name)


# ---- the test --------------------------------------------------------------------------------

def _dtypes(entry):
    ds = sorted(entry.dtypes, key=str)
    preferred = [d for d in (torch.float32, torch.int8, torch.uint8) if d in ds]
    return (preferred + [d for d in ds if d not in preferred])[:2]


def calls_of(name):
    """(kind, SampleInput) pairs for one prim: samples, error inputs, then seeded mutations."""
    entry = ENTRIES[name]
    rng = random.Random(zlib.crc32(name.encode()))
    torch.manual_seed(zlib.crc32(name.encode()))
    samples = []
    for dtype in _dtypes(entry):
        samples += variant_samples(list(itertools.islice(entry.samples("cpu", dtype), 16)), SAMPLES)
    calls = [("sample", s) for s in samples] + [("error", e.sample) for e in entry.errors("cpu")]
    candidates = [m for _, s in calls for m in mutations(entry.prim, s, rng)]
    rng.shuffle(candidates)
    # One of each kind first, then the rest in the shuffled order.
    first = {}
    for m in candidates:
        first.setdefault(m[0], m)
    chosen = list(first.values()) + [m for m in candidates if all(m is not f for f in first.values())]
    return calls + chosen[:MUTATIONS]


def check_prim(name):
    entry = ENTRIES[name]
    bad = []
    for kind, s in calls_of(name):
        real, fake = run_real(entry.op, s), run_fake(entry.op, s)
        COUNTS["samples" if kind == "sample" else "errors" if kind == "error" else "mutations"] += 1
        COUNTS["allocation"] += real[0] == "error" and real[1] == ("allocation",)
        COUNTS["values"] += real[0] == "error" and real[1] == ("values",)
        if not agree(real, fake):
            bad.append(f"{kind} {s!r}:\n    real: {real}\n    fake: {fake}")
    COUNTS["prims"] += 1
    return bad


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_fake_and_real_agree(name):
    before = COUNTS["samples"]
    bad = check_prim(name)
    assert not bad, f"{name}: fake and real kernels disagree on {len(bad)} call(s):\n" + "\n".join(bad)
    assert COUNTS["samples"] > before, f"{name}: no sample ran (add a sample generator in opinfo/prims/<family>.py)"


# ---- what a careless program does (the probes): one-offs the database cannot express --

P = torch.ops.primkit


def test_none_for_a_tensor_is_refused_under_fake_and_real_alike():
    x = torch.randn(3, 4)
    with pytest.raises(PrimConstraintError, match=r"^add: signature: argument 'b' must be a Tensor, got NoneType"):
        P.add(x, None)
    with FakeTensorMode() as mode, pytest.raises(PrimConstraintError, match=r"^add: signature: argument 'b'"):
        P.add(mode.from_tensor(x), None)
    # In a Tensor[] argument torch's dispatcher refuses None itself, under fake and real alike.
    with pytest.raises(RuntimeError, match="Expected a value of type 'List"):
        P.cat([x, None], 0)
    with FakeTensorMode() as mode, pytest.raises(RuntimeError, match="Expected a value of type 'List"):
        P.cat([mode.from_tensor(x), None], 0)


def test_a_meta_tensor_has_no_data_to_put_on_a_device():
    """trace(a + b) with b on meta: eager refuses; the graph must not read uninitialised memory."""
    from primkit.graph import trace
    x, y = torch.randn(3, 4), torch.randn(3, 4, device="meta")
    with pytest.raises(RuntimeError):
        x + y
    with pytest.raises(PrimConstraintError, match=r"^device_put: C2:"):
        P.device_put(y, "cpu")
    with FakeTensorMode() as mode, pytest.raises(PrimConstraintError, match=r"^device_put: C2:"):
        P.device_put(mode.from_tensor(y), "cpu")
    assert P.device_put(y, "meta").device.type == "meta"
    with pytest.raises(PrimConstraintError, match=r"^(device_put: C2|add: C4):"):
        trace(lambda a, b: a + b, x, y)


# Python numbers out of the operand dtype's range: eager's elementwise kernels wrap an int into an
# integer dtype (int8: 200 -> -56, 1000 -> -24) and round a float into a float dtype (inf).
OUT_OF_RANGE = [
    ("int8 + 200", lambda a: a + 200, torch.tensor([100, 1, -5], dtype=torch.int8)),
    ("uint8 * 300", lambda a: a * 300, torch.tensor([100, 1, 7], dtype=torch.uint8)),
    ("int32 + 2**40", lambda a: a + 2 ** 40, torch.tensor([100, -1], dtype=torch.int32)),
    ("int8 == 1000", lambda a: a == 1000, torch.tensor([100, -24], dtype=torch.int8)),
    ("int16 - 70000", lambda a: a - 70000, torch.tensor([3, -3], dtype=torch.int16)),
    ("float16 + 1e6", lambda a: a + 1e6, torch.tensor([1, -2], dtype=torch.float16)),
    ("float32 * 1e39", lambda a: a * 1e39, torch.tensor([1, -2], dtype=torch.float32)),
]


@pytest.mark.parametrize("name, fn, x", OUT_OF_RANGE, ids=[c[0] for c in OUT_OF_RANGE])
def test_out_of_range_numbers_trace_and_run_as_eager(name, fn, x):
    from primkit.graph import trace
    expected = fn(x)
    got = trace(fn, x)(x)
    assert got.dtype == expected.dtype and torch.equal(got, expected), (name, got, expected)


@pytest.mark.parametrize("prim, call", [
    ("full", lambda v, d: P.full([2], v, dtype=d, device="cpu")),
    ("scalar_tensor", lambda v, d: P.scalar_tensor(v, dtype=d, device="cpu")),
])
def test_fill_values_fake_and_real_agree(prim, call):
    """Each value either fits the dtype under fake and real alike (floats round to +-inf) or is
    refused under both, citing the constraint."""
    cid = {"full": "C3", "scalar_tensor": "C2"}[prim]
    for value in EXTREME_NUMBERS + (1j, 1 + 0j, True, 127.5, -255, -256):
        for dtype in (torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16,
                      torch.float32, torch.complex64):
            fits = prims.meta.creation.fits(value, dtype)
            if not fits:
                with pytest.raises(PrimConstraintError, match=rf"^{prim}: {cid}:"):
                    call(value, dtype)
                with FakeTensorMode(), pytest.raises(PrimConstraintError, match=rf"^{prim}: {cid}:"):
                    call(value, dtype)
                continue
            real = call(value, dtype)
            with FakeTensorMode():
                fake = call(value, dtype)
            assert (real.shape, real.dtype) == (fake.shape, fake.dtype)
            if dtype.is_floating_point and not isinstance(value, complex) and math.isfinite(value) \
                    and abs(value) > torch.finfo(dtype).max:
                assert torch.isinf(real).all(), (value, dtype, real)


def test_as_strided_past_the_storage_fails_alike():
    x = torch.randn(3, 4)
    with pytest.raises(PrimConstraintError, match=r"^as_strided: C3:"):
        P.as_strided(x, [10, 10], [10, 1], 0)
    with FakeTensorMode() as mode, pytest.raises(PrimConstraintError, match=r"^as_strided: C3:"):
        P.as_strided(mode.from_tensor(x), [10, 10], [10, 1], 0)
    # A slice's view may reach its whole storage, as eager's as_strided does.
    assert P.as_strided(x[1:2], [3, 4], [4, 1], 0).shape == (3, 4)


def test_mvlgamma_of_an_order_near_int64_max():
    """Found by a wider run of the fuzz: the reference sums p terms per element (order_terms)."""
    s = SampleInput(torch.full((5,), 1e30), (2 ** 63 - 1,), name="p = 2**63 - 1")
    real, fake = run_real(P.mvlgamma, s), run_fake(P.mvlgamma, s)
    assert real[0] == "error" and real[1] == ("constraint", "mvlgamma", "storage") and agree(real, fake), (real, fake)


def test_transposed_convolution_with_a_stride_past_32_bits():
    """Found by the fuzz: torch's transposed kernels read stride 2**40 as 0 (and refuse it); C2 bounds it."""
    s = SampleInput(torch.randn(2, 4, 5), (torch.randn(4, 3, 3), None, [2 ** 40], [1], [1], True, [1], 1),
                    name="stride 2**40")
    real, fake = run_real(P.convolution, s), run_fake(P.convolution, s)
    assert real[0] == "error" and real[1] == ("constraint", "convolution", "C2") and agree(real, fake), (real, fake)


@pytest.mark.parametrize("prim", ["argmax_window", "reduce_window_max", "reduce_window_sum"])
def test_window_strides_and_dilations_near_int64_max(prim):
    """Found by the wider fuzz: a stride of a dim with one window, or a dilation of a window of one
    element, moves nothing; the reference must not compute with it (unfold and slicing overflowed)."""
    x = torch.randn(2, 3, 7, 8).to(memory_format=torch.channels_last)
    for strides, dilation in (([1, 2 ** 63 - 1, 2, 2], [1, 1, 2, 2]), ([1, 1, 2, 2], [1, 2 ** 63 - 1, 2, 2])):
        s = SampleInput(x, ([1, 1, 3, 3], strides, [0, 0, 1, 1], [0, 0, 1, 1], dilation))
        real, fake = run_real(getattr(P, prim), s), run_fake(getattr(P, prim), s)
        assert real[0] == "ok" and agree(real, fake), (real, fake)


def test_slice_with_a_step_near_int64_max():
    """Found by the wider fuzz: a step past the slice's extent takes one element (torch's size
    arithmetic overflowed to an empty slice, and the meta rule's stride product past int64)."""
    s = SampleInput(torch.randn(6, 5).t(), ([0, 0], [5, 6], [1, 2 ** 63 - 1]))
    real, fake = run_real(P.slice, s), run_fake(P.slice, s)
    assert real == ("ok", ("tensor", (5, 1), torch.float32, "cpu", (1, None), 0)) and agree(real, fake), (real, fake)



@pytest.mark.parametrize("unsafe_data_ptr", [True, False], ids=["data_ptr warns", "data_ptr raises"])
def test_new_fake_is_the_constructors_fake_tensor(unsafe_data_ptr):
    # registration.new_fake builds a prim's fake result without FakeTensor()'s constructor: it must give the same
    # tensor (state, dispatch keys, the data-pointer guard), or torch changed what its constructor sets
    from torch._subclasses.fake_tensor import FakeTensor
    from primkit.prims.registration import new_fake
    import torch._functorch.config
    with torch._functorch.config.patch(fake_tensor_allow_unsafe_data_ptr_access=unsafe_data_ptr):
        mode = FakeTensorMode(shape_env=ShapeEnv(), static_shapes=True)
    device = torch.device("cpu")
    def meta():   # one each: the data-pointer guard is set on the storage
        return torch.empty_strided((3, 4), (1, 3), dtype=torch.float16, device="meta")
    made = FakeTensor(mode, meta(), device)
    new_fake(mode, meta(), device)    # the first call builds through the constructor
    fast = new_fake(mode, meta(), device)
    assert type(fast) is FakeTensor and fast.fake_mode is mode and fast.device == device
    assert fast.__dict__ == made.__dict__
    assert torch._C._dispatch_keys(fast) == torch._C._dispatch_keys(made)
    assert (fast.shape, fast.stride(), fast.dtype, fast.requires_grad) == (made.shape, made.stride(), made.dtype,
                                                                          made.requires_grad)
    outcomes = []
    for t in (made, fast):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # torch warns once per process, not per tensor
            try:
                t.data_ptr()
                outcomes.append("returned")
            except Exception as e:
                outcomes.append(type(e).__name__)
    assert outcomes[0] == outcomes[1] and (outcomes[0] == "returned") == unsafe_data_ptr
    with mode:
        assert (fast * 2).t().shape == (4, 3)
