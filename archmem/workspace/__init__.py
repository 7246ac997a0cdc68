"""The ``Workspace`` façade (``core``) and its operations, one module per concern."""

from archmem.workspace.core import Workspace

__all__ = ["Workspace"]
