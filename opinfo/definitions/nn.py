"""OpInfo entries: nn."""
ENTRIES = []
