"""OpInfo entries: fft (being written)."""
from __future__ import annotations

ENTRIES = []
