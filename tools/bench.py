"""``primkit bench``: how fast prim graphs run and trace, against torch's own paths.

Per model, side by side in one run: interleaved repetitions, the order of the runs reversed in every
other one; a ratio is the median of the per-repetition ratios (tracing: the ratio of the medians):

- executor / eager: ``trace(model)`` compiled by runtime.executor, against the model's forward;
- reference / eager: the same traced graph on the reference backend (torch.ops.primkit);
- through_prims / eager: the model's forward run op by op through prims on real tensors
  (``runtime.eager.through_prims``), no trace;
- primkit_inductor / inductor: torch.compile with backend="primkit_inductor" against the default
  backend ("inductor"), both after their compile (``--skip-inductor`` leaves them out: Inductor
  compiles for minutes on a small machine);
- trace / make_fx: ``trace(model)`` against ``make_fx(model, tracing_mode="fake")`` (ATen graph, no
  decomposition table): the cost of decomposing to prims and canonicalizing over capturing ATen;
  trace path: the path ``trace`` took (``direct``, or ``make_fx`` where the model left the direct
  path: see graph.dispatch_tracer);
- canonicalize / trace: the share of ``trace(model)`` that canonicalization takes: its passes
  (``graph.canonicalize.canonicalize_graph``, as ``trace`` runs them) timed on the graph of
  ``trace(model, canonical=False)``, against ``trace(model)`` (timed directly, not as the difference
  of two traces, which the noise of a shared machine swamps). The public ``canonicalize`` also makes
  the graph's code again, which ``trace`` does once for either graph, so that is not counted.

Before the tables: ``import primkit``'s cost beyond ``import torch``, in fresh interpreters (median).

The models: small configurations of transformers models (GPT-2, BERT, Llama, Mistral, T5's encoder,
ViT, ResNet, ConvNeXt, Whisper's encoder), batch 2, in evaluation mode under no_grad, on CPU and on
CUDA where a GPU is present. The geometric mean of each ratio closes the table.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys

import torch

from primkit.tools import bench_costs
from primkit.tools.bench_models import (_models, _Outputs, _positional, _tensors, _timed, interleaved_times,
                                        paired_ratio)

def _close(a, b) -> bool:
    la, lb = _tensors(a), _tensors(b)
    return len(la) == len(lb) and all(torch.allclose(x, y, atol=1e-4, rtol=1e-3) for x, y in zip(la, lb))


def _max_diff(a, b) -> float:
    return max((float((x.double() - y.double()).abs().max()) for x, y in zip(_tensors(a), _tensors(b))
                if x.numel()), default=0.0)


def bench_model(name, build, device, repeat, inductor, trace_repeat):
    from torch.fx.experimental.proxy_tensor import make_fx
    from primkit.runtime import executor, through_prims
    from primkit.graph import trace
    from primkit.graph.canonicalize import canonicalize_graph
    torch.manual_seed(0)
    model, inputs = build()
    model = _Outputs(model).eval().to(device)
    inputs = {k: v.to(device) for k, v in inputs.items()}
    row = {}
    with torch.no_grad():
        gm = trace(model, **inputs)
        run = executor.compile(gm)
        expected = model(**inputs)
        assert _close(run(**inputs), gm(**inputs)), f"{name}: the executor differs from the reference backend"
        def eager_through_prims():
            with through_prims():
                return model(**inputs)
        assert _close(eager_through_prims(), expected), f"{name}: through_prims differs from eager"
        runs = {"eager": lambda: model(**inputs), "reference": lambda: gm(**inputs), "executor": lambda: run(**inputs),
                "through_prims": eager_through_prims}
        if inductor:
            torch._dynamo.reset()
            default = torch.compile(model, backend="inductor")
            prim = torch.compile(model, backend="primkit_inductor")
            for f in (default, prim):   # compile, and warm up
                f(**inputs)
            got, own = prim(**inputs), default(**inputs)
            # Inductor's own result differs from eager's by its reordered arithmetic and, on CUDA, by
            # cuDNN's TF32 convolutions (torch's default there): past the fixed tolerance,
            # primkit_inductor is held to at most twice Inductor's own difference from eager.
            assert _close(got, expected) or _max_diff(got, expected) <= 2 * _max_diff(own, expected), (
                f"{name}: primkit_inductor differs from eager by {_max_diff(got, expected):.3g} "
                f"(Inductor by {_max_diff(own, expected):.3g})")
            runs.update({"inductor": lambda: default(**inputs), "primkit_inductor": lambda: prim(**inputs)})
        for f in runs.values():
            f()
        times = interleaved_times(runs, repeat, device)
    fn, args = _positional(model, inputs)
    raw = []    # the latest trace(model, canonical=False), which "canonicalize" then canonicalizes
    tracers = {"trace": lambda: trace(model, **inputs),
               "trace_raw": lambda: raw.append(trace(model, canonical=False, **inputs)),
               "canonicalize": lambda: canonicalize_graph(raw.pop()),
               "make_fx": lambda: make_fx(fn, tracing_mode="fake", _allow_non_fake_inputs=True)(*args)}
    ttimes = {k: [] for k in tracers}
    with torch.no_grad():
        for _ in range(trace_repeat):
            for k, f in tracers.items():
                ttimes[k].append(_timed(f, device))
    med = {k: statistics.median(v) for k, v in {**times, **ttimes}.items()}

    def paired(k, base):
        return paired_ratio(times, k, base)
    row["eager_ms"] = med["eager"] * 1e3
    row["executor"] = paired("executor", "eager")
    row["reference"] = paired("reference", "eager")
    row["through_prims"] = paired("through_prims", "eager")
    if inductor:
        row["primkit_inductor"] = paired("primkit_inductor", "inductor")
    row["trace"] = med["trace"] / med["make_fx"]
    row["trace_s"] = med["trace"]
    row["trace_path"] = gm.meta["trace_path"].split(":")[0]   # direct, or make_fx (see graph.dispatch_tracer)
    row["canonicalize"] = med["canonicalize"] / med["trace"]
    return row


_IMPORT = ("import time; t = time.perf_counter(); import torch; t1 = time.perf_counter(); import primkit; "
           "print(time.perf_counter() - t1)")


def import_seconds(repeat: int) -> float:
    """``import primkit``'s cost beyond ``import torch``: the median over fresh interpreters, with bytecode
    caches as an installed package has them (pip compiles them at install): PYTHONDONTWRITEBYTECODE is
    left out of their environment, and one untimed import first writes the caches where they are missing
    (without them, compiling primkit's modules costs ~0.2 s on every import)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    def run():
        return float(subprocess.run([sys.executable, "-c", _IMPORT], capture_output=True, text=True, check=True,
                                    env=env).stdout)
    run()
    return statistics.median(run() for _ in range(repeat))


COLUMNS = [("eager_step_ms", "eager step ms", "{:.2f}"), ("primkit_step", "primkit/eager step", "{:.2f}x"),
           ("primkit_inductor_step", "primkit_inductor/inductor step", "{:.2f}x"),
           ("inductor_compile_s", "inductor compile s", "{:.1f}"),
           ("primkit_inductor_compile_s", "primkit_inductor compile s", "{:.1f}"),
           ("compile", "primkit_inductor/inductor compile", "{:.2f}x"),
           ("eager_ms", "eager ms", "{:.2f}"), ("executor", "executor/eager", "{:.2f}x"),
           ("reference", "reference/eager", "{:.2f}x"), ("through_prims", "through_prims/eager", "{:.2f}x"),
           ("primkit_inductor", "primkit_inductor/inductor", "{:.2f}x"),
           ("trace", "trace/make_fx", "{:.2f}x"), ("trace_s", "trace s", "{:.2f}"), ("trace_path", "trace path", "{}"),
           ("canonicalize", "canonicalize/trace", "{:.0%}")]


def _table(rows: dict) -> str:
    cols = [c for c in COLUMNS if any(c[0] in r for r in rows.values())]
    lines = ["| model | " + " | ".join(c[1] for c in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for name, r in rows.items():
        lines.append(f"| {name} | " + " | ".join(c[2].format(r[c[0]]) if c[0] in r else "-" for c in cols) + " |")
    geo = []
    for key, _, fmt in cols:
        vals = [r[key] for r in rows.values() if key in r]
        geo.append(fmt.format(math.exp(sum(map(math.log, vals)) / len(vals))) if vals and key not in
                   ("eager_ms", "trace_s", "trace_path", "canonicalize", "eager_step_ms",
                                          "inductor_compile_s", "primkit_inductor_compile_s") else "")
    lines.append("| geomean | " + " | ".join(geo) + " |")
    return "\n".join(lines)


def main(argv=None, prog="primkit bench") -> int:
    models = _models()
    p = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(models), help=f"comma-separated, of: {', '.join(models)}")
    p.add_argument("--repeat", type=int, default=7, help="timed runs of each graph (median)")
    p.add_argument("--trace-repeat", type=int, default=3, help="timed traces of each model (median)")
    p.add_argument("--import-repeat", type=int, default=5, help="fresh interpreters timing import primkit (0: skip)")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    p.add_argument("--skip-inductor", action="store_true", help="leave out the Inductor columns")
    p.add_argument("--device", choices=["cpu", "cuda", "all"], default="all",
                   help="cpu, cuda, or all: cpu and, where a GPU is present, cuda")
    p.add_argument("--training", action="store_true",
                   help="instead of inference: a training step, primkit_inductor/inductor and primkit/eager")
    p.add_argument("--compile-time", action="store_true",
                   help="instead of inference: the first call's compile time, primkit_inductor/inductor, "
                        "each in a fresh interpreter with an empty Inductor cache (--repeat pairs)")
    p.add_argument("--depth", action="store_true",
                   help="instead of inference: trace of a Llama-style decoder at 4, 16, 32 layers against "
                        "torch.export's run_decompositions, with peak memory")
    p.add_argument("--big", nargs="?", const="full", choices=["full", "tiny"],
                   help="big inputs instead of the models (tiny: the same ops on small shapes)")
    p.add_argument("--onnx", action="store_true",
                   help="only the ONNX section: primkit's exporter beside torch.onnx.export(dynamo=True), run by onnxruntime")
    args = p.parse_args(argv)
    if args.onnx:
        return onnx_section(models, args)
    torch.set_num_threads(args.threads)
    from primkit import decompositions  # noqa: F401  (defines the prims before any timing)
    if args.big:
        return bench_costs.main_big(args.big, args.repeat, args.threads)
    chosen = [m.strip() for m in args.models.split(",") if m.strip()]
    unknown = [m for m in chosen if m not in models]
    if unknown:
        p.error(f"unknown models {unknown}; choose from {', '.join(models)}")
    if args.import_repeat > 0:
        print(f"import primkit: {import_seconds(args.import_repeat):.2f} s beyond import torch "
              f"(median of {args.import_repeat} fresh interpreters)", flush=True)
    if args.depth:
        print("depth (fresh interpreter per figure, cpu):\n\n" + bench_costs.depth_table(bench_costs.bench_depth()),
              flush=True)
        return 0
    devices = ["cpu", "cuda"] if args.device == "all" else [args.device]
    for device in devices:
        if device == "cuda" and not torch.cuda.is_available():
            continue
        rows = {}
        for name in chosen:
            if args.training:
                rows[name] = bench_costs.bench_training(name, models[name], torch.device(device), args.repeat,
                                                        not args.skip_inductor)
            elif args.compile_time:
                rows[name] = bench_costs.bench_compile_time(name, device, args.repeat)
            else:
                rows[name] = bench_model(name, models[name], torch.device(device), args.repeat,
                                         not args.skip_inductor, args.trace_repeat)
            print(f"{name}: " + ", ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                          for k, v in rows[name].items()), flush=True)
        print(f"\n{device}, {args.threads} thread(s), median of {args.repeat} (tracing: {args.trace_repeat}):\n")
        print(_table(rows), flush=True)
    return 0


def onnx_section(models, args) -> int:
    """``--onnx``: the chosen models exported by primkit (primkit.export.onnx) and by
    torch.onnx.export(dynamo=True), each run by onnxruntime on CPU (primkit.export.onnx_bench)."""
    from primkit.export import onnx_bench
    torch.set_num_threads(args.threads)
    rows = []
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        model, inputs = models[name]()
        fn = _Outputs(model).eval()
        wrapped = _PositionalOutputs(fn, list(inputs))
        rows.append(onnx_bench.compare(name, wrapped, tuple(inputs.values()), repeat=args.repeat))
        print(rows[-1], flush=True)
    print("\n" + onnx_bench.table(rows), flush=True)
    return 0


class _PositionalOutputs(torch.nn.Module):
    """An _Outputs model called with its keyword inputs positionally (ONNX graph inputs)."""

    def __init__(self, model, names):
        super().__init__()
        self.model, self.names = model, names

    def forward(self, *values):
        return self.model(**dict(zip(self.names, values)))


if __name__ == "__main__":
    sys.exit(main(prog="python -m primkit.tools.bench"))
