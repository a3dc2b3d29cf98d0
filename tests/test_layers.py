"""The layering is import-linter's layers contract (pyproject.toml, ``[tool.importlinter]``): each layer
imports only the layers below it, prims <- decompositions <- graph <- runtime <- export <- opinfo <- tools.

import-linter reads a package from the file system, one folder per package. An install is one folder,
primkit/; an editable install maps each layer to its repository folder (setup.py), which grimp cannot
follow. So the contract is checked on a copy of the installed package's files assembled as one folder
(the same files either way), in a subprocess whose sys.path finds that copy first."""
from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess
import sys

import pytest

import primkit

CONFIG = pathlib.Path(__file__).resolve().parent.parent / "pyproject.toml"
LAYERS = ("prims", "decompositions", "graph", "runtime", "export", "opinfo", "tools")   # export: where installed

pytestmark = pytest.mark.skipif(not CONFIG.exists(), reason="the contract lives in the checkout's pyproject.toml")


def _installed_copy(root: pathlib.Path) -> pathlib.Path:
    """The installed primkit's files under root/primkit, one folder as in a wheel."""
    installed, package = pathlib.Path(primkit.__file__).parent, root / "primkit"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(installed, package, ignore=skip)
    for layer in LAYERS:
        spec = importlib.util.find_spec(f"primkit.{layer}")
        if spec is None:   # an optional layer (the contract's parenthesized one) not in this install
            continue
        source = pathlib.Path(spec.origin).parent
        if source.parent != installed:   # an editable install: the layer's repository folder
            shutil.copytree(source, package / layer, ignore=skip)
    return package


def _lint(root: pathlib.Path, config: pathlib.Path = CONFIG) -> subprocess.CompletedProcess:
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(config)!r}, no_cache=True, no_logo=True))")
    return subprocess.run([sys.executable, "-c", code], cwd=root, env={"PYTHONPATH": str(root), "PATH": ""},
                          capture_output=True, text=True, timeout=120)


def test_layers_contract_holds(tmp_path):
    _installed_copy(tmp_path)
    run = _lint(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 kept, 0 broken" in run.stdout, run.stdout


@pytest.mark.parametrize("module, upward", [
    ("prims/loader.py", "from primkit.decompositions import registry"),
    ("decompositions/shape/views.py", "from primkit.runtime import executor"),
    ("graph/guards.py", "import primkit.opinfo.harness"),
])
def test_contract_fails_on_an_upward_import(tmp_path, module, upward):
    """One import planted in a lower layer, at a function's level (it runs at call time, still an
    edge), and the contract is broken, naming the importer and the imported module."""
    package = _installed_copy(tmp_path)
    path = package / module
    path.write_text(path.read_text() + f"\n\ndef _planted():\n    {upward}\n")
    run = _lint(tmp_path)
    importer = "primkit." + module.removesuffix(".py").replace("/", ".")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "0 kept, 1 broken" in run.stdout and importer in run.stdout, run.stdout


def test_the_one_upward_import_is_the_public_reexport(tmp_path):
    """Without its ignore_imports the contract breaks on decompositions' re-export of the tracer only."""
    _installed_copy(tmp_path)
    config = tmp_path / "pyproject.toml"
    text = CONFIG.read_text()
    ignore = 'ignore_imports = ["primkit.decompositions -> primkit.graph.trace"]\n'
    assert ignore in text
    config.write_text(text.replace(ignore, ""))
    run = _lint(tmp_path, config)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "primkit.decompositions -> primkit.graph.trace" in run.stdout, run.stdout
