"""OpInfo entries: aliases (being written)."""
from __future__ import annotations

ENTRIES = []
