"""OpInfo entries: nn_extra (being written)."""
from __future__ import annotations

ENTRIES = []
