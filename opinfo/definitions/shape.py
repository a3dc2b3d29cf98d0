"""OpInfo entries: shape."""
ENTRIES = []
