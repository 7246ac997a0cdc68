"""Structurizr DSL: ``parse_dsl(path)`` reads a ``workspace.dsl`` into an ``ArchitectureModel``."""

from archmem.model.dsl.parser import parse_dsl

__all__ = ["parse_dsl"]
