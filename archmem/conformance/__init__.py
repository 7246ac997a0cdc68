"""Conformance: whether the code still has the shape the model draws (DESIGN.md
"Conformance"). ``engine.check_conformance`` runs it; ``types`` holds the report."""
