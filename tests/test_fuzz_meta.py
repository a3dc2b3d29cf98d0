"""Meta rules against execution on random shapes, strides, dtypes and arguments (hypothesis).

Per meta rule: a strategy (opinfo/prims/<family>.py, beside the family's samples) draws a call (operands as random strided views: permuted, sliced with
steps, expanded, of random dtype; arguments mostly valid, sometimes not) and checks that the meta
rule's geometry under FakeTensorMode equals what the reference implementation returns, or that
both reject the call with one exception type. Every meta rule of the catalog has a strategy
(test_every_meta_rule_has_a_strategy). Bounded: a fixed number of derandomized examples per prim,
fewer where a call is costly (EXAMPLES). Operand values come from torch's generator seeded by the
draw, so a drawn call is reproducible. A falsifying call found here is kept in
fuzz_regressions.json, either as a seed (replayed through its strategy) or as an explicit call
(operand geometry and values, for calls that must outlive changes of the strategies), and
replayed: test_meta_matches_execution appends the shrunk falsifying call itself (keep_regression),
so a failure found once is replayed ever after; a known bug is kept there with an "xfail" reason and the
exception it raises ("raises": a builtin exception's name, e.g. "AssertionError", or one of prims.errors), and
runs as a strict xfail of that exception (a case with "xfail" and no "raises" is refused).
"""
from __future__ import annotations

import json
import pathlib
import sys

import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st

from primkit import prims
from primkit.opinfo.core import SampleInput
from primkit.opinfo.harness import call, check_meta_matches_real, fake_call
from primkit.opinfo.prims import fuzz_strategies

REGRESSIONS = pathlib.Path(__file__).with_name("fuzz_regressions.json")
# meta rule -> strategy of a call; each lives with its family's samples in opinfo/prims/<family>.py
STRATEGIES = fuzz_strategies()


# Examples per prim: the default, fewer where a call is costly or a rule serves many prims alike.
DEFAULT_EXAMPLES = 25
EXAMPLES = {"elementwise": 10, "elementwise_unary": 10, "cholesky": 8, "eigh": 8, "eig": 8, "qr": 8, "svd": 8,
            "lu_factor": 8, "triangular_solve": 8, "lu_solve": 8, "householder_product": 8, "ormqr": 8,
            "ldl_factor": 8, "ldl_solve": 8, "cholesky_solve": 8, "lstsq": 8, "convolution": 15, "fft": 15}
FUZZED = [p for p in prims.catalog() if p.meta in STRATEGIES]


# ---- the check ----------------------------------------------------------------------------------

def check_meta_matches(prim, s: SampleInput):
    dynamic = "data_dependent" in prim.tags
    try:
        real = call(prim.op, s)
    except Exception as e:
        if "not implemented for" in str(e):
            # The meta rule accepted the call (the kernel runs it first), the kernel lacks the dtype: fake and
            # real tensors disagree, and the catalog claims a dtype the reference cannot run.
            raise AssertionError(f"{prim.name}: the meta rule accepts {s} but the kernel refuses it: {e}") from e
        # An invalid call: the meta rule must reject it too, with the same exception type.
        with pytest.raises(type(e)):
            fake_call(prim.op, s, dynamic_output=dynamic)
        return
    check_meta_matches_real(fake_call(prim.op, s, dynamic_output=dynamic), real, f"{prim.name} on {s}")


def draw_and_check(prim, data, failing=None):
    """Draw a call and check it; a falsifying call is appended to ``failing`` (hypothesis replays
    the shrunk example last)."""
    # Operand values come from torch's generator, seeded from the draw: a call replays exactly.
    with torch.random.fork_rng():
        torch.manual_seed(data.draw(st.integers(0, 2**32 - 1), label="torch seed"))
        s = data.draw(STRATEGIES[prim.meta](prim), label="call")
        try:
            check_meta_matches(prim, s)
        except Exception:
            if failing is not None:
                failing.append(s)
            raise


def _fuzz_settings(prim, **extra):
    return settings(max_examples=EXAMPLES.get(prim.meta, DEFAULT_EXAMPLES), deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), **extra)


@pytest.mark.parametrize("prim", FUZZED, ids=lambda p: p.name)
def test_meta_matches_execution(prim):
    failing = []

    @_fuzz_settings(prim, derandomize=True)
    @given(data=st.data())
    def fuzz(data):
        draw_and_check(prim, data, failing)
    try:
        fuzz()
    except Exception:
        if failing:
            keep_regression(prim, failing[-1])
        raise


def keep_regression(prim, s: SampleInput) -> None:
    """Append a falsifying call to fuzz_regressions.json as an explicit call, so that it is replayed
    (test_kept_regressions) from now on, whatever the strategies become."""
    case = {"prim": prim.name, "call": {"args": encode([s.input, *s.args]),
                                        "kwargs": {k: encode(v) for k, v in s.kwargs.items()}}}
    cases = json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []
    if case not in cases:
        REGRESSIONS.write_text(json.dumps(cases + [case], indent=1) + "\n")


# ---- kept regressions -------------------------------------------------------------------------

def decode(x):
    """A call argument from its JSON form: {"tensor": {shape, stride, dtype, offset?, storage?}} (a view
    of a storage holding the values given, ones otherwise, so any strides, overlapping ones included),
    {"dtype": name}, lists, scalars."""
    if isinstance(x, list):
        return [decode(v) for v in x]
    if isinstance(x, dict) and "dtype" in x and len(x) == 1:
        return getattr(torch, x["dtype"])
    if isinstance(x, dict) and "complex" in x:
        return complex(*x["complex"])
    if isinstance(x, dict) and "tensor" in x:
        spec = x["tensor"]
        dtype, offset = getattr(torch, spec["dtype"]), spec.get("offset", 0)
        extent = offset + sum(max(n - 1, 0) * st for n, st in zip(spec["shape"], spec["stride"], strict=True)) + 1
        if "storage" in spec:
            storage = torch.tensor(spec["storage"], dtype=dtype)
        elif "storage_real_imag" in spec:
            storage = torch.view_as_complex(torch.tensor(spec["storage_real_imag"], dtype=dtype.to_real()))
        else:
            storage = torch.ones(extent, dtype=dtype)
        return storage.as_strided(spec["shape"], spec["stride"], offset)
    return x


def encode(x):
    """decode's inverse: a tensor keeps its geometry and its whole storage's values."""
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, torch.dtype):
        return {"dtype": str(x).removeprefix("torch.")}
    if isinstance(x, torch.Tensor):
        base = torch.empty(0, dtype=x.dtype).set_(x.untyped_storage())
        spec = {"shape": list(x.shape), "stride": list(x.stride()), "dtype": str(x.dtype).removeprefix("torch."),
                "offset": x.storage_offset()}
        if x.dtype.is_complex:
            spec["storage_real_imag"] = torch.view_as_real(base).tolist()
        else:
            spec["storage"] = base.tolist()
        return {"tensor": spec}
    if isinstance(x, complex):
        return {"complex": [x.real, x.imag]}
    return x


def _exception(name, where):
    """A builtin exception or one of prims.errors, by name (a regression case's "raises")."""
    import builtins

    from primkit.prims import errors
    found = getattr(builtins, name, None) or getattr(errors, name, None) if isinstance(name, str) else None
    if not (isinstance(found, type) and issubclass(found, BaseException)):
        raise ValueError(f"{where}: 'raises' must name a builtin exception or one of primkit.prims.errors, "
                         f"got {name!r}")
    return found


def _xfail_marks(case, where):
    """A known failure's strict xfail, of the exception the case names (mandatory: no xfail passes on any)."""
    if "xfail" not in case:
        return []
    if "raises" not in case:
        raise ValueError(f"{where}: an \"xfail\" case needs \"raises\", the exception it fails with")
    return [pytest.mark.xfail(strict=True, raises=_exception(case["raises"], where), reason=case["xfail"])]


def _regression_params(cases=None):
    if cases is None:
        cases = json.loads(REGRESSIONS.read_text()) if REGRESSIONS.exists() else []
    params = []
    for i, case in enumerate(cases):
        marks = _xfail_marks(case, f"{REGRESSIONS.name}[{i}]")
        params.append(pytest.param(case, marks=marks, id=f"{case['prim']}-{case.get('seed', i)}"))
    return params


def test_a_known_regression_names_its_exception():
    case = {"prim": "add", "seed": 1, "xfail": "a known bug"}
    with pytest.raises(ValueError, match=r"fuzz_regressions.json\[0\]: an \"xfail\" case needs \"raises\""):
        _regression_params([case])
    with pytest.raises(ValueError, match="'raises' must name a builtin exception"):
        _regression_params([{**case, "raises": "NoSuchError"}])
    (param,) = _regression_params([{**case, "raises": "AssertionError"}])
    (mark,) = param.marks
    assert mark.kwargs["raises"] is AssertionError and mark.kwargs["strict"]


@pytest.mark.parametrize("case", _regression_params())
def test_kept_regressions(case):
    """Calls that once failed: an explicit call, or a seed replayed through the prim's strategy."""
    prim = prims.get(case["prim"])
    if "call" in case:
        args = decode(case["call"]["args"])
        kwargs = {k: decode(v) for k, v in case["call"].get("kwargs", {}).items()}
        check_meta_matches(prim, SampleInput(args[0], tuple(args[1:]), kwargs))
        return
    from hypothesis import seed

    @seed(case["seed"])
    @_fuzz_settings(prim)
    @given(data=st.data())
    def replay(data):
        draw_and_check(prim, data)
    replay()


def test_a_falsifying_call_is_kept(tmp_path, monkeypatch):
    """keep_regression writes a call that decode gives back, geometry and values alike."""
    kept = tmp_path / "kept.json"
    monkeypatch.setattr(sys.modules[__name__], "REGRESSIONS", kept)
    x = torch.arange(12, dtype=torch.float32).as_strided((2, 3), (1, 4), 1)
    z = torch.tensor([1 + 2j, 3 - 1j])
    keep_regression(prims.get("add"), SampleInput(x, (x, 2.5), {"dtype": torch.int16}))
    keep_regression(prims.get("add"), SampleInput(x, (x, 2.5), {"dtype": torch.int16}))   # kept once
    keep_regression(prims.get("neg"), SampleInput(z))
    cases = json.loads(kept.read_text())
    assert [c["prim"] for c in cases] == ["add", "neg"]
    args = decode(cases[0]["call"]["args"])
    assert args[0].stride() == (1, 4) and args[0].storage_offset() == 1 and torch.equal(args[0], x)
    assert args[2] == 2.5 and decode(cases[0]["call"]["kwargs"]["dtype"]) is torch.int16
    assert torch.equal(decode(cases[1]["call"]["args"])[0], z)


def test_every_meta_rule_has_a_strategy():
    """Every meta rule of the catalog (and so every prim family) is fuzzed."""
    missing = sorted({p.meta for p in prims.catalog()} - set(STRATEGIES))
    assert not missing, f"meta rules without a fuzz strategy (STRATEGIES of opinfo/prims/<family>.py): {missing}"
