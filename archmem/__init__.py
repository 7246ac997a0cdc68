"""archmem: an architecture-aware memory for coding agents."""

__version__ = "0.1.0"
