"""Decompositions: reductions."""
