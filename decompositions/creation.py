"""Decompositions: creation."""
