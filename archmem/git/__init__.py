"""Git commands archmem runs besides reading history (``archmem.repo`` and
``archmem.history`` move into this package when they are next changed)."""
