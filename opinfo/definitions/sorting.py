"""OpInfo entries: sorting (being written)."""
from __future__ import annotations

ENTRIES = []
