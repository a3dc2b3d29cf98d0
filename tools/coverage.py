"""primkit coverage: write the op coverage report.

    primkit coverage [--format json|md|html] [-o FILE] [--target PRIMS] [--run-tests] [--no-programs]
    primkit coverage --from reports/coverage.json --format html    # re-render a JSON report

(also ``python -m primkit coverage`` and ``python -m primkit.tools.coverage``). The report goes to
reports/coverage.<format> under the current directory unless -o says otherwise.

One row per ATen overload of the installed torch: its status (prims / partial / missing), the
prims its OpInfo samples reach, its OpInfo entries and sample count, its tags, and with
--run-tests the pass / fail / xfail counts per dtype and device of a real pytest run; and one row
per program of the test zoo (tests/models.py): the prims it needs and what blocks it. The test zoo
and the OpInfo suite of --run-tests are the repository's, not the package's: they are read from
the primkit checkout the command runs in (see ``checkout``); elsewhere the report has no programs.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

# Where an editable install's sources live (the checkout); in a wheel's install, site-packages/primkit.
_SOURCE_ROOT = pathlib.Path(__file__).resolve().parent.parent


def _is_checkout(d: pathlib.Path) -> bool:
    try:
        pyproject = (d / "pyproject.toml").read_text()
    except (OSError, UnicodeDecodeError):
        return False
    return (d / "tests" / "models.py").is_file() and re.search(r'^name\s*=\s*"primkit"', pyproject, re.M) is not None


def checkout() -> pathlib.Path | None:
    """The primkit repository the command runs in: the current directory or the nearest folder above
    it that holds primkit's pyproject.toml and tests/, else an editable install's source folder;
    None elsewhere (a wheel's install carries no tests)."""
    cwd = pathlib.Path.cwd().resolve()
    return next((d for d in (cwd, *cwd.parents, _SOURCE_ROOT) if _is_checkout(d)), None)


def run_tests(pytest_args, root: pathlib.Path, phase=None) -> dict:
    """Run the OpInfo suite of the checkout ``root`` under pytest (on the installed primkit), parse
    its junit XML; ``phase(text)`` is told how far it is."""
    from primkit.opinfo.coverage import parse_junit
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "junit.xml")
        cmd = [sys.executable, "-m", "pytest", "tests/test_ops.py", "-v", "-p", "no:cacheprovider",
               f"--junitxml={junit}", *pytest_args]
        proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        done = 0
        for line in proc.stdout:
            m = re.search(r"\[\s*(\d+)%\]", line)
            if re.search(r"\b(PASSED|FAILED|XFAIL|XPASS|SKIPPED|ERROR)\b", line):
                done += 1
            if phase is not None and m:
                phase(f"running the OpInfo tests: {int(m.group(1))}% ({done} tests)")
        proc.wait()
        if not os.path.exists(junit):
            raise SystemExit(f"primkit coverage: pytest wrote no results (exit code {proc.returncode})")
        return parse_junit(junit)


def zoo_programs() -> list:
    """The test zoo's models (the checkout's tests/models.py), [(name, model, args)]; none outside a
    checkout."""
    import importlib.util
    root = checkout()
    if root is None:
        return []
    path = root / "tests" / "models.py"
    spec = importlib.util.spec_from_file_location("primkit_test_zoo", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.zoo()


class Progress:
    """The command's progress bar (tqdm's) on ``stream``, stderr by default: drawn on a terminal, silent
    elsewhere (a pipe, a file). ``phase(text)`` names what runs now, before anything is counted (loading
    primkit, the test zoo; writing the report); ``progress(done, total)`` counts what is traced (the
    OpInfo entries and the zoo's programs): build_report calls it."""

    def __init__(self, stream=None):
        from tqdm import tqdm
        tqdm.monitor_interval = 0   # no monitor thread: the report forks its workers
        self.bar = tqdm(file=stream or sys.stderr, disable=None, desc="loading primkit", unit=" traced",
                        bar_format="{desc} [{elapsed}]", dynamic_ncols=True)

    def phase(self, text):
        self.bar.set_description_str(text)

    def progress(self, done, total):
        if self.bar.total is None:
            self.bar.bar_format, self.bar.total = None, total
            self.bar.set_description_str("tracing OpInfo samples and the test zoo", refresh=False)
        self.bar.update(done - self.bar.n)

    def close(self):
        self.bar.close()


class UsageError(Exception):
    """A bad argument: reported as one line on stderr, exit status 2, no traceback."""


def load_report(path) -> dict:
    """A JSON report written by this tool; anything else is an error naming the file."""
    try:
        report = json.loads(pathlib.Path(path).read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"--from {path}: cannot read a JSON report: {e}")
    missing = {"torch_version", "summary", "ops"} - set(report if isinstance(report, dict) else ())
    if missing:
        raise UsageError(f"--from {path}: not a coverage report (no {', '.join(sorted(missing))})")
    return report


def parse_target(text: str) -> frozenset:
    """Comma-separated prim names, or @FILE with one name per line; unknown names are an error."""
    from primkit.decompositions.lowering import prim_set
    if text.startswith("@"):
        try:
            names = pathlib.Path(text[1:]).read_text().split()
        except (OSError, UnicodeDecodeError) as e:
            raise UsageError(f"--target {text}: cannot read the prim list: {e}")
    else:
        names = [n.strip() for n in text.split(",") if n.strip()]
    try:
        return prim_set(names, f"--target {text}")
    except (TypeError, ValueError) as e:
        raise UsageError(str(e))


FORMAT_OF_SUFFIX = {".json": "json", ".html": "html", ".md": "md"}


def output_path(fmt_arg, output) -> tuple[str, pathlib.Path]:
    """(format, path), checked before any work: the format agrees with the file's suffix, and the
    file can be written (its folder is created; a probe open leaves no file behind)."""
    suffix_fmt = FORMAT_OF_SUFFIX.get(pathlib.Path(output or "").suffix)
    if fmt_arg and output and suffix_fmt and suffix_fmt != fmt_arg:
        raise UsageError(f"-o {output}: the suffix says {suffix_fmt} but --format is {fmt_arg}")
    fmt = fmt_arg or suffix_fmt or "md"
    out = pathlib.Path(output or f"reports/coverage.{fmt}")
    existed = out.exists()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "a"):
            pass
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"-o {out}: a part of that path is a file, not a folder")
    except OSError as e:
        raise UsageError(f"-o {out}: cannot write there: {e.strerror or e}")
    if not existed:
        out.unlink()
    return fmt, out


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def main(argv=None, prog="primkit coverage") -> int:
    parser = _Parser(prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", choices=("json", "md", "html"), default=None,
                        help="output format (default: from the file suffix, else md)")
    parser.add_argument("-o", "--output", default=None, help="file to write (default: reports/coverage.<format> in the current directory)")
    parser.add_argument("--target", default=None, metavar="PRIMS",
                        help="a backend's prim set (comma-separated names or @file): report which ops reach only it")
    parser.add_argument("--run-tests", action="store_true",
                        help="run the OpInfo tests (tests/test_ops.py of the primkit checkout the command runs in) "
                             "and add their results")
    parser.add_argument("--pytest-args", default="-n 2", help="extra pytest arguments for --run-tests (default: %(default)s)")
    parser.add_argument("--no-analyze", action="store_true", help="skip tracing OpInfo samples (no prims / partial)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes that trace the OpInfo samples (default: one per core)")
    parser.add_argument("--no-programs", action="store_true",
                        help="skip the per-program view (tracing the test zoo's models)")
    parser.add_argument("--from", dest="source", default=None, metavar="JSON",
                        help="render this JSON report (written before by this tool) instead of building one")
    try:
        args = parser.parse_args(argv)
        if args.source and (args.run_tests or args.no_analyze or args.jobs or args.no_programs):
            raise UsageError("--from renders an existing report: it takes no --run-tests, --no-analyze, --jobs or "
                             "--no-programs")
        if args.jobs is not None and args.jobs < 1:
            raise UsageError(f"--jobs {args.jobs}: expected a positive number of processes")
        fmt, out = output_path(args.format, args.output)
        target = parse_target(args.target) if args.target is not None else None
        report = load_report(args.source) if args.source else None
        root = checkout()
        if args.run_tests and root is None:
            raise UsageError("--run-tests runs the repository's tests/test_ops.py: run it inside a primkit checkout")
    except UsageError as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    collector = _Collector()
    try:
        return _write(args, fmt, out, target, report, root, parser.prog, collector)
    finally:
        collector.restore()


def _write(args, fmt, out, target, report, root, prog, collector) -> int:
    """Render ``report`` (``--from``), or build it, into ``out``; the exit status."""
    bar = Progress() if report is None else None
    from primkit.opinfo.coverage import apply_target, build_report, to_markdown
    from primkit.opinfo.report_html import to_html
    render = {"json": lambda r: json.dumps(r, indent=1), "md": to_markdown, "html": to_html}[fmt]
    if report is not None:
        try:
            if target is not None:
                apply_target(report, target)
                if report.get("programs"):
                    print(f"{prog}: note: the programs were traced for the report's own target; "
                          f"build a report with --target to see them against this one", file=sys.stderr)
            text, line = render(report), summary_line(out, report)
        except (KeyError, TypeError, AttributeError) as e:
            print(f"{prog}: error: --from {args.source}: not a complete coverage report "
                  f"({type(e).__name__}: {e})", file=sys.stderr)
            return 2
        out.write_text(text)
    else:
        try:
            results = run_tests(args.pytest_args.split(), root, bar.phase) if args.run_tests else None
            bar.phase("loading the test zoo")
            programs = [] if args.no_programs else zoo_programs()
            collector.loaded()
            report = build_report(target=target, analyze=not args.no_analyze, test_results=results,
                                  jobs=args.jobs, programs=programs, progress=bar.progress)
            bar.phase(f"writing {out}")
            text, line = render(report), summary_line(out, report)
            out.write_text(text)
        finally:
            bar.close()
    print(line, file=sys.stderr)
    return 0


class _Collector:
    """Python's cyclic garbage collector, paused while the command loads (primkit's layers, the OpInfo database,
    the test zoo: long-lived objects, next to no garbage), then run only over what the report makes after: what
    was loaded is frozen (``gc.freeze``), so a full collection no longer walks the hundreds of thousands of
    objects torch and primkit keep, and the forked workers leave their pages shared (Python's advice before a
    fork). The collector's passes over those objects were a tenth of the report's time. ``restore()`` puts the
    collector back as it was (main can run inside another program: the tests)."""

    def __init__(self):
        self.was_enabled = gc.isenabled()
        gc.disable()

    def loaded(self):
        gc.freeze()
        if self.was_enabled:
            gc.enable()

    def restore(self):
        gc.unfreeze()
        if self.was_enabled:
            gc.enable()


def summary_line(out, report) -> str:
    s = report["summary"]
    return (f"{out}: {s['overloads']} overloads (ATen and collectives); "
            f"{s['status'].get('prims', 0)} decompose to prims "
            f"({s['reach_prims_tested']} tested, {s.get('reach_prims_traced', '?')} traced), "
            f"{s.get('assumed', '?')} assumed (no traced sample), {s['status'].get('partial', 0)} partial, "
            f"{s['status'].get('missing', 0)} missing, {s['status'].get('bookkeeping', 0)} bookkeeping; "
            f"{s['operators_reaching_prims']} operators ({s.get('operators_tested', '?')} through every overload and "
            f"tested); {s['catalog_prims']} prims; {s['opinfo_entries']} OpInfo entries; "
            f"{report.get('generated_in_s', '?')} s")


if __name__ == "__main__":
    sys.exit(main(prog="python -m primkit.tools.coverage"))
