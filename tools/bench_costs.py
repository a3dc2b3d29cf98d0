"""The costs users feel beyond one inference call, for ``primkit bench``: a training step, the first
call's compile time, and tracing depth.

- **Training step** (``--training``): forward, backward and an optimizer step (SGD with momentum) of
  each bench model in train mode (dropout on, default configurations), the loss the mean square of the
  model's first output. ``torch.compile(model, backend="primkit_inductor")`` against the default
  backend (``"inductor"``), and ``backend="primkit"`` against eager. Each side trains its own copy of
  the model; repetitions are interleaved, the order reversed in every other one, and a ratio is the
  median of the per-repetition ratios (as in the inference table).
- **Compile time** (``--compile-time``): the first call (trace, compile, run) of
  ``torch.compile(model, backend=B)`` in evaluation mode, each in a fresh interpreter with an empty
  Inductor cache (a new ``TORCHINDUCTOR_CACHE_DIR``), ``primkit_inductor`` against ``inductor``.
- **Depth** (``--depth``): ``trace`` of a Llama-style decoder (hidden 256) at 4, 16 and 32 layers
  against ``torch.export.export(...).run_decompositions()`` (PyTorch's core ATen table) on the same
  model, each in a fresh interpreter; the growth from the fewest to the most layers, and the peak
  resident memory the trace adds (``ru_maxrss`` after it, less before it).
- **Big inputs** (``--big``): ops whose prim graph once ran for minutes on a large input (random numbers,
  var / std with a correction, 3-d max pooling, float16 instance norm), on CPU. Per shape: ``trace`` time
  (fake tensors: it should not grow with the input), and the traced graph's run on the reference backend and
  on the executor against eager (median of the per-repetition ratios). ``--big tiny`` runs the same ops on
  small shapes (the unit test's).
"""
from __future__ import annotations

import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch

from primkit.tools.bench_models import _Outputs, _tensors, interleaved_times, paired_ratio


def _loss(out) -> torch.Tensor:
    first = _tensors(out)[0]
    return first.float().pow(2).mean()


def _step(model, opt, inputs):
    opt.zero_grad(set_to_none=True)
    loss = _loss(model(**inputs))
    loss.backward()
    opt.step()
    return loss.detach()


def bench_training(name, build, device, repeat, inductor=True) -> dict:
    """Ratios of a training step: primkit/eager and, with ``inductor``, primkit_inductor/inductor."""
    torch.manual_seed(0)
    model, inputs = build()
    base = _Outputs(model).train().to(device)
    inputs = {k: v.to(device) for k, v in inputs.items()}
    backends = {"eager": None, "primkit": "primkit"}
    if inductor:
        backends.update({"inductor": "inductor", "primkit_inductor": "primkit_inductor"})
    torch._dynamo.reset()
    steps = {}
    for key, backend in backends.items():
        m = copy.deepcopy(base)
        opt = torch.optim.SGD(m.parameters(), lr=1e-3, momentum=0.9)
        run = m if backend is None else torch.compile(m, backend=backend)
        steps[key] = (lambda run=run, opt=opt: _step(run, opt, inputs))
    for key, f in steps.items():      # compile, warm up
        for _ in range(2):
            loss = f()
            assert torch.isfinite(loss), f"{name}: the {key} training step's loss is {loss}"
    times = interleaved_times(steps, repeat, device)
    row = {"eager_step_ms": statistics.median(times["eager"]) * 1e3,
           "primkit_step": paired_ratio(times, "primkit", "eager")}
    if inductor:
        row["primkit_inductor_step"] = paired_ratio(times, "primkit_inductor", "inductor")
    return row


_COMPILE_ONE = """
import json, sys, time, torch
from primkit.tools.bench_models import _models, _Outputs
name, backend, device = sys.argv[1:4]
torch.manual_seed(0)
model, inputs = _models()[name]()
model = _Outputs(model).eval().to(device)
inputs = {k: v.to(device) for k, v in inputs.items()}
import primkit.decompositions  # noqa: F401  (primkit's import is not compile time)
compiled = torch.compile(model, backend=backend)
with torch.no_grad():
    if device == "cuda":
        torch.cuda.synchronize()
    t = time.perf_counter()
    compiled(**inputs)
    if device == "cuda":
        torch.cuda.synchronize()
    print(json.dumps(time.perf_counter() - t))
"""


def _fresh(code: str, *argv, env=None) -> object:
    """``code`` run in a fresh interpreter; its last printed line, as JSON."""
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, env=env)
    if out.returncode:
        raise RuntimeError(f"{' '.join(argv)}: the fresh interpreter failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_seconds(name: str, backend: str, device: str) -> float:
    """The first call of torch.compile(model, backend=backend) in a fresh interpreter, empty Inductor cache."""
    with tempfile.TemporaryDirectory(prefix="primkit-inductor-cache-") as cache:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache, "TRITON_CACHE_DIR": os.path.join(cache, "triton")}
        return _fresh(_COMPILE_ONE, name, backend, device, env=env)


def bench_compile_time(name, device, repeat) -> dict:
    """primkit_inductor/inductor on the first call, the median of ``repeat`` alternated pairs of fresh
    interpreters, and each side's seconds."""
    pairs = []
    for i in range(repeat):
        order = ("inductor", "primkit_inductor") if i % 2 == 0 else ("primkit_inductor", "inductor")
        t = {b: compile_seconds(name, b, device) for b in order}
        pairs.append(t)
    return {"inductor_compile_s": statistics.median(p["inductor"] for p in pairs),
            "primkit_inductor_compile_s": statistics.median(p["primkit_inductor"] for p in pairs),
            "compile": statistics.median(p["primkit_inductor"] / p["inductor"] for p in pairs)}


_DEPTH_ONE = """
import json, resource, sys, time, torch, transformers as tf
layers, how = int(sys.argv[1]), sys.argv[2]
torch.manual_seed(0)
ids = torch.randint(1, 512, (2, 64))
class Out(torch.nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m
    def forward(self, input_ids):
        return self.m(input_ids=input_ids).last_hidden_state
def build(n):
    config = tf.LlamaConfig(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=n,
                            num_attention_heads=8)
    return Out(tf.LlamaModel(config).eval())
from primkit import trace
def run(model):
    with torch.no_grad():
        if how == "trace":
            return trace(model, ids)
        return torch.export.export(model, (ids,)).run_decompositions()
run(build(1))          # the first trace in a process pays one-time costs, whatever the depth: not timed
model = build(layers)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
run(model)
seconds = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(json.dumps([seconds, peak / 1024]))
"""


def bench_depth(layers=(4, 16, 32)) -> dict:
    """layers -> {trace_s, export_s, trace_peak_mb, export_peak_mb}, each in a fresh interpreter."""
    rows = {}
    for n in layers:
        row = {}
        for how in ("trace", "export"):
            seconds, peak_mb = _fresh(_DEPTH_ONE, str(n), how)
            row[f"{how}_s"], row[f"{how}_peak_mb"] = seconds, peak_mb
        row["trace/export"] = row["trace_s"] / row["export_s"]
        rows[n] = row
    return rows


def depth_table(rows: dict) -> str:
    first, last = min(rows), max(rows)
    lines = ["| layers | trace s | export+run_decompositions s | trace/export | trace peak MB | export peak MB |",
             "|---|---|---|---|---|---|"]
    for n, r in rows.items():
        lines.append(f"| {n} | {r['trace_s']:.2f} | {r['export_s']:.2f} | {r['trace/export']:.2f}x | "
                     f"{r['trace_peak_mb']:.0f} | {r['export_peak_mb']:.0f} |")
    lines.append(f"| growth {first} -> {last} | {rows[last]['trace_s'] / rows[first]['trace_s']:.1f}x | "
                 f"{rows[last]['export_s'] / rows[first]['export_s']:.1f}x | | | |")
    return "\n".join(lines)


def big_cases(tiny: bool):
    """name -> (fn, args): the big-input ops, on their big shapes or (tiny) on small ones."""
    def size(big, small):
        return small if tiny else big
    square = size((4096, 4096), (64, 64))
    return {
        f"var dim 1 correction 2 {square}": (lambda x: torch.var(x, dim=1, correction=2), (torch.randn(square),)),
        f"std dim 1 correction 2 {square}": (lambda x: torch.std(x, dim=1, correction=2), (torch.randn(square),)),
        f"multinomial {size((1024, 50000), (8, 500))} x 64": (lambda p: torch.multinomial(p, 64),
                                                              (torch.rand(size((1024, 50000), (8, 500))),)),
        f"multinomial {size((1024, 50000), (8, 500))} x 64 replacement": (
            lambda p: torch.multinomial(p, 64, True), (torch.rand(size((1024, 50000), (8, 500))),)),
        f"randint {square}": (lambda: torch.randint(0, 100, square), ()),
        f"normal(mean {square}, 2.0)": (lambda m: torch.normal(m, 2.0), (torch.randn(square),)),
        f"exponential_ {square}": (lambda x: x.clone().exponential_(), (torch.randn(square),)),
        f"max_pool3d k3 s2 {size((2, 16, 64, 64, 64), (1, 2, 8, 8, 8))}": (
            lambda x: torch.nn.functional.max_pool3d(x, 3, 2),
            (torch.randn(size((2, 16, 64, 64, 64), (1, 2, 8, 8, 8))),)),
        f"InstanceNorm2d float16 train {size((8, 64, 256, 256), (2, 4, 8, 8))}": (
            torch.nn.InstanceNorm2d(size(64, 4)).train(),
            (torch.randn(size((8, 64, 256, 256), (2, 4, 8, 8)), dtype=torch.float16),)),
    }


def bench_big(fn, args, repeat):
    """trace time, and the traced graph on the reference backend and the executor against eager (median of the
    per-repetition ratios), for one op on its big input."""
    from primkit.graph import trace
    from primkit.runtime import executor
    start = time.perf_counter()
    gm = trace(fn, *args)
    row = {"trace_s": time.perf_counter() - start}
    run = executor.compile(gm)
    runs = {"eager": lambda: fn(*args), "reference": lambda: gm(*args), "executor": lambda: run(*args)}
    times = {k: [] for k in runs}
    with torch.no_grad():
        for _ in range(repeat):
            for k, f in runs.items():
                start = time.perf_counter()
                f()
                times[k].append(time.perf_counter() - start)
    row["eager_ms"] = statistics.median(times["eager"]) * 1e3
    for k in ("reference", "executor"):
        row[k] = statistics.median(a / b for a, b in zip(times[k], times["eager"]))
    return row


BIG_COLUMNS = [("eager_ms", "eager ms", "{:.1f}"), ("reference", "reference/eager", "{:.2f}x"),
               ("executor", "executor/eager", "{:.2f}x"), ("trace_s", "trace s", "{:.2f}")]


def _big_table(rows: dict) -> str:
    lines = ["| input | " + " | ".join(c[1] for c in BIG_COLUMNS) + " |", "|---" * (len(BIG_COLUMNS) + 1) + "|"]
    for name, r in rows.items():
        lines.append(f"| {name} | " + " | ".join(fmt.format(r[key]) for key, _, fmt in BIG_COLUMNS) + " |")
    return "\n".join(lines)


def main_big(size: str, repeat: int, threads: int) -> int:
    from primkit.graph import trace
    trace(torch.neg, torch.ones(2))     # the first trace of a process pays a one-time setup: not the first shape's
    rows = {}
    for name, (fn, args) in big_cases(size == "tiny").items():
        rows[name] = bench_big(fn, args, repeat)
        print(f"{name}: " + ", ".join(f"{k} {v:.4g}" for k, v in rows[name].items()), flush=True)
    print(f"\ncpu, {threads} thread(s), big inputs ({size}), median of {repeat}:\n")
    print(_big_table(rows), flush=True)
    return 0
