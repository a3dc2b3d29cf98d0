"""primkit is one installed import package: its public names, its layers as subpackages, nothing else
at the top of site-packages, and (under CI) the tests run on the install, not on the checkout."""
from __future__ import annotations

import ast
import importlib.metadata
import os
import pathlib
import subprocess
import sys

import pytest
import torch

import primkit

CHECKOUT = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("prims", "decompositions", "graph", "runtime", "export", "opinfo", "tools")


def _distribution() -> importlib.metadata.Distribution:
    """The installed distribution of the imported primkit: the one holding primkit/__init__.py, or
    for an editable install (whose files are a finder, not the package) the first one outside the
    checkout, never the checkout's primkit.egg-info that sys.path's current directory shows first."""
    init = pathlib.Path(primkit.__file__).resolve()
    dists = list(importlib.metadata.distributions(name="primkit"))
    for dist in dists:
        if pathlib.Path(dist.locate_file("primkit/__init__.py")).resolve() == init:
            return dist
    outside = [d for d in dists if pathlib.Path(d.locate_file("")).resolve() != CHECKOUT]
    assert outside, f"no installed primkit distribution for {init}"
    return outside[0]


def test_public_names():
    assert primkit.__version__ == _distribution().version
    assert primkit.trace is primkit.decompositions.trace is primkit.graph.trace
    assert primkit.get_decompositions is primkit.decompositions.get_decompositions
    assert primkit.DecompositionError is primkit.decompositions.DecompositionError
    assert primkit.catalog is primkit.prims.catalog and primkit.catalog()[0].name
    for name in primkit.__all__:
        assert getattr(primkit, name) is not None, name


def test_layers_are_subpackages():
    for layer in LAYERS:
        module = getattr(primkit, layer)
        assert module.__name__ == f"primkit.{layer}"
        assert pathlib.Path(module.__file__).parent.name == layer   # its folder (in an install, under primkit/)
    assert primkit.opinfo.op_db and primkit.prims.NAMESPACE == "primkit"


def test_installed_top_level_is_primkit_only():
    if CHECKOUT in pathlib.Path(primkit.__file__).resolve().parents:
        pytest.skip("an editable install: the wheel's contents are not installed")
    dist = _distribution()
    files = [f for f in dist.files if f.parts[0] != os.pardir]   # ../../bin/primkit is the console script
    top = {f.parts[0] for f in files}
    assert top == {"primkit", f"primkit-{dist.version}.dist-info"}, top
    assert dist.read_text("top_level.txt").split() == ["primkit"]
    names = {"/".join(f.parts) for f in files}
    assert "primkit/py.typed" in names
    assert {f"primkit/prims/catalog/{p.name}" for p in (CHECKOUT / "prims" / "catalog").glob("*.yaml")} <= names


def test_console_script_and_entry_points_name_the_package():
    eps = importlib.metadata.entry_points()
    assert eps.select(group="console_scripts", name="primkit")
    script, = [e for e in _distribution().entry_points if e.group == "console_scripts"]
    assert script.value == "primkit.tools.cli:main" and script.load()
    backends = {e.name: e.value for e in _distribution().entry_points if e.group == "torch_dynamo_backends"}
    assert backends == {"primkit": "primkit.runtime.backends:primkit",
                        "primkit_inductor": "primkit.runtime.backends:primkit_inductor"}


def test_imports_only_the_package(tmp_path):
    # From a folder outside the checkout: no layer is importable as a top-level module there, and
    # importing every layer loads no module outside primkit under a layer's name.
    code = ("import sys, primkit, primkit.runtime, primkit.opinfo, primkit.tools.cli, primkit.tools.coverage;"
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {LAYERS!r}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"], out.stdout


def test_import_is_light(tmp_path):
    # sympy (0.3 s to import) loads only where a symbol is made (prims.symdim, prims.symbolic), and torch
    # builds a prim's autograd kernel on its first call through autograd, not at import.
    code = ("import sys, torch, primkit; P = torch.ops.primkit; print('sympy' in sys.modules);"
            "x = torch.ones(2, requires_grad=True); P.sin(x).sum().backward(); print(x.grad.tolist())")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", str(torch.ones(2).cos().tolist())], out.stdout


def test_no_source_imports_a_layer_by_its_folder_name():
    # python -m pytest puts the checkout on sys.path, where `import prims` would still find the folder:
    # neither the package nor the tests may import a layer but as primkit.<layer>.
    roots = [pathlib.Path(primkit.__file__).parent, CHECKOUT / "tests"]
    bad = []
    for path in (f for root in roots for f in sorted(root.rglob("*.py"))):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            bad += [f"{path}:{node.lineno}: {n}" for n in names if n.split(".")[0] in LAYERS]
    assert not bad, "\n".join(bad)


def test_command_runs_outside_the_checkout(tmp_path):
    def primkit_command(*args):
        return subprocess.run([sys.executable, "-m", "primkit", *args], cwd=tmp_path, capture_output=True, text=True)
    version = primkit_command("--version")
    assert (version.returncode, version.stdout) == (0, f"primkit {primkit.__version__}\n"), version.stderr
    usage = primkit_command("coverage", "--help")
    assert usage.returncode == 0 and usage.stdout.startswith("usage: primkit coverage"), usage.stderr
    bad = primkit_command("covrage")
    assert bad.returncode == 2 and "did you mean coverage" in bad.stderr


@pytest.mark.skipif(not os.environ.get("CI"), reason="CI proves the tests run on the installed package")
def test_ci_tests_the_install():
    assert CHECKOUT not in pathlib.Path(primkit.__file__).resolve().parents, primkit.__file__
