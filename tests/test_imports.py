"""The import graph of the installed package (DESIGN.md, "One package, layers as folders"): no import
circle, between layers or inside one. (That data flows one way between layers is import-linter's
contract: tests/test_layers.py.) Read from the sources with ast: an ``import`` or ``from ... import`` at a module's top level, or in a
function body (it runs at call time, and a function-level import that only dodges a circle is still a
circle), is an edge; a package whose ``__init__`` imports every module of itself through
``pkgutil.iter_modules`` has an edge to each of them."""
from __future__ import annotations

import ast
import pathlib

import pytest

import primkit

# The installed package's layers (setup.py maps each repository folder into primkit.<layer>).
LAYERS = {layer: pathlib.Path(getattr(__import__(f"primkit.{layer}"), layer).__file__).parent
          for layer in ("prims", "decompositions", "graph", "runtime", "export", "opinfo", "tools")}


def _modules() -> dict:
    """module name -> source file, over every layer."""
    out = {}
    for layer, root in LAYERS.items():
        for path in root.rglob("*.py"):
            parts = [layer, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(["primkit", *parts])] = path
    return out


MODULES = _modules()


def _edges(name: str, path: pathlib.Path) -> set:
    source = path.read_text()
    is_package = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in MODULES}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in MODULES else base)
    if is_package and "iter_modules(__path__)" in source:
        out |= {m for m in MODULES if m.rsplit(".", 1)[0] == name}
    return (out & set(MODULES)) - {name}


GRAPH = {m: _edges(m, p) for m, p in MODULES.items()}


def _cycles(graph: dict, scope: str = "") -> list:
    """The strongly connected components (Tarjan) of more than one module that touch ``scope``."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

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
            if len(component) > 1 and any(m == scope or m.startswith(scope) for m in component):
                found.append(sorted(component))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("scope", [f"primkit.{layer}" for layer in LAYERS])
def test_no_import_circle(scope):
    assert _cycles(GRAPH, scope) == [], f"import circles through {scope}"


@pytest.mark.parametrize("graph, circles", [
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
])
def test_cycles_finds_a_circle(graph, circles):
    assert _cycles(graph) == circles


def test_the_graph_sees_the_layers():
    """The test reads the installed package: every layer's modules are there, with their imports."""
    assert primkit.__name__ == "primkit" and "primkit.prims.loader" in MODULES
    assert "primkit.prims.meta.rules" in _edges("primkit.prims.meta.indexing", MODULES["primkit.prims.meta.indexing"])
