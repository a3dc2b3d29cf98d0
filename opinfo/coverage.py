"""The op coverage report: one row per ATen overload of the installed torch.

``build_report()`` returns the JSON-able dict that the Markdown (and later HTML) views render:

    {"torch_version": str,
     "summary": {...},
     "ops": [{"name", "status", "prims", "missing", "opinfo", "tests", "tags", "family"}]}

status: ``prims`` (has a decomposition, and tracing its OpInfo samples reached only prims),
``partial`` (has a decomposition whose traces still reach ops without one, listed in
``missing``), ``missing`` (no decomposition), ``bookkeeping`` (SymInt bookkeeping a prim graph may
hold: ``sym_size``, ``sym_constrain_range``, ...; never missing). ``prims`` lists the prims its
samples' traces reach (empty when the op has no OpInfo entry to trace); ``traced`` says whether a
traced sample called it (otherwise its status is assumed from the table). ``tests`` is filled by a
test run. ``programs`` (``program_view``) traces whole programs (the test zoo) and says which
missing ops block which program; ``blocks`` ranks missing ops by what they block.
"""
from __future__ import annotations

import collections
import contextlib
import os
import re
import sys
import time
import warnings

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode, disable_fake_tensor_cache
from torch.fx.experimental.symbolic_shapes import ShapeEnv
from torch.utils._python_dispatch import TorchDispatchMode

from primkit import decompositions, graph, prims
from primkit.decompositions.composite import composites, install, is_composite
from primkit.graph.trace import SYM_OPS, is_allowed_target
from primkit.prims import registration
from primkit.prims.meta import TensorMeta

TAGS = ("core", "inplace", "out", "view", "nondeterministic", "data-dependent", "backward")


# Ops outside aten the report counts: torch's functional collectives (the ops DTensor and DDP programs trace
# to), DTensor's shard_dim_alltoall, and the process group's c10d ops (what fully_shard and dist.* call).
COUNTED_OUTSIDE_ATEN = ("_c10d_functional::", "_c10d_functional_autograd::", "_dtensor::shard_dim_alltoall",
                        "c10d::")


def aten_overload_names() -> list[str]:
    """The overloads the report counts: every aten overload, and those of ``COUNTED_OUTSIDE_ATEN``."""
    return sorted(n for n in torch._C._dispatch_get_all_op_names()
                  if n.startswith("aten::") or n.startswith(COUNTED_OUTSIDE_ATEN))


def resolve(name: str):
    """'aten::add.Tensor' (or '_c10d_functional::all_reduce') -> the OpOverload, or None when Python
    cannot reach it."""
    qual, _, overload = name.partition(".")
    namespace, _, opname = qual.partition("::")
    packet = getattr(getattr(torch.ops, namespace), opname, None)
    if packet is None:
        return None
    try:
        return getattr(packet, overload or "default")
    except AttributeError:
        return None


# torch 2.11 has no Tag.inplace: its in-place ops are then found by name and schema alone
_INPLACE_TAG = getattr(torch.Tag, "inplace", None)


def op_tags(op) -> list[str]:
    if op is None:
        return []
    schema, tags = op._schema, set(op.tags)
    out = []
    if torch.Tag.core in tags:
        out.append("core")
    if _INPLACE_TAG in tags or (op._opname.endswith("_") and not op._opname.startswith("_")) or \
            (schema.arguments and schema.arguments[0].alias_info is not None and schema.arguments[0].alias_info.is_write
             and not any(a.is_out for a in schema.arguments)):
        out.append("inplace")
    if any(a.is_out for a in schema.arguments):
        out.append("out")
    if any(r.alias_info is not None and not r.alias_info.is_write for r in schema.returns):
        out.append("view")
    if torch.Tag.nondeterministic_seeded in tags or torch.Tag.nondeterministic_bitwise in tags:
        out.append("nondeterministic")
    if torch.Tag.data_dependent_output in tags or torch.Tag.dynamic_output_shape in tags:
        out.append("data-dependent")
    if "backward" in op._opname:
        out.append("backward")
    return out


def is_bookkeeping(name: str) -> bool:
    """SymInt bookkeeping (``aten::sym_size.int``, ``aten::sym_constrain_range``, ...): a prim graph
    may hold it (``trace`` allows it), so it is never a missing op."""
    return name.split("::")[-1].startswith("sym_") or name in _ALLOWED_NAMES


_ALLOWED_NAMES = {t.name() for t in SYM_OPS if isinstance(t, torch._ops.OpOverload)}


def family_of(fn) -> str:
    module = getattr(fn, "__module__", "") or ""
    # the family is the module under decompositions, or the package of a family split by concern (nn.pooling: nn)
    return module.split(".")[2] if module.startswith("primkit.decompositions.") else "other"


class _Recorder(TorchDispatchMode):
    """Records, per overload called at top level (not nested inside another decomposition), the prims
    it reaches and the non-prim ops it leaves, while samples run through the table on fake tensors.

    This is make_fx's dispatch without its graph: a table entry runs with the mode still active, so the
    ops it calls decompose in turn; an op torch would have expanded above autograd (a
    CompositeImplicitAutograd op reached inside an entry) runs its composite; the table's entries for
    such ops run through ``composites``; whatever else reaches the mode is left as it is (a graph node,
    under make_fx). Building no graph halves the report's time; tests/test_coverage.py checks that the
    prims recorded are those of make_fx's graph. Built once per process (wrapping the table costs more
    than running a small entry)."""

    def __init__(self, table):
        super().__init__()
        self.seen: dict = {}       # overload -> (prims reached, non-prim ops left), for the run in progress
        self.top = None            # the top-level overload whose entry runs now
        self.running = False       # the wrapped entries record only inside ``run``
        self.fake_mode = None      # the run's
        self.table = {op: self._wrap(op, fn) for op, fn in table.items()}
        install(self.table)        # once: the table never changes, and each run enters a block of it

    @classmethod
    def _should_skip_dynamo(cls) -> bool:
        # torch wraps a mode's __torch_dispatch__ in dynamo's disable (a frame-evaluation switch per op call,
        # 3% of the report) unless this says no; nothing here runs under torch.compile
        return False

    def _wrap(self, op, fn):
        name = op.name()

        def recorded(*args, **kwargs):
            if not self.running or self.top is not None:
                return fn(*args, **kwargs)
            self.seen.setdefault(name, (set(), set()))
            self.top = name
            try:
                return fn(*args, **kwargs)
            finally:
                self.top = None
        return recorded

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is torch.ops.prim.device.default:
            return func(*args, **kwargs)
        prim = prims.def_of(func)
        if prim is not None:
            if self.top is not None:
                self.seen[self.top][0].add(prim.name)
            if prim.tags & _THROUGH_FAKE_MODE or not _fake_operands(args, kwargs, self.fake_mode):
                return func(*args, **kwargs)
            # what the fake mode's dispatch would call, without it (a third of the report's time)
            return registration.fake_result(prim, args, kwargs, self.fake_mode)
        fn = self.table.get(func)
        if fn is None and func not in _SHAPE_QUERIES and is_composite(func):
            fn = func.decompose
        if fn is not None:
            with self:
                out = fn(*args, **kwargs)
            if out is not NotImplemented:
                return out
        if not is_allowed_target(func):
            name = func.name()
            self.seen.setdefault(name, (set(), set()))
            if self.top is not None:
                self.seen[self.top][1].add(name)
        return func(*args, **kwargs)

    def run(self, fn, tensors) -> dict:
        """Call ``fn`` on fake copies of ``tensors`` (a fake mode like make_fx's: static shapes, a shape
        environment for data-dependent sizes); what it recorded, or the exception it raised (a call that
        fails records nothing).

        The fake mode's dispatch cache is off: the ops a run reaches are mostly prims, which that cache
        never holds (it takes aten's ops only), yet it hashes each call's arguments to find that out,
        a quarter of the report's time; prims keep their own cache (prims/registration.py)."""
        mode = self.fake_mode = FakeTensorMode(allow_fallback_kernels=True, shape_env=ShapeEnv(), static_shapes=True)
        fakes = _fakes(mode, tensors)
        self.seen, self.top, self.running = {}, None, True
        try:
            with torch.no_grad(), composites(self.table, installed=True), mode, disable_fake_tensor_cache(mode), self:
                fn(*fakes)
            return self.seen
        finally:
            self.seen, self.top, self.running, self.fake_mode = {}, None, False, None


def _fakes(mode, tensors) -> list:
    """Fake copies of ``tensors`` under ``mode``. A plain tensor that owns its storage alone (no view, no other
    tensor of the call on that storage, no conj / neg bit, no grad) gets a fake tensor of its geometry and
    storage size directly (``registration.materialize``: a quarter of ``from_tensor``'s cost, which describes
    and memoizes every tensor for views, subclasses and symbolic sizes), one for each time it is passed; the
    others go through ``from_tensor``, which keeps tensors that share a storage sharing it."""
    owners = collections.defaultdict(set)     # storage -> the distinct tensors of the call on it
    for t in tensors:
        if isinstance(t, torch.Tensor) and t.layout == torch.strided:
            owners[t.untyped_storage()._cdata].add(id(t))
    made = {}
    for t in tensors:
        if id(t) not in made:
            shared = isinstance(t, torch.Tensor) and t.layout == torch.strided and \
                len(owners[t.untyped_storage()._cdata]) > 1
            made[id(t)] = mode.from_tensor(t) if shared else _fake(mode, t)
    return [made[id(t)] for t in tensors]


def _fake(mode, t):
    if not (type(t) is torch.Tensor and t.layout == torch.strided and t.device.type == "cpu" and not t._is_view()
            and t.is_leaf and t.grad is None and not (t.is_conj() or t.is_neg() or t.is_inference()
                                                      or t.is_quantized or t._is_zerotensor())):
        return mode.from_tensor(t)
    fake = registration.materialize(TensorMeta(tuple(t.shape), t.stride(), t.dtype, t.device, t.storage_offset(),
                                               t.untyped_storage().nbytes()), mode)
    return fake.requires_grad_(t.requires_grad)


# Prims the recorder leaves to the fake mode's dispatch: a data-dependent prim's meta rule makes its unbacked
# sizes in the shape environment of torch.library's fake context. (copy_to, which writes into its argument,
# needs no more than its meta rule, which checks it and returns that argument: through the fake mode it cost
# 90 us a call, 6% of the report.)
_THROUGH_FAKE_MODE = frozenset({"data_dependent"})


def _fake_operands(args, kwargs, mode) -> bool:
    """Whether every tensor among a prim's operands (a prim takes tensors and lists of them) is a fake
    tensor of ``mode``: what the fake mode takes without converting or refusing it."""
    for a in (*args, *kwargs.values()):
        for t in a if isinstance(a, (list, tuple)) else (a,):
            if isinstance(t, torch.Tensor) and not (isinstance(t, FakeTensor) and t.fake_mode is mode):
                return False
    return True


# make_fx leaves these to the tensor even where they are CompositeImplicitAutograd
_SHAPE_QUERIES = (torch.ops.aten.size.default, torch.ops.aten.stride.default, torch.ops.aten.storage_offset.default)


MAX_SAMPLES = 4   # run per entry: enough to see the prims (fewer samples lose some), bounded for the report's time


def trace_entry(entry, recorder: _Recorder):
    """What tracing an entry's samples (float32 where supported) shows, per overload exercised
    at top level: {overload: (prims reached, non-prim ops left)}, and the sample count. The
    in-place and out= forms are traced once each, so their overloads are seen too."""
    from primkit.opinfo.harness import clone_sample
    dtypes = sorted(entry.supported_dtypes("cpu"), key=lambda d: (d != torch.float32, str(d)))
    seen: dict = {}
    if not dtypes:
        return seen, 0
    # torch's warnings about the sampled ops (stft, cross, frobenius_norm, ...) are not the report's,
    # whether the samples' construction or their trace raises them
    with warnings.catch_warnings(), _quiet_stderr():
        warnings.simplefilter("ignore")
        samples = list(entry.samples("cpu", dtypes[0]))
        calls = [(entry.op, s, False) for s in samples[:MAX_SAMPLES]]
        if samples and entry.inplace is not None:
            calls.append((entry.inplace, clone_sample(samples[-1]), False))
        if samples and entry.supports_out:
            calls.append((entry.op, samples[-1], True))
        _trace_calls(calls, recorder, seen)
    return seen, len(samples)


@contextlib.contextmanager
def _quiet_stderr():
    """Silence file descriptor 2: torch's C++ warnings raised outside Python's handler (Cross.cpp's
    ``[W ...] Warning: Using torch.cross without specifying the dim``) go straight to it."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        sys.stderr.flush()
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _trace_calls(calls, recorder: _Recorder, seen):
    """Run the calls together (one fake mode and one pass: a run's fixed cost paid once), or, if that
    fails, each alone (a call that fails is left out; the tests report why)."""
    from primkit.opinfo.harness import as_function, joint_call
    prepared = []
    for op, sample, with_out in calls:
        try:
            fn, tensors = as_function(op, sample)
            if with_out:
                out = torch.empty_like(op(sample.input, *sample.args, **sample.kwargs))
                fn = lambda o, *ts, _op=op, _s=sample: as_function(_op, _s, out=o)[0](*ts)  # noqa: E731
                tensors = [out, *tensors]
        except Exception:
            continue   # eager rejects the sample here; the tests report it
        prepared.append((fn, tensors))
    if not prepared:
        return
    try:
        runs = [recorder.run(*joint_call(prepared))]
    except Exception:
        runs = []
        for fn, tensors in prepared:
            try:
                runs.append(recorder.run(fn, tensors))
            except Exception:
                continue
    for run in runs:
        _merge_reach(seen, run)


def analyze_entries(entries, jobs: int = 1, progress=None, meanwhile=None) -> tuple[dict, dict, dict]:
    """Trace the entries' samples through the table: ({overload: (prims, missing)},
    {entry name: sample count}, {overload: [entry names seen calling it]}). ``jobs`` > 1 splits
    the entries over that many forked processes (tracing is CPU-bound and single-threaded), in small
    chunks so that ``progress(done, total)`` is called as they finish. ``meanwhile(poll)`` runs in this
    process while the workers trace (the program view), calling ``poll()`` now and then: it takes the
    chunks finished so far, so that progress goes on being reported."""
    names = [e.name for e in entries]
    progress = progress or (lambda done, total: None)
    if jobs > 1 and len(names) > 1 and hasattr(os, "fork"):
        import multiprocessing
        # the first entry traces here, before the fork: the workers inherit the wrapped table and torch's
        # warmed caches (dispatch, fake-tensor, the composites' kernels) instead of building them each
        parts, done = [_analyze_names(names[:1])], 1
        size = max(1, min(4, len(names) // (jobs * 8) or 1))   # small chunks: a few entries trace for seconds
        chunks = [names[i:i + size] for i in range(1, len(names), size)]
        # a forked child that enters an OpenMP region its parent had started hangs in libgomp's barrier
        # (seen with pytest-xdist): the workers run torch's kernels on one thread, outside OpenMP
        with multiprocessing.get_context("fork").Pool(jobs, initializer=torch.set_num_threads, initargs=(1,)) as pool:
            pending = pool.imap_unordered(_analyze_names, chunks)

            def take(part):
                nonlocal done
                parts.append(part)
                done += len(part[1])
                progress(done, len(names))

            def poll():
                while True:
                    try:
                        take(pending.next(timeout=0))
                    except (multiprocessing.TimeoutError, StopIteration):
                        return
            if meanwhile is not None:
                meanwhile(poll)
            for part in pending:
                take(part)
    else:
        if meanwhile is not None:
            meanwhile(lambda: None)
        parts = []
        for i in range(0, len(names), 16):
            parts.append(_analyze_names(names[i:i + 16]))
            progress(min(i + 16, len(names)), len(names))
    reach, counts, seen_by = {}, {}, collections.defaultdict(list)
    for part_reach, part_counts, part_seen in parts:
        _merge_reach(reach, part_reach)
        counts.update(part_counts)
        for name, entry_names in part_seen.items():
            seen_by[name] += entry_names
    order = {n: i for i, n in enumerate(names)}   # entries in database order, however they were split
    return reach, counts, {k: sorted(v, key=order.__getitem__) for k, v in seen_by.items()}


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity: ``taskset``, a container's cpuset), which
    ``os.cpu_count()`` does not see: the report's default number of processes."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:    # no affinity on this platform (macOS, Windows)
        return os.cpu_count() or 1


def _merge_reach(into: dict, more: dict) -> None:
    """{overload: (prims, missing)} unions, in place."""
    for name, (reached, missing) in more.items():
        r, m = into.get(name, (set(), set()))
        into[name] = (r | reached, m | missing)


_RECORDER = []   # one per process: wrapping the table costs more than tracing a small entry


def _analyze_names(entry_names):
    from primkit import opinfo
    by_name = {e.name: e for e in opinfo.op_db}
    if not _RECORDER:
        _RECORDER.append(_Recorder(decompositions.get_decompositions()))
    recorder = _RECORDER[0]
    reach, counts, seen_by = {}, {}, collections.defaultdict(list)
    _analyze_into(entry_names, by_name, recorder, reach, counts, seen_by)
    return reach, counts, dict(seen_by)


def _analyze_into(entry_names, by_name, recorder, reach, counts, seen_by):
    for entry_name in entry_names:
        seen, counts[entry_name] = trace_entry(by_name[entry_name], recorder)
        _merge_reach(reach, seen)
        for name in seen:
            seen_by[name].append(entry_name)


def build_report(*, target=None, analyze=True, test_results=None, jobs: int | None = None, programs=None,
                 progress=None) -> dict:
    """The report. ``analyze``: trace every entry's samples (prims reached, partial status);
    ``jobs``: processes for that (default: one per core); ``programs``: [(name, callable, args)]
    traced whole for the per-program view (``program_view``), in this process while the workers
    trace samples; ``progress(done, total)``: called as entries and programs finish (each counts one)."""
    from primkit import opinfo
    start = time.time()
    table = decompositions.get_decompositions()
    declared = collections.defaultdict(list)
    for entry in opinfo.op_db:
        for name in entry.aten:
            declared[name].append(entry.name)
    reach, entry_samples, seen_by, views = {}, {}, {}, {}
    entries = [e for e in opinfo.op_db if not e.is_prim] if analyze else []
    progress = progress or (lambda done, total: None)
    traced = {"entries": 0, "programs": 0}   # what the progress counts: entries and programs finished

    def step(what, done):
        traced[what] = done
        progress(traced["entries"] + traced["programs"], len(entries) + len(programs or ()))

    def meanwhile(poll):
        """What needs no sample traced: the overloads, their ops, tags and families, and the programs."""
        names = set(aten_overload_names()) | {op.name() for op in table}
        views["families"] = _families(names, table)
        views["overloads"] = [(name, resolve(name)) for name in sorted(names)]
        views["tags"] = {name: op_tags(op) for name, op in views["overloads"]}
        poll()
        if programs:
            views["programs"] = program_view(programs, target, step=lambda done: (step("programs", done), poll()))
    if analyze:
        reach, entry_samples, seen_by = analyze_entries(entries, jobs or usable_cores(),
                                                        lambda done, total: step("entries", done), meanwhile)
    else:
        meanwhile(lambda: None)
    families = views["families"]
    rows = []
    for name, op in views["overloads"]:
        fn = table.get(op) if op is not None else None
        reached, missing = reach.get(name, (set(), set()))
        if is_bookkeeping(name):
            status = "bookkeeping"
        elif fn is None:
            status = "missing"
        elif missing:
            status = "partial"
        else:
            status = "prims"
        # the entries that call the overload themselves: declared, or seen calling it at top level and
        # named for its operator (not a random op's sample that happens to call __and__)
        entries = declared.get(name, []) + [e for e in seen_by.get(name, []) if e not in declared.get(name, [])
                                            and _named_for(e, name)]
        rows.append({
            "name": name, "status": status, "prims": sorted(reached), "missing": sorted(missing),
            "opinfo": entries, "samples": sum(entry_samples.get(e, 0) for e in entries), "traced": name in reach,
            "tests": _tests_for(entries, test_results), "tags": views["tags"][name], "family": families.get(name),
        })
    report = {"torch_version": torch.__version__, "summary": {}, "ops": rows}
    if "programs" in views:
        report["programs"] = views["programs"]
    rank_blockers(report)
    report["summary"] = summarize(rows)
    report["summary"]["opinfo_entries"] = len(opinfo.op_db)
    if target is not None:
        apply_target(report, target)
    report["generated_in_s"] = round(time.time() - start, 1)
    return report


def _named_for(entry_name: str, overload: str) -> bool:
    """Whether an OpInfo entry is named for the operator of ``overload`` ('nn.functional.softmax'
    for aten::softmax.int, 'add' for aten::add_.Tensor)."""
    op = _operator(overload).strip("_")
    return op == entry_name.rsplit(".", 1)[-1].strip("_") or op in entry_name.replace(".", "_").split("_") and len(op) > 3


# Operators none of whose overloads decompose, grouped by what their names say they are (first match),
# so that the family chart says what kind of op is missing: "missing: <group>".
MISSING_GROUPS = (
    ("foreach", re.compile(r"^_foreach_")),
    ("torch's own tests", re.compile(r"^_test_")),
    ("sparse", re.compile(r"sparse|_coo|_csr|_csc|_bsr|_bsc|_nnz|indices|^_?values|coalesce|to_dense|^ccol|^crow|_cslt")),
    ("quantized", re.compile(r"quantize|^_?q_|^q|fake_quant|qint|_per_tensor|_per_channel|fbgemm|^int_repr|int4|int8|"
                             r"_dyn_quant")),
    ("nested", re.compile(r"nested|jagged")),
    ("device-specific", re.compile(r"mkldnn|cudnn|miopen|nnpack|mps|vulkan|cufft|cuda|xpu|_efficient_attention|_flash")),
    ("backward", re.compile(r"backward")),
    ("fused", re.compile(r"^_fused|^_amp_|^_addmm_activation|_add_relu|^_thnn_fused")),
    ("recurrent", re.compile(r"lstm|gru|rnn|packed_sequence|padded_sequence")),
    ("random", re.compile(r"poisson|binomial|gamma|dirichlet|sobol|philox|normal|rand")),
    # decompositions/collective.NOT_DECOMPOSED says why
    ("point-to-point", re.compile(r"isend|irecv|p2p|^send$|^recv")),
)
# c10d's other process-group ops without a decomposition (gather_, scatter_, alltoall_, barrier, ...)
_PROCESS_GROUP = "collective (c10d)"


def missing_group(name: str) -> str:
    """The chart's group for an overload whose operator has no decomposition at all."""
    namespace, base = name.partition("::")[0], _operator(name)
    group = next((g for g, pattern in MISSING_GROUPS if pattern.search(base)), None)
    if group is None and namespace == "c10d":
        group = _PROCESS_GROUP
    return "missing: " + (group or "other")


def _families(names, table) -> dict:
    """overload -> the family of its decomposition; an overload without one gets the family of
    another overload of its operator, else its ``missing_group``: every missing op is counted somewhere."""
    by_name = {op.name(): family_of(fn) for op, fn in table.items()}
    by_operator = {}
    for name, family in sorted(by_name.items()):
        by_operator.setdefault(_operator(name), family)
    return {n: by_name.get(n) or by_operator.get(_operator(n)) or missing_group(n) for n in names}


def program_view(programs, target=None, keep=None, step=None) -> list[dict]:
    """Per program: the prims its inference graph needs, and what blocks it: ATen ops without a
    decomposition (``missing_ops``) or, for a target, prims it needs outside it (``missing_prims``).
    ``step(done)`` is called as each program finishes."""
    out = []
    for name, fn, args in programs:
        row = {"name": name, "prims": {}, "kept": {}, "missing_ops": [], "missing_prims": [], "error": None}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                need = graph.requirements(fn, *args, target=target, keep=keep)
            row.update(prims=need["prims"], kept=need["kept"], missing_prims=need["missing"])
        except decompositions.DecompositionError as e:
            row["missing_ops"] = [m for m in e.missing if not m.startswith("primkit")]
            row["error"] = str(e).splitlines()[0]
        except Exception as e:   # a program that does not trace is reported, not fatal
            row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        row["status"] = "prims" if not (row["missing_ops"] or row["missing_prims"] or row["error"]) else "blocked"
        out.append(row)
        if step is not None:
            step(len(out))
    return out


def rank_blockers(report) -> None:
    """``ops[].blocks`` for each missing or partial overload: {core, programs, ops, score}: whether it is
    core ATen, the programs that need it, the partial ops whose traces reach it; the score ranks them
    (a program counts most, then core, then each op it blocks)."""
    by_missing = collections.defaultdict(list)
    for r in report["ops"]:
        for m in r["missing"]:
            by_missing[m].append(r["name"])
    by_program = collections.defaultdict(list)
    for p in report.get("programs", []):
        for m in p["missing_ops"]:
            by_program[m].append(p["name"])
    for r in report["ops"]:
        if r["status"] not in ("missing", "partial"):
            continue
        core = "core" in r["tags"]
        programs, ops = by_program.get(r["name"], []), by_missing.get(r["name"], [])
        r["blocks"] = {"core": core, "programs": programs, "ops": ops,
                       "score": 10 * len(programs) + 5 * core + len(ops)}


def apply_target(report: dict, target) -> dict:
    """Mark, in place, the rows that reach only the prim set ``target``, directly or through the
    prims' lowerings (``ops[].in_target``; ``trace(target=...)`` applies those lowerings), and add
    ``summary.target``; returns the report."""
    from primkit.decompositions.lowering import unreachable
    from primkit.prims import dtypes as dt
    target = set(target)
    # the samples are traced in float32 where the op takes it (else its first dtype): real dtypes,
    # so a lowering valid only for real inputs counts (tanh for a float-only backend)
    outside = unreachable(target, dt.resolve(["bool", "real"]))
    for row in report["ops"]:
        row["in_target"] = row["status"] == "prims" and bool(row["prims"]) and not set(row["prims"]) & outside
        row["outside_target"] = sorted(set(row["prims"]) & outside)
    # the prims outside the set that block most ops: what the backend should implement next
    blocking = collections.Counter(p for r in report["ops"] for p in r["outside_target"])
    report["summary"]["target"] = {"prims": sorted(target), "unreachable_prims": sorted(outside),
                                   "reaching": sum(r["in_target"] for r in report["ops"]),
                                   "blocking_prims": dict(blocking.most_common())}
    return report


def _tests_for(entry_names, test_results) -> dict:
    """{"<dtype>/<device>": {"passed": n, "failed": n, "xfailed": n, "skipped": n}} over the entries."""
    out: dict = {}
    for e in entry_names:
        for key, counts in (test_results or {}).get(e, {}).items():
            acc = out.setdefault(key, {})
            for k, v in counts.items():
                acc[k] = acc.get(k, 0) + v
    return out


def parse_junit(path) -> dict:
    """pytest's junit XML -> {entry name: {"<dtype>/<device>": {outcome: count}}} for tests/test_ops.py."""
    import re
    import xml.etree.ElementTree as ET
    results: dict = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        m = re.match(r"test_\w+\[(.+)\]$", case.get("name", ""))
        if not m or not case.get("classname", "").endswith("test_ops"):
            continue
        parts = m.group(1).rsplit("-", 2)
        if len(parts) == 3 and parts[2] in ("cpu", "cuda"):
            entry, key = parts[0], f"{parts[1]}/{parts[2]}"
        else:
            entry, _, device = m.group(1).rpartition("-")
            key = f"any/{device}"
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
            elif child.tag == "skipped":
                outcome = "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
        counts = results.setdefault(entry, {}).setdefault(key, {})
        counts[outcome] = counts.get(outcome, 0) + 1
    return results


def summarize(rows) -> dict:
    """Counts over the rows; bookkeeping rows count in ``status`` only. Rows with status ``prims``
    that no traced sample called are ``assumed`` (in ``per_family`` and ``per_tag`` too)."""
    status = collections.Counter(r["status"] for r in rows)
    counted = [r for r in rows if r["status"] != "bookkeeping"]

    def kind(r):
        return "assumed" if r["status"] == "prims" and not r.get("traced") else r["status"]
    per_tag = {t: collections.Counter(kind(r) for r in counted if t in r["tags"]) for t in TAGS}
    per_family = collections.defaultdict(collections.Counter)
    for r in counted:
        if r["family"]:
            per_family[r["family"]][kind(r)] += 1
            per_family[r["family"]]["tested"] += bool(r["opinfo"])
    prim_use = collections.Counter(p for r in rows for p in r["prims"])
    core = [r for r in counted if "core" in r["tags"]]
    reaching = [r for r in rows if r["status"] == "prims"]
    blockers = sorted((r for r in rows if "blocks" in r), key=lambda r: (-r["blocks"]["score"], r["name"]))
    return {
        "assumed": sum(kind(r) == "assumed" for r in rows),
        "top_blockers": [r["name"] for r in blockers[:25]],
        "overloads": len(rows),
        "status": dict(status),
        "reach_prims": len(reaching),
        "reach_prims_tested": sum(1 for r in reaching if r["opinfo"]),
        "reach_prims_traced": sum(1 for r in reaching if r.get("traced")),
        "operators_reaching_prims": len({_operator(r["name"]) for r in reaching}),
        "operators_tested": _operators_tested(rows),
        "core": {"total": len(core), "prims": sum(r["status"] == "prims" for r in core)},
        "per_tag": {t: dict(c) for t, c in per_tag.items()},
        "per_family": {f: dict(c) for f, c in sorted(per_family.items())},
        "prim_use": dict(prim_use.most_common()),
        "catalog_prims": len(prims.catalog()),
    }


def _operator(name: str) -> str:
    """'aten::add_.Tensor' -> 'add': the operator an overload belongs to (in-place and out= included)."""
    return name.split("::")[1].split(".")[0].rstrip("_")


def _operators_tested(rows) -> int:
    """Operators all of whose overloads reach prims, one of them exercised by an OpInfo entry."""
    by_op = collections.defaultdict(list)
    for r in rows:
        by_op[_operator(r["name"])].append(r)
    return sum(all(r["status"] == "prims" for r in rs) and any(r["opinfo"] for r in rs) for rs in by_op.values())


def to_markdown(report) -> str:
    s = report["summary"]
    status = s["status"]
    lines = [
        f"# primkit op coverage (torch {report['torch_version']})", "",
        f"{s['catalog_prims']} prims in the catalog. {s['overloads']} overloads (ATen, and torch's functional and "
        f"c10d collectives): "
        f"{status.get('prims', 0)} decompose to prims ({s['reach_prims_tested']} of them tested by an OpInfo "
        f"entry, {s.get('reach_prims_traced', '?')} seen reaching prims in a traced sample, {s.get('assumed', '?')} "
        f"assumed from the table), {status.get('partial', 0)} partially, {status.get('missing', 0)} missing, "
        f"{status.get('bookkeeping', 0)} SymInt bookkeeping. "
        f"{s['operators_reaching_prims']} distinct operators reach prims ({s['operators_tested']} through every "
        f"overload and tested). Core ATen: "
        f"{s['core']['prims']} / {s['core']['total']}.", "",
        "## By family", "", "| family | traced | assumed | partial | missing | tested |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for fam, c in s["per_family"].items():
        lines.append(f"| {fam} | {c.get('prims', 0)} | {c.get('assumed', 0)} | {c.get('partial', 0)} | "
                     f"{c.get('missing', 0)} | {c.get('tested', 0)} |")
    lines += ["", "## By tag", "", "| tag | traced | assumed | partial | missing |", "| --- | ---: | ---: | ---: | ---: |"]
    for tag, c in s["per_tag"].items():
        lines.append(f"| {tag} | {c.get('prims', 0)} | {c.get('assumed', 0)} | {c.get('partial', 0)} | "
                     f"{c.get('missing', 0)} |")
    rows = {r["name"]: r for r in report["ops"]}
    lines += ["", "## What to build next (missing and partial ops, ranked by what they block)", "",
              "| overload | status | core | programs | ops it blocks |", "| --- | --- | --- | --- | ---: |"]
    for name in s.get("top_blockers", []):
        b = rows[name]["blocks"]
        lines.append(f"| `{name}` | {rows[name]['status']} | {'yes' if b['core'] else ''} | "
                     f"{', '.join(b['programs'])} | {len(b['ops'])} |")
    if report.get("programs"):
        lines += ["", "## Programs (the test zoo, inference)", "", "| program | status | prims | blocked by |",
                  "| --- | --- | ---: | --- |"]
        for p in report["programs"]:
            blocked = [f"`{m}`" for m in p["missing_ops"]] + sorted({f"`primkit::{m['prim']}` ({m['aten']})"
                                                                    for m in p["missing_prims"]})
            lines.append(f"| {p['name']} | {p['status']} | {len(p['prims'])} | "
                         f"{', '.join(blocked) or (p['error'] or '')} |")
    if s.get("target"):
        t = s["target"]
        lines += ["", f"## Target ({len(t['prims'])} prims): {t['reaching']} overloads reach it", "",
                  "Prims outside it that block most overloads: " +
                  (", ".join(f"`{p}` {n}" for p, n in list(t["blocking_prims"].items())[:30]) or "(none)")]
    lines += ["", "## Prim use (ops whose traced samples reach each prim)", "",
              ", ".join(f"`{p}` {n}" for p, n in s["prim_use"].items()) or "(none traced)", ""]
    for status_name, title in (("partial", "Partial (decomposition reaches ops without one)"),
                               ("prims", "Decomposes to prims"), ("missing", "Missing")):
        section = [r for r in report["ops"] if r["status"] == status_name]
        lines += [f"## {title}: {len(section)}", ""]
        if status_name == "missing":
            lines += ["<details><summary>show</summary>", ""]
        lines += ["| overload | family | seen | OpInfo | prims | missing | tags |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for r in section:
            lines.append(f"| `{r['name']}` | {r['family'] or ''} | {'traced' if r.get('traced') else 'assumed'} | "
                         f"{', '.join(r['opinfo'])} | {' '.join(r['prims'])} | {' '.join(r['missing'])} | "
                         f"{' '.join(r['tags'])} |")
        if status_name == "missing":
            lines += ["", "</details>"]
        lines.append("")
    return "\n".join(lines)
