"""The import graph of the installed package has no circles (DESIGN.md, "One package, four layers").

Every import counts, at module level or inside a function: a function-level import that only dodges
a circle is still a circle."""
from __future__ import annotations

import ast
import pathlib

import pytest

import primkit

ROOT = pathlib.Path(primkit.decompositions.__file__).parent
PACKAGE = "primkit.decompositions"


def _modules(root: pathlib.Path, package: str) -> dict:
    out = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join([package, *parts])] = path
    return out


def _imports(name: str, path: pathlib.Path, known: dict) -> set:
    """The modules of ``known`` that ``name`` imports (the deepest known module each import names)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in known and target != name:
                found.add(target)
    return found


def _circles(graph: dict) -> list:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_decompositions_import_graph_has_no_circles():
    modules = _modules(ROOT, PACKAGE)
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _circles(graph) == []


@pytest.mark.parametrize("graph, circles", [
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
])
def test_circles_finds_a_circle(graph, circles):
    assert _circles(graph) == circles


def test_a_function_level_import_counts(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from pkg.b import f\n")
    (tmp_path / "pkg" / "b.py").write_text("def f():\n    from pkg.a import g\n")
    modules = _modules(tmp_path / "pkg", "pkg")
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert _circles(graph) == [["pkg.a", "pkg.b"]]
