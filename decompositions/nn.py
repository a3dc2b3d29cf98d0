"""Decompositions: nn."""
