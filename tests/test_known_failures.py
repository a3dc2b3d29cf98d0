"""A known failure names the exception it fails with, everywhere: an xfail without ``raises=`` would
pass on any exception, so it could not fail when the test breaks in a new way."""
from __future__ import annotations

import pytest

from conftest import unexplained_xfails
from primkit.opinfo.core import XFail
from primkit.opinfo.module_db import xfail as module_xfail


def test_opinfo_xfail_requires_raises():
    with pytest.raises(TypeError, match="raises"):
        XFail("values", "a known bug")
    with pytest.raises(ValueError, match="raises an exception type"):
        XFail("values", "a known bug", raises="AssertionError")
    assert XFail("values", "a known bug", raises=AssertionError).raises is AssertionError


def test_module_xfail_requires_raises():
    with pytest.raises(TypeError, match="raises"):
        module_xfail("eval", reason="a known bug")


class _Item:
    def __init__(self, nodeid, *marks):
        self.nodeid, self._marks = nodeid, marks

    def iter_markers(self, name):
        return [m.mark for m in self._marks if m.mark.name == name]


def test_collection_refuses_an_xfail_mark_without_raises():
    items = [_Item("t::named", pytest.mark.xfail(strict=True, raises=ValueError, reason="known")),
             _Item("t::bare", pytest.mark.xfail(strict=True, reason="known")),
             _Item("t::plain")]
    assert unexplained_xfails(items) == ["t::bare"]
