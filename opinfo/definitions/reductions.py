"""OpInfo entries: reductions."""
ENTRIES = []
