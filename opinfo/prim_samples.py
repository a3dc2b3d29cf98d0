"""Samples and constraint error inputs of the prims that are not covered by a family generator."""
SPECIFIC = {}
