"""The ``Workspace`` façade: its shared core (``core``) and its operations, one module per
concern, each part building on the parts it calls."""

from archmem.workspace.briefing import BriefingOps
from archmem.workspace.drift import DriftOps
from archmem.workspace.memories import MemoryOps
from archmem.workspace.recall import RecallOps
from archmem.workspace.reviews import ReviewOps


class Workspace(MemoryOps, BriefingOps, ReviewOps, RecallOps, DriftOps):
    """A repository with its architecture model, its memory store and its history.

    The parts stack in the order they call each other (each the subclass of the next,
    all on ``WorkspaceCore``): memories use briefing's rule files and reviews'
    baseline; briefing uses recall and conformance; reviews use recall and drift;
    recall uses drift. A part never calls one above it.
    """


__all__ = ["Workspace"]
