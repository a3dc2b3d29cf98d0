"""The coverage report: rows for every ATen overload, a consistent summary, three formats,
and the HTML page driven in headless Chromium (skipped where no browser can be had)."""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys

import pytest
import torch

from primkit import decompositions, prims
from primkit.opinfo.coverage import (analyze_entries, apply_target, aten_overload_names, build_report, parse_junit,
                                     to_markdown)
from primkit.opinfo.report_html import to_html
from primkit.tools import coverage as cli

# One worker builds the report once (about a minute of tracing) and every test here reads it.
pytestmark = pytest.mark.xdist_group("coverage")


@pytest.fixture(scope="module")
def report_json(tmp_path_factory):
    """The report as the command line writes it (the JSON the other formats render)."""
    path = tmp_path_factory.mktemp("coverage") / "coverage.json"
    assert cli.main(["--format", "json", "-o", str(path)]) == 0
    return path


@pytest.fixture(scope="module")
def report(report_json):
    return json.loads(report_json.read_text())


def test_every_overload_is_a_row(report):
    names = {r["name"] for r in report["ops"]}
    assert set(aten_overload_names()) <= names
    assert len(names) == len(report["ops"])


def test_prims_status_means_in_the_table(report):
    table = {op.name() for op in decompositions.get_decompositions()}
    for r in report["ops"]:
        if r["status"] == "bookkeeping":
            continue
        assert (r["status"] != "missing") == (r["name"] in table), r["name"]
        if r["status"] == "partial":
            assert r["missing"], r["name"]


def test_summary_adds_up(report):
    s = report["summary"]
    assert sum(s["status"].values()) == s["overloads"] == len(report["ops"])
    assert s["reach_prims"] == s["status"].get("prims", 0)
    assert set(report) >= {"torch_version", "summary", "ops"}
    assert set(report["ops"][0]) >= {"name", "status", "prims", "missing", "opinfo", "tests", "tags"}


def test_tags(report):
    rows = {r["name"]: r for r in report["ops"]}
    assert "core" in rows["aten::add.Tensor"]["tags"]
    assert "inplace" in rows["aten::add_.Tensor"]["tags"]
    assert "out" in rows["aten::add.out"]["tags"]
    assert "view" in rows["aten::t"]["tags"]
    assert "backward" in rows["aten::gelu_backward"]["tags"]


def test_target_set(report):
    r = apply_target(copy.deepcopy(report), {"add", "mul", "broadcast_in_dim", "scalar_tensor", "convert_element_type"})
    rows = {x["name"]: x for x in r["ops"]}
    assert rows["aten::add.Tensor"]["in_target"]
    assert not rows["aten::exp"]["in_target"]
    assert r["summary"]["target"]["reaching"] == sum(x["in_target"] for x in r["ops"])


def test_target_counts_lowerings(report):
    everything = {p.name for p in prims.catalog()}
    rows = {x["name"]: x for x in apply_target(copy.deepcopy(report), everything - {"sigmoid"})["ops"]}
    assert "sigmoid" in rows["aten::sigmoid"]["prims"] and rows["aten::sigmoid"]["in_target"]   # sigmoid lowers
    rows = {x["name"]: x for x in apply_target(copy.deepcopy(report), everything - {"sigmoid", "exp"})["ops"]}
    assert not rows["aten::sigmoid"]["in_target"]           # its lowering needs exp, which has none


def test_symint_bookkeeping_is_not_missing(report):
    rows = {r["name"]: r for r in report["ops"]}
    for name in ("aten::sym_size.int", "aten::sym_stride.int", "aten::sym_numel", "aten::sym_storage_offset",
                 "aten::sym_constrain_range", "aten::sym_constrain_range_for_size"):
        assert rows[name]["status"] == "bookkeeping", name
    assert report["summary"]["status"]["bookkeeping"] >= 6


def test_family_chart_counts_missing_ops(report):
    # every missing overload is counted in some family (its operator's, else a "missing: <group>" bar)
    s = report["summary"]
    assert sum(c.get("missing", 0) for c in s["per_family"].values()) == s["status"]["missing"]
    rows = {r["name"]: r for r in report["ops"]}
    assert rows["aten::_foreach_add.List"]["family"] == "missing: foreach"
    assert rows["aten::_foreach_add.List"]["status"] == "missing"


def test_traced_and_assumed_apart(report):
    s = report["summary"]
    prims_rows = [r for r in report["ops"] if r["status"] == "prims"]
    assert s["assumed"] == sum(not r["traced"] for r in prims_rows) > 0
    assert sum(c.get("assumed", 0) for c in s["per_family"].values()) == s["assumed"]
    assert "| traced | assumed |" in to_markdown(report)


def test_opinfo_column_lists_callers_named_for_the_op(report):
    # random ops' samples call __and__ internally; the column keeps the entries that call it themselves
    rows = {r["name"]: r for r in report["ops"]}
    assert len(rows["aten::__and__.Tensor"]["opinfo"]) <= 3
    assert "nn.functional.softmax" in rows["aten::softmax.int"]["opinfo"]


def test_programs_view_and_blockers(report):
    assert [p["name"] for p in report["programs"]] == ["mlp", "cnn", "encoder", "decoder"]
    assert all(p["status"] == "prims" and p["prims"] for p in report["programs"])
    ranked = [r for r in report["ops"] if r["name"] in report["summary"]["top_blockers"]]
    scores = [{r["name"]: r for r in ranked}[n]["blocks"]["score"] for n in report["summary"]["top_blockers"]]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    assert all("blocks" in r for r in report["ops"] if r["status"] in ("missing", "partial"))


def test_float_target_counts_real_lowerings(report):
    small = {"add", "sub", "mul", "div", "neg", "exp", "log", "lt", "eq", "where", "logical_not", "logical_or",
             "broadcast_in_dim", "scalar_tensor", "convert_element_type", "sum", "abs"}
    rows = {x["name"]: x for x in apply_target(copy.deepcopy(report), small)["ops"]}
    assert rows["aten::tanh"]["in_target"]         # tanh -> expm1 -> exp for real floats
    assert "blocking_prims" in apply_target(copy.deepcopy(report), small)["summary"]["target"]


def test_tracing_samples_prints_nothing_and_reports_progress(capfd):
    from primkit import opinfo
    entries = [e for e in opinfo.op_db if e.name in ("stft", "cross", "norm", "add")]
    seen = []
    analyze_entries(entries, jobs=1, progress=lambda done, total: seen.append((done, total)))
    out, err = capfd.readouterr()
    assert not out and not err, err
    assert seen and seen[-1] == (len(entries), len(entries))


def test_tracing_samples_skips_the_fake_tensor_cache():
    # The prims a traced sample reaches never enter torch's fake-tensor dispatch cache (it holds aten ops):
    # with the cache on, every prim call was hashed only to be turned away, a quarter of the report's time.
    from torch._subclasses.fake_tensor import FakeTensorMode
    from primkit import opinfo

    def consulted():
        return FakeTensorMode.cache_hits + FakeTensorMode.cache_misses + sum(FakeTensorMode.cache_bypasses.values())
    before = consulted()
    reach, _, _ = analyze_entries([e for e in opinfo.op_db if e.name in ("add", "nn.functional.softmax")], jobs=1)
    assert reach["aten::add.Tensor"][0] and consulted() == before


def _drive(bar):
    bar.phase("loading the test zoo")
    for done in range(1, 5):
        bar.progress(done, 4)
    bar.phase("writing reports/coverage.md")
    bar.close()


def test_progress_bar_drawn_on_a_terminal():
    import fcntl
    import os
    import select
    import struct
    import termios
    main_fd, tty_fd = os.openpty()
    # a terminal of 24 rows and 100 columns (a new pty has none, and tqdm draws nothing in zero rows)
    fcntl.ioctl(tty_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with os.fdopen(tty_fd, "w") as tty, os.fdopen(main_fd, "rb", buffering=0) as screen:
        _drive(cli.Progress(tty))
        drawn = b""
        while select.select([screen], [], [], 0.5)[0]:
            drawn += screen.read(65536)
    # tqdm redraws at most every 0.1 s: the first phase and the final state are drawn in any case
    drawn = drawn.decode()
    assert "loading primkit" in drawn and "writing reports/coverage.md" in drawn and "4/4" in drawn, drawn


def test_progress_bar_silent_when_piped():
    import os
    read_fd, write_fd = os.pipe()
    with os.fdopen(write_fd, "w") as pipe:
        _drive(cli.Progress(pipe))
    with os.fdopen(read_fd) as r:
        assert r.read() == ""


def test_command_prints_only_its_summary_line_when_piped(tmp_path, capfd):
    # stderr is a pipe under pytest: the whole run (loading, the test zoo, writing) draws no bar
    assert cli.main(["--no-analyze", "-o", str(tmp_path / "r.md")]) == 0
    out, err = capfd.readouterr()
    assert not out and err.count("\n") == 1 and err.startswith(str(tmp_path / "r.md")), err


def test_command_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    # the command pauses the collector while loading and freezes what it loaded; a program that runs it
    # (these tests) gets its collector back, running and with nothing frozen, after a success or an error
    import gc
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert cli.main(["--no-analyze", "--no-programs", "-o", str(tmp_path / "r.json")]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
    (tmp_path / "bad.json").write_text('{"torch_version": "2", "summary": {}, "ops": []}')   # no summary keys
    assert cli.main(["--from", str(tmp_path / "bad.json"), "-o", str(tmp_path / "r.md")]) == 2
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_build_report_progress_counts_entries_and_programs():
    # the progress covers the test zoo's programs too, not only the OpInfo entries
    seen = []
    programs = cli.zoo_programs()[:2]
    report = build_report(analyze=False, programs=programs, progress=lambda done, total: seen.append((done, total)))
    assert len(report["programs"]) == 2 and seen == [(1, 2), (2, 2)]


# Entries whose samples take different paths: plain, CompositeImplicitAutograd (softmax, layer_norm,
# conv), in-place and out= forms, random ops, data-dependent sizes, a long linalg expansion.
_RECORDED = ("add", "nn.functional.softmax", "nn.functional.layer_norm", "nn.functional.conv2d", "addcmul",
             "cumsum", "nonzero", "masked_select", "bernoulli", "linalg.matrix_exp", "index_put", "unique")


def test_recorded_prims_are_make_fx_graphs_prims():
    # The report runs samples on fake tensors through the table without building a graph; what it records
    # must be what make_fx's graphs of the same calls hold.
    from torch.fx.experimental.proxy_tensor import make_fx

    from primkit import opinfo
    from primkit.decompositions.composite import composites
    from primkit.graph.trace import is_allowed_target
    from primkit.opinfo.coverage import MAX_SAMPLES
    from primkit.opinfo.harness import as_function, clone_sample
    table = decompositions.get_decompositions()
    entries = [e for e in opinfo.op_db if e.name in _RECORDED]
    assert len(entries) == len(_RECORDED)
    reach, _, _ = analyze_entries(entries, jobs=1)
    recorded = set().union(*(r for r, _ in reach.values()))
    left = set().union(*(m for _, m in reach.values()))
    in_graphs, left_in_graphs = set(), set()
    for entry in entries:
        samples = list(entry.samples("cpu", torch.float32))
        calls = [(entry.op, s) for s in samples[:MAX_SAMPLES]]
        if entry.inplace is not None:
            calls.append((entry.inplace, clone_sample(samples[-1])))
        for op, sample in calls:
            fn, tensors = as_function(op, sample)
            try:
                with torch.no_grad(), composites(table):
                    gm = make_fx(fn, decomposition_table=table, tracing_mode="fake")(*tensors)
            except RuntimeError:   # the report leaves out a call that fails (cumsum_ with a dtype)
                continue
            for node in gm.graph.nodes:
                if node.op == "call_function" and prims.is_prim(node.target):
                    in_graphs.add(node.target._opname)
                elif node.op == "call_function" and not is_allowed_target(node.target):
                    left_in_graphs.add(node.target.name())
    assert recorded == in_graphs, (recorded ^ in_graphs)
    assert left == left_in_graphs


def test_from_rejects_a_file_that_is_no_report(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text('{"ops": []}')
    assert cli.main(["--from", str(bad), "-o", str(tmp_path / "x.md")]) == 2
    assert "not a coverage report" in capsys.readouterr().err


def test_from_rejects_a_report_missing_keys(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text('{"torch_version": "2.13", "summary": {}, "ops": []}')
    assert cli.main(["--from", str(bad), "-o", str(tmp_path / "x.md")]) == 2
    assert "not a complete coverage report" in capsys.readouterr().err
    assert not (tmp_path / "x.md").exists()


# Each bad argument: one line on stderr naming it, exit status 2, before any report is built.
BAD_ARGUMENTS = {
    "unknown prim": (["--target", "add,mull"], "not prims: mull (did you mean mul"),
    "empty target": (["--target", ","], "the prim set is empty"),
    "missing target file": (["--target", "@/no/such/file"], "cannot read the prim list"),
    "format against suffix": (["--format", "json", "-o", "{tmp}/x.html"], "the suffix says html but --format is json"),
    "path through a file": (["-o", "{tmp}/file/x.md"], "is a file, not a folder"),
    "unwritable place": (["-o", "/proc/primkit-report.md"], "cannot write there"),
    "jobs": (["--jobs", "0"], "expected a positive number"),
    "unknown option": (["--bogus"], "unrecognized arguments: --bogus"),
}


@pytest.mark.parametrize("case", BAD_ARGUMENTS, ids=list(BAD_ARGUMENTS))
def test_bad_arguments_fail_fast(case, tmp_path, capsys, monkeypatch):
    argv, message = BAD_ARGUMENTS[case]
    (tmp_path / "file").write_text("")
    # build_report must not run: an argument error is found before any work.
    monkeypatch.setattr("primkit.opinfo.coverage.build_report", lambda *a, **k: pytest.fail("the report was built"))
    assert cli.main([a.format(tmp=tmp_path) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_build_report_serially_and_in_parallel_agree():
    # The rows the forked workers trace equal the rows one process traces (a sample of entries).
    from primkit import opinfo
    from primkit.opinfo.coverage import analyze_entries
    entries = [e for e in opinfo.op_db if e.name in ("add", "nn.functional.softmax", "sum", "cat", "where")]
    assert analyze_entries(entries, jobs=1) == analyze_entries(entries, jobs=2)


def test_random_ops_samples_trace():
    # a random op draws its seed with a real tensor's .item(), which recursed through the table's item entry
    # (RecursionError): no sample of rand, randn, ... traced, and their rows were assumed
    from primkit import opinfo
    entries = [e for e in opinfo.op_db if e.name in ("rand", "randn")]
    reach, _, _ = analyze_entries(entries, jobs=1)
    assert "uniform" in reach["aten::rand.generator"][0] and "normal" in reach["aten::randn.generator"][0]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_default_jobs_follow_the_cpu_affinity():
    # os.cpu_count() counts every core of the machine, not those a process may use (taskset, a container's
    # cpuset): the report then forked more workers than cores
    code = ("import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
            "from primkit.opinfo.coverage import usable_cores; print(usable_cores())")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "1"


def test_formats_written(tmp_path, report_json):
    data = json.loads(report_json.read_text())
    assert data["torch_version"] == torch.__version__
    assert report_json.stat().st_size > 1000
    for fmt in ("md", "html"):
        out = tmp_path / f"r.{fmt}"
        assert cli.main(["--from", str(report_json), "-o", str(out)]) == 0
        assert out.stat().st_size > 1000
    assert "## Missing" in (tmp_path / "r.md").read_text()
    page = (tmp_path / "r.html").read_text()
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page


def test_markdown_lists_partial_and_missing(report):
    md = to_markdown(report)
    assert "## Partial" in md and "## Missing" in md and "| tag | traced | assumed | partial | missing |" in md
    assert "## What to build next" in md and "## Programs" in md


def test_parse_junit(tmp_path):
    xml = tmp_path / "j.xml"
    xml.write_text("""<testsuites><testsuite>
<testcase classname="tests.test_ops" name="test_trace_and_values[add-float32-cpu]"/>
<testcase classname="tests.test_ops" name="test_strides[add-float32-cpu]"><skipped type="pytest.xfail" message="x"/></testcase>
<testcase classname="tests.test_ops" name="test_strides[add-float16-cpu]"><failure message="x"/></testcase>
<testcase classname="tests.test_ops" name="test_errors[add-cpu]"/>
<testcase classname="tests.test_ops" name="test_trace_and_values[add-float32-cuda]"><skipped message="no CUDA"/></testcase>
</testsuite></testsuites>""")
    assert parse_junit(xml) == {"add": {"float32/cpu": {"passed": 1, "xfailed": 1}, "float16/cpu": {"failed": 1},
                                        "any/cpu": {"passed": 1}, "float32/cuda": {"skipped": 1}}}


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def test_html_in_headless_chromium(tmp_path, report):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    exe = _browser()
    if exe is None:
        pytest.skip("no Chromium on this machine")
    page_file = tmp_path / "coverage.html"
    page_file.write_text(to_html(report))
    expected = [r for r in report["ops"] if "softmax" in r["name"] and r["status"] == "prims"]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync"])
        try:
            page = browser.new_page()
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_file.as_uri())
            assert page.locator("tbody tr.op").count() == len(report["ops"])
            page.fill("#search", "softmax")
            page.select_option("#f-status", "prims")
            shown = page.locator("tbody tr.op")
            names = [shown.nth(i).get_attribute("data-name") for i in range(shown.count())]
            assert sorted(names) == sorted(r["name"] for r in expected)
            assert page.inner_text("#shown-count").startswith(f"{len(expected)} of {len(report['ops'])}")
            assert all(shown.nth(i).get_attribute("data-status") == "prims" for i in range(shown.count()))
            # Sorting by name, then again, reverses the order.
            page.click("th[data-key=name]")
            ascending = [shown.nth(i).get_attribute("data-name") for i in range(shown.count())]
            page.click("th[data-key=name]")
            descending = [shown.nth(i).get_attribute("data-name") for i in range(shown.count())]
            assert descending == ascending[::-1] and sorted(ascending) == sorted(names)
            # A row expands to its prims and collapses again.
            if names:
                shown.nth(0).click()
                detail = page.locator("tr.detail")
                assert detail.count() == 1 and "prims:" in detail.inner_text()
                shown.nth(0).click()
                assert page.locator("tr.detail").count() == 0
            assert page.locator("svg rect").count() > 0
            assert not errors, errors
        finally:
            browser.close()
