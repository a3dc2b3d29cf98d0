"""OpInfo entries: linalg."""
ENTRIES = []
