"""OpInfo entries: creation."""
ENTRIES = []
