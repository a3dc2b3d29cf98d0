"""OpInfo entries: random (being written)."""
from __future__ import annotations

ENTRIES = []
