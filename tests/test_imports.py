"""The import graph: no module-level import circle inside the prims layer or among the prim sample
modules (opinfo/prims/). Read from the sources with ast: an ``import`` or ``from ... import`` at a
module's top level (or in a function body: those run at call time but still close a circle) is an
edge; a package whose ``__init__`` imports every module of itself through ``pkgutil.iter_modules``
has an edge to each of them."""
from __future__ import annotations

import ast
import pathlib

import pytest

import primkit

# The installed package's layers (setup.py maps each repository folder into primkit.<layer>).
LAYERS = {layer: pathlib.Path(getattr(__import__(f"primkit.{layer}"), layer).__file__).parent
          for layer in ("prims", "decompositions", "opinfo", "tools")}


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


def _cycles(scope: str) -> list:
    """The strongly connected components (Tarjan) of more than one module that touch ``scope``."""
    graph = {m: _edges(m, p) for m, p in MODULES.items()}
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
            if len(component) > 1 and any(m == scope or m.startswith(scope + ".") for m in component):
                found.append(sorted(component))
    for v in graph:
        if v not in index:
            visit(v)
    return found


@pytest.mark.parametrize("scope", ["primkit.prims", "primkit.opinfo.prims"])
def test_no_import_circle(scope):
    assert _cycles(scope) == [], f"import circles through {scope}"


def test_the_graph_sees_the_layers():
    """The test reads the installed package: every layer's modules are there, with their imports."""
    assert primkit.__name__ == "primkit" and "primkit.prims.loader" in MODULES
    assert "primkit.prims.meta.rules" in _edges("primkit.prims.meta.indexing", MODULES["primkit.prims.meta.indexing"])
