"""Decompositions: shape."""
