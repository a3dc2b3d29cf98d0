"""OpInfo entries: backward (being written)."""
from __future__ import annotations

ENTRIES = []
