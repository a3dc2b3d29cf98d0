# The tests import the installed primkit (pip install ".[test]"), never the checkout's folders: the
# repository has no primkit/ folder to shadow the install, and the layers are imported only as
# primkit.<layer> (tests/test_package.py checks both). Helper modules of tests/ (models.py,
# training.py, conftest.py) import as top-level modules, since pytest puts this folder on sys.path.
import os

import pytest
import torch


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="all", choices=("cpu", "cuda", "all"),
                     help="devices to run the OpInfo tests on; 'all' is cpu plus cuda where a GPU is "
                          "present (without one, no CUDA test is generated)")


def pytest_configure(config):
    # With xdist, an entry's tests run on one worker (tests/test_ops.py shares traces between them):
    # pytest.ini's addopts say --dist loadgroup (setting it here is too late for the workers).
    if os.environ.get("PYTEST_XDIST_WORKER"):
        torch.set_num_threads(1)   # one thread per worker: the samples are small, cores are few


def devices(config) -> list[str]:
    """The devices tests are generated for: CUDA only where a GPU is present, so a CPU run lists no
    thousands of skipped CUDA tests that would hide the skips that matter."""
    choice = config.getoption("--device")
    if choice == "cuda" and not torch.cuda.is_available():
        raise pytest.UsageError("--device cuda: torch.cuda.is_available() is False on this machine")
    wanted = ["cpu", "cuda"] if choice == "all" else [choice]
    return [d for d in wanted if d == "cpu" or torch.cuda.is_available()]


def xfail_mark(xf):
    """The strict pytest mark of an opinfo XFail (its DidNotRaise is pytest's failure of pytest.raises)."""
    from primkit.opinfo.core import DidNotRaise
    kinds = xf.raises if isinstance(xf.raises, tuple) else (xf.raises,)
    raises = tuple(pytest.fail.Exception if k is DidNotRaise else k for k in kinds)
    return pytest.mark.xfail(strict=True, raises=raises, reason=xf.reason)


def unexplained_xfails(items) -> list[str]:
    """The collected tests with an xfail mark that names no ``raises=``: such an xfail passes on any
    exception, so it cannot fail when the test breaks in a new way."""
    return [item.nodeid for item in items for mark in item.iter_markers("xfail")
            if mark.kwargs.get("raises") is None]


def pytest_collection_modifyitems(config, items):
    bad = unexplained_xfails(items)
    if bad:
        raise pytest.UsageError("an xfail needs raises= (the exception it fails with): " + ", ".join(bad[:10])
                                + (f" and {len(bad) - 10} more" if len(bad) > 10 else ""))


def pytest_report_header(config):
    gpu = "" if torch.cuda.is_available() else " (no CUDA device: CUDA tests are not generated)"
    return f"primkit devices: {', '.join(devices(config))}{gpu}"


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


@pytest.fixture(scope="session")
def gloo_pool():
    """The session's pool of 2 gloo ranks (tests/distributed.py), spawned on its first run and stopped at the
    end of the session. Its tests are one xdist_group, so one worker holds the only pool."""
    import distributed
    pool = distributed.pool()
    yield pool
    distributed.close()
