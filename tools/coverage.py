"""python -m tools.coverage: write the op coverage report.

    python -m tools.coverage [--format json|md|html] [-o FILE] [--target PRIMS] [--run-tests]
    python -m tools.coverage --from reports/coverage.json --format html    # re-render a JSON report

One row per ATen overload of the installed torch: its status (prims / partial / missing), the
prims its OpInfo samples reach, its OpInfo entries and sample count, its tags, and with
--run-tests the pass / fail / xfail counts per dtype and device of a real pytest run.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run_tests(pytest_args) -> dict:
    """Run the OpInfo suite under pytest, parse its junit XML; a progress bar on a terminal."""
    from opinfo.coverage import parse_junit
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "junit.xml")
        cmd = [sys.executable, "-m", "pytest", "tests/test_ops.py", "-v", "-p", "no:cacheprovider",
               f"--junitxml={junit}", *pytest_args]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        tty = sys.stderr.isatty()
        done = 0
        for line in proc.stdout:
            m = re.search(r"\[\s*(\d+)%\]", line)
            if re.search(r"\b(PASSED|FAILED|XFAIL|XPASS|SKIPPED|ERROR)\b", line):
                done += 1
            if tty and m:
                pct = int(m.group(1))
                bar = "#" * (pct * 40 // 100)
                sys.stderr.write(f"\r[{bar:<40}] {pct:3d}% {done} tests")
                sys.stderr.flush()
        proc.wait()
        if tty:
            sys.stderr.write("\n")
        if not os.path.exists(junit):
            raise SystemExit(f"tools.coverage: pytest wrote no results (exit code {proc.returncode})")
        return parse_junit(junit)


def load_report(path) -> dict:
    """A JSON report written by this tool; anything else is an error naming the file."""
    try:
        report = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as e:
        raise SystemExit(f"tools.coverage: --from {path}: cannot read a JSON report: {e}")
    missing = {"torch_version", "summary", "ops"} - set(report if isinstance(report, dict) else ())
    if missing:
        raise SystemExit(f"tools.coverage: --from {path}: not a coverage report (no {', '.join(sorted(missing))})")
    return report


def parse_target(text: str) -> set:
    """Comma-separated prim names, or @FILE with one name per line; unknown names are an error."""
    import prims
    if text.startswith("@"):
        names = [n.strip() for n in pathlib.Path(text[1:]).read_text().split() if n.strip()]
    else:
        names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        prims.get(n)   # KeyError naming close matches
    return set(names)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.coverage", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=("json", "md", "html"), default=None,
                        help="output format (default: from the file suffix, else md)")
    parser.add_argument("-o", "--output", default=None, help="file to write (default: reports/coverage.<format>)")
    parser.add_argument("--target", default=None, metavar="PRIMS",
                        help="a backend's prim set (comma-separated names or @file): report which ops reach only it")
    parser.add_argument("--run-tests", action="store_true", help="run the OpInfo tests and add their results")
    parser.add_argument("--pytest-args", default="-n 2", help="extra pytest arguments for --run-tests (default: %(default)s)")
    parser.add_argument("--no-analyze", action="store_true", help="skip tracing OpInfo samples (no prims / partial)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes that trace the OpInfo samples (default: one per core)")
    parser.add_argument("--from", dest="source", default=None, metavar="JSON",
                        help="render this JSON report (written before by this tool) instead of building one")
    args = parser.parse_args(argv)
    if args.source and (args.run_tests or args.no_analyze or args.jobs):
        parser.error("--from renders an existing report: it takes no --run-tests, --no-analyze or --jobs")
    fmt = args.format or {".json": "json", ".html": "html", ".md": "md"}.get(
        pathlib.Path(args.output or "").suffix, "md")
    out = pathlib.Path(args.output or f"reports/coverage.{fmt}")
    from opinfo.coverage import apply_target, build_report, to_markdown
    from opinfo.report_html import to_html
    target = parse_target(args.target) if args.target else None
    if args.source:
        report = load_report(args.source)
        if target is not None:
            apply_target(report, target)
    else:
        results = run_tests(args.pytest_args.split()) if args.run_tests else None
        report = build_report(target=target, analyze=not args.no_analyze, test_results=results, jobs=args.jobs)
    text = {"json": lambda r: json.dumps(r, indent=1), "md": to_markdown, "html": to_html}[fmt](report)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    s = report["summary"]
    print(f"{out}: {s['overloads']} ATen overloads; {s['status'].get('prims', 0)} decompose to prims "
          f"({s['reach_prims_tested']} tested, {s.get('reach_prims_traced', '?')} traced), {s['status'].get('partial', 0)} partial, "
          f"{s['status'].get('missing', 0)} missing; {s['operators_reaching_prims']} operators "
          f"({s.get('operators_tested', '?')} through every overload and tested); "
          f"{s['catalog_prims']} prims; {s['opinfo_entries']} OpInfo entries; {report.get('generated_in_s', '?')} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
