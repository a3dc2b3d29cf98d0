"""Decompositions: linalg."""
