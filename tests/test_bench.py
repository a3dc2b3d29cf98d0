"""``primkit bench`` runs end to end on one model (one repetition: the figures are the benchmark's
business, not a test's) and prints its table, with the path each trace took."""
from __future__ import annotations

import pytest

pytest.importorskip("transformers")

from primkit.tools import bench, bench_costs   # noqa: E402


def test_bench_prints_its_table(capsys):
    assert bench.main(["--models", "resnet", "--repeat", "1", "--trace-repeat", "1", "--skip-inductor",
                       "--import-repeat", "0"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| model |"))
    assert "executor/eager" in header and "trace/make_fx" in header and "trace path" in header
    row = next(line for line in out.splitlines() if line.startswith("| resnet |"))
    assert "| direct |" in row
    assert any(line.startswith("| geomean |") for line in out.splitlines())


def test_bench_big_prints_its_table(capsys):
    """``--big tiny``: every big-input op on small shapes, one repetition."""
    assert bench.main(["--big", "tiny", "--repeat", "1", "--import-repeat", "0"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("| input |"))
    assert "reference/eager" in header and "executor/eager" in header and "trace s" in header
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| input |")]
    assert len(rows) == len(bench_costs.big_cases(tiny=True))
    assert any(row.startswith("| multinomial") and "replacement" in row for row in rows)
