"""fft decompositions (being written)."""
from __future__ import annotations
