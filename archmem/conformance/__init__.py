"""Conformance: whether the code still has the shape the model draws
(docs/conformance.md). ``engine.check_conformance`` runs it; ``types`` holds the report."""
