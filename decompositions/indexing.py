"""Decompositions: indexing."""
