import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="all", choices=("cpu", "cuda", "all"),
                     help="devices to run the OpInfo tests on; 'all' is cpu plus cuda (cuda tests skip "
                          "cleanly without a GPU)")


def pytest_configure(config):
    # With xdist, an entry's tests run on one worker (tests/test_ops.py shares traces between them):
    # pytest.ini's addopts say --dist loadgroup (setting it here is too late for the workers).
    if os.environ.get("PYTEST_XDIST_WORKER"):
        torch.set_num_threads(1)   # one thread per worker: the samples are small, cores are few


def devices(config) -> list[str]:
    choice = config.getoption("--device")
    return ["cpu", "cuda"] if choice == "all" else [choice]


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
