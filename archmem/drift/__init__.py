"""Drift: when the code under an element moved, and which memories to verify."""
