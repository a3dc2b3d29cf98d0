"""Packages of the one import package, primkit, discovered from the repository's folders.

Each layer is a top-level folder of the repository (prims/, decompositions/, graph/, runtime/, opinfo/,
tools/) and
installs as a subpackage of primkit (``primkit.prims``, ...) through package-dir. pyproject.toml
cannot say that: its package discovery finds ``prims`` where ``primkit.prims`` is meant, so the
packages are found here with find_packages under each folder and prefixed.

The top-level ``primkit/__init__.py`` (with ``__main__.py`` and ``py.typed``) lives in
``primkit_pkg/``, not in a folder named ``primkit/`` at the root: ``python -m pytest`` run from the
root puts the root on sys.path, where a ``primkit/`` folder would shadow the installed package
(and ``primkit.prims`` would not be found in it), so the tests would not test the install.

Everything else in the project's metadata is in pyproject.toml.
"""
from setuptools import find_packages, setup

LAYERS = ("prims", "decompositions", "graph", "runtime", "export", "opinfo", "tools")

package_dir = {"primkit": "primkit_pkg"}
packages = ["primkit"]
for layer in LAYERS:
    package_dir[f"primkit.{layer}"] = layer
    packages += [f"primkit.{layer}"] + [f"primkit.{layer}.{sub}" for sub in find_packages(layer)]

setup(packages=packages, package_dir=package_dir)
