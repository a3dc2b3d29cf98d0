"""OpInfo entries: indexing."""
ENTRIES = []
