"""Sizes the layout keeps (docs/design.md): no Python file of the repository over MAX_FILE_LINES lines,
no function over MAX_FUNCTION_LINES (an ast scan: a function's lines from its `def` to its last
statement, decorators excluded). A file or function over the limit is split by concern.

STILL_OVER names exactly the files still over a limit; it is empty now (the last four were split into
packages), and test_sizes holds. Should a file have to wait for its split, list it there and mark
test_sizes a strict xfail (raises=AssertionError) until it leaves the list: test_still_over_is_exact
fails when an offender is missing from it or a file in it no longer offends."""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
MAX_FILE_LINES, MAX_FUNCTION_LINES = 800, 80
SKIPPED_DIRS = {"build", "dist", "shared", "node_modules"}    # and hidden and *.egg-info folders

STILL_OVER: set[str] = set()


def python_files(root=ROOT):
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts[:-1]
        if not any(p.startswith(".") or p.endswith(".egg-info") or p in SKIPPED_DIRS for p in parts):
            yield path


def offenders(root=ROOT) -> dict[str, list[str]]:
    """file (relative, posix) -> what in it is over a limit."""
    out = {}
    for path in python_files(root):
        source = path.read_text(encoding="utf-8")
        found = []
        lines = len(source.splitlines())
        if lines > MAX_FILE_LINES:
            found.append(f"{lines} lines")
        for node in ast.walk(ast.parse(source, filename=str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"function {node.name} (line {node.lineno}): {length} lines")
        if found:
            out[path.relative_to(root).as_posix()] = found
    return out


def _report(found) -> str:
    return "\n".join(f"{file}: {'; '.join(what)}" for file, what in sorted(found.items()))


def test_sizes():
    found = offenders()
    assert not found, f"over {MAX_FILE_LINES} lines per file or {MAX_FUNCTION_LINES} per function:\n{_report(found)}"


def test_still_over_is_exact():
    found = offenders()
    new = {f: w for f, w in found.items() if f not in STILL_OVER}
    assert not new, f"over {MAX_FILE_LINES} lines per file or {MAX_FUNCTION_LINES} per function:\n{_report(new)}"
    split = sorted(STILL_OVER - set(found))
    assert not split, f"within the limits now, remove from STILL_OVER: {', '.join(split)}"


def test_the_scan_finds_each_offender(tmp_path):
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "long_function.py").write_text(f"def f():\n{body}\n")
    (tmp_path / "long_file.py").write_text("x = 1\n" * (MAX_FILE_LINES + 1))
    (tmp_path / "fine.py").write_text(f"def f():\n{body[:-len(body.splitlines()[-1]) - 1]}\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "long_file.py").write_text("x = 1\n" * (MAX_FILE_LINES + 1))
    assert offenders(tmp_path) == {"long_file.py": [f"{MAX_FILE_LINES + 1} lines"],
                                   "long_function.py": [f"function f (line 1): {MAX_FUNCTION_LINES + 1} lines"]}
